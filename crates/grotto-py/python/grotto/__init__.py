"""grotto: out-of-core graph analytics, from Python.

A graph lives in a ``.grotto`` file: vertex state is kept in memory while
the edges stay on disk in 4 KiB blocks, read with as much concurrency as
the device serves. Three steps::

    import grotto
    grotto.convert(df, "g.grotto", undirected=True)   # pandas, Arrow, NumPy or a text file
    g = grotto.open("g.grotto")
    ranks = g.pagerank().to_pandas()                   # columns id, score

Every algorithm of ``grotto run`` is a method of :class:`Graph` with the
command line's options as keyword arguments, and :func:`algorithms` lists
them. Results are in your vertex ids. Runs and conversions release the
interpreter (other threads go on), stop at Ctrl-C with ``KeyboardInterrupt``
and leave no partial file. Errors are :class:`Error` subclasses carrying
grotto's message.
"""

from __future__ import annotations

import json
import numbers
import os
import warnings
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

import numpy as np

from . import _grotto
from ._grotto import CorruptGraphError, Error, InputError, IoError, VerifyError
from ._pieces import MAX_NETWORKX_EDGES, Pieces
from ._views import NetworkxGraph

__version__ = _grotto.__version__

__all__ = [
    "Graph",
    "Result",
    "open",
    "convert",
    "update",
    "algorithms",
    "Error",
    "InputError",
    "CorruptGraphError",
    "IoError",
    "VerifyError",
    "NoPathError",
    "Path",
    "from_networkx",
]

PathLike = Union[str, "os.PathLike[str]"]
#: A vertex in your ids: an integer, or a string for a graph with names.
Vertex = Union[int, str]


class NoPathError(InputError):
    """No path leads from the source to the target
    (:meth:`Graph.shortest_path`; networkx's ``NetworkXNoPath`` in the
    backend)."""


class Path(list):
    """A shortest path: its vertices from source to target, in your ids
    (Python ints) or names, with ``length`` (hops, or the sum of the
    weights along it), ``distances`` (each vertex's distance from the
    source) and ``result`` (the run: summary, metrics, the table)."""

    length: float
    distances: List[float]
    result: "Result"


def algorithms() -> List[Dict[str, Any]]:
    """Every algorithm: ``name``, ``about``, whether the ``sync`` and
    ``async`` engines run it, and its ``params`` as (name, kind, default,
    required, help) tuples. The same list ``grotto run --help`` shows."""
    return list(_grotto.algorithms())


class Result:
    """One run's output: per-vertex columns in your ids, a summary, the
    config it ran with and the run's measurements.

    ``result["pagerank"]`` is a column as a NumPy array; ``to_arrow()``,
    ``to_pandas()`` and ``to_numpy()`` give the whole table, whose first
    column, ``id``, holds your vertex ids.
    """

    def __init__(self, name: str, raw: Dict[str, Any]):
        self.algorithm = name
        self.columns: Dict[str, np.ndarray] = {}
        self._arrow: Dict[str, Any] = {}
        for col, values in raw["columns"]:
            if isinstance(values, tuple):  # vertex names: Arrow-style buffers
                self.columns[col], self._arrow[col] = _name_column(*values[1:])
            else:
                self.columns[col] = values
        self.summary: Dict[str, Any] = json.loads(raw["summary"])
        self.config: Dict[str, Any] = json.loads(raw["config"])
        self.metrics: Dict[str, Any] = json.loads(raw["metrics"])
        self.engine: str = raw["engine"]
        self.verified: Optional[bool] = raw["verified"]

    def __getitem__(self, column: str) -> np.ndarray:
        return self.columns[column]

    def __len__(self) -> int:
        first = next(iter(self.columns.values()), None)
        return 0 if first is None else len(first)

    def __repr__(self) -> str:
        cols = ", ".join(self.columns)
        return f"<grotto.Result {self.algorithm}: {len(self)} rows ({cols}); summary {self.summary}>"

    def to_numpy(self) -> Dict[str, np.ndarray]:
        """The columns as NumPy arrays (no copy)."""
        return dict(self.columns)

    def to_arrow(self):
        """The table as a ``pyarrow.Table`` (needs pyarrow)."""
        try:
            import pyarrow as pa
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_arrow() needs pyarrow: pip install pyarrow") from e
        return pa.table({c: self._arrow.get(c, v) for c, v in self.columns.items()})

    def to_spark(self, spark: Any, *, style: str = "graphframes", path: Optional[PathLike] = None):
        """The table as a Spark DataFrame in session ``spark`` (needs
        PySpark), with GraphFrames' column names and scale by default;
        see :func:`grotto.spark.to_spark`."""
        from . import spark as _spark

        return _spark.to_spark(self, spark, style=style, path=path)

    def to_pandas(self):
        """The table as a ``pandas.DataFrame`` (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        return pd.DataFrame(self.columns, copy=False)


def _name_column(offsets: np.ndarray, data: np.ndarray, valid: Optional[np.ndarray]):
    """A column of vertex names from the native buffers: a NumPy object
    array of str (None where no vertex) and, with pyarrow, the same column
    as an Arrow array built on the buffers."""
    n = len(offsets) - 1
    try:
        import pyarrow as pa
    except ImportError:
        raw = data.tobytes()
        out = np.empty(n, dtype=object)
        for i in range(n):
            if valid is None or valid[i]:
                out[i] = raw[offsets[i]:offsets[i + 1]].decode("utf-8")
        return out, None
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    arr = pa.LargeStringArray.from_buffers(
        n, pa.py_buffer(offsets), pa.py_buffer(data), bitmap,
        null_count=-1 if valid is not None else 0,
    )
    return arr.to_numpy(zero_copy_only=False), arr


class Graph(NetworkxGraph, Pieces):
    """A graph file opened for reading and running algorithms (see
    :func:`open`). Vertex ids are yours throughout: integers, or strings
    for a graph converted with string ids (see :attr:`has_names`)."""

    #: networkx dispatches its calls on this graph to the grotto backend
    #: (``nx.pagerank(g)``, ``nx.connected_components(g)``), with nothing
    #: converted or loaded: see :mod:`grotto.nx`.
    __networkx_backend__ = "grotto"

    def __init__(self, native: Any):
        self._g = native

    def __len__(self) -> int:
        return self.num_vertices

    def is_directed(self) -> bool:
        """Whether edges have a direction (as networkx asks it)."""
        return self.directed

    def is_multigraph(self) -> bool:
        """False: parallel edges are one edge (as networkx asks it)."""
        return False

    def vertices(self) -> np.ndarray:
        """Every vertex in the order results list them: your ids (uint64),
        or names (an object array of str) for a graph with names."""
        ids = self._g.vertex_ids()
        if isinstance(ids, tuple):
            return _name_column(*ids[1:])[0]
        return ids

    @property
    def num_vertices(self) -> int:
        """Vertices."""
        return self._g.num_vertices

    @property
    def num_edges(self) -> int:
        """Edges as stored; an undirected edge counts once."""
        return self._g.num_edges

    @property
    def directed(self) -> bool:
        """Whether edges have a direction."""
        return self._g.directed

    @property
    def weighted(self) -> bool:
        """Whether edges carry weights."""
        return self._g.weighted

    @property
    def path(self) -> str:
        """The file."""
        return str(self._g.path)

    @property
    def has_names(self) -> bool:
        """Whether vertices are named by strings (converted from string
        ids); vertex arguments and results are then strings."""
        return self._g.has_names

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        w = ", weighted" if self.weighted else ""
        return f"<grotto.Graph {self.path}: {self.num_vertices} vertices, {self.num_edges} edges, {kind}{w}>"

    def info(self) -> Dict[str, Any]:
        """What ``grotto info --json`` says about the file."""
        return json.loads(self._g.info_json())

    def degrees(self, ids: Union[Vertex, Iterable[Vertex]], *,
                direction: str = "out") -> Union[int, np.ndarray]:
        """Degree of one vertex (an int), or of each of an array of
        vertices (an array; ``g.degree`` is networkx's DegreeView, with
        in plus out on a directed graph). ``direction``: "out" (the default), "in" (a
        directed graph's in-degree, from its reverse edges) or "both" (in
        plus out, networkx's ``DiGraph.degree``); on an undirected graph
        all three are its degree."""
        if self.has_names:
            if isinstance(ids, str):
                return int(self._g.degree_named([ids], direction)[0])
            return self._g.degree_named([str(x) for x in ids], direction)
        if isinstance(ids, str):
            raise InputError(f"vertex {ids!r}: this graph's vertex ids are integers")
        if isinstance(ids, (int, np.integer)):
            return int(self._g.degree(np.array([ids], dtype=np.uint64), direction)[0])
        return self._g.degree(_ids(np.asarray(ids), "ids"), direction)

    def _position(self, v: Any) -> int:
        """Where vertex ``v`` is in a result's rows; -1 when it is no
        vertex (or cannot be one: a list, a string on a graph of integers).
        A number equal to an integer id finds it, as in a dict."""
        if self.has_names:
            return int(self._g.positions_named([v])[0]) if isinstance(v, str) else -1
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if not isinstance(v, (int, np.integer)) or not 0 <= v < 1 << 64:
            return -1
        return int(self._g.positions(np.array([v], dtype=np.uint64))[0])

    def neighbors(self, v: Vertex, weights: bool = False, *, direction: str = "out"):
        """Neighbours of ``v`` (read from disk), in id order: a list of
        Python ints, or of names for a graph with names; with
        ``weights=True``, also their weights (a float32 array, None on an
        unweighted graph). ``direction``: "out" (the default), "in" (who
        links to ``v``: a directed graph's reverse edges, which it needs,
        ``convert(..., reverse=True)``) or "both" (each neighbour once; of
        two edges, the out-edge's weight); an undirected graph has one
        list for all three."""
        if self.has_names:
            ids, w = self._g.neighbors_named(str(v), direction)
        elif isinstance(v, str):
            raise InputError(f"vertex {v!r}: this graph's vertex ids are integers")
        else:
            ids, w = self._g.neighbors(int(v), direction)
            ids = ids.tolist()
        return (ids, w) if weights else ids

    def run(
        self,
        algorithm: str,
        *,
        engine: Optional[str] = None,
        cache: str = "3%",
        concurrency: Optional[int] = None,
        threads: Optional[int] = None,
        io: str = "auto",
        mode: Optional[str] = None,
        verify: bool = False,
        progress: Any = None,
        **params: Any,
    ) -> Result:
        """Runs ``algorithm`` (a name from :func:`algorithms`) with its
        parameters as keyword arguments (``max_iterations=50``; None
        leaves one at its default).

        ``engine``: "sync", "async" or None for the one measured faster;
        ``cache``: buffer pool size, bytes ("256MiB") or a share of the
        file ("3%"); ``concurrency``: reads in flight (default: the stored
        device profile's k_r, else 32); ``threads``: worker threads
        (default: one per core); ``io``: "auto", "uring", "pread" or
        "memory"; ``mode``: "block" or "vertex" (sync engine);
        ``verify``: check the result with a serial verifier and raise
        :class:`VerifyError` if it is wrong; ``progress``: as for
        :func:`convert` (a tqdm bar counting the edges handed to the
        algorithm, when tqdm is installed and standard error is a
        terminal; a callable gets ``(algorithm, None, edges)``).
        """
        pairs = [(k, _text(v)) for k, v in params.items() if v is not None]
        report_to = _progress(progress, unit="edges")
        try:
            raw = self._g.run(
                algorithm,
                pairs,
                engine=engine,
                cache=str(cache),
                concurrency=concurrency,
                threads=threads,
                io=io,
                mode=mode,
                verify=verify,
                progress=report_to,
            )
        finally:
            if isinstance(report_to, _Bars):
                report_to.close()
        return Result(algorithm, raw)

    def bfs(self, source: Optional[Vertex] = None, *, seed: int = 1, parents: str = "any",
            **options: Any) -> Result:
        """Breadth-first search from ``source`` (default: a seeded random
        vertex with out-edges): columns ``depth`` and ``parent`` (-1 when
        unreached). ``parents="first"`` gives networkx's tree (each
        vertex's parent the first visited vertex with an edge to it,
        neighbours taken in id order) and the column ``order``, the
        visiting position (sync engine). ``direction`` (an option:
        ``"auto"``, ``"top-down"``, ``"bottom-up"``) picks how levels run;
        the default switches to bottom-up levels by GAP's rule."""
        return self.run("bfs", source=source, seed=seed, parents=parents, **options)

    def dfs(
        self,
        source: Optional[Vertex] = None,
        *,
        target: Optional[Vertex] = None,
        seed: int = 1,
        split_threshold: int = 32,
        stacks: Optional[int] = None,
        **options: Any,
    ) -> Result:
        """Pseudo depth-first search by stack splitting (sync engine):
        columns ``order`` and ``parent``."""
        return self.run(
            "dfs", source=source, target=target, seed=seed,
            split_threshold=split_threshold, stacks=stacks, **options,
        )

    def wcc(self, **options: Any) -> Result:
        """Weakly connected components: column ``component``, the smallest
        vertex id in each component."""
        return self.run("wcc", **options)

    def pagerank(
        self,
        *,
        damping: float = 0.85,
        tolerance: float = 1e-6,
        max_iterations: int = 100,
        semantics: str = "standard",
        contributions: str = "auto",
        method: str = "auto",
        **options: Any,
    ) -> Result:
        """PageRank (networkx's definition with ``semantics="standard"``):
        column ``score``, summing to 1. ``contributions="auto"`` reads
        the per-edge contributions as f32 from a tolerance of 1e-6 up
        (error below 2**-24 per value); ``"f64"`` keeps them exact.
        ``method="jacobi"`` iterates as networkx and Graphalytics do (the
        same scores on any number of threads); ``"gauss-seidel"`` reads
        each updated score at once (GAP's kernel); ``"auto"`` turns from
        Jacobi to Gauss-Seidel when Jacobi converges slowly (road networks,
        meshes), except with a tolerance below 1e-15, which asks for
        ``max_iterations`` Jacobi iterations (GraphX's, Graphalytics'). All
        stop within the same bound of the fixed point."""
        return self.run(
            "pagerank", damping=damping, tolerance=tolerance,
            max_iterations=max_iterations, semantics=semantics,
            contributions=contributions, method=method, **options,
        )

    def ppr(
        self,
        source: Optional[Vertex] = None,
        *,
        alpha: float = 0.15,
        epsilon: float = 1e-9,
        seed: int = 1,
        **options: Any,
    ) -> Result:
        """Personalized PageRank from ``source`` by forward push (async
        engine): column ``score``."""
        return self.run("ppr", source=source, alpha=alpha, epsilon=epsilon, seed=seed, **options)

    def kcore(self, k: int, **options: Any) -> Result:
        """The k-core (undirected graphs): column ``in_core``."""
        return self.run("kcore", k=k, **options)

    def coreness(self, **options: Any) -> Result:
        """Core number of every vertex: column ``core``. On a directed
        graph a vertex's degree is its in- plus out-degree (networkx's
        ``core_number``), which needs the file's reverse edges."""
        return self.run("coreness", **options)

    def mis(self, seed: int = 1, **options: Any) -> Result:
        """A maximal independent set by seeded random ranks (undirected
        graphs): column ``in_set``."""
        return self.run("mis", seed=seed, **options)

    def eigenvector(self, *, max_iterations: int = 100, tolerance: float = 1e-6,
                    weighted: bool = False, **options: Any) -> Result:
        """Eigenvector centrality by power iteration with ``A + I``
        (networkx's ``eigenvector_centrality``; in-neighbours count on a
        directed graph): column ``score``, unit Euclidean norm. Summary
        ``converged`` is false when ``max_iterations`` ran out first."""
        return self.run("eigenvector", max_iterations=max_iterations, tolerance=tolerance,
                        weighted=True if weighted else None, **options)

    def katz(self, *, alpha: float = 0.1, beta: float = 1.0, max_iterations: int = 1000,
             tolerance: float = 1e-6, normalized: bool = True, weighted: bool = False,
             **options: Any) -> Result:
        """Katz centrality, ``x = alpha A x + beta`` by power iteration
        (networkx's ``katz_centrality``): column ``score``, scaled to unit
        norm unless ``normalized=False``. It converges when ``alpha`` is
        below the inverse of the largest eigenvalue (summary
        ``converged``)."""
        return self.run("katz", alpha=alpha, beta=beta, max_iterations=max_iterations,
                        tolerance=tolerance, unnormalized=None if normalized else True,
                        weighted=True if weighted else None, **options)

    def link_prediction(self, source: Vertex, targets: Optional[Iterable[Vertex]] = None,
                        **options: Any) -> Result:
        """Scores of the pairs ``(source, t)`` by networkx's definitions
        (undirected simple graphs): a row a pair with ``vertex`` (``t``),
        ``common``, ``jaccard``, ``adamic_adar``, ``resource_allocation``
        and ``preferential_attachment``; for ``targets`` in their order,
        or by default every vertex two hops away that is not a
        neighbour."""
        listed = None if targets is None else ",".join(str(t) for t in targets)
        if listed == "":
            raise InputError("targets: an empty list (leave it out for every vertex two hops away)")
        return self.run("linkpred", source=source, targets=listed, **options)

    def sssp(
        self,
        source: Optional[Vertex] = None,
        *,
        delta: Optional[float] = None,
        seed: int = 1,
        **options: Any,
    ) -> Result:
        """Shortest paths on non-negative weights (weighted graphs):
        columns ``distance`` (inf when unreached) and ``parent``."""
        return self.run("sssp", source=source, delta=delta, seed=seed, **options)

    def shortest_path(self, source: Vertex, target: Vertex, *, weight: Any = None,
                      **options: Any) -> "Path":
        """A shortest path from ``source`` to ``target`` (networkx's
        ``shortest_path(G, source, target, weight)``), searched from both
        ends where the graph allows it (undirected graphs, and directed
        ones with reverse edges when counting hops) and stopped once it is
        known.

        ``weight``: None counts hops; anything else (True, or an attribute
        name, as networkx takes it) follows the file's edge weights, which
        a weighted graph holds (an error on an unweighted one). Returns a
        :class:`Path`; raises :class:`NoPathError` when the target cannot
        be reached. ``g.run("path", ...)`` gives the same run as a table
        (``step``, ``vertex``, ``distance``)."""
        res = self.run("path", source=source, target=target,
                       weighted=weight is not None and weight is not False, **options)
        if not res.summary["reachable"]:
            raise NoPathError(f"no path from {source!r} to {target!r}")
        out = Path(_plain(res["vertex"]))
        out.length = float(res.summary["length"])
        out.distances = [float(d) for d in res["distance"]]
        out.result = res
        return out

    def random_walks(
        self, *, walkers: int = 10_000, steps: int = 10, seed: int = 1, **options: Any
    ) -> Result:
        """Visit counts of ``walkers`` random walks of ``steps`` steps:
        column ``visits``."""
        return self.run("randomwalk", walkers=walkers, steps=steps, seed=seed, **options)

    def eccentricity(
        self, source: Optional[Vertex] = None, *, sweeps: int = 1, seed: int = 1, **options: Any
    ) -> Result:
        """Eccentricity of ``source``; with ``sweeps=2`` or more also a
        lower bound on the diameter (summary ``diameter_lower_bound``)."""
        return self.run("eccentricity", source=source, sweeps=sweeps, seed=seed, **options)

    def cdlp(self, *, iterations: int = 10, **options: Any) -> Result:
        """Communities by label propagation, LDBC Graphalytics' CDLP
        (sync engine): column ``label``, a vertex id; each of
        ``iterations`` rounds every vertex takes its neighbours' most
        frequent label, the smallest on a tie. A directed graph counts
        in- and out-neighbours together and needs its reverse edges
        (``convert(..., reverse=True)``)."""
        return self.run("cdlp", iterations=iterations, **options)

    def louvain(self, *, resolution: float = 1.0, threshold: float = 1e-7,
                max_level: Optional[int] = None, seed: int = 1, weight: bool = True,
                tolerance: float = 1e-4, levels: bool = False, **options: Any) -> Result:
        """Communities by modularity, Louvain (networkx's
        ``louvain_communities``; undirected graphs): column ``community``,
        numbered from 0 in the order of each community's first vertex;
        with ``levels=True`` also ``level1``, ``level2``, ... (networkx's
        ``louvain_partitions``). Summary: ``modularity``, ``communities``,
        ``largest`` and each level's figures. ``resolution`` below 1
        favours larger communities; a level that raises modularity by
        ``threshold`` or less is the last; ``max_level`` caps the levels;
        ``weight=False`` counts every edge of a weighted graph as 1;
        ``tolerance`` ends a level's sweeps; ``seed`` orders them (the
        answer is the same on any number of threads, and for a seed always
        the same, but it is not networkx's answer for that seed)."""
        return self.run("louvain", **_community_params(
            resolution, threshold, max_level, seed, weight, tolerance, levels), **options)

    def leiden(self, *, resolution: float = 1.0, threshold: float = 1e-7,
               max_level: Optional[int] = None, seed: int = 1, weight: bool = True,
               tolerance: float = 1e-4, levels: bool = False, **options: Any) -> Result:
        """Communities by modularity, Leiden (networkx's
        ``leiden_communities``, which networkx leaves to a backend):
        :meth:`louvain` with a refinement that keeps every community
        connected; the same columns, summary and options."""
        return self.run("leiden", **_community_params(
            resolution, threshold, max_level, seed, weight, tolerance, levels), **options)

    def modularity(self, communities: Any, *, resolution: float = 1.0, weight: bool = True,
                   threads: Optional[int] = None, cache: str = "3%") -> float:
        """Modularity of a partition (networkx's ``modularity``; its
        directed form on a directed graph), from one pass over the edges
        on disk. ``communities``: a :class:`Result` of :meth:`louvain`,
        :meth:`leiden`, :meth:`cdlp` or :meth:`wcc`; an array with one
        label per vertex in the order results list them; a dict from
        vertex to label; or an iterable of collections of vertices that
        holds every vertex once (networkx's form). ``weight=False`` counts
        every edge as 1."""
        labels = self._partition_labels(communities)
        return float(self._g.modularity(labels, resolution=float(resolution),
                                        weights=bool(weight), threads=threads, cache=str(cache)))

    def _partition_labels(self, communities: Any) -> np.ndarray:
        """One label per result row (the order :meth:`vertices` lists) for
        a partition given in any of :meth:`modularity`'s forms."""
        n = self.num_vertices
        if isinstance(communities, Result):
            for col in ("community", "label", "component"):
                if col in communities.columns:
                    communities = communities[col]
                    break
            else:
                raise InputError(f"a {communities.algorithm} result has no community column")
        if isinstance(communities, np.ndarray):
            if communities.shape != (n,):
                raise InputError(f"an array of {communities.shape} labels for {n} vertices")
            if communities.dtype.kind not in "iu":
                # Labels that are vertex names (cdlp, wcc of a named graph).
                communities = np.unique(communities, return_inverse=True)[1]
            return np.ascontiguousarray(communities, dtype=np.uint64)
        labels = np.full(n, -1, dtype=np.int64)
        if isinstance(communities, dict):
            groups = {}
            for v, c in communities.items():
                groups.setdefault(c, []).append(v)
            communities = list(groups.values())
        for i, members in enumerate(communities):
            at = self._positions(list(members))
            if bool(np.any(at < 0)):
                bad = [m for m, a in zip(list(members), at.tolist()) if a < 0][0]
                raise InputError(f"{bad!r} is in a community and is no vertex of the graph")
            if bool(np.any(labels[at] >= 0)) or len(set(at.tolist())) != len(at):
                raise InputError("a vertex is in two communities: not a partition")
            labels[at] = i
        if bool(np.any(labels < 0)):
            raise InputError(f"{int(np.count_nonzero(labels < 0))} vertices are in no community: not a partition")
        return labels.astype(np.uint64)

    def _positions(self, members: List[Any]) -> np.ndarray:
        """Rows of ``members`` (-1 for what is no vertex)."""
        if not members:
            return np.zeros(0, dtype=np.int64)
        if self.has_names:
            return self._g.positions_named([str(m) for m in members])
        try:
            ids = np.array(members, dtype=np.uint64)
        except (OverflowError, ValueError, TypeError):
            return np.full(len(members), -1, dtype=np.int64)
        return self._g.positions(ids)

    def lcc(self, *, memory: Any = None, **options: Any) -> Result:
        """Local clustering coefficients, LDBC Graphalytics' LCC (sync
        engine): column ``lcc``; on an undirected graph networkx's
        ``clustering``, on a directed one (which needs its reverse edges)
        the arcs between a vertex's in- and out-neighbours over d(d-1).
        ``memory`` bounds the neighbour lists held at once ("512MiB" or
        "10%" of the graph file; default half the available memory);
        summary ``average_clustering`` and ``triangles``."""
        return self.run("lcc", memory=memory, **options)

    def tc(self, *, per_vertex: bool = False, memory: Any = None, **options: Any) -> Result:
        """Triangle counting (GAP's ``tc``): summary ``triangles``, the
        triangles of the underlying undirected simple graph; with
        ``per_vertex=True`` the column ``triangles`` (networkx's
        ``triangles``). ``memory`` as for :meth:`lcc`."""
        return self.run("tc", per_vertex=True if per_vertex else None, memory=memory, **options)

    def scc(self, **options: Any) -> Result:
        """Strongly connected components (sync engine): column
        ``component``, the smallest id of each vertex's component; summary
        ``components`` and ``largest``. A directed graph needs its reverse
        edges (``convert(..., reverse=True)``)."""
        return self.run("scc", **options)

    def bc(self, source: Any = None, *, k: Optional[int] = None, seed: int = 1,
           normalized: bool = False, endpoints: bool = False, **options: Any) -> Result:
        """Betweenness centrality, Brandes' algorithm unweighted (sync
        engine): column ``betweenness``. Sources: every vertex (exact, the
        default), ``source`` (one vertex or a list; plain sums unless
        ``normalized``), or ``k`` sampled with ``seed``. Scaled as
        networkx's ``betweenness_centrality(normalized=, endpoints=)``."""
        return self.run(
            "bc", source=source, sources=k, seed=seed,
            normalized=True if normalized else None, endpoints=True if endpoints else None,
            **options,
        )


def open(path: PathLike) -> Graph:
    """Opens a ``.grotto`` file; a file that is not one, is truncated or
    fails its checks raises :class:`CorruptGraphError`."""
    return Graph(_grotto.open(os.fspath(path)))


def _community_params(resolution: float, threshold: float, max_level: Optional[int], seed: int,
                      weight: bool, tolerance: float, levels: bool) -> Dict[str, Any]:
    """Louvain's and Leiden's parameters as the registry names them."""
    if max_level is not None and (isinstance(max_level, bool) or int(max_level) <= 0):
        raise ValueError("max_level argument must be a positive integer or None")
    return dict(resolution=float(resolution), threshold=float(threshold),
                max_level=None if max_level is None else int(max_level), seed=int(seed),
                ignore_weights=True if not weight else None, tolerance=float(tolerance),
                levels=True if levels else None)


def _plain(col: Any) -> List[Any]:
    """A column of vertices as a list of Python ints or strings (never
    NumPy scalars)."""
    return col.tolist() if isinstance(col, np.ndarray) else list(col)


def _text(v: Any) -> str:
    if isinstance(v, bool):
        # Switches (per_vertex=True); other parameters refuse the words.
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (list, tuple, np.ndarray)):
        # A list of vertices (bc's sources): ids separated by commas.
        return ",".join(_text(x) for x in v)
    return str(v)


def _ids(col: Any, name: str) -> np.ndarray:
    """A column of vertex ids as contiguous uint64, or an InputError."""
    a = np.asarray(col)
    if a.ndim != 1:
        raise InputError(f"column {name!r}: expected one dimension, got shape {a.shape}")
    if a.dtype.kind in "u":
        return np.ascontiguousarray(a, dtype=np.uint64)
    if a.dtype.kind == "i":
        neg = np.flatnonzero(a < 0)
        if len(neg):
            i = int(neg[0])
            raise InputError(f"column {name!r}: row {i} has id {int(a[i])}; ids must be non-negative integers")
        return np.ascontiguousarray(a, dtype=np.uint64)
    if a.dtype.kind == "f":
        raise InputError(
            f"column {name!r} holds floats ({a.dtype}); vertex ids must be integers"
            + (" (a null in an integer column turns it into floats)" if np.isnan(a).any() else "")
        )
    if a.dtype.kind == "b":
        raise InputError(f"column {name!r} holds booleans; vertex ids must be integers")
    if a.dtype.kind == "O" and any(x is None for x in a[:1000]):
        raise InputError(f"column {name!r} has nulls; every edge needs both ids")
    raise InputError(
        f"column {name!r} holds {a.dtype} values; vertex ids must be non-negative integers"
    )


def _weights(col: Any, name: str) -> np.ndarray:
    a = np.asarray(col)
    if a.ndim != 1 or a.dtype.kind not in "iuf":
        raise InputError(f"column {name!r}: weights must be a one-dimensional numeric column")
    return np.ascontiguousarray(a, dtype=np.float32)


def _edge_columns(columns: Any, weight: str = "weight") -> Tuple[str, str, str]:
    """``columns=`` as (src, dst, weight): a ``(src, dst)`` or ``(src,
    dst, weight)`` tuple or list of names, or the command line's
    ``"src,dst[,weight]"``. With two names the weight column is
    ``weight`` (used when present), as ``--columns src,dst`` means."""
    if isinstance(columns, str):
        names = [c.strip() for c in columns.split(",")]
    else:
        try:
            names = list(columns)
        except TypeError:
            names = None
    if (
        names is None
        or len(names) not in (2, 3)
        or not all(isinstance(c, str) and c for c in names)
    ):
        raise InputError(
            f"columns={columns!r}: name the edge columns as (src, dst) or (src, dst, weight), "
            'or "src,dst[,weight]"'
        )
    return (names[0], names[1], names[2] if len(names) == 3 else weight)


def _columns(source: Any, columns: Tuple[str, str, str]) -> Tuple[Any, Any, Any, str]:
    """(src, dst, weight or None, description) from a table-like source."""
    s, d, w = columns
    mod = type(source).__module__.split(".")[0]
    if mod == "pyarrow":
        if hasattr(source, "read_all"):  # a RecordBatchReader
            source = source.read_all()
        names = list(source.column_names)
        for c in (s, d):
            if c not in names:
                raise InputError(
                    f"the Arrow table has no column {c!r} (it has {names}); "
                    "name the edge columns with columns=(src, dst[, weight])"
                )
        for c in [c for c in (s, d, w) if c in names]:
            nulls = source.column(c).null_count
            if nulls:
                raise InputError(f"column {c!r} has {nulls} nulls; every edge needs both ids (and its weight)")
        get = lambda c: source.column(c).to_numpy()  # noqa: E731
        what = f"an Arrow table ({s}, {d}{', ' + w if w in names else ''})"
        return get(s), get(d), (get(w) if w in names else None), what
    if mod == "pandas":
        names = [str(c) for c in source.columns]
        for c in (s, d):
            if c not in names:
                raise InputError(
                    f"the DataFrame has no column {c!r} (it has {names}); "
                    "name the edge columns with columns=(src, dst[, weight])"
                )
        for c in [c for c in (s, d, w) if c in names]:
            nulls = int(source[c].isna().sum())
            if nulls:
                raise InputError(f"column {c!r} has {nulls} nulls; every edge needs both ids (and its weight)")
        get = lambda c: source[c].to_numpy()  # noqa: E731
        what = f"a pandas DataFrame ({s}, {d}{', ' + w if w in names else ''})"
        return get(s), get(d), (get(w) if w in names else None), what
    if isinstance(source, dict):
        for c in (s, d):
            if c not in source:
                raise InputError(
                    f"the dict has no column {c!r} (it has {list(source)}); "
                    "name the edge columns with columns=(src, dst[, weight])"
                )
        return source[s], source[d], source.get(w), f"a dict of arrays ({s}, {d})"
    if _is_rows(source):
        return _rows(source)
    if isinstance(source, (tuple, list)) and len(source) in (2, 3):
        return source[0], source[1], (source[2] if len(source) == 3 else None), "arrays (src, dst)"
    raise InputError(
        f"cannot convert a {type(source).__name__}: give a file path, a pandas DataFrame, "
        "a pyarrow Table or RecordBatchReader, a dict of columns, a (src, dst[, weight]) tuple of arrays, "
        "or a list of (src, dst[, weight]) edges"
    )


def _is_rows(source: Any) -> bool:
    """Whether ``source`` is a sequence of edges, one ``(src, dst[,
    weight])`` row each, rather than a tuple of columns: a list whose
    items are tuples or lists, or a tuple whose items are tuples. So
    ``[(1, 2), (3, 4), (5, 6)]`` is three edges, and ``([1, 3], [2, 4])``
    or ``(np.array(...), np.array(...))`` two columns."""
    if isinstance(source, list):
        row = (tuple, list)
    elif isinstance(source, tuple):
        row = tuple
    else:
        return False
    return len(source) > 0 and all(isinstance(r, row) for r in source)


def _rows(source: Any) -> Tuple[Any, Any, Any, str]:
    """(src, dst, weight or None, description) of a sequence of edge
    rows, each ``(src, dst)`` or ``(src, dst, weight)``, all alike."""
    width = len(source[0])
    for i, r in enumerate(source):
        if len(r) not in (2, 3) or len(r) != width:
            raise InputError(
                f"edge {i} is {tuple(r)!r}: each edge of a list must be (src, dst) or "
                f"(src, dst, weight), all alike (edge 0 has {width} values)"
            )
    cols = list(zip(*source))
    what = f"a list of {len(source)} edges"
    return list(cols[0]), list(cols[1]), (list(cols[2]) if width == 3 else None), what


class _Bars:
    """tqdm bars for a conversion's stages (progress=None or True)."""

    def __init__(self, unit: str = "it"):
        from tqdm.auto import tqdm

        self._tqdm = tqdm
        self._bar = None
        self._stage = None
        self._unit = unit

    def __call__(self, stage: str, total: Optional[int], done: int) -> None:
        if stage != self._stage:
            self.close()
            self._stage = stage
            self._bar = self._tqdm(
                total=total, desc=f"grotto {stage}", unit=self._unit, unit_scale=True, leave=False
            )
        self._bar.n = done
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _progress(progress: Any, unit: str = "it"):
    """The callable a conversion or a run reports to, or None."""
    if callable(progress):
        return progress
    if progress is False:
        return None
    import sys

    # (The terminal first: a failed import is searched for again on every
    # call, which costs more than a run on a small graph.)
    if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    try:
        import tqdm  # noqa: F401
    except ImportError:
        if progress:
            raise ImportError("progress=True needs tqdm: pip install tqdm") from None
        return None
    return _Bars(unit)


def convert(
    source: Any,
    path: PathLike,
    *,
    undirected: bool = False,
    reverse: bool = False,
    weighted: Optional[bool] = None,
    memory: Optional[str] = None,
    threads: Optional[int] = None,
    keep_self_loops: bool = False,
    keep_duplicates: bool = False,
    ids: str = "auto",
    vertices: Any = None,
    format: Optional[str] = None,
    columns: Any = ("src", "dst", "weight"),
    progress: Any = None,
    order: str = "auto",
) -> Dict[str, Any]:
    """Builds the graph file ``path`` from ``source`` and returns the
    conversion report (what ``grotto convert --json`` prints).

    ``source`` is a Parquet file or a directory of Parquet files (what
    Spark and pyarrow write), a text file (edge list, adjacency list or
    Matrix Market, optionally .gz or .zst: every format ``grotto convert``
    reads), a pandas DataFrame, a pyarrow Table or RecordBatchReader, a
    dict of columns, a ``(src, dst[, weight])`` tuple of arrays, or a list
    of edges, one ``(src, dst[, weight])`` tuple each. Table
    columns are named by ``columns``: ``("source", "target")``,
    ``("source", "target", "w")`` or ``"source,target"`` (GraphFrames'
    ``src``, ``dst`` and an optional ``weight`` by default; with two
    names a ``weight`` column is read when present). Ids are non-negative integers, kept
    as yours (sparse or large ones are mapped internally), or strings:
    string columns (and text tokens with ``ids="string"``) become vertex
    names stored in the file, and every result and vertex argument then
    uses them.

    ``undirected``: store each edge both ways; ``reverse``: also store
    in-edges of a directed graph; ``weighted``: read the weight column of
    a text file (default: detected); ``memory``: memory budget ("4GiB",
    default half the available memory); ``ids``: "auto", "dense",
    "compact" (integers) or "string" (names). The vertices are the ids
    that occur in an edge, as in networkx, pandas and Spark: an id that
    occurs nowhere is no vertex (it counts nowhere and appears in no
    result). ``vertices`` adds more: a list or array of ids (isolated
    vertices included, as a Graphalytics ``.v`` file or a networkx node
    list does), a list of names (str) for a graph of names (a text file
    with ``ids="string"``, or string columns), or an int N for the dense range 0..N (every id below N a
    vertex, as GAP and igraph read edge lists); ``order``: how vertices are numbered inside the file,
    "degree" (by out-degree, largest first: smaller and about 2x faster
    to run on skewed graphs), "bfs" (breadth-first from a peripheral
    vertex, Cuthill-McKee style: neighbours get near ids, for road networks
    and meshes whose ids come in no useful order; needs the edges to fit
    the memory budget), "none" (your order), or "auto" (degree when the
    top 1% of vertices hold a tenth of the edges, else bfs when your ids
    put neighbours far apart and bfs brings them 4x nearer, else none); ids in
    results stay yours either way; ``format``: force a text format ("edgelist", "adjacency",
    "mtx", or "csv": comma-separated with a header line, whose edge
    columns ``columns`` names). ``progress``: None shows a tqdm bar when tqdm is installed
    and standard error is a terminal, True always (needs tqdm), False
    never, and a callable is called as ``progress(stage, total, done)``
    about ten times a second and once at the end. The file appears only
    when complete; an error or Ctrl-C leaves none.
    """
    out = os.fspath(path)
    columns = _edge_columns(columns)
    report_to = _progress(progress)
    try:
        return _convert(source, out, report_to, undirected, reverse, weighted, memory, threads,
                        keep_self_loops, keep_duplicates, ids, vertices, format, columns, order)
    finally:
        if isinstance(report_to, _Bars):
            report_to.close()


def _vertex_args(vertices):
    """``vertices=`` as (a count, a sorted list of ids, a sorted list of
    names)."""
    if vertices is None:
        return None, None, None
    if isinstance(vertices, bool):
        raise InputError("vertices= takes a vertex count or a list of vertex ids or names, not a bool")
    if isinstance(vertices, numbers.Integral):
        return int(vertices), None, None
    if isinstance(vertices, (str, bytes)):
        raise InputError("vertices= takes a vertex count or a list of vertex ids or names, not a string")
    items = None if hasattr(vertices, "__array__") else list(vertices)
    if items is not None and any(type(x) is str for x in items):
        bad = [x for x in items if type(x) is not str]
        if bad:
            raise InputError(
                f"vertices=: a list of names holds {bad[0]!r}; list all ids (integers) or all names (str)"
            )
        return None, None, sorted(set(items))
    arr = np.asarray(items if items is not None else vertices)
    if arr.size == 0:
        return None, None, None
    if arr.dtype.kind in "UO":
        items = arr.tolist()
        bad = [x for x in items if type(x) is not str]
        if bad:
            raise InputError(
                f"vertices=: a list of names holds {bad[0]!r}; list all ids (integers) or all names (str)"
            )
        return None, None, sorted(set(items))
    if arr.dtype.kind not in "iu":
        raise InputError(f"vertices=: expected integer vertex ids or names (str), got {arr.dtype} values")
    if arr.dtype.kind == "i" and (arr < 0).any():
        raise InputError(f"vertices=: vertex ids are non-negative; found {int(arr.min())}")
    return None, np.unique(arr.astype(np.uint64)).tolist(), None


def _convert(source, out, report_to, undirected, reverse, weighted, memory, threads,
             keep_self_loops, keep_duplicates, ids, vertices, format, columns, order):
    count, listed, listed_names = _vertex_args(vertices)
    common = dict(
        undirected=undirected, reverse=reverse, memory=memory, threads=threads,
        keep_self_loops=keep_self_loops, keep_duplicates=keep_duplicates,
        ids=ids, vertices=count, vertex_ids=listed, progress=report_to, order=order,
    )
    if isinstance(source, (str, os.PathLike)):
        report = _grotto.convert_file(
            os.fspath(source), out, weighted=weighted, format=format, columns=tuple(columns),
            vertex_names=listed_names, **common
        )
        return json.loads(report)
    if listed_names is not None and isinstance(source, _Ranked):
        raise InputError("vertices= lists names; list them as nodes of the graph instead")
    if format is not None:
        raise InputError("format= applies to text files; tables and arrays need none")
    if isinstance(source, _Ranked):
        common["ids"] = "auto"
        report = _grotto.convert_arrays(
            source.src, source.dst, source.weight, out, source.what, names=source.names, **common
        )
        return json.loads(report)
    if type(source).__module__.split(".")[0] == "pyarrow" and hasattr(source, "read_next_batch"):
        if listed_names is not None:
            raise InputError("vertices= lists names, which an Arrow stream does not take yet: give a Table or DataFrame")
        return _convert_stream(source, out, weighted, columns, common)
    src, dst, w, what = _columns(source, columns)
    if weighted is False:
        w = None
    elif weighted and w is None:
        raise InputError(f"weighted=True, and {what} has no {columns[2]!r} column")
    names = None
    if _is_text(src) or _is_text(dst) or ids == "string":
        s_ids, d_ids, names = _ranks(src, dst, columns, listed_names or [])
        common["ids"] = "auto"
    elif listed_names is not None:
        raise InputError(
            f"vertices= lists names, and {what} holds integer ids: list ids, or give the edges as names"
        )
    else:
        s_ids = _ids(src, columns[0])
        d_ids = _ids(dst, columns[1])
    if len(s_ids) != len(d_ids):
        raise InputError(f"{what}: {len(s_ids)} sources but {len(d_ids)} destinations")
    weights = None if w is None else _weights(w, columns[2])
    report = _grotto.convert_arrays(s_ids, d_ids, weights, out, what, names=names, **common)
    return json.loads(report)


def update(
    path: PathLike,
    insert: Any = None,
    delete: Any = None,
    *,
    set_weight: Any = None,
    format: Optional[str] = None,
    columns: Any = ("src", "dst"),
    threads: Optional[int] = None,
    merge: str = "auto",
    merge_above: float = 5.0,
    delete_vertices: Any = None,
) -> Dict[str, Any]:
    """Changes the graph file ``path`` in place, without a rebuild, and
    returns the report (what ``grotto update --json`` prints): edges
    ``inserted`` and ``deleted``, inserts ``already_present`` and deletes
    ``not_present`` (counted, not errors), ``new_vertices``, the
    ``vertices`` and ``edges`` after, the ``commit`` number.

    ``insert`` and ``delete`` are edges in your ids, each a file (any
    format ``convert`` reads, Parquet included; ``format`` forces a text
    format), a pandas DataFrame, a pyarrow Table, a dict of columns, a
    ``(src, dst)`` tuple of arrays, or a list of ``(src, dst[, weight])``
    edges (``columns`` names the table columns, as for :func:`convert`).
    In a weighted graph, inserts carry weights (a ``weight`` column, or a
    third array), and ``set_weight`` (same kinds of sources, with weights)
    gives existing edges new weights after the deletes and inserts.
    Deletes apply before inserts. A new integer id adds that one vertex
    (an id between it and the graph's is none, as in networkx); a graph
    with names takes string ids, and a new name adds a vertex.
    In a graph kept with duplicates (``keep_duplicates=True``) each
    inserted edge adds a copy and each deleted edge removes one; such a
    batch always merges (``merge="never"`` raises ``InputError``), and a
    weighted one cannot be updated. A crash at any
    moment leaves the graph before or after the batch (docs/updates.md).

    ``merge`` says how the batch is committed: ``"auto"`` (the default)
    merges it and the pending delta into fresh blocks when the delta would
    change more than ``merge_above`` percent of the edges, else appends a
    delta run; ``"always"`` merges (with no edges given, it folds the
    pending delta); ``"never"`` appends a run. The report's ``merged``
    says which happened.

    ``delete_vertices`` (vertices in your ids or names, alone: no edge
    changes with it) removes each vertex with every edge at it, both
    directions, as networkx's ``remove_node``; a vertex the graph lacks is
    counted (``not_present``), not an error, and the others keep their
    ids. It rewrites the file (one pass over the edges, as ``compact``; a
    crash leaves the old file) and returns ``deleted``, ``not_present``,
    ``vertices`` and ``edges``.
    """
    if delete_vertices is not None:
        # networkx's remove_node: each vertex with every edge at it, by a
        # rewrite of the file (vertex ids are positions in it).
        if insert is not None or delete is not None or set_weight is not None:
            raise InputError("delete_vertices rewrites the file and runs alone: give the edge changes "
                             "in an update of their own")
        if isinstance(delete_vertices, (str, int, np.integer)):
            delete_vertices = [delete_vertices]
        return _grotto.delete_vertices(os.fspath(path), [str(v) for v in delete_vertices], threads)
    columns = _edge_columns(columns)
    kw: Dict[str, Any] = dict(
        format=format, columns=columns, threads=threads, merge=merge, merge_above=merge_above
    )
    for key, source in (("ins", insert), ("del", delete), ("set", set_weight)):
        if source is None:
            continue
        if isinstance(source, (str, os.PathLike)):
            kw[key + "_file"] = os.fspath(source)
            continue
        src, dst, w, what = _columns(source, columns)
        if _is_text(src) or _is_text(dst):
            if key == "set" or w is not None:
                raise InputError(f"{what}: weights for vertices with names can be given in a file only")
            kw[key + "_names"] = ([str(x) for x in np.asarray(src)], [str(x) for x in np.asarray(dst)])
            continue
        s_ids, d_ids = _ids(src, columns[0]), _ids(dst, columns[1])
        if len(s_ids) != len(d_ids):
            raise InputError(f"{what}: {len(s_ids)} sources but {len(d_ids)} destinations")
        kw[key + "_src"], kw[key + "_dst"] = s_ids, d_ids
        if key == "set" and w is None:
            raise InputError(f"{what}: set_weight needs a weight per edge (a 'weight' column)")
        if w is not None and key != "del":
            w = np.ascontiguousarray(np.asarray(w, dtype=np.float32))
            if len(w) != len(s_ids):
                raise InputError(f"{what}: {len(s_ids)} edges but {len(w)} weights")
            kw[key + "_w"] = w
    # The native call returns the report as a dict: an interrupt that comes
    # once the batch has landed is not raised inside this call (a retry
    # would apply the batch twice).
    report = _grotto.update(os.fspath(path), **kw)
    # What the batch will break (weights sssp refuses), as the command
    # line warns on standard error.
    for w in report.get("warnings", []):
        warnings.warn(w, stacklevel=2)
    return report


class _Ranked:
    """Edge columns of ranks in sorted, distinct vertex names (made by
    the networkx conversion, which has them at hand)."""

    def __init__(self, src: np.ndarray, dst: np.ndarray, weight: Optional[np.ndarray], names: List[str], what: str):
        self.src, self.dst, self.weight, self.names, self.what = src, dst, weight, names, what


def _is_text(col: Any) -> bool:
    """Whether a column holds strings (NumPy str/bytes, or objects that
    are str, as pandas and pyarrow give them)."""
    a = np.asarray(col)
    if a.dtype.kind in "US":
        return True
    return a.dtype.kind == "O" and len(a) > 0 and isinstance(a[0], str)


def _ranks(src: Any, dst: Any, columns: Tuple[str, str, str], listed: List[str]):
    """String id columns as ranks in their sorted distinct names and the
    ``listed`` ones (which is the order grotto stores names in), and the
    names."""
    cols = []
    for col, name in ((src, columns[0]), (dst, columns[1])):
        a = np.asarray(col)
        if a.dtype.kind == "S":
            raise InputError(f"column {name!r} holds bytes; string vertex ids must be text (str)")
        if a.dtype.kind == "O":
            bad = next((i for i, x in enumerate(a) if type(x) is not str), None)
            if bad is not None:
                x = a[bad]
                raise InputError(
                    f"column {name!r}: row {bad} has {'a null' if x is None else repr(x)}; "
                    "string vertex ids must all be strings" + ("" if x is None else
                                                              " (an integer column needs no ids='string')")
                )
        elif a.dtype.kind != "U":
            raise InputError(f"column {name!r} holds {a.dtype} values, and ids='string' needs strings")
        cols.append(a)
    if listed:
        cols.append(np.asarray(listed, dtype=object))
    names, inverse = np.unique(np.concatenate(cols), return_inverse=True)
    inverse = inverse.astype(np.uint64).reshape(-1)
    n, m = len(cols[0]), len(cols[1])
    return inverse[:n], inverse[n:n + m], [str(x) for x in names]


def _convert_stream(reader: Any, out: str, weighted: Any, columns: Tuple[str, str, str], common: Dict[str, Any]):
    """A RecordBatchReader, with memory bounded by one batch: its edge
    columns are spooled to a temporary Parquet file beside the output
    (removed afterwards, whatever happens) and converted from there."""
    import tempfile

    import pyarrow as pa
    import pyarrow.parquet as pq

    s, d, w = columns
    names = list(reader.schema.names)
    for c in (s, d):
        if c not in names:
            raise InputError(
                f"the Arrow stream has no column {c!r} (it has {names}); "
                "name the edge columns with columns=(src, dst[, weight])"
            )
    keep = [c for c in (s, d, w) if c in names and (c != w or weighted is not False)]
    if weighted and w not in names:
        raise InputError(f"weighted=True, and the Arrow stream has no {w!r} column")
    fd, spool = tempfile.mkstemp(
        prefix="." + os.path.basename(out) + ".grotto-stream-", suffix=".parquet",
        dir=os.path.dirname(os.path.abspath(out)),
    )
    os.close(fd)
    try:
        with pq.ParquetWriter(spool, pa.schema([reader.schema.field(c) for c in keep])) as pw:
            for batch in reader:
                pw.write_batch(batch.select(keep))
        try:
            report = _grotto.convert_file(spool, out, weighted=weighted, columns=tuple(columns), **common)
        except Error as e:
            raise type(e)(str(e).replace(spool, "the Arrow stream")) from None
        return json.loads(report)
    finally:
        os.unlink(spool)


def from_networkx(G: Any, path: PathLike, *, weight: Optional[str] = None, **options: Any) -> Dict[str, Any]:
    """Writes networkx graph ``G`` as the grotto file ``path``; see
    :func:`grotto.nx.from_networkx`."""
    from .nx import from_networkx as _from_networkx

    return _from_networkx(G, path, weight=weight, **options)
