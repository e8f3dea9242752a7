"""From a graph file to the piece a user looks at, against networkx,
which nobody here wrote: induced subgraphs, ego networks in every
direction, k-cores and components equal networkx's node and edge sets;
names kept; extract then convert round trips; a graph file walked by
networkx functions the backend does not implement, compared with
networkx on the same edges; edges in batches; refusals that say why."""

import io
import os
import subprocess

import networkx as nx
import numpy as np
import pytest

import grotto

GROTTO = os.environ.get("GROTTO_BIN", "grotto")


def to_file(G, path, **kw):
    grotto.from_networkx(G, path, reverse=G.is_directed(), **kw)
    return grotto.open(path)


def edge_set(H):
    if H.is_directed():
        return set(H.edges())
    return {frozenset(e) if e[0] != e[1] else frozenset([e[0]]) for e in H.edges()}


def same(piece, want):
    """A grotto piece (file or networkx graph) has exactly ``want``'s
    nodes and edges."""
    H = piece.to_networkx() if isinstance(piece, grotto.Graph) else piece
    assert set(H.nodes()) == set(want.nodes())
    assert edge_set(H) == edge_set(want)
    assert H.is_directed() == want.is_directed()


@pytest.fixture(scope="module")
def und(tmp_path_factory):
    G = nx.Graph(nx.powerlaw_cluster_graph(500, 3, 0.2, seed=11))
    G.add_nodes_from(range(500, 505))  # isolated
    return G, to_file(G, tmp_path_factory.mktemp("u") / "u.grotto")


@pytest.fixture(scope="module")
def dig(tmp_path_factory):
    D = nx.gnp_random_graph(400, 0.008, seed=12, directed=True)
    return D, to_file(D, tmp_path_factory.mktemp("d") / "d.grotto")


def test_induced_subgraphs_equal_networkx_s(und, dig):
    for G, g in (und, dig):
        keep = [v for v in G if v % 3 == 0] + [501]
        keep = [v for v in keep if v in G]
        same(g.subgraph(keep), G.subgraph(keep))
        # The backend's subgraph-returning calls on a file: networkx graphs while small.
        assert isinstance(g.subgraph(keep).to_networkx(), (nx.Graph, nx.DiGraph))


def test_ego_networks_equal_networkx_s_in_every_direction(und, dig):
    G, g = und
    for v in (0, 7, 502):
        for r in (0, 1, 2, 3):
            same(g.ego_graph(v, r), nx.ego_graph(G, v, r))
            same(nx.ego_graph(g, v, r), nx.ego_graph(G, v, r))
        same(g.ego_graph(v, 2, center=False), nx.ego_graph(G, v, 2, center=False))
    D, d = dig
    R = D.reverse()
    for v in (0, 5, 99):
        for r in (1, 2):
            same(d.ego_graph(v, r), nx.ego_graph(D, v, r))
            same(d.ego_graph(v, r, undirected=True), nx.ego_graph(D, v, r, undirected=True))
            same(nx.ego_graph(d, v, r, undirected=True), nx.ego_graph(D, v, r, undirected=True))
            # In-edges: networkx's ego network on the reversed graph, edges turned back.
            want = D.subgraph(nx.ego_graph(R, v, r).nodes())
            same(d.ego_graph(v, r, direction="in"), want)
            # networkx graphs through the backend give the same.
            same(nx.ego_graph(D, v, r, undirected=True, backend="grotto"), nx.ego_graph(D, v, r, undirected=True))


def test_k_cores_and_components_equal_networkx_s(und, tmp_path):
    G, g = und
    for k in (2, 3, 4):
        same(g.k_core(k), nx.k_core(G, k))
        same(nx.k_core(g, k), nx.k_core(G, k))
    biggest = max(nx.connected_components(G), key=len)
    out = tmp_path / "big.grotto"
    r = g.extract(out, component="largest")
    assert r["vertices"] == len(biggest)
    same(grotto.open(out), G.subgraph(biggest))
    r = g.extract(tmp_path / "iso.grotto", component=503)
    assert (r["vertices"], r["edges"]) == (1, 0)


def test_names_are_kept_and_extract_then_convert_round_trips(tmp_path):
    G = nx.Graph()
    G.add_edges_from([("ann", "bob"), ("bob", "cy"), ("cy", "ann"), ("cy", "dee"), ("eve", "fay")])
    G.add_node("zed")
    g = to_file(G, tmp_path / "n.grotto")
    keep = ["ann", "bob", "cy", "zed"]
    piece = g.subgraph(keep)
    assert piece.has_names and sorted(piece.vertices().tolist()) == sorted(keep)
    same(piece, G.subgraph(keep))
    # Edge list and Parquet out, then back in: the same edges.
    el = tmp_path / "p.el"
    g.extract(el, vertices=keep)
    back = grotto.convert(str(el), str(tmp_path / "back.grotto"), undirected=True, ids="string")
    assert back["edges"] == 3
    pq = tmp_path / "p.parquet"
    g.extract(pq, ego="cy", radius=1)
    import pyarrow.parquet as papq

    t = papq.read_table(pq).to_pydict()
    got = {frozenset(e) for e in zip(t["src"], t["dst"])}
    assert got == edge_set(nx.ego_graph(G, "cy", 1))
    with pytest.raises(grotto.InputError, match="nobody"):
        g.subgraph(["ann", "nobody"])


def test_filters_and_communities_pick_rows_of_a_result(und, tmp_path):
    G, g = und
    ranks = tmp_path / "pr.parquet"
    res = g.pagerank()
    import pyarrow as pa
    import pyarrow.parquet as papq

    papq.write_table(pa.table({"id": res["id"], "score": res["score"]}), ranks)
    cut = float(np.quantile(res["score"], 0.9))
    r = g.extract(tmp_path / "top.grotto", filter=f"{ranks}:score>{cut}")
    top = [int(v) for v, s in zip(res["id"], res["score"]) if s > cut]
    assert r["vertices"] == len(top)
    same(grotto.open(tmp_path / "top.grotto"), G.subgraph(top))
    comm = tmp_path / "c.csv"
    lv = g.louvain(seed=1)
    with open(comm, "w") as f:
        f.write("id,community\n")
        for v, c in zip(lv["id"].tolist(), lv["community"].tolist()):
            f.write(f"{v},{c}\n")
    label = int(lv["community"][0])
    members = [int(v) for v, c in zip(lv["id"], lv["community"]) if c == label]
    r = g.extract(tmp_path / "c.grotto", community=f"{comm}:{label}")
    assert r["vertices"] == len(members)
    same(grotto.open(tmp_path / "c.grotto"), G.subgraph(members))


def test_the_cli_extracts_what_python_does(und, tmp_path):
    G, g = und
    out = tmp_path / "ego.el"
    p = subprocess.run([GROTTO, "extract", g.path, str(out), "--ego", "7", "--radius", "2", "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    want = nx.ego_graph(G, 7, 2)
    lines = [tuple(map(int, l.split())) for l in out.read_text().splitlines() if not l.startswith("#")]
    assert {frozenset(e) for e in lines} == edge_set(want)
    p = subprocess.run([GROTTO, "extract", g.path, str(tmp_path / "x.el"), "--ego", "100000"],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "--ego" in p.stderr
    assert not (tmp_path / "x.el").exists()


def test_networkx_functions_the_backend_lacks_walk_a_graph_file(und, dig):
    for G, g in (und, dig):
        assert nx.density(g) == pytest.approx(nx.density(G))
        assert nx.degree_histogram(g) == nx.degree_histogram(G)
        assert nx.is_empty(g) is nx.is_empty(G)
        assert nx.number_of_selfloops(g) == nx.number_of_selfloops(G)
        assert g.number_of_nodes() == G.number_of_nodes() and g.number_of_edges() == G.number_of_edges()
        assert dict(g.degree) == dict(G.degree)
        assert dict(g.in_degree) == dict(G.in_degree) if G.is_directed() else True
        assert g.degree[5] == G.degree[5]
        assert edge_set(nx.Graph(list(g.edges)) if not G.is_directed() else nx.DiGraph(list(g.edges))) == edge_set(G)
        for u, v in list(G.edges())[:20]:
            assert g.has_edge(u, v) and (u, v) in g.edges
        assert set(g[5]) == set(G[5]) and set(g.adj[5]) == set(G.adj[5])
        if G.is_directed():
            assert set(g.pred[5]) == set(G.pred[5]) and set(g.predecessors(5)) == set(G.predecessors(5))
        assert 5 in g and 10**9 not in g and len(g.nodes) == len(G)
        a, b = io.BytesIO(), io.BytesIO()
        nx.write_edgelist(g, a, data=False)
        nx.write_edgelist(G, b, data=False)
        assert sorted(a.getvalue().splitlines()) == sorted(b.getvalue().splitlines()) or not G.is_directed()
        assert len(a.getvalue().splitlines()) == G.number_of_edges()
        # Functions grotto does not implement run as networkx's own on the file.
        assert nx.average_neighbor_degree(g) == pytest.approx(nx.average_neighbor_degree(G))
    G, g = und
    H = G.subgraph(max(nx.connected_components(G), key=len))
    h = g.subgraph(H)
    assert nx.diameter(h) == nx.diameter(H)


def test_degrees_of_a_directed_file_without_reverse_edges_are_networkx_s(tmp_path):
    D = nx.gnp_random_graph(200, 0.02, seed=5, directed=True)
    grotto.from_networkx(D, tmp_path / "d.grotto")
    g = grotto.open(tmp_path / "d.grotto")
    assert dict(g.degree) == dict(D.degree) and dict(g.in_degree) == dict(D.in_degree)
    assert g.degree[3] == D.degree[3] and nx.degree_histogram(g) == nx.degree_histogram(D)
    with pytest.raises(grotto.InputError, match="reverse"):
        g.neighbors(3, direction="in")


def test_large_graphs_and_read_only_files_are_refused_with_the_reason(und, monkeypatch):
    G, g = und
    with pytest.raises(nx.NetworkXNotImplemented, match="read-only"):
        nx.relabel_nodes(g, {0: 10_000}, copy=False)
    monkeypatch.setattr(grotto, "MAX_NETWORKX_EDGES", 10)
    with pytest.raises(nx.NetworkXNotImplemented, match="MAX_NETWORKX_EDGES"):
        nx.average_neighbor_degree(g)
    with pytest.raises(grotto.InputError, match="max_edges"):
        g.to_networkx()
    # A piece above the limit comes back as a graph file.
    assert isinstance(nx.k_core(g, 2), grotto.Graph)
    with pytest.raises(nx.NetworkXNotImplemented, match="personalization"):
        nx.pagerank(g, personalization={0: 1})


def test_edges_come_in_batches(und, dig):
    for G, g in (und, dig):
        seen = []
        for b in g.edge_batches(100, format="numpy"):
            assert len(b["src"]) >= 1
            seen.extend(zip(b["src"].tolist(), b["dst"].tolist()))
        assert len(seen) == G.number_of_edges()
        assert edge_set(nx.DiGraph(seen) if G.is_directed() else nx.Graph(seen)) == edge_set(G)
        df = next(iter(g.edge_batches(format="pandas")))
        assert list(df.columns) == ["src", "dst"] and len(df) == G.number_of_edges()
    with pytest.raises(grotto.InputError, match="format"):
        next(iter(g.edge_batches(format="csv")))


def test_directed_core_numbers_and_degree_centralities_are_networkx_s(dig, tmp_path):
    D, d = dig
    # In- plus out-degree, from the reverse edges: no second file.
    assert dict(nx.core_number(d)) == nx.core_number(D)
    assert nx.core_number(D, backend="grotto") == nx.core_number(D)
    same(nx.k_core(d, 2), nx.k_core(D, 2))
    for f in (nx.degree_centrality, nx.in_degree_centrality, nx.out_degree_centrality):
        assert dict(f(d)) == f(D)
        assert f(D, backend="grotto") == f(D)
    U = nx.Graph(nx.gnp_random_graph(80, 0.08, seed=6))
    U.add_edge(4, 4)  # a self loop counts twice in networkx's degree
    grotto.from_networkx(U, tmp_path / "u.grotto", keep_self_loops=True)
    u = grotto.open(tmp_path / "u.grotto")
    assert dict(u.degree) == dict(U.degree) and u.degree[4] == U.degree[4]
    assert dict(nx.degree_centrality(u)) == nx.degree_centrality(U)
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.in_degree_centrality(u)
    grotto.from_networkx(D, tmp_path / "norev.grotto")
    with pytest.raises(nx.NetworkXNotImplemented, match="reverse"):
        nx.core_number(grotto.open(tmp_path / "norev.grotto"))
