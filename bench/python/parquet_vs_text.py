"""Converting the same edges from Parquet and from text, interleaved, in
one run: medians of total, parse and build time (grotto convert --json).
Usage: python bench/python/parquet_vs_text.py EDGES.el EDGES.parquet [RUNS=3]
(make them with `grotto generate rmat --scale 22 -o r22.el` and pyarrow:
pq.write_table(csv.read_csv(...)) with int64 src, dst). GROTTO_BIN names
the binary."""
import json, os, statistics, subprocess, sys, tempfile

binary = os.environ.get("GROTTO_BIN", "target/release/grotto")
el, parquet = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
out = os.path.join(tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(el))), "g.grotto")
times = {"text": [], "parquet": []}
for _ in range(runs):
    for kind, src in (("text", el), ("parquet", parquet)):
        r = subprocess.run([binary, "convert", src, out, "--undirected", "--json"],
                           capture_output=True, text=True, check=True)
        t = json.loads(r.stdout)["timings"]
        times[kind].append((t["total_s"], t["parse_s"], t["build_s"]))
        os.remove(out)
for kind, ts in times.items():
    med = [statistics.median(x[i] for x in ts) for i in range(3)]
    print(f"{kind:8s} total {med[0]:.2f} s  parse {med[1]:.2f} s  build {med[2]:.2f} s  (runs: {[round(x[0], 2) for x in ts]})")
ratio = statistics.median(x[0] for x in times["text"]) / statistics.median(x[0] for x in times["parquet"])
print(f"text / parquet total: {ratio:.2f}x")
