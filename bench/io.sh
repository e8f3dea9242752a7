#!/usr/bin/env bash
# I/O benchmark: grotto's reader (io_uring and pread backends) against fio on
# the same graph file, same queue depth, same request size, same run, runs
# interleaved so noise hits all alike; plus the stored device profile
# against fio at the depths the issue quotes.
# Usage: bench/io.sh [RUNS=3] [WORKDIR=bench/out] [SECONDS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
WORK=${2:-bench/out}
SECS=${3:-3}
mkdir -p "$WORK"
cargo build --release -q
BIN=$PWD/target/release/grotto
if ! command -v fio >/dev/null; then
  apt-get update -qq && apt-get install -y -qq fio >/dev/null
fi
G="$WORK/rmat22.grotto"
[ -f "$G" ] || "$BIN" generate rmat --scale 22 --edge-factor 16 --seed 1 --undirected -o "$G" -q
"$BIN" doctor --path "$WORK" --json > "$WORK/doctor.json"
python3 - "$BIN" "$G" "$RUNS" "$WORK" "$SECS" <<'PY'
import json, statistics, subprocess, sys
binary, graph, runs, work, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
doc = json.load(open(f"{work}/doctor.json"))
prof = doc.get("profile") or {}
k_r = prof.get("k_r", 32)
merge = prof.get("merge_bytes", 128 << 10)
probe = json.loads(subprocess.run([binary, "bench", "io", graph, "--qd", "1", "--pattern", "random", "--seconds", "0.1", "--json"],
                                  capture_output=True, text=True, check=True).stdout)
off, size = probe["range_offset"], probe["range_bytes"]

def fio(rw, bs, qd, t=secs):
    out = subprocess.run(["fio", "--name=g", f"--filename={graph}", "--direct=1", "--ioengine=io_uring", f"--rw={rw}",
                          f"--bs={bs}", f"--iodepth={qd}", f"--offset={off}", f"--size={size}", "--time_based",
                          f"--runtime={t}", "--norandommap", "--randrepeat=0", "--output-format=json"],
                         capture_output=True, text=True, check=True).stdout
    r = json.loads(out)["jobs"][0]["read"]
    return r["iops"], r["bw_bytes"]

def grotto(pattern, bs, qd, io):
    out = subprocess.run([binary, "bench", "io", graph, "--qd", str(qd), "--size", str(bs), "--pattern", pattern,
                          "--seconds", str(secs), "--io", io, "--json"], capture_output=True, text=True, check=True).stdout
    r = json.loads(out)["results"][0]
    return r["iops"], r["bandwidth"]

cases = [("random 4 KiB, depth 32", "randread", "random", 4096, 32),
         (f"sequential {merge // 1024} KiB, depth {k_r}", "read", "seq", merge, k_r)]
rows = []
for name, fio_rw, pat, bs, qd in cases:
    f, u, p = [], [], []
    for _ in range(runs):
        f.append(fio(fio_rw, bs, qd)); u.append(grotto(pat, bs, qd, "uring")); p.append(grotto(pat, bs, qd, "pread"))
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    i = 0 if pat == "random" else 1
    rows.append(dict(case=name, fio=med(f, i), uring=med(u, i), pread=med(p, i),
                     uring_ratio=med(u, i) / med(f, i), pread_ratio=med(p, i) / med(f, i),
                     unit="IOPS" if pat == "random" else "bytes/s"))
print(f"graph {graph}: out-edge blocks, bytes {off}..{off + size}; medians of {runs} interleaved runs of {secs} s")
print(f"{'case':34} {'unit':8} {'fio':>12} {'grotto uring':>13} {'ratio':>6} {'grotto pread':>13} {'ratio':>6}")
for r in rows:
    scale = 1 if r["unit"] == "IOPS" else 1e6
    unit = r["unit"] if scale == 1 else "MB/s"
    print(f"{r['case']:34} {unit:8} {r['fio']/scale:12.0f} {r['uring']/scale:13.0f} {r['uring_ratio']:6.2f} {r['pread']/scale:13.0f} {r['pread_ratio']:6.2f}")

# Stored profile against fio at the quoted points (one fio run each).
prof_file = doc.get("profile_file")
side = []
if prof_file:
    p = json.load(open(prof_file))
    pts = {(x["op"], x["depth"], x["size"]): x for x in p["points"]}
    print(f"\nprofile {prof_file} (k_r {p['k_r']}, merge {p['merge_bytes']//1024} KiB) against fio on this file")
    print(f"{'point':28} {'profile':>10} {'fio':>10}")
    for qd in (1, 8, 32, 128):
        fi, _ = fio("randread", 4096, qd, t=max(1.0, secs / 2))
        pr = pts.get(("read", qd, 4096), {}).get("iops")
        side.append(dict(point=f"4K randread qd{qd} IOPS", profile=pr, fio=fi))
        print(f"{'4K randread qd' + str(qd) + ' IOPS':28} {pr or float('nan'):10.0f} {fi:10.0f}")
    _, fb = fio("randread", 131072, p["k_r"], t=max(1.0, secs / 2))
    pb = pts.get(("read", p["k_r"], 131072), {}).get("bandwidth")
    side.append(dict(point=f"128K randread qd{p['k_r']} MB/s", profile=pb and pb / 1e6, fio=fb / 1e6))
    print(f"{'128K randread qd' + str(p['k_r']) + ' MB/s':28} {(pb or 0)/1e6:10.0f} {fb/1e6:10.0f}")
json.dump(dict(rows=rows, profile_vs_fio=side, runs=runs, seconds=secs), open(f"{work}/io.json", "w"), indent=1)
print(f"\nwritten to {work}/io.json")
PY
# The pool's hit path (no I/O): pinned lookups per second per thread.
for t in 1 2; do "$BIN" bench pool "$G" --threads $t; done
