"""The networkx backend's cost per call, against networkx itself,
interleaved, medians:
- small: a 10-node path graph, each function converted afresh (what
  networkx's test mode does on every call), once converted (networkx's
  cache), and networkx alone;
- large (with --large N M): a G(n, m) graph, first call (conversion
  included), second call (cached conversion), and networkx alone.
Usage: python bench/python/nx_backend.py [--large 200000 1000000] [--runs 5]"""

import argparse
import statistics
import time

import networkx as nx

from grotto.nx import BackendInterface as B

nx.config.warnings_to_ignore.add("cache")

CALLS = {
    "connected_components": lambda G, be: list(nx.connected_components(G, **be)),
    "pagerank": lambda G, be: nx.pagerank(G, **be),
    "core_number": lambda G, be: nx.core_number(G, **be),
    "descendants": lambda G, be: nx.descendants(G, 0, **be),
}


def median_ms(f, runs):
    f()
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return statistics.median(out) * 1e3


def small(runs):
    G = nx.path_graph(10)
    print("10-node path graph, ms per call (fresh conversion / converted once / networkx):")
    for name, call in CALLS.items():
        args = [0] if name in ("descendants", "single_source_shortest_path_length") else []
        fresh = median_ms(lambda: _force(getattr(B, name)(B.convert_from_nx(G), *args)), runs)
        g = B.convert_from_nx(G)
        once = median_ms(lambda: _force(getattr(B, name)(g, *args)), runs)
        alone = median_ms(lambda: call(G, {}), runs)
        print(f"  {name}: {fresh:.3f} / {once:.3f} / {alone:.4f}")


def _force(x):
    return list(x) if hasattr(x, "__next__") else x


def large(n, m, runs):
    print(f"G(n={n}, m={m}), seconds (first call with conversion / second call / networkx), medians of {runs}:")
    rows = {name: ([], [], []) for name in CALLS}
    for _ in range(runs):
        G = nx.gnm_random_graph(n, m, seed=1)
        for name, call in CALLS.items():
            G.__networkx_cache__.clear()
            for i, be in enumerate(({"backend": "grotto"}, {"backend": "grotto"}, {})):
                t0 = time.perf_counter()
                call(G, be)
                rows[name][i].append(time.perf_counter() - t0)
    for name, (first, second, alone) in rows.items():
        f, s, a = (statistics.median(x) for x in (first, second, alone))
        print(f"  {name}: {f:.3f} / {s:.3f} / {a:.3f}  (networkx / first {a / f:.1f}x, / second {a / s:.1f}x)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--large", nargs=2, type=int, metavar=("N", "M"))
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    small(max(a.runs, 200))
    if a.large:
        large(*a.large, a.runs)
