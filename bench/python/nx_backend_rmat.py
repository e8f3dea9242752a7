"""The networkx backend against networkx on an rmat graph (Graph500
parameters, undirected, duplicates and self loops dropped), one run each
of: first call (conversion included), second call (cached conversion),
networkx. Usage: python bench/python/nx_backend_rmat.py SCALE [EDGE_FACTOR]
(GROTTO_BIN names the binary; default target/release/grotto; NX_LIMIT the
seconds networkx's own call may take before it is stopped and reported as
"> NX_LIMIT s", default 900)."""

import os
import signal
import subprocess
import sys
import tempfile
import time

import networkx as nx
import numpy as np

nx.config.warnings_to_ignore.add("cache")
BIN = os.environ.get("GROTTO_BIN", "target/release/grotto")
LIMIT = int(os.environ.get("NX_LIMIT", "900"))


class TooLong(Exception):
    pass


def stop(*_):
    raise TooLong()


signal.signal(signal.SIGALRM, stop)
scale = int(sys.argv[1])
factor = int(sys.argv[2]) if len(sys.argv) > 2 else 16
with tempfile.TemporaryDirectory() as d:
    el = os.path.join(d, "g.el")
    subprocess.run([BIN, "generate", "rmat", "--scale", str(scale), "--edge-factor", str(factor), "--output", el, "-q"], check=True)
    edges = np.loadtxt(el, dtype=np.int64, comments="#")
G = nx.Graph()
G.add_edges_from(edges[edges[:, 0] != edges[:, 1]].tolist())
print(f"rmat scale {scale}: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges")
calls = {
    "connected_components": lambda be: list(nx.connected_components(G, **be)),
    "pagerank": lambda be: nx.pagerank(G, weight=None, **be),
    "core_number": lambda be: nx.core_number(G, **be),
    "descendants": lambda be: nx.descendants(G, next(iter(G)), **be),
}
for name, call in calls.items():
    G.__networkx_cache__.clear()
    t = []
    for be in ({"backend": "grotto"}, {"backend": "grotto"}, {}):
        t0 = time.perf_counter()
        if not be:
            signal.alarm(LIMIT)
        try:
            call(be)
        except TooLong:
            t.append(None)
            continue
        finally:
            signal.alarm(0)
        t.append(time.perf_counter() - t0)
    if t[2] is None:
        print(f"  {name}: first {t[0]:.2f} s, second {t[1]:.2f} s, networkx > {LIMIT} s (stopped) "
              f"(networkx / first > {LIMIT / t[0]:.1f}x, / second > {LIMIT / t[1]:.1f}x)")
    else:
        print(f"  {name}: first {t[0]:.2f} s, second {t[1]:.2f} s, networkx {t[2]:.2f} s "
              f"(networkx / first {t[2] / t[0]:.1f}x, / second {t[2] / t[1]:.1f}x)")
