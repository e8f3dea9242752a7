#!/usr/bin/env bash
# Betweenness from one source against GAP's in-memory bc, and SCC against
# WCC on the same directed file: the two ratios issue 47 asks for.
#
#   GROTTO=target/release/grotto GAP_DIR=/work/peers/gapbs DATA=/work/peers/data \
#     bash bench/bc_scc.sh > results.txt
#
# DATA holds rmat22u.sg (GAP, undirected), rmat22u.grotto (the same edges,
# `grotto convert rmat22.el rmat22u.grotto --undirected`) and rmat22d.grotto
# (`grotto generate rmat --scale 22 --edge-factor 16 --seed 1 --reverse`).
# RUNS rounds (default 5), THREADS (2), CACHE (3%). Every run starts with
# the page cache dropped (root; otherwise warm, and the script says so).
# GAP's seconds are its "Trial Time" (the graph already in memory);
# grotto's are metrics.wall_s of --json (reads from disk included).
# Standard output: `system algo round seconds bytes_read peak_rss_bytes`,
# then medians.
set -euo pipefail
GROTTO=$(readlink -m "${GROTTO:-$(dirname "$0")/../target/release/grotto}")
GAP_DIR=${GAP_DIR:-/work/peers/gapbs}
DATA=${DATA:-/work/peers/data}
RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
CACHE=${CACHE:-3%}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# The source: the one grotto's BFS picks by default (seeded, with
# out-edges), in the edge list's ids, so that GAP starts from it too.
SRC=$("$GROTTO" run bfs "$DATA/rmat22u.grotto" --json -q | python3 -c \
  'import json,sys; print(json.load(sys.stdin)["config"]["source"])')
echo "# source $SRC, $THREADS threads, cache $CACHE, $RUNS rounds"
echo "# system algo round seconds bytes_read peak_rss_bytes"

grotto_run() { # algo graph round [flags...]
  local algo=$1 graph=$2 round=$3
  shift 3
  drop
  "$GROTTO" run "$algo" "$graph" --threads "$THREADS" --cache "$CACHE" --json -q "$@" |
    python3 -c 'import json,sys
d=json.load(sys.stdin); m=d["metrics"]
print("grotto", sys.argv[1], sys.argv[2], m["wall_s"], m["bytes_read"], m["peak_rss_bytes"])' \
      "$algo" "$round"
}

for round in $(seq 1 "$RUNS"); do
  drop
  OMP_NUM_THREADS=$THREADS "$GAP_DIR/bc" -f "$DATA/rmat22u.sg" -n 1 -r "$SRC" |
    awk -v r="$round" -v sz="$(stat -c %s "$DATA/rmat22u.sg")" \
      '/Trial Time/ {print "gap bc", r, $3, sz, 0}'
  grotto_run bc "$DATA/rmat22u.grotto" "$round" --source "$SRC"
  grotto_run wcc "$DATA/rmat22d.grotto" "$round"
  grotto_run scc "$DATA/rmat22d.grotto" "$round"
done | tee /dev/stderr | python3 -c '
import statistics, sys
rows = {}
for line in sys.stdin:
    f = line.split()
    rows.setdefault((f[0], f[1]), []).append(f)
print("# medians: system algo runs seconds bytes_read peak_rss_bytes")
for (system, algo), rs in rows.items():
    med = statistics.median(float(r[3]) for r in rs)
    print("median", system, algo, len(rs), med, rs[-1][4], rs[-1][5])
'
