"""CAVE's two central findings on this machine, for grotto's sync engine.

1. BFS runtime against concurrency (block mode, 3% cache): falls until
   about k_r, then flattens.
2. BFS and WCC runtime against cache size (1%, 3%, 10%, 100%) in both
   modes: block mode flat, vertex mode improving with cache.

3. At k_r, the device fraction measured in the same run of the benchmark:
   each BFS run is followed by fio replaying that run's request mix
   (bssplit by request count) on the same file at the same depth, and the
   run's read throughput over its I/O span is divided by fio's.

Every point is the median of RUNS runs (O_DIRECT, so the page cache is out
of the way). Writes engine.json (all runs), engine.txt (the tables) and
engine-concurrency.png / engine-cache.png.

usage: python bench/engine.py GRAPH OUTDIR [RUNS]
"""

import json
import os
import statistics
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GROTTO = os.environ.get("GROTTO_BIN", "target/release/grotto")


def run(algo, graph, *flags):
    out = subprocess.run([GROTTO, "run", algo, graph, "--json", *map(str, flags)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def fio_mix(graph, mix, depth, seconds=2):
    """Bytes per second fio reads from the out-edge block section of
    `graph` with random requests in the proportions of `mix` (the run's
    `request_sizes`: [size, requests, bytes] per class) at `depth`."""
    probe = json.loads(subprocess.run([GROTTO, "bench", "io", graph, "--qd", "1", "--pattern", "random",
                                       "--seconds", "0.05", "--json"],
                                      capture_output=True, text=True, check=True).stdout)
    total = sum(c[1] for c in mix)
    shares = [[c[0], round(100 * c[1] / total)] for c in mix]
    shares = [x for x in shares if x[1] > 0]
    shares[0][1] += 100 - sum(x[1] for x in shares)  # whole percentages summing to 100
    split = ":".join("%d/%d" % (b, pct) for b, pct in shares)
    out = subprocess.run(["fio", "--name=mix", f"--filename={graph}", "--direct=1", "--ioengine=io_uring",
                          "--rw=randread", f"--bssplit={split}", "--blockalign=4096", f"--iodepth={depth}",
                          f"--offset={probe['range_offset']}", f"--size={probe['range_bytes']}", "--time_based",
                          f"--runtime={seconds}", "--norandommap", "--randrepeat=0", "--output-format=json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["jobs"][0]["read"]["bw_bytes"], split


def median_run(runs, algo, graph, *flags):
    rs = [run(algo, graph, *flags) for _ in range(runs)]
    rs.sort(key=lambda r: r["metrics"]["algo_s"])
    return rs[len(rs) // 2], rs


def main():
    graph, outdir = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    os.makedirs(outdir, exist_ok=True)
    log, lines = [], []

    def say(s):
        print(s, flush=True)
        lines.append(s)

    # 1. Concurrency sweep.
    conc = [1, 2, 4, 8, 16, 32, 64, 128]
    sweep = {}
    say("BFS, block mode, cache 3%%: runtime against concurrency (median of %d)" % runs)
    say("%6s %9s %9s %8s %10s %8s %9s" % ("conc", "time_s", "speedup", "B/edge", "MB/s", "device", "inflight"))
    for c in conc:
        r, all_runs = median_run(runs, "bfs", graph, "--mode", "block", "--cache", "3%", "--concurrency", c)
        log += [{"sweep": "concurrency", "concurrency": c, **x} for x in all_runs]
        sweep[c] = r
        m = r["metrics"]
        t1 = sweep[1]["metrics"]["algo_s"]
        dev = r.get("device_fraction")
        say("%6d %9.3f %9.2f %8.2f %10.0f %8s %9.1f" % (
            c, m["algo_s"], t1 / m["algo_s"], m["bytes_per_edge"], m["read_bytes_per_s"] / 1e6,
            "-" if dev is None else "%.0f%%" % (dev * 100), m["mean_in_flight"]))

    # 3. Device fraction at k_r against fio on the same file, same depth,
    # same request mix, measured right after each run.
    pairs = []
    n = max(runs, 5)
    say("")
    say("BFS, block mode, cache 3%%, concurrency from the profile: device fraction against fio replaying"
        " each run's request mix on the same file at the same depth (%d interleaved pairs)" % n)
    say("%9s %10s %10s %9s %9s %9s" % ("time_s", "MB/s", "fio_MB/s", "vs_fio", "vs_prof", "inflight"))
    for _ in range(n):
        r = run("bfs", graph, "--mode", "block", "--cache", "3%")
        m = r["metrics"]
        bw, split = fio_mix(graph, m["request_sizes"], m["concurrency"])
        frac = m["read_bytes_per_s"] / bw
        pairs.append(dict(run=r, fio_bytes_per_s=bw, bssplit=split, fraction=frac))
        log.append({"sweep": "device", "fio_bytes_per_s": bw, "bssplit": split, "fraction": frac, **r})
        say("%9.3f %10.0f %10.0f %8.1f%% %8.1f%% %9.1f" % (
            m["algo_s"], m["read_bytes_per_s"] / 1e6, bw / 1e6, 100 * frac,
            100 * (r.get("device_fraction") or float("nan")), m["mean_in_flight"]))
    say("median: %.1f%% of fio (concurrency %d, mix %s), %.1f%% of the stored profile" % (
        100 * statistics.median(p["fraction"] for p in pairs), pairs[0]["run"]["metrics"]["concurrency"],
        pairs[0]["bssplit"], 100 * statistics.median(p["run"].get("device_fraction") or 0 for p in pairs)))

    # 2. Cache sweep.
    caches = ["1%", "3%", "10%", "100%"]
    cache_res = {}
    say("")
    say("Runtime against cache size, concurrency from the profile (median of %d)" % runs)
    say("%5s %7s %6s %9s %9s %8s %9s" % ("algo", "mode", "cache", "time_s", "MB_read", "B/edge", "hit_ratio"))
    for algo in ["bfs", "wcc"]:
        for mode in ["block", "vertex"]:
            for cache in caches:
                r, all_runs = median_run(runs, algo, graph, "--mode", mode, "--cache", cache)
                log += [{"sweep": "cache", "cache": cache, **x} for x in all_runs]
                cache_res[(algo, mode, cache)] = r
                m = r["metrics"]
                say("%5s %7s %6s %9.3f %9.1f %8.2f %9.3f" % (
                    algo, mode, cache, m["algo_s"], m["bytes_read"] / 1e6, m["bytes_per_edge"], m["cache_hit_ratio"]))

    with open(os.path.join(outdir, "engine.json"), "w") as f:
        json.dump(log, f, indent=1)
    with open(os.path.join(outdir, "engine.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")

    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    xs = conc
    ax[0].plot(xs, [sweep[c]["metrics"]["algo_s"] for c in xs], "o-", color="tab:blue")
    ax[0].set_xscale("log", base=2)
    ax[0].set_xticks(xs, [str(x) for x in xs])
    ax[0].set_xlabel("reads in flight (concurrency)")
    ax[0].set_ylabel("BFS time (s)")
    ax[0].set_title("BFS, block mode, cache 3%")
    ax[0].grid(alpha=0.3)
    ax[1].plot(xs, [sweep[c]["metrics"]["read_bytes_per_s"] / 1e6 for c in xs], "o-", color="tab:green", label="grotto BFS")
    ax[1].set_xscale("log", base=2)
    ax[1].set_xticks(xs, [str(x) for x in xs])
    ax[1].set_xlabel("reads in flight (concurrency)")
    ax[1].set_ylabel("read throughput (MB/s)")
    ax[1].set_title("Device throughput during BFS")
    ax[1].grid(alpha=0.3)
    fig.suptitle(os.path.basename(graph))
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "engine-concurrency.png"), dpi=110)

    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    for i, algo in enumerate(["bfs", "wcc"]):
        for mode, color in [("block", "tab:blue"), ("vertex", "tab:orange")]:
            ax[i].plot(caches, [cache_res[(algo, mode, c)]["metrics"]["algo_s"] for c in caches],
                       "o-", color=color, label=mode + " mode")
        ax[i].set_xlabel("cache (share of the graph file)")
        ax[i].set_ylabel("time (s)")
        ax[i].set_title(algo.upper())
        ax[i].set_ylim(bottom=0)
        ax[i].grid(alpha=0.3)
        ax[i].legend()
    fig.suptitle(os.path.basename(graph))
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "engine-cache.png"), dpi=110)
    say("")
    say("plots: %s, %s" % (os.path.join(outdir, "engine-concurrency.png"), os.path.join(outdir, "engine-cache.png")))


if __name__ == "__main__":
    main()
