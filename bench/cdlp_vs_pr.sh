#!/usr/bin/env bash
# CDLP against PageRank on the same file, the same number of iterations
# (issue 45's target: CDLP's time per iteration at most 1.5x PageRank's).
#
#   GROTTO=target/release/grotto GRAPH=/work/peers/data/rmat22u.grotto \
#     bash bench/cdlp_vs_pr.sh > results.txt
#
# GRAPH: rmat22u.grotto (`grotto convert rmat22.el rmat22u.grotto
# --undirected`, the edge list of `grotto generate rmat --scale 22
# --edge-factor 16 --seed 1`). ITERATIONS (10), RUNS rounds (5), THREADS
# (2), CACHE (3%). PageRank runs exactly ITERATIONS iterations (a
# tolerance no iteration meets). Every run starts with the page cache
# dropped (root; otherwise warm, and the script says so). Seconds are
# metrics.wall_s of --json. Standard output: `algo round seconds
# bytes_read peak_rss_bytes`, then medians and the ratio.
set -euo pipefail
GROTTO=$(readlink -m "${GROTTO:-$(dirname "$0")/../target/release/grotto}")
GRAPH=${GRAPH:-/work/peers/data/rmat22u.grotto}
ITERATIONS=${ITERATIONS:-10}
RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
CACHE=${CACHE:-3%}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

one() { # algo round [flags...]
  local algo=$1 round=$2
  shift 2
  drop
  "$GROTTO" run "$algo" "$GRAPH" --threads "$THREADS" --cache "$CACHE" --json -q "$@" |
    python3 -c 'import json,sys
d=json.load(sys.stdin); m=d["metrics"]
print(sys.argv[1], sys.argv[2], m["wall_s"], m["bytes_read"], m["peak_rss_bytes"])' "$algo" "$round"
}

echo "# $GRAPH, $ITERATIONS iterations, $THREADS threads, cache $CACHE, $RUNS rounds"
echo "# algo round seconds bytes_read peak_rss_bytes"
for round in $(seq 1 "$RUNS"); do
  one cdlp "$round" --iterations "$ITERATIONS"
  one pagerank "$round" --max-iterations "$ITERATIONS" --tolerance 1e-300 --method jacobi --engine sync
done | tee /dev/stderr | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
med = {}
for algo in ("cdlp", "pagerank"):
    r = [x for x in rows if x[0] == algo]
    med[algo] = [statistics.median(float(x[i]) for x in r) for i in (2, 3, 4)]
    print("median", algo, len(r), *med[algo])
print("ratio cdlp/pagerank %.2f" % (med["cdlp"][0] / med["pagerank"][0]))'
