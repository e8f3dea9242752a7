#!/usr/bin/env python3
"""Update throughput against a full conversion, side by side in one run.

    python bench/updates.py EDGELIST WORKDIR [RUNS] [FRACTIONS] [MODES] [--weighted] [--sparse]

Converts EDGELIST (undirected, the default settings) once into base.grotto.
For each fraction f of the edge list's lines (default 0.001,0.01,0.1) it
writes a batch: f x lines random inserts (uniform vertex pairs) and as
many deletes (lines sampled from the input), applies it once to learn the
updated edge list (`grotto export`). Then, RUNS times, interleaved over the
fractions: copy the base, `grotto update` it with the batch (whole command,
batch files parsed included), `grotto convert` the updated edge list
(whole command), and run BFS and PageRank at 3% cache on the
updated file and on the fresh conversion (BFS from the input's vertex of
highest degree). MODES (default auto) are `grotto update --merge` values:
each fraction is measured with each mode, as its own row (`never` appends
a delta run, `always` merges into fresh blocks, `auto` picks by size).
The page cache is dropped before
each timed command when /proc/sys/vm/drop_caches is writable.

With --weighted, the base gets a random weight per edge (quarters from
0.25 to 25, converted --weighted), inserts carry weights, each batch also
gives f x lines sampled edges new weights (--set-weight), and SSSP from
the same source replaces PageRank.

With --sparse, every id u of the input becomes 2u + 2 and the base is
converted --ids compact (an id map); a tenth of each batch's inserts
start at a new odd id, which falls between the old ones, so the batch
adds vertices to the id map (the fresh conversions are --ids compact too).

Prints medians: update and convert times and their ratio, edges changed
per second, bytes written per changed edge, and BFS / PageRank on the
updated file against the fresh one. Needs numpy and pyarrow (the repo's
.venv has them). Set GROTTO_BIN to the binary (default
target/release/grotto).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow.csv as pacsv

from benchlib import drop_caches

G = os.environ.get("GROTTO_BIN", "target/release/grotto")


def sh(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {r.stderr}")
    return r.stdout


def timed(args):
    drop_caches()
    t = time.perf_counter()
    out = sh(args)
    return time.perf_counter() - t, out


def read_edges(path):
    opts = pacsv.ReadOptions(column_names=["u", "v"])
    parse = pacsv.ParseOptions(delimiter=" ")
    conv = pacsv.ConvertOptions(column_types={"u": "uint32", "v": "uint32"})
    # grotto's generator writes two comment lines first.
    with open(path, "rb") as f:
        skip = 0
        while f.readline().startswith(b"#"):
            skip += 1
    opts.skip_rows = skip
    t = pacsv.read_csv(path, read_options=opts, parse_options=parse, convert_options=conv)
    return t.column("u").to_numpy(), t.column("v").to_numpy()


def write_pairs(path, u, v, w=None):
    with open(path, "w") as f:
        if w is None:
            np.savetxt(f, np.stack([u, v], axis=1), fmt="%d %d")
        else:
            np.savetxt(f, np.stack([u, v, w], axis=1), fmt="%d %d %g")


def weights(rng, m):
    return rng.integers(1, 101, size=m) / 4.0


def run(alg, path, source):
    args = [G, "run", alg, path, "--json", "--threads", "2", "--cache", "3%"]
    if alg in ("bfs", "sssp"):
        args += ["--source", str(source)]
    t, out = timed(args)
    m = json.loads(out)["metrics"]
    return t, m["peak_rss_bytes"]


def main():
    argv = [a for a in sys.argv if a not in ("--weighted", "--sparse")]
    weighted = "--weighted" in sys.argv
    sparse = "--sparse" in sys.argv
    src, work = argv[1], argv[2]
    runs = int(argv[3]) if len(argv) > 3 else 3
    fracs = [float(x) for x in (argv[4] if len(argv) > 4 else "0.001,0.01,0.1").split(",")]
    modes = (argv[5] if len(argv) > 5 else "auto").split(",")
    rows = [(f, m) for f in fracs for m in modes]
    kind = ["--undirected"] + (["--weighted"] if weighted else []) + (["--ids", "compact"] if sparse else [])
    os.makedirs(work, exist_ok=True)
    base = os.path.join(work, "base.grotto")
    u, v = read_edges(src)
    scale = lambda x: 2 * x.astype(np.uint64) + 2 if sparse else x
    if not os.path.exists(base):
        if sparse:
            ssrc = os.path.join(work, "sparse.el")
            write_pairs(ssrc, scale(u), scale(v), weights(np.random.default_rng(3), len(u)) if weighted else None)
            sh([G, "convert", ssrc, base, *kind, "-q"])
        elif weighted:
            wsrc = os.path.join(work, "weighted.el")
            write_pairs(wsrc, u, v, weights(np.random.default_rng(3), len(u)))
            sh([G, "convert", wsrc, base, *kind, "-q"])
        else:
            sh([G, "convert", src, base, *kind, "-q"])
    n = int(max(u.max(), v.max())) + 1
    # BFS from the vertex of highest degree (in the giant component).
    source = int(np.argmax(np.bincount(u, minlength=n) + np.bincount(v, minlength=n)))
    if sparse:
        source = 2 * source + 2
    rng = np.random.default_rng(7)
    batches = {}
    for f in fracs:
        m = int(len(u) * f)
        pick = rng.choice(len(u), size=m, replace=False)
        ins_u = scale(rng.integers(0, n, size=m, dtype=np.uint32))
        ins_v = scale(rng.integers(0, n, size=m, dtype=np.uint32))
        if sparse:
            ins_u[: m // 10] += 1
        fi = os.path.join(work, f"ins-{f}.el")
        fd = os.path.join(work, f"del-{f}.el")
        write_pairs(fi, ins_u, ins_v, weights(rng, m) if weighted else None)
        write_pairs(fd, scale(u[pick]), scale(v[pick]))
        extra = []
        if weighted:
            fs = os.path.join(work, f"set-{f}.el")
            again = rng.choice(len(u), size=m, replace=False)
            write_pairs(fs, scale(u[again]), scale(v[again]), weights(rng, m))
            extra = ["--set-weight", fs]
        once = os.path.join(work, "once.grotto")
        shutil.copy(base, once)
        sh([G, "update", once, "--insert", fi, "--delete", fd, *extra, "-q"])
        upd = os.path.join(work, f"updated-{f}.el")
        sh([G, "export", once, "-o", upd])
        os.remove(once)
        batches[f] = (fi, fd, upd, extra)
    res = {row: {k: [] for k in ["update", "convert", "changed", "written", "merged", "bfs_u", "bfs_f", "pr_u", "pr_f", "rss_u", "rss_f"]} for row in rows}
    for _ in range(runs):
        for row in rows:
            f, mode = row
            fi, fd, upd, extra = batches[f]
            work_g = os.path.join(work, "work.grotto")
            fresh = os.path.join(work, "fresh.grotto")
            shutil.copy(base, work_g)
            t, out = timed([G, "update", work_g, "--insert", fi, "--delete", fd, *extra, "--merge", mode, "--json"])
            r = json.loads(out)
            changed = r["inserted"] + r["deleted"] + r["weights_set"]
            res[row].setdefault("new", []).append(r["new_vertices"])
            res[row]["update"].append(t)
            res[row]["changed"].append(changed)
            res[row]["written"].append(r["bytes_written"])
            res[row]["merged"].append(r["merged"])
            if os.path.exists(fresh):
                os.remove(fresh)
            t, _ = timed([G, "convert", upd, fresh, *kind, "-q"])
            res[row]["convert"].append(t)
            for alg, key in [("bfs", "bfs"), ("sssp" if weighted else "pagerank", "pr")]:
                tu, ru = run(alg, work_g, source)
                tf, rf = run(alg, fresh, source)
                res[row][key + "_u"].append(tu)
                res[row][key + "_f"].append(tf)
                if alg == "bfs":
                    res[row]["rss_u"].append(ru)
                    res[row]["rss_f"].append(rf)
    med = lambda xs: statistics.median(xs)
    print(f"{len(u)} input lines, {n} vertices, BFS from {source}; medians of {runs} interleaved runs")
    if sparse:
        print("ids 2u + 2 in an id map; new vertices per batch: " + ", ".join(f"{row[0] * 100:g}% {row[1]}: {med(res[row]['new']):.0f}" for row in rows))
    print()
    second = "SSSP" if weighted else "PageRank"
    print(f"| batch | commit | changed edges | update | convert | convert / update | edges/s | bytes written / changed edge | BFS updated / fresh | {second} updated / fresh | BFS peak RSS updated / fresh |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        f, mode = row
        x = res[row]
        how = "merge" if all(x["merged"]) else "delta" if not any(x["merged"]) else "mixed"
        up, cv = med(x["update"]), med(x["convert"])
        ch = med(x["changed"])
        print(
            f"| {f * 100:g}% | {how} | {ch:.0f} | {up:.2f} s | {cv:.2f} s | {cv / up:.1f}x | {ch / up / 1e6:.2f} M | "
            f"{med(x['written']) / ch:.1f} | {med(x['bfs_u']):.2f} / {med(x['bfs_f']):.2f} s ({med(x['bfs_u']) / med(x['bfs_f']):.2f}x) | "
            f"{med(x['pr_u']):.2f} / {med(x['pr_f']):.2f} s ({med(x['pr_u']) / med(x['pr_f']):.2f}x) | "
            f"{med(x['rss_u']) / 2**20:.0f} / {med(x['rss_f']) / 2**20:.0f} MiB |"
        )


if __name__ == "__main__":
    main()
