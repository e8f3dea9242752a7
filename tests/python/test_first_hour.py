"""What a newcomer types in the first hour, and what grotto must answer:
column names given the way the command line takes them, networkx's
weighted PageRank through the backend, and errors in Python's words
(keyword arguments, not command-line flags)."""

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import grotto


def collab():
    return pd.DataFrame({"source": [1, 2, 3, 4, 1], "target": [2, 3, 4, 1, 3], "w": [1.0, 2.0, 3.0, 4.0, 5.0]})


@pytest.mark.parametrize(
    "columns", [["source", "target"], ("source", "target"), "source,target", "source, target"]
)
def test_two_column_names_in_any_spelling(tmp_path, columns):
    out = tmp_path / "c.grotto"
    report = grotto.convert(collab(), out, undirected=True, columns=columns)
    assert (report["vertices"], report["edges"]) == (4, 5)
    assert not grotto.open(out).weighted


@pytest.mark.parametrize("columns", [("source", "target", "w"), "source,target,w"])
def test_three_column_names_read_the_weights(tmp_path, columns):
    out = tmp_path / "c.grotto"
    grotto.convert(collab(), out, undirected=True, columns=columns)
    g = grotto.open(out)
    assert g.weighted
    ids, w = g.neighbors(1, weights=True)
    assert dict(zip(ids, w.tolist())) == {2: 1.0, 3: 5.0, 4: 4.0}


def test_column_names_given_to_a_parquet_file_and_to_update(tmp_path):
    pq.write_table(pa.Table.from_pandas(collab()), tmp_path / "e.parquet")
    out = tmp_path / "c.grotto"
    grotto.convert(tmp_path / "e.parquet", out, undirected=True, columns="source,target")
    assert grotto.open(out).num_edges == 5
    more = pd.DataFrame({"source": [4], "target": [2]})
    report = grotto.update(out, insert=more, columns=["source", "target"])
    assert report["inserted"] == 1


@pytest.mark.parametrize("columns", [["source"], ("a", "b", "c", "d"), "source", 7, ("source", "")])
def test_malformed_column_names_say_how_to_name_them(tmp_path, columns):
    with pytest.raises(grotto.InputError, match=r"columns=.*\(src, dst\)"):
        grotto.convert(collab(), tmp_path / "c.grotto", columns=columns)
    assert not (tmp_path / "c.grotto").exists()


@pytest.mark.parametrize("kind", ["pandas", "arrow", "dict", "parquet"])
def test_a_missing_column_names_columns_not_a_flag(tmp_path, kind):
    df = collab()
    source = {"pandas": df, "arrow": pa.Table.from_pandas(df), "dict": dict(df), "parquet": tmp_path / "e.parquet"}[kind]
    if kind == "parquet":
        pq.write_table(pa.Table.from_pandas(df), source)
    with pytest.raises(grotto.InputError) as e:
        grotto.convert(source, tmp_path / "c.grotto")
    assert "columns=" in str(e.value) and "--" not in str(e.value), str(e.value)


def test_networkx_pagerank_on_a_weighted_graph_runs_in_grotto_and_agrees():
    nx.config.warnings_to_ignore.add("cache")
    G = nx.karate_club_graph()  # every edge has a "weight"
    got = nx.pagerank(G, backend="grotto")
    want = nx.pagerank(G, tol=1e-10)
    assert max(abs(got[v] - want[v]) for v in G) < 1e-6
    # The weights matter on this graph: the unweighted scores differ.
    plain = nx.pagerank(G, weight=None, tol=1e-10)
    assert max(abs(got[v] - plain[v]) for v in G) > 1e-3
    got = nx.pagerank(G, weight=None, backend="grotto")
    assert max(abs(got[v] - plain[v]) for v in G) < 1e-6


def test_weighted_pagerank_of_a_directed_graph_matches_networkx(tmp_path):
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 200, 1500), rng.integers(0, 200, 1500)
    keep = src != dst
    df = pd.DataFrame({"src": src[keep], "dst": dst[keep]}).drop_duplicates()
    df["weight"] = rng.uniform(0.0, 5.0, len(df)).astype(np.float32)
    df.loc[df.index[:40], "weight"] = 0.0  # some vertices' out-weights sum to 0: they dangle
    grotto.convert(df, tmp_path / "d.grotto", reverse=True)
    g = grotto.open(tmp_path / "d.grotto")
    res = g.pagerank(weighted=True, tolerance=1e-10)
    assert res.engine == "async"
    G = nx.DiGraph()
    G.add_weighted_edges_from(zip(df.src.tolist(), df.dst.tolist(), df.weight.astype(float).tolist()))
    want = nx.pagerank(G, tol=1e-12, max_iter=1000)
    got = dict(zip(res["id"].tolist(), res["score"].tolist()))
    assert max(abs(got[v] - want[v]) for v in G) < 1e-6
    with pytest.raises(grotto.InputError, match="asynchronous engine"):
        g.pagerank(weighted=True, engine="sync")


def test_errors_speak_python_not_the_command_line(tmp_path):
    grotto.convert([(0, 1), (1, 2)], tmp_path / "d.grotto")
    g = grotto.open(tmp_path / "d.grotto")
    cases = [
        (lambda: g.bfs(999), ["source=999", "no vertex with that id"]),
        (lambda: g.bfs("x"), ['source="x"']),
        (lambda: g.kcore(2), ["reverse=True"]),
        (lambda: g.pagerank(damping=2.0), ["damping=2"]),
        (lambda: g.pagerank(weighted=True), ["weighted=True"]),
        (lambda: g.run("bfs", engine="async", mode="vertex"), ["mode"]),
        (lambda: g.cdlp(), ["reverse=True"]),
    ]
    for call, words in cases:
        with pytest.raises(grotto.Error) as e:
            call()
        msg = str(e.value)
        assert "--" not in msg, msg
        for w in words:
            assert w in msg, (w, msg)


def test_a_text_file_opened_as_a_graph_points_to_convert(tmp_path):
    (tmp_path / "edges.txt").write_text("0 1\n1 2\n")
    with pytest.raises(grotto.CorruptGraphError) as e:
        grotto.open(tmp_path / "edges.txt")
    assert "grotto.convert(" in str(e.value) and "--" not in str(e.value), str(e.value)


def test_a_header_row_hint_names_format_and_columns(tmp_path):
    (tmp_path / "collab.csv").write_text("source,target\n1,2\n2,3\n")
    with pytest.raises(grotto.InputError) as e:
        grotto.convert(tmp_path / "collab.csv", tmp_path / "c.grotto", undirected=True)
    msg = str(e.value)
    assert 'format="csv"' in msg and "columns=(src, dst)" in msg and "--" not in msg, msg


def test_names_with_missing_parents_are_pandas_missing_values(tmp_path):
    # docs/python.md shows what this prints.
    people = pd.DataFrame({"src": ["ann", "bob", "cy", "dee"], "dst": ["bob", "cy", "ann", "eve"]})
    grotto.convert(people, tmp_path / "p.grotto", undirected=True)
    res = grotto.open(tmp_path / "p.grotto").bfs("ann")
    out = res.to_pandas()
    assert out["parent"][:3].tolist() == ["ann", "ann", "ann"]
    assert out["parent"][3:].isna().all(), out
    # NumPy and Arrow hold None and nulls.
    assert res["parent"].tolist()[3:] == [None, None]
    assert res.to_arrow().column("parent").null_count == 2
