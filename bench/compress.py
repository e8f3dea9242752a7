#!/usr/bin/env python3
"""Packed, packed in degree order, and raw edge blocks, side by side in one run.

    python3 bench/compress.py EDGELIST WORKDIR [RUNS]

Converts EDGELIST (undirected) three ways: packed in the user's order
(`--order none`), packed with `--order degree`, and raw (`--compress
none`, in the default order: degree order for skewed graphs such as
R-MAT, so "ordered" against "raw" isolates the encoding), interleaving RUNS
conversions of each; then runs BFS, WCC, 10-core and PageRank on the three
files, interleaved, RUNS times each, at the default cache (3% of each
file) with the default concurrency and with `--concurrency 4` (I/O-bound).
Prints medians: seconds and bytes read per traversed edge of each file,
and each time divided by raw's. Also runs `grotto bench decode` on each
file. Set GROTTO_BIN to the binary (default target/release/grotto).
"""
import json
import os
import statistics
import subprocess
import sys
import time

G = os.environ.get("GROTTO_BIN", "target/release/grotto")


def sh(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {r.stderr}")
    return r.stdout


def convert(src, out, extra):
    if os.path.exists(out):
        os.remove(out)
    t = time.perf_counter()
    sh([G, "convert", src, out, "--undirected", "-q", *extra])
    return time.perf_counter() - t


def run(alg, path, extra):
    args = [G, "run", alg, path, "--json", *extra]
    if alg == "kcore":
        args += ["--k", "10"]
    m = json.loads(sh(args))["metrics"]
    return m["algo_s"], m.get("bytes_per_edge") or 0.0, m.get("bytes_read", 0)


def main():
    src, work = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else 3
    os.makedirs(work, exist_ok=True)
    files = {k: os.path.join(work, k + ".grotto") for k in ["packed", "ordered", "raw"]}
    flags = {
        "packed": ["--order", "none"],
        "ordered": ["--order", "degree"],
        "raw": ["--compress", "none"],
    }
    conv = {k: [] for k in files}
    for _ in range(runs):
        for k in files:
            conv[k].append(convert(src, files[k], flags[k]))
    med = {k: statistics.median(v) for k, v in conv.items()}
    size = {k: os.path.getsize(f) for k, f in files.items()}
    for k in files:
        print(f"convert {k}: {med[k]:.2f} s ({med[k] / med['raw']:.2f} of raw), "
              f"file {size[k] / 2**20:.1f} MiB ({size['raw'] / size[k]:.2f}x smaller than raw)")
    for k, f in files.items():
        d = json.loads(sh([G, "bench", "decode", f, "--json", "--seconds", "2"]))
        print(f"decode {k}: {d['ids_per_second'] / 1e9:.2f} G ids/s on one thread, "
              f"{d['bytes_per_id']:.2f} bytes per id")
    print("\n| run | " + " | ".join(f"{k} s (/raw), B/edge" for k in files) + " |")
    print("|---" * (len(files) + 1) + "|")
    for setting, extra in [("default", []), ("concurrency 4", ["--concurrency", "4"])]:
        for alg in ["bfs", "wcc", "kcore", "pagerank"]:
            if alg == "pagerank" and setting != "default":
                continue
            got = {k: [] for k in files}
            for _ in range(runs):
                for k in files:
                    got[k].append(run(alg, files[k], extra))
            t = {k: statistics.median(x[0] for x in v) for k, v in got.items()}
            b = {k: statistics.median(x[1] for x in v) for k, v in got.items()}
            cells = [f"{t[k]:.3f} ({t[k] / t['raw']:.2f}), {b[k]:.2f}" for k in files]
            print(f"| {alg}, {setting} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
