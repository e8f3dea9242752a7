"""Python overhead: g.bfs() and g.pagerank() from Python against the CLI's
algorithm time on the same graph, interleaved, and to_arrow() of the
result. Usage: python bench/python/overhead.py GRAPH.grotto [RUNS]
(GROTTO_BIN names the binary; default target/release/grotto)."""

import json
import os
import statistics
import subprocess
import sys
import time

import grotto

G = os.environ.get("GROTTO_BIN", "target/release/grotto")
path = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
g = grotto.open(path)
rows = {"bfs": [], "pagerank": []}
for _ in range(runs):
    for algo in rows:
        cli = json.loads(subprocess.run([G, "run", algo, path, "--json"], capture_output=True, text=True, check=True).stdout)
        t0 = time.perf_counter()
        res = g.bfs() if algo == "bfs" else g.pagerank()
        call = time.perf_counter() - t0
        rows[algo].append((cli["metrics"]["algo_s"], res.metrics["algo_s"], call))
for algo, r in rows.items():
    cli, py, call = (statistics.median(x[i] for x in r) for i in range(3))
    print(f"{algo}: CLI algorithm {cli:.3f} s; Python algorithm {py:.3f} s; whole Python call {call:.3f} s ({(call / cli - 1) * 100:+.1f}%)")
res = g.pagerank()
ts = []
for _ in range(5):
    t0 = time.perf_counter()
    t = res.to_arrow()
    ts.append(time.perf_counter() - t0)
print(f"to_arrow of {t.num_rows} rows: median {statistics.median(ts) * 1000:.2f} ms")
