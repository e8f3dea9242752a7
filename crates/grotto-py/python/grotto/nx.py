"""networkx users: :func:`from_networkx`, and a networkx backend.

With the package installed, networkx (3.2 and later) finds the backend
through its ``networkx.backends`` entry point, so::

    nx.pagerank(G, backend="grotto")
    nx.connected_components(G, backend="grotto")
    nx.core_number(G, backend="grotto")
    nx.bfs_edges(G, source, backend="grotto")
    nx.single_source_dijkstra_path_length(G, source, backend="grotto")

convert ``G`` into a temporary grotto file (removed when the converted
graph is garbage collected; ``GROTTO_TMPDIR`` says where, else the
system's temporary directory) and run there, returning what networkx
returns. PageRank is weighted by the edge attribute ``weight`` names, as
networkx's is. Calls grotto cannot answer the same way (a personalization
vector, a cutoff, a weight function) are left to networkx itself through
``can_run``. Where networkx's answer depends on
the order it visits neighbours (which parent ``bfs_edges`` reports for a
vertex with several at the previous depth), grotto gives another answer
of the same kind: a BFS tree with the same depths.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

import numpy as np

from . import Graph, InputError, _grotto, _Ranked, convert, open as _open


def _edge_arrays(G: Any, weight: Optional[str]):
    """(src, dst, weight or None) of G's edges (an undirected edge once)
    as arrays of positions in ``nodes``, walked natively; and the node
    list."""
    nodes = list(G.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    adj = G._succ if G.is_directed() else G._adj
    src, dst, w = _grotto.adjacency_columns(adj, G.is_directed(), index, weight)
    return src, dst, w, nodes


def _check_plain(G: Any) -> None:
    if G.is_multigraph():
        raise InputError("grotto stores simple graphs; convert a MultiGraph to a Graph first")


def from_networkx(G: Any, path: Any, *, weight: Optional[str] = None, **options: Any) -> Dict[str, Any]:
    """Writes networkx graph ``G`` as the grotto file ``path`` (undirected
    unless ``G`` is directed; with ``weight``, that edge attribute as the
    weights, 1 where an edge has none) and returns the conversion report.

    Nodes that are non-negative integers are kept as the file's vertex
    ids: the vertices are exactly G's nodes, isolated ones included (an
    id between two nodes is no vertex, as in networkx). Nodes that are all
    strings become vertex names, isolated ones included. Other nodes
    (tuples, mixed types) are refused: relabel them first. The adjacency
    dicts are walked natively, with no Python loop over the edges."""
    _check_plain(G)
    adj = G._succ if G.is_directed() else G._adj
    directed = G.is_directed()
    try:
        # Integer nodes, the common case: the native walk checks each one.
        src, dst, w = _grotto.adjacency_columns(adj, directed, None, weight)
        ints = True
    except InputError as e:
        if "is not a non-negative integer" not in str(e):
            raise
        ints = False
    if ints:
        # The vertices are G's nodes, isolated ones included, and no id
        # between them (dense inside when the nodes are 0..n-1).
        options.setdefault("vertices", np.fromiter((int(v) for v in adj), dtype=np.uint64, count=len(adj)))
        cols = (src, dst) if w is None else (src, dst, w)
        return convert(cols, path, undirected=not directed, **options)
    nodes = list(adj)
    if nodes and all(type(v) is str for v in nodes):
        names = sorted(nodes)
        index = {v: i for i, v in enumerate(names)}
        src, dst, w = _grotto.adjacency_columns(adj, directed, index, weight)
        what = f"a networkx {type(G).__name__} with string nodes"
        return convert(_Ranked(src, dst, w, names, what), path, undirected=not directed, **options)
    raise InputError(
        "from_networkx needs nodes that are all non-negative integers or all strings; "
        "relabel others with nx.convert_node_labels_to_integers(G, label_attribute='name')"
    )


class GrottoGraph:
    """A networkx graph converted into a temporary grotto file, for the
    backend. ``nodes[i]`` is the networkx node of grotto vertex ``i``."""

    __networkx_backend__ = "grotto"

    def __init__(self, G: Any, weight: Optional[str]):
        _check_plain(G)
        self._dir = tempfile.TemporaryDirectory(prefix="grotto-nx-", dir=os.environ.get("GROTTO_TMPDIR"))
        self.directed = G.is_directed()
        src, dst, w, self.nodes = _edge_arrays(G, weight)
        self.weighted = w is not None
        path = os.path.join(self._dir.name, "g.grotto")
        n = len(self.nodes)
        loops = int(np.count_nonzero(src == dst))
        convert(
            (src, dst) if w is None else (src, dst, w),
            path,
            undirected=not self.directed,
            reverse=self.directed,
            ids="dense",
            vertices=max(n, 1),
            keep_self_loops=loops > 0,
        )
        self.graph: Graph = _open(path)
        self.index = None
        # Distinct neighbours other than itself (an undirected simple
        # graph lists each edge once), for transitivity's triples.
        keep = src != dst
        ends = [src[keep]] if self.directed else [src[keep], dst[keep]]
        self.neighbour_counts = np.bincount(
            np.concatenate(ends).astype(np.int64), minlength=n
        )

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return False

    def node(self, i: int) -> Any:
        return self.nodes[i]

    def index_or_build(self) -> Dict[Any, int]:
        if self.index is None:
            self.index = {u: i for i, u in enumerate(self.nodes)}
        return self.index

    def vertex(self, v: Any) -> int:
        if self.index is None:
            self.index = {u: i for i, u in enumerate(self.nodes)}
        try:
            return self.index[v]
        except KeyError:
            import networkx as nx

            raise nx.NodeNotFound(f"Source {v} is not in G") from None


def _weight_name(weight: Any) -> Optional[str]:
    return weight if isinstance(weight, str) else None


class BackendInterface:
    """The networkx backend (entry point ``networkx.backends``)."""

    @staticmethod
    def convert_from_nx(
        G: Any,
        edge_attrs: Any = None,
        node_attrs: Any = None,
        preserve_edge_attrs: bool = False,
        preserve_node_attrs: bool = False,
        preserve_graph_attrs: bool = False,
        name: Optional[str] = None,
        graph_name: Optional[str] = None,
    ) -> GrottoGraph:
        weight = None
        if isinstance(edge_attrs, dict) and edge_attrs:
            weight = next(iter(edge_attrs))
        elif isinstance(edge_attrs, str):
            weight = edge_attrs
        if name == "single_source_dijkstra_path_length" and weight is None:
            weight = "weight"
        return GrottoGraph(G, weight)

    @staticmethod
    def convert_to_nx(obj: Any, *, name: Optional[str] = None) -> Any:
        return obj

    @staticmethod
    def can_run(name: str, args: Tuple, kwargs: Dict[str, Any]) -> Any:
        kwargs = _bound(name, args, kwargs)
        G = kwargs.get("G")
        if G is not None and len(G) == 0:
            # A grotto file has at least one vertex; networkx answers the
            # null graph itself.
            return "the graph has no nodes"
        directed = G.is_directed() if G is not None else False
        if name == "pagerank":
            if any(kwargs.get(k) is not None for k in ("personalization", "nstart", "dangling")):
                return "grotto's PageRank has no personalization, start vector or dangling weights"
            if kwargs.get("weight") is not None and not isinstance(kwargs.get("weight"), str):
                return "grotto's PageRank takes the name of a weight attribute, not a function"
            return True
        if name in ("connected_components", "core_number"):
            return True if not directed else f"{name} is for undirected graphs"
        if name in ("triangles", "clustering", "average_clustering", "transitivity"):
            if directed:
                return f"grotto's {name} is for undirected graphs (its lcc follows Graphalytics on directed ones)"
            if kwargs.get("weight") is not None:
                return f"grotto's {name} is unweighted"
            if name == "average_clustering" and not kwargs.get("count_zeros", True):
                return "grotto's average_clustering counts every vertex (count_zeros=True)"
            return True
        if name in ("strongly_connected_components", "number_strongly_connected_components", "is_strongly_connected"):
            return True if directed else f"{name} is for directed graphs"
        if name == "betweenness_centrality":
            if kwargs.get("weight") is not None:
                return "grotto's betweenness is unweighted"
            if kwargs.get("k") is not None and _nx_rescale() is None:
                return "this networkx has no _rescale for sampled sources"
            return True
        if name == "bfs_edges":
            if kwargs.get("reverse") or kwargs.get("depth_limit") is not None or kwargs.get("sort_neighbors") is not None:
                return "grotto's bfs_edges has no reverse, depth_limit or sort_neighbors"
            return True
        if name == "single_source_dijkstra_path_length":
            if kwargs.get("cutoff") is not None or not isinstance(kwargs.get("weight", "weight"), str):
                return "grotto's shortest paths take no cutoff or weight function"
            return True
        return False

    @staticmethod
    def should_run(name: str, args: Tuple, kwargs: Dict[str, Any]) -> bool:
        return True

    @staticmethod
    def pagerank(G: GrottoGraph, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None, weight="weight", dangling=None):
        import networkx as nx

        n = len(G.nodes)
        if n == 0:
            return {}
        # networkx stops when the L1 change falls below n * tol; grotto's
        # tolerance is the L1 change itself, so tol is at least as tight.
        # Weighted as networkx is (weight="weight" by default) when the
        # edges carry the attribute; a missing one counts as 1.
        weighted = G.weighted and weight is not None
        res = G.graph.pagerank(damping=alpha, tolerance=tol, max_iterations=max_iter,
                               weighted=True if weighted else None)
        if not res.summary["converged"]:
            raise nx.PowerIterationFailedConvergence(max_iter)
        return {G.nodes[i]: float(x) for i, x in zip(res["id"].tolist(), res["score"].tolist())}

    @staticmethod
    def connected_components(G: GrottoGraph) -> Iterator[Set[Any]]:
        res = G.graph.wcc()
        groups: Dict[int, Set[Any]] = {}
        for i, c in zip(res["id"].tolist(), res["component"].tolist()):
            groups.setdefault(c, set()).add(G.nodes[i])
        yield from groups.values()

    @staticmethod
    def core_number(G: GrottoGraph) -> Dict[Any, int]:
        import networkx as nx

        res = G.graph.coreness()
        return {G.nodes[i]: int(c) for i, c in zip(res["id"].tolist(), res["core"].tolist())}

    @staticmethod
    def triangles(G: GrottoGraph, nodes=None):
        res = G.graph.tc(per_vertex=True)
        counts = {G.nodes[i]: int(t) for i, t in zip(res["id"].tolist(), res["triangles"].tolist())}
        return _pick(G, counts, nodes)

    @staticmethod
    def clustering(G: GrottoGraph, nodes=None, weight=None):
        res = G.graph.lcc()
        c = {G.nodes[i]: float(x) for i, x in zip(res["id"].tolist(), res["lcc"].tolist())}
        return _pick(G, c, nodes)

    @staticmethod
    def average_clustering(G: GrottoGraph, nodes=None, weight=None, count_zeros=True):
        c = BackendInterface.clustering(G, nodes)
        if not isinstance(c, dict):
            return c
        if not c:
            raise ZeroDivisionError("average_clustering of no nodes")
        return sum(c.values()) / len(c)

    @staticmethod
    def transitivity(G: GrottoGraph):
        # Three times the triangles over the connected triples: each
        # vertex's neighbour pairs, d(d-1)/2, from its coefficient's count.
        res = G.graph.tc(per_vertex=True)
        total = int(res.summary["triangles"])
        if total == 0:
            return 0
        deg = G.neighbour_counts
        triples = int(np.sum(deg.astype(np.float64) * (deg.astype(np.float64) - 1)) // 2)
        return 3 * total / triples

    @staticmethod
    def strongly_connected_components(G: GrottoGraph) -> Iterator[Set[Any]]:
        res = G.graph.scc()
        groups: Dict[int, Set[Any]] = {}
        for i, c in zip(res["id"].tolist(), res["component"].tolist()):
            groups.setdefault(c, set()).add(G.nodes[i])
        yield from groups.values()

    @staticmethod
    def number_strongly_connected_components(G: GrottoGraph) -> int:
        if not G.nodes:
            return 0
        return int(G.graph.scc().summary["components"])

    @staticmethod
    def is_strongly_connected(G: GrottoGraph) -> bool:
        import networkx as nx

        if not G.nodes:
            raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
        return int(G.graph.scc().summary["components"]) == 1

    @staticmethod
    def betweenness_centrality(G: GrottoGraph, k=None, normalized=True, weight=None, endpoints=False, seed=None):
        n = len(G.nodes)
        if k is None:
            res = G.graph.bc(normalized=normalized, endpoints=endpoints) if n else None
            scores = {} if res is None else dict(zip(res["id"].tolist(), res["betweenness"].tolist()))
            return {G.nodes[i]: float(scores.get(i, 0.0)) for i in range(n)}
        # networkx's own draw (seed is its random.Random by now), the
        # plain sums from those sources, and networkx's own rescale.
        import random

        rng = seed if seed is not None else random
        sampled = rng.sample(list(G.nodes), k)
        res = G.graph.bc(source=[G.vertex(v) for v in sampled], endpoints=endpoints)
        sums = {G.nodes[i]: float(x) for i, x in zip(res["id"].tolist(), res["betweenness"].tolist())}
        return _nx_rescale()(
            sums, n, normalized=normalized, directed=G.directed, endpoints=endpoints, sampled_nodes=sampled
        )

    @staticmethod
    def bfs_edges(G: GrottoGraph, source, reverse=False, depth_limit=None, sort_neighbors=None) -> Iterator[Tuple[Any, Any]]:
        s = G.vertex(source)
        res = G.graph.bfs(s)
        depth, parent = res["depth"], res["parent"]
        order = np.lexsort((res["id"], depth))
        for i in order.tolist():
            d = int(depth[i])
            if d <= 0:
                continue
            yield (G.nodes[int(parent[i])], G.nodes[int(res["id"][i])])

    @staticmethod
    def single_source_dijkstra_path_length(G: GrottoGraph, source, cutoff=None, weight="weight") -> Dict[Any, float]:
        s = G.vertex(source)
        if G.weighted:
            res = G.graph.sssp(s)
            dist = res["distance"]
        else:
            res = G.graph.bfs(s)
            dist = np.where(res["depth"] >= 0, res["depth"], np.inf).astype(np.float64)
        ids = res["id"]
        order = np.argsort(dist, kind="stable")
        return {G.nodes[int(ids[i])]: float(dist[i]) for i in order.tolist() if np.isfinite(dist[i])}


def _pick(G: GrottoGraph, values: Dict[Any, Any], nodes: Any) -> Any:
    """networkx's ``nodes=`` rule: one node (in G) gives its value, an
    iterable of nodes the dict of those, None every node's."""
    if nodes is None:
        return values
    try:
        one = nodes in G.index_or_build()
    except TypeError:  # a list or set of nodes: not hashable
        one = False
    if one:
        return values[nodes]
    return {v: values[v] for v in nodes if v in values}


def _nx_rescale():
    """networkx's own rescale of sampled betweenness (3.5 and later), or
    None."""
    try:
        from networkx.algorithms.centrality.betweenness import _rescale
    except ImportError:
        return None
    import inspect

    return _rescale if "sampled_nodes" in inspect.signature(_rescale).parameters else None


def _bound(name: str, args: Tuple, kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The call's arguments by name, defaults included (networkx passes
    them as the caller wrote them)."""
    import inspect

    from networkx.utils.backends import _registered_algorithms

    sig = inspect.signature(_registered_algorithms[name])
    b = sig.bind(*args, **kwargs)
    b.apply_defaults()
    return dict(b.arguments)


def _has_weights(G: Any, attr: Any) -> bool:
    if not isinstance(attr, str):
        return True
    for _, _, d in G.edges(data=True):
        if attr in d:
            return True
    return False


def get_info() -> Dict[str, Any]:
    """What networkx shows about the backend (entry point
    ``networkx.backend_info``)."""
    functions = {
        "pagerank": {"additional_docs": "Weighted by the edge attribute as networkx is; runs with the edges on disk."},
        "connected_components": {},
        "core_number": {},
        "bfs_edges": {"additional_docs": "A BFS tree with networkx's depths; parents may differ where several qualify."},
        "single_source_dijkstra_path_length": {"additional_docs": "Distances summed in float32."},
        "triangles": {"additional_docs": "Undirected graphs; degree-ordered intersections within a memory budget."},
        "clustering": {"additional_docs": "Undirected, unweighted; LDBC Graphalytics' LCC."},
        "average_clustering": {"additional_docs": "Undirected, unweighted, count_zeros=True."},
        "transitivity": {"additional_docs": "Undirected graphs."},
        "strongly_connected_components": {},
        "number_strongly_connected_components": {},
        "is_strongly_connected": {},
        "betweenness_centrality": {"additional_docs": "Unweighted; k sources drawn with networkx's own seed."},
    }
    return {
        "backend_name": "grotto",
        "project": "grotto",
        "package": "grotto",
        "short_summary": "Out-of-core graph analytics with the edges on disk.",
        "functions": functions,
        "default_config": {},
    }
