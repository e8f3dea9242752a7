"""A graph file as networkx code sees a graph: ``number_of_nodes``,
``nodes``, ``degree``, ``edges``, ``adj``/``succ``/``pred``, ``has_edge``
and the rest of networkx's read-only graph protocol, answered from the
file (lists read from disk when asked for; no per-vertex Python object is
made until a view is iterated). networkx functions written against that
protocol (``nx.density``, ``nx.degree_histogram``, ``nx.write_edgelist``)
then run on a graph file unchanged. Nothing here changes the file: a
graph file is read-only to networkx code, as a frozen networkx graph."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, Optional, Tuple

import numpy as np


def _no_attrs() -> Dict[str, Any]:
    return {}


class NodeView:
    """``G.nodes``: the vertices (your ids, or names), in the order
    results list them. ``v in G.nodes``, ``len``, ``G.nodes[v]`` (a
    vertex's attributes: none, ``{}``) and ``G.nodes(data=True)`` as
    networkx's NodeView."""

    def __init__(self, g: Any):
        self._g = g

    def __len__(self) -> int:
        return self._g.num_vertices

    def __iter__(self) -> Iterator[Any]:
        return iter(self._g.vertices().tolist())

    def __contains__(self, v: Any) -> bool:
        return self._g._position(v) >= 0

    def __getitem__(self, v: Any) -> Dict[str, Any]:
        self._g._need(v)
        return {}

    def __call__(self, data: Any = False, default: Any = None) -> Any:
        if data is False:
            return self
        if data is True:
            return ((v, {}) for v in self)
        return ((v, default) for v in self)

    def data(self, data: Any = True, default: Any = None) -> Any:
        return self(data, default)

    def __repr__(self) -> str:
        return f"NodeView({self._g.num_vertices} vertices of {self._g.path})"


class DegreeView:
    """``G.degree`` (and ``G.in_degree``, ``G.out_degree``) with
    networkx's DegreeView semantics: ``G.degree[v]`` and ``G.degree(v)``
    are an int (with ``weight``, the sum of the edge weights, 1 each on an
    unweighted graph); iterating, ``G.degree()`` and ``G.degree(nbunch)``
    give ``(vertex, degree)`` pairs; ``dict(G.degree)`` maps each vertex
    to its degree. A directed graph's ``degree`` is in plus out, as
    networkx counts it. For arrays of degrees, see ``Graph.degrees``."""

    def __init__(self, g: Any, direction: str, nbunch: Any = None, weight: Optional[str] = None):
        self._g, self._direction, self._nbunch, self._weight = g, direction, nbunch, weight

    def _one(self, v: Any) -> Any:
        g = self._g
        g._need(v)
        d = self._direction
        if self._weight is not None and g.weighted:
            if g.directed and d != "out" and not g._has_reverse():
                raise g._no_reverse(d)
            # networkx adds in and out: an edge both ways counts twice.
            dirs = ("out", "in") if d == "both" and g.directed else (d,)
            total = sum(float(np.asarray(g.neighbors(v, weights=True, direction=x)[1], dtype=np.float64).sum())
                        for x in dirs)
            if not g.directed and g._loops_kept():
                ids, w = g.neighbors(v, weights=True)
                total += sum(float(x) for u, x in zip(ids, w.tolist()) if u == v)
            return total
        if not g.directed:
            loops = g.neighbors(v).count(v) if g._loops_kept() else 0
            return int(g.degrees(v)) + loops
        out = int(g.degrees(v)) if d != "in" else 0
        if d == "out":
            return out
        if g._has_reverse():
            return out + int(g.degrees(v, direction="in"))
        return out + int(g._in_degree_rows()[g._position(v)])

    def __getitem__(self, v: Any) -> Any:
        return self._one(v)

    def __call__(self, nbunch: Any = None, weight: Optional[str] = None) -> Any:
        if nbunch is None:
            return DegreeView(self._g, self._direction, None, weight) if weight != self._weight else self
        if self._g._position(nbunch) >= 0 or isinstance(nbunch, (str, int, np.integer)):
            # One vertex (a name or id that is none says so, where
            # networkx would iterate a string's characters).
            if self._g._position(nbunch) < 0:
                self._g.degrees(nbunch)
            return DegreeView(self._g, self._direction, None, weight)._one(nbunch)
        return DegreeView(self._g, self._direction, list(self._g.nbunch_iter(nbunch)), weight)

    def __iter__(self) -> Iterator[Tuple[Any, Any]]:
        g = self._g
        nodes = list(g.nodes) if self._nbunch is None else self._nbunch
        if self._weight is None or not g.weighted:
            if self._nbunch is None:
                return zip(nodes, g._degree_rows(self._direction).tolist())
            return ((v, self._one(v)) for v in nodes)
        return ((v, self._one(v)) for v in nodes)

    def __len__(self) -> int:
        return self._g.num_vertices if self._nbunch is None else len(self._nbunch)

    def __repr__(self) -> str:
        return f"DegreeView({dict(self) if len(self) <= 20 else '...'})"


class AdjacencyView:
    """``G.adj`` / ``G.succ`` / ``G.pred`` and ``G[v]``: vertex ->
    {neighbour: {"weight": w}} (``{}`` as the attributes of an unweighted
    graph's edges), each list read from disk when asked for."""

    def __init__(self, g: Any, direction: str):
        self._g, self._direction = g, direction

    def __getitem__(self, v: Any) -> Dict[Any, Dict[str, Any]]:
        g = self._g
        g._need(v)
        ids, w = g.neighbors(v, weights=True, direction=self._direction)
        if w is None:
            return {u: {} for u in ids}
        return {u: {"weight": float(x)} for u, x in zip(ids, w.tolist())}

    def __iter__(self) -> Iterator[Any]:
        return iter(self._g.nodes)

    def __len__(self) -> int:
        return self._g.num_vertices

    def __contains__(self, v: Any) -> bool:
        return v in self._g.nodes

    def items(self) -> Iterator[Tuple[Any, Dict[Any, Dict[str, Any]]]]:
        return ((v, self[v]) for v in self)

    def keys(self) -> Any:
        return self._g.nodes

    def values(self) -> Iterator[Dict[Any, Dict[str, Any]]]:
        return (self[v] for v in self)

    def get(self, v: Any, default: Any = None) -> Any:
        return self[v] if v in self else default


class EdgeView:
    """``G.edges``: every edge (an undirected edge once), streamed from
    the file a batch at a time. ``len``, ``(u, v) in G.edges``,
    ``G.edges[u, v]`` (its attributes), and ``G.edges(nbunch, data=)`` as
    networkx's EdgeView: ``data=True`` gives ``(u, v, {"weight": w})``,
    ``data="weight"`` gives ``(u, v, w)`` (``default`` where an edge has
    no such attribute). For tables of edges, see ``Graph.edge_batches``."""

    def __init__(self, g: Any, nbunch: Any = None, data: Any = False, default: Any = None):
        self._g, self._nbunch, self._data, self._default = g, nbunch, data, default

    def __call__(self, nbunch: Any = None, data: Any = False, default: Any = None) -> "EdgeView":
        if nbunch is not None:
            nbunch = list(self._g.nbunch_iter(nbunch))
        return EdgeView(self._g, nbunch, data, default)

    def data(self, data: Any = True, default: Any = None, nbunch: Any = None) -> "EdgeView":
        return self(nbunch, data, default)

    def _attrs(self, w: Any) -> Any:
        if self._data is True:
            return {} if w is None else {"weight": w}
        if self._data == "weight" and w is not None:
            return w
        return self._default

    def __iter__(self) -> Iterator[Tuple[Any, ...]]:
        g = self._g
        if self._nbunch is not None:
            yield from self._of(self._nbunch)
            return
        for u, v, w in g._edge_triples():
            yield (u, v) if self._data is False else (u, v, self._attrs(w))

    def _of(self, nodes: Iterable[Any]) -> Iterator[Tuple[Any, ...]]:
        """The edges at ``nodes`` (out-edges of a directed graph), an
        undirected edge between two of them once."""
        g = self._g
        seen = set()
        for u in nodes:
            ids, w = g.neighbors(u, weights=True)
            ws = [None] * len(ids) if w is None else w.tolist()
            for v, x in zip(ids, ws):
                if not g.directed and v in seen:
                    continue
                yield (u, v) if self._data is False else (u, v, self._attrs(x))
            seen.add(u)

    def __len__(self) -> int:
        if self._nbunch is None:
            return self._g.num_edges
        return sum(1 for _ in self)

    def __contains__(self, e: Any) -> bool:
        try:
            u, v = e[:2]
        except (TypeError, ValueError):
            return False
        return self._g.has_edge(u, v)

    def __getitem__(self, e: Tuple[Any, Any]) -> Dict[str, Any]:
        u, v = e
        g = self._g
        g._need(u)
        ids, w = g.neighbors(u, weights=True)
        for i, x in enumerate(ids):
            if x == v:
                return {} if w is None else {"weight": float(w[i])}
        raise KeyError(f"The edge {e} is not in the graph.")

    def __repr__(self) -> str:
        return f"EdgeView({self._g.num_edges} edges of {self._g.path})"


class NetworkxGraph:
    """The read-only graph protocol networkx code walks, for
    :class:`grotto.Graph` (see the module comment)."""

    @property
    def graph(self) -> Dict[str, Any]:
        """networkx's graph attribute dict (a graph file has none of its
        own; what code puts here stays with this object)."""
        d = self.__dict__.get("_graph_attrs")
        if d is None:
            d = self.__dict__["_graph_attrs"] = {}
        return d

    def _has_reverse(self) -> bool:
        got = self.__dict__.get("_reverse")
        if got is None:
            got = self.__dict__["_reverse"] = bool(self.info()["reverse"])
        return got

    def _need(self, v: Any) -> None:
        if self._position(v) < 0:
            import networkx as nx

            raise nx.NetworkXError(f"The node {v} is not in the graph.")

    def __iter__(self) -> Iterator[Any]:
        return iter(self.nodes)

    def __contains__(self, v: Any) -> bool:
        try:
            return self._position(v) >= 0
        except TypeError:
            return False

    def __getitem__(self, v: Any) -> Dict[Any, Dict[str, Any]]:
        return self.adj[v]

    @property
    def name(self) -> str:
        """The file's name, as networkx's ``G.name``."""
        import os

        return os.path.basename(self.path)

    def number_of_nodes(self) -> int:
        """Vertices (networkx's name)."""
        return self.num_vertices

    def order(self) -> int:
        """Vertices (networkx's name)."""
        return self.num_vertices

    def number_of_edges(self, u: Any = None, v: Any = None) -> int:
        """Edges (an undirected edge once); with ``u`` and ``v``, 1 when
        the edge is there, else 0."""
        if u is None:
            return self.num_edges
        return int(self.has_edge(u, v))

    def size(self, weight: Optional[str] = None) -> Any:
        """Edges, or with ``weight`` the sum of the edge weights."""
        if weight is None or not self.weighted:
            return self.num_edges
        return float(sum(float(w.sum()) for _, _, w in self._batches()))

    def has_node(self, v: Any) -> bool:
        """Whether ``v`` is a vertex."""
        return v in self

    def has_edge(self, u: Any, v: Any) -> bool:
        """Whether the edge ``u -> v`` is stored (either way round on an
        undirected graph), from ``u``'s list."""
        if u not in self or v not in self:
            return False
        return v in self.neighbors(u)

    def successors(self, v: Any) -> Iterator[Any]:
        """Out-neighbours (networkx's name)."""
        self._need(v)
        return iter(self.neighbors(v))

    def predecessors(self, v: Any) -> Iterator[Any]:
        """In-neighbours: a directed graph's reverse edges."""
        self._need(v)
        return iter(self.neighbors(v, direction="in"))

    def nbunch_iter(self, nbunch: Any = None) -> Iterator[Any]:
        """The vertices of ``nbunch`` (one vertex, or an iterable) that
        the graph has, as networkx's ``nbunch_iter``."""
        if nbunch is None:
            return iter(self.nodes)
        if nbunch in self:
            return iter([nbunch])
        try:
            return (v for v in nbunch if v in self)
        except TypeError:
            import networkx as nx

            raise nx.NetworkXError(f"nbunch is not a node or a sequence of nodes: {nbunch!r}") from None

    @property
    def nodes(self) -> NodeView:
        """The vertices, as networkx's ``G.nodes``."""
        return NodeView(self)

    @property
    def edges(self) -> EdgeView:
        """The edges, as networkx's ``G.edges``."""
        return EdgeView(self)

    @property
    def degree(self) -> DegreeView:
        """Degrees, as networkx's ``G.degree`` (in plus out on a directed graph)."""
        return DegreeView(self, "both")

    @property
    def in_degree(self) -> DegreeView:
        """In-degrees (a directed graph's reverse edges)."""
        return DegreeView(self, "in")

    @property
    def out_degree(self) -> DegreeView:
        """Out-degrees."""
        return DegreeView(self, "out")

    @property
    def adj(self) -> AdjacencyView:
        """vertex -> {neighbour: attributes}, as networkx's ``G.adj``."""
        return AdjacencyView(self, "out")

    @property
    def succ(self) -> AdjacencyView:
        """Out-neighbours with attributes."""
        return AdjacencyView(self, "out")

    @property
    def pred(self) -> AdjacencyView:
        """In-neighbours with attributes."""
        return AdjacencyView(self, "in")

    # networkx's own functions read these underscore names directly.
    _adj = adj
    _succ = succ
    _pred = pred

    @property
    def _node(self) -> Dict[Any, Dict[str, Any]]:
        return {v: {} for v in self.nodes}

    def _edge_triples(self) -> Iterator[Tuple[Any, Any, Optional[float]]]:
        """Every edge as (u, v, weight or None), in your ids."""
        for src, dst, w in self._batches():
            ws = [None] * len(src) if w is None else w.tolist()
            yield from zip(src.tolist() if hasattr(src, "tolist") else src,
                           dst.tolist() if hasattr(dst, "tolist") else dst, ws)
