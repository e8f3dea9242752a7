#!/usr/bin/env bash
# Prints each dependency that two builds of the workspace resolve with
# different features (so Cargo would compile it, and all above it, twice):
# the demo's `-p grotto-cli`, the Python wheel's `-p grotto-py`, the
# tests' `--workspace` with dev-dependencies, and the core's own tests
# (`cargo test -p grotto`). Nothing printed: one build
# serves all three. A line printed: add the union of its features to
# crates/workspace-hack/Cargo.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
tree() { cargo tree "$@" -e normal,build -f '{p} [{f}]' --prefix none | sed 's/ (\*)$//' | sort -u; }
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
tree -p grotto-cli > "$d/cli"
tree -p grotto-py > "$d/py"
tree --workspace -e dev > "$d/test"
tree -p grotto -e dev > "$d/core"
python3 - "$d" <<'PY'
import sys, collections
d = sys.argv[1]
# package -> build -> the feature lists it is compiled with (a package
# built for the host and for the target can have two within one build).
seen = collections.defaultdict(lambda: collections.defaultdict(set))
for build in ("cli", "py", "test", "core"):
    for line in open(f"{d}/{build}"):
        line = line.strip()
        if line:
            seen[" ".join(line.split()[:2])][build].add(line[line.rfind("["):])
bad = 0
for name, builds in sorted(seen.items()):
    if name.split()[0] in ("grotto", "grotto-cli", "grotto-py", "grotto-workspace-hack"):
        continue
    if len({frozenset(f) for f in builds.values()}) > 1:
        bad += 1
        print(name, "; ".join(f"{b}: {' '.join(sorted(f))}" for b, f in builds.items()))
sys.exit(1 if bad else 0)
PY
