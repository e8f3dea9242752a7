#!/usr/bin/env python3
"""grotto, ACGraph, GAP and Blaze side by side, interleaved, in one run.

    python3 bench/peers.py WORKDIR RUNS GRAPH...

Run by bench/peers.sh, which builds nothing of the peers but converts the
graphs (WORKDIR/data holds GRAPH.el, GRAPH.grotto, GRAPH.maxdeg and the
peers' files written by ../shared/tools/peers/convert.sh). For each graph,
RUNS rounds; in each round every (algorithm, system) pair runs once, in
the same order, with the page cache dropped before each run:

| algorithm | grotto | ACGraph | GAP | Blaze |
|---|---|---|---|---|
| BFS from the highest-degree vertex | `run bfs` | `bfs` | `bfs` | `bfs` (rmat22 only) |
| connected components | `run wcc` | `wcc_lp` | `cc` (Afforest) | `wcc` |
| 10-core | `run kcore --k 10` | `kcore` | | |
| PPR, rmax 1e-7 | `run ppr --epsilon 1e-7` | `ppr` | | |
| PageRank | `run pagerank` (L1 change below 1e-6) | `pr` | `pr -t 1e-6` | `pagerank` (delta) |

Blaze runs when BLAZE (its run.sh, beside its build) is set,
WORKDIR/data/blaze holds the graph and THREADS is 2 or more; it has no cache (it re-reads every
pass) and THREADS compute workers plus an I/O thread. Its BFS is left
out on grids and roads (minutes: a full pass per level). Its PageRank is
delta-based with its own stopping rule (eps 1e-2, eps2 1e-7), so its row
compares time, not accuracy (bench/pr_accuracy.py compares at equal accuracy). GAP's PageRank stops at the same L1
tolerance as grotto's (1e-6, at most 100 iterations).

Out-of-core systems get a cache of CACHE_PCT (3) % of their own file and
THREADS (2) threads; GAP runs in memory. Times are each system's own
algorithm time (graph loading excluded): grotto's `algo_s`, ACGraph's
`calc`, GAP's average trial time. Prints the medians, grotto's lead
(ACGraph's time over grotto's), bytes read per traversed edge and peak
memory, checks that the systems agree where both print a result (vertices
reached by BFS, number of components and the largest, k-core size), and
draws WORKDIR/peers.png. Environment: GROTTO_BIN, ACG_BIN, TOOLS (the
peers' scripts), THREADS, CACHE_PCT, RMAX, K.
"""
import json
import os
import re
import statistics
import subprocess
import sys

from benchlib import drop_caches

G = os.environ["GROTTO_BIN"]
TOOLS = os.environ["TOOLS"]
THREADS = os.environ.get("THREADS", "2")
CACHE_PCT = os.environ.get("CACHE_PCT", "3")
RMAX = os.environ.get("RMAX", "1e-7")
K = os.environ.get("K", "10")
DATA = ""  # WORKDIR/data, set by main

# (name, grotto args, ACGraph algo, GAP algo or None)
ALGOS = [
    ("bfs", ["bfs"], "bfs", "bfs"),
    ("wcc", ["wcc"], "wcc", "wcc"),
    ("kcore", ["kcore", "--k", K], "kcore", None),
    ("ppr", ["ppr", "--epsilon", RMAX], "ppr", None),
    ("pagerank", ["pagerank"], "pr", None),
]


def grotto(args, data, g, src):
    extra = ["--source", src] if args[0] in ("bfs", "ppr") else []
    cmd = [G, "run", *args, os.path.join(data, g + ".grotto"), "--json",
           "--threads", THREADS, "--cache", CACHE_PCT + "%", *extra]
    drop_caches()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {r.stderr}")
    d = json.loads(r.stdout)
    m, s = d["metrics"], d["summary"]
    ans = {
        "bfs": lambda: (s["reached"],),
        "wcc": lambda: (s["components"], s["largest"][0]),
        "kcore": lambda: (s["core_size"],),
    }.get(args[0], lambda: None)()
    return {"s": m["algo_s"], "bytes": m.get("bytes_read", 0),
            "edges": m.get("traversed_edges") or 0,
            "rss": m.get("peak_rss_bytes", 0), "ans": ans}


def peer(name, algo, data, g):
    env = dict(os.environ, DATA_DIR=data, THREADS=THREADS, CACHE_PCT=CACHE_PCT,
               RMAX=RMAX, K=K)
    r = subprocess.run(["bash", os.path.join(TOOLS, "run.sh"), name, algo, g],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"run.sh {name} {algo} {g} failed: {r.stderr}")
    _, _, _, secs, nbytes, rss = r.stdout.split()
    log = open(os.path.join(data, "runlogs", f"{name}_{algo}_{g}.log")).read()
    ans = None
    if name == "acgraph":
        m = re.findall(r"ans: \(?([0-9, ]+)\)?", log)
        if m:
            ans = tuple(int(x) for x in m[-1].split(","))
            ans = ans[:1] if algo == "bfs" else ans
    elif name == "gap" and algo == "bfs":
        # GAP prints no count of reached vertices without -v: none here.
        ans = None
    return {"s": float(secs), "bytes": int(nbytes) if nbytes != "NA" else 0,
            "edges": 0, "rss": int(rss) * 1024, "ans": ans}


def gap_pr(data, g):
    """GAP's in-memory PageRank at grotto's tolerance (run.sh has no pr)."""
    gapbin = os.path.join(os.environ["PEERS"], "gapbs", "pr")
    env = dict(os.environ, OMP_NUM_THREADS=THREADS)
    drop_caches()
    r = subprocess.run(["/usr/bin/time", "-f", "RSS %M", gapbin, "-f",
                        os.path.join(data, "gap", g + ".sg"), "-n", "1",
                        "-t", "1e-6", "-i", "100"],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"gap pr {g} failed: {r.stderr}")
    secs = float(re.search(r"Average Time:\s+([0-9.]+)", r.stdout).group(1))
    rss = int(re.search(r"RSS (\d+)", r.stderr).group(1))
    return {"s": secs, "bytes": 0, "edges": 0, "rss": rss * 1024, "ans": None}


def blaze(algo, g, src):
    """One Blaze run through its run.sh: "blaze ALGO GRAPH seconds rss_kb"."""
    env = dict(os.environ, THREADS=THREADS, DATA=os.path.join(DATA, "blaze"))
    args = ["bash", os.environ["BLAZE"], algo, g] + ([src] if algo == "bfs" else [])
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"blaze {algo} {g} failed: {r.stderr}")
    f = r.stdout.split()
    return {"s": float(f[3]), "bytes": 0, "edges": 0, "rss": int(f[4]) * 1024, "ans": None}


def blaze_algo(name, g):
    """Blaze's kernel for one of ours on graph g, or None."""
    # Blaze's binning kernels need a scatter and a gather worker.
    if int(THREADS) < 2:
        return None
    if not os.environ.get("BLAZE") or not os.path.exists(
            os.path.join(DATA, "blaze", g + ".gr.index")):
        return None
    if name == "bfs":
        return "bfs" if g.startswith("rmat") else None
    return {"wcc": "wcc", "pagerank": "pagerank"}.get(name)


def main():
    global DATA
    work, runs, graphs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    data = os.path.join(work, "data")
    DATA = data
    gap = os.path.exists(os.path.join(data, "gap"))
    rows = []
    for g in graphs:
        src = open(os.path.join(data, g + ".maxdeg")).read().split()[0]
        res = {}
        for r in range(runs):
            for name, gargs, acg, gp in ALGOS:
                systems = [("grotto", lambda: grotto(gargs, data, g, src)),
                           ("ACGraph", lambda: peer("acgraph", acg, data, g))]
                if gap and gp:
                    systems.append(("GAP", lambda: peer("gap", gp, data, g)))
                if gap and name == "pagerank":
                    systems.append(("GAP", lambda: gap_pr(data, g)))
                bz = blaze_algo(name, g)
                if bz:
                    systems.append(("Blaze", lambda: blaze(bz, g, src)))
                for sysname, fn in systems:
                    x = fn()
                    res.setdefault((name, sysname), []).append(x)
                    print(f"{g} {name} {sysname} run {r + 1}: {x['s']:.3f} s",
                          file=sys.stderr)
        for name, *_ in ALGOS:
            row = {"graph": g, "algo": name}
            for sysname in ("grotto", "ACGraph", "GAP", "Blaze"):
                xs = res.get((name, sysname))
                if not xs:
                    continue
                row[sysname] = statistics.median(x["s"] for x in xs)
                row[sysname + "_rss"] = max(x["rss"] for x in xs)
                row[sysname + "_bytes"] = statistics.median(x["bytes"] for x in xs)
                row[sysname + "_ans"] = {x["ans"] for x in xs}
            e = statistics.median(x["edges"] for x in res[(name, "grotto")])
            row["edges"] = e
            rows.append(row)
    print("| graph | algorithm | grotto s | ACGraph s | lead | GAP s (in memory) | grotto/GAP "
          "| Blaze s | lead on Blaze "
          "| grotto MB read (B/edge) | ACGraph MB read | grotto peak MB | ACGraph peak MB "
          "| results |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    bad = 0
    for r in rows:
        e = r["edges"] or 1
        ga, aa = r.get("grotto_ans"), r.get("ACGraph_ans")
        if ga and aa and None not in ga and None not in aa:
            agree = "agree" if ga == aa else f"DIFFER: grotto {ga} ACGraph {aa}"
            bad += ga != aa
        else:
            agree = "not printed by ACGraph"
        gap_s = f"{r['GAP']:.3f}" if "GAP" in r else ""
        gap_x = f"{r['grotto'] / r['GAP']:.2f}x" if "GAP" in r else ""
        bz_s = f"{r['Blaze']:.3f}" if "Blaze" in r else ""
        bz_x = f"{r['Blaze'] / r['grotto']:.2f}x" if "Blaze" in r else ""
        print(f"| {r['graph']} | {r['algo']} | {r['grotto']:.3f} | {r['ACGraph']:.3f} "
              f"| {r['ACGraph'] / r['grotto']:.2f}x | {gap_s} | {gap_x} | {bz_s} | {bz_x} "
              f"| {r['grotto_bytes'] / 1e6:.0f} ({r['grotto_bytes'] / e:.2f}) "
              f"| {r['ACGraph_bytes'] / 1e6:.0f} "
              f"| {r['grotto_rss'] / 1e6:.0f} | {r['ACGraph_rss'] / 1e6:.0f} | {agree} |")
    print("(B/edge: grotto's bytes read over the edges it traversed; ACGraph's "
          "bytes are its own IO_read count; peak MB is the kernel's high-water mark.)")
    plot(rows, os.path.join(work, "peers.png"))
    if bad:
        sys.exit(f"{bad} results differ")


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [f"{r['graph']}\n{r['algo']}" for r in rows]
    xs = range(len(rows))
    fig, ax = plt.subplots(figsize=(max(8, len(rows) * 1.1), 4.5))
    w = 0.2
    for i, (s, c) in enumerate([("grotto", "#1f77b4"), ("ACGraph", "#ff7f0e"), ("GAP", "#2ca02c"),
                                ("Blaze", "#9467bd")]):
        ys = [r.get(s, 0) for r in rows]
        if any(ys):
            ax.bar([x + (i - 1.5) * w for x in xs], ys, w, label=s if s != "GAP" else "GAP (in memory)",
                   color=c)
    ax.set_yscale("log")
    ax.set_ylabel("seconds (median, log scale)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_title(f"{THREADS} threads, cache {CACHE_PCT}% of each file")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"chart: {path}")


if __name__ == "__main__":
    main()
