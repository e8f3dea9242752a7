#!/usr/bin/env bash
# grotto against ACGraph (out of core) and GAP (in memory), side by side in
# one run, interleaved: see bench/peers.py for what is run and checked.
#
#   bash bench/peers.sh ACGRAPH_BUILD [RUNS] [WORKDIR] [GRAPHS]
#
# ACGRAPH_BUILD: ACGraph's build directory (bfs, wcc_lp, kcore, ppr, pr,
#   el2csr, formatter), built with ../shared/tools/peers/build.sh, whose
#   README says how to get the sources. GAP is used when $PEERS/gapbs holds
#   its binaries (PEERS defaults to the parent of ACGraph's checkout).
# RUNS: runs of each (system, algorithm, graph), interleaved (default 5).
# WORKDIR: graphs and converted files (default bench-data/peers).
# GRAPHS: any of "rmat22 grid1000" (default both).
# Env: THREADS (2), CACHE_PCT (3), RMAX (1e-7, PPR), K (10, k-core),
#      TOOLS (the peers' scripts, default ../shared/tools/peers).
# Needs root for dropping the page cache before each run, as run.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
ACG=$(readlink -f "${1:?usage: bench/peers.sh ACGRAPH_BUILD [RUNS] [WORKDIR] [GRAPHS]}")
RUNS=${2:-5}
WORK=$(readlink -m "${3:-bench-data/peers}")
GRAPHS=${4:-rmat22 grid1000}
TOOLS=$(readlink -f "${TOOLS:-../shared/tools/peers}")
export PEERS=${PEERS:-$(dirname "$(dirname "$ACG")")}
[ -x "$ACG/bfs" ] || { echo "bench/peers.sh: no ACGraph bfs in $ACG" >&2; exit 2; }
[ -f "$TOOLS/run.sh" ] || { echo "bench/peers.sh: no run.sh in $TOOLS" >&2; exit 2; }
mkdir -p "$WORK/data"
cargo build --release -q
G=$PWD/target/release/grotto
ONLY=acgraph
[ -x "$PEERS/gapbs/bfs" ] && ONLY="acgraph gap"
for g in $GRAPHS; do
  el=$WORK/data/$g.el
  if [ ! -f "$el" ]; then
    case $g in
      rmat22) $G generate rmat --scale 22 --edge-factor 16 --seed 1 -o "$el.tmp" -q ;;
      grid1000) $G generate grid --rows 1000 --cols 1000 -o "$el.tmp" -q ;;
      *) echo "bench/peers.sh: unknown graph $g" >&2; exit 2 ;;
    esac
    # ACGraph's converter takes no comment lines.
    grep -v '^#' "$el.tmp" > "$el" && rm -f "$el.tmp"
  fi
  [ -d "$WORK/data/acgraph/$g" ] || ACG_BIN=$ACG ONLY="$ONLY" bash "$TOOLS/convert.sh" "$WORK/data" "$g"
  [ -f "$WORK/data/$g.grotto" ] || $G convert "$el" "$WORK/data/$g.grotto" --undirected -q
done
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check matplotlib
for g in $GRAPHS; do
  # The BFS and PPR source: the highest-degree vertex (first on ties) of
  # the graph ACGraph reads, in the edge list's ids (convert.sh writes it
  # in its CAVE step, which is skipped here).
  [ -f "$WORK/data/$g.maxdeg" ] || .venv/bin/python -c '
import sys, numpy as np
d = np.diff(np.fromfile(sys.argv[1] + "/offset", dtype="<u8"))
v = int(np.argmax(d))
print(v, int(d[v]))' "$WORK/data/acgraph/$g.csr" > "$WORK/data/$g.maxdeg"
done
GROTTO_BIN=$G ACG_BIN=$ACG TOOLS=$TOOLS .venv/bin/python bench/peers.py "$WORK" "$RUNS" $GRAPHS
