#!/usr/bin/env bash
# Louvain (and Leiden) on an R-MAT graph no in-memory community tool here
# can hold: generated straight into a .grotto file, then run with the
# edges on disk (--cache 3%, page cache dropped) under a memory budget for
# the levels. Each step's time, bytes read per edge, peak memory per
# vertex beyond the cache, modularity, levels (and which went to scratch
# files), and the rate in edges a second per thread against
# GVE-Louvain's published 560M edges/s on 64 threads (8.75M per thread).
# Usage: bench/communities_scale.sh [SCALE=26] [MEMORY=1GiB] [WORKDIR=bench/out/scale] [ALGOS="louvain leiden"]
# Appends one JSON object per step to WORKDIR/communities-SCALE.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${1:-26}
MEM=${2:-1GiB}
WORK=${3:-bench/out/scale}
ALGOS=${4:-louvain leiden}
THREADS=${THREADS:-2}
mkdir -p "$WORK"
cargo build --release -q
BIN=$PWD/target/release/grotto
G="$WORK/rmat$SCALE.grotto"
OUT="$WORK/communities-$SCALE.jsonl"
source bench/lib.sh
step() {
    local name=$1
    shift
    drop
    /usr/bin/time -f '%e %M' -o "$WORK/time.txt" "$@" > "$WORK/step.json"
    python3 - "$name" "$WORK/step.json" "$WORK/time.txt" "$THREADS" <<'PY' | tee -a "$OUT"
import json, sys
name, path, tfile, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
wall, kib = open(tfile).read().split()[-2:]
j = json.load(open(path))
m, s = j.get("metrics", {}), j.get("summary", {})
n = j.get("vertices") or s.get("vertices")
g = json.load(open(path.replace("step.json", "info.json")))
n, e = g["vertices"], g["edges"]
out = {"step": name, "wall_s": float(wall), "vertices": n, "edges": e,
       "peak_rss_bytes": int(kib) * 1024,
       "beyond_cache_bytes_per_vertex": (int(kib) * 1024 - (m.get("cache_bytes") or 0)) / max(n, 1)}
if "modularity" in s:
    out.update(algo_s=m["algo_s"], bytes_read=m["bytes_read"],
               bytes_read_per_edge=(m["bytes_read"] + s.get("scratch_read_bytes", 0)) / e,
               modularity=s["modularity"], communities=s["communities"],
               edges_per_s_per_thread=e / m["algo_s"] / threads,
               of_gve_louvain_per_thread=e / m["algo_s"] / threads / 8.75e6,
               levels=[{k: l[k] for k in ("vertices", "entries", "communities", "modularity", "sweeps",
                                          "passes", "next_in_memory", "scratch", "move_s", "contract_s")}
                       for l in s["levels"]])
print(json.dumps(out))
PY
}
if [ ! -f "$G" ]; then
    "$BIN" generate rmat --scale "$SCALE" --edge-factor 16 --seed 7 --undirected --memory 8GiB -o "$G" --json > "$WORK/generate.json"
fi
"$BIN" info "$G" --json > "$WORK/info.json"
for a in $ALGOS; do
    step "$a" "$BIN" run "$a" "$G" --cache 3% --memory "$MEM" --threads "$THREADS" --json
done
