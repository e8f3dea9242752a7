#!/usr/bin/env bash
# networkx's whole test suite alone and through the grotto backend
# (NETWORKX_TEST_BACKEND=grotto NETWORKX_FALLBACK_TO_NX=True, which
# converts the graph afresh on every dispatched call), interleaved, ROUNDS
# rounds (default 2). Usage: bash bench/python/nx_suite.sh [ROUNDS]
# (PYTHON names the interpreter with networkx and grotto installed;
# default .venv/bin/python). Prints each run's wall time and summary line.
set -euo pipefail
PY=${PYTHON:-$PWD/.venv/bin/python}
ROUNDS=${1:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for r in $(seq "$ROUNDS"); do
  for mode in alone grotto; do
    if [ "$mode" = grotto ]; then
      export NETWORKX_TEST_BACKEND=grotto NETWORKX_FALLBACK_TO_NX=True
    else
      unset NETWORKX_TEST_BACKEND NETWORKX_FALLBACK_TO_NX
    fi
    s=$(date +%s.%N)
    "$PY" -m pytest -q -p no:cacheprovider -rfEx --pyargs networkx > "run.log" 2>&1 || true
    e=$(date +%s.%N)
    printf '%s round %s: %.1f s; %s\n' "$mode" "$r" "$(echo "$e - $s" | bc)" "$(tail -1 run.log)"
  done
done
