#!/usr/bin/env bash
# Ingest benchmark: grotto's parse and whole convert against pyarrow's CSV
# reader on the same generated R-MAT edge list, same thread counts, same
# run. Usage: bench/ingest.sh [SCALE=22] [RUNS=3] [WORKDIR=bench/out]
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${1:-22}
RUNS=${2:-3}
WORK=${3:-bench/out}
mkdir -p "$WORK"
cargo build --release -q
BIN=$PWD/target/release/grotto
if [ ! -x "$WORK/venv/bin/python" ]; then python3 -m venv "$WORK/venv"; fi
"$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check pyarrow
EL="$WORK/rmat$SCALE.el"
[ -f "$EL" ] || "$BIN" generate rmat --scale "$SCALE" --edge-factor 16 --seed 1 -o "$EL" -q
"$WORK/venv/bin/python" - "$BIN" "$EL" "$RUNS" "$WORK" <<'PY'
import json, statistics, subprocess, sys, time
import pyarrow as pa, pyarrow.csv as csv
binary, el, runs, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def pyarrow_parse(threads):
    pa.set_cpu_count(threads); pa.set_io_thread_count(threads)
    t = time.perf_counter()
    tbl = csv.read_csv(el, read_options=csv.ReadOptions(column_names=["u", "v"], skip_rows=2, block_size=1 << 24),
                       parse_options=csv.ParseOptions(delimiter=" "),
                       convert_options=csv.ConvertOptions(column_types={"u": pa.int64(), "v": pa.int64()}))
    return time.perf_counter() - t, tbl.num_rows
def grotto(threads):
    out = subprocess.run([binary, "convert", el, f"{work}/bench.grotto", "--undirected", "--json", "--threads", str(threads)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)
rows = []
for threads in (1, 2):
    pa_t, g_parse, g_total = [], [], []
    for _ in range(runs):  # interleaved so noise hits both alike
        t, edges = pyarrow_parse(threads); pa_t.append(t)
        r = grotto(threads); g_parse.append(r["timings"]["parse_s"]); g_total.append(r["timings"]["total_s"])
    m = lambda x: statistics.median(x)
    rows.append(dict(threads=threads, edges=edges, pyarrow_parse_s=m(pa_t), grotto_parse_s=m(g_parse), grotto_convert_s=m(g_total),
                     parse_speedup_vs_pyarrow=m(pa_t) / m(g_parse), convert_over_pyarrow_parse=m(g_total) / m(pa_t),
                     grotto_parse_edges_per_s=edges / m(g_parse), grotto_convert_edges_per_s=edges / m(g_total),
                     pyarrow_edges_per_s=edges / m(pa_t), runs=runs))
print(f"{'threads':>7} {'pyarrow s':>10} {'grotto parse s':>15} {'convert s':>10} {'parse x':>8} {'convert/pa':>11} {'parse Me/s':>11} {'convert Me/s':>13}")
for r in rows:
    print(f"{r['threads']:>7} {r['pyarrow_parse_s']:>10.2f} {r['grotto_parse_s']:>15.2f} {r['grotto_convert_s']:>10.2f} {r['parse_speedup_vs_pyarrow']:>8.2f} {r['convert_over_pyarrow_parse']:>11.2f} {r['grotto_parse_edges_per_s']/1e6:>11.1f} {r['grotto_convert_edges_per_s']/1e6:>13.1f}")
with open(f"{work}/ingest.json", "w") as f:
    json.dump(dict(schema_version=1, file=el, rows=rows), f, indent=1)
PY
