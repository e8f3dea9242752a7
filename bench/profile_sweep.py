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
the profile says), then the same grouped by what the runs actually used
(reads in flight and merge size, from the run's metrics): settings that
map to the same values are the same run, and their spread is the noise
floor. Every time is kept in WORKDIR/sweep.json (WORKDIR: SWEEP_OUT,
default the current directory). Example:

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

from benchlib import drop_caches

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
    raw = []
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
                used = (met["concurrency"], met.get("merge_bytes", m * 1024) // 1024)
                raw.append({"graph": graph, "algo": algo, "k_r": k, "merge_kib": m,
                            "used": used, "s": met["algo_s"]})
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
    out = os.path.join(os.environ.get("SWEEP_OUT", "."), "sweep.json")
    json.dump(raw, open(out, "w"))
    # Grouped by what the runs used: identical settings pooled.
    used = sorted({r["used"] for r in raw})
    print("\n| workload | " + " | ".join(f"{c} in flight, {m} KiB" for c, m in used)
          + " | worst over best | same setting, worst over best (noise) |")
    print("|---|" + "---|" * (len(used) + 2))
    for (graph, algo) in times:
        rows = [r for r in raw if (r["graph"], r["algo"]) == (graph, algo)]
        med = {u: statistics.median(r["s"] for r in rows if r["used"] == u) for u in used}
        best = min(med.values())
        noise = 1.0
        for u in used:
            per_profile = {}
            for r in rows:
                if r["used"] == u:
                    per_profile.setdefault((r["k_r"], r["merge_kib"]), []).append(r["s"])
            ms = [statistics.median(v) for v in per_profile.values()]
            if len(ms) > 1:
                noise = max(noise, max(ms) / min(ms))
        cells = [f"{med[u]:.3f} ({med[u] / best:.2f})" for u in used]
        print(f"| {os.path.basename(graph)} {algo} | " + " | ".join(cells)
              + f" | {max(med.values()) / best:.2f} | {noise:.2f} |")
    print(f"(times kept in {out})")


if __name__ == "__main__":
    main()
