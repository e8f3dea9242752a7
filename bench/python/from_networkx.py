"""from_networkx against nx.write_edgelist + grotto convert on a 1M-edge
G(n, m), 3 runs. Usage: python bench/python/from_networkx.py (GROTTO_BIN
names the binary)."""
import os, subprocess, time, statistics, tempfile
import networkx as nx
import grotto
G = os.environ.get("GROTTO_BIN", "target/release/grotto")
H = nx.gnm_random_graph(200_000, 1_000_000, seed=1)
d = tempfile.mkdtemp()
a, b = [], []
for i in range(3):
    t0 = time.perf_counter()
    grotto.from_networkx(H, os.path.join(d, "a.grotto"))
    a.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    nx.write_edgelist(H, os.path.join(d, "b.el"), data=False)
    subprocess.run([G, "convert", os.path.join(d, "b.el"), os.path.join(d, "b.grotto"), "--undirected", "-q"], check=True)
    b.append(time.perf_counter() - t0)
    os.remove(os.path.join(d, "a.grotto")); os.remove(os.path.join(d, "b.grotto"))
print(f"1M edges: from_networkx median {statistics.median(a):.2f} s; write_edgelist + grotto convert median {statistics.median(b):.2f} s; ratio {statistics.median(b)/statistics.median(a):.1f}x")
