"""grotto and Spark against each other, in a real local Spark (local[2]):
Spark writes and holds the edge tables, grotto.spark converts them, runs
the algorithms and hands the results back as Spark DataFrames, and
GraphX, the library GraphFrames runs for these algorithms, computes the
same answers inside Spark (tests/python/graphx.py). PySpark is installed
by scripts/test.sh; nothing is downloaded while the tests run."""

import math
import os

import networkx as nx
import numpy as np
import pytest

import grotto
import grotto.spark as gs

from graphx import GraphX, compile_reference, session


class Frames:
    """A GraphFrame's two tables, as graphframes.GraphFrame holds them."""

    def __init__(self, vertices, edges):
        self.vertices, self.edges = vertices, edges


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    jar = compile_reference(str(tmp_path_factory.mktemp("graphx")))
    s = session(jar)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def gx(spark):
    return GraphX(spark)


def random_edges(n, m, seed, *, mutual=0.3, spread=7, offset=1000):
    """A directed multigraph-free edge list on sparse ids (id*spread +
    offset), a share of its arcs mutual, a few vertices with no out-edge."""
    rng = np.random.default_rng(seed)
    pairs = set()
    while len(pairs) < m:
        u, v = (int(x) for x in rng.integers(0, n, 2))
        if u == v:
            continue
        pairs.add((u, v))
        if rng.random() < mutual:
            pairs.add((v, u))
    return sorted((u * spread + offset, v * spread + offset) for u, v in pairs)


def edge_frame(spark, pairs):
    return spark.createDataFrame(pairs, "src long, dst long")


def as_dict(df, column):
    return {r["id"]: r[column] for r in df.select("id", column).collect()}


def both_ways(pairs):
    return sorted(set(pairs) | {(v, u) for u, v in pairs})


@pytest.fixture(scope="module")
def directed(spark):
    pairs = random_edges(300, 900, seed=3)
    return pairs, edge_frame(spark, pairs)


def test_round_trip_through_parquet_written_by_spark(spark, gx, directed, tmp_path):
    """Spark writes the edges as Parquet; grotto converts what Spark wrote
    (and the DataFrame itself, both ways); the results go back to Spark,
    which reads them and agrees with GraphX and networkx."""
    pairs, _ = directed
    und = both_ways(pairs)
    edge_frame(spark, pairs).write.parquet(str(tmp_path / "edges"))
    edges = spark.read.parquet(str(tmp_path / "edges"))

    g1, g2 = tmp_path / "a.grotto", tmp_path / "b.grotto"
    r1 = gs.convert(edges, g1, undirected=True)
    r2 = gs.convert(edges, g2, undirected=True, via="arrow")
    h = nx.Graph(pairs)
    for r in (r1, r2):
        assert (r["vertices"], r["edges"]) == (h.number_of_nodes(), h.number_of_edges())
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")], "the spool directory is removed"
    g = grotto.open(g1)

    # BFS: distances as GraphX's shortest paths (undirected), parents real edges.
    src = pairs[0][0]
    bfs = g.bfs(src).to_spark(spark, path=tmp_path / "bfs.parquet")
    assert [f.name for f in bfs.schema.fields] == ["id", "distance", "parent"]
    ours = {r["id"]: (r["distance"], r["parent"]) for r in spark.read.parquet(str(tmp_path / "bfs.parquet")).collect()}
    ref = as_dict(gx.shortest_paths(edge_frame(spark, und), src), "distance")
    assert {v: d for v, (d, _) in ours.items() if d is not None} == ref
    assert all(d is None and p is None for v, (d, p) in ours.items() if v not in ref)
    assert all(h.has_edge(p, v) for v, (d, p) in ours.items() if d not in (None, 0))

    # WCC: GraphX's labels (the smallest id in each component).
    wcc = as_dict(g.wcc().to_spark(spark), "component")
    assert wcc == as_dict(gx.connected_components(edges), "component")

    # PageRank: same iterations, same damping, GraphX's scale (sum n).
    run = g.pagerank(tolerance=1e-300, max_iterations=15, contributions="f64")
    assert run.summary["iterations"] == 15
    pr = as_dict(run.to_spark(spark), "pagerank")
    ref = as_dict(gx.page_rank(edge_frame(spark, und), 15), "pagerank")
    assert set(pr) == set(ref)
    assert math.isclose(sum(pr.values()), len(pr), rel_tol=1e-9)
    assert max(abs(pr[v] - ref[v]) for v in pr) < 1e-9

    # Core numbers: GraphX has none; networkx's.
    core = g.coreness().to_spark(spark, style="grotto")
    assert as_dict(core, "core") == nx.core_number(h)

    # CDLP: see test_label_propagation_*; here Spark reads what grotto wrote.
    lab = g.cdlp(iterations=3).to_spark(spark)
    assert lab.count() == h.number_of_nodes() and lab.columns == ["id", "label"]


def test_page_rank_fixed_iterations_match_graphx(spark, gx, directed):
    """Same iterations from the same start: on a graph without dangling
    vertices GraphX's and networkx's definitions give the same vector
    (times n) at every iteration."""
    pairs, _ = directed
    edges = edge_frame(spark, both_ways(pairs))
    for it in (1, 5, 20):
        ours = as_dict(gs.run(edges, "pageRank", maxIter=it, resetProbability=0.2), "pagerank")
        ref = as_dict(gx.page_rank(edges, it, reset=0.2), "pagerank")
        assert set(ours) == set(ref)
        assert max(abs(ours[v] - ref[v]) for v in ours) < 1e-9, it


def test_page_rank_with_dangling_vertices_converges_to_graphx(spark, gx, directed):
    """A directed graph with vertices that have no out-edge: GraphX drops
    their rank each iteration and rescales at the end, networkx spreads it
    evenly; both are the same fixed point, so converged runs agree."""
    pairs, edges = directed
    outdeg = {u for u, _ in pairs}
    assert any(v not in outdeg for _, v in pairs), "the graph has dangling vertices"
    ours = as_dict(gs.run(edges, "pageRank", tol=1e-9, resetProbability=0.3), "pagerank")
    ref = as_dict(gx.page_rank_until(edges, 1e-7, reset=0.3), "pagerank")
    assert set(ours) == set(ref)
    assert max(abs(ours[v] - ref[v]) for v in ours) < 1e-5
    nxpr = nx.pagerank(nx.DiGraph(pairs), alpha=0.7, tol=1e-13, max_iter=1000)
    assert max(abs(ours[v] / len(ours) - nxpr[v]) for v in ours) < 1e-9


def test_components_scc_triangles_and_paths_match_graphx(spark, gx, directed):
    pairs, edges = directed
    frames = Frames(spark.createDataFrame(sorted({(u,) for e in pairs for u in e}), "id long"), edges)

    cc = gs.run(frames, "connectedComponents")
    assert as_dict(cc, "component") == as_dict(gx.connected_components(edges), "component")

    scc = gs.run(frames, "stronglyConnectedComponents")
    ref = as_dict(gx.strongly_connected(edges), "component")
    assert as_dict(scc, "component") == ref
    assert len(set(ref.values())) > 1

    tri = gs.run(frames, "triangleCount")
    ref = as_dict(gx.triangle_count(edges), "count")
    assert as_dict(tri, "count") == ref and sum(ref.values()) > 0

    landmarks = [pairs[0][0], pairs[-1][1]]
    sp = {r["id"]: dict(r["distances"]) for r in gs.run(frames, "shortestPaths", landmarks=landmarks).collect()}
    for lm in landmarks:
        ref = as_dict(gx.shortest_paths(edges, lm), "distance")
        assert {v: d[lm] for v, d in sp.items() if lm in d} == ref


def test_label_propagation_matches_graphx_where_there_is_no_tie(spark, gx):
    """GraphX's labelPropagation and Graphalytics' CDLP both count the
    labels along in- and out-edges (an arc both ways counts twice); they
    differ on ties (GraphX: whatever its hash map yields first; grotto:
    the smallest). Each vertex here has one partner it links both ways
    and single arcs to others, so no step has a tie, and the answers
    agree at every step (the pairs swap labels each step)."""
    rng = np.random.default_rng(5)
    n = 200
    perm = rng.permutation(n)
    pairs = set()
    for i in range(0, n, 2):
        a, b = int(perm[i]), int(perm[i + 1])
        pairs |= {(a, b), (b, a)}
    while len(pairs) < n + 150:
        u, v = (int(x) for x in rng.integers(0, n, 2))
        if u != v and (v, u) not in pairs:
            pairs.add((u, v))
    edges = edge_frame(spark, sorted(pairs))
    for steps in (1, 2, 5):
        ours = as_dict(gs.run(edges, "labelPropagation", maxIter=steps), "label")
        assert ours == as_dict(gx.label_propagation(edges, steps), "label"), steps


def test_label_propagation_first_step_agrees_off_ties(spark, gx, directed):
    """On a general graph, one step from the same start: where a vertex's
    most frequent neighbour label is unique both give it; on a tie grotto
    gives the smallest and GraphX one of the tied labels."""
    pairs, edges = directed
    count = {}
    for u, v in pairs:
        count.setdefault(u, {}).setdefault(v, 0)
        count[u][v] += 1
        count.setdefault(v, {}).setdefault(u, 0)
        count[v][u] += 1
    ours = as_dict(gs.run(edges, "labelPropagation", maxIter=1), "label")
    ref = as_dict(gx.label_propagation(edges, 1), "label")
    unique = 0
    for v, c in count.items():
        top = max(c.values())
        tied = sorted(lab for lab, k in c.items() if k == top)
        assert ours[v] == tied[0] and ref[v] in tied
        if len(tied) == 1:
            unique += 1
            assert ours[v] == ref[v]
    assert unique > 50


def test_string_ids_and_isolated_vertices_keep_graphframes_shape(spark):
    """A GraphFrame with string ids and a vertex on no edge: the result is
    its vertex table with the new column, names kept, the isolated vertex
    included (as GraphFrames includes it)."""
    v = spark.createDataFrame([("a", 30), ("b", 40), ("c", 50), ("lonely", 60)], "id string, age int")
    e = spark.createDataFrame([("a", "b"), ("b", "c"), ("c", "a")], "src string, dst string")
    out = gs.run(Frames(v, e), "pageRank", tol=1e-10)
    assert out.columns == ["id", "age", "pagerank"]
    pr = as_dict(out, "pagerank")
    assert set(pr) == {"a", "b", "c", "lonely"}
    # GraphX: the cycle's vertices 1 each, the lonely one the reset
    # probability, then scaled to sum to 4.
    assert math.isclose(pr["lonely"], 0.15 * 4 / (0.15 + 3), rel_tol=1e-7)
    assert math.isclose(pr["a"], 4 / (0.15 + 3), rel_tol=1e-7)
    assert math.isclose(sum(pr.values()), 4, rel_tol=1e-9)
    cc = as_dict(gs.run(Frames(v, e), "connectedComponents"), "component")
    assert cc["a"] == cc["b"] == cc["c"] != cc["lonely"]


def test_bad_input_is_refused_before_anything_is_written(spark, tmp_path):
    e = spark.createDataFrame([(1, 2)], "source long, target long")
    with pytest.raises(grotto.InputError, match="no column 'src'"):
        gs.convert(e, tmp_path / "g.grotto")
    assert not os.listdir(tmp_path)
    gs.convert(e, tmp_path / "g.grotto", src="source", dst="target")
    with pytest.raises(grotto.InputError, match="maxIter= and tol="):
        gs.run(e.toDF("src", "dst"), "pageRank")
    with pytest.raises(grotto.InputError, match="unknown parameter 'maxIterations'"):
        gs.run(e.toDF("src", "dst"), "labelPropagation", maxIter=2, maxIterations=3)
    r = grotto.open(tmp_path / "g.grotto").wcc()
    (tmp_path / "taken.parquet").write_text("mine")
    with pytest.raises(grotto.InputError, match="exists"):
        r.to_spark(spark, path=tmp_path / "taken.parquet")
    assert (tmp_path / "taken.parquet").read_text() == "mine"
    neg = spark.createDataFrame([(1, -2)], "src long, dst long")
    with pytest.raises(grotto.Error, match="the Spark DataFrame.*-2") as err:
        gs.convert(neg, tmp_path / "n.grotto")
    assert ".spark-" not in str(err.value)
    nulls = spark.createDataFrame([(1, None)], "src long, dst long")
    with pytest.raises(grotto.Error, match="null"):
        gs.convert(nulls, tmp_path / "n.grotto", via="arrow")
    assert not (tmp_path / "n.grotto").exists()
    assert sorted(os.listdir(tmp_path)) == ["g.grotto", "taken.parquet"]


def test_louvain_and_leiden_come_back_as_graphframes_columns(spark, tmp_path):
    """GraphFrames has no Louvain or Leiden: grotto.spark.run gives them
    on a GraphFrame's edges taken both ways, the vertices' own columns
    kept, and the same communities as the graph file's run."""
    P = nx.planted_partition_graph(3, 20, 0.5, 0.01, seed=4)
    pairs = sorted((u * 11 + 5, v * 11 + 5) for u, v in P.edges())
    edges = edge_frame(spark, pairs)
    ids = sorted({x for e in pairs for x in e})
    vertices = spark.createDataFrame([(i, f"user{i}") for i in ids], "id long, name string")
    for algo in ("louvain", "leiden"):
        df = gs.run(Frames(vertices, edges), algo, seed=3, path=tmp_path / f"{algo}.grotto")
        assert [f.name for f in df.schema.fields] == ["id", "name", "community"]
        got = {r["id"]: r["community"] for r in df.collect()}
        res = getattr(grotto.open(tmp_path / f"{algo}.grotto"), algo)(seed=3)
        assert got == dict(zip(res["id"].tolist(), res["community"].tolist()))
        blocks = {}
        for v, c in got.items():
            blocks.setdefault(c, set()).add(((v - 5) // 11) // 20)
        assert len(got) == len(ids) and all(len(b) == 1 for b in blocks.values())
