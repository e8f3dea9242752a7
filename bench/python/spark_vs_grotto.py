"""grotto against Spark's GraphX (what GraphFrames runs) on the same Parquet
edge tables, side by side in one run, and the hand-off between them.

    python bench/python/spark_vs_grotto.py WORKDIR [--scales 16,18,20]
        [--rounds 3] [--algorithms pagerank,cc,bfs,lpa] [--cap 1800]
        [--handoff SCALE] [--memory 16g] [--plot docs/img/spark.png]

For each R-MAT scale (edge factor 16, directed arcs without duplicates or
self-loops: `grotto generate rmat` then `grotto export --format parquet`,
kept in WORKDIR) and each algorithm, alternately first in each round:

- grotto: `grotto convert` of the Parquet table (the file each algorithm
  needs: plain, --reverse for label propagation, columns swapped for
  distances to a landmark), then `grotto run ... --out result.parquet`;
- GraphX in a local Spark (local[2], one session for the whole run):
  `spark.read.parquet`, the GraphX function, the result written as
  Parquet.

Both times include the load from Parquet and the result written as
Parquet. The algorithms, with the same parameters on both sides:
pagerank (10 iterations, reset 0.15, directed), cc (connected components,
direction ignored), bfs (hops to one landmark along the edges: GraphX's
shortestPaths, grotto's BFS over the reversed edges), lpa (10 steps of
label propagation counting in- and out-neighbours; grotto's CDLP breaks
ties by the smallest label, GraphX by its hash map, so labels differ on
ties: the agreement is reported). A GraphX job still running after
--cap seconds is cancelled and reported as such. Each pair of answers is
compared (components, reached vertices, largest PageRank difference,
label agreement).

--handoff SCALE times the hand-off at one scale: a Spark DataFrame of the
edge table to a grotto file (via Parquet and via Arrow), and a result
(connected components, one row a vertex) back to a Spark DataFrame (in
memory and through a Parquet file), against GraphX's own load of the
same table (read, build, count).

Prints one JSON object per measurement and a table of medians.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))

from graphx import GraphX, compile_reference, session  # noqa: E402

GROTTO = os.environ.get("GROTTO_BIN", os.path.join(ROOT, "target", "release", "grotto"))
ITERATIONS = 10


def sh(*args):
    out = subprocess.run([GROTTO, *map(str, args)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"grotto {' '.join(map(str, args))}: {out.stderr}")
    return out.stdout


def table(work, scale):
    """The scale's edge table (made once)."""
    path = os.path.join(work, f"rmat{scale}.parquet")
    if not os.path.exists(path):
        g = os.path.join(work, f"rmat{scale}.tmp.grotto")
        sh("generate", "rmat", "--scale", scale, "-o", g, "-q")
        sh("export", g, "--format", "parquet", "-o", path, "-q")
        os.unlink(g)
    return path


def landmark(path):
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(path).read_row_group(0, columns=["dst"]).column(0)[0].as_py())


def rm(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.unlink(path)


def run_grotto(algo, edges, work, lm):
    g = os.path.join(work, "bench.grotto")
    out = os.path.join(work, "grotto-result.parquet")
    rm(g), rm(out)
    convert = {"lpa": ["--reverse"], "bfs": ["--columns", "dst,src"]}.get(algo, [])
    t0 = time.perf_counter()
    sh("convert", edges, g, "-q", *convert)
    t1 = time.perf_counter()
    args = {
        "pagerank": ["pagerank", "--tolerance", "1e-300", "--max-iterations", ITERATIONS,
                     "--method", "jacobi"],
        "cc": ["wcc"],
        "bfs": ["bfs", "--source", lm],
        "lpa": ["cdlp", "--iterations", ITERATIONS],
    }[algo]
    sh("run", args[0], g, *args[1:], "--out", out, "-q")
    t2 = time.perf_counter()
    rm(g)
    return {"load_s": t1 - t0, "run_s": t2 - t1, "total_s": t2 - t0}, out


def run_graphx(spark, gx, algo, edges, work, lm, cap):
    out = os.path.join(work, "graphx-result.parquet")
    rm(out)
    sc = spark.sparkContext
    timer = threading.Timer(cap, sc.cancelAllJobs)
    timer.start()
    t0 = time.perf_counter()
    try:
        df = spark.read.parquet(edges)
        res = {
            "pagerank": lambda: gx.page_rank(df, ITERATIONS),
            "cc": lambda: gx.connected_components(df),
            "bfs": lambda: gx.shortest_paths(df, lm),
            "lpa": lambda: gx.label_propagation(df, ITERATIONS),
        }[algo]()
        res.write.parquet(out)
    except Exception as e:  # a cancelled job, or Spark out of memory
        timer.cancel()
        return {"total_s": None, "error": str(e).splitlines()[0][:200], "after_s": time.perf_counter() - t0}, None
    timer.cancel()
    return {"total_s": time.perf_counter() - t0}, out


def compare(algo, ours, theirs):
    """How the two answers agree."""
    import numpy as np
    import pyarrow.parquet as pq

    a = pq.read_table(ours).to_pandas().set_index("id")
    b = pq.read_table(theirs).to_pandas().set_index("id")
    if algo == "pagerank":
        s = a["score"] * len(a)
        common = s.index.intersection(b.index)
        return {"max_abs_diff": float(np.abs(s[common] - b["pagerank"][common]).max()),
                "vertices": [len(a), len(b)]}
    if algo == "cc":
        return {"components": [int(a["component"].nunique()), int(b["component"].nunique())],
                "same_labels": bool((a["component"].sort_index() == b["component"].reindex(a.index).sort_index()).all())}
    if algo == "bfs":
        reached = a[a["depth"] >= 0]
        same = reached["depth"].reindex(b.index)
        return {"reached": [len(reached), len(b)], "same_distances": bool((same == b["distance"]).all())}
    common = a.index.intersection(b.index)
    sizes = [a["label"].value_counts(), b["label"].value_counts()]
    return {"same_label_share": float((a["label"][common] == b["label"][common]).mean()),
            "communities": [len(s) for s in sizes], "largest": [int(s.iloc[0]) for s in sizes]}


def handoff(spark, gx, work, scale):
    import grotto
    import grotto.spark as gs

    edges = table(work, scale)
    g = os.path.join(work, "handoff.grotto")
    rows = []

    def timed(what, fn):
        t0 = time.perf_counter()
        extra = fn()
        rows.append({"scale": scale, "what": what, "s": time.perf_counter() - t0, **(extra or {})})
        print(json.dumps(rows[-1]), flush=True)

    for _ in range(2):
        timed("spark read + count", lambda: {"rows": spark.read.parquet(edges).count()})
        timed("graphx load (read, build, count)", lambda: dict(zip(("vertices", "edges"), gx.load(spark.read.parquet(edges)))))
        for via in ("parquet", "arrow"):
            rm(g)
            timed(f"grotto.spark.convert via {via}",
                  lambda: {"edges": gs.convert(spark.read.parquet(edges), g, via=via)["edges"]})
        r = grotto.open(g).wcc()
        timed("to_spark in memory + count", lambda: {"rows": r.to_spark(spark).count()})
        p = os.path.join(work, "handoff-result.parquet")
        rm(p)
        timed("to_spark via Parquet + count", lambda: {"rows": r.to_spark(spark, path=p).count()})
        rm(p), rm(g)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("work")
    ap.add_argument("--scales", default="16,18,20")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--algorithms", default="pagerank,cc,bfs,lpa")
    ap.add_argument("--cap", type=float, default=1800)
    ap.add_argument("--handoff", type=int)
    ap.add_argument("--memory", default="16g")
    ap.add_argument("--plot")
    ap.add_argument("--summary", nargs="+", metavar="JSONL",
                    help="print the table (and --plot) of earlier runs' output instead of running")
    a = ap.parse_args()
    if a.summary:
        rows = [json.loads(line) for f in a.summary for line in open(f) if line.startswith('{"scale"')]
        rows = [r for r in rows if "algorithm" in r]
        algos = list(dict.fromkeys(r["algorithm"] for r in rows))
        report(rows, algos, a.cap, a.plot)
        return
    os.makedirs(a.work, exist_ok=True)
    jar = compile_reference(os.path.join(a.work, "jars"))
    spark = session(jar, memory=a.memory, name="grotto-bench")
    spark.conf.set("spark.sql.shuffle.partitions", "4")
    gx = GraphX(spark)
    if a.handoff:
        handoff(spark, gx, a.work, a.handoff)
    results = []
    for scale in [int(s) for s in a.scales.split(",") if s]:
        edges = table(a.work, scale)
        lm = landmark(edges)
        for algo in a.algorithms.split(","):
            for rnd in range(a.rounds):
                order = ("grotto", "graphx") if rnd % 2 == 0 else ("graphx", "grotto")
                got = {}
                for who in order:
                    if who == "grotto":
                        got[who] = run_grotto(algo, edges, a.work, lm)
                    else:
                        got[who] = run_graphx(spark, gx, algo, edges, a.work, lm, a.cap)
                check = compare(algo, got["grotto"][1], got["graphx"][1]) if got["graphx"][1] else None
                row = {"scale": scale, "algorithm": algo, "round": rnd, "grotto": got["grotto"][0],
                       "graphx": got["graphx"][0], "agreement": check}
                results.append(row)
                print(json.dumps(row), flush=True)
                if got["graphx"][0]["total_s"] is None:
                    break  # one capped GraphX run is enough
    report(results, a.algorithms.split(","), a.cap, a.plot)
    spark.stop()


def report(results, algos, cap, plot_path):
    """The table of medians (and the plot)."""
    print("\nscale algorithm   grotto total (load + run)   GraphX total   GraphX/grotto   rounds")
    summary = []
    for scale in sorted({r["scale"] for r in results}):
        for algo in algos:
            rs = [r for r in results if r["scale"] == scale and r["algorithm"] == algo]
            if not rs:
                continue
            ours = statistics.median(r["grotto"]["total_s"] for r in rs)
            load = statistics.median(r["grotto"]["load_s"] for r in rs)
            theirs = [r["graphx"]["total_s"] for r in rs if r["graphx"]["total_s"] is not None]
            t = statistics.median(theirs) if theirs else None
            summary.append((scale, algo, ours, load, t))
            tt = f"{t:10.1f} s" if t else f"  > {cap:.0f} s"
            ratio = f"{t / ours:8.1f}x" if t else f"> {cap / ours:.0f}x"
            print(f"{scale:5d} {algo:9s} {ours:8.2f} s ({load:6.2f} + {ours - load:6.2f})   {tt}   {ratio}   {len(rs)}")
    if plot_path and summary:
        plot(summary, plot_path, cap)


def plot(summary, path, cap):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    algos = list(dict.fromkeys(s[1] for s in summary))
    fig, axes = plt.subplots(1, len(algos), figsize=(3.2 * len(algos), 3.2), sharey=True)
    axes = axes if len(algos) > 1 else [axes]
    for ax, algo in zip(axes, algos):
        rows = [s for s in summary if s[1] == algo]
        edges = [16 * 2 ** s[0] for s in rows]
        ax.loglog(edges, [s[2] for s in rows], "o-", label="grotto (convert + run)")
        done = [(e, s[4]) for e, s in zip(edges, rows) if s[4]]
        if done:
            ax.loglog(*zip(*done), "s-", label="GraphX, local[2]")
        capped = [e for e, s in zip(edges, rows) if not s[4]]
        if capped:
            ax.loglog(capped, [cap] * len(capped), "x", color="C1", label=f"GraphX > {cap:.0f} s")
        ax.set_title(algo)
        ax.set_xlabel("edges (R-MAT, factor 16)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds, Parquet in to Parquet out")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
