#!/usr/bin/env bash
# The scale run of docs/scale.md: an R-MAT graph generated straight into a
# .grotto file under a memory budget, then info, check, BFS, WCC,
# PageRank (10 iterations), k-core and, on a weighted graph one scale
# smaller, SSSP; each with its time, bytes read per edge, peak memory per
# vertex and device fraction (from a quick `grotto profile` of WORKDIR).
# Usage: bench/scale.sh [SCALE=28] [MEMORY=8GiB] [WORKDIR=bench/out/scale]
# Appends one JSON object per step to WORKDIR/scale-SCALE.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${1:-28}
MEM=${2:-8GiB}
WORK=${3:-bench/out/scale}
mkdir -p "$WORK"
cargo build --release -q
BIN=$PWD/target/release/grotto
G="$WORK/rmat$SCALE.grotto"
W="$WORK/rmat$((SCALE - 1))w.grotto"
OUT="$WORK/scale-$SCALE.jsonl"
# step NAME VERTICES COMMAND...: runs the command (which prints JSON) under
# /usr/bin/time and appends one line with the figures.
step() {
    local name=$1 n=$2
    shift 2
    /usr/bin/time -f '%e %M' -o "$WORK/time.txt" "$@" > "$WORK/step.json"
    python3 - "$name" "$n" "$WORK/step.json" "$WORK/time.txt" <<'PY' | tee -a "$OUT"
import json, sys
name, n, path, tfile = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
wall, kib = open(tfile).read().split()[-2:]
j = json.load(open(path))
m = j.get("metrics", {})
print(json.dumps({
    "step": name, "wall_s": float(wall), "vertices": n,
    "peak_rss_bytes": int(kib) * 1024, "peak_bytes_per_vertex": int(kib) * 1024 / max(n, 1),
    "beyond_cache_bytes_per_vertex": (int(kib) * 1024 - (m.get("cache_bytes") or 0)) / max(n, 1),
    "algo_s": m.get("algo_s"), "bytes_per_edge": m.get("bytes_per_edge"),
    "device_fraction": j.get("device_fraction"),
}))
PY
}
vertices() { "$BIN" info "$1" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["vertices"])'; }
[ -f "$G" ] || step generate $((1 << SCALE)) "$BIN" generate rmat --scale "$SCALE" --undirected --memory "$MEM" -o "$G" --json
N=$(vertices "$G")
# The device fraction needs a profile of the device under WORKDIR.
"$BIN" profile --path "$WORK" --quick -q
step info "$N" "$BIN" info "$G" --json
step check "$N" "$BIN" check "$G" --json
# PageRank as a user runs it (the default tolerance, which picks f32
# contributions; 10 iterations do not reach it), then with f64 ones.
for a in bfs wcc "pagerank --max-iterations 10" "kcore --k 16"; do
    # shellcheck disable=SC2086
    step "${a%% *}" "$N" "$BIN" run $a "$G" --json
done
step pagerank-f64 "$N" "$BIN" run pagerank --max-iterations 10 --contributions f64 "$G" --json
[ -f "$W" ] || step generate-weighted $((1 << (SCALE - 1))) "$BIN" generate rmat --scale "$((SCALE - 1))" --undirected --weighted --memory "$MEM" -o "$W" --json
step sssp "$(vertices "$W")" "$BIN" run sssp "$W" --json
