"""Shortest paths against networkx, which nobody here wrote: random, grid
and R-MAT-like graphs, weighted and not, directed and undirected,
unreachable targets and source = target, on graph files and on networkx
graphs through the backend; networkx's exceptions; Python ints out."""

import random

import networkx as nx
import numpy as np
import pytest

import grotto


def to_file(G, path, weight=None, **kw):
    grotto.from_networkx(G, path, weight=weight, **kw)
    return grotto.open(path)


def weighted(G, seed):
    """G with whole-number weights 1 to 9 and every adjacency list in node
    order (networkx's BFS order then is a graph file's)."""
    rng = random.Random(seed)
    H = G.__class__()
    H.add_nodes_from(sorted(G))
    edges = sorted((min(u, v), max(u, v)) if not G.is_directed() else (u, v) for u, v in G.edges())
    H.add_weighted_edges_from((u, v, rng.randint(1, 9)) for u, v in edges)
    return H


def graphs():
    yield "gnp", weighted(nx.gnp_random_graph(300, 0.012, seed=3), 1)
    yield "gnp-d", weighted(nx.gnp_random_graph(300, 0.01, seed=4, directed=True), 2)
    yield "grid", weighted(nx.convert_node_labels_to_integers(nx.grid_2d_graph(15, 20)), 3)
    H = nx.Graph(nx.powerlaw_cluster_graph(400, 3, 0.1, seed=5))
    H.add_nodes_from(range(400, 410))  # isolated: unreachable
    yield "powerlaw", weighted(H, 4)


def pairs(G, k, seed):
    rng = random.Random(seed)
    nodes = list(G)
    out = [(rng.choice(nodes), rng.choice(nodes)) for _ in range(k)]
    return out + [(nodes[0], nodes[0])]


def is_shortest(G, path, s, t, weight):
    assert path[0] == s and path[-1] == t
    assert nx.is_path(G, path)
    return nx.path_weight(G, path, weight) if weight else len(path) - 1


@pytest.mark.parametrize("name,G", list(graphs()), ids=lambda x: x if isinstance(x, str) else "")
def test_paths_on_a_graph_file_match_networkx(tmp_path, name, G):
    g = to_file(G, str(tmp_path / f"{name}.grotto"), weight="weight")
    for s, t in pairs(G, 12, 7):
        for weight in (None, "weight"):
            if not nx.has_path(G, s, t):
                with pytest.raises(grotto.NoPathError):
                    g.shortest_path(s, t, weight=weight)
                with pytest.raises(nx.NetworkXNoPath):
                    nx.shortest_path(g, s, t, weight=weight)
                assert not nx.has_path(g, s, t)
                continue
            want = nx.shortest_path_length(G, s, t, weight=weight)
            p = g.shortest_path(s, t, weight=weight)
            assert all(type(v) is int for v in p)
            assert is_shortest(G, p, s, t, weight) == want == p.length
            assert p.distances[0] == 0 and p.distances[-1] == want
            q = nx.shortest_path(g, s, t, weight=weight)
            assert is_shortest(G, q, s, t, weight) == want
            assert nx.shortest_path_length(g, s, t, weight=weight) == want
            assert nx.has_path(g, s, t)
        want = nx.dijkstra_path_length(G, s, t) if nx.has_path(G, s, t) else None
        if want is not None:
            assert nx.dijkstra_path_length(g, s, t) == want
            length, path = nx.bidirectional_dijkstra(g, s, t)
            assert length == want and is_shortest(G, path, s, t, "weight") == want
            assert is_shortest(G, nx.dijkstra_path(g, s, t), s, t, "weight") == want
            length, path = nx.single_source_dijkstra(g, s, t)
            assert length == want and is_shortest(G, path, s, t, "weight") == want


@pytest.mark.parametrize("name,G", list(graphs()), ids=lambda x: x if isinstance(x, str) else "")
def test_the_backend_on_networkx_graphs(name, G):
    for s, t in pairs(G, 6, 9):
        if not nx.has_path(G, s, t):
            with pytest.raises(nx.NetworkXNoPath):
                nx.bidirectional_shortest_path(G, s, t, backend="grotto")
            with pytest.raises(nx.NetworkXNoPath):
                nx.dijkstra_path(G, s, t, backend="grotto")
            assert not nx.has_path(G, s, t, backend="grotto")
            continue
        want = nx.shortest_path_length(G, s, t)
        p = nx.bidirectional_shortest_path(G, s, t, backend="grotto")
        assert is_shortest(G, p, s, t, None) == want
        want = nx.dijkstra_path_length(G, s, t)
        assert nx.dijkstra_path_length(G, s, t, backend="grotto") == want
        assert type(nx.dijkstra_path_length(G, s, t, backend="grotto")) is int
        length, p = nx.bidirectional_dijkstra(G, s, t, backend="grotto")
        assert length == want and is_shortest(G, p, s, t, "weight") == want


@pytest.mark.parametrize("name,G", list(graphs()), ids=lambda x: x if isinstance(x, str) else "")
def test_single_source_paths_are_networkx_s(tmp_path, name, G):
    s = next(iter(G))
    want = nx.single_source_shortest_path(G, s)
    # networkx's own BFS tree: the same paths, in the same order.
    got = nx.single_source_shortest_path(G, s, backend="grotto")
    assert list(got) == list(want) and got == want
    assert nx.shortest_path(G, s, backend="grotto") == want
    lengths, paths = nx.single_source_dijkstra(G, s, backend="grotto")
    wl, _ = nx.single_source_dijkstra(G, s)
    assert lengths == wl
    for v, p in paths.items():
        assert is_shortest(G, p, s, v, "weight") == wl[v]
    g = to_file(G, str(tmp_path / f"{name}.grotto"), weight="weight")
    got = nx.single_source_shortest_path(g, s)
    assert set(got) == set(want)
    assert all(len(got[v]) == len(want[v]) and nx.is_path(G, got[v]) for v in want)
    assert nx.single_source_shortest_path(g, s, cutoff=2) == {
        v: p for v, p in got.items() if len(p) <= 3}


def test_exceptions_are_networkx_s(tmp_path):
    G = nx.path_graph(5)
    G.add_node(9)
    g = to_file(G, str(tmp_path / "p.grotto"))
    for H in (g, G):
        kw = {} if H is g else {"backend": "grotto"}
        with pytest.raises(nx.NodeNotFound, match="Source 77"):
            nx.bidirectional_shortest_path(H, 77, 0, **kw)
        with pytest.raises(nx.NodeNotFound, match="Target 77"):
            nx.bidirectional_shortest_path(H, 0, 77, **kw)
        with pytest.raises(nx.NodeNotFound):
            nx.dijkstra_path(H, 77, 0, **kw)
        with pytest.raises(nx.NodeNotFound):
            nx.has_path(H, 0, 77, **kw)
        with pytest.raises(nx.NetworkXNoPath, match="No path between 0 and 9"):
            nx.bidirectional_shortest_path(H, 0, 9, **kw)
        assert nx.shortest_path(H, 2, 2, **kw) == [2]
        assert nx.dijkstra_path_length(H, 3, 3, **kw) == 0
        assert nx.bidirectional_dijkstra(H, 0, 4, **kw) == (4, [0, 1, 2, 3, 4])
    with pytest.raises(grotto.NoPathError):
        g.shortest_path(0, 9)
    with pytest.raises(grotto.InputError, match="77"):
        g.shortest_path(0, 77)


def test_names_and_directions(tmp_path):
    D = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")])
    g = to_file(D, str(tmp_path / "d.grotto"))
    assert g.shortest_path("a", "d") == ["a", "d"]
    assert g.shortest_path("b", "d") == ["b", "c", "d"]
    with pytest.raises(grotto.NoPathError):
        g.shortest_path("d", "a")
    assert nx.shortest_path(g, "b", "d") == ["b", "c", "d"]
    r = g.run("path", source="b", target="d")
    assert r.summary["hops"] == 2 and len(r) == 3
    assert r.to_pandas()["vertex"].tolist() == ["b", "c", "d"]


def test_a_cached_conversion_without_weights_is_not_used_for_weighted_calls():
    # k_core asks networkx to preserve every attribute; the conversion it
    # caches holds no weights, and a weighted call after it must not take
    # it for one that does.
    import warnings

    G = weighted(nx.gnp_random_graph(60, 0.1, seed=8), 5)
    s, t = 0, max(nx.single_source_shortest_path_length(G, 0).items(), key=lambda x: x[1])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nx.k_core(G, backend="grotto")
        assert nx.dijkstra_path_length(G, s, t, backend="grotto") == nx.dijkstra_path_length(G, s, t)
        got = nx.pagerank(G, backend="grotto")
    want = nx.pagerank(G)
    assert max(abs(got[v] - want[v]) for v in G) < 1e-5


def test_neighbours_and_degrees_in_both_directions(tmp_path):
    D = nx.gnp_random_graph(80, 0.06, seed=11, directed=True)
    D.add_edge(3, 5)
    D.add_edge(5, 3)
    g = to_file(D, str(tmp_path / "d.grotto"), reverse=True)
    for v in D:
        out, inn = g.neighbors(v), g.neighbors(v, direction="in")
        assert out == sorted(D.successors(v)) and inn == sorted(D.predecessors(v))
        assert all(type(u) is int for u in out + inn)
        assert g.neighbors(v, direction="both") == sorted(set(D.successors(v)) | set(D.predecessors(v)))
        assert g.degrees(v, direction="in") == D.in_degree(v)
        assert g.degrees(v, direction="both") == D.degree(v)
    assert g.degrees(list(D), direction="in").tolist() == [D.in_degree(v) for v in D]
    with pytest.raises(grotto.InputError, match="expected"):
        g.neighbors(0, direction="up")
    plain = to_file(D, str(tmp_path / "plain.grotto"))
    with pytest.raises(grotto.InputError, match="reverse=True"):
        plain.neighbors(0, direction="in")
    U = nx.Graph(D)
    u = to_file(U, str(tmp_path / "u.grotto"))
    for d in ("out", "in", "both"):
        assert u.neighbors(5, direction=d) == sorted(U[5]) and u.degrees(5, direction=d) == U.degree(5)
