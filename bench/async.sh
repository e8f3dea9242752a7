#!/usr/bin/env bash
# The asynchronous engine against the synchronous one (issue 5's table):
# rmat scale 22 (edge factor 16, undirected) and a 2000x2000 grid, cache 3%,
# concurrency from the device profile, medians of RUNS runs; writes
# WORKDIR/async.txt, async.json and async-throughput.png.
#   bash bench/async.sh [RUNS] [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
WORK=${2:-bench-data}
mkdir -p "$WORK"
cargo build --release -q
G=target/release/grotto
[ -f "$WORK/rmat22.grotto" ] || $G generate rmat --scale 22 --edge-factor 16 --seed 1 -o "$WORK/rmat22.grotto" --undirected -q
[ -f "$WORK/grid2k.grotto" ] || $G generate grid --rows 2000 --cols 2000 -o "$WORK/grid2k.grotto" --undirected -q
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check matplotlib
GROTTO_BIN=$G .venv/bin/python bench/async.py "$WORK" "$RUNS"
