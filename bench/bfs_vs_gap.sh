#!/usr/bin/env bash
# Direction-optimizing BFS against GAP's in memory, interleaved in one run:
# grotto --direction auto and top-down from disk (--cache 3%, page cache
# dropped before each run) and with --io memory (no I/O at all), GAP's bfs
# on its .sg (average trial time, graph loading excluded), and the
# device's sequential read rate through grotto's reader for the floor.
#
#   bash bench/bfs_vs_gap.sh DIR GRAPH SOURCE [RUNS=5]
#
# DIR holds GRAPH.grotto and GRAPH.sg (GAP's converter -s -b, from the same
# edge list); SOURCE is the BFS root in the edge list's ids (the peers'
# GRAPH.maxdeg). GAP's bfs from $GAP (default $PEERS/gapbs/bfs).
# Prints one line per run and the medians; needs root for dropping caches.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:?usage: bench/bfs_vs_gap.sh DIR GRAPH SOURCE [RUNS]}
G=$2
SRC=$3
RUNS=${4:-5}
THREADS=${THREADS:-2}
GAP=${GAP:-${PEERS:-/work/peers}/gapbs/bfs}
BIN=$PWD/target/release/grotto
source bench/lib.sh
out=$(mktemp)
trap 'rm -f "$out"' EXIT
grotto_s() {
    "$BIN" run bfs "$DIR/$G.grotto" --source "$SRC" --threads "$THREADS" "$@" --json -q -o /dev/null |
        python3 -c 'import json,sys; m=json.load(sys.stdin)["metrics"]; print(m["algo_s"], m["bytes_read"])'
}
for i in $(seq "$RUNS"); do
    for d in auto top-down; do
        drop
        echo "disk-$d $(grotto_s --direction $d --cache 3%)" | tee -a "$out"
        echo "memory-$d $(grotto_s --direction $d --io memory)" | tee -a "$out"
    done
    drop
    t=$(OMP_NUM_THREADS=$THREADS "$GAP" -f "$DIR/$G.sg" -r "$SRC" -n 1 | awk '/Average Time/ {print $3}')
    echo "gap $t 0" | tee -a "$out"
done
echo "device: $("$BIN" bench io "$DIR/$G.grotto" --size merge --pattern seq --seconds 2 --threads "$THREADS" | tail -1)"
python3 - "$out" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, s, b = line.split()
    rows.setdefault(k, []).append((float(s), int(b)))
gap = statistics.median(s for s, _ in rows["gap"])
print("| run | median s | bytes read | over GAP |")
print("|---|---|---|---|")
for k, v in rows.items():
    m = statistics.median(s for s, _ in v)
    print(f"| {k} | {m:.4f} | {v[0][1]} | {m / gap:.2f}x |")
PY
