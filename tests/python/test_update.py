"""`grotto.update` as a Python user drives it: batches from DataFrames,
arrays and files change a graph in place, and the updated graph's BFS,
components, PageRank and cores match networkx on the updated edge set;
bad batches raise and change nothing."""

import os

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import grotto


def as_dict(res, col):
    t = res.to_pandas()
    return dict(zip(t["id"].tolist(), t[col].tolist()))


@pytest.fixture
def updated(tmp_path):
    rng = np.random.default_rng(11)
    n, m = 400, 2500
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = src != dst
    h = nx.Graph()
    h.add_nodes_from(range(n))
    h.add_edges_from(zip(src[keep].tolist(), dst[keep].tolist()))
    path = tmp_path / "g.grotto"
    grotto.convert(pd.DataFrame({"src": src[keep], "dst": dst[keep]}), path,
                   undirected=True, vertices=n)
    # Batch 1 from a DataFrame: deletes of existing edges and of missing
    # ones, inserts including new vertices (ids 400..409).
    edges = list(h.edges)
    gone = [edges[i] for i in rng.choice(len(edges), 300, replace=False)] + [(1, 1), (5000, 3)]
    new = [(int(a), int(b)) for a, b in zip(rng.integers(0, n + 10, 350), rng.integers(0, n + 10, 350)) if a != b]
    report = grotto.update(
        path,
        insert=pd.DataFrame(new, columns=["src", "dst"]),
        delete=pd.DataFrame(gone, columns=["src", "dst"]),
        merge="never",
    )
    h.remove_edges_from(gone)
    h.add_edges_from(new)
    # A new id adds that one vertex, as in networkx: ids 400..409 that
    # no insert names are no vertices.
    assert report["edges"] == h.number_of_edges()
    assert report["commit"] == 1
    assert report["not_present"] >= 2
    # Batch 2 from a text file and a tuple of arrays.
    f = tmp_path / "ins.el"
    more = [(0, 7), (399, 405), (3, 8)]
    f.write_text("".join(f"{a} {b}\n" for a, b in more))
    gone2 = list(h.edges)[:50]
    report = grotto.update(
        path, insert=os.fspath(f),
        delete=(np.array([e[0] for e in gone2]), np.array([e[1] for e in gone2])),
        merge="never",
    )
    h.remove_edges_from(gone2)
    h.add_edges_from(more)
    assert report["commit"] == 2 and report["edges"] == h.number_of_edges()
    return grotto.open(path), h, path


def test_updated_graph_matches_networkx(updated):
    g, h, _ = updated
    assert g.num_vertices == h.number_of_nodes()
    assert g.num_edges == h.number_of_edges()
    for v in [0, 7, 399, 405]:
        assert sorted(g.neighbors(v)) == sorted(h.neighbors(v))
    src = max(h.nodes, key=h.degree)
    for engine in ["sync", "async"]:
        depth = as_dict(g.bfs(src, engine=engine, verify=True), "depth")
        want = nx.single_source_shortest_path_length(h, src)
        assert {v: d for v, d in depth.items() if d >= 0} == want
    comp = as_dict(g.wcc(verify=True), "component")
    for c in nx.connected_components(h):
        assert {comp[v] for v in c} == {min(c)}
    pr = as_dict(g.pagerank(tolerance=1e-10, max_iterations=500), "score")
    want = nx.pagerank(h, alpha=0.85, tol=1e-13, max_iter=2000)
    assert sum(abs(pr[v] - want[v]) for v in want) < 1e-6
    assert as_dict(g.coreness(verify=True), "core") == nx.core_number(h)
    assert g.info()["updates"]["commits"] == 2


def test_a_merge_folds_the_updates_into_fresh_blocks(updated):
    _, h, path = updated
    # A large batch merges by itself; so does merge="always" with none.
    big = [(int(a), int(b)) for a, b in np.random.default_rng(5).integers(0, 400, (600, 2)) if a != b]
    r = grotto.update(path, insert=pd.DataFrame(big, columns=["src", "dst"]))
    h.add_edges_from(big)
    assert r["merged"] and r["edges"] == h.number_of_edges()
    assert not grotto.open(path).info().get("updates")
    r = grotto.update(path, insert=(np.array([0]), np.array([1])), merge="never")
    h.add_edge(0, 1)
    assert not r["merged"] and r["commit"] == 1
    r = grotto.update(path, merge="always")
    assert r["merged"] and r["inserted"] == 0 and r["edges"] == h.number_of_edges()
    g = grotto.open(path)
    assert g.num_edges == h.number_of_edges()
    comp = as_dict(g.wcc(verify=True), "component")
    for c in nx.connected_components(h):
        assert {comp[v] for v in c} == {min(c)}
    assert as_dict(g.coreness(verify=True), "core") == nx.core_number(h)
    with pytest.raises(Exception, match="merge"):
        grotto.update(path, merge="sometimes")
    with pytest.raises(Exception, match="merge_above"):
        grotto.update(path, merge_above=150)


def test_a_bad_batch_raises_and_changes_nothing(updated, tmp_path):
    _, _, path = updated
    before = open(path, "rb").read()
    bad = tmp_path / "bad.el"
    bad.write_text("1 2\n3 x\n")
    with pytest.raises(grotto.InputError, match=r"bad.el:2"):
        grotto.update(path, insert=os.fspath(bad))
    with pytest.raises(grotto.InputError, match="non-negative"):
        grotto.update(path, delete=pd.DataFrame({"src": [-1], "dst": [2]}))
    assert open(path, "rb").read() == before
    w = tmp_path / "w.grotto"
    grotto.convert(pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [1.0, 2.0]}), w)
    with pytest.raises(grotto.InputError, match="weighted"):
        grotto.update(w, insert=(np.array([0]), np.array([2])))


def test_names_are_updated_by_name(tmp_path):
    path = tmp_path / "n.grotto"
    grotto.convert(pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "d"]}), path)
    r = grotto.update(path, insert=pd.DataFrame({"src": ["a"], "dst": ["d"]}),
                      delete=pd.DataFrame({"src": ["b"], "dst": ["c"]}))
    assert (r["inserted"], r["deleted"]) == (1, 1)
    g = grotto.open(path)
    assert sorted(g.neighbors("a")) == ["b", "d"]
    # New names add vertices (a delta run carries them; opening the graph
    # joins them to the name table); a delete naming an unknown vertex is
    # counted.
    # (The batch is large against this tiny graph, so merge="auto" would
    # merge it: a delta run is asked for.)
    r = grotto.update(path, insert=pd.DataFrame({"src": ["a", "zz", "0"], "dst": ["zz", "aa", "a"]}),
                      delete=pd.DataFrame({"src": ["nobody"], "dst": ["a"]}), merge="never")
    assert not r["merged"] and (r["inserted"], r["new_vertices"], r["not_present"]) == (3, 3, 1)
    g = grotto.open(path)
    assert sorted(g.neighbors("a")) == ["b", "d", "zz"]
    assert sorted(g.neighbors("zz")) == ["aa"] and g.num_vertices == 7
    f = tmp_path / "more.el"
    f.write_text("aa new1\nnew2 b\n")
    r = grotto.update(path, insert=os.fspath(f))
    assert r["new_vertices"] == 2
    g = grotto.open(path)
    assert sorted(g.neighbors("aa")) == ["new1"] and sorted(g.neighbors("new2")) == ["b"]
    # Merged or not, the names come out the same.
    for merge in ["never", "always"]:
        r = grotto.update(path, insert=pd.DataFrame({"src": ["a"], "dst": ["zzz" + merge]}), merge=merge)
        assert r["merged"] == (merge == "always") and r["new_vertices"] == 1
    g = grotto.open(path)
    assert sorted(g.neighbors("a")) == ["b", "d", "zz", "zzzalways", "zzznever"]
    assert g.num_vertices == 11


def test_weighted_graphs_take_weights_and_weight_changes(tmp_path):
    rng = np.random.default_rng(3)
    n = 120
    h = nx.DiGraph()
    h.add_nodes_from(range(n))
    for a, b in rng.integers(0, n, (700, 2)):
        if a != b:
            h.add_edge(int(a), int(b), weight=float(rng.integers(1, 40)) / 4)
    path = tmp_path / "w.grotto"
    e = list(h.edges(data="weight"))
    grotto.convert(pd.DataFrame({"src": [x[0] for x in e], "dst": [x[1] for x in e],
                                 "weight": [x[2] for x in e]}), path, weighted=True, vertices=n)
    gone = e[:40]
    new = [(int(a), int(b), float(w)) for (a, b), w in
           zip(rng.integers(0, n + 5, (60, 2)), rng.integers(1, 40, 60)) if a != b and not h.has_edge(int(a), int(b))]
    changed = [(a, b, 100.0 + i) for i, (a, b, _) in enumerate(e[40:70])]
    r = grotto.update(
        path,
        insert=pd.DataFrame(new, columns=["src", "dst", "weight"]),
        delete=pd.DataFrame([(a, b) for a, b, _ in gone], columns=["src", "dst"]),
        set_weight=(np.array([c[0] for c in changed]), np.array([c[1] for c in changed]),
                    np.array([c[2] for c in changed])),
    )
    h.remove_edges_from([(a, b) for a, b, _ in gone])
    h.add_weighted_edges_from(new)
    h.add_weighted_edges_from(changed)
    assert r["vertices"] == h.number_of_nodes()
    assert r["merged"] and r["weights_set"] == len(changed)
    assert r["edges"] == h.number_of_edges()
    g = grotto.open(path)
    for v in [0, 5, max(max(a, b) for a, b, _ in new)]:
        ids, ws = g.neighbors(v, weights=True)
        assert dict(zip(ids, ws.tolist())) == {u: d["weight"] for u, d in h[v].items()}
    src = max(h.nodes, key=h.out_degree)
    dist = as_dict(g.sssp(src, verify=True), "distance")
    want = nx.single_source_dijkstra_path_length(h, src)
    assert {v: d for v, d in dist.items() if d != float("inf")} == pytest.approx(want)
    with pytest.raises(grotto.InputError, match="weight"):
        grotto.update(path, set_weight=(np.array([0]), np.array([1])))


def test_a_multigraph_update_adds_and_removes_copies(tmp_path):
    # Parallel edges kept: each insert adds a copy, each delete removes
    # one while there is one; checked against a networkx MultiGraph.
    rng = np.random.default_rng(5)
    n = 60
    src, dst = rng.integers(0, n, 900), rng.integers(0, n, 900)
    keep = src != dst
    h = nx.MultiGraph()
    h.add_nodes_from(range(n))
    h.add_edges_from(zip(src[keep].tolist(), dst[keep].tolist()))
    path = tmp_path / "m.grotto"
    grotto.convert(pd.DataFrame({"src": src[keep], "dst": dst[keep]}), path,
                   undirected=True, vertices=n, keep_duplicates=True)
    edges = [(u, v) for u, v, _ in h.edges(keys=True)]
    gone = [edges[i] for i in rng.choice(len(edges), 200)] + [(0, 59), (1, 58)]
    new = [(int(a), int(b)) for a, b in zip(rng.integers(0, n, 300), rng.integers(0, n, 300)) if a != b]
    new += new[:20]
    report = grotto.update(path, insert=pd.DataFrame(new, columns=["src", "dst"]),
                           delete=pd.DataFrame(gone, columns=["src", "dst"]))
    missing = 0
    for u, v in gone:
        try:
            h.remove_edge(u, v)
        except nx.NetworkXError:
            missing += 1
    h.add_edges_from(new)
    assert report["merged"]
    assert report["deleted"] == len(gone) - missing and report["not_present"] == missing
    assert report["edges"] == h.number_of_edges()
    g = grotto.open(path)
    for v in range(n):
        want = sorted(u for u in h[v] for _ in range(h.number_of_edges(v, u)))
        assert sorted(np.asarray(g.neighbors(v)).tolist()) == want, v
    with pytest.raises(grotto.InputError, match="keeps duplicate edges"):
        grotto.update(path, insert=pd.DataFrame(new, columns=["src", "dst"]), merge="never")


@pytest.fixture
def ctrl_c_reaches_python():
    """Python's own SIGINT handler, whatever was inherited: a process
    started in the background of a shell (as a CI job may be) begins
    with SIGINT ignored, and then ``_thread.interrupt_main`` does
    nothing."""
    import signal

    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_a_keyboard_interrupt_is_raised_only_when_the_batch_did_not_land(tmp_path, ctrl_c_reaches_python):
    """KeyboardInterrupt at random moments of delta commits and merges:
    raised means nothing was applied; a normal return means the batch is
    in (a retry after the exception never applies a batch twice)."""
    import _thread
    import shutil
    import threading
    import time

    rng = np.random.default_rng(5)
    n = 200000
    src, dst = rng.integers(0, n, 600000), rng.integers(0, n, 600000)
    keep = src != dst
    base = tmp_path / "base.grotto"
    grotto.convert(pd.DataFrame({"src": src[keep], "dst": dst[keep]}), base,
                   undirected=True, vertices=n)
    before = grotto.open(base).num_edges
    g = tmp_path / "g.grotto"
    # A batch large enough that an update lasts well past the 10 ms
    # between interrupt checks, so interrupts land before and after the
    # commit: grown until it does on this machine.
    for size in (600000, 1500000, 4000000, 10000000):
        ins = pd.DataFrame({"src": rng.integers(0, n, size), "dst": rng.integers(0, n, size)})
        ins = ins[ins.src != ins.dst]
        took = {}
        for mode in ("never", "always"):
            # The fastest of three: a first run (cold caches) can take
            # several times as long as the trials below.
            runs = []
            for _ in range(3):
                shutil.copy(base, g)
                t = time.perf_counter()
                after = grotto.update(g, insert=ins, merge=mode)["edges"]
                runs.append(time.perf_counter() - t)
            took[mode] = min(runs)
        if min(took.values()) > 0.4:
            break
    assert after > before
    seen = {(m, landed): 0 for m in took for landed in (False, True)}
    # Interrupts fall at uniform moments of [low, high] times the fastest
    # run. On a loaded machine a run can take far longer than that, so a
    # side not yet seen after a few trials of a mode widens its end of the
    # window.
    window = {m: [0.05, 1.2] for m in took}
    # At least 60 trials, more (up to 240) until interrupts have landed
    # both before and after the commit in both modes.
    for trial in range(240):
        if trial >= 60 and all(v > 0 for v in seen.values()):
            break
        mode = ("never", "always")[trial % 2]
        shutil.copy(base, g)
        lock = threading.Lock()
        running = [True]

        def fire():
            with lock:
                if running[0]:
                    _thread.interrupt_main()

        low, high = window[mode]
        timer = threading.Timer(took[mode] * rng.uniform(low, high), fire)
        timer.start()
        report = None
        try:
            try:
                report = grotto.update(g, insert=ins, merge=mode)
            finally:
                with lock:
                    running[0] = False
            # An interrupt that came as the call returned is raised here,
            # after the report was kept: it is not the update's.
            time.sleep(0.01)
        except KeyboardInterrupt:
            pass
        timer.cancel()
        now = grotto.open(g).num_edges
        assert now in (before, after), f"trial {trial}: a mix"
        landed = now == after
        raised = report is None
        assert raised != landed, f"trial {trial} ({mode}): raised={raised}, landed={landed}"
        seen[(mode, landed)] += 1
        if trial >= 20:
            if seen[(mode, True)] == 0:
                window[mode][1] *= 1.2
            if seen[(mode, False)] == 0:
                window[mode][0] *= 0.8
    assert all(v > 0 for v in seen.values()), seen


def test_a_header_row_is_not_inserted_into_a_graph_of_names(tmp_path):
    el = tmp_path / "f.el"
    el.write_text("ann bob\nbob cy\n")
    g = tmp_path / "f.grotto"
    grotto.convert(str(el), str(g), undirected=True, ids="string")
    day2 = tmp_path / "day2.csv"
    day2.write_text("follower,followee\ncy,dee\n")
    before = g.read_bytes()
    with pytest.raises(grotto.InputError, match="follower,followee"):
        grotto.update(str(g), insert=str(day2))
    assert g.read_bytes() == before
    grotto.update(str(g), insert=str(day2), format="csv", columns=("follower", "followee"))
    assert grotto.open(str(g)).num_vertices == 4


def test_vertex_deletes_are_networkx_s_remove_node(tmp_path):
    """Each vertex goes with every edge at it, both directions; the others
    keep their ids; names too; absent vertices are counted."""
    for directed in (False, True):
        G = nx.gnp_random_graph(300, 0.03, seed=7, directed=directed)
        path = tmp_path / f"g{directed}.grotto"
        grotto.from_networkx(G, path, reverse=directed)
        gone = [0, 5, 17, 299]
        r = grotto.update(path, delete_vertices=gone + [10_000])
        assert (r["deleted"], r["not_present"]) == (4, 1)
        G.remove_nodes_from(gone)
        g = grotto.open(path)
        assert (g.num_vertices, g.num_edges) == (G.number_of_nodes(), G.number_of_edges())
        assert set(g.nodes) == set(G.nodes)
        assert set(g.edges) == set(G.edges) if directed else {frozenset(e) for e in g.edges} == {frozenset(e) for e in G.edges}
        if directed:
            assert all(set(g.predecessors(v)) == set(G.predecessors(v)) for v in list(G)[:50])
    H = nx.Graph([("ann", "bob"), ("bob", "cy"), ("cy", "ann"), ("cy", "dee")])
    grotto.from_networkx(H, tmp_path / "n.grotto")
    grotto.update(tmp_path / "n.grotto", delete_vertices="cy")
    h = grotto.open(tmp_path / "n.grotto")
    assert sorted(h.nodes) == ["ann", "bob", "dee"] and list(h.edges) == [("ann", "bob")]
    with pytest.raises(grotto.InputError, match="runs alone"):
        grotto.update(tmp_path / "n.grotto", insert=[("ann", "dee")], delete_vertices=["bob"])
    with pytest.raises(grotto.InputError, match="empty graph"):
        grotto.update(tmp_path / "n.grotto", delete_vertices=["ann", "bob", "dee"])
    assert grotto.open(tmp_path / "n.grotto").num_vertices == 3


def test_an_interrupted_vertex_delete_leaves_the_old_file_or_the_new(tmp_path, ctrl_c_reaches_python):
    import _thread
    import shutil
    import threading
    import time

    rng = np.random.default_rng(9)
    n = 100000
    src, dst = rng.integers(0, n, 800000), rng.integers(0, n, 800000)
    keep = src != dst
    base = tmp_path / "base.grotto"
    grotto.convert(pd.DataFrame({"src": src[keep], "dst": dst[keep]}), base, undirected=True, vertices=n)
    old = (grotto.open(base).num_vertices, grotto.open(base).num_edges)
    g = tmp_path / "g.grotto"
    gone = list(range(0, n, 7))
    shutil.copy(base, g)
    t = time.perf_counter()
    new = grotto.update(g, delete_vertices=gone)
    took = time.perf_counter() - t
    new = (new["vertices"], new["edges"])
    outcomes = set()
    for trial in range(16):
        shutil.copy(base, g)
        timer = threading.Timer(took * (trial + 1) / 12, _thread.interrupt_main)
        landed = None
        try:
            timer.start()
            grotto.update(g, delete_vertices=gone)
            landed = True
            timer.join()
        except KeyboardInterrupt:
            pass
        # An interrupt that came after the call returned is absorbed here.
        try:
            timer.join()
            time.sleep(0.05)
        except KeyboardInterrupt:
            pass
        # Raised by the call: nothing was applied.
        landed = bool(landed)
        h = grotto.open(g)
        assert (h.num_vertices, h.num_edges) == (new if landed else old)
        outcomes.add(landed)
        assert sorted(os.listdir(tmp_path)) == ["base.grotto", "g.grotto"], os.listdir(tmp_path)
    # Interrupts landed before the commit and after it.
    assert outcomes == {False, True}, outcomes
