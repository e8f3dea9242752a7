"""Vertices exactly as the user gave them: an id that occurs in no edge
and is not listed is no vertex, whatever the input (pandas, Arrow,
Parquet, NumPy, text) and wherever the gaps in the ids fall. Results
then agree with networkx on the same edges, PageRank to 1e-6."""

import os

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import grotto


def rmat_like(seed, scale=14, m=40000):
    """Skewed ids up to 2**scale - 1, most of which never occur."""
    rng = np.random.default_rng(seed)
    bits = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    src, dst = bits
    for b in range(scale):
        r = rng.random(m)
        src |= ((r > 0.75) | ((r > 0.57) & (r <= 0.76))).astype(np.int64) << b
        dst |= ((r > 0.57) & (r <= 0.76) | (r > 0.95)).astype(np.int64) << b
    keep = src != dst
    return src[keep], dst[keep]


def scores(res, col):
    t = res.to_pandas()
    return dict(zip(t["id"].tolist(), t[col].tolist()))


def inputs(tmp_path, src, dst):
    df = pd.DataFrame({"src": src, "dst": dst})
    pq_path = tmp_path / "e.parquet"
    pq.write_table(pa.Table.from_pandas(df), pq_path)
    txt = tmp_path / "e.el"
    txt.write_text("".join(f"{a} {b}\n" for a, b in zip(src.tolist(), dst.tolist())))
    return {
        "pandas": df,
        "arrow": pa.Table.from_pandas(df),
        "numpy": (src.astype(np.uint64), dst.astype(np.uint64)),
        "parquet": os.fspath(pq_path),
        "text": os.fspath(txt),
    }


@pytest.mark.parametrize("kind", ["pandas", "arrow", "numpy", "parquet", "text"])
def test_pagerank_of_sparse_ids_matches_networkx(tmp_path, kind):
    src, dst = rmat_like(3)
    ref = nx.DiGraph()
    ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    assert ref.number_of_nodes() < max(ref.nodes) + 1 - 1000, "the ids need gaps"
    path = tmp_path / "g.grotto"
    grotto.convert(inputs(tmp_path, src, dst)[kind], path)
    g = grotto.open(path)
    assert g.num_vertices == ref.number_of_nodes()
    got = scores(g.pagerank(tolerance=1e-10), "score")
    assert set(got) == set(ref.nodes)
    want = nx.pagerank(ref, tol=1e-12)
    l1 = sum(abs(got[v] - want[v]) for v in want)
    assert l1 < 1e-6, l1
    # Components: one per weak component of the edges, no lone ghosts.
    comp = scores(g.wcc(), "component")
    assert len(set(comp.values())) == nx.number_weakly_connected_components(ref)


def test_gaps_inside_and_at_the_end_and_listed_isolated_vertices(tmp_path):
    src = np.array([0, 1, 5, 9, 9], dtype=np.int64)
    dst = np.array([1, 5, 9, 12, 0], dtype=np.int64)
    ref = nx.Graph()
    ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    ref.add_nodes_from([3, 40])
    path = tmp_path / "g.grotto"
    grotto.convert(pd.DataFrame({"src": src, "dst": dst}), path, undirected=True,
                   vertices=[3, 40, 5])
    g = grotto.open(path)
    assert g.num_vertices == ref.number_of_nodes() == 7
    depth = scores(g.bfs(0), "depth")
    want = nx.single_source_shortest_path_length(ref, 0)
    assert set(depth) == set(ref.nodes)
    assert all(depth[v] == want.get(v, -1) for v in ref.nodes)
    cores = scores(g.coreness(), "core")
    assert cores == nx.core_number(ref)
    comp = scores(g.wcc(), "component")
    assert comp[3] == 3 and comp[40] == 40
    assert len(set(comp.values())) == nx.number_connected_components(ref)
    pr = scores(g.pagerank(tolerance=1e-12, max_iterations=2000), "score")
    want = nx.pagerank(ref, tol=1e-14, max_iter=2000)
    assert sum(abs(pr[v] - want[v]) for v in want) < 1e-6
    # An id given nowhere is refused as a source, with its name.
    with pytest.raises(grotto.Error, match="7"):
        g.bfs(7)
    # A vertex count is the dense range, as GAP and igraph mean it.
    grotto.convert(pd.DataFrame({"src": src, "dst": dst}), path, undirected=True, vertices=50)
    assert grotto.open(path).num_vertices == 50


def test_bad_vertex_lists_are_refused(tmp_path):
    df = pd.DataFrame({"src": [0, 1], "dst": [1, 2]})
    path = tmp_path / "g.grotto"
    with pytest.raises(grotto.InputError, match="non-negative"):
        grotto.convert(df, path, vertices=[-1, 4])
    with pytest.raises(grotto.InputError, match="integer vertex ids"):
        grotto.convert(df, path, vertices=[0.5])
    with pytest.raises(grotto.InputError, match="bool"):
        grotto.convert(df, path, vertices=True)
    assert not path.exists()


def test_listed_names_are_vertices(tmp_path):
    # A graph of names takes listed names as vertices, isolated ones
    # included, from a DataFrame and from a text file with ids="string".
    df = pd.DataFrame({"src": ["ann", "bob"], "dst": ["bob", "cy"]})
    txt = tmp_path / "e.el"
    txt.write_text("ann bob\nbob cy\n")
    ref = nx.Graph([("ann", "bob"), ("bob", "cy")])
    ref.add_nodes_from(["zed", "al"])
    for source, kw in ((df, {}), (os.fspath(txt), {"ids": "string"})):
        path = tmp_path / "n.grotto"
        grotto.convert(source, path, undirected=True, vertices=["zed", "ann", "al", "zed"], **kw)
        g = grotto.open(path)
        assert g.num_vertices == 5
        comp = g.wcc().to_pandas()
        want = {v: min(c) for c in nx.connected_components(ref) for v in c}
        assert dict(zip(comp["id"], comp["component"])) == want
        pr = g.pagerank(tolerance=1e-12, max_iterations=2000).to_pandas()
        want = nx.pagerank(ref, tol=1e-13, max_iter=2000)
        assert max(abs(x - want[v]) for v, x in zip(pr["id"], pr["score"])) < 1e-8
    # Names with integer edges, or mixed lists, are refused.
    with pytest.raises(grotto.InputError, match="integer ids"):
        grotto.convert(pd.DataFrame({"src": [0], "dst": [1]}), tmp_path / "x.grotto", vertices=["a"])
    with pytest.raises(grotto.InputError, match="all ids"):
        grotto.convert(df, tmp_path / "x.grotto", vertices=["a", 3])
    assert not (tmp_path / "x.grotto").exists()
