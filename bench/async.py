"""Runs the sync/async comparison of bench/async.sh and prints its table."""

import json
import os
import statistics
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

GROTTO = os.environ.get("GROTTO_BIN", "target/release/grotto")
work, runs = sys.argv[1], int(sys.argv[2])
rmat, grid = os.path.join(work, "rmat22.grotto"), os.path.join(work, "grid2k.grotto")


def run(algo, graph, *args):
    """Median-time run of RUNS (all runs' JSON kept)."""
    out = []
    for _ in range(runs):
        r = subprocess.run([GROTTO, "run", algo, graph, "--json", *map(str, args)],
                           capture_output=True, text=True, check=True)
        out.append(json.loads(r.stdout))
    out.sort(key=lambda j: j["metrics"]["algo_s"])
    return out[len(out) // 2]


rows, results = [], {}


def case(name, algo, graph, *args):
    j = run(algo, graph, *args)
    m = j["metrics"]
    results[name] = j
    rows.append((name, m["algo_s"], m["traversed_edges"], m["bytes_per_edge"], m["read_bytes_per_s"] / 1e6,
                 j.get("device_fraction"), m["block_visits"], m["block_reuses"]))
    print(f"{name:34} {m['algo_s']:8.3f} s  {m['traversed_edges']:>11}  {m['bytes_per_edge']:7.2f} B/e  "
          f"{m['read_bytes_per_s'] / 1e6:6.0f} MB/s  device {100 * (j.get('device_fraction') or 0):3.0f}%",
          flush=True)


print(f"medians of {runs}; cache 3%; concurrency from the device profile")
case("bfs rmat22 sync", "bfs", rmat, "--engine", "sync")
case("bfs rmat22 async", "bfs", rmat, "--engine", "async")
case("bfs grid2k sync", "bfs", grid, "--engine", "sync", "--source", 0)
case("bfs grid2k async", "bfs", grid, "--engine", "async", "--source", 0)
case("wcc rmat22 sync (union-find)", "wcc", rmat, "--engine", "sync")
case("wcc rmat22 async (label prop.)", "wcc", rmat, "--engine", "async")
case("wcc grid2k sync (union-find)", "wcc", grid, "--engine", "sync")
case("wcc grid2k async (label prop.)", "wcc", grid, "--engine", "async")
case("kcore10 rmat22 rounds", "kcore", rmat, "--k", 10, "--engine", "sync")
case("kcore10 rmat22 async", "kcore", rmat, "--k", 10, "--engine", "async")
case("ppr rmat22 eps 1e-7", "ppr", rmat, "--epsilon", "1e-7")
case("ppr rmat22 eps 1e-9 (default)", "ppr", rmat)
case("mis rmat22 (rounds)", "mis", rmat)
# The whole graph cached against no I/O at all: `--io memory` reads the file
# into RAM before the run and serves every request by a copy, through the
# same readers, pool, checksums and engine code.
ratios = []
for label, algo, extra in [("bfs", "bfs", ()), ("wcc", "wcc", ()), ("kcore10", "kcore", ("--k", 10)),
                           ("ppr eps 1e-7", "ppr", ("--epsilon", "1e-7")), ("mis", "mis", ())]:
    cached = f"{label} rmat22 async cached 100%"
    mem = f"{label} rmat22 async no I/O (memory)"
    case(cached, algo, rmat, *extra, "--engine", "async", "--cache", "100%")
    case(mem, algo, rmat, *extra, "--engine", "async", "--cache", "100%", "--io", "memory")
    ratios.append((label, results[cached]["metrics"]["algo_s"] / results[mem]["metrics"]["algo_s"]))
scaling = []
for label, algo, extra in [("bfs", "bfs", ()), ("kcore10", "kcore", ("--k", 10))]:
    for t in (1, 2):
        case(f"{label} rmat22 async no I/O, {t} thr", algo, rmat, *extra, "--engine", "async",
             "--cache", "100%", "--io", "memory", "--threads", t)
    scaling.append((label, results[f"{label} rmat22 async no I/O, 1 thr"]["metrics"]["algo_s"]
                    / results[f"{label} rmat22 async no I/O, 2 thr"]["metrics"]["algo_s"]))
print("cached 100% over no I/O (target <= 2): " + ", ".join(f"{a} {r:.2f}x" for a, r in ratios))
print("thread scaling 1 -> 2, no I/O: " + ", ".join(f"{a} {r:.2f}x" for a, r in scaling))

with open(os.path.join(work, "async.json"), "w") as f:
    json.dump(results, f)
def plot(results, work):
    """Read throughput in 50 ms windows over time, sync against async."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for ax, (a, b, title) in zip(axes, [("bfs rmat22 sync", "bfs rmat22 async", "BFS rmat22"),
                                         ("bfs grid2k sync", "bfs grid2k async", "BFS grid 2000x2000")]):
        longest = 0.0
        for name in (a, b):
            m = results[name]["metrics"]
            w = m["window_bytes"]
            xs = [i * m["window_ms"] / 1000 for i in range(len(w))]
            longest = max(longest, xs[-1] if xs else 0.0)
            ax.plot(xs, [x / (m["window_ms"] / 1000) / 1e6 for x in w], label=name.split()[-1])
        ax.set_title(title + ", cache 3%")
        ax.set_ylabel("MB/s read (50 ms windows)")
        if longest > 5:
            # Runs of very different lengths: the first second stays readable.
            ax.set_xscale("symlog", linthresh=1.0)
            ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
            ax.set_xlabel("seconds (linear to 1 s, logarithmic after)")
        else:
            ax.set_xlabel("seconds")
        ax.set_ylim(bottom=0)
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(work, "async-throughput.png"), dpi=110)


plot(results, work)
with open(os.path.join(work, "async.txt"), "w") as f:
    for r in rows:
        f.write(" | ".join(str(x) for x in r) + "\n")
    f.write("cached/no-I/O " + " ".join(f"{a}={r:.3f}" for a, r in ratios) + "\n")
    f.write("scaling " + " ".join(f"{a}={r:.3f}" for a, r in scaling) + "\n")
