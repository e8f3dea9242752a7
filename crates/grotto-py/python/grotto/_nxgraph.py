"""The networkx backend's graphs: a networkx graph converted into a
temporary grotto file (:class:`GrottoGraph`), a graph file as the backend
sees it (:class:`_OnDisk`), and :func:`from_networkx`."""


from __future__ import annotations

import os
import tempfile
import weakref
from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np

from . import Graph, InputError, _grotto, _Ranked, convert, open as _open


def _edge_arrays(G: Any, weight: Optional[str]):
    """(src, dst, weight or None, exact, ints) of G's edges (an undirected
    edge once) as arrays of positions in ``nodes``, walked natively; and
    the node list. ``exact``: the weights are whole numbers that float32
    holds, so float32 sums of them are networkx's float64 sums; ``ints``:
    they are Python ints (a missing one is networkx's default, 1)."""
    nodes = list(G.nodes)
    if not G.is_multigraph() and nodes and all(type(v) is int for v in nodes):
        ids = np.fromiter(nodes, dtype=np.int64, count=len(nodes))
        top = int(ids.max())
        if int(ids.min()) >= 0 and top <= 8 * len(nodes) + (1 << 20):
            # Integer nodes: the walk takes the ids as they are (no dict
            # lookup per neighbour, which was most of a large graph's
            # conversion), and a table turns them into positions.
            src, dst, w, exact, ints = _grotto.adjacency_columns(_adjacency(G), G.is_directed(), None, weight)
            table = np.zeros(top + 1, dtype=np.uint64)
            table[ids] = np.arange(len(nodes), dtype=np.uint64)
            return table[src], table[dst], w, exact, ints, nodes
    index = {v: i for i, v in enumerate(nodes)}
    if G.is_multigraph():
        src, dst, w = _multigraph_columns(G, index, weight)
        return src, dst, w, False, False, nodes
    src, dst, w, exact, ints = _grotto.adjacency_columns(_adjacency(G), G.is_directed(), index, weight)
    return src, dst, w, exact, ints, nodes


def _adjacency(G: Any) -> Dict[Any, Dict[Any, Any]]:
    """G's adjacency as a dict of dicts (``G._succ`` of a directed graph):
    the graph's own dicts, or what its public ``adj`` says for a view (a
    subgraph, a reversed or restricted graph) or a class of its own that
    answers for its neighbours itself (networkx's ``_AntiGraph`` keeps
    the edges that are not there)."""
    adj = G._succ if G.is_directed() else G._adj
    if type(adj) is dict and _plain_class(G):
        return adj
    return {u: dict(nbrs) for u, nbrs in G.adj.items()}


def _plain_class(G: Any) -> bool:
    """Whether G's class reads its neighbours from its dicts as networkx's
    Graph and DiGraph do (no override of ``adj``, ``[]`` or
    ``neighbors``)."""
    import networkx as nx

    base = nx.DiGraph if G.is_directed() else nx.Graph
    cls = type(G)
    return (
        cls.adj is base.adj
        and cls.__getitem__ is base.__getitem__
        and cls.neighbors is base.neighbors
    )


def _multigraph_columns(G: Any, index: Dict[Any, int], weight: Optional[str]):
    """A multigraph's edges as a simple graph's, each pair once with its
    parallel edges' weights summed (the attribute ``weight``, 1 where an
    edge has none or ``weight`` is None), as networkx's PageRank weighs
    them; an undirected pair is taken once."""
    directed = G.is_directed()
    total: Dict[Tuple[int, int], float] = {}
    for u, v, d in G.edges(data=True):
        a, b = index[u], index[v]
        if not directed and a > b:
            a, b = b, a
        x = d.get(weight, 1) if weight is not None else 1
        total[(a, b)] = total.get((a, b), 0.0) + float(x)
    if not total:
        empty = np.zeros(0, dtype=np.uint64)
        return empty, empty, np.zeros(0, dtype=np.float32)
    pairs = np.array(list(total), dtype=np.uint64)
    return pairs[:, 0].copy(), pairs[:, 1].copy(), np.array(list(total.values()), dtype=np.float32)


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
    strings become vertex names, isolated ones included. Any other nodes
    (tuples, mixed types, negative integers) become names too, each its
    ``repr``: node ``(2, 3)`` is vertex ``"(2, 3)"``, a string ``"a"``
    among integers ``"'a'"`` (``ast.literal_eval`` gives back a node of
    Python's literal types); two nodes with one ``repr`` are refused. The
    report's ``node_names`` says which: ``"ids"``, ``"strings"`` or
    ``"repr"``. The adjacency dicts are walked natively, with no Python
    loop over the edges."""
    _check_plain(G)
    adj = _adjacency(G)
    directed = G.is_directed()
    try:
        # Integer nodes, the common case: the native walk checks each one.
        src, dst, w, _, _ = _grotto.adjacency_columns(adj, directed, None, weight)
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
        return dict(convert(cols, path, undirected=not directed, **options), node_names="ids")
    nodes = list(adj)
    if all(type(v) is str for v in nodes):
        labels, how = nodes, "strings"
    else:
        labels, how = [repr(v) for v in nodes], "repr"
    # Names are stored sorted: a node's vertex is its label's rank.
    order = sorted(range(len(nodes)), key=labels.__getitem__)
    for a, b in zip(order, order[1:]):
        if labels[a] == labels[b]:
            raise InputError(
                f"from_networkx names these nodes by their repr, and nodes {nodes[a]!r} "
                f"({type(nodes[a]).__name__}) and {nodes[b]!r} ({type(nodes[b]).__name__}) "
                "have the same one; relabel one of them first"
            )
    index = {nodes[i]: rank for rank, i in enumerate(order)}
    src, dst, w, _, _ = _grotto.adjacency_columns(adj, directed, index, weight)
    what = f"a networkx {type(G).__name__} with {'string' if how == 'strings' else 'non-integer'} nodes"
    report = convert(_Ranked(src, dst, w, [labels[i] for i in order], what), path, undirected=not directed, **options)
    return dict(report, node_names=how)


class _Runs:
    """A graph's algorithm methods with the backend's io choice."""

    def __init__(self, graph: Graph, io: str):
        self._graph, self._io = graph, io

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._graph, name)
        return lambda *args, **kw: method(*args, io=self._io, **kw)


# Graph files up to this size run with io="memory".
_MEMORY_IO_BYTES = 4 << 20


def _scratch_dir(edges: int) -> Optional[str]:
    """Where a converted networkx graph's file goes: ``GROTTO_TMPDIR`` when
    set; else ``/dev/shm`` (memory, like the networkx graph itself, which
    takes ten times the file's bytes) when it is writable with room for
    four times the file; else the system's temporary directory (None)."""
    chosen = os.environ.get("GROTTO_TMPDIR")
    if chosen:
        return chosen
    shm = "/dev/shm"
    try:
        st = os.statvfs(shm)
    except OSError:
        return None
    need = 4 * (16 * edges + (1 << 20))
    if st.f_bavail * st.f_frsize >= need and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return None


def _remove_scratch(where: str) -> None:
    """Removes a converted graph's file and its directory (what a crash
    left is the system's temporary files to clean)."""
    from ._pieces import _remove

    _remove(where)


class GrottoGraph:
    """A networkx graph converted into a temporary grotto file, for the
    backend. ``nodes[i]`` is the networkx node of grotto vertex ``i``."""

    __networkx_backend__ = "grotto"

    def __init__(self, G: Any, weight: Optional[str]):
        # A multigraph becomes a simple graph whose weights sum its
        # parallel edges (functions that depend on them are weighted).
        self.multigraph = G.is_multigraph()
        # The edge attribute the weights are (None: none), and conversions
        # of the same graph with other ones, made when asked for.
        self.weight_name = weight
        self._by_weight: Dict[str, "GrottoGraph"] = {}
        # The networkx graph itself, for functions whose answer is a
        # subgraph of it (attributes and all): k_core and its family.
        self._source = weakref.ref(G)
        self.directed = G.is_directed()
        src, dst, w, exact, ints, self.nodes = _edge_arrays(G, weight)
        # Whether networkx's path lengths here are ints (sums of ints).
        self.int_lengths = ints
        # Shortest-path sums in float32 are networkx's exactly when every
        # weight is a whole number and all of them add up to at most 2^24.
        self.exact_sums = w is None or (exact and float(np.abs(w.astype(np.float64)).sum()) <= 1 << 24)
        where = tempfile.mkdtemp(prefix="grotto-nx-", dir=_scratch_dir(len(src)))
        # Removed with this object; a dir holding anything else is kept.
        self._removal = weakref.finalize(self, _remove_scratch, where)
        if w is not None and bool(np.all(w == 1.0)):
            # Every weight 1 (networkx's default for an edge without the
            # attribute): the unweighted graph answers every function the
            # same, and PageRank runs on the faster unweighted kernel.
            w = None
        self.weighted = w is not None
        path = os.path.join(where, "g.grotto")
        n = len(self.nodes)
        loops = self.loops = int(np.count_nonzero(src == dst))
        convert(
            (src, dst) if w is None else (src, dst, w),
            path,
            undirected=not self.directed,
            reverse=self.directed,
            ids="dense",
            vertices=max(n, 1),
            keep_self_loops=loops > 0,
            # A small graph's budget is given, not read from /proc/meminfo.
            memory="64MiB" if len(src) <= 1 << 18 else None,
        )
        self.graph: Graph = _open(path)
        # A small file is read into memory once per run: no block I/O set up.
        self.runs = _Runs(self.graph, "memory" if os.path.getsize(path) <= _MEMORY_IO_BYTES else "auto")
        self.index = None

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def with_weight(self, weight: str) -> "GrottoGraph":
        """The same networkx graph converted with the attribute ``weight``
        as its weights: networkx hands a function the conversion it has
        cached, which may hold another attribute or none (one made for a
        call that preserved every attribute, such as ``k_core``)."""
        if weight == self.weight_name:
            return self
        if weight not in self._by_weight:
            self._by_weight[weight] = GrottoGraph(self._source(), weight)
        return self._by_weight[weight]

    def __len__(self) -> int:
        return len(self.nodes)

    def node(self, i: Any) -> Any:
        """The networkx node of result id ``i``."""
        return self.nodes[int(i)]

    def nodes_of(self, ids: np.ndarray) -> List[Any]:
        """The networkx nodes of an array of result ids."""
        nodes = self.nodes
        return [nodes[i] for i in ids.tolist()]

    def has(self, v: Any) -> bool:
        """Whether ``v`` is a node (False for what cannot be one)."""
        try:
            return v in self.index_or_build()
        except TypeError:
            return False

    def index_or_build(self) -> Dict[Any, int]:
        if self.index is None:
            self.index = {u: i for i, u in enumerate(self.nodes)}
        return self.index

    def subgraph(self, keep: Set[Any]) -> Any:
        """The networkx graph's subgraph on the nodes in ``keep`` (a copy,
        attributes included, as networkx's k_core returns)."""
        return self._source().subgraph(keep).copy()

    def neighbours(self, v: Any) -> Any:
        """The networkx nodes adjacent to node ``v`` (out-neighbours)."""
        return self._source()[v]

    def vertex(self, v: Any) -> int:
        """The grotto vertex of node ``v`` (NodeNotFound when none)."""
        try:
            return self.index_or_build()[v]
        except KeyError:
            import networkx as nx

            raise nx.NodeNotFound(f"Source {v} is not in G") from None

    # A converted graph's vertices are its rows.
    row = vertex


class _OnDisk:
    """A graph file opened with :func:`grotto.open`, as the backend sees
    it: its vertices (your ids, or names) are the networkx nodes, results
    need no mapping, and nothing is converted or copied."""

    def __init__(self, g: Graph):
        self.graph = g
        self.runs = _Runs(g, "auto")
        # Distances on a file are float32 sums of its float32 weights.
        self.exact_sums = True
        self.int_lengths = not g.weighted
        self.directed = g.directed
        self.weighted = g.weighted
        self._nodes: Optional[List[Any]] = None

    def __len__(self) -> int:
        return self.graph.num_vertices

    @property
    def nodes(self) -> List[Any]:
        """Every vertex, in the order results list them."""
        if self._nodes is None:
            self._nodes = self.graph.vertices().tolist()
        return self._nodes

    def node(self, i: Any) -> Any:
        return i

    def nodes_of(self, ids: Any) -> List[Any]:
        """Result ids are the vertices themselves."""
        return ids.tolist() if isinstance(ids, np.ndarray) else list(ids)

    def has(self, v: Any) -> bool:
        """Whether ``v`` is a vertex, asked of the file's own index."""
        try:
            return self.graph._position(v) >= 0
        except TypeError:
            return False

    def row(self, v: Any) -> int:
        """Where vertex ``v`` is in a result's rows."""
        at = self.graph._position(v)
        if at < 0:
            import networkx as nx

            raise nx.NodeNotFound(f"Source {v} is not in G")
        return at

    def vertex(self, v: Any) -> Any:
        """``v`` itself (what runs take), once the file knows it."""
        self.row(v)
        return v

    def neighbours(self, v: Any) -> Any:
        """The vertices adjacent to ``v`` (its stored list, read from disk)."""
        got = self.graph.neighbors(v)
        return got if isinstance(got, list) else got.tolist()

    def subgraph(self, keep: Set[Any]) -> Any:
        """The subgraph induced by the vertices in ``keep``, extracted by
        grotto: a networkx graph (weights as the attribute ``weight``)
        up to ``grotto.MAX_NETWORKX_EDGES`` edges, else a graph file."""
        from ._nxfallback import small_or_file

        return small_or_file(self.graph.subgraph(keep))


def _view(G: Any, weight: Optional[str] = None) -> Any:
    """What the backend's functions work on: a converted networkx graph
    (with the attribute ``weight`` as its weights, when one is named), a
    graph file through its (cached) :class:`_OnDisk` view."""
    if isinstance(G, Graph):
        view = getattr(G, "_nx_view", None)
        if view is None:
            view = G._nx_view = _OnDisk(G)
        return view
    if isinstance(weight, str) and isinstance(G, GrottoGraph):
        return G.with_weight(weight)
    return G


def _in_node_order(G: Any) -> bool:
    """Whether each of G's adjacency lists is in G's node order (as a
    grotto file lists neighbours), checked natively once per state of G:
    the answer is kept in ``G.__networkx_cache__``, which networkx clears
    whenever G changes."""
    cache = getattr(G, "__networkx_cache__", None)
    if cache is not None and "grotto_node_order" in cache:
        return cache["grotto_node_order"]
    index = {v: i for i, v in enumerate(G)}
    answer = _grotto.adjacency_sorted(_adjacency(G), index)
    if cache is not None:
        cache["grotto_node_order"] = answer
    return answer


def _has_node(G: Any, v: Any) -> bool:
    """Whether ``v`` is a node of G (a networkx graph, or a graph file's
    vertex); False for what cannot be one (a list)."""
    if isinstance(G, Graph):
        return _view(G).has(v)
    try:
        return v in G
    except TypeError:
        return False
