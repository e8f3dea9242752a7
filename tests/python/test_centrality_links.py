"""Eigenvector and Katz centrality, link prediction, diameter and radius
on graph files, against networkx (which nobody here wrote) on the same
edges: networkx's functions dispatched to the file, the Python methods
and the command line."""

import json
import os
import subprocess

import networkx as nx
import pytest

import grotto

GROTTO = os.environ.get("GROTTO_BIN", "grotto")


def to_file(G, path, **kw):
    grotto.from_networkx(G, path, reverse=G.is_directed(), **kw)
    return grotto.open(path)


@pytest.fixture(scope="module")
def und(tmp_path_factory):
    G = nx.Graph(nx.powerlaw_cluster_graph(400, 3, 0.3, seed=21))
    return G, to_file(G, tmp_path_factory.mktemp("u") / "u.grotto")


@pytest.fixture(scope="module")
def weighted(tmp_path_factory):
    G = nx.gnm_random_graph(200, 900, seed=22)
    for i, (a, b) in enumerate(G.edges()):
        G[a][b]["weight"] = 1 + (i * 7) % 5
    return G, to_file(G, tmp_path_factory.mktemp("w") / "w.grotto", weight="weight")


@pytest.fixture(scope="module")
def dig(tmp_path_factory):
    D = nx.gnp_random_graph(300, 0.03, seed=23, directed=True)
    return D, to_file(D, tmp_path_factory.mktemp("d") / "d.grotto")


def close(got, want, tol):
    assert set(got) == set(want)
    worst = max(abs(got[v] - want[v]) for v in want)
    assert worst <= tol, worst


def test_eigenvector_centrality_equals_networkx_s(und, weighted, dig):
    for G, g in (und, dig):
        close(nx.eigenvector_centrality(g), nx.eigenvector_centrality(G), 1e-6)
        close(nx.eigenvector_centrality(g, tol=1e-9, max_iter=500),
              nx.eigenvector_centrality(G, tol=1e-9, max_iter=500), 1e-9)
    G, g = weighted
    close(nx.eigenvector_centrality(g, weight="weight"),
          nx.eigenvector_centrality(G, weight="weight"), 1e-6)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.eigenvector_centrality(g, max_iter=2)


def test_katz_centrality_equals_networkx_s(und, weighted, dig):
    for G, g in (und, dig):
        for normalized in (True, False):
            close(nx.katz_centrality(g, alpha=0.02, normalized=normalized),
                  nx.katz_centrality(G, alpha=0.02, normalized=normalized), 1e-6)
    G, g = weighted
    close(nx.katz_centrality(g, alpha=0.01, beta=2.0, weight="weight"),
          nx.katz_centrality(G, alpha=0.01, beta=2.0, weight="weight"), 1e-6)
    # Past the inverse of the largest eigenvalue it diverges, as networkx's does.
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.katz_centrality(g, alpha=0.5, max_iter=100)


def test_link_prediction_equals_networkx_s(und, tmp_path):
    G, g = und
    pairs = [(0, 5), (3, 17), (17, 3), (10, 10), (1, 399), (2, 150), (0, 1)]
    for f in (nx.jaccard_coefficient, nx.adamic_adar_index, nx.resource_allocation_index,
              nx.preferential_attachment):
        got = list(f(g, pairs))
        want = list(f(G, pairs))
        assert [(u, v) for u, v, _ in got] == [(u, v) for u, v, _ in want]
        for (_, _, a), (_, _, b) in zip(got, want):
            assert a == pytest.approx(b, rel=1e-12, abs=1e-15), f.__name__
    with pytest.raises(nx.NodeNotFound):
        list(nx.jaccard_coefficient(g, [(0, 10_000)]))
    # Without ebunch, every non-edge (a small graph), loops included.
    H = nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (3, 4), (5, 6)])
    h = to_file(H, tmp_path / "h.grotto", keep_self_loops=True)
    for f in (nx.jaccard_coefficient, nx.resource_allocation_index, nx.preferential_attachment):
        got = {(min(u, v), max(u, v)): p for u, v, p in f(h)}
        want = {(min(u, v), max(u, v)): p for u, v, p in f(H)}
        assert got.keys() == want.keys()
        for k in want:
            assert got[k] == pytest.approx(want[k], rel=1e-12), (f.__name__, k)


def test_the_link_prediction_method_and_command_line(und, tmp_path):
    G, g = und
    res = g.link_prediction(7)
    near = set(G[7])
    two_hops = {x for w in near for x in G[w]} - near - {7}
    assert set(res["vertex"].tolist()) == two_hops
    aa = dict(zip(res["vertex"].tolist(), res["adamic_adar"].tolist()))
    for u, v, p in nx.adamic_adar_index(G, [(7, x) for x in sorted(two_hops)[:20]]):
        assert aa[v] == pytest.approx(p, rel=1e-12)
    out = tmp_path / "lp.csv"
    r = subprocess.run([GROTTO, "run", "linkpred", str(g.path), "--source", "7", "--targets", "1,2,3",
                        "-o", str(out), "--json", "--verify"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["summary"]["pairs"] == 3
    lines = out.read_text().splitlines()
    assert lines[0] == "vertex,common,jaccard,adamic_adar,resource_allocation,preferential_attachment"
    assert [line.split(",")[0] for line in lines[1:]] == ["1", "2", "3"]


def test_link_prediction_refuses_directed_graphs_and_huge_defaults(dig):
    D, d = dig
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.jaccard_coefficient(d, [(0, 1)]))
    with pytest.raises(grotto.InputError, match="undirected"):
        d.link_prediction(0)


def test_diameter_and_radius_equal_networkx_s(und, tmp_path):
    G, g = und
    assert nx.diameter(g) == nx.diameter(G)
    assert nx.radius(g) == nx.radius(G)
    two = nx.Graph([(0, 1), (2, 3)])
    t = to_file(two, tmp_path / "two.grotto")
    with pytest.raises(nx.NetworkXError, match="not connected"):
        nx.diameter(t)


def test_eigenvector_and_katz_on_the_command_line(und):
    G, g = und
    for algo, want in (("eigenvector", nx.eigenvector_centrality(G)),
                       ("katz", nx.katz_centrality(G, alpha=0.02))):
        args = [GROTTO, "run", algo, str(g.path), "--json", "--verify"]
        if algo == "katz":
            args += ["--alpha", "0.02"]
        r = subprocess.run(args, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        s = json.loads(r.stdout)["summary"]
        assert s["converged"] is True
        top, score = s["top"][0]
        assert abs(want[int(top)] - score) < 1e-6
        assert want[int(top)] == pytest.approx(max(want.values()), abs=1e-6)
