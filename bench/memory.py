#!/usr/bin/env python3
"""Peak memory per vertex of every algorithm, and its time, for one or
more grotto binaries side by side.

    python bench/memory.py GRAPH [RUNS] [BIN ...]

For each algorithm (bfs, wcc, kcore 10, pagerank, ppr, coreness, mis,
eccentricity, randomwalk, sssp on weighted graphs only), RUNS times
(default 3), interleaved over the binaries (default GROTTO_BIN or
target/release/grotto): `grotto run ALGO GRAPH --threads 2 --cache 3%
-o r.csv --json`, with the page cache dropped first when
/proc/sys/vm/drop_caches is writable. Also `grotto info GRAPH` (opening
the file and its statistics). GROTTO_ALGOS=bfs,wcc,... runs only those.

Peak is the kernel's high-water mark of the whole command (VmHWM, as the
run reports it in `metrics.peak_rss_bytes`; `/usr/bin/time`'s maximum RSS
for `info`). "B/vertex" is (peak - cache) / vertices: everything the
process holds beyond the buffer pool, its fixed part (binary, libraries,
stacks: about 9 MiB) included. Prints medians of time and peak per
binary.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import drop_caches

ALGOS = [
    ("bfs", []),
    ("wcc", []),
    ("kcore", ["--k", "10"]),
    ("pagerank", []),
    ("ppr", []),
    ("coreness", []),
    ("mis", []),
    ("eccentricity", []),
    ("randomwalk", []),
]


def vertices(binary, graph):
    out = subprocess.run([binary, "info", "--json", graph], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["vertices"]


def run_algo(binary, graph, algo, extra, out):
    drop_caches()
    t = time.perf_counter()
    p = subprocess.run([binary, "run", algo, graph, "--threads", "2",
                        "--cache", "3%", "-o", out, "--json"] + extra,
                       check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    m = json.loads(p.stdout)["metrics"]
    return wall, m["peak_rss_bytes"], m.get("cache_bytes", 0)


def run_info(binary, graph):
    drop_caches()
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "info", graph],
                       check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    return wall, int(p.stderr.strip().splitlines()[-1]) * 1024, 0


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    graph = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    bins = sys.argv[3:] or [os.environ.get("GROTTO_BIN", "target/release/grotto")]
    n = vertices(bins[0], graph)
    weighted = "weighted         yes" in subprocess.run(
        [bins[0], "info", graph], check=True, capture_output=True, text=True).stdout
    algos = ALGOS + ([("sssp", [])] if weighted else [])
    only = os.environ.get("GROTTO_ALGOS")
    if only:
        algos = [a for a in algos if a[0] in only.split(",")]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.csv")
        res = {}
        for _ in range(runs):
            for name, extra in [("info", None)] + algos:
                for b in bins:
                    r = (run_info(b, graph) if extra is None
                         else run_algo(b, graph, name, extra, out))
                    res.setdefault((name, b), []).append(r)
    print(f"{graph}: {n} vertices, medians of {runs}, 2 threads, cache 3%")
    head = "| command |" + "".join(f" {b}: time, peak, B/vertex |" for b in bins)
    print(head)
    print("|---|" + "---|" * len(bins))
    for name, _ in [("info", None)] + algos:
        row = f"| {name} |"
        for b in bins:
            rs = res[(name, b)]
            wall = statistics.median(r[0] for r in rs)
            peak = statistics.median(r[1] for r in rs)
            cache = statistics.median(r[2] for r in rs)
            row += f" {wall:.2f} s, {peak / 2**20:.0f} MiB, {(peak - cache) / n:.1f} |"
        print(row)


if __name__ == "__main__":
    main()
