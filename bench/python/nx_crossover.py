"""Where the backend's first call (conversion included) overtakes
networkx, per function, on G(n, m) graphs of growing size: the figures
behind ``should_run``'s thresholds. Median of --runs calls each, the
conversion cache cleared before every grotto call.

Usage: python bench/python/nx_crossover.py [--runs 5] [--edges 1000,10000,...]
"""

import argparse
import statistics
import time

import networkx as nx

nx.config.warnings_to_ignore.add("cache")

CALLS = {
    "connected_components": lambda G, be: list(nx.connected_components(G, **be)),
    "descendants": lambda G, be: nx.descendants(G, 0, **be),
    "has_path": lambda G, be: nx.has_path(G, 0, len(G) - 1, **be),
    "core_number": lambda G, be: nx.core_number(G, **be),
    "pagerank": lambda G, be: nx.pagerank(G, **be),
    "triangles": lambda G, be: nx.triangles(G, **be),
}


def median_time(call, G, be, runs):
    times = []
    for _ in range(runs):
        G.__networkx_cache__.clear()
        t0 = time.perf_counter()
        call(G, be)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--edges", default="100,1000,10000,100000,400000")
    a = ap.parse_args()
    sizes = [int(x) for x in a.edges.split(",")]
    print("edges " + " ".join(f"{name[:24]:>26}" for name in CALLS))
    for m in sizes:
        G = nx.gnm_random_graph(max(m // 5, 10), m, seed=1)
        cells = []
        for name, call in CALLS.items():
            # Interleaved: networkx, grotto, per run.
            ours = median_time(call, G, {"backend": "grotto"}, a.runs)
            theirs = median_time(call, G, {}, a.runs)
            cells.append(f"{theirs / ours:>7.2f}x ({ours * 1e3:8.2f} ms)")
        print(f"{m:>5} " + " ".join(f"{c:>26}" for c in cells))
    print("(networkx's time over grotto's first call: above 1x, grotto is faster)")


if __name__ == "__main__":
    main()
