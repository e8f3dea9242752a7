"""Triangles and clustering against networkx (and, for directed graphs,
LDBC Graphalytics' LCC definition written out here), in memory and with
a list budget small enough to force the out-of-core plan, through the
Python API and the networkx backend."""

import math

import networkx as nx
import numpy as np
import pytest

import grotto


def nx_graph(seed, n=300, m=2400, directed=False):
    G = nx.gnm_random_graph(n, m, seed=seed, directed=directed)
    # A clique and some isolated vertices, so counts are not all small.
    G.add_edges_from((a, b) for a in range(n, n + 8) for b in range(a + 1, n + 8))
    G.add_edge(n, 0)
    G.add_nodes_from(range(n + 8, n + 12))
    return G


def to_grotto(G, path, **kw):
    src, dst = zip(*G.edges())
    grotto.convert(
        (np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)),
        path,
        undirected=not G.is_directed(),
        reverse=G.is_directed(),
        vertices=list(G.nodes()),
        **kw,
    )
    return grotto.open(path)


def column(res, col):
    t = res.to_pandas()
    return dict(zip(t["id"].tolist(), t[col].tolist()))


@pytest.mark.parametrize("memory", [None, "2KiB"])
def test_undirected_against_networkx(tmp_path, memory):
    G = nx_graph(1)
    g = to_grotto(G, tmp_path / "g.grotto")
    tc = g.tc(per_vertex=True, memory=memory)
    assert column(tc, "triangles") == nx.triangles(G)
    assert tc.summary["triangles"] == sum(nx.triangles(G).values()) // 3
    if memory is not None:
        assert tc.summary["held_ranges"] > 1
    lcc = column(g.lcc(memory=memory), "lcc")
    want = nx.clustering(G)
    assert set(lcc) == set(want)
    for v, c in want.items():
        assert lcc[v] == pytest.approx(c, rel=1e-12, abs=1e-15), v
    total = g.tc(memory=memory)
    assert total.summary["triangles"] == tc.summary["triangles"]


def graphalytics_lcc(G):
    """LDBC Graphalytics' LCC of a directed graph: neighbours in either
    direction, arcs between them over d(d-1)."""
    out = {}
    for v in G:
        nb = (set(G.successors(v)) | set(G.predecessors(v))) - {v}
        d = len(nb)
        if d < 2:
            out[v] = 0.0
            continue
        arcs = sum(1 for a in nb for b in G.successors(a) if b in nb and b != a)
        out[v] = arcs / (d * (d - 1))
    return out


@pytest.mark.parametrize("memory", [None, "1KiB"])
def test_directed_lcc_is_graphalytics(tmp_path, memory):
    G = nx_graph(2, n=200, m=1600, directed=True)
    G.add_edges_from([(5, 6), (6, 5), (6, 7), (7, 5)])
    g = to_grotto(G, tmp_path / "d.grotto")
    got = column(g.lcc(memory=memory), "lcc")
    for v, c in graphalytics_lcc(G).items():
        assert got[v] == pytest.approx(c, rel=1e-12, abs=1e-15), v
    # Triangles of the underlying undirected graph.
    tc = g.tc(per_vertex=True, memory=memory)
    assert column(tc, "triangles") == nx.triangles(G.to_undirected())


def test_directed_without_reverse_is_refused(tmp_path):
    p = tmp_path / "e.el"
    p.write_text("0 1\n1 2\n2 0\n")
    grotto.convert(p, tmp_path / "d.grotto")
    g = grotto.open(tmp_path / "d.grotto")
    with pytest.raises(grotto.InputError, match="reverse=True"):
        g.lcc()


def test_networkx_backend(tmp_path):
    G = nx_graph(3)
    G.add_edge(4, 4)  # networkx ignores self loops here; so does grotto
    assert nx.triangles(G, backend="grotto") == nx.triangles(G)
    assert nx.triangles(G, 0, backend="grotto") == nx.triangles(G, 0)
    assert nx.triangles(G, [0, 1, 2], backend="grotto") == nx.triangles(G, [0, 1, 2])
    got = nx.clustering(G, backend="grotto")
    for v, c in nx.clustering(G).items():
        assert got[v] == pytest.approx(c, rel=1e-12, abs=1e-15)
    assert nx.clustering(G, 0, backend="grotto") == pytest.approx(nx.clustering(G, 0))
    assert nx.average_clustering(G, backend="grotto") == pytest.approx(nx.average_clustering(G))
    assert nx.transitivity(G, backend="grotto") == pytest.approx(nx.transitivity(G))
    assert nx.transitivity(nx.path_graph(4), backend="grotto") == 0
    # On a graph file too, whose self loop is kept: it is no neighbour.
    g = to_grotto(G, tmp_path / "t.grotto", keep_self_loops=True)
    assert nx.transitivity(g) == pytest.approx(nx.transitivity(G), rel=1e-12)
    assert g.tc(per_vertex=True).summary["connected_triples"] == sum(
        d * (d - 1) // 2 for d in (len(set(G[v]) - {v}) for v in G)
    )


@pytest.mark.parametrize("directed", [False, True])
def test_betweenness_against_networkx(tmp_path, directed):
    G = nx_graph(4, n=120, m=500, directed=directed)
    g = to_grotto(G, tmp_path / "b.grotto")
    for normalized in (False, True):
        for endpoints in (False, True):
            want = nx.betweenness_centrality(G, normalized=normalized, endpoints=endpoints)
            got = column(g.bc(normalized=normalized, endpoints=endpoints, verify=True), "betweenness")
            for v, x in want.items():
                assert got[v] == pytest.approx(x, rel=1e-9, abs=1e-12), (v, normalized, endpoints)
            via = nx.betweenness_centrality(G, normalized=normalized, endpoints=endpoints, backend="grotto")
            for v, x in want.items():
                assert via[v] == pytest.approx(x, rel=1e-9, abs=1e-12), (v, normalized, endpoints)
    # Sampled sources: networkx's draw for the seed, the same scores.
    for endpoints in (False, True):
        want = nx.betweenness_centrality(G, k=10, seed=7, endpoints=endpoints)
        got = nx.betweenness_centrality(G, k=10, seed=7, endpoints=endpoints, backend="grotto")
        for v, x in want.items():
            if math.isnan(x):
                assert math.isnan(got[v])
            else:
                assert got[v] == pytest.approx(x, rel=1e-9, abs=1e-12), v
    # GAP-style: one source, plain sums, verified.
    one = g.bc(0, verify=True)
    assert one.summary["sources"] == 1


def test_strong_components_against_networkx(tmp_path):
    G = nx.gnm_random_graph(400, 700, seed=5, directed=True)
    G.add_edges_from([(500, 501), (501, 502), (502, 500), (502, 503), (504, 504)])
    g = to_grotto(G, tmp_path / "s.grotto")
    res = g.scc(verify=True)
    want = {frozenset(c) for c in nx.strongly_connected_components(G)}
    got = {}
    for v, c in column(res, "component").items():
        got.setdefault(c, set()).add(v)
    assert {frozenset(s) for s in got.values()} == want
    # Each label is its component's smallest id.
    assert all(c == min(s) for c, s in got.items())
    assert res.summary["components"] == len(want)
    via = {frozenset(c) for c in nx.strongly_connected_components(G, backend="grotto")}
    assert via == want
    assert nx.number_strongly_connected_components(G, backend="grotto") == len(want)
    assert not nx.is_strongly_connected(G, backend="grotto")
    assert nx.is_strongly_connected(nx.cycle_graph(5, create_using=nx.DiGraph), backend="grotto")
