#!/usr/bin/env python3
"""Louvain and Leiden: grotto out of core against igraph and networkx in
memory, side by side in one run.

    python3 bench/communities.py DATA_DIR [RUNS] [GRAPH ...]

GRAPH is rmat20 (scale 20, edge factor 16, seed 7), road1ks (a 1000 x 1000
grid with 15% of its edges dropped and shuffled ids) or rmatNN for another
scale; each is generated into DATA_DIR once (edge list and undirected grotto
file). For each graph, RUNS rounds (default 5) interleave: grotto louvain,
igraph community_multilevel, grotto leiden, igraph community_leiden
(objective "modularity", igraph's default of 2 iterations). grotto runs
from the command line with --cache 3% and --threads $THREADS (default 2),
the page cache dropped before each run (needs root); its time is the
algorithm's (the run's `algo_s`: file open and output excluded). igraph's
graph is built once from the edge list in memory (not timed) and
simplified; its time is the call's. networkx's louvain_communities runs
once per graph (NETWORKX=0 skips it, NETWORKX=road1ks,... runs it on
those graphs only; it takes over 20 minutes on rmat20) on a
Graph built from the same edges (not timed). Prints a markdown table of
medians and writes every run to DATA_DIR/communities.json.

Environment: GROTTO_BIN (default target/release/grotto), THREADS, NETWORKX.
"""

import json
import os
import statistics
import subprocess
import sys
import time

from benchlib import drop_caches

GROTTO = os.environ.get("GROTTO_BIN", "target/release/grotto")
THREADS = os.environ.get("THREADS", "2")


def sh(*args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: {r.stderr}")
    return r.stdout


def prepare(data, name):
    el, gf = os.path.join(data, f"{name}.el"), os.path.join(data, f"{name}.grotto")
    if not os.path.exists(el):
        if name.startswith("rmat"):
            sh(GROTTO, "generate", "rmat", "--scale", name[4:], "--edge-factor", "16", "--seed", "7", "-o", el, "-q")
        elif name == "road1ks":
            sh(GROTTO, "generate", "grid", "--rows", "1000", "--cols", "1000", "--drop", "0.15",
               "--shuffle", "-o", el, "-q")
        else:
            raise SystemExit(f"unknown graph {name}")
    if not os.path.exists(gf):
        sh(GROTTO, "convert", el, gf, "--undirected", "-q")
    return el, gf


def edges_of(el):
    import numpy as np

    a = np.loadtxt(el, dtype=np.int64, comments=["#", "%"], usecols=(0, 1))
    return a


def grotto_run(algo, gf):
    drop_caches()
    t = time.time()
    out = sh(GROTTO, "run", algo, gf, "--cache", "3%", "--threads", THREADS, "--json", "--quiet")
    wall = time.time() - t
    d = json.loads(out)
    m, s = d["metrics"], d["summary"]
    return {"s": m["algo_s"], "wall_s": wall, "modularity": s["modularity"], "communities": s["communities"],
            "bytes_read": m["bytes_read"], "peak_rss": m["peak_rss_bytes"], "levels": len(s["levels"])}


def main():
    data = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    names = sys.argv[3:] or ["rmat20", "road1ks"]
    import igraph as ig

    results = {}
    for name in names:
        el, gf = prepare(data, name)
        a = edges_of(el)
        n = int(a.max()) + 1
        info = json.loads(sh(GROTTO, "info", gf, "--json"))
        h = ig.Graph(n=n, edges=a, directed=False)
        h.simplify()
        rows = {k: [] for k in ("grotto louvain", "igraph multilevel", "grotto leiden", "igraph leiden")}
        for _ in range(runs):
            rows["grotto louvain"].append(grotto_run("louvain", gf))
            t = time.time()
            c = h.community_multilevel()
            rows["igraph multilevel"].append({"s": time.time() - t, "modularity": c.modularity,
                                              "communities": len(c)})
            rows["grotto leiden"].append(grotto_run("leiden", gf))
            t = time.time()
            c = h.community_leiden(objective_function="modularity")
            rows["igraph leiden"].append({"s": time.time() - t, "modularity": c.modularity,
                                          "communities": len(c)})
        want = os.environ.get("NETWORKX", "1")
        if want == "1" or name in want.split(","):
            import networkx as nx

            G = nx.Graph()
            G.add_nodes_from(range(n))
            G.add_edges_from(map(tuple, a.tolist()))
            G.remove_edges_from(nx.selfloop_edges(G))
            t = time.time()
            p = nx.community.louvain_communities(G, seed=1)
            s = time.time() - t
            rows["networkx louvain"] = [{"s": s, "modularity": nx.community.modularity(G, p),
                                         "communities": len(p)}]
            del G
        results[name] = {"vertices": info.get("vertices"), "edges": info.get("edges"), "runs": rows}
        del h
    with open(os.path.join(data, "communities.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"threads {THREADS}; grotto --cache 3%, page cache dropped; medians of {runs} interleaved runs")
    print("| graph | system | s | modularity | communities | grotto's lead | bytes read per edge | peak RSS bytes per vertex |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        med = {k: {f: statistics.median(x[f] for x in v) for f in v[0] if isinstance(v[0][f], (int, float))}
               for k, v in r["runs"].items()}
        for sys_name, m in med.items():
            ours = med["grotto leiden" if "leiden" in sys_name else "grotto louvain"]["s"]
            ratio = "" if sys_name.startswith("grotto") else f"{m['s'] / ours:.1f}x faster"
            extra = ""
            if sys_name.startswith("grotto"):
                extra = f"| {m['bytes_read'] / r['edges']:.2f} | {m['peak_rss'] / r['vertices']:.0f} "
            else:
                extra = "| | "
            print(f"| {name} | {sys_name} | {m['s']:.2f} | {m['modularity']:.4f} | {int(m['communities'])} "
                  f"| {ratio} {extra}|")


if __name__ == "__main__":
    main()
