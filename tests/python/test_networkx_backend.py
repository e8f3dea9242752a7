"""networkx users: the `grotto` backend through networkx's own calls, and
`grotto.from_networkx`, checked against networkx itself."""

import os

import networkx as nx
import numpy as np
import pytest

import grotto

nx.config.warnings_to_ignore.add("cache")


@pytest.fixture(scope="module")
def weighted():
    G = nx.gnm_random_graph(400, 1600, seed=5)
    G.add_nodes_from(range(400, 405))  # isolated
    rng = np.random.default_rng(5)
    for u, v in G.edges():
        G[u][v]["weight"] = float(rng.uniform(0.5, 3.0))
    return G


def test_pagerank_matches_networkx(weighted):
    for G in (weighted, nx.gnm_random_graph(300, 1200, seed=6, directed=True)):
        got = nx.pagerank(G, tol=1e-10, weight=None, backend="grotto")
        want = nx.pagerank(G, tol=1e-13, weight=None, max_iter=1000)
        assert got.keys() == want.keys()
        assert max(abs(got[v] - want[v]) for v in want) < 1e-8


def test_weighted_pagerank_matches_networkx(weighted):
    # Isolated vertices, weights in [0.5, 3): networkx's default weight="weight".
    got = nx.pagerank(weighted, tol=1e-10, backend="grotto")
    want = nx.pagerank(weighted, tol=1e-13, max_iter=1000)
    assert got.keys() == want.keys()
    assert max(abs(got[v] - want[v]) for v in want) < 1e-7
    # A weight function is networkx's alone.
    with pytest.raises(NotImplementedError):
        nx.pagerank(weighted, weight=lambda u, v, d: 1.0, backend="grotto")


def test_connected_components_and_core_number_match(weighted):
    got = {frozenset(c) for c in nx.connected_components(weighted, backend="grotto")}
    assert got == {frozenset(c) for c in nx.connected_components(weighted)}
    assert nx.core_number(weighted, backend="grotto") == nx.core_number(weighted)


def test_bfs_edges_are_networkx_s_own_tree_in_its_order(weighted):
    # Adjacency in node order (edges added sorted): networkx's BFS order
    # is the one grotto's lists give, and the answer is exactly networkx's.
    H = nx.Graph()
    H.add_nodes_from(sorted(weighted))
    H.add_edges_from(sorted((min(u, v), max(u, v)) for u, v in weighted.edges()))
    D = nx.DiGraph()
    D.add_nodes_from(range(300))
    D.add_edges_from(sorted(nx.gnm_random_graph(300, 1500, seed=8, directed=True).edges()))
    for G, src in ((H, 3), (D, 0)):
        assert list(nx.bfs_edges(G, src, backend="grotto")) == list(nx.bfs_edges(G, src))
        assert list(nx.bfs_predecessors(G, src, backend="grotto")) == list(nx.bfs_predecessors(G, src))
        assert list(nx.bfs_successors(G, src, backend="grotto")) == list(nx.bfs_successors(G, src))
        got = nx.bfs_tree(G, src, backend="grotto")
        assert list(got.edges()) == list(nx.bfs_tree(G, src).edges())
    with pytest.raises(nx.NodeNotFound):
        list(nx.bfs_edges(H, 10_000, backend="grotto"))
    # Adjacency in another order: networkx's answer follows it, so the
    # backend leaves the call to networkx.
    with pytest.raises(NotImplementedError):
        list(nx.bfs_edges(weighted, 3, backend="grotto"))


def test_dijkstra_lengths_match(weighted):
    # Whole-number weights: grotto's float32 sums are networkx's exactly.
    W = nx.Graph()
    W.add_weighted_edges_from((u, v, float(round(4 * d["weight"]))) for u, v, d in weighted.edges(data=True))
    got = nx.single_source_dijkstra_path_length(W, 7, backend="grotto")
    assert got == nx.single_source_dijkstra_path_length(W, 7)
    assert list(got.values()) == sorted(got.values())
    # Other weights: networkx's float64 sums are not grotto's; networkx
    # answers (here the backend was forced, so it says why it cannot).
    with pytest.raises(NotImplementedError, match="grotto"):
        nx.single_source_dijkstra_path_length(weighted, 7, backend="grotto")
    from grotto.nx import BackendInterface

    with pytest.raises(NotImplementedError, match="float32"):
        BackendInterface.single_source_dijkstra_path_length(BackendInterface.convert_from_nx(weighted, "weight"), 7)


def test_any_node_labels_work_through_the_backend():
    G = nx.relabel_nodes(nx.karate_club_graph(), lambda v: f"member-{v}")
    assert nx.core_number(G, backend="grotto") == nx.core_number(G)
    got = nx.single_source_dijkstra_path_length(G, "member-0", backend="grotto")
    assert got == pytest.approx(nx.single_source_dijkstra_path_length(G, "member-0"), rel=1e-5)


def test_from_networkx_keeps_ids_weights_and_isolated_nodes(tmp_path, weighted):
    p = tmp_path / "w.grotto"
    grotto.from_networkx(weighted, p, weight="weight")
    g = grotto.open(p)
    assert (g.num_vertices, g.num_edges, g.weighted) == (405, weighted.number_of_edges(), True)
    ids, w = g.neighbors(11, weights=True)
    assert sorted(ids) == sorted(weighted.neighbors(11)) and all(type(u) is int for u in ids)
    for u, x in zip(ids, w.tolist()):
        assert x == pytest.approx(weighted[11][u]["weight"], rel=1e-6)
    assert g.degree(404) == 0
    # Tuples and mixed nodes are named by their repr.
    grid = nx.grid_2d_graph(3, 4)
    grid.add_node((9, 9))
    r = grotto.from_networkx(grid, tmp_path / "t.grotto")
    t = grotto.open(tmp_path / "t.grotto")
    assert r["node_names"] == "repr" and t.has_names and len(t) == 13
    assert sorted(t.neighbors("(1, 1)")) == sorted(repr(v) for v in grid[(1, 1)])
    assert t.degree("(9, 9)") == 0
    assert nx.core_number(t) == {repr(v): c for v, c in nx.core_number(grid).items()}
    mixed = nx.path_graph(["a", 3, (1, "b"), -2])
    grotto.from_networkx(mixed, tmp_path / "m.grotto")
    m = grotto.open(tmp_path / "m.grotto")
    assert sorted(m.vertices().tolist()) == sorted(["'a'", "3", "(1, 'b')", "-2"])
    assert sorted(m.neighbors("3")) == ["'a'", "(1, 'b')"]
    class Same:
        def __repr__(self):
            return "same"

    with pytest.raises(grotto.InputError, match="same one"):
        grotto.from_networkx(nx.path_graph([Same(), 3, Same()]), tmp_path / "dup.grotto")
    assert grotto.from_networkx(weighted, tmp_path / "i.grotto")["node_names"] == "ids"
    os.remove(tmp_path / "t.grotto")
    os.remove(tmp_path / "m.grotto")
    os.remove(tmp_path / "i.grotto")
    with pytest.raises(grotto.InputError, match="not a number"):
        H = nx.Graph()
        H.add_edge(1, 2, weight="heavy")
        grotto.from_networkx(H, tmp_path / "t.grotto", weight="weight")
    assert sorted(os.listdir(tmp_path)) == ["w.grotto"]


def test_from_networkx_keeps_exactly_the_nodes(tmp_path):
    # Nodes 0, 7 and 1000 (isolated) with gaps between them, and one past
    # 2^32: the vertices are these four, and PageRank is networkx's.
    G = nx.Graph()
    G.add_edges_from([(0, 7), (7, 1 << 40)])
    G.add_node(1000)
    p = tmp_path / "gaps.grotto"
    grotto.from_networkx(G, p)
    g = grotto.open(p)
    assert g.num_vertices == 4
    pr = g.pagerank(tolerance=1e-12, max_iterations=2000)
    got = dict(zip(pr["id"].tolist(), pr["score"].tolist()))
    want = nx.pagerank(G, tol=1e-13, max_iter=2000)
    assert got.keys() == want.keys()
    for v, x in want.items():
        assert got[v] == pytest.approx(x, abs=1e-9)
    with pytest.raises(grotto.Error, match="500"):
        g.bfs(500)


def test_from_networkx_with_string_nodes_keeps_names_and_isolated_nodes(tmp_path):
    G = nx.relabel_nodes(nx.les_miserables_graph(), lambda v: v + " ✓")
    G.add_node("alone")
    for directed in (False, True):
        H = G.to_directed() if directed else G
        p = tmp_path / f"lm{directed}.grotto"
        r = grotto.from_networkx(H, p, weight="weight")
        g = grotto.open(p)
        assert r["names"] and g.has_names and g.directed == directed
        assert (g.num_vertices, g.num_edges) == (H.number_of_nodes(), H.number_of_edges())
        assert g.degree("alone") == 0
        v = "Valjean ✓"
        ids, w = g.neighbors(v, weights=True)
        assert sorted(ids) == sorted(H.neighbors(v))
        assert all(x == H[v][u]["weight"] for u, x in zip(ids, w))
    dist = grotto.open(tmp_path / "lmFalse.grotto").sssp("Valjean ✓").to_pandas()
    want = nx.single_source_dijkstra_path_length(G, "Valjean ✓")
    got = dict(zip(dist["id"], dist["distance"]))
    assert all(abs(got[u] - d) < 1e-5 for u, d in want.items())
    assert got["alone"] == float("inf")


def test_the_null_graph_is_left_to_networkx():
    # A grotto file has at least one vertex: networkx answers the null
    # graph itself (can_run says why), instead of an IndexError.
    from grotto.nx import BackendInterface

    for name in ("triangles", "pagerank", "core_number", "strongly_connected_components"):
        G = nx.DiGraph() if name.startswith("strongly") else nx.Graph()
        assert BackendInterface.can_run(name, (G,), {}) == "the graph has no nodes"
    assert BackendInterface.can_run("triangles", (nx.path_graph(3),), {}) is True


def test_graph_files_are_backend_graphs(weighted, tmp_path):
    # A graph file opened with grotto.open is a networkx backend graph:
    # networkx's calls dispatch to grotto with nothing converted.
    path = tmp_path / "w.grotto"
    grotto.from_networkx(weighted, path, weight="weight")
    g = grotto.open(path)
    assert len(g) == len(weighted) and not g.is_directed()
    got = nx.pagerank(g, tol=1e-10)
    want = nx.pagerank(weighted, tol=1e-13, max_iter=1000)
    assert got.keys() == want.keys()
    assert max(abs(got[v] - want[v]) for v in want) < 1e-6
    plain = nx.pagerank(g, weight=None, tol=1e-10)
    want = nx.pagerank(weighted, weight=None, tol=1e-13, max_iter=1000)
    assert max(abs(plain[v] - want[v]) for v in want) < 1e-8
    comps = {frozenset(c) for c in nx.connected_components(g)}
    assert comps == {frozenset(c) for c in nx.connected_components(weighted)}
    assert nx.core_number(g) == nx.core_number(weighted)
    assert nx.triangles(g) == nx.triangles(weighted)
    cc, want = nx.clustering(g), nx.clustering(weighted)
    assert max(abs(cc[v] - want[v]) for v in want) < 1e-12
    depth = nx.single_source_shortest_path_length(weighted, 3)
    tree = list(nx.bfs_edges(g, 3))
    assert {v for _, v in tree} == set(depth) - {3}
    assert all(depth[v] == depth[u] + 1 for u, v in tree)
    dist = nx.single_source_dijkstra_path_length(g, 3)
    want = nx.single_source_dijkstra_path_length(weighted, 3)
    assert dist.keys() == want.keys()
    assert max(abs(dist[v] - want[v]) for v in want) < 1e-4
    bc, want = nx.betweenness_centrality(g), nx.betweenness_centrality(weighted, weight=None)
    assert max(abs(bc[v] - want[v]) for v in want) < 1e-9
    with pytest.raises(nx.NodeNotFound):
        list(nx.bfs_edges(g, 10_000))
    assert nx.number_connected_components(g) == nx.number_connected_components(weighted)
    assert nx.is_connected(g) == nx.is_connected(weighted)
    assert nx.node_connected_component(g, 3) == nx.node_connected_component(weighted, 3)
    assert nx.single_source_shortest_path_length(g, 3) == nx.single_source_shortest_path_length(weighted, 3)
    assert nx.single_source_shortest_path_length(g, 3, cutoff=2) == nx.single_source_shortest_path_length(weighted, 3, cutoff=2)
    assert nx.descendants(g, 3) == nx.descendants(weighted, 3)
    assert nx.has_path(g, 3, 400) == nx.has_path(weighted, 3, 400) is False
    assert nx.has_path(g, 3, 5) == nx.has_path(weighted, 3, 5)
    # What grotto does not implement runs as networkx's own on the file
    # (small enough to be a networkx graph), on the same edges.
    assert nx.average_neighbor_degree(g) == pytest.approx(nx.average_neighbor_degree(weighted))


def test_results_on_graph_files_stay_arrays_and_read_as_dicts_and_sets(tmp_path):
    # A graph file's per-vertex answers keep the result's columns
    # (VertexMap, VertexSet) and read as networkx's dict and sets do.
    import tracemalloc

    from grotto.nx import VertexMap, VertexSet

    G = nx.gnm_random_graph(3000, 9000, seed=4)
    G.add_edges_from([(5000, 5001), (5001, 5002)])  # a gap, another component
    p = tmp_path / "r.grotto"
    # Numbered by degree inside: a vertex's row in results (its rank among
    # the ids) is not its number in the file.
    grotto.from_networkx(G, p, order="degree")
    g = grotto.open(p)
    assert g.info()["ordered"]
    pr, want = nx.pagerank(g, tol=1e-10), nx.pagerank(G, tol=1e-12, max_iter=500)
    assert isinstance(pr, VertexMap) and len(pr) == len(G)
    assert list(pr) == sorted(G) and set(pr.keys()) == set(G)
    assert max(abs(x - want[v]) for v, x in pr.items()) < 1e-8
    assert max(abs(pr[v] - want[v]) for v in want) < 1e-8
    assert type(pr[7]) is float and pr[7.0] == pr[7] and pr[True] == pr[1]
    assert 4000 not in pr and "7" not in pr and [7] not in pr
    with pytest.raises(KeyError):
        pr[4000]
    assert pr.get(4000, -1) == -1 and max(pr, key=pr.get) == max(want, key=want.get)
    ids, scores = pr.to_numpy()
    assert ids.tolist() == list(pr) and scores.tolist() == list(pr.values())
    assert dict(pr) == pytest.approx(want, abs=1e-8)
    cores = nx.core_number(g)
    assert cores == nx.core_number(G) and type(cores[3]) is int
    comps = list(nx.connected_components(g))
    # Larger components stay arrays; one vertex is a Python set of it.
    assert all(isinstance(c, VertexSet) if len(c) > 1 else type(c) is set for c in comps)
    assert any(len(c) == 1 for c in comps) and any(len(c) == 3 for c in comps)
    assert [set(c) for c in comps] == list(nx.connected_components(G))
    small = next(c for c in comps if 5000 in c)
    assert len(small) == 3 and 4999 not in small and "x" not in small and 5000.0 in small
    assert small == {5000, 5001, 5002} and small & {5001, 9} == {5001}
    assert small.to_numpy().tolist() == [5000, 5001, 5002]
    assert nx.node_connected_component(g, 5002) == {5000, 5001, 5002}
    assert nx.descendants(g, 5000) == {5001, 5002}
    assert nx.has_path(g, 0, 5002) is False and nx.shortest_path_length(g, 5000, 5002) == 2
    assert nx.triangles(g, 17) == nx.triangles(G, 17)
    # Names, numbered by degree inside too.
    S = nx.relabel_nodes(G, {v: f"n{v}" for v in G})
    grotto.from_networkx(S, tmp_path / "s.grotto", order="degree")
    s = grotto.open(tmp_path / "s.grotto")
    assert nx.core_number(s) == nx.core_number(S)
    assert nx.node_connected_component(s, "n5001") == {"n5000", "n5001", "n5002"}
    assert "n4000" not in nx.pagerank(s) and 17 not in nx.pagerank(s)
    # The answer is the run's arrays (made natively, which tracemalloc
    # does not see), not Python objects per vertex: a dict of floats
    # takes over 100 bytes a vertex.
    n = 200_000
    src = np.arange(n, dtype=np.uint64)
    grotto.convert((src, (src * 7 + 1) % n), tmp_path / "big.grotto", undirected=True)
    big = grotto.open(tmp_path / "big.grotto")
    nx.pagerank(big)  # the first call opens what later calls reuse
    tracemalloc.start()
    pr = nx.pagerank(big)
    per_vertex = tracemalloc.get_traced_memory()[1] / n
    tracemalloc.stop()
    assert len(pr) == n and per_vertex < 4, per_vertex


def test_directed_graph_files_and_names_are_backend_graphs(tmp_path):
    D = nx.gnm_random_graph(200, 900, seed=9, directed=True)
    D = nx.relabel_nodes(D, {v: f"v{v}" for v in D})
    grotto.from_networkx(D, tmp_path / "d.grotto", reverse=True)
    g = grotto.open(tmp_path / "d.grotto")
    assert g.has_names and g.is_directed()
    got = nx.pagerank(g, tol=1e-10)
    want = nx.pagerank(D, tol=1e-13, max_iter=1000)
    assert max(abs(got[v] - want[v]) for v in want) < 1e-8
    weak = {frozenset(c) for c in nx.weakly_connected_components(g)}
    assert weak == {frozenset(c) for c in nx.weakly_connected_components(D)}
    assert nx.is_weakly_connected(g) == nx.is_weakly_connected(D)
    assert nx.descendants(g, "v0") == nx.descendants(D, "v0")
    scc = {frozenset(c) for c in nx.strongly_connected_components(g)}
    assert scc == {frozenset(c) for c in nx.strongly_connected_components(D)}
    assert nx.number_strongly_connected_components(g) == nx.number_strongly_connected_components(D)
    depth = nx.single_source_shortest_path_length(D, "v0")
    tree = list(nx.bfs_edges(g, "v0"))
    assert {v for _, v in tree} == set(depth) - {"v0"}
    assert all(depth[v] == depth[u] + 1 for u, v in tree)


def test_views_multigraphs_and_self_loops_follow_networkx(weighted):
    # A subgraph view converts (its adjacency is not a dict).
    view = weighted.subgraph(range(0, 300))
    got = {frozenset(c) for c in nx.connected_components(view, backend="grotto")}
    assert got == {frozenset(c) for c in nx.connected_components(view)}
    assert nx.core_number(view, backend="grotto") == nx.core_number(view)
    # A multigraph's PageRank weighs parallel edges, as networkx's does.
    M = nx.MultiDiGraph([(0, 1), (0, 1), (0, 2), (1, 2), (2, 0), (2, 3), (3, 0)])
    M.add_edge(1, 2, weight=5.0)
    for w in ("weight", None):
        got, want = nx.pagerank(M, weight=w, backend="grotto"), nx.pagerank(M, weight=w, tol=1e-12)
        assert max(abs(got[v] - want[v]) for v in M) < 1e-6, (w, got, want)
    # core_number refuses self loops with networkx's own exception.
    L = nx.cycle_graph(5)
    L.add_edge(2, 2)
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        nx.core_number(L, backend="grotto")


def test_more_networkx_names_on_graph_files_and_converted_graphs(weighted, tmp_path):
    # The same edges as a graph file and as a networkx graph whose lists
    # are in node order (as a file's are), against networkx itself.
    S = nx.Graph()
    S.add_nodes_from(sorted(weighted))
    S.add_edges_from(sorted((min(u, v), max(u, v)) for u, v in weighted.edges()))
    grotto.from_networkx(S, tmp_path / "s.grotto")
    W = nx.Graph()
    # (Whole-number weights: float32 sums are networkx's exactly.)
    W.add_weighted_edges_from((u, v, float(round(4 * d["weight"]))) for u, v, d in weighted.edges(data=True))
    grotto.from_networkx(W, tmp_path / "w.grotto", weight="weight")
    files = (grotto.open(tmp_path / "s.grotto"), grotto.open(tmp_path / "w.grotto"))
    for G, Gw, kw in ((*files, {}), (S, W, {"backend": "grotto"})):
        assert list(nx.bfs_layers(G, 3, **kw)) == list(nx.bfs_layers(S, 3))
        assert list(nx.bfs_layers(G, [7], **kw)) == list(nx.bfs_layers(S, [7]))
        with pytest.raises(nx.NetworkXError, match="not in the graph"):
            list(nx.bfs_layers(G, 10_000, **kw))
        assert nx.shortest_path_length(G, 3, **kw) == nx.shortest_path_length(S, 3)
        assert nx.shortest_path_length(G, 3, 17, **kw) == nx.shortest_path_length(S, 3, 17)
        with pytest.raises(nx.NetworkXNoPath):
            nx.shortest_path_length(G, 3, 400, **kw)
        with pytest.raises(nx.NodeNotFound, match="Target"):
            nx.shortest_path_length(G, 3, 10_000, **kw)
        assert nx.dijkstra_path_length(Gw, 3, 17, **kw) == nx.dijkstra_path_length(W, 3, 17)
        assert nx.dijkstra_path_length(Gw, 3, 3, **kw) == 0
        with pytest.raises(nx.NetworkXNoPath):
            nx.dijkstra_path_length(Gw, 3, 400, **kw)
        got = nx.shortest_path_length(Gw, 3, weight="weight", **kw)
        assert got == nx.shortest_path_length(W, 3, weight="weight")
        with pytest.raises(nx.NetworkXError, match="not connected"):
            nx.eccentricity(G, v=3, **kw)
        for k in (None, 2, 3):
            for name in ("k_core", "k_shell", "k_crust"):
                H, want = getattr(nx, name)(G, k, **kw), getattr(nx, name)(S, k)
                assert set(H) == set(want), (name, k)
                assert {frozenset(e) for e in H.edges()} == {frozenset(e) for e in want.edges()}, (name, k)
        H, want = nx.k_corona(G, 2, **kw), nx.k_corona(S, 2)
        assert set(H) == set(want) and H.number_of_edges() == want.number_of_edges()
        independent = nx.maximal_independent_set(G, **kw)
        assert S.subgraph(independent).number_of_edges() == 0
        covered = set(independent).union(*(S[v] for v in independent))
        assert covered == set(S)
    P = nx.path_graph(7)
    assert nx.eccentricity(P, v=2, backend="grotto") == nx.eccentricity(P, v=2) == 4
    # A k-core of a converted graph is networkx's subgraph, attributes and all.
    A = nx.complete_graph(4)
    A.add_edge(3, 4, color="red")
    A.nodes[0]["name"] = "zero"
    H = nx.k_core(A, backend="grotto")
    assert H.nodes[0] == {"name": "zero"} and set(H) == {0, 1, 2, 3}
    # networkx's own answers where grotto cannot give them exactly.
    from grotto.nx import BackendInterface

    assert BackendInterface.can_run("maximal_independent_set", (P,), {"seed": 3}) is not True
    assert BackendInterface.can_run("bfs_layers", (P, [0, 1]), {}) is not True



def test_should_run_leaves_small_graphs_to_networkx_unless_converted(tmp_path):
    # Asked when grotto is in nx.config.backend_priority: a graph too small
    # for a conversion to pay runs in networkx; a large one, or one whose
    # conversion networkx has cached, runs in grotto.
    from grotto.nx import BackendInterface as B

    small, large = nx.path_graph(50), nx.gnm_random_graph(50_000, 250_000, seed=1)
    assert "faster than a conversion" in B.should_run("connected_components", (small,), {})
    assert B.should_run("connected_components", (large,), {}) is True
    assert B.should_run("triangles", (nx.gnm_random_graph(2000, 6000, seed=1),), {}) is True
    assert "stops at the target" in B.should_run("has_path", (large, 0, 1), {})
    nx.core_number(small, backend="grotto")  # networkx caches the conversion
    assert B.should_run("core_number", (small,), {}) is True
    grotto.from_networkx(small, tmp_path / "p.grotto")
    g = grotto.open(tmp_path / "p.grotto")
    assert B.should_run("pagerank", (g,), {}) is True
    # Through networkx's own dispatch, as a user with grotto first in
    # backend_priority gets it: a small graph is answered by networkx.
    with nx.config.backend_priority(algos=["grotto"]):
        H = nx.path_graph(10)
        assert nx.number_connected_components(H) == 1
        assert not H.__networkx_cache__.get("backends", {}).get("grotto")
        assert nx.pagerank(large, tol=1e-10) == pytest.approx(nx.pagerank(large, tol=1e-10, backend="networkx"), abs=1e-8)
        assert large.__networkx_cache__["backends"]["grotto"]
