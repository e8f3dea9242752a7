"""Tables and charts for bench/ace.sh: the thesis's Figure 8 (runtime of
each policy plain, with ACE, with ACE and prefetching, per workload),
Figure 9A (ACE's speedup against the pool size) and 9B (against n_w)."""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])


def rows(name):
    d = json.loads((out / name).read_text())
    return d, d["rows"]


def table(d, rs, title):
    print(f"\n{title}: {d['file']}, k_w {d['k_w']}, alpha {d['alpha']}, "
          f"{d['ops']} ops, median of {d['runs']}")
    print(f"{'load':4} {'pool%':>6} {'n_w':>4} {'policy':8} {'variant':7} "
          f"{'s':>7} {'speedup':>7} {'PIO':>5} {'misses':>8} {'dmiss%':>7} "
          f"{'written':>8} {'dwr+d%':>7}")
    for x in rs:
        r = x["row"]
        f = lambda v, d=2: "-" if v is None else f"{v:.{d}f}"  # noqa: E731
        print(f"{r['workload']:4} {r['pool_percent']:6.1f} {r['n_w']:4} "
              f"{r['policy']:8} {r['variant']:7} {r['median_seconds']:7.3f} "
              f"{f(x['speedup']):>7} {f(x['pio_predicted']):>5} "
              f"{r['misses']:8} {f(x['misses_change_percent']):>7} "
              f"{r['pages_written']:8} {f(x['writes_and_dirty_change_percent']):>7}")


d, rs = rows(sys.argv[2] if len(sys.argv) > 2 else "fig8.json")
table(d, rs, "Figure 8")
loads = list(dict.fromkeys(x["row"]["workload"] for x in rs))
pols = list(dict.fromkeys(x["row"]["policy"] for x in rs))
vars_ = list(dict.fromkeys(x["row"]["variant"] for x in rs))
fig, axes = plt.subplots(1, len(loads), figsize=(4 * len(loads), 3.6), squeeze=False)
for ax, w in zip(axes[0], loads):
    for j, v in enumerate(vars_):
        ys = []
        for p in pols:
            m = [x for x in rs if x["row"]["workload"] == w and x["row"]["policy"] == p
                 and x["row"]["variant"] == v]
            ys.append(m[0]["row"]["median_seconds"] if m else 0)
        xs = [i + (j - (len(vars_) - 1) / 2) * 0.27 for i in range(len(pols))]
        ax.bar(xs, ys, width=0.27, label=v)
    ax.set_xticks(range(len(pols)), pols)
    ax.set_title(w.upper())
    ax.set_ylabel("seconds")
axes[0][0].legend(fontsize=8)
nws = sorted({x["row"]["n_w"] for x in rs})
alpha = "?" if d["alpha"] is None else f"{d['alpha']:.2f}"
fig.suptitle(f"ACE on a grotto graph: k_w {d['k_w']}, alpha {alpha}, n_w {nws}, "
             f"pool {rs[0]['row']['pool_percent']:.0f}%, {d['ops']} ops, median of {d['runs']}")
fig.tight_layout()
fig.savefig(out / "ace-fig8.png", dpi=110)

for name, key, label, png in [
    ("fig9a.json", "pool_percent", "pool, % of the pages", "ace-fig9a.png"),
    ("nw.json", "n_w", "n_w (dirty pages written at once)", "ace-nw.png"),
]:
    if not (out / name).exists():
        continue
    d, rs = rows(name)
    table(d, rs, name)
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for p in dict.fromkeys(x["row"]["policy"] for x in rs):
        pts = sorted((x["row"][key], x["speedup"]) for x in rs
                     if x["row"]["policy"] == p and x["row"]["variant"] == "ace")
        ax.plot([a for a, _ in pts], [b for _, b in pts], marker="o", label=f"ace-{p}")
    pio = sorted({(x["row"][key], x["pio_predicted"]) for x in rs
                  if x["row"]["variant"] == "ace" and x["pio_predicted"] is not None
                  and x["row"]["policy"] == rs[0]["row"]["policy"]})
    if pio:
        ax.plot([a for a, _ in pio], [b for _, b in pio], "k--", label="PIO model")
    if key == "n_w":
        ax.set_xscale("log", base=2)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xlabel(label)
    ax.set_ylabel("speedup over the plain policy")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / png, dpi=110)
