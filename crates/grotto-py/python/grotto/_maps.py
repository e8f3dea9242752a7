"""What the networkx backend returns for a graph file: a value per vertex
(:class:`VertexMap`) and groups of vertices (:class:`VertexSet`) that keep
a result's columns as arrays, so that a graph of a hundred million
vertices answers ``nx.pagerank(g)`` in the memory the run itself takes
rather than a Python dict's hundred bytes a vertex.

They behave as networkx's dicts and sets do for reading: ``pr[v]``,
``v in pr``, ``len``, iteration, ``items()``, ``==`` with a dict, and
``max(pr, key=pr.get)``; ``dict(pr)`` and ``set(c)`` copy them into Python
objects. Looking up a vertex asks the graph file's own index; iterating
turns the arrays into Python values a chunk at a time."""

from __future__ import annotations

from collections.abc import ItemsView, Mapping, Set, ValuesView
from typing import Any, Iterator, Tuple

import numpy as np

# Values turned into Python objects at once while iterating.
_CHUNK = 1 << 16


def _chunks(a: Any) -> Iterator[Any]:
    """The Python values of array ``a``, a chunk at a time."""
    for start in range(0, len(a), _CHUNK):
        yield from a[start:start + _CHUNK].tolist()


class VertexMap(Mapping):
    """A value per vertex of a graph file, networkx's ``{node: value}``:
    the result's id and value columns, read in place. ``to_numpy()`` gives
    the two arrays; ``dict(m)`` a Python dict."""

    def __init__(self, graph: Any, ids: np.ndarray, values: np.ndarray):
        self._graph, self._ids, self._values = graph, ids, values

    def __getitem__(self, v: Any) -> Any:
        try:
            at = self._graph._position(v)
        except TypeError:
            at = -1
        if at < 0:
            raise KeyError(v)
        return self._values[at].item()

    def __contains__(self, v: Any) -> bool:
        try:
            return self._graph._position(v) >= 0
        except TypeError:
            return False

    def __iter__(self) -> Iterator[Any]:
        return _chunks(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def items(self) -> "_Items":
        return _Items(self)

    def values(self) -> "_Values":
        return _Values(self)

    def to_numpy(self) -> Tuple[np.ndarray, np.ndarray]:
        """(ids, values): the vertices and their values as arrays (no
        copy), in the same order."""
        return self._ids, self._values

    def __repr__(self) -> str:
        head = ", ".join(f"{k!r}: {x!r}" for k, x in zip(self._ids[:3].tolist(), self._values[:3].tolist()))
        more = ", ..." if len(self) > 3 else ""
        return f"VertexMap({len(self)} vertices: {{{head}{more}}})"


class _Items(ItemsView):
    """(vertex, value) pairs, zipped from the arrays a chunk at a time."""

    def __iter__(self) -> Iterator[Tuple[Any, Any]]:
        m = self._mapping
        return zip(_chunks(m._ids), _chunks(m._values))


class _Values(ValuesView):
    """The values, from their array a chunk at a time."""

    def __iter__(self) -> Iterator[Any]:
        return _chunks(self._mapping._values)


class VertexSet(Set):
    """Some vertices of a graph file (one component), networkx's set of
    nodes: an array of their ids and the rows they hold in a result,
    so membership asks the file's index and the rows. ``set(c)`` copies it
    into a Python set; ``to_numpy()`` gives the ids. (Components of one
    vertex come as Python sets of it.)"""

    __slots__ = ("_graph", "_ids", "_rows")

    def __init__(self, graph: Any, ids: np.ndarray, rows: np.ndarray):
        # ``rows`` ascending (membership is a binary search in them).
        self._graph, self._ids, self._rows = graph, ids, rows

    def __contains__(self, v: Any) -> bool:
        try:
            at = self._graph._position(v)
        except TypeError:
            return False
        if at < 0:
            return False
        k = int(np.searchsorted(self._rows, at))
        return k < len(self._rows) and int(self._rows[k]) == at

    def __iter__(self) -> Iterator[Any]:
        return _chunks(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    @classmethod
    def _from_iterable(cls, it: Any) -> set:
        # What ``&``, ``|`` and ``-`` build: a Python set.
        return set(it)

    def to_numpy(self) -> np.ndarray:
        """The vertices' ids as an array (no copy)."""
        return self._ids

    def __repr__(self) -> str:
        head = ", ".join(repr(v) for v in self._ids[:3].tolist())
        more = ", ..." if len(self) > 3 else ""
        return f"VertexSet({len(self)} vertices: {{{head}{more}}})"
