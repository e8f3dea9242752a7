"""`grotto run` against networkx, scipy and igraph: every algorithm through
the binary, both engines (the synchronous one in both modes), caches from a
few blocks to the whole graph, 1 and 2 threads, concurrency 1 to 64, both
I/O backends."""

import csv
import json
import os
import subprocess
import tempfile

import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg

GROTTO = os.environ.get("GROTTO_BIN", "target/release/grotto")

# mode, cache, threads, concurrency, io
SETTINGS = [
    ("block", "8KiB", 1, 1, "auto"),
    ("block", "3%", 2, 64, "pread"),
    ("block", "100%", 2, 8, "auto"),
    ("vertex", "12KiB", 2, 4, "auto"),
    ("vertex", "10%", 1, 32, "pread"),
    ("vertex", "100%", 2, 64, "auto"),
]


# Asynchronous engine: cache, threads, concurrency, io
ASYNC = [
    ("8KiB", 1, 1, "auto"),
    ("3%", 2, 16, "pread"),
    ("100%", 2, 64, "auto"),
]


def async_args(s):
    cache, threads, conc, io = s
    return ["--engine", "async", "--cache", cache, "--threads", threads, "--concurrency", conc, "--io", io]


def grotto(*args, code=0):
    out = subprocess.run([GROTTO, *map(str, args)], capture_output=True, text=True)
    assert out.returncode == code, out.stderr
    return out


def settings_args(s):
    mode, cache, threads, conc, io = s
    return ["--engine", "sync", "--mode", mode, "--cache", cache, "--threads", threads, "--concurrency", conc, "--io", io]


def read_csv(path, cast):
    with open(path) as f:
        r = csv.reader(f)
        header = next(r)
        rows = {int(row[0]): tuple(cast(x) for x in row[1:]) for row in r}
    return header, rows


class G:
    """A generated graph: its text, its grotto file, and networkx's reading."""

    def __init__(self, d, name, gen, undirected, reverse=False, scale_ids=1):
        self.el = os.path.join(d, name + ".el")
        self.path = os.path.join(d, name + ".grotto")
        grotto("generate", *gen, "-o", self.el)
        if scale_ids != 1:  # sparse, large ids: grotto compacts them
            lines = [l.split() for l in open(self.el) if not l.startswith("#")]
            with open(self.el, "w") as f:
                for u, v in lines:
                    f.write(f"{int(u) * scale_ids + 7} {int(v) * scale_ids + 7}\n")
        flags = ["--undirected"] if undirected else []
        if reverse:
            flags.append("--reverse")
        grotto("convert", self.el, self.path, "-q", *flags)
        self.nx = nx.Graph() if undirected else nx.DiGraph()
        edges = nx.read_edgelist(self.el, nodetype=int, create_using=nx.DiGraph).edges()
        self.nx.add_edges_from(edges)
        self.nx.remove_edges_from(nx.selfloop_edges(self.nx))
        # grotto keeps isolated ids below the largest one (dense ids only),
        # and the trailing ones the generator's "# vertices N" line declares.
        if scale_ids == 1:
            declared = [int(l.split()[2]) for l in open(self.el) if l.startswith("# vertices ")]
            self.nx.add_nodes_from(range(max([max(self.nx.nodes) + 1] + declared)))
        self.undirected = undirected


@pytest.fixture(scope="module")
def graphs():
    with tempfile.TemporaryDirectory() as d:
        yield {
            "rmat-u": G(d, "rmat-u", ["rmat", "--scale", "12", "--edge-factor", "8", "--seed", "3"], True),
            "rmat-d": G(d, "rmat-d", ["rmat", "--scale", "11", "--edge-factor", "6", "--seed", "4"], False, reverse=True),
            "rmat-d-norev": G(d, "rmat-dn", ["rmat", "--scale", "10", "--edge-factor", "6", "--seed", "5"], False),
            "grid": G(d, "grid", ["grid", "--rows", "60", "--cols", "70"], True),
            "sparse-ids": G(d, "sparse", ["ba", "--n", "3000", "--m", "3", "--seed", "6"], True, scale_ids=1_000_003),
        }


def source_of(g):
    return max(g.nx.nodes, key=lambda v: (g.nx.degree(v), -v))


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d", "grid", "sparse-ids"])
@pytest.mark.parametrize("s", [settings_args(x) for x in SETTINGS] + [async_args(x) for x in ASYNC])
def test_bfs_depths_match_networkx(graphs, tmp_path, name, s):
    g = graphs[name]
    src = source_of(g)
    out = tmp_path / "bfs.csv"
    grotto("run", "bfs", g.path, "--source", src, "--out", out, "-q", *s)
    header, rows = read_csv(out, int)
    assert header == ["id", "depth", "parent"]
    want = nx.single_source_shortest_path_length(g.nx, src)
    assert set(rows) == set(g.nx.nodes)
    for v, (d, p) in rows.items():
        if v not in want:
            assert (d, p) == (-1, -1)
            continue
        assert d == want[v], (v, d, want[v])
        if v == src:
            assert p == src
        else:
            assert rows[p][0] == d - 1 and g.nx.has_edge(p, v)


def test_bfs_depths_match_scipy(graphs, tmp_path):
    g = graphs["grid"]
    out = tmp_path / "bfs.npy"
    grotto("run", "bfs", g.path, "--source", 0, "--out", out, "--format", "npy", "-q")
    a = np.load(out)
    assert a.dtype.names == ("id", "depth", "parent")
    n = len(a)
    rows, cols = zip(*g.nx.edges())
    m = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n)).tocsr()
    dist = csg.shortest_path(m, directed=False, unweighted=True, indices=0)
    order = np.argsort(a["id"])
    assert np.array_equal(a["depth"][order], dist.astype(np.int64))


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d", "grid", "sparse-ids"])
@pytest.mark.parametrize("engine", ["sync", "async"])
def test_eccentricity_matches_networkx(graphs, tmp_path, name, engine):
    g = graphs[name]
    src = source_of(g)
    out = tmp_path / "ecc.csv"
    r = grotto("run", "eccentricity", g.path, "--source", src, "--sweeps", 2, "--engine", engine,
               "--cache", "8KiB", "--out", out, "--json", "--verify")
    j = json.loads(r.stdout)
    summary = j["summary"]
    assert j["verified"] is True
    depth = nx.single_source_shortest_path_length(g.nx, src)
    assert summary["eccentricity"] == max(depth.values())
    assert summary["reached"] == len(depth)
    assert depth[summary["farthest"]] == summary["eccentricity"]
    _, rows = read_csv(out, int)
    assert {v: d for v, (d,) in rows.items() if d >= 0} == depth
    if g.undirected:
        comp = g.nx.subgraph(depth)
        assert summary["eccentricity"] == nx.eccentricity(comp, v=src)
        # The double sweep's bound: the eccentricity of the farthest vertex.
        assert summary["diameter_lower_bound"] == nx.eccentricity(comp, v=summary["farthest"])
        if name == "grid":  # corner to corner
            assert summary["diameter_lower_bound"] == 59 + 69


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d", "rmat-d-norev", "grid", "sparse-ids"])
@pytest.mark.parametrize("s", SETTINGS[:4])
def test_wcc_labels_match_networkx(graphs, tmp_path, name, s):
    g = graphs[name]
    out = tmp_path / "wcc.csv"
    r = grotto("run", "wcc", g.path, "--out", out, "--json", *settings_args(s))
    summary = json.loads(r.stdout)["summary"]
    _, rows = read_csv(out, int)
    comps = list(nx.connected_components(g.nx) if g.undirected else nx.weakly_connected_components(g.nx))
    assert summary["components"] == len(comps)
    assert summary["largest"][0] == max(len(c) for c in comps)
    for c in comps:
        m = min(c)
        assert all(rows[v][0] == m for v in c)


def test_wcc_components_match_scipy_and_igraph(graphs, tmp_path):
    g = graphs["rmat-d"]
    out = tmp_path / "wcc.csv"
    grotto("run", "wcc", g.path, "--out", out, "-q")
    _, rows = read_csv(out, int)
    n = len(rows)
    src, dst = zip(*g.nx.edges())
    m = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    k, labels = csg.connected_components(m, directed=True, connection="weak")
    ours = np.array([rows[v][0] for v in range(n)])
    assert len(set(ours)) == k
    # Same partition: label pairs correspond one to one.
    assert len(set(zip(ours, labels))) == k
    h = ig.Graph(n=n, edges=list(g.nx.edges()), directed=True)
    assert len(h.connected_components(mode="weak")) == k


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d", "rmat-d-norev", "grid", "sparse-ids"])
@pytest.mark.parametrize("s", [SETTINGS[0], SETTINGS[3], SETTINGS[5]])
def test_pagerank_matches_networkx(graphs, tmp_path, name, s):
    g = graphs[name]
    out = tmp_path / "pr.csv"
    r = grotto("run", "pagerank", g.path, "--tolerance", "1e-10", "--max-iterations", "500",
               "--out", out, "--json", *settings_args(s))
    summary = json.loads(r.stdout)["summary"]
    assert summary["converged"]
    assert summary["style"] == ("push" if name == "rmat-d-norev" else "pull")
    _, rows = read_csv(out, float)
    want = nx.pagerank(g.nx, alpha=0.85, tol=1e-13, max_iter=2000)
    l1 = sum(abs(rows[v][0] - want[v]) for v in want)
    assert l1 <= 1e-6, l1
    assert abs(sum(x[0] for x in rows.values()) - 1) < 1e-9


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d", "grid"])
def test_pagerank_default_f32_contributions_match_networkx(graphs, tmp_path, name):
    # The default tolerance (1e-6) reads contributions as f32; the result
    # must stay within the documented bound (tol + 2^-24)(2 + d/(1-d)).
    g = graphs[name]
    out = tmp_path / "pr.csv"
    r = grotto("run", "pagerank", g.path, "--out", out, "--json")
    summary = json.loads(r.stdout)["summary"]
    assert summary["contributions"] == "f32"
    assert summary["converged"]
    _, rows = read_csv(out, float)
    want = nx.pagerank(g.nx, alpha=0.85, tol=1e-13, max_iter=2000)
    l1 = sum(abs(rows[v][0] - want[v]) for v in want)
    # Gauss-Seidel sweeps (which --method auto may turn to) end with a
    # shift to a sum of 1 that can double the distance.
    gs = 2 if summary["gauss_seidel_iterations"] else 1
    assert l1 <= (1e-6 + 2**-24) * (2 + gs * 0.85 / 0.15), l1
    assert abs(sum(x[0] for x in rows.values()) - 1) < 1e-9
    r = grotto("run", "pagerank", g.path, "--contributions", "f64", "--json", "-q")
    assert json.loads(r.stdout)["summary"]["contributions"] == "f64"


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d", "grid"])
@pytest.mark.parametrize("method", ["jacobi", "gauss-seidel"])
def test_pagerank_methods_match_networkx(graphs, tmp_path, name, method):
    g = graphs[name]
    out = tmp_path / "pr.csv"
    r = grotto("run", "pagerank", g.path, "--tolerance", "1e-10", "--max-iterations", "500",
               "--method", method, "--out", out, "--json", "--threads", "2")
    summary = json.loads(r.stdout)["summary"]
    assert summary["converged"]
    assert (summary["gauss_seidel_iterations"] > 0) == (method == "gauss-seidel")
    _, rows = read_csv(out, float)
    want = nx.pagerank(g.nx, alpha=0.85, tol=1e-13, max_iter=2000)
    assert sum(abs(rows[v][0] - want[v]) for v in want) <= 1e-6
    assert abs(sum(x[0] for x in rows.values()) - 1) < 1e-9


def test_pagerank_matches_igraph(graphs, tmp_path):
    g = graphs["rmat-d"]
    out = tmp_path / "pr.csv"
    grotto("run", "pagerank", g.path, "--tolerance", "1e-10", "--max-iterations", "500", "--out", out, "-q")
    _, rows = read_csv(out, float)
    n = len(rows)
    h = ig.Graph(n=n, edges=list(g.nx.edges()), directed=True)
    want = h.pagerank(damping=0.85)
    l1 = sum(abs(rows[v][0] - want[v]) for v in range(n))
    assert l1 <= 1e-6, l1


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d", "grid"])
@pytest.mark.parametrize("s", [SETTINGS[0], SETTINGS[1], SETTINGS[4]])
def test_dfs_visits_the_reachable_set(graphs, tmp_path, name, s):
    g = graphs[name]
    src = source_of(g)
    out = tmp_path / "dfs.csv"
    grotto("run", "dfs", g.path, "--source", src, "--out", out, "--verify", "-q", *settings_args(s))
    _, rows = read_csv(out, int)
    reach = nx.descendants(g.nx, src) | {src}
    visited = {v for v, (o, _) in rows.items() if o >= 0}
    assert visited == reach
    assert sorted(rows[v][0] for v in visited) == list(range(len(visited)))
    for v in visited - {src}:
        p = rows[v][1]
        assert rows[p][0] < rows[v][0] and g.nx.has_edge(p, v)


def test_dfs_stops_at_a_target(graphs):
    g = graphs["grid"]
    r = grotto("run", "dfs", g.path, "--source", 0, "--target", 71, "--json")
    s = json.loads(r.stdout)["summary"]
    assert s["found"] and s["target"] == 71 and s["visited"] < 4200


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d-norev"])
def test_random_walks_follow_edges_and_repeat(graphs, tmp_path, name):
    g = graphs[name]
    results = []
    for s in SETTINGS[:4]:
        out = tmp_path / "rw.csv"
        r = grotto("run", "randomwalk", g.path, "--walkers", 2000, "--steps", 8, "--seed", 11,
                   "--out", out, "--json", "--verify", *settings_args(s))
        j = json.loads(r.stdout)
        assert j["verified"] is True
        _, rows = read_csv(out, int)
        total = sum(x[0] for x in rows.values())
        assert total == 2000 + j["summary"]["steps_taken"]
        # A vertex without out-edges is never left; only neighbours of visited vertices get visits.
        results.append(rows)
    assert all(r == results[0] for r in results)


@pytest.mark.parametrize("algo", ["bfs", "dfs", "wcc", "pagerank", "randomwalk", "coreness", "mis", "ppr"])
def test_verify_passes(graphs, algo):
    g = graphs["sparse-ids"]
    r = grotto("run", algo, g.path, "--verify", "--json")
    assert json.loads(r.stdout)["verified"] is True


@pytest.mark.parametrize("name", ["rmat-u", "grid", "sparse-ids"])
@pytest.mark.parametrize("s", ASYNC)
def test_async_wcc_matches_networkx(graphs, tmp_path, name, s):
    g = graphs[name]
    out = tmp_path / "wcc.csv"
    r = grotto("run", "wcc", g.path, "--out", out, "--json", *async_args(s))
    assert json.loads(r.stdout)["metrics"]["engine"] == "async"
    _, rows = read_csv(out, int)
    for c in nx.connected_components(g.nx):
        m = min(c)
        assert all(rows[v][0] == m for v in c)


def test_async_wcc_refuses_directed_graphs(graphs):
    r = grotto("run", "wcc", graphs["rmat-d"].path, "--engine", "async", code=2)
    assert "undirected" in r.stderr


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d", "rmat-d-norev"])
@pytest.mark.parametrize("s", ASYNC)
def test_async_pagerank_matches_networkx(graphs, tmp_path, name, s):
    g = graphs[name]
    out = tmp_path / "pr.csv"
    r = grotto("run", "pagerank", g.path, "--tolerance", "1e-10", "--max-iterations", "500",
               "--out", out, "--json", *async_args(s))
    summary = json.loads(r.stdout)["summary"]
    assert summary["converged"] and summary["style"] == "push"
    _, rows = read_csv(out, float)
    want = nx.pagerank(g.nx, alpha=0.85, tol=1e-13, max_iter=2000)
    assert sum(abs(rows[v][0] - want[v]) for v in want) <= 1e-6
    assert abs(sum(x[0] for x in rows.values()) - 1) < 1e-9


@pytest.mark.parametrize("name", ["rmat-u", "grid", "sparse-ids"])
@pytest.mark.parametrize("engine", ["async", "sync"])
def test_kcore_and_coreness_match_networkx_and_igraph(graphs, tmp_path, name, engine):
    g = graphs[name]
    core = nx.core_number(g.nx)
    out = tmp_path / "core.csv"
    grotto("run", "coreness", g.path, "--engine", engine, "--out", out, "--cache", "1%", "-q")
    _, rows = read_csv(out, int)
    assert {v: c[0] for v, c in rows.items()} == core
    for k in [2, 3, 5]:
        grotto("run", "kcore", g.path, "--k", k, "--engine", engine, "--out", out, "-q")
        _, rows = read_csv(out, int)
        assert {v for v, c in rows.items() if c[0] == 1} == set(nx.k_core(g.nx, k).nodes)
    if name == "rmat-u":
        n = len(rows)
        h = ig.Graph(n=n, edges=list(g.nx.edges()))
        assert h.coreness() == [core[v] for v in range(n)]


@pytest.mark.parametrize("engine", ["async", "sync"])
def test_directed_core_numbers_are_networkx_s_in_plus_out(graphs, tmp_path, engine):
    # networkx defines core numbers of a directed graph by in- plus
    # out-degree; grotto reads the in-edges from the reverse edges.
    g = graphs["rmat-d"]
    out = tmp_path / "core.csv"
    grotto("run", "coreness", g.path, "--engine", engine, "--out", out, "--verify", "-q")
    _, rows = read_csv(out, int)
    assert {v: c[0] for v, c in rows.items()} == nx.core_number(g.nx)
    for k in [3, 6]:
        grotto("run", "kcore", g.path, "--k", k, "--engine", engine, "--out", out, "--verify", "-q")
        _, rows = read_csv(out, int)
        assert {v for v, c in rows.items() if c[0] == 1} == set(nx.k_core(g.nx, k).nodes)
    r = grotto("run", "kcore", graphs["rmat-d-norev"].path, "--k", 3, code=2)
    assert "--reverse" in r.stderr


@pytest.mark.parametrize("name", ["rmat-u", "rmat-d", "grid"])
@pytest.mark.parametrize("s", ASYNC)
def test_ppr_matches_networkx(graphs, tmp_path, name, s):
    g = graphs[name]
    src = source_of(g)
    out = tmp_path / "ppr.csv"
    r = grotto("run", "ppr", g.path, "--source", src, "--epsilon", "1e-10", "--out", out, "--json",
               *async_args(s))
    left = json.loads(r.stdout)["summary"]["residual_left"]
    _, rows = read_csv(out, float)
    want = nx.pagerank(g.nx, alpha=0.85, personalization={src: 1}, dangling={src: 1},
                       tol=1e-14, max_iter=5000)
    l1 = sum(abs(rows[v][0] - want[v]) for v in want)
    assert l1 <= left + 1e-8, (l1, left)


@pytest.mark.parametrize("name", ["rmat-u", "grid", "sparse-ids"])
@pytest.mark.parametrize("s", ASYNC)
def test_mis_is_a_maximal_independent_set(graphs, tmp_path, name, s):
    g = graphs[name]
    out = tmp_path / "mis.csv"
    results = []
    for seed in [1, 2]:
        grotto("run", "mis", g.path, "--seed", seed, "--out", out, "-q", *async_args(s))
        _, rows = read_csv(out, int)
        chosen = {v for v, x in rows.items() if x[0] == 1}
        assert nx.is_independent_set(g.nx, chosen) if hasattr(nx, "is_independent_set") else \
            not any(g.nx.has_edge(u, v) for u in chosen for v in g.nx.neighbors(u) if v in chosen)
        assert all(v in chosen or any(u in chosen for u in g.nx.neighbors(v)) for v in g.nx.nodes)
        results.append(chosen)
    assert results[0] != results[1]


@pytest.fixture(scope="module")
def weighted(graphs):
    """A weighted directed R-MAT graph and scipy's reading of it."""
    with tempfile.TemporaryDirectory() as d:
        el = os.path.join(d, "w.el")
        grotto("generate", "rmat", "--scale", "11", "--edge-factor", "8", "--seed", "9", "-o", el)
        rng = np.random.default_rng(5)
        edges = [tuple(map(int, l.split())) for l in open(el) if not l.startswith("#")]
        ws = rng.integers(1, 64, size=len(edges)) / 8.0
        wel = os.path.join(d, "w.wel")
        with open(wel, "w") as f:
            for (u, v), w in zip(edges, ws):
                f.write(f"{u} {v} {w}\n")
        path = os.path.join(d, "w.grotto")
        grotto("convert", wel, path, "-q", "--weighted")
        best = {}
        for (u, v), w in zip(edges, ws):
            if u != v:
                best[(u, v)] = min(best.get((u, v), np.inf), w)
        yield path, best


@pytest.mark.parametrize("s", ASYNC)
def test_sssp_matches_scipy_dijkstra(weighted, tmp_path, s):
    path, best = weighted
    out = tmp_path / "sssp.csv"
    src = 0
    r = grotto("run", "sssp", path, "--source", src, "--out", out, "--json", "--verify", *async_args(s))
    assert json.loads(r.stdout)["verified"] is True
    _, rows = read_csv(out, float)
    # The rows are the ids that occur in the edge list (no others).
    assert set(rows) >= {u for e in best for u in e}
    n = max(rows) + 1
    (us, vs), ws = zip(*best.keys()), list(best.values())
    m = sp.csr_matrix((ws, (us, vs)), shape=(n, n))
    dist = csg.dijkstra(m, directed=True, indices=src)
    for v in rows:
        assert rows[v][0] == pytest.approx(dist[v], rel=1e-5) or (np.isinf(dist[v]) and np.isinf(rows[v][0]))


def test_sssp_refuses_unweighted_graphs(graphs):
    r = grotto("run", "sssp", graphs["rmat-u"].path, code=2)
    assert "--weighted" in r.stderr
