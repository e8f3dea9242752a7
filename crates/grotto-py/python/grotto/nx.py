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
``can_run``. Where networkx's answer depends on the order it visits
neighbours (``bfs_edges`` and what networkx builds on it), grotto runs
networkx's own rule (``bfs --parents first``: neighbours in node order)
and answers exactly when G's adjacency lists are in node order, as a
grotto file's are; otherwise networkx runs it.

A graph file opened with :func:`grotto.open` is itself a backend graph:
``nx.pagerank(grotto.open("g.grotto"))`` runs in grotto with nothing
converted or loaded.
"""

from __future__ import annotations

import os
import numbers
import random
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

import numpy as np

from . import Graph, InputError
from ._maps import VertexMap, VertexSet
from . import _nxfallback
from ._nxgraph import GrottoGraph, _has_node, _in_node_order, _OnDisk, _view, from_networkx

__all__ = ["BackendInterface", "GrottoGraph", "VertexMap", "VertexSet", "from_networkx", "get_info"]


class BackendInterface(metaclass=_nxfallback.Fallback):
    """The networkx backend (entry point ``networkx.backends``). A
    function it has no method for runs as networkx's own code on graph
    files that fit in memory (see :mod:`grotto._nxfallback`)."""

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
        if os.environ.get("GROTTO_NX_AS_FILES"):
            # Measurement only (bench/nx_files.py): networkx's own tests
            # with graph files as their inputs, as a user's would be.
            as_file = _nxfallback.as_file(G, weight)
            if as_file is not None:
                return as_file
        return GrottoGraph(G, weight)

    @staticmethod
    def convert_to_nx(obj: Any, *, name: Optional[str] = None) -> Any:
        if isinstance(obj, Graph):
            # A graph file (a piece a function returned): networkx's own
            # graph of it while it fits (grotto.MAX_NETWORKX_EDGES).
            return _nxfallback.small_or_file(obj)
        return obj

    @staticmethod
    def can_run(name: str, args: Tuple, kwargs: Dict[str, Any]) -> Any:
        if name not in BackendInterface.__dict__:
            answer = _nxfallback.can_fall_back(name, args, kwargs)
        else:
            answer = BackendInterface._can_run_own(name, args, kwargs)
        # networkx only logs a reason; a graph file has no other backend,
        # so the refusal is raised here with its reason.
        _nxfallback.refuse_on_files(name, args, kwargs, answer)
        return answer

    @staticmethod
    def _can_run_own(name: str, args: Tuple, kwargs: Dict[str, Any]) -> Any:
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
        if name == "core_number":
            # Directed: networkx's in- plus out-degree, from the reverse
            # edges (a converted graph has them).
            if directed and isinstance(G, Graph) and not G._has_reverse():
                return ("core_number of a directed graph counts in- and out-edges, and this file has no "
                        "reverse edges; convert it again with reverse=True")
            return True
        if name in ("connected_components", "number_connected_components", "is_connected",
                    "node_connected_component"):
            return True if not directed else f"{name} is for undirected graphs"
        if name in ("weakly_connected_components", "number_weakly_connected_components", "is_weakly_connected"):
            return True if directed else f"{name} is for directed graphs"
        if name == "single_source_shortest_path_length":
            if G is not None and not isinstance(G, Graph) and not _in_node_order(G):
                return "G's adjacency lists are not in node order, which networkx's dict order follows"
            return True
        if name == "descendants":
            return True
        if name in ("degree_centrality", "in_degree_centrality", "out_degree_centrality"):
            if G is not None and G.is_multigraph():
                return "grotto stores a multigraph's parallel edges as one"
            if name != "degree_centrality" and not directed:
                return f"{name} is for directed graphs"
            return True
        if name in ("eigenvector_centrality", "katz_centrality"):
            if kwargs.get("nstart") is not None:
                return f"grotto's {name} starts from networkx's default vector (no nstart)"
            weight = kwargs.get("weight")
            if weight is not None and not isinstance(weight, str):
                return f"grotto's {name} takes the name of a weight attribute"
            if name == "katz_centrality" and not isinstance(kwargs.get("beta", 1.0), numbers.Real):
                return "grotto's katz_centrality takes one beta for every node (a number, not a dict)"
            return True
        if name in _LINK_SCORES:
            if kwargs.get("ebunch") is None and len(G) > _NON_EDGES_NODES:
                return (f"{name} without ebunch scores every non-edge: about {len(G) ** 2 // 2:,} "
                        f"pairs of this graph's {len(G):,} nodes (grotto scores them up to "
                        f"{_NON_EDGES_NODES:,} nodes); give the pairs as ebunch, or use "
                        "g.link_prediction(u) for the vertices two hops from u")
            return True
        if name in ("diameter", "radius"):
            if kwargs.get("e") is not None or kwargs.get("weight") is not None:
                return f"grotto's {name} computes every eccentricity itself, unweighted"
            if len(G) > _ECCENTRICITY_NODES:
                return (f"an exact {name} is a BFS from each of this graph's {len(G):,} nodes "
                        f"(grotto runs them up to {_ECCENTRICITY_NODES:,}); "
                        "g.eccentricity(sweeps=...) gives a diameter's lower bound")
            return True
        if name == "ego_graph":
            if kwargs.get("distance") is not None:
                return "grotto's ego network counts hops, not a distance attribute"
            if isinstance(G, Graph) and directed and kwargs.get("undirected") and not G.info()["reverse"]:
                return "undirected=True on a directed graph file needs its reverse edges (convert with reverse=True)"
            return True
        if name in _PATHS:
            return _can_run_path(name, G, kwargs)
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
        if name in ("bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors"):
            if kwargs.get("reverse") or kwargs.get("depth_limit") is not None or kwargs.get("sort_neighbors") is not None:
                return f"grotto's {name} has no reverse, depth_limit or sort_neighbors"
            if G is not None and not isinstance(G, Graph) and not _in_node_order(G):
                # networkx visits neighbours in G's adjacency order, which a
                # grotto file (lists sorted by id) does not keep.
                return "G's adjacency lists are not in node order, which networkx's BFS order follows"
            return True
        if name == "bfs_layers":
            sources = kwargs.get("sources")
            if not _has_node(G, sources) and not isinstance(sources, (int, str)):
                # Not a node: a list of them (one, for grotto; an iterator
                # is not consumed here), or what networkx refuses itself.
                if not isinstance(sources, (list, tuple, set, frozenset)) or len(sources) != 1:
                    return "grotto's bfs_layers starts from one source (a node, or a list of one)"
            if not isinstance(G, Graph) and not _in_node_order(G):
                return "G's adjacency lists are not in node order, which networkx's layer order follows"
            return True
        if name == "eccentricity":
            weight = kwargs.get("weight")
            if kwargs.get("sp") is not None or (weight is not None and not isinstance(weight, str)):
                return "grotto's eccentricity computes its own paths, weighted by an attribute name"
            if weight is not None:
                if G.is_multigraph():
                    return "shortest paths of a multigraph: not yet in grotto"
                exact = _exact_sums(G, weight)
                if exact is not True:
                    return exact
            v = kwargs.get("v")
            if v is not None and not _has_node(G, v) and not isinstance(v, (list, tuple, set, frozenset)):
                return "grotto's eccentricity takes a node, a list of nodes or None"
            return True
        if name in ("k_core", "k_shell", "k_crust", "k_corona"):
            if directed and isinstance(G, Graph) and not G._has_reverse():
                return f"{name} of a directed graph counts in- and out-edges, and this file has no reverse edges"
            if kwargs.get("core_number") is not None:
                return "the core numbers are given: networkx needs no engine"
            return True
        if name == "maximal_independent_set":
            if kwargs.get("nodes"):
                return "grotto's maximal_independent_set takes no required nodes"
            if kwargs.get("seed") is not random._inst:
                # networkx's answer for a seed is its own random draws.
                return "networkx's answer for a given seed is its own random draws"
            if not isinstance(G, Graph) and any(True for _ in _selfloops(G)):
                return "networkx keeps vertices with self loops in the set"
            return True
        if name in ("louvain_communities", "louvain_partitions", "leiden_communities", "leiden_partitions"):
            if directed:
                # networkx's Louvain has a directed form; its Leiden refuses
                # directed graphs before asking a backend.
                return f"grotto's {name} is for undirected graphs (networkx's directed modularity is not in grotto)"
            weight = kwargs.get("weight")
            if weight is not None and not isinstance(weight, str):
                return f"grotto's {name} takes the name of a weight attribute"
            if (name.startswith("louvain") and not isinstance(G, Graph)
                    and kwargs.get("seed") is not random._inst):
                # networkx's answer for a seed is its own draws; a graph
                # file has no networkx answer, and takes the seed as grotto's.
                return "networkx's answer for a given seed is its own random draws"
            return True
        if name == "modularity":
            weight = kwargs.get("weight")
            if weight is not None and not isinstance(weight, str):
                return "grotto's modularity takes the name of a weight attribute"
            return True
        if name == "single_source_dijkstra_path_length":
            if G is not None and G.is_multigraph():
                return "shortest paths of a multigraph take the lightest parallel edge: not yet in grotto"
            if kwargs.get("cutoff") is not None or not isinstance(kwargs.get("weight", "weight"), str):
                return "grotto's shortest paths take no cutoff or weight function"
            return _exact_sums(G, kwargs.get("weight", "weight"))
        return False

    @staticmethod
    def should_run(name: str, args: Tuple, kwargs: Dict[str, Any]) -> Any:
        # Asked only when networkx would convert a networkx graph on its
        # own (grotto in nx.config.backend_priority): a graph too small
        # for the conversion to pay is left to networkx, unless G's
        # conversion is cached already.
        G = _bound(name, args, kwargs).get("G")
        if G is None or isinstance(G, Graph) or _converted(G) or name.startswith("leiden"):
            # (networkx has no Leiden of its own to leave it to.)
            return True
        need = _PAYS_FROM.get(name, _PAYS_FROM_DEFAULT)
        if need == float("inf"):
            return f"networkx's {name} stops at the target: converting G costs more than its search"
        if G.number_of_edges() < need:
            return f"networkx answers {name} on fewer than {need} edges faster than a conversion"
        return True

    @staticmethod
    def pagerank(G: GrottoGraph, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None, weight="weight", dangling=None):
        G = _view(G, weight)
        import networkx as nx

        n = len(G)
        if n == 0:
            return {}
        # networkx stops when the L1 change falls below n * tol; grotto's
        # tolerance is the L1 change itself, so tol is at least as tight.
        # Weighted as networkx is (weight="weight" by default) when the
        # edges carry the attribute; a missing one counts as 1.
        # A multigraph's weights count its parallel edges even then.
        weighted = G.weighted and (weight is not None or getattr(G, "multigraph", False))
        res = G.runs.pagerank(damping=alpha, tolerance=tol, max_iterations=max_iter,
                               weighted=True if weighted else None)
        if not res.summary["converged"]:
            raise nx.PowerIterationFailedConvergence(max_iter)
        return _per_vertex(G, res, "score")

    @staticmethod
    def connected_components(G: GrottoGraph) -> Iterator[Set[Any]]:
        G = _view(G)
        # The result itself is not kept: only its two columns, which the
        # grouping drops as soon as it has what it needs.
        yield from _groups(G, *_id_and(G.runs.wcc(), "component"))

    @staticmethod
    def number_connected_components(G: GrottoGraph) -> int:
        G = _view(G)
        return int(G.runs.wcc().summary["components"]) if len(G) else 0

    @staticmethod
    def is_connected(G: GrottoGraph) -> bool:
        import networkx as nx

        G = _view(G)
        if not len(G):
            raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
        return int(G.runs.wcc().summary["components"]) == 1

    @staticmethod
    def node_connected_component(G: GrottoGraph, n) -> Set[Any]:
        G = _view(G)
        at = G.row(n)
        res = G.runs.wcc()
        comp = res["component"]
        rows = np.flatnonzero(comp == comp[at])
        if isinstance(G, _OnDisk):
            return VertexSet(G.graph, res["id"][rows], rows)
        return set(G.nodes_of(res["id"][rows]))

    # Weak components of a directed graph: the same union-find.
    weakly_connected_components = connected_components

    @staticmethod
    def number_weakly_connected_components(G: GrottoGraph) -> int:
        return BackendInterface.number_connected_components(G)

    @staticmethod
    def is_weakly_connected(G: GrottoGraph) -> bool:
        import networkx as nx

        if not len(_view(G)):
            raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
        return BackendInterface.number_connected_components(G) == 1

    @staticmethod
    def single_source_shortest_path_length(G: GrottoGraph, source, cutoff=None) -> Dict[Any, int]:
        G = _view(G)
        res = G.runs.bfs(G.vertex(source), parents="first")
        order, depth, ids = res["order"], res["depth"].tolist(), res["id"].tolist()
        # networkx's dict lists the vertices as its BFS finds them.
        out = {}
        for i in np.argsort(order, kind="stable").tolist():
            if order[i] < 0 or (cutoff is not None and depth[i] > cutoff):
                continue
            out[G.node(ids[i])] = depth[i]
        return out

    @staticmethod
    def descendants(G: GrottoGraph, source) -> Set[Any]:
        import networkx as nx

        G = _view(G)
        try:
            s = G.vertex(source)
        except nx.NodeNotFound:
            raise nx.NetworkXError(f"The node {source} is not in the graph.") from None
        res = G.runs.bfs(s)
        rows = np.flatnonzero(res["depth"] > 0)
        if isinstance(G, _OnDisk):
            return VertexSet(G.graph, res["id"][rows], rows)
        return set(G.nodes_of(res["id"][rows]))

    @staticmethod
    def has_path(G: GrottoGraph, source, target) -> bool:
        import networkx as nx

        V = _view(G)
        if not (V.has(source) and V.has(target)):
            raise nx.NodeNotFound(f"Either source {source} or target {target} is not in G")
        try:
            _search(V, source, target, None)
        except nx.NetworkXNoPath:
            return False
        return True

    @staticmethod
    def shortest_path(G: GrottoGraph, source=None, target=None, weight=None, method="dijkstra"):
        if method not in ("dijkstra", "bellman-ford"):
            raise ValueError(f"method not supported: {method}")
        if target is None:
            if weight is None:
                return BackendInterface.single_source_shortest_path(G, source)
            return BackendInterface.single_source_dijkstra(G, source, weight=weight)[1]
        if weight is None:
            return BackendInterface.bidirectional_shortest_path(G, source, target)
        return BackendInterface.bidirectional_dijkstra(G, source, target, weight=weight)[1]

    @staticmethod
    def shortest_path_length(G: GrottoGraph, source=None, target=None, weight=None, method="dijkstra"):
        if method not in ("dijkstra", "bellman-ford"):
            raise ValueError(f"method not supported: {method}")
        if target is None:
            if weight is None:
                return BackendInterface.single_source_shortest_path_length(G, source)
            return BackendInterface.single_source_dijkstra_path_length(G, source, weight=weight)
        if weight is None:
            return len(BackendInterface.bidirectional_shortest_path(G, source, target)) - 1
        return BackendInterface.bidirectional_dijkstra(G, source, target, weight=weight)[0]

    @staticmethod
    def bidirectional_shortest_path(G: GrottoGraph, source, target) -> List[Any]:
        V = _view(G)
        _need(V, source, f"Source {source} is not in G")
        _need(V, target, f"Target {target} is not in G")
        return _search(V, source, target, None, f"No path between {source} and {target}.")[1]

    @staticmethod
    def bidirectional_dijkstra(G: GrottoGraph, source, target, weight="weight"):
        V = _view(G, weight)
        _need(V, source, f"Source {source} is not in G")
        _need(V, target, f"Target {target} is not in G")
        return _search(V, source, target, weight, f"No path between {source} and {target}.")

    @staticmethod
    def dijkstra_path(G: GrottoGraph, source, target, weight="weight") -> List[Any]:
        V = _view(G, weight)
        _need(V, source, f"Node {source} not found in graph")
        return _search(V, source, target, weight, f"No path to {target}.")[1]

    @staticmethod
    def dijkstra_path_length(G: GrottoGraph, source, target, weight="weight"):
        V = _view(G, weight)
        _need(V, source, f"Node {source} not found in graph")
        if source == target:
            return 0
        return _search(V, source, target, weight, f"Node {target} not reachable from {source}")[0]

    @staticmethod
    def single_source_shortest_path(G: GrottoGraph, source, cutoff=None) -> Dict[Any, List[Any]]:
        V = _view(G)
        _need(V, source, f"Source {source} not in G")
        res = V.runs.bfs(V.vertex(source), parents="first")
        order, depth = res["order"], res["depth"].tolist()
        # networkx's dict lists the vertices as its BFS finds them.
        rows = [i for i in np.argsort(order, kind="stable").tolist()
                if order[i] >= 0 and (cutoff is None or depth[i] <= cutoff)]
        return _tree_paths(V, res, rows)

    @staticmethod
    def single_source_dijkstra(G: GrottoGraph, source, target=None, cutoff=None, weight="weight"):
        V = _view(G, weight)
        _need(V, source, f"Node {source} not found in graph")
        if target is not None:
            if source == target:
                return (0, [source])
            return _search(V, source, target, weight, f"No path to {target}.")
        if not (V.weighted and weight is not None):
            paths = BackendInterface.single_source_shortest_path(G, source)
            return ({v: len(p) - 1 for v, p in paths.items()}, paths)
        res = _dijkstra_run(V, V.vertex(source))
        dist = res["distance"]
        rows = [i for i in np.argsort(dist, kind="stable").tolist() if np.isfinite(dist[i])]
        kind = int if V.int_lengths else float
        ids = res["id"]
        lengths = {V.node(v): kind(d) for v, d in zip(ids[rows].tolist(), dist[rows].tolist())}
        return lengths, _tree_paths(V, res, rows)

    @staticmethod
    def core_number(G: GrottoGraph) -> Dict[Any, int]:
        G = _view(G)
        import networkx as nx

        if getattr(G, "loops", 0):
            # networkx's own refusal, word for word.
            raise nx.NetworkXNotImplemented(
                "Input graph has self loops which is not permitted; "
                "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
            )
        return _per_vertex(G, G.runs.coreness(), "core")

    @staticmethod
    def triangles(G: GrottoGraph, nodes=None):
        G = _view(G)
        return _pick(G, _per_vertex(G, G.runs.tc(per_vertex=True), "triangles"), nodes)

    @staticmethod
    def clustering(G: GrottoGraph, nodes=None, weight=None):
        G = _view(G, weight)
        return _pick(G, _per_vertex(G, G.runs.lcc(), "lcc"), nodes)

    @staticmethod
    def average_clustering(G: GrottoGraph, nodes=None, weight=None, count_zeros=True):
        G = _view(G, weight)
        c = BackendInterface.clustering(G, nodes)
        if not isinstance(c, (dict, VertexMap)):
            return c
        if not c:
            raise ZeroDivisionError("average_clustering of no nodes")
        if isinstance(c, VertexMap):
            return float(np.mean(c.to_numpy()[1]))
        return sum(c.values()) / len(c)

    @staticmethod
    def transitivity(G: GrottoGraph):
        G = _view(G)
        # Three triangles per connected triple (a vertex's pairs of distinct
        # neighbours other than itself), both from the one count.
        return float(G.runs.tc(per_vertex=True).summary["transitivity"]) or 0

    @staticmethod
    def strongly_connected_components(G: GrottoGraph) -> Iterator[Set[Any]]:
        G = _view(G)
        groups = _groups(G, *_id_and(G.runs.scc(), "component"))
        # networkx promises no order; the largest first (ties in the order
        # of their smallest vertex) is one a reader can rely on, and gives
        # nx.condensation the numbering its tests expect.
        yield from sorted(groups, key=len, reverse=True)

    @staticmethod
    def number_strongly_connected_components(G: GrottoGraph) -> int:
        G = _view(G)
        if not len(G):
            return 0
        return int(G.runs.scc().summary["components"])

    @staticmethod
    def is_strongly_connected(G: GrottoGraph) -> bool:
        G = _view(G)
        import networkx as nx

        if not len(G):
            raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
        return int(G.runs.scc().summary["components"]) == 1

    @staticmethod
    def betweenness_centrality(G: GrottoGraph, k=None, normalized=True, weight=None, endpoints=False, seed=None):
        G = _view(G, weight)
        n = len(G)
        if k is None:
            if n == 0:
                return {}
            res = G.runs.bc(normalized=normalized, endpoints=endpoints)
            return _per_vertex(G, res, "betweenness")
        # networkx's own draw (seed is its random.Random by now), the
        # plain sums from those sources, and networkx's own rescale.
        import random

        rng = seed if seed is not None else random
        sampled = rng.sample(list(G.nodes), k)
        if sampled:
            res = G.runs.bc(source=[G.vertex(v) for v in sampled], endpoints=endpoints)
            sums = {G.node(i): float(x) for i, x in zip(res["id"].tolist(), res["betweenness"].tolist())}
        else:
            # k=0: no sources, and networkx's rescale divides by k, as ours
            # does through it (ZeroDivisionError, as networkx raises).
            sums = {v: 0.0 for v in G.nodes}
        return _nx_rescale()(
            sums, n, normalized=normalized, directed=G.directed, endpoints=endpoints, sampled_nodes=sampled
        )

    @staticmethod
    def bfs_edges(G: GrottoGraph, source, reverse=False, depth_limit=None, sort_neighbors=None) -> Iterator[Tuple[Any, Any]]:
        G = _view(G)
        s = G.vertex(source)
        # networkx's own tree, in its visiting order: each vertex's parent
        # the first visited neighbour, neighbours taken in node order.
        res = G.runs.bfs(s, parents="first")
        order, parent, ids = res["order"], res["parent"].tolist(), res["id"].tolist()
        for i in np.argsort(order, kind="stable").tolist():
            if order[i] <= 0:
                continue
            yield (G.node(parent[i]), G.node(ids[i]))

    @staticmethod
    def bfs_tree(G: GrottoGraph, source, reverse=False, depth_limit=None, sort_neighbors=None):
        import networkx as nx

        T = nx.DiGraph()
        T.add_node(source)
        T.add_edges_from(BackendInterface.bfs_edges(G, source))
        return T

    @staticmethod
    def bfs_predecessors(G: GrottoGraph, source, depth_limit=None, sort_neighbors=None) -> Iterator[Tuple[Any, Any]]:
        for u, v in BackendInterface.bfs_edges(G, source):
            yield (v, u)

    @staticmethod
    def bfs_successors(G: GrottoGraph, source, depth_limit=None, sort_neighbors=None) -> Iterator[Tuple[Any, List[Any]]]:
        # networkx's grouping: consecutive tree edges with one parent.
        parent, children = source, []
        for u, v in BackendInterface.bfs_edges(G, source):
            if u == parent:
                children.append(v)
                continue
            yield (parent, children)
            parent, children = u, [v]
        yield (parent, children)

    @staticmethod
    def bfs_layers(G: GrottoGraph, sources) -> Iterator[List[Any]]:
        import networkx as nx

        V = _view(G)
        if not V.has(sources) and isinstance(sources, (list, tuple, set, frozenset)):
            (sources,) = sources
        try:
            ids, depth, order = _bfs_from(V, sources)
        except nx.NodeNotFound:
            raise nx.NetworkXError(f"The node {sources} is not in the graph.") from None
        layers: List[List[Any]] = []
        for i in np.argsort(order, kind="stable").tolist():
            if order[i] < 0:
                continue
            if depth[i] == len(layers):
                layers.append([])
            layers[depth[i]].append(V.node(ids[i]))
        yield from layers

    @staticmethod
    def eccentricity(G: GrottoGraph, v=None, sp=None, weight=None):
        import networkx as nx

        V = _view(G, weight)
        # networkx's order: G's nodes, or the nodes of v that are in G.
        if v is None:
            which = list(V.nodes)
        elif V.has(v):
            which = [v]
        else:
            which = [u for u in v if V.has(u)]
        what = "digraph is not strongly connected" if V.directed else "graph is not connected"
        e = {}
        for u in which:
            if weight is not None:
                # One Dijkstra per vertex on the one converted graph.
                dist = BackendInterface.single_source_dijkstra_path_length(G, u, weight=weight)
                if len(dist) != len(V):
                    raise nx.NetworkXError(f"Found infinite path length because the {what}")
                e[u] = max(dist.values())
                continue
            depth = V.runs.bfs(V.vertex(u))["depth"]
            if bool(np.any(depth < 0)):
                raise nx.NetworkXError(f"Found infinite path length because the {what}")
            e[u] = int(depth.max())
        return e[v] if V.has(v) else e

    @staticmethod
    def degree_centrality(G: GrottoGraph) -> Dict[Any, float]:
        return _degree_centrality(G, "both")

    @staticmethod
    def in_degree_centrality(G: GrottoGraph) -> Dict[Any, float]:
        return _degree_centrality(G, "in")

    @staticmethod
    def out_degree_centrality(G: GrottoGraph) -> Dict[Any, float]:
        return _degree_centrality(G, "out")

    @staticmethod
    def eigenvector_centrality(G: GrottoGraph, max_iter=100, tol=1e-06, nstart=None, weight=None):
        import networkx as nx

        V = _view(G, weight)
        res = V.runs.eigenvector(max_iterations=max_iter, tolerance=tol,
                                 weighted=weight is not None and V.weighted)
        if not res.summary["converged"]:
            raise nx.PowerIterationFailedConvergence(max_iter)
        return _per_vertex(V, res, "score")

    @staticmethod
    def katz_centrality(G: GrottoGraph, alpha=0.1, beta=1.0, max_iter=1000, tol=1e-06, nstart=None,
                        normalized=True, weight=None):
        import networkx as nx

        V = _view(G, weight)
        res = V.runs.katz(alpha=alpha, beta=float(beta), max_iterations=max_iter, tolerance=tol,
                          normalized=bool(normalized), weighted=weight is not None and V.weighted)
        if not res.summary["converged"]:
            raise nx.PowerIterationFailedConvergence(max_iter)
        return _per_vertex(V, res, "score")

    @staticmethod
    def jaccard_coefficient(G: GrottoGraph, ebunch=None) -> Iterator[Tuple[Any, Any, float]]:
        return _link_scores(G, ebunch, "jaccard")

    @staticmethod
    def adamic_adar_index(G: GrottoGraph, ebunch=None) -> Iterator[Tuple[Any, Any, float]]:
        return _link_scores(G, ebunch, "adamic_adar")

    @staticmethod
    def resource_allocation_index(G: GrottoGraph, ebunch=None) -> Iterator[Tuple[Any, Any, float]]:
        return _link_scores(G, ebunch, "resource_allocation")

    @staticmethod
    def preferential_attachment(G: GrottoGraph, ebunch=None) -> Iterator[Tuple[Any, Any, int]]:
        return _link_scores(G, ebunch, "preferential_attachment")

    @staticmethod
    def diameter(G: GrottoGraph, e=None, usebounds=False, weight=None):
        return _extreme(G, e, weight, max)

    @staticmethod
    def radius(G: GrottoGraph, e=None, usebounds=False, weight=None):
        return _extreme(G, e, weight, min)

    @staticmethod
    def ego_graph(G: GrottoGraph, n, radius=1, center=True, undirected=False, distance=None):
        return _nxfallback.ego_graph(G, n, radius, center, undirected, distance)

    @staticmethod
    def k_core(G: GrottoGraph, k=None, core_number=None):
        return _core_subgraph(G, k, lambda V, v, k, c: c[v] >= k)

    @staticmethod
    def k_shell(G: GrottoGraph, k=None, core_number=None):
        return _core_subgraph(G, k, lambda V, v, k, c: c[v] == k)

    @staticmethod
    def k_crust(G: GrottoGraph, k=None, core_number=None):
        V = _view(G)
        c = _core_numbers(G)
        if k is None:
            k = max(c.values()) - 1
        return V.subgraph({v for v, x in c.items() if x <= k})

    @staticmethod
    def k_corona(G: GrottoGraph, k, core_number=None):
        def corona(V, v, k, c):
            return c[v] == k and k == sum(1 for w in V.neighbours(v) if c[w] >= k)

        return _core_subgraph(G, k, corona)

    @staticmethod
    def maximal_independent_set(G: GrottoGraph, nodes=None, seed=None) -> List[Any]:
        V = _view(G)
        # networkx's answer without a seed is any maximal set; ours is
        # seeded from networkx's random state, so it varies as networkx's.
        rng = seed if seed is not None else random
        res = V.runs.mis(seed=rng.getrandbits(63))
        return [V.node(i) for i, x in zip(res["id"].tolist(), res["in_set"].tolist()) if x]

    @staticmethod
    def louvain_communities(G: GrottoGraph, weight="weight", resolution=1, threshold=0.0000001,
                            max_level=None, seed=None) -> List[Any]:
        V = _view(G, weight)
        res = V.runs.louvain(**_community_args(V, weight, resolution, seed, threshold=threshold,
                                               max_level=max_level))
        return list(_groups(V, *_id_and(res, "community")))

    @staticmethod
    def louvain_partitions(G: GrottoGraph, weight="weight", resolution=1, threshold=0.0000001,
                           seed=None) -> Iterator[List[Any]]:
        V = _view(G, weight)
        res = V.runs.louvain(levels=True, **_community_args(V, weight, resolution, seed, threshold=threshold))
        yield from _levels(V, res)

    @staticmethod
    def leiden_communities(G: GrottoGraph, weight="weight", resolution=1, max_level=None,
                           seed=None) -> List[Any]:
        V = _view(G, weight)
        res = V.runs.leiden(**_community_args(V, weight, resolution, seed, max_level=max_level))
        return list(_groups(V, *_id_and(res, "community")))

    @staticmethod
    def leiden_partitions(G: GrottoGraph, weight="weight", resolution=1, seed=None) -> Iterator[List[Any]]:
        V = _view(G, weight)
        res = V.runs.leiden(levels=True, **_community_args(V, weight, resolution, seed))
        yield from _levels(V, res)

    @staticmethod
    def modularity(G: GrottoGraph, communities, weight="weight", resolution=1) -> float:
        import networkx as nx

        V = _view(G, weight)
        if not isinstance(communities, list):
            communities = list(communities)
        try:
            if isinstance(V, _OnDisk):
                labels = V.graph._partition_labels(communities)
            else:
                labels = _converted_labels(V, communities)
        except InputError:
            from networkx.algorithms.community.quality import NotAPartition

            raise NotAPartition(G, communities) from None
        return V.graph.modularity(labels, resolution=resolution, weight=weight is not None and V.weighted)

    @staticmethod
    def single_source_dijkstra_path_length(G: GrottoGraph, source, cutoff=None, weight="weight") -> Dict[Any, float]:
        G = _view(G, weight)
        s = G.vertex(source)
        if G.weighted and weight is not None:
            _exact_or_refuse(G)
            res = _dijkstra_run(G, s)
            dist = res["distance"]
        else:
            res = G.runs.bfs(s)
            dist = np.where(res["depth"] >= 0, res["depth"], np.inf).astype(np.float64)
        ids = res["id"].tolist()
        order = np.argsort(dist, kind="stable")
        # networkx's type: sums of int weights (or of its default 1) are ints.
        kind = int if G.int_lengths else float
        return {G.node(ids[i]): kind(dist[i]) for i in order.tolist() if np.isfinite(dist[i])}


# The path functions, and what each takes.
_PATHS = ("has_path", "shortest_path", "shortest_path_length", "bidirectional_shortest_path",
          "bidirectional_dijkstra", "dijkstra_path", "dijkstra_path_length",
          "single_source_shortest_path", "single_source_dijkstra")


def _can_run_path(name: str, G: Any, kwargs: Dict[str, Any]) -> Any:
    """``can_run`` for the path functions: True, or why networkx should
    answer the call itself."""
    if kwargs.get("cutoff") is not None and name == "single_source_dijkstra":
        return "grotto's shortest paths take no cutoff"
    if name in ("shortest_path", "shortest_path_length"):
        if kwargs.get("method") not in ("dijkstra", "bellman-ford"):
            return "networkx refuses the method"
        if kwargs.get("source") is None:
            # All pairs, or every source to one target: a search per vertex.
            return f"grotto answers {name} from a source (networkx answers every source, or all pairs)"
        if kwargs.get("weight") is not None and kwargs.get("method") != "dijkstra":
            return "grotto's weighted paths are Dijkstra's (non-negative weights)"
    one_target = name not in ("single_source_shortest_path", "single_source_dijkstra") and \
        not (name in ("shortest_path", "shortest_path_length") and kwargs.get("target") is None)
    if name == "single_source_dijkstra" and kwargs.get("target") is not None:
        one_target = True
    if (not one_target and not isinstance(G, Graph) and kwargs.get("weight") is None
            and not _in_node_order(G)):
        return "G's adjacency lists are not in node order, which networkx's BFS order and paths follow"
    weight = kwargs.get("weight", None)
    if name in ("bidirectional_shortest_path", "single_source_shortest_path", "has_path"):
        weight = None
    if weight is None:
        return True
    if not isinstance(weight, str):
        return "grotto's weighted paths take the name of a weight attribute, not a function"
    if G is not None and G.is_multigraph():
        return "shortest paths of a multigraph take the lightest parallel edge: not yet in grotto"
    return _exact_sums(G, weight)


def _need(V: Any, v: Any, message: str) -> None:
    """NodeNotFound with networkx's ``message`` unless ``v`` is a vertex."""
    if not V.has(v):
        import networkx as nx

        raise nx.NodeNotFound(message)


def _search(V: Any, source: Any, target: Any, weight: Any,
            no_path: Optional[str] = None) -> Tuple[Any, List[Any]]:
    """(length, path) from ``source`` to ``target`` by grotto's
    point-to-point search (hops when ``weight`` is None or the graph has
    no weights), in networkx's nodes; NetworkXNoPath with ``no_path``."""
    import networkx as nx

    from . import NoPathError

    weighted = weight is not None and bool(V.weighted)
    if weighted:
        _exact_or_refuse(V)
    no_path = no_path or f"No path between {source} and {target}."
    if not V.has(target):
        # networkx's Dijkstra family: a target not in G is not reached.
        raise nx.NetworkXNoPath(no_path)
    try:
        got = V.runs.shortest_path(V.vertex(source), V.vertex(target), weight=True if weighted else None)
    except NoPathError:
        raise nx.NetworkXNoPath(no_path) from None
    except InputError as e:
        if "non-negative weights" not in str(e):
            raise
        raise ValueError(f"Contradictory paths found: negative weights? ({e})") from None
    path = [V.node(v) for v in got]
    kind = int if (not weighted or V.int_lengths) else float
    return kind(got.length), path


def _exact_or_refuse(V: Any) -> None:
    """NotImplementedError unless grotto's float32 sums of V's weights are
    networkx's float64 ones (``can_run`` keeps such calls from here; this
    is for a direct call)."""
    if not V.exact_sums:
        # A networkx loop waiting for bounds to meet would not end either.
        raise NotImplementedError("these weights are not whole numbers float32 sums hold exactly")


def _dijkstra_run(V: Any, s: Any) -> Any:
    """grotto's SSSP from ``s``, with networkx's error on a negative weight."""
    _exact_or_refuse(V)
    try:
        return V.runs.sssp(s)
    except InputError as e:
        if "non-negative weights" not in str(e):
            raise
        # networkx's Dijkstra raises ValueError on a negative weight.
        raise ValueError(f"Contradictory paths found: negative weights? ({e})") from None


def _tree_paths(V: Any, res: Any, rows: List[int]) -> Dict[Any, List[Any]]:
    """The path from the root to each vertex of result rows ``rows`` along
    the result's ``parent`` tree, in networkx's nodes, keyed in the order
    of ``rows``."""
    ids, parent = res["id"][rows].tolist(), res["parent"][rows].tolist()
    nodes = [V.node(v) for v in ids]
    up = {n: (V.node(p) if p != v else None) for n, v, p in zip(nodes, ids, parent)}
    out: Dict[Any, List[Any]] = {}
    for n in nodes:
        # Up to the nearest vertex with a path (or the root), then down.
        climb = [n]
        while climb[-1] not in out and up[climb[-1]] is not None:
            climb.append(up[climb[-1]])
        top = climb.pop()
        base = out.get(top) or [top]
        out.setdefault(top, base)
        for m in reversed(climb):
            base = base + [m]
            out[m] = base
    return {n: out[n] for n in nodes}


# Edges from which converting a networkx graph and running in grotto is
# faster than networkx's own call, rounded up from the crossovers
# bench/python/nx_crossover.py measured on G(n, m) graphs (networkx's time
# over grotto's first call at 1e3 / 1e4 / 1e5 edges: connected_components
# 0.04 / 0.21 / 0.75x, 1.5x at 1e6; descendants 0.07 / 0.24 / 1.41x;
# core_number 0.26 / 0.82 / 4.8x; pagerank 0.40 / 0.87 / 4.4x; triangles
# 0.66 / 2.75 / 4.8x). networkx's has_path and dijkstra_path_length stop
# at the target: a conversion never pays for one call.
_ONE_PASS = ("connected_components", "number_connected_components", "is_connected",
             "node_connected_component", "weakly_connected_components",
             "number_weakly_connected_components", "is_weakly_connected")
_SEARCH = ("descendants", "bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors", "bfs_layers",
           "single_source_shortest_path_length", "shortest_path_length", "single_source_dijkstra_path_length")
_PER_EDGE_WORK = ("triangles", "clustering", "average_clustering", "transitivity", "betweenness_centrality",
                  "louvain_communities", "louvain_partitions")
_PAYS_FROM: Dict[str, float] = {
    **{name: 200_000 for name in _ONE_PASS},
    **{name: 50_000 for name in _SEARCH},
    **{name: 5_000 for name in _PER_EDGE_WORK},
    **{name: 50_000 for name in ("single_source_shortest_path", "single_source_dijkstra")},
    **{name: float("inf") for name in ("has_path", "dijkstra_path_length", "dijkstra_path",
                                        "bidirectional_shortest_path", "bidirectional_dijkstra")},
}
# PageRank, core numbers and the k-core family, strong components, MIS,
# eccentricity.
_PAYS_FROM_DEFAULT = 20_000


def _community_args(V: Any, weight: Any, resolution: Any, seed: Any, **more: Any) -> Dict[str, Any]:
    """Louvain's and Leiden's keyword arguments from networkx's: the seed
    drawn from networkx's random state (a seed gives the same draw, no
    seed a fresh one), weights when the graph has them and ``weight`` is
    not None."""
    rng = seed if seed is not None else random
    if "max_level" in more and more["max_level"] is not None and more["max_level"] <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    return dict(resolution=resolution, seed=rng.getrandbits(63),
                weight=weight is not None and bool(V.weighted), **more)


def _levels(V: Any, res: Any) -> Iterator[List[Any]]:
    """Each level's partition of a run with ``levels=True``, as lists of
    sets (networkx's ``*_partitions``)."""
    level = 1
    while f"level{level}" in res.columns:
        yield list(_groups(V, *_id_and(res, f"level{level}")))
        level += 1


def _converted_labels(V: Any, communities: List[Any]) -> np.ndarray:
    """One label per vertex of a converted networkx graph (its rows are
    its node positions) from networkx's partition form; an InputError when
    it is not a partition of the graph's nodes."""
    index = V.index_or_build()
    labels = np.full(len(V), -1, dtype=np.int64)
    for i, members in enumerate(communities):
        for v in members:
            at = index.get(v, -1) if _hashable(v) else -1
            if at < 0 or labels[at] >= 0:
                raise InputError("not a partition of the graph's nodes")
            labels[at] = i
    if bool(np.any(labels < 0)):
        raise InputError("not a partition of the graph's nodes")
    return labels.astype(np.uint64)


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _converted(G: Any) -> bool:
    """Whether networkx holds G's grotto conversion in its cache."""
    cache = getattr(G, "__networkx_cache__", None) or {}
    return bool(cache.get("backends", {}).get("grotto"))


def _groups(V: Any, ids: np.ndarray, labels: np.ndarray) -> Any:
    """The vertices of each label as sets of nodes (of a graph file of
    integer ids: made one at a time by :func:`_file_groups`), in the order of each
    label's first vertex (networkx's order of components: by their first
    node), grouped with NumPy rather than a Python loop per vertex."""
    if len(labels) == 0:
        return []
    if isinstance(V, _OnDisk) and not V.graph.has_names:
        return _file_groups(V, ids, labels)
    order = np.argsort(labels, kind="stable")
    ranked = labels[order]
    starts = np.concatenate(([0], np.flatnonzero(ranked[1:] != ranked[:-1]) + 1))
    ends = np.append(starts[1:], len(ranked))
    # Groups by their first vertex (the first of each run: stable order).
    by_first = np.argsort(order[starts], kind="stable")
    members = V.nodes_of(ids[order])
    return [set(members[starts[k]:ends[k]]) for k in by_first.tolist()]


def _id_and(res: Any, column: str) -> Tuple[np.ndarray, np.ndarray]:
    """A result's id column and ``column``."""
    return res["id"], res[column]


def _file_groups(V: Any, ids: np.ndarray, labels: np.ndarray) -> Iterator[Any]:
    """:func:`_groups` on a graph file of integer ids, whose labels are
    vertices: rows grouped by their label's row, the groups in the order
    of their first row. A group of one vertex is a Python set of it (a
    graph can have tens of millions, and a one-element set is the cheapest
    answer); larger ones are :class:`VertexSet` objects over the arrays."""
    first = V.graph._g.positions(np.ascontiguousarray(labels, dtype=np.uint64))
    del labels
    order = np.argsort(first, kind="stable")
    ranked = first[order]
    del first
    bounds = np.concatenate(([0], np.flatnonzero(ranked[1:] != ranked[:-1]) + 1, [len(order)]))
    del ranked
    members = ids[order]
    del ids
    heads = order[bounds[:-1]]  # each group's first row (rows ascend in a group)
    groups = np.arange(len(bounds) - 1)
    if len(heads) > 1 and not bool(np.all(heads[1:] > heads[:-1])):
        groups = np.argsort(heads, kind="stable")
    del heads
    graph, chunk = V.graph, 1 << 16
    for c in range(0, len(groups), chunk):
        which = groups[c:c + chunk]
        starts, ends = bounds[which], bounds[which + 1]
        for a, b, one in zip(starts.tolist(), ends.tolist(), members[starts].tolist()):
            yield {one} if b - a == 1 else VertexSet(graph, members[a:b], order[a:b])


def _exact_sums(G: Any, weight: str) -> Any:
    """True when float32 sums of G's ``weight`` attributes are networkx's
    float64 sums (whole numbers adding up to at most 2^24; a missing one
    is 1), else why not. A graph file: True (its weights are float32).
    Kept in ``G.__networkx_cache__`` (cleared when G changes)."""
    if G is None or isinstance(G, Graph):
        return True
    cache = getattr(G, "__networkx_cache__", None)
    key = "grotto_exact_sums:" + weight
    if cache is not None and key in cache:
        return cache[key]
    total, exact = 0.0, True
    for _, _, x in G.edges(data=weight, default=1):
        try:
            x = float(x)
        except (TypeError, ValueError):
            exact = False
            break
        if not x.is_integer():
            exact = False
            break
        total += abs(x)
    answer: Any = True
    if not (exact and total <= 1 << 24):
        answer = "grotto sums distances in float32, and these weights would round (networkx sums them in float64)"
    if cache is not None:
        cache[key] = answer
    return answer


def _selfloops(G: Any) -> Iterator[Any]:
    import networkx as nx

    return nx.nodes_with_selfloops(G)


def _per_vertex(V: Any, res: Any, column: str) -> Any:
    """A result column as networkx's ``{node: value}``: a :class:`VertexMap`
    over the arrays for a graph file, a dict for a converted graph."""
    if isinstance(V, _OnDisk):
        return VertexMap(V.graph, res["id"], res[column])
    return dict(zip(V.nodes_of(res["id"]), res[column].tolist()))


def _degree_centrality(G: Any, direction: str) -> Any:
    """networkx's degree centralities: each degree (networkx's count: in
    plus out on a directed graph, a self loop twice on an undirected one)
    times 1/(n-1), read from the index without a pass over the edges (a
    directed file without reverse edges counts in-degrees in one)."""
    V = _view(G)
    n = len(V)
    if n <= 1:
        return {v: 1 for v in V.nodes}
    s = 1.0 / (n - 1.0)
    values = V.graph._degree_rows(direction).astype(np.float64) * s
    if isinstance(V, _OnDisk):
        return VertexMap(V.graph, V.graph.vertices(), values)
    return dict(zip(V.nodes, values.tolist()))


# networkx's link-prediction functions and the column of grotto's
# linkpred each reads.
_LINK_SCORES = ("jaccard_coefficient", "adamic_adar_index", "resource_allocation_index",
                "preferential_attachment")

# Up to this many nodes a link prediction without ebunch scores every
# non-edge (one run a node), as networkx does.
_NON_EDGES_NODES = 2_000

# Up to this many nodes diameter and radius run a BFS from every node.
_ECCENTRICITY_NODES = 20_000


def _link_scores(G: Any, ebunch: Any, column: str) -> Iterator[Tuple[Any, Any, Any]]:
    """networkx's ``(u, v, score)`` for each pair of ``ebunch`` (every
    non-edge when None): one linkpred run for each distinct ``u``."""
    import networkx as nx

    V = _view(G)
    if ebunch is None:
        nodes = list(V.nodes)
        pairs = []
        for i, u in enumerate(nodes):
            near = set(V.neighbours(u))
            pairs.extend((u, v) for v in nodes[i + 1:] if v not in near)
    else:
        pairs = list(ebunch)
        for u, v in pairs:
            if not V.has(u):
                raise nx.NodeNotFound(f"Node {u} not in G.")
            if not V.has(v):
                raise nx.NodeNotFound(f"Node {v} not in G.")
    by_source: Dict[Any, List[Any]] = {}
    for u, v in pairs:
        by_source.setdefault(u, []).append(v)
    scores: Dict[Tuple[Any, Any], Any] = {}
    for u, targets in by_source.items():
        res = V.runs.link_prediction(V.vertex(u), [V.vertex(v) for v in targets])
        for v, x in zip(targets, res[column].tolist()):
            scores[(u, v)] = x
    return ((u, v, scores[(u, v)]) for u, v in pairs)


def _extreme(G: Any, e: Any, weight: Any, pick: Any) -> Any:
    """The diameter (``max``) or radius (``min``) from every node's
    eccentricity, networkx's exception when the graph is not connected."""
    ecc = BackendInterface.eccentricity(G)
    return pick(ecc.values())


def _core_numbers(G: Any) -> Dict[Any, int]:
    return BackendInterface.core_number(G)


def _bfs_from(V: Any, source: Any) -> Tuple[List[int], List[int], np.ndarray]:
    """(ids, depths, visiting positions) of a BFS from ``source`` in
    networkx's order (sync engine, ``parents="first"``)."""
    res = V.runs.bfs(V.vertex(source), parents="first")
    return res["id"].tolist(), res["depth"].tolist(), res["order"]


def _pick(G: GrottoGraph, values: Dict[Any, Any], nodes: Any) -> Any:
    """networkx's ``nodes=`` rule: one node (in G) gives its value, an
    iterable of nodes the dict of those, None every node's."""
    if nodes is None:
        return values
    if G.has(nodes):
        return values[nodes]
    return {v: values[v] for v in nodes if v in values}


def _core_subgraph(G: Any, k: Any, keep: Any) -> Any:
    """networkx's k-core family: the core numbers from grotto, the
    subgraph of the nodes ``keep(V, v, k, cores)`` holds for (k: the
    largest core number when None)."""
    V = _view(G)
    c = _core_numbers(G)
    if k is None:
        k = max(c.values())
    return V.subgraph({v for v in c if keep(V, v, k, c)})


def _nx_rescale():
    """networkx's own rescale of sampled betweenness (3.5 and later), or
    None."""
    try:
        from networkx.algorithms.centrality.betweenness import _rescale
    except ImportError:
        return None
    import inspect

    return _rescale if "sampled_nodes" in inspect.signature(_rescale).parameters else None


# Each function's parameters (name, default), read once: inspecting a
# signature on every call costs more than a run on a small graph.
_PARAMETERS: Dict[str, List[Tuple[str, Any]]] = {}


def _bound(name: str, args: Tuple, kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The call's arguments by name, defaults included (networkx passes
    them as the caller wrote them; one it lacks is None here, and
    networkx's own call refuses it)."""
    params = _PARAMETERS.get(name)
    if params is None:
        import inspect

        from networkx.utils.backends import _registered_algorithms

        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        sig = inspect.signature(_registered_algorithms[name])
        params = _PARAMETERS[name] = [
            (p.name, None if p.default is inspect.Parameter.empty else p.default)
            for p in sig.parameters.values()
            if p.kind in kinds and p.name != "backend"
        ]
    out = dict(zip((n for n, _ in params), args))
    for n, default in params:
        if n not in out:
            out[n] = kwargs.get(n, default)
    return out


def get_info() -> Dict[str, Any]:
    """What networkx shows about the backend (entry point
    ``networkx.backend_info``)."""
    functions = {
        "pagerank": {"additional_docs": "Weighted by the edge attribute as networkx is; runs with the edges on disk."},
        "connected_components": {},
        "number_connected_components": {},
        "is_connected": {},
        "node_connected_component": {},
        "weakly_connected_components": {},
        "number_weakly_connected_components": {},
        "is_weakly_connected": {},
        "single_source_shortest_path_length": {"additional_docs": "In networkx's BFS order."},
        "descendants": {},
        "has_path": {"additional_docs": "A bidirectional search stopped once the target is met."},
        "shortest_path": {"additional_docs": "From a source (to a target, or to every vertex); hops, or Dijkstra by an attribute name. Every source, or all pairs, is left to networkx."},
        "bidirectional_shortest_path": {"additional_docs": "Bidirectional BFS (directed graphs: with their reverse edges)."},
        "bidirectional_dijkstra": {"additional_docs": "Bidirectional on undirected graphs, early-stopping on directed ones; distances summed in float32."},
        "dijkstra_path": {"additional_docs": "As bidirectional_dijkstra."},
        "single_source_shortest_path": {"additional_docs": "networkx's BFS tree and order (neighbours in node order)."},
        "single_source_dijkstra": {"additional_docs": "Distances summed in float32; with a target, as bidirectional_dijkstra."},
        "core_number": {"additional_docs": "Directed graphs: in- plus out-degree, as networkx (graph files need their reverse edges)."},
        "eigenvector_centrality": {"additional_docs": "networkx's power iteration and stopping rule, one sweep over the edges an iteration."},
        "katz_centrality": {"additional_docs": "networkx's power iteration; one number for beta."},
        "jaccard_coefficient": {"additional_docs": "One two-hop count per distinct first node of ebunch; without ebunch, graphs of up to 2,000 nodes."},
        "adamic_adar_index": {"additional_docs": "As jaccard_coefficient."},
        "resource_allocation_index": {"additional_docs": "As jaccard_coefficient."},
        "preferential_attachment": {"additional_docs": "As jaccard_coefficient."},
        "diameter": {"additional_docs": "A BFS from every node, up to 20,000 nodes."},
        "radius": {"additional_docs": "As diameter."},
        "bfs_edges": {"additional_docs": "networkx's tree and order (neighbours in node order; graph files: id order)."},
        "bfs_tree": {"additional_docs": "As bfs_edges."},
        "bfs_predecessors": {"additional_docs": "As bfs_edges."},
        "bfs_successors": {"additional_docs": "As bfs_edges."},
        "single_source_dijkstra_path_length": {"additional_docs": "Distances summed in float32."},
        "dijkstra_path_length": {"additional_docs": "As bidirectional_dijkstra."},
        "shortest_path_length": {"additional_docs": "As shortest_path."},
        "bfs_layers": {"additional_docs": "One source; networkx's layer order (neighbours in node order)."},
        "eccentricity": {"additional_docs": "One BFS (or Dijkstra, by an attribute name) per vertex asked for."},
        "degree_centrality": {"additional_docs": "From the degrees the file's index holds (in plus out on directed graphs)."},
        "in_degree_centrality": {"additional_docs": "Directed graphs; from the reverse edges' index, else one counting pass."},
        "out_degree_centrality": {"additional_docs": "Directed graphs."},
        "ego_graph": {"additional_docs": "Hops (no distance attribute); graph files: grotto extract's piece, a networkx graph up to grotto.MAX_NETWORKX_EDGES edges, else a graph file."},
        "k_core": {"additional_docs": "Undirected; core numbers from grotto, networkx's subgraph (graph files: as ego_graph)."},
        "k_shell": {"additional_docs": "As k_core."},
        "k_crust": {"additional_docs": "As k_core."},
        "k_corona": {"additional_docs": "As k_core."},
        "maximal_independent_set": {"additional_docs": "Without a seed or nodes: a maximal set by seeded random ranks."},
        "triangles": {"additional_docs": "Undirected graphs; degree-ordered intersections within a memory budget."},
        "clustering": {"additional_docs": "Undirected, unweighted; LDBC Graphalytics' LCC."},
        "average_clustering": {"additional_docs": "Undirected, unweighted, count_zeros=True."},
        "transitivity": {"additional_docs": "Undirected graphs; graph files too."},
        "strongly_connected_components": {},
        "number_strongly_connected_components": {},
        "is_strongly_connected": {},
        "betweenness_centrality": {"additional_docs": "Unweighted; k sources drawn with networkx's own seed."},
        "louvain_communities": {"additional_docs": "Undirected; grotto's parallel Louvain, the same answer on any thread count. A seed on a networkx graph is left to networkx (its answer is its own draws); a graph file takes it as grotto's."},
        "louvain_partitions": {"additional_docs": "As louvain_communities, every level."},
        "leiden_communities": {"additional_docs": "Undirected; every community connected; any seed."},
        "leiden_partitions": {"additional_docs": "As leiden_communities, every level, each split into connected pieces."},
        "modularity": {"additional_docs": "One pass over the edges on disk; directed graphs by networkx's directed formula."},
    }
    return {
        "backend_name": "grotto",
        "project": "grotto",
        "package": "grotto",
        "short_summary": "Out-of-core graph analytics with the edges on disk.",
        "functions": functions,
        "default_config": {},
    }
