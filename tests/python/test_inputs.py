"""Inputs the Python package once read other than the user meant, or
took without a word (issue 51): a list of edge tuples is edges, not
columns; weights that shortest paths refuse warn when inserted; sizes
that start endless work raise before it starts."""

import os

import numpy as np
import pytest

import grotto


def depths(g, source):
    t = g.bfs(source).to_pandas()
    return dict(zip(t["id"].tolist(), t["depth"].tolist()))


def test_a_list_of_pairs_is_a_list_of_edges(tmp_path):
    path = tmp_path / "l.grotto"
    r = grotto.convert([(1, 2), (3, 4), (5, 6)], path)
    # Read as columns, these were 1 -> 3 (weight 5) and 2 -> 4 (weight 6).
    assert r["edges"] == 3 and not r["weighted"]
    g = grotto.open(path)
    d = depths(g, 1)
    assert d[2] == 1 and d[3] == -1
    # Lists of lists and tuples of tuples are rows too; a third value is
    # the weight.
    r = grotto.convert([[1, 2, 0.5], [2, 3, 1.5]], tmp_path / "w.grotto")
    assert r["edges"] == 2 and r["weighted"]
    r = grotto.convert(((1, 2), (3, 4)), tmp_path / "t.grotto")
    assert r["edges"] == 2 and not r["weighted"]
    assert depths(grotto.open(tmp_path / "t.grotto"), 1)[2] == 1


def test_a_tuple_of_arrays_is_still_columns(tmp_path):
    path = tmp_path / "c.grotto"
    r = grotto.convert((np.array([1, 3, 5]), np.array([2, 4, 6])), path)
    assert r["edges"] == 3 and not r["weighted"]
    assert depths(grotto.open(path), 1)[2] == 1


def test_rows_of_different_widths_raise_and_write_nothing(tmp_path):
    with pytest.raises(grotto.InputError, match=r"edge 1 is \(3, 4, 0\.5\)"):
        grotto.convert([(1, 2), (3, 4, 0.5)], tmp_path / "x.grotto")
    with pytest.raises(grotto.InputError, match="edge 0 is"):
        grotto.convert([(1,), (2,)], tmp_path / "y.grotto")
    assert os.listdir(tmp_path) == []


def test_update_takes_a_list_of_edges(tmp_path):
    path = tmp_path / "g.grotto"
    grotto.convert([(0, 1), (1, 2)], path)
    r = grotto.update(path, insert=[(2, 3), (0, 1)], merge="never")
    assert (r["inserted"], r["already_present"], r["edges"]) == (1, 1, 3)


def test_negative_weights_are_inserted_with_a_warning(tmp_path):
    path = tmp_path / "w.grotto"
    grotto.convert([(0, 1, 2.5), (1, 2, 1.0)], path)
    with pytest.warns(UserWarning, match=r"2 inserted edges have negative or NaN weights \(the first: 2 -> 3"):
        r = grotto.update(path, insert=[(2, 3, -1.0), (3, 4, float("nan"))])
    assert r["inserted"] == 2
    with pytest.raises(grotto.InputError, match="non-negative weights"):
        grotto.open(path).sssp(0)


def test_sweeps_past_the_vertex_count_raise(tmp_path):
    path = tmp_path / "g.grotto"
    grotto.convert([(0, 1), (1, 2), (2, 0)], path)
    g = grotto.open(path)
    with pytest.raises(grotto.InputError, match="sweeps=1000000000 is more than the graph's 3 vertices"):
        g.eccentricity(0, sweeps=10**9)
    assert g.eccentricity(0, sweeps=3, verify=True).summary["eccentricity"] == 2
