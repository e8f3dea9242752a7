"""String vertex ids: pandas, Arrow, Parquet and text with names become
graphs whose results, arguments and exports use the names; checked
against networkx on the same string-labelled graph."""

import json
import os
import subprocess

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import grotto

GROTTO = os.environ.get("GROTTO_BIN", "target/release/grotto")

# Names that need care: non-ASCII, a comma, a quote, a space, digits only
# (a name, not a number), and one that sorts before the others.
ODD = ["Zoë", "a,b", 'say "hi"', "two words", "007", "Ärger", "!", "日本"]


def run(*args, code=0):
    out = subprocess.run([GROTTO, *map(str, args)], capture_output=True, text=True)
    assert out.returncode == code, out.stderr
    return out


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(3)
    names = ODD + [f"user{i}" for i in range(300)]
    m = 1200
    s = rng.integers(0, len(names), m)
    d = rng.integers(0, len(names), m)
    keep = s != d
    df = pd.DataFrame({
        "src": [names[i] for i in s[keep]],
        "dst": [names[i] for i in d[keep]],
        "weight": rng.integers(1, 9, int(keep.sum())).astype(np.float64),
    })
    # A second component made of odd names only.
    df.loc[len(df)] = ["isolated-a", "isolated-b", 1.0]
    return df


def nx_of(df):
    h = nx.Graph()
    for s, d, w in zip(df.src, df.dst, df.weight):
        h.add_edge(s, d, weight=w)
    return h


def test_dataframe_names_through_every_result(tmp_path, frame):
    path = tmp_path / "g.grotto"
    r = grotto.convert(frame, path, undirected=True)
    assert r["names"] and not r["ids_compacted"]
    g = grotto.open(path)
    h = nx_of(frame)
    assert g.has_names and (g.num_vertices, g.num_edges) == (h.number_of_nodes(), h.number_of_edges())
    assert g.degree("a,b") == h.degree("a,b")
    assert list(g.degrees(["Zoë", "日本"])) == [h.degree("Zoë"), h.degree("日本")]
    assert list(g.degree(["Zoë", "日本"])) == list(h.degree(["Zoë", "日本"]))
    assert sorted(g.neighbors("two words")) == sorted(h.neighbors("two words"))

    bfs = g.bfs("Zoë", verify=True)
    depth = nx.single_source_shortest_path_length(h, "Zoë")
    t = bfs.to_arrow()
    assert t.schema.field("id").type == pa.large_string()
    got = dict(zip(t.column("id").to_pylist(), t.column("depth").to_pylist()))
    assert got == {v: depth.get(v, -1) for v in h.nodes}
    parents = dict(zip(t.column("id").to_pylist(), t.column("parent").to_pylist()))
    assert parents["isolated-a"] is None  # unreached: a null, not a string
    assert all(p is None or depth[p] == depth[v] - 1 for v, p in parents.items() if v != "Zoë")

    comp = g.wcc(verify=True).to_pandas()
    want = {v: min(c) for c in nx.connected_components(h) for v in c}
    assert dict(zip(comp["id"], comp["component"])) == want

    core = g.coreness().to_pandas()
    assert dict(zip(core["id"], core["core"])) == nx.core_number(h)

    pr = g.pagerank(tolerance=1e-12, max_iterations=500).to_pandas()
    want = nx.pagerank(h, weight=None, tol=1e-13, max_iter=1000)
    assert max(abs(x - want[v]) for v, x in zip(pr["id"], pr["score"])) < 1e-8

    # NumPy access gives objects: str, or None for no vertex.
    arr = bfs["parent"]
    assert arr.dtype == object and arr[list(bfs["id"]).index("isolated-b")] is None
    with pytest.raises(grotto.InputError, match="no vertex with that name"):
        g.bfs("nobody")
    with pytest.raises(grotto.InputError, match='vertex "nobody" is not in the graph'):
        g.degree("nobody")


def test_parquet_and_arrow_string_columns(tmp_path, frame):
    h = nx_of(frame)
    want = {v: min(c) for c in nx.connected_components(h) for v in c}
    tables = {
        "utf8": pa.table({"src": pa.array(frame.src, pa.string()), "dst": pa.array(frame.dst, pa.string())}),
        "large": pa.table({"src": pa.array(frame.src, pa.large_string()),
                           "dst": pa.array(frame.dst, pa.large_string())}),
        "dict": pa.table({"src": pa.array(frame.src).dictionary_encode(),
                          "dst": pa.array(frame.dst).dictionary_encode()}),
    }
    for kind, t in tables.items():
        src = tmp_path / f"{kind}.parquet"
        pq.write_table(t, src, row_group_size=300)
        for i, source in enumerate([str(src), t, t.to_reader(max_chunksize=200)]):
            if kind == "dict" and i > 0:
                continue  # in-memory dictionary arrays are read as their values
            out = tmp_path / f"{kind}{i}.grotto"
            assert grotto.convert(source, out, undirected=True)["names"]
            comp = grotto.open(out).wcc().to_pandas()
            assert dict(zip(comp["id"], comp["component"])) == want, (kind, i)

    # The command line writes names to CSV (quoted where needed) and Parquet.
    g = tmp_path / "utf80.grotto"
    csv = tmp_path / "wcc.csv"
    run("run", "wcc", g, "--out", csv, "-q")
    back = pd.read_csv(csv, keep_default_na=False, dtype=str)
    assert dict(zip(back["id"], back["component"])) == want
    res = tmp_path / "wcc.parquet"
    run("run", "wcc", g, "--out", res, "-q")
    t = pq.read_table(res)
    assert t.schema.field("id").type == pa.string()
    assert dict(zip(t.column("id").to_pylist(), t.column("component").to_pylist())) == want
    exp = tmp_path / "edges.parquet"
    run("export", g, "--format", "parquet", "-o", exp)
    e = pq.read_table(exp)
    assert e.schema.field("src").type == pa.string()
    assert nx.utils.graphs_equal(nx.Graph(list(zip(e.column("src").to_pylist(), e.column("dst").to_pylist()))),
                                 nx.Graph(list(h.edges())))
    # A text edge list cannot hold "two words": refused, nothing written.
    el = tmp_path / "back.el"
    assert "export --format parquet" in run("export", g, "-o", el, code=2).stderr
    assert not el.exists()


def test_text_names_and_weights(tmp_path, frame):
    simple = frame[~frame.src.isin(ODD) & ~frame.dst.isin(ODD)]
    el = tmp_path / "names.el"
    el.write_text("".join(f"{s}\t{d}\t{w}\n" for s, d, w in zip(simple.src, simple.dst, simple.weight)))
    out = tmp_path / "t.grotto"
    r = grotto.convert(el, out, undirected=True, weighted=True, ids="string")
    assert r["names"] and r["weighted"]
    h = nx_of(simple)
    src = min(h.nodes)
    dist = grotto.open(out).sssp(src, verify=True).to_pandas()
    want = nx.single_source_dijkstra_path_length(h, src)
    got = dict(zip(dist["id"], dist["distance"]))
    assert got.keys() == set(h.nodes)
    assert all(abs(got[v] - want[v]) < 1e-6 for v in want)


@pytest.mark.parametrize("case", ["mixed", "null", "bytes", "int-and-str", "parquet-mixed"])
def test_bad_string_columns_are_refused_with_nothing_written(tmp_path, case):
    out = tmp_path / "bad.grotto"
    if case == "mixed":
        source, match = pd.DataFrame({"src": ["a", 5], "dst": ["b", "c"]}), "row 1 has 5"
    elif case == "null":
        source, match = pd.DataFrame({"src": ["a", None], "dst": ["b", "c"]}), "null"
    elif case == "bytes":
        source, match = (np.array([b"a"]), np.array([b"b"])), "bytes"
    elif case == "int-and-str":
        source, match = pd.DataFrame({"src": ["a", "b"], "dst": [1, 2]}), "strings"
    else:
        p = tmp_path / "m.parquet"
        pq.write_table(pa.table({"src": ["a", "b"], "dst": [1, 2]}), p)
        source, match = p, "both id columns"
    with pytest.raises(grotto.InputError, match=match):
        grotto.convert(source, out)
    assert not out.exists()
    assert os.listdir(tmp_path) in ([], ["m.parquet"])


def test_integer_graphs_refuse_names(tmp_path):
    out = tmp_path / "i.grotto"
    grotto.convert(pd.DataFrame({"src": [1, 2], "dst": [2, 3]}), out)
    g = grotto.open(out)
    assert not g.has_names
    with pytest.raises(grotto.InputError, match="integers"):
        g.neighbors("alice")
    with pytest.raises(grotto.InputError, match="no vertex names"):
        g.bfs("alice")
    info = g.info()
    assert info["names_bytes"] is None and json.dumps(info)


def test_csv_with_a_header_from_pandas(tmp_path, frame):
    """pandas.to_csv quotes names with commas and quotes; grotto reads the
    columns by name, skips the others, and keeps the names."""
    df = frame.assign(note="x, y", rank=range(len(frame)))[["rank", "dst", "note", "src", "weight"]]
    path = tmp_path / "edges.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "csv.grotto"
    r = grotto.convert(path, out, format="csv", ids="string", undirected=True)
    assert r["names"] and r["weighted"] and "header on line 1" in r["format_evidence"]
    h = nx_of(frame)
    comp = grotto.open(out).wcc().to_pandas()
    assert dict(zip(comp["id"], comp["component"])) == {v: min(c) for c in nx.connected_components(h) for v in c}
    # Integer ids from a CSV with other column names.
    ints = pd.DataFrame({"a": [5, 6, 7], "b": [6, 7, 5], "w": [1.5, 2.5, 3.5]})
    ints.to_csv(tmp_path / "i.csv", index=False)
    r = grotto.convert(tmp_path / "i.csv", tmp_path / "i.grotto", format="csv", columns=("a", "b", "w"))
    assert r["weighted"] and r["edges"] == 3
    g = grotto.open(tmp_path / "i.grotto")
    assert list(g.neighbors(5, weights=True)[1]) == [1.5]
    with pytest.raises(grotto.InputError, match="no column 'src'|no column \"src\""):
        grotto.convert(tmp_path / "i.csv", tmp_path / "x.grotto", format="csv")
    assert not (tmp_path / "x.grotto").exists()
