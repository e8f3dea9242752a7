"""Spark and GraphFrames: a Spark DataFrame of edges to a grotto file,
grotto's results back as Spark DataFrames, and GraphFrames' algorithms
run by grotto on a GraphFrame (docs/scale-out.md).

Needs PySpark (4.x, or 3.5 with Java 8, 11 or 17); nothing here imports
it until called, so ``import grotto`` works without it. GraphFrames
itself is not needed: a "GraphFrame" here is anything with a
``vertices`` DataFrame (column ``id``) and an ``edges`` DataFrame
(columns ``src`` and ``dst``), as ``graphframes.GraphFrame`` has.

    import grotto.spark
    grotto.spark.convert(edges_df, "g.grotto", undirected=True)
    ranks = grotto.open("g.grotto").pagerank().to_spark(spark)
    # or, GraphFrames' way, the vertices with a pagerank column:
    v = grotto.spark.run(g, "pageRank", resetProbability=0.15, maxIter=20)
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from typing import Any, Dict, Optional, Sequence

import numpy as np

from . import Error, InputError, PathLike, Result, convert as _convert, open as _open

__all__ = ["convert", "to_spark", "run", "ALGORITHMS"]


def _frames(graph: Any):
    """(edges, vertices or None) of a DataFrame or a GraphFrame-like."""
    if hasattr(graph, "edges") and hasattr(graph, "vertices") and not callable(graph.edges):
        return graph.edges, graph.vertices
    if hasattr(graph, "sparkSession") and hasattr(graph, "columns"):
        return graph, None
    raise InputError(
        f"expected a Spark DataFrame of edges or a GraphFrame (with .vertices and .edges), got {type(graph).__name__}"
    )


def _vertex_ids(vertices: Any, column: str = "id"):
    """The ``id`` column of a vertex DataFrame, as the ``vertices=`` list
    convert takes (ids or names)."""
    if column not in vertices.columns:
        raise InputError(f"the vertex DataFrame has no {column!r} column (it has {vertices.columns})")
    col = vertices.select(column).toArrow().column(0)
    if col.null_count:
        raise InputError(f"the vertex DataFrame's {column!r} column holds {col.null_count} nulls")
    import pyarrow as pa

    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        return col.to_pylist()
    if not pa.types.is_integer(col.type):
        raise InputError(f"vertex ids must be integers or strings; {column!r} holds {col.type}")
    return col.to_numpy()


def convert(
    edges: Any,
    path: PathLike,
    *,
    src: str = "src",
    dst: str = "dst",
    weight: Optional[str] = None,
    via: str = "parquet",
    vertices: Any = None,
    **options: Any,
) -> Dict[str, Any]:
    """Builds the graph file ``path`` from a Spark DataFrame of edges (or
    a GraphFrame, whose vertex ids then all become vertices, isolated
    ones included) and returns :func:`grotto.convert`'s report.

    ``src``, ``dst`` and ``weight`` name the edge columns (integer ids,
    or strings, which become vertex names); ``vertices`` adds ids as for
    :func:`grotto.convert`; other keywords (``undirected``, ``reverse``,
    ``memory``, ...) go to :func:`grotto.convert`.

    ``via="parquet"`` (the default): Spark writes the edge columns as
    Parquet part files into a hidden directory beside ``path``, which
    grotto reads in parallel and removes (memory bounded by the vertex
    count on both sides; the faster way from about 16M edges on).
    ``via="arrow"``: the edges are collected to this process as Arrow
    batches (``DataFrame.toArrow``), which holds them all in memory;
    1.2x to 1.4x faster up to a few million edges (docs/scale-out.md).
    """
    edge_df, vertex_df = _frames(edges)
    if vertices is None and vertex_df is not None:
        vertices = _vertex_ids(vertex_df)
    wanted = [src, dst] + ([weight] if weight else [])
    missing = [c for c in wanted if c not in edge_df.columns]
    if missing:
        raise InputError(f"the edge DataFrame has no column {missing[0]!r} (it has {edge_df.columns})")
    cols = edge_df.select(*wanted)
    columns = (src, dst, weight or "weight")
    if weight is None:
        options.setdefault("weighted", False)
    out = os.fspath(path)
    if via == "arrow":
        return _convert(cols.toArrow(), out, columns=columns, vertices=vertices, **options)
    if via != "parquet":
        raise InputError(f"via= is 'parquet' or 'arrow', not {via!r}")
    spool = tempfile.mkdtemp(prefix="." + os.path.basename(out) + ".spark-",
                             dir=os.path.dirname(os.path.abspath(out)))
    try:
        table = os.path.join(spool, "edges")
        cols.write.parquet(table)
        try:
            return _convert(table, out, columns=columns, vertices=vertices, **options)
        except Error as e:  # name the DataFrame, not the spool's part file
            msg = re.sub(re.escape(table) + r"/?[^\s:]*", "the Spark DataFrame", str(e))
            raise type(e)(msg) from None
    finally:
        shutil.rmtree(spool, ignore_errors=True)


# grotto's column -> GraphFrames' column, per algorithm.
_RENAME = {
    "pagerank": {"score": "pagerank"},
    "tc": {"triangles": "count"},
    "bfs": {"depth": "distance"},
}

# Columns whose "not reached" marker becomes a null in Spark.
_UNREACHED = {"distance": -1, "parent": -1}


def _graphframes_table(result: Result):
    """The result's Arrow table with GraphFrames' names and scale."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = result.to_arrow()
    rename = _RENAME.get(result.algorithm, {})
    names = [rename.get(c, c) for c in table.column_names]
    table = table.rename_columns(names)
    if result.algorithm == "pagerank":
        # GraphX (and so GraphFrames) scales PageRank to sum to the number
        # of vertices: the same fixed point, times n.
        i = names.index("pagerank")
        table = table.set_column(i, "pagerank", pc.multiply(table.column(i), float(len(result))))
    if result.algorithm == "bfs":
        for name, marker in _UNREACHED.items():
            if name in names:
                i = names.index(name)
                col = table.column(i)
                if pa.types.is_integer(col.type):
                    table = table.set_column(i, name, pc.if_else(pc.equal(col, marker), None, col))
    return table


def _spark_types(table):
    """Columns as types Spark reads: unsigned integers as the signed type
    that holds them (Spark has no unsigned types; an id of 2**63 or more
    has no Spark type and is refused), large strings as strings."""
    import pyarrow as pa
    import pyarrow.compute as pc

    wider = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64()}
    for i, field in enumerate(table.schema):
        col, t = table.column(i), field.type
        if t in wider:
            table = table.set_column(i, field.name, col.cast(wider[t]))
        elif t == pa.uint64():
            top = pc.max(col).as_py()
            if top is not None and top >= 2**63:
                raise InputError(f"column {field.name!r} holds {top}, beyond Spark's long type")
            table = table.set_column(i, field.name, col.cast(pa.int64()))
        elif pa.types.is_large_string(t) and sum(c.nbytes for c in col.chunks) < 2**31:
            table = table.set_column(i, field.name, col.cast(pa.string()))
    return table


def to_spark(result: Result, spark: Any, *, style: str = "graphframes", path: Optional[PathLike] = None):
    """``result`` as a Spark DataFrame: ``id`` (your ids, names included)
    and the algorithm's columns.

    ``style="graphframes"`` (the default) names and scales the columns as
    GraphFrames does: PageRank's ``score`` becomes ``pagerank``, summing
    to the number of vertices (GraphX's scale; grotto's sums to 1),
    ``triangles`` becomes ``count``, BFS's ``depth`` becomes ``distance``
    and unreached vertices get nulls instead of -1; ``component``,
    ``label`` and the rest keep their names. ``style="grotto"`` keeps
    grotto's columns and values.

    ``path=None`` hands the table to Spark in memory (Arrow);
    with ``path``, it is written there as a Parquet file (which must not
    exist) and the DataFrame reads it, which is faster for large results
    (docs/scale-out.md) and lasts as long as the file.
    """
    if style == "graphframes":
        table = _graphframes_table(result)
    elif style == "grotto":
        table = result.to_arrow()
    else:
        raise InputError(f"style= is 'graphframes' or 'grotto', not {style!r}")
    return _hand_over(_spark_types(table), spark, path)


def _hand_over(table: Any, spark: Any, path: Optional[PathLike]):
    """An Arrow table as a Spark DataFrame: in memory, or through the
    Parquet file ``path`` (which must not exist)."""
    if path is None:
        return spark.createDataFrame(table)
    import pyarrow.parquet as pq

    out = os.fspath(path)
    if os.path.exists(out):
        raise InputError(f"{out} exists; to_spark writes a new file and never replaces one")
    pq.write_table(table, out)
    return spark.read.parquet(out)


def _reset_to_damping(reset: float) -> float:
    if not 0.0 < reset < 1.0:
        raise InputError(f"resetProbability must lie in (0, 1), got {reset}")
    return 1.0 - reset


class _Algo:
    """A GraphFrames algorithm as grotto runs it."""

    def __init__(self, grotto: str, storage: str, about: str):
        self.grotto, self.storage, self.about = grotto, storage, about


#: GraphFrames' algorithm names that :func:`run` takes, with the grotto
#: algorithm behind each. Storage "reverse": the directed graph with its
#: in-edges; "reversed": the edges turned around (distances to landmarks).
ALGORITHMS: Dict[str, _Algo] = {
    "pageRank": _Algo("pagerank", "directed",
                      "resetProbability=0.15, maxIter=N (fixed iterations) or tol=T: column pagerank"),
    "connectedComponents": _Algo("wcc", "directed", "column component, the smallest id in each"),
    "stronglyConnectedComponents": _Algo("scc", "reverse", "column component, the smallest id in each"),
    "labelPropagation": _Algo("cdlp", "reverse", "maxIter=N: column label (ties: the smallest label)"),
    "triangleCount": _Algo("tc", "reverse", "column count, edge direction ignored"),
    "shortestPaths": _Algo("bfs", "reversed", "landmarks=[...]: column distances, hops to each landmark"),
    # GraphFrames has no Louvain or Leiden: grotto's, on the edges taken
    # both ways (modularity of the undirected graph), with the keyword
    # arguments of Graph.louvain and Graph.leiden.
    "louvain": _Algo("louvain", "undirected",
                     "resolution=, threshold=, max_level=, seed=, weight=: column community"),
    "leiden": _Algo("leiden", "undirected",
                    "as louvain; every community connected: column community"),
}


def _params(name: str, params: Dict[str, Any], n: int) -> Dict[str, Any]:
    """GraphFrames' keyword arguments as grotto's."""
    p = dict(params)
    out: Dict[str, Any] = {}
    if name == "pageRank":
        if p.pop("sourceId", None) is not None:
            raise InputError("pageRank(sourceId=...) (personalized PageRank) is not offered here; use grotto's ppr")
        out["damping"] = _reset_to_damping(float(p.pop("resetProbability", 0.15)))
        max_iter, tol = p.pop("maxIter", None), p.pop("tol", None)
        if (max_iter is None) == (tol is None):
            raise InputError("pageRank needs exactly one of maxIter= and tol=, as GraphFrames does")
        if max_iter is not None:
            # Fixed iterations: a tolerance no change reaches (grotto's
            # must be positive); an exact fixed point still stops it.
            # Jacobi sweeps, as GraphX's iterations are.
            out.update(tolerance=float(np.finfo(np.float64).tiny), max_iterations=int(max_iter),
                       method="jacobi")
        else:
            # GraphX stops when no vertex (scores summing to n) changes by
            # tol; an L1 change below tol on that scale implies it.
            out.update(tolerance=float(tol) / max(n, 1), max_iterations=10_000)
        out["contributions"] = "f64"
    elif name == "labelPropagation":
        if "maxIter" not in p:
            raise InputError("labelPropagation needs maxIter=, as GraphFrames does")
        out["iterations"] = int(p.pop("maxIter"))
    elif name == "stronglyConnectedComponents":
        p.pop("maxIter", None)  # grotto's SCC is exact, with no round cap
    elif name == "triangleCount":
        out["per_vertex"] = True
    elif name == "connectedComponents":
        for k in ("algorithm", "checkpointInterval", "broadcastThreshold"):
            p.pop(k, None)
    if p:
        raise InputError(f"{name}: unknown parameter {next(iter(p))!r}")
    return out


def run(
    graph: Any,
    algorithm: str,
    *,
    path: Optional[PathLike] = None,
    undirected: bool = False,
    style: str = "graphframes",
    result_path: Optional[PathLike] = None,
    convert_options: Optional[Dict[str, Any]] = None,
    run_options: Optional[Dict[str, Any]] = None,
    **params: Any,
):
    """Runs ``algorithm`` with grotto on a GraphFrame (or a DataFrame of
    edges) and returns a Spark DataFrame shaped as GraphFrames returns
    it: the graph's vertices (all their columns) with the algorithm's
    columns joined on ``id``, or, for a DataFrame of edges, ``id`` and
    the algorithm's columns.

    ``algorithm`` is one of GraphFrames' names (:data:`ALGORITHMS`:
    ``pageRank``, ``connectedComponents``, ``stronglyConnectedComponents``,
    ``labelPropagation``, ``triangleCount``, ``shortestPaths``) with
    GraphFrames' keyword arguments; ``louvain`` or ``leiden`` (which
    GraphFrames lacks: communities by modularity on the edges taken both
    ways, column ``community``) with the keyword arguments of
    :meth:`grotto.Graph.louvain`; or any grotto algorithm with grotto's
    (``coreness``, ``bc``, ...). The edges are directed, as in
    GraphFrames; ``undirected=True`` stores each edge both ways (for
    grotto algorithms on undirected graphs, such as ``coreness``).

    The graph is converted to ``path`` (kept; default a temporary file,
    removed when the result has been handed to Spark) with
    ``convert_options``; ``run_options`` go to :meth:`grotto.Graph.run`
    (``threads``, ``cache``, ...); ``style`` and ``result_path`` as for
    :func:`to_spark`.

    Where GraphFrames' definitions differ from grotto's, grotto's apply:
    labelPropagation breaks ties by the smallest label (LDBC Graphalytics'
    CDLP), where GraphX takes whichever its hash map yields first; see
    docs/scale-out.md for how the answers compare.
    """
    edge_df, vertex_df = _frames(graph)
    spark = edge_df.sparkSession
    algo = ALGORITHMS.get(algorithm)
    storage = algo.storage if algo else ("undirected" if undirected else "reverse")
    if algo and undirected:
        storage = "undirected"
    copts = dict(convert_options or {})
    if storage == "undirected":
        copts["undirected"] = True
    elif storage == "reverse":
        copts["reverse"] = True
    src, dst = copts.pop("src", "src"), copts.pop("dst", "dst")
    if storage == "reversed":
        src, dst = dst, src
    workdir = None
    if path is None:
        workdir = tempfile.mkdtemp(prefix="grotto-spark-")
        path = os.path.join(workdir, "graph.grotto")
    try:
        convert(graph if vertex_df is not None else edge_df, path, src=src, dst=dst, **copts)
        g = _open(path)
        ropts = dict(run_options or {})
        if algo is None:
            result = g.run(algorithm, **ropts, **params)
            df = to_spark(result, spark, style=style, path=result_path)
        elif algorithm == "shortestPaths":
            df = _shortest_paths(g, spark, params, ropts, result_path)
        elif algorithm in ("louvain", "leiden"):
            result = getattr(g, algorithm)(**ropts, **params)
            df = to_spark(result, spark, style=style, path=result_path)
        else:
            result = g.run(algo.grotto, **ropts, **_params(algorithm, params, g.num_vertices))
            df = to_spark(result, spark, style=style, path=result_path)
        if vertex_df is not None:
            df = vertex_df.join(df, "id", "left")
        return df
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)


def _shortest_paths(g: Any, spark: Any, params: Dict[str, Any], ropts: Dict[str, Any],
                    result_path: Optional[PathLike]):
    """GraphFrames' shortestPaths: for each vertex a map from each
    landmark it reaches to the hops along the edges to it (a BFS from the
    landmark over the edges turned around)."""
    import pyarrow as pa

    p = dict(params)
    landmarks: Sequence[Any] = p.pop("landmarks", None)
    p.pop("algorithm", None)
    if p:
        raise InputError(f"shortestPaths: unknown parameter {next(iter(p))!r}")
    if not landmarks:
        raise InputError("shortestPaths needs landmarks=[...], as GraphFrames does")
    ids, depths = None, []
    for lm in landmarks:
        r = g.run("bfs", source=lm, **ropts)
        if ids is None:
            ids = r.to_arrow().column("id")
        depths.append(r["depth"])
    hops = np.stack(depths, axis=1)  # vertex x landmark
    reached = hops >= 0
    offsets = np.zeros(len(hops) + 1, dtype=np.int32)
    np.cumsum(reached.sum(axis=1), out=offsets[1:])
    vertex, which = np.nonzero(reached)  # in vertex order, landmarks in given order
    keys = pa.array(list(landmarks)).take(pa.array(which))
    maps = pa.MapArray.from_arrays(pa.array(offsets), keys, pa.array(hops[vertex, which].astype(np.int32)))
    table = pa.table({"id": ids, "distances": maps})
    return _hand_over(_spark_types(table), spark, result_path)
