#!/usr/bin/env bash
# Reproduces CAVE's concurrency and cache findings for the sync engine on
# rmat scale 22 (edge factor 16, undirected): see bench/engine.py.
#   bash bench/engine.sh [RUNS] [WORKDIR]
# Needs a device profile for k_r (`grotto profile --path WORKDIR`); builds
# the graph in WORKDIR if it is missing; installs matplotlib into .venv and
# fio (the same-run device reference) if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
WORK=${2:-bench-data}
mkdir -p "$WORK"
cargo build --release -q
if ! command -v fio >/dev/null; then
  apt-get update -qq && apt-get install -y -qq fio >/dev/null
fi
G=target/release/grotto
if [ ! -f "$WORK/rmat22.grotto" ]; then
  $G generate rmat --scale 22 --edge-factor 16 --seed 1 -o "$WORK/rmat22.grotto" --undirected -q
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check matplotlib
GROTTO_BIN=$G .venv/bin/python bench/engine.py "$WORK/rmat22.grotto" "$WORK" "$RUNS"
