"""Parquet through the command line and the package, read and written by
pyarrow: edge tables in (a file in several row groups, a Spark-style
directory, other column names), results and exports out, bad tables
refused with nothing written."""

import json
import os
import subprocess

import networkx as nx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import grotto

GROTTO = os.environ.get("GROTTO_BIN", "target/release/grotto")
BIG = 5_000_000_000


def run(*args, code=0):
    out = subprocess.run([GROTTO, *map(str, args)], capture_output=True, text=True)
    assert out.returncode == code, out.stderr
    return out


@pytest.fixture(scope="module")
def edges():
    rng = np.random.default_rng(11)
    m = 4000
    src = rng.integers(0, 800, m) * 5 + BIG
    dst = rng.integers(0, 800, m) * 5 + BIG
    keep = src != dst
    t = pa.table({
        "src": pa.array(src[keep], pa.int64()),
        "dst": pa.array(dst[keep], pa.int64()),
        "weight": pa.array(rng.uniform(1, 2, m)[keep], pa.float64()),
    })
    return t


def nx_graph(t):
    h = nx.Graph()
    h.add_edges_from(zip(t.column("src").to_pylist(), t.column("dst").to_pylist()))
    return h


def test_convert_run_and_export_parquet(tmp_path, edges):
    src = tmp_path / "edges.parquet"
    pq.write_table(edges, src, row_group_size=900)
    g = tmp_path / "g.grotto"
    r = json.loads(run("convert", src, g, "--undirected", "--json").stdout)
    assert r["weighted"] and r["ids_compacted"] and "5 row groups" in r["input"]
    h = nx_graph(edges)
    assert (r["vertices"], r["edges"]) == (h.number_of_nodes(), h.number_of_edges())

    out = tmp_path / "ranks.parquet"
    run("run", "pagerank", g, "--tolerance", "1e-10", "--max-iterations", "500", "--out", out, "-q")
    res = pq.read_table(out)
    assert res.column_names == ["id", "score"]
    assert res.schema.field("id").type == pa.int64()  # Spark's long
    got = dict(zip(res.column("id").to_pylist(), res.column("score").to_pylist()))
    want = nx.pagerank(h, tol=1e-13, max_iter=2000, weight=None)
    assert sum(abs(got[v] - want[v]) for v in want) < 1e-6

    exp = tmp_path / "exported.parquet"
    run("export", g, "--format", "parquet", "-o", exp, "-q")
    e = pq.read_table(exp)
    assert e.column_names == ["src", "dst", "weight"] and e.num_rows == h.number_of_edges()
    assert e.schema.field("src").type == pa.int64()  # Spark's long
    back = {frozenset(p) for p in zip(e.column("src").to_pylist(), e.column("dst").to_pylist())}
    assert back == {frozenset(p) for p in h.edges()}


def test_a_spark_style_directory_and_other_column_names(tmp_path, edges):
    d = tmp_path / "part"
    d.mkdir()
    t = edges.rename_columns(["a", "b", "w"])
    half = t.num_rows // 2
    pq.write_table(t.slice(0, half), d / "part-00000.snappy.parquet")
    pq.write_table(t.slice(half), d / "part-00001.snappy.parquet", compression="zstd")
    (d / "_SUCCESS").write_text("")
    g = tmp_path / "d.grotto"
    r = json.loads(run("convert", d, g, "--undirected", "--columns", "a,b,w", "--json").stdout)
    assert r["weighted"] and "2 files" in r["input"]
    assert r["edges"] == nx_graph(edges).number_of_edges()
    # The same through the package.
    rep = grotto.convert(d, tmp_path / "py.grotto", undirected=True, columns=("a", "b", "w"))
    assert rep["edges"] == r["edges"]
    run("convert", d, tmp_path / "x.grotto", "--columns", "a,nosuch", code=2)
    assert not (tmp_path / "x.grotto").exists()


@pytest.mark.parametrize(
    "table, message",
    [
        (pa.table({"src": pa.array([1, None, 3], pa.int64()), "dst": [2, 3, 4]}), "row 1 has no \"src\""),
        (pa.table({"src": [1, -2], "dst": [2, 3]}), "row 1 has src -2"),
        (pa.table({"src": ["a", "b"], "dst": [2, 3]}), "both id columns"),
        (pa.table({"src": ["a", None], "dst": ["b", "c"]}), "row 1 has no \"src\""),
        (pa.table({"from": [1], "to": [2]}), "no column \"src\""),
        (pa.table({"src": [1.5], "dst": [2.0]}), "vertex ids must be integers or strings"),
    ],
)
def test_bad_tables_exit_2_and_write_nothing(tmp_path, table, message):
    src = tmp_path / "bad.parquet"
    pq.write_table(table, src)
    r = run("convert", src, tmp_path / "bad.grotto", code=2)
    assert message in r.stderr and "bad.parquet" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["bad.parquet"]


def test_string_id_table_with_listed_vertex_names(tmp_path):
    """Names listed with vertices= join a Parquet table's string ids: a
    vertex on no edge is a vertex, and the others keep their edges."""
    src = tmp_path / "named.parquet"
    pq.write_table(pa.table({"src": ["a", "b"], "dst": ["b", "c"]}), src)
    r = grotto.convert(src, tmp_path / "g.grotto", vertices=["lonely", "a"], undirected=True)
    assert (r["vertices"], r["edges"]) == (4, 2)
    cc = grotto.open(tmp_path / "g.grotto").wcc()
    comp = dict(zip(cc["id"].tolist(), cc["component"].tolist()))
    assert comp["a"] == comp["b"] == comp["c"] != comp["lonely"]
    ints = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"src": [1], "dst": [2]}), ints)
    with pytest.raises(grotto.InputError, match="names in the edges"):
        grotto.convert(ints, tmp_path / "h.grotto", vertices=["x"])
    assert not (tmp_path / "h.grotto").exists()


def test_ids_beyond_a_signed_long_stay_unsigned(tmp_path):
    """Ids of 2**63 and more have no signed 64-bit type: results and
    exports keep them unsigned (Spark reads them as decimals) rather than
    wrap them."""
    huge = 2**63 + 5
    src = tmp_path / "huge.parquet"
    pq.write_table(pa.table({"src": pa.array([huge, 1], pa.uint64()),
                             "dst": pa.array([1, 2], pa.uint64())}), src)
    g = tmp_path / "g.grotto"
    run("convert", src, g, "--undirected", "-q")
    out = tmp_path / "cc.parquet"
    run("run", "wcc", g, "--out", out, "-q")
    t = pq.read_table(out)
    assert t.schema.field("id").type == pa.uint64()
    assert sorted(t.column("id").to_pylist()) == [1, 2, huge]
    exp = tmp_path / "e.parquet"
    run("export", g, "--format", "parquet", "-o", exp, "-q")
    e = pq.read_table(exp)
    assert e.schema.field("src").type == pa.uint64()
    assert huge in e.column("src").to_pylist() + e.column("dst").to_pylist()
