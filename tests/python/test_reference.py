"""Reference checks: graphs converted by grotto and exported back agree with
networkx and scipy, which read the same text independently."""

import os
import subprocess
import tempfile

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

GROTTO = os.environ.get("GROTTO_BIN", "target/release/grotto")


def run(*args):
    out = subprocess.run([GROTTO, *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def export_edges(path):
    pairs = []
    for line in run("export", str(path)).splitlines():
        if line.startswith("#"):
            continue
        u, v = line.split()[:2]
        pairs.append((int(u), int(v)))
    return pairs


@pytest.fixture
def tmp():
    with tempfile.TemporaryDirectory() as d:
        yield d


GENERATORS = [
    ("rmat", ["--scale", "11", "--edge-factor", "8", "--seed", "5"]),
    ("grid", ["--rows", "40", "--cols", "55"]),
    ("ba", ["--n", "3000", "--m", "4", "--seed", "2"]),
]


@pytest.mark.parametrize("kind,args", GENERATORS)
@pytest.mark.parametrize("undirected", [True, False])
@pytest.mark.parametrize("external", [False, True])
def test_edges_and_degrees_match_networkx(tmp, kind, args, undirected, external):
    el = os.path.join(tmp, "g.el")
    gf = os.path.join(tmp, "g.grotto")
    run("generate", kind, *args, "-o", el)
    flags = ["--undirected"] if undirected else []
    if external:
        flags += ["--memory", "64KiB", "--force-external"]
    run("convert", el, gf, "-q", *flags)

    ref = nx.Graph() if undirected else nx.DiGraph()
    ref.add_edges_from(nx.read_edgelist(el, nodetype=int, create_using=nx.DiGraph).edges())
    ref.remove_edges_from(nx.selfloop_edges(ref))

    got = export_edges(gf)
    if undirected:
        assert sorted(got) == sorted(tuple(sorted(e)) for e in ref.edges())
    else:
        assert sorted(got) == sorted(ref.edges())

    import json

    info = json.loads(run("info", gf, "--json"))
    assert info["edges"] == ref.number_of_edges()
    degs = [d for _, d in (ref.degree() if undirected else ref.out_degree())]
    assert info["out"]["degrees"]["max"] == max(degs)
    assert info["out"]["entries"] == sum(degs)
    # Histogram of non-zero degrees in log2 bins, as networkx sees them.
    hist = np.bincount([int(np.log2(d)) for d in degs if d > 0])
    assert info["out"]["degrees"]["log2_histogram"] == hist.tolist()


def test_matrix_market_symmetric_and_weights_match_scipy(tmp):
    rng = np.random.default_rng(7)
    n = 500
    a = sp.random(n, n, density=0.01, random_state=rng, format="coo")
    a.data = np.round(a.data * 100) / 4  # exactly representable in f32
    upper = sp.triu(a, k=0)
    full = (upper + sp.triu(a, k=1).T).tocoo()  # symmetric, diagonal included
    mtx = os.path.join(tmp, "m.mtx")
    scipy.io.mmwrite(mtx, full, symmetry="symmetric")  # stores one triangle
    gf = os.path.join(tmp, "m.grotto")
    run("convert", mtx, gf, "-q", "--keep-self-loops")
    back = os.path.join(tmp, "back.mtx")
    run("export", gf, "--format", "mtx", "-o", back, "-q")
    b = scipy.io.mmread(back)
    assert full.nnz > 1000
    assert np.array_equal(b.toarray(), full.toarray())


def test_directed_reverse_in_degrees_match_networkx(tmp):
    el = os.path.join(tmp, "d.el")
    gf = os.path.join(tmp, "d.grotto")
    run("generate", "rmat", "--scale", "10", "--edge-factor", "4", "--seed", "9", "-o", el)
    run("convert", el, gf, "-q", "--reverse")
    import json

    info = json.loads(run("info", gf, "--json"))
    ref = nx.read_edgelist(el, nodetype=int, create_using=nx.DiGraph)
    ref.remove_edges_from(nx.selfloop_edges(ref))
    assert info["in"]["degrees"]["max"] == max(d for _, d in ref.in_degree())
    assert info["in"]["entries"] == ref.number_of_edges()
