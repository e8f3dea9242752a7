#!/usr/bin/env bash
# Peak memory of bounded builds against their budget and stated floor,
# for one or more grotto binaries side by side (docs/ingest.md, "Memory").
# Usage: bench/build_memory.sh EDGE_LIST "BUDGETS" [BIN ...]
#   e.g. bench/build_memory.sh rmat22.el "64MiB 128MiB 256MiB 400MiB" old/grotto target/release/grotto
# Each line: binary, budget, floor, partitions, peak RSS (/usr/bin/time), time;
# "over" marks a peak above both the floor and the budget.
set -euo pipefail
EL=$1
BUDGETS=${2:-"64MiB 128MiB 256MiB"}
shift 2 || true
BINS=("$@")
[ ${#BINS[@]} -gt 0 ] || BINS=("$(dirname "$0")/../target/release/grotto")
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for m in $BUDGETS; do
    for b in "${BINS[@]}"; do
        rm -f "$OUT/g.grotto"
        /usr/bin/time -f "%e %M" -o "$OUT/time" "$b" convert "$EL" "$OUT/g.grotto" --undirected \
            --memory "$m" --json > "$OUT/r.json" 2> /dev/null
        python3 - "$b" "$m" "$OUT/r.json" "$OUT/time" <<'PY'
import json, sys
b, m, r, t = sys.argv[1:]
j = json.load(open(r))
secs, kib = open(t).read().split()[-2:]
mib = lambda x: x / 2**20
peak, floor, budget = int(kib) * 1024, j["memory_floor_bytes"], j["memory_budget_bytes"]
flag = "over" if peak > max(floor, budget) else "ok"
print(f"{b}  --memory {m}: floor {mib(floor):.0f} MiB, {j['partitions']} partitions, "
      f"peak {mib(peak):.0f} MiB ({flag}), {float(secs):.2f} s")
PY
    done
done
