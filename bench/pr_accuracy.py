#!/usr/bin/env python3
"""PageRank against Blaze at equal accuracy, interleaved, in one run.

    python3 bench/pr_accuracy.py WORKDIR RUNS GRAPH...

Blaze's PageRank (NVSL/blaze, apps/pagerank) is Ligra's delta PageRank:
a vertex passes its change on only while the change is above 1% of its
score, and the run stops when the changes left sum below 1e-7. It
computes GAP's definition (no dangling redistribution) but stops far from
the fixed point, so its time is not comparable with grotto's at
grotto's default tolerance (1e-6 in L1, about 1000 times closer). This
script measures how far each answer is from the fixed point and compares
times at equal accuracy:

1. the fixed point: grotto, GAP semantics, f64 contributions, Jacobi, to
   an L1 change of 1e-13 (all cached);
2. each round (page cache dropped before each run): Blaze's pagerank, then
   grotto `run pagerank --semantics gap` at each tolerance of TOLERANCES
   (2 threads, 3% cache, as bench/peers.py runs it);
3. the L1 distance of every answer from the fixed point. Blaze writes its
   scores only with a local measurement patch (apps/pagerank.cpp: after
   `printTop(data)`, when the environment names a file in BLAZE_DUMP,
   write `data[v].score` for every vertex as little-endian f32); without
   it Blaze's distance is not known and only the times are printed.

Prints per graph: Blaze's median time and distance, grotto's median time
and distance at each tolerance, and the lead of the fastest grotto run at
least as accurate as Blaze. WORKDIR is bench/peers.sh's (WORKDIR/data
holds GRAPH.grotto and data/blaze the Blaze files). Environment:
GROTTO_BIN, BLAZE (Blaze's run.sh), THREADS (2), CACHE_PCT (3),
TOLERANCES (default "1e-2 3e-3 1e-3 1e-4 1e-6").
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

from benchlib import drop_caches

G = os.environ.get("GROTTO_BIN", "target/release/grotto")
THREADS = os.environ.get("THREADS", "2")
CACHE_PCT = os.environ.get("CACHE_PCT", "3")
TOLERANCES = os.environ.get("TOLERANCES", "1e-2 3e-3 1e-3 1e-4 1e-6").split()


def scores_csv(path):
    """A grotto `id,score` CSV as a dense array indexed by id."""
    ids, vals = np.loadtxt(path, delimiter=",", skiprows=1, unpack=True)
    x = np.zeros(int(ids.max()) + 1)
    x[ids.astype(np.int64)] = vals
    return x


def l1(x, ref):
    """L1 distance over the reference's vertices (a missing one counts 0)."""
    m = min(len(x), len(ref))
    return float(np.abs(x[:m] - ref[:m]).sum() + ref[m:].sum())


def grotto_pr(graph, tol, out):
    drop_caches()
    cmd = [G, "run", "pagerank", graph, "--semantics", "gap", "--tolerance", tol,
           "--threads", THREADS, "--cache", CACHE_PCT + "%", "--json", "--out", out,
           "--format", "csv"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {r.stderr}")
    d = json.loads(r.stdout)
    return d["metrics"]["algo_s"], d["summary"]["iterations"]


def blaze_pr(data, g, dump):
    env = dict(os.environ, THREADS=THREADS, DATA=os.path.join(data, "blaze"), BLAZE_DUMP=dump)
    r = subprocess.run(["bash", os.environ["BLAZE"], "pagerank", g], capture_output=True,
                       text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"blaze pagerank {g} failed: {r.stderr}")
    return float(r.stdout.split()[3])


def main():
    work, runs, graphs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    data = os.path.join(work, "data")
    tmp = tempfile.mkdtemp(prefix="pr_accuracy.")
    print(f"| graph | system | tolerance | iterations | s (median of {runs}) | L1 from the fixed point "
          "| lead on Blaze |")
    print("|---|---|---|---|---|---|---|")
    for g in graphs:
        graph = os.path.join(data, g + ".grotto")
        ref_csv = os.path.join(tmp, g + ".ref.csv")
        r = subprocess.run([G, "run", "pagerank", graph, "--semantics", "gap", "--tolerance", "1e-13",
                            "--contributions", "f64", "--method", "jacobi", "--max-iterations",
                            "2000", "--threads", THREADS, "--cache", "100%", "-q", "--out", ref_csv,
                            "--format", "csv"], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"reference for {g} failed: {r.stderr}")
        ref = scores_csv(ref_csv)
        times = {t: [] for t in TOLERANCES}
        iters, dist = {}, {}
        blaze_s, blaze_d = [], None
        for k in range(runs):
            if os.environ.get("BLAZE"):
                dump = os.path.join(tmp, g + ".blaze.f32")
                if os.path.exists(dump):
                    os.remove(dump)
                blaze_s.append(blaze_pr(data, g, dump))
                if os.path.exists(dump):
                    blaze_d = l1(np.fromfile(dump, dtype="<f4").astype(np.float64), ref)
                print(f"{g} Blaze run {k + 1}: {blaze_s[-1]:.3f} s", file=sys.stderr)
            for t in TOLERANCES:
                out = os.path.join(tmp, f"{g}.{t}.csv")
                s, iters[t] = grotto_pr(graph, t, out)
                times[t].append(s)
                dist[t] = l1(scores_csv(out), ref)
                print(f"{g} grotto {t} run {k + 1}: {s:.3f} s", file=sys.stderr)
        bz = statistics.median(blaze_s) if blaze_s else None
        if bz is not None:
            d = f"{blaze_d:.2e}" if blaze_d is not None else "not written (no dump patch)"
            print(f"| {g} | Blaze | eps 1e-2, 1e-7 | | {bz:.3f} | {d} | |")
        best = None
        for t in TOLERANCES:
            s = statistics.median(times[t])
            lead = f"{bz / s:.2f}x" if bz else ""
            print(f"| {g} | grotto | {t} | {iters[t]} | {s:.3f} | {dist[t]:.2e} | {lead} |")
            if blaze_d is not None and dist[t] <= blaze_d and (best is None or s < best[1]):
                best = (t, s)
        if best and bz:
            print(f"| {g} | grotto at Blaze's accuracy or better | {best[0]} | | {best[1]:.3f} | "
                  f"{dist[best[0]]:.2e} | **{bz / best[1]:.2f}x** |")


if __name__ == "__main__":
    main()
