#!/usr/bin/env bash
# Runs grotto's whole test suite: Rust unit, property and CLI tests, then
# the Python package and the reference checks against networkx, scipy,
# igraph and Spark's GraphX (all installed into .venv).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; else
    echo "cargo not found: install Rust (https://rustup.rs)" >&2; exit 1; fi
fi

# One compiled dependency tree serves the demo (`cargo run --release -p
# grotto-cli -- demo`), this build, the tests and the Python wheel: after
# the demo only the test binaries and the binding itself compile.
# scripts/unify.sh fails if a dependency's features would differ between
# them (which would compile arrow, parquet and grotto again).
cargo build --release --locked 2>&1 || cargo build --release
bash scripts/unify.sh
cargo test --release --workspace

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check networkx scipy igraph pytest pandas pyarrow
# Spark for tests/python/test_spark.py: PySpark from PyPI (its jars include
# GraphX and the Scala compiler the GraphX reference is built with), and a
# Java runtime from Debian's packages only where none is installed.
.venv/bin/python -m pip install --quiet --disable-pip-version-check "pyspark==4.0.1"
if ! command -v java >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  else
    echo "java not found: install a Java 17 runtime (Debian: openjdk-17-jre-headless) for the Spark tests" >&2; exit 1
  fi
fi
# The Python package, built from this checkout (maturin, one abi3 wheel)
# and installed into .venv, so tests/python drives it as a user would.
.venv/bin/python -m pip install --quiet --disable-pip-version-check ./crates/grotto-py
GROTTO_BIN="$PWD/target/release/grotto" .venv/bin/python -m pytest -q tests/python
