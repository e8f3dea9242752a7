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
# GRAPHS: any of "rmat22 grid1000 road1k road1ks" (default all); road1k is
#   the grid with 15% of its edges dropped, road1ks the same with shuffled ids.
# Env: THREADS (2), CACHE_PCT (3), RMAX (1e-7, PPR), K (10, k-core),
#      TOOLS (the peers' scripts, default ../shared/tools/peers),
#      BLAZE (Blaze's run.sh; default $PEERS/blaze/run.sh when Blaze is
#      built there with its run.sh copied in and el2gr in $PEERS/bin).
# Needs root for dropping the page cache before each run, as run.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
ACG=$(readlink -f "${1:?usage: bench/peers.sh ACGRAPH_BUILD [RUNS] [WORKDIR] [GRAPHS]}")
RUNS=${2:-5}
WORK=$(readlink -m "${3:-bench-data/peers}")
GRAPHS=${4:-rmat22 grid1000 road1k road1ks}
TOOLS=$(readlink -f "${TOOLS:-../shared/tools/peers}")
export PEERS=${PEERS:-$(dirname "$(dirname "$ACG")")}
[ -x "$ACG/bfs" ] || { echo "bench/peers.sh: no ACGraph bfs in $ACG" >&2; exit 2; }
[ -f "$TOOLS/run.sh" ] || { echo "bench/peers.sh: no run.sh in $TOOLS" >&2; exit 2; }
mkdir -p "$WORK/data"
cargo build --release -q
G=$PWD/target/release/grotto
ONLY=acgraph
[ -x "$PEERS/gapbs/bfs" ] && ONLY="acgraph gap"
if [ -z "${BLAZE:-}" ] && [ -x "$PEERS/blaze/build/bin/pagerank" ] && [ -f "$PEERS/blaze/run.sh" ] &&
  [ -x "$PEERS/bin/el2gr" ]; then
  export BLAZE=$PEERS/blaze/run.sh
fi
for g in $GRAPHS; do
  el=$WORK/data/$g.el
  if [ ! -f "$el" ]; then
    case $g in
      rmat22) $G generate rmat --scale 22 --edge-factor 16 --seed 1 -o "$el.tmp" -q ;;
      grid1000) $G generate grid --rows 1000 --cols 1000 -o "$el.tmp" -q ;;
      # Road-like: 15% of the grid's edges dropped, in row order and with shuffled ids.
      road1k) $G generate grid --rows 1000 --cols 1000 --drop 0.15 -o "$el.tmp" -q ;;
      road1ks) $G generate grid --rows 1000 --cols 1000 --drop 0.15 --shuffle -o "$el.tmp" -q ;;
      *) echo "bench/peers.sh: unknown graph $g" >&2; exit 2 ;;
    esac
    # ACGraph's converter takes no comment lines.
    grep -v '^#' "$el.tmp" > "$el" && rm -f "$el.tmp"
  fi
  [ -d "$WORK/data/acgraph/$g" ] || ACG_BIN=$ACG ONLY="$ONLY" bash "$TOOLS/convert.sh" "$WORK/data" "$g"
  # Every id 0..n-1 is a vertex, isolated ones included, as the peers
  # count them (n from ACGraph's CSR), so that WCC's counts agree.
  n=$(python3 -c 'import struct,sys; print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(), 3)[0])' \
    "$WORK/data/acgraph/$g.csr/meta")
  [ -f "$WORK/data/$g.grotto" ] || $G convert "$el" "$WORK/data/$g.grotto" --undirected --vertices "$n" -q
  # Blaze, when built beside the others (../shared/tools/peers/blaze:
  # its run.sh copied into the checkout, el2gr into $PEERS/bin).
  if [ -n "${BLAZE:-}" ] && [ ! -f "$WORK/data/blaze/$g.gr.index" ]; then
    mkdir -p "$WORK/data/blaze"
    (cd "$WORK/data/blaze" && nice -n 19 "$PEERS/bin/el2gr" "$el" "$g.gr" &&
      nice -n 19 "$(dirname "$BLAZE")/build/bin/convert" -numDisks=1 "$g.gr" unused.index unused.adj \
        > "convert_$g.log")
  fi
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
