"""networkx's own test modules with graph files as their inputs: every
networkx graph a test hands a dispatched function is written as a grotto
file and opened (GROTTO_NX_AS_FILES=1 in the backend's convert_from_nx),
so each call runs on a graph file the way a user's would: grotto's own
implementation where it has one, networkx's own code on the file made a
networkx graph where it has not (grotto._nxfallback), and the protocol
of grotto/_views.py for what networkx reads directly.

    python bench/nx_files.py [--budget SECONDS] [PACKAGE ...]   # default: networkx.algorithms

Prints, per test module, passed/failed/errors, then how many modules pass
entirely. Slow: a file is written per call (minutes for the algorithms).
"""

import os
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict


def main() -> None:
    args = sys.argv[1:]
    budget = None
    if args[:1] == ["--budget"]:
        budget, args = float(args[1]), args[2:]
    packages = args or ["networkx.algorithms"]
    with tempfile.TemporaryDirectory() as d:
        xml = os.path.join(d, "r.xml")
        env = dict(os.environ, NETWORKX_TEST_BACKEND="grotto", NETWORKX_FALLBACK_TO_NX="True",
                   GROTTO_NX_AS_FILES="1")
        p = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              f"--junitxml={xml}", "--pyargs", *packages],
                             cwd=d, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            p.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            # pytest writes the report of the tests run so far on Ctrl-C.
            p.send_signal(signal.SIGINT)
            p.wait()
            print(f"(stopped after {budget:.0f} s: the tests run by then)")
        root = ET.parse(xml).getroot()
    per = defaultdict(lambda: [0, 0, 0])
    first_fail = {}
    for case in root.iter("testcase"):
        module = case.get("classname", "").rsplit(".", 1)[0] if "Test" in case.get("classname", "").rsplit(".", 1)[-1] \
            else case.get("classname", "")
        bad = [c for c in case if c.tag in ("failure", "error")]
        if any(c.tag == "skipped" for c in case):
            continue
        if not bad:
            per[module][0] += 1
        else:
            per[module][1 if bad[0].tag == "failure" else 2] += 1
            first_fail.setdefault(module, (case.get("name"), (bad[0].get("message") or "")[:160]))
    whole = 0
    for m in sorted(per):
        p, f, e = per[m]
        whole += f == 0 and e == 0
        note = "" if m not in first_fail else f"   first: {first_fail[m][0]}: {first_fail[m][1]}"
        print(f"{m}: {p} passed, {f} failed, {e} errors{note}")
    tests = [sum(x[i] for x in per.values()) for i in range(3)]
    print(f"\n{whole} of {len(per)} test modules pass entirely with graph files as inputs; "
          f"tests: {tests[0]} passed, {tests[1]} failed, {tests[2]} errors")


if __name__ == "__main__":
    main()
