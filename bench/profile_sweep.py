#!/usr/bin/env python3
"""Run times against what the stored device profile says.

    python3 bench/profile_sweep.py GROTTO_BIN RUNS GRAPH:ALGO[:ARGS] ...

For every read concurrency k_r in K_R (8 16 32 64 128) and merge size in
MERGE_KIB (16 128 512), writes a copy of this device's stored profile with
those two values into a scratch profile directory, and runs each workload
with `--concurrency auto` (so the run takes both from the profile, as
grotto's engines read it: k_r at least 32, merge size within 128 to 256
KiB; set RAW=1 to pass k_r as --concurrency and see the raw values), 2
threads, cache 3%, page cache dropped before each run; RUNS rounds,
interleaved. Prints, per workload, the median time at every setting and
how far each is from the best (the issue's target: within 10% whatever
the profile says). Example:

    python3 bench/profile_sweep.py target/release/grotto 3 \\
        r22.grotto:bfs:--source=442514 r22.grotto:wcc grid.grotto:bfs:--source=1001

Needs a stored profile (`grotto profile --path DIR`) and root for
dropping the page cache. Environment: THREADS (2), CACHE (3%), K_R,
MERGE_KIB.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

G = sys.argv[1]
RUNS = int(sys.argv[2])
WORK = [w.split(":") for w in sys.argv[3:]]
THREADS = os.environ.get("THREADS", "2")
CACHE = os.environ.get("CACHE", "3%")
K_R = [int(x) for x in os.environ.get("K_R", "8 16 32 64 128").split()]
MERGE = [int(x) for x in os.environ.get("MERGE_KIB", "16 128 512").split()]


def stored_profile():
    d = os.environ.get("GROTTO_PROFILE_DIR") or os.path.join(
        os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config"),
        "grotto", "profiles")
    files = glob.glob(os.path.join(d, "*.json"))
    if not files:
        sys.exit(f"no stored profile in {d}: run grotto profile --path DIR first")
    return files[0]


def drop_caches():
    subprocess.run(["sync"], check=True)
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    except OSError as e:
        print(f"warning: cannot drop the page cache: {e}", file=sys.stderr)


def main():
    src = stored_profile()
    base = json.load(open(src))
    dirs = {}
    tmp = tempfile.mkdtemp(prefix="grotto-sweep-")
    for k in K_R:
        for m in MERGE:
            d = os.path.join(tmp, f"k{k}-m{m}")
            os.makedirs(d)
            p = dict(base, k_r=k, merge_bytes=m * 1024)
            json.dump(p, open(os.path.join(d, os.path.basename(src)), "w"))
            dirs[(k, m)] = d
    times = {}
    for r in range(RUNS):
        for w in WORK:
            graph, algo, extra = w[0], w[1], [a.replace("=", " ", 1).split() for a in w[2:]]
            args = [x for a in extra for x in a]
            for (k, m), d in dirs.items():
                drop_caches()
                cmd = [G, "run", algo, graph, *args, "--json", "--threads", THREADS,
                       "--cache", CACHE]
                if os.environ.get("RAW") == "1":
                    cmd += ["--concurrency", str(k)]
                out = subprocess.run(cmd, capture_output=True, text=True,
                                     env=dict(os.environ, GROTTO_PROFILE_DIR=d))
                if out.returncode != 0:
                    sys.exit(f"{' '.join(cmd)}: {out.stderr}")
                met = json.loads(out.stdout)["metrics"]
                times.setdefault((graph, algo), {}).setdefault((k, m), []).append(met["algo_s"])
        print(f"round {r + 1} of {RUNS} done", file=sys.stderr)
    print("| workload | " + " | ".join(f"k_r {k}, {m} KiB" for k in K_R for m in MERGE)
          + " | worst over best |")
    print("|---|" + "---|" * (len(K_R) * len(MERGE) + 1))
    worst = 0.0
    for (graph, algo), t in times.items():
        med = {s: statistics.median(v) for s, v in t.items()}
        best = min(med.values())
        cells = [f"{med[(k, m)]:.3f} ({med[(k, m)] / best:.2f})" for k in K_R for m in MERGE]
        ratio = max(med.values()) / best
        worst = max(worst, ratio)
        print(f"| {os.path.basename(graph)} {algo} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    print(f"(seconds, median of {RUNS}; in brackets, over the best setting of the row. "
          f"Worst of all rows: {worst:.2f})")


if __name__ == "__main__":
    main()
