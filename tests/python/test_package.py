"""The `grotto` Python package as a user drives it: conversion from every
kind of source, every algorithm against networkx, results as NumPy, Arrow
and pandas, errors as exceptions with nothing written, and Ctrl-C."""

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import grotto

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "..", "docs", "python.md")

# Sparse ids beyond 32 bits, so they are mapped internally.
BIG = 10_000_000_000


def edge_table(seed=7, n=300, m=1500):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m) * 3 + BIG
    dst = rng.integers(0, n, m) * 3 + BIG
    w = rng.uniform(0.5, 4.0, m).astype(np.float32)
    keep = src != dst
    df = pd.DataFrame({"src": src[keep], "dst": dst[keep], "weight": w[keep]})
    # One weight per undirected edge: which duplicate a build keeps is
    # not networkx's concern.
    lo, hi = np.minimum(df.src, df.dst), np.maximum(df.src, df.dst)
    return df[~pd.DataFrame({"lo": lo, "hi": hi}).duplicated()].reset_index(drop=True)


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    d = tmp_path_factory.mktemp("pkg")
    df = edge_table()
    path = d / "g.grotto"
    grotto.convert(df, path, undirected=True)
    h = nx.Graph()
    for s, t, w in zip(df.src, df.dst, df.weight):
        h.add_edge(int(s), int(t), weight=float(w))
    return grotto.open(path), h, df


def as_dict(res, col):
    return dict(zip(res["id"].tolist(), res[col].tolist()))


def test_open_reports_the_graph(graph):
    g, h, _ = graph
    assert g.num_vertices == h.number_of_nodes()
    assert g.num_edges == h.number_of_edges()
    assert not g.directed and g.weighted
    v = next(iter(h.nodes))
    assert sorted(g.neighbors(v)) == sorted(h.neighbors(v))
    assert g.degree(v) == h.degree(v)
    assert g.degrees([v, v]).tolist() == [h.degree(v)] * 2
    assert g.info()["vertices"] == g.num_vertices


@pytest.mark.parametrize("engine", ["sync", "async"])
def test_bfs_matches_networkx(graph, engine):
    g, h, _ = graph
    src = max(h.nodes, key=h.degree)
    res = g.bfs(src, engine=engine, verify=True, cache="8KiB")
    assert res.verified and res.engine == engine
    want = nx.single_source_shortest_path_length(h, src)
    got = {v: d for v, d in as_dict(res, "depth").items() if d >= 0}
    assert got == want


def test_wcc_pagerank_coreness_sssp_eccentricity_match_networkx(graph):
    g, h, _ = graph
    comp = as_dict(g.wcc(verify=True), "component")
    for c in nx.connected_components(h):
        assert {comp[v] for v in c} == {min(c)}
    pr = as_dict(g.pagerank(tolerance=1e-10, max_iterations=500), "score")
    want = nx.pagerank(h, alpha=0.85, tol=1e-13, max_iter=2000, weight=None)
    assert sum(abs(pr[v] - want[v]) for v in want) < 1e-6
    assert as_dict(g.coreness(verify=True), "core") == nx.core_number(h)
    src = max(h.nodes, key=h.degree)
    dist = as_dict(g.sssp(src, verify=True), "distance")
    want = nx.single_source_dijkstra_path_length(h, src)
    for v, d in want.items():
        assert abs(dist[v] - d) <= 1e-4 * max(1.0, d)
    assert all(np.isinf(dist[v]) for v in h.nodes if v not in want)
    ecc = g.eccentricity(src, sweeps=2, verify=True).summary
    reach = h.subgraph(nx.node_connected_component(h, src))
    assert ecc["eccentricity"] == nx.eccentricity(reach, v=src)


def cdlp_reference(h, rounds):
    """LDBC Graphalytics' CDLP on a networkx graph: synchronous rounds,
    the most frequent neighbour label (smallest on a tie), in- and
    out-neighbours of a directed graph together."""
    label = {v: v for v in h}
    for _ in range(rounds):
        new = {}
        for v in h:
            if h.is_directed():
                nbrs = list(h.successors(v)) + list(h.predecessors(v))
            else:
                nbrs = list(h.neighbors(v))
            counts = {}
            for u in nbrs:
                counts[label[u]] = counts.get(label[u], 0) + 1
            top = max(counts.values(), default=0)
            new[v] = min((l for l, c in counts.items() if c == top), default=label[v])
        label = new
    return label


def test_cdlp_follows_ldbc_rules(graph, tmp_path):
    g, h, df = graph
    assert as_dict(g.cdlp(iterations=5, verify=True), "label") == cdlp_reference(h, 5)
    # Directed: some edges both ways, counted twice.
    arcs = pd.concat([df[["src", "dst"]], df[["dst", "src"]].iloc[::5].set_axis(["src", "dst"], axis=1)])
    d = nx.DiGraph(zip(arcs.src.tolist(), arcs.dst.tolist()))
    grotto.convert(arcs, tmp_path / "d.grotto", reverse=True)
    got = grotto.open(tmp_path / "d.grotto").cdlp(iterations=3, verify=True)
    assert as_dict(got, "label") == cdlp_reference(d, 3)
    grotto.convert(arcs, tmp_path / "plain.grotto")
    with pytest.raises(grotto.InputError, match="reverse=True"):
        grotto.open(tmp_path / "plain.grotto").cdlp()


def test_every_algorithm_runs_verified(graph):
    g, h, _ = graph
    src = max(h.nodes, key=h.degree)
    far = max(nx.single_source_shortest_path_length(h, src).items(), key=lambda x: x[1])[0]
    runs = {
        "bfs": lambda: g.bfs(src, verify=True),
        "dfs": lambda: g.dfs(src, verify=True),
        "wcc": lambda: g.wcc(verify=True),
        "pagerank": lambda: g.pagerank(verify=True),
        "kcore": lambda: g.kcore(3, verify=True),
        "coreness": lambda: g.coreness(verify=True),
        "ppr": lambda: g.ppr(src, verify=True),
        "mis": lambda: g.mis(seed=3, verify=True),
        "sssp": lambda: g.sssp(src, verify=True),
        "path": lambda: g.run("path", source=src, target=far, weighted=True, verify=True),
        "ego": lambda: g.run("ego", source=src, radius=2, verify=True),
        "randomwalk": lambda: g.random_walks(walkers=500, steps=5, verify=True),
        "eccentricity": lambda: g.eccentricity(src, verify=True),
        "cdlp": lambda: g.cdlp(verify=True),
        "lcc": lambda: g.lcc(verify=True),
        "tc": lambda: g.tc(per_vertex=True, verify=True),
        "bc": lambda: g.bc(k=8, verify=True),
        "scc": lambda: g.scc(verify=True),
        "louvain": lambda: g.louvain(verify=True),
        "leiden": lambda: g.leiden(verify=True),
        "eigenvector": lambda: g.eigenvector(weighted=True, verify=True),
        "katz": lambda: g.katz(alpha=0.05, verify=True),
        "linkpred": lambda: g.link_prediction(src, verify=True),
    }
    assert sorted(runs) == sorted(a["name"] for a in grotto.algorithms())
    for name, call in runs.items():
        res = call()
        assert res.verified, name
        # A path's table has a row per step, an ego network's a row per
        # member; the others one per vertex.
        rows = {"path": res.summary.get("hops", 0) + 1, "ego": res.summary.get("vertices"),
                "linkpred": res.summary.get("pairs")}
        assert len(res) == rows.get(name, g.num_vertices), name
        assert res.metrics["traversed_edges"] >= 0
    core = as_dict(g.kcore(3), "in_core")
    want = set(nx.k_core(h, 3).nodes)
    assert {v for v, c in core.items() if c} == want
    mis = {v for v, c in as_dict(g.mis(), "in_set").items() if c}
    assert nx.is_dominating_set(h, mis) and not any(h.has_edge(a, b) for a in mis for b in mis)


def test_results_as_arrow_pandas_and_numpy(graph):
    g, _, _ = graph
    res = g.pagerank()
    t = res.to_arrow()
    assert t.column_names == ["id", "score"]
    assert t.column("id").type == pa.uint64() and t.num_rows == g.num_vertices
    df = res.to_pandas()
    assert list(df.columns) == ["id", "score"] and df["id"].min() >= BIG
    assert abs(df["score"].sum() - 1) < 1e-9
    assert isinstance(res.to_numpy()["score"], np.ndarray)


def neighbour_sets(g):
    out = {}
    for v in g.wcc()["id"].tolist():
        out[v] = sorted(g.neighbors(v))
    return out


def test_every_source_gives_the_same_graph(tmp_path, graph):
    _, _, df = graph
    want = None
    el = tmp_path / "e.txt"
    df.to_csv(el, sep=" ", header=False, index=False)
    table = pa.Table.from_pandas(df)
    sources = {
        "pandas": df,
        "arrow": table,
        "reader": pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=100)),
        "dict": {"src": df.src.to_numpy(), "dst": df.dst.to_numpy(), "weight": df.weight.to_numpy()},
        "tuple": (df.src.to_numpy(), df.dst.to_numpy(), df.weight.to_numpy()),
        "text": str(el),
    }
    for name, source in sources.items():
        p = tmp_path / f"{name}.grotto"
        report = grotto.convert(source, p, undirected=True)
        assert report["ids_compacted"], name
        got = neighbour_sets(grotto.open(p))
        want = want or got
        assert got == want, name


def test_a_bad_arrow_stream_is_refused_and_leaves_nothing(tmp_path):
    t = pa.table({"src": [1, 2, -3], "dst": [2, 3, 4]})
    reader = pa.RecordBatchReader.from_batches(t.schema, t.to_batches(max_chunksize=1))
    with pytest.raises(grotto.InputError, match="the Arrow stream: row 2 has src -3"):
        grotto.convert(reader, tmp_path / "s.grotto")
    assert os.listdir(tmp_path) == []


def test_other_column_names_and_unweighted(tmp_path):
    df = pd.DataFrame({"a": [5, 6, 7], "b": [6, 7, 5]})
    p = tmp_path / "c.grotto"
    grotto.convert(df, p, columns=("a", "b", "w"))
    g = grotto.open(p)
    # The vertices are the ids that occur: 5, 6 and 7 (as networkx has
    # it); a vertex count asks for the dense range 0..7 instead.
    assert (g.num_vertices, g.num_edges, g.directed, g.weighted) == (3, 3, True, False)
    grotto.convert(df, p, columns=("a", "b", "w"), ids="compact")
    assert grotto.open(p).num_vertices == 3
    grotto.convert(df, p, columns=("a", "b", "w"), vertices=8)
    assert grotto.open(p).num_vertices == 8


@pytest.mark.parametrize(
    "df, message",
    [
        (pd.DataFrame({"src": [1, 2], "dest": [2, 3]}), "no column 'dst'"),
        (pd.DataFrame({"src": pd.array([1, None], dtype="Int64"), "dst": [2, 3]}), "1 nulls"),
        (pd.DataFrame({"src": [1, -2], "dst": [2, 3]}), "row 1 has id -2"),
        (pd.DataFrame({"src": [1.5, 2.0], "dst": [2, 3]}), "floats"),
        (pd.DataFrame({"src": ["a", 2], "dst": ["b", "c"]}), "row 1 has 2"),
        (pa.table({"src": pa.array([1, None]), "dst": [2, 3]}), "1 nulls"),
        (pd.DataFrame({"src": [1, 2], "dst": [2, 3], "weight": [1.0, float("nan")]}), "weight"),
    ],
)
def test_bad_tables_raise_input_error_and_write_nothing(tmp_path, df, message):
    p = tmp_path / "bad.grotto"
    with pytest.raises(grotto.InputError, match=re.escape(message)):
        grotto.convert(df, p)
    assert os.listdir(tmp_path) == []


def test_bad_files_and_options_raise_grotto_errors(tmp_path, graph):
    g, _, _ = graph
    bad = tmp_path / "x.txt"
    bad.write_text("1 2\n3 x\n")
    with pytest.raises(grotto.InputError, match=r"x\.txt:2:3: expected a vertex id"):
        grotto.convert(bad, tmp_path / "x.grotto")
    with pytest.raises(grotto.InputError):
        grotto.convert(tmp_path / "missing.txt", tmp_path / "y.grotto")
    assert sorted(os.listdir(tmp_path)) == ["x.txt"]
    junk = tmp_path / "junk.grotto"
    junk.write_bytes(b"\0" * 8192)
    with pytest.raises(grotto.CorruptGraphError):
        grotto.open(junk)
    with pytest.raises(grotto.InputError, match="engine"):
        g.bfs(engine="fast")
    with pytest.raises(grotto.InputError, match="asynchronous engine only"):
        g.ppr(engine="sync")
    with pytest.raises(grotto.InputError, match="no algorithm"):
        g.run("nosuch")
    with pytest.raises(grotto.InputError, match='semantics="weird"'):
        g.pagerank(semantics="weird")
    assert issubclass(grotto.CorruptGraphError, grotto.Error)


def test_progress_reaches_a_callable(tmp_path):
    calls = []
    rng = np.random.default_rng(3)
    n = 3_000_000
    src = rng.integers(0, 1 << 20, n)
    dst = rng.integers(0, 1 << 20, n)
    grotto.convert((src, dst), tmp_path / "p.grotto", progress=lambda *a: calls.append(a))
    assert calls, "no progress reported"
    stages = [c[0] for c in calls]
    assert "build" in stages or "parse" in stages
    for stage, total, done in calls:
        assert isinstance(stage, str) and done >= 0
        assert total is None or done <= total
    # And none when asked for none.
    grotto.convert((src[:10], dst[:10]), tmp_path / "q.grotto", progress=False)

    # Runs report the edges handed to the algorithm, ending at the total.
    g = grotto.open(tmp_path / "p.grotto")
    for engine in ("sync", "async"):
        calls = []
        r = g.bfs(0, engine=engine, progress=lambda *a: calls.append(a))
        assert calls and all(c[0] == "bfs" and c[1] is None for c in calls), engine
        done = [c[2] for c in calls]
        assert done == sorted(done), engine
        assert done[-1] == r.metrics["traversed_edges"] > 0, engine
    g.pagerank(progress=False)


INTERRUPTED = textwrap.dedent(
    """
    import os, signal, sys, numpy as np, grotto
    # Ctrl-C raises KeyboardInterrupt, as in a terminal, even when this
    # process was started with SIGINT ignored (a shell's background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    out = sys.argv[1]
    rng = np.random.default_rng(1)
    n = 30_000_000
    src = rng.integers(0, 1 << 22, n, dtype=np.uint64)
    dst = rng.integers(0, 1 << 22, n, dtype=np.uint64)
    said = []
    def ready(*_):
        # The first progress report: the conversion is under way.
        if not said:
            said.append(1)
            print("ready", flush=True)
    try:
        grotto.convert((src, dst), os.path.join(out, "big.grotto"), undirected=True,
                       progress=ready)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    """
)


def test_ctrl_c_raises_keyboard_interrupt_and_leaves_nothing(tmp_path):
    p = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED, str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    # "ready" comes from the conversion's first progress report (about
    # 0.1 s in): a fixed sleep after starting raced a conversion that had
    # already finished on a fast run.
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.05)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    waited = time.monotonic() - t0
    assert out.strip() == "interrupted", (out, err)
    assert waited < 1.5, waited
    assert os.listdir(tmp_path) == []


SMALL_LOOP = textwrap.dedent(
    """
    import signal, sys, grotto
    signal.signal(signal.SIGINT, signal.default_int_handler)
    grotto.convert([(0, 1), (1, 2), (2, 3)], sys.argv[1], undirected=True)
    g = grotto.open(sys.argv[1])
    try:
        for i in range(10**9):
            g.wcc()  # small work: run on the calling side, not off a thread
            if i == 100:
                print("ready", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    """
)


def test_ctrl_c_stops_a_loop_of_small_calls(tmp_path):
    # Runs on small graphs do not poll for signals; the interrupt must
    # still reach the loop as soon as a call returns, never be swallowed.
    p = subprocess.Popen(
        [sys.executable, "-c", SMALL_LOOP, str(tmp_path / "s.grotto")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert p.stdout.readline().strip() == "ready"
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert out.strip() == "interrupted", (out, err)
    assert time.monotonic() - t0 < 1.5


def test_the_tutorial_runs(tmp_path):
    """Every ```python block of docs/python.md, in order, in one namespace."""
    text = open(DOCS).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        ns = {}
        for b in blocks:
            exec(compile(b, DOCS, "exec"), ns)
    finally:
        os.chdir(cwd)


def test_vertex_order_keeps_the_users_ids_and_row_order(tmp_path):
    """order="degree" (the default) renumbers vertices inside the file;
    results, rows and neighbour lists still speak the user's ids, in the
    user's order, and equal those of order="none"."""
    df = edge_table(seed=11)
    a, b = tmp_path / "none.grotto", tmp_path / "degree.grotto"
    grotto.convert(df, a, undirected=True, order="none")
    report = grotto.convert(df, b, undirected=True, order="degree")
    assert report["order"] == "degree"
    # Uniform random degrees are not skewed: "auto" (the default) keeps
    # the user's order.
    assert grotto.convert(df, tmp_path / "auto.grotto", undirected=True)["order"] == "none"
    ga, gb = grotto.open(a), grotto.open(b)
    assert gb.info()["ordered"] and not ga.info()["ordered"]
    src = int(df.src.iloc[0])
    ra, rb = ga.bfs(src, verify=True), gb.bfs(src, verify=True)
    assert ra["id"].tolist() == rb["id"].tolist() == sorted(ra["id"].tolist())
    assert ra["depth"].tolist() == rb["depth"].tolist()
    assert ga.wcc()["component"].tolist() == gb.wcc()["component"].tolist()
    assert np.allclose(ga.pagerank()["score"], gb.pagerank()["score"], atol=1e-6)
    for v in df.src.iloc[:20]:
        na, nb = ga.neighbors(int(v), weights=True), gb.neighbors(int(v), weights=True)
        assert na[0] == nb[0] == sorted(na[0])
        assert na[1].tolist() == nb[1].tolist()
    # Breadth-first order: the same answers in the user's ids.
    c = tmp_path / "bfs.grotto"
    assert grotto.convert(df, c, undirected=True, order="bfs")["order"] == "bfs"
    gc = grotto.open(c)
    assert gc.info()["ordered"]
    assert gc.bfs(src, verify=True)["depth"].tolist() == ra["depth"].tolist()
    assert gc.wcc()["component"].tolist() == ga.wcc()["component"].tolist()
    with pytest.raises(grotto.InputError, match="order"):
        grotto.convert(df, tmp_path / "x.grotto", order="random")
