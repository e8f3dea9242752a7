"""Point-to-point shortest paths against a whole single-source search on
the same graph file, in one run: for each seeded pair (s, t) of vertices
in the same component, `grotto run path --source s --target t` (hops,
and `--weighted` on a weighted file) against `grotto run bfs --source s`
(and `sssp`), interleaved, page cache dropped before each run, at
`--cache 3%`. Prints each pair's times, the searched share of the graph
and the hops, then the medians and the ratio point-to-point / whole.

Also from Python when asked (`--python`): `nx.dijkstra_path_length(g, s,
t)` on the graph file against `g.sssp(s)`, each in its own process,
timed from after the imports and the open.

Usage: python3 bench/paths.py GRAPH [PAIRS=5] [--python]
"""

import json
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import drop_caches  # noqa: E402

BIN = os.environ.get("GROTTO_BIN", os.path.join(os.path.dirname(__file__), "..", "target", "release", "grotto"))
THREADS = os.environ.get("THREADS", "2")


def run(*args):
    drop_caches()
    t0 = time.perf_counter()
    out = subprocess.run([BIN, "run", *args, "--cache", "3%", "--threads", THREADS, "--json"],
                         check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    return wall, json.loads(out)


def python_call(setup, call):
    """Seconds of `call` in a fresh interpreter after `setup` (the imports
    and the open, which both sides pay alike), page cache dropped."""
    drop_caches()
    code = f"import time\n{setup}\nt0 = time.perf_counter()\n{call}\nprint(time.perf_counter() - t0)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def pairs(graph, k, seed=1):
    """k pairs in the source's component: a target drawn among the
    vertices a BFS from the source reached."""
    info = json.loads(subprocess.run([BIN, "info", graph, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    n = info["vertices"]
    rng = random.Random(seed)
    out = []
    while len(out) < k:
        s = rng.randrange(n)
        _, r = run("bfs", graph, "--source", str(s))
        if r["summary"]["reached"] < n // 2:
            continue
        t = rng.randrange(n)
        _, p = run("path", graph, "--source", str(s), "--target", str(t))
        if p["summary"]["reachable"]:
            out.append((s, t))
    return out, info


def main():
    graph = sys.argv[1]
    k = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 5
    with_python = "--python" in sys.argv
    ps, info = pairs(graph, k)
    weighted = info.get("weighted", False)
    n = info["vertices"]
    rows = []
    for s, t in ps:
        row = {"s": s, "t": t}
        whole, r = run("bfs", graph, "--source", str(s))
        row["bfs_s"], row["bfs_algo_s"] = whole, r["metrics"]["algo_s"]
        p2p, r = run("path", graph, "--source", str(s), "--target", str(t))
        row["path_s"], row["path_algo_s"] = p2p, r["metrics"]["algo_s"]
        row["hops"], row["searched"] = r["summary"]["hops"], r["summary"]["searched_vertices"] / n
        if weighted:
            whole, r = run("sssp", graph, "--source", str(s))
            row["sssp_s"], row["sssp_algo_s"] = whole, r["metrics"]["algo_s"]
            p2p, r = run("path", graph, "--source", str(s), "--target", str(t), "--weighted")
            row["wpath_s"], row["wpath_algo_s"] = p2p, r["metrics"]["algo_s"]
            row["whops"], row["wsearched"] = r["summary"]["hops"], r["summary"]["searched_vertices"] / n
            row["wpath_bytes"], row["length"] = r["metrics"]["bytes_read"], r["summary"]["length"]
        if with_python and weighted:
            pre = f"import grotto, networkx as nx; g = grotto.open({graph!r})"
            row["py_sssp_s"] = python_call(pre, f"g.sssp({s})")
            row["py_dijkstra_path_length_s"] = python_call(pre, f"nx.dijkstra_path_length(g, {s}, {t})")
        print(json.dumps(row), flush=True)
        rows.append(row)
    med = {key: statistics.median(r[key] for r in rows) for key in rows[0] if key not in ("s", "t")}
    print(json.dumps({"medians": med}))
    ratio = {"path/bfs": med["path_s"] / med["bfs_s"], "path/bfs algo": med["path_algo_s"] / med["bfs_algo_s"]}
    if weighted:
        ratio["wpath/sssp"] = med["wpath_s"] / med["sssp_s"]
        ratio["wpath/sssp algo"] = med["wpath_algo_s"] / med["sssp_algo_s"]
    if "py_sssp_s" in med:
        ratio["python dijkstra_path_length/sssp"] = med["py_dijkstra_path_length_s"] / med["py_sssp_s"]
    print(json.dumps({"ratios": ratio}))


if __name__ == "__main__":
    main()
