#!/usr/bin/env bash
# The PIO/ACE thesis's buffer-pool experiment on a grotto graph (issue 19,
# benchmark 1): every replacement policy plain, with ACE and with ACE and
# prefetching on the four workloads (the thesis's Figure 8), ACE's speedup
# against the pool size on MS (Figure 9A), and against n_w on WIS (9B).
# Only a scratch copy of the graph is written.
#
#   bash bench/ace.sh [GRAPH] [RUNS] [OPS] [OUTDIR]
#
# GRAPH: a weighted .grotto file (default: rmat scale 20, undirected,
#   weighted, generated into OUTDIR). RUNS: interleaved rounds, medians
#   reported (default 3). OPS: timed operations per run (default 50000).
# OUTDIR: JSON results and PNGs (default bench-data/ace; the PNGs are also
#   copied to docs/img). Needs a device profile (`grotto profile`) for k_w
#   and alpha.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(readlink -m "${4:-bench-data/ace}")
mkdir -p "$OUT"
GRAPH=${1:-$OUT/rmat20w.grotto}
RUNS=${2:-3}
OPS=${3:-50000}
cargo build --release -q
G=$PWD/target/release/grotto
[ -f "$GRAPH" ] || $G generate rmat --scale 20 --undirected --weighted -o "$GRAPH" -q
$G bench ace "$GRAPH" --json --runs "$RUNS" --ops "$OPS" > "$OUT/fig8.json"
$G bench ace "$GRAPH" --json --runs "$RUNS" --ops "$OPS" --workload ms \
  --variant plain,ace --pool 2%,4%,6%,8%,10%,12% > "$OUT/fig9a.json"
$G bench ace "$GRAPH" --json --runs "$RUNS" --ops "$OPS" --workload wis \
  --policy lru,clock --variant plain,ace --nw 1,2,4,8,16,32,64,128 > "$OUT/nw.json"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check matplotlib
.venv/bin/python bench/ace.py "$OUT"
mkdir -p docs/img
cp "$OUT"/ace-*.png docs/img/
