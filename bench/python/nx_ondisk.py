"""networkx on a graph file against the CLI on the same file, interleaved:
``nx.pagerank(grotto.open(path))`` and the components networkx yields,
against ``grotto run pagerank`` and ``grotto run wcc``, each in its own
process, with its wall time and peak RSS (getrusage's maximum resident
set: the process's own, or for the CLI its child's).

Usage: python bench/python/nx_ondisk.py GRAPH.grotto [ROUNDS] [KERNELS]
(KERNELS: pagerank,wcc by default)
(GROTTO_BIN names the binary; default target/release/grotto). The
networkx run's time is the process's whole wall time, Python's start
and imports included, and, inside it, the call's own; its components are
consumed as a user would (the largest found, every one touched).
"""

import json
import os
import statistics
import subprocess
import sys
import time

BIN = os.environ.get("GROTTO_BIN", "target/release/grotto")
path = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2

PY = {
    "pagerank": "r = nx.pagerank(g)\nassert len(r) == len(g)",
    "wcc": "big = max(nx.connected_components(g), key=len)\nprint('largest', len(big), file=sys.stderr)",
}
CLI = {
    "pagerank": ["run", "pagerank", path, "--damping", "0.85", "--tolerance", "1e-6", "--max-iterations", "100", "--json"],
    "wcc": ["run", "wcc", path, "--json"],
}


def timed(cmd):
    """(wall seconds, stdout, stderr) of one process."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    out, err = p.stdout, p.stderr
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{cmd} failed:\n{err}")
    return wall, out, err


def run_py(kernel):
    code = (
        "import sys, time, resource, grotto, networkx as nx\n"
        f"g = grotto.open({path!r})\n"
        "t0 = time.perf_counter()\n"
        f"{PY[kernel]}\n"
        "print(time.perf_counter() - t0)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)\n"
    )
    wall, out, _ = timed([sys.executable, "-c", code])
    call, rss = out.split()[-2:]
    return wall, float(call), int(rss)


def run_cli(kernel):
    code = (
        "import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "sys.stdout.write(p.stdout); sys.stderr.write(p.stderr)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
        "sys.exit(p.returncode)\n"
    )
    wall, out, _ = timed([sys.executable, "-c", code, BIN] + CLI[kernel])
    lines = out.strip().splitlines()
    report = json.loads("\n".join(lines[:-1]))
    return wall, report, int(lines[-1])


info = json.loads(subprocess.run([BIN, "info", path, "--json"], capture_output=True, text=True, check=True).stdout)
n = info.get("vertices") or info.get("vertex_count")
print(f"{path}: {n} vertices")
for kernel in (sys.argv[3] if len(sys.argv) > 3 else "pagerank,wcc").split(","):
    py, cli = [], []
    for r in range(rounds):
        # Interleaved, and each first in every other round.
        for which in ("cli", "py") if r % 2 == 0 else ("py", "cli"):
            if which == "cli":
                wall, report, rss = run_cli(kernel)
                cli.append((wall, rss))
                print(f"  {kernel} round {r + 1}: CLI {wall:.1f} s, peak {rss / n:.1f} B/vertex", flush=True)
            else:
                wall, call, rss = run_py(kernel)
                py.append((wall, call, rss))
                print(f"  {kernel} round {r + 1}: networkx on the file {wall:.1f} s (call {call:.1f} s), "
                      f"peak {rss / n:.1f} B/vertex", flush=True)
    c = statistics.median(w for w, _ in cli)
    p = statistics.median(w for w, _, _ in py)
    pc = statistics.median(x for _, x, _ in py)
    print(
        f"{kernel}: medians CLI {c:.1f} s, networkx {p:.1f} s (call {pc:.1f} s): {p / c:.3f}x; "
        f"peak B/vertex CLI {statistics.median(r for _, r in cli) / n:.1f}, "
        f"networkx {statistics.median(r for _, _, r in py) / n:.1f}"
    )
