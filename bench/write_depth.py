#!/usr/bin/env python3
"""Commit time of one delta batch against the writes it keeps in flight.

    python bench/write_depth.py BASE.grotto INSERT DELETE WORKDIR [RUNS] [DEPTHS]

For every n_w in DEPTHS (default 1,2,4,8,16,32,64), RUNS times (default
3), interleaved over the depths: copy BASE into WORKDIR, drop the page
cache, and time `grotto update COPY --insert INSERT --delete DELETE
--merge never --write-depth N` (the whole command; the commit writes its
delta run in 128 KiB requests, N in flight, then syncs). Prints the
medians of the whole command and of its write phase (run, manifest slot
and their syncs), the run's size, and the device profile's k_w when
one is stored for WORKDIR's device (`grotto profile --path WORKDIR`
stores one; `grotto doctor --path WORKDIR` shows it).
Set GROTTO_BIN to the binary (default target/release/grotto).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from benchlib import drop_caches

G = os.environ.get("GROTTO_BIN", "target/release/grotto")


def main():
    base, ins, dele, work = sys.argv[1:5]
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    depths = [int(x) for x in (sys.argv[6] if len(sys.argv) > 6 else "1,2,4,8,16,32,64").split(",")]
    os.makedirs(work, exist_ok=True)
    copy = os.path.join(work, "nw.grotto")
    res = {d: {"total": [], "write": [], "mib": []} for d in depths}
    for _ in range(runs):
        for d in depths:
            shutil.copyfile(base, copy)
            drop_caches()
            t = time.perf_counter()
            out = subprocess.run([G, "update", copy, "--insert", ins, "--delete", dele,
                                  "--merge", "never", "--write-depth", str(d), "--json"],
                                 capture_output=True, text=True)
            wall = time.perf_counter() - t
            if out.returncode != 0:
                sys.exit(out.stderr)
            r = json.loads(out.stdout)
            res[d]["total"].append(wall)
            res[d]["write"].append(r["write_s"])
            res[d]["mib"].append(r["bytes_written"] / 2**20)
    os.remove(copy)
    prof = subprocess.run([G, "doctor", "--path", work, "--json"],
                          capture_output=True, text=True)
    k_w = None
    if prof.returncode == 0:
        try:
            k_w = (json.loads(prof.stdout).get("profile") or {}).get("k_w")
        except (ValueError, AttributeError):
            pass
    med = statistics.median
    print(f"delta run of {med(res[depths[0]]['mib']):.1f} MiB; medians of {runs} interleaved runs; "
          f"profile k_w: {k_w if k_w is not None else 'no stored profile'}\n")
    print("| n_w | update (whole command) | write phase |")
    print("|---|---|---|")
    for d in depths:
        print(f"| {d} | {med(res[d]['total']):.3f} s | {med(res[d]['write']):.3f} s |")


if __name__ == "__main__":
    main()
