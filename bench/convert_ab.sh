#!/usr/bin/env bash
# Side-by-side convert timings of two grotto binaries on the same edges as
# text and as Parquet (issue 50's "text 2x" and "Parquet 1.5x over text"):
# runs interleaved, medians of RUNS, phases from the --json report.
# Usage: bench/convert_ab.sh OLD_BIN NEW_BIN EDGE_LIST [PARQUET] [RUNS=5] [FLAGS="--undirected"]
set -euo pipefail
OLD=$1 NEW=$2 EL=$3 PQ=${4:-} RUNS=${5:-5} FLAGS=${6:---undirected}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
python3 - "$OLD" "$NEW" "$EL" "$PQ" "$RUNS" "$FLAGS" "$OUT" <<'PY'
import json, statistics, subprocess, sys
old, new, el, pq, runs, flags, out = sys.argv[1:8]
inputs = [("text", el)] + ([("parquet", pq)] if pq else [])
res = {}
for _ in range(int(runs)):
    for name, path in inputs:
        for tag, b in (("old", old), ("new", new)):
            r = json.loads(subprocess.run([b, "convert", path, f"{out}/g.grotto", "--json", *flags.split()],
                                          capture_output=True, text=True, check=True).stdout)
            t = r["timings"]
            res.setdefault((name, tag), []).append((t["total_s"], t["parse_s"], t.get("order_s", 0.0), t["build_s"], r["edges"]))
print(f"{'input':8} {'binary':6} {'total s':>8} {'parse s':>8} {'order s':>8} {'build s':>8}  (medians of {runs})")
for (name, tag), v in res.items():
    m = [statistics.median(x[i] for x in v) for i in range(4)]
    print(f"{name:8} {tag:6} {m[0]:8.2f} {m[1]:8.2f} {m[2]:8.2f} {m[3]:8.2f}   all totals: {' '.join(f'{x[0]:.2f}' for x in v)}")
PY
