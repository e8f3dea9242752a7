"""The pieces of a graph file: the subgraph a set of vertices induces
(a list, an ego network, a k-core, a component, a community, a filter
on a result) written as a new graph file, an edge list or Parquet; the
edges a batch at a time; and a small graph (or piece) as a networkx
graph."""

from __future__ import annotations

import os
import tempfile
import weakref
from typing import Any, Dict, Iterable, Iterator, Optional

import numpy as np

#: ``to_networkx`` refuses graphs with more edges than this unless given
#: a limit of its own: a networkx graph takes about 500 bytes an edge.
MAX_NETWORKX_EDGES = 10_000_000


def _remove(where: str) -> None:
    """Removes a temporary piece's file and its directory."""
    for name in os.listdir(where) if os.path.isdir(where) else ():
        try:
            os.unlink(os.path.join(where, name))
        except OSError:
            pass
    try:
        os.rmdir(where)
    except OSError:
        pass


class Pieces:
    """Subgraphs, batches of edges and networkx graphs, for
    :class:`grotto.Graph`."""

    def extract(self, path: Any, *, vertices: Optional[Iterable[Any]] = None, ego: Any = None,
                radius: int = 1, direction: str = "out", kcore: Optional[int] = None,
                component: Any = None, community: Optional[str] = None,
                filter: Optional[str] = None, format: Optional[str] = None,
                threads: Optional[int] = None, memory: Any = None) -> Dict[str, Any]:
        """Writes the subgraph that one choice of vertices induces to
        ``path`` and returns ``{"output", "vertices", "edges"}``, as
        ``grotto extract`` does. The choice: ``vertices`` (your ids or
        names), ``ego`` (a vertex, with ``radius`` and ``direction``
        "out", "in" or "both"), ``kcore`` (K), ``component`` (a vertex
        whose weakly connected component is kept, or "largest"),
        ``community`` ("RESULT:LABEL") or ``filter`` ("RESULT:COLUMN OP
        VALUE", as ``"ranks.parquet:score>0.001"``). ``format``: "grotto"
        (a graph file of the same kind, isolated vertices kept),
        "edgelist" or "parquet"; by default by the extension (.grotto,
        .parquet, else an edge list)."""
        from . import _grotto

        given = [x is not None for x in (vertices, ego, kcore, component, community, filter)]
        if sum(given) != 1:
            from . import InputError

            raise InputError("give exactly one of vertices=, ego=, kcore=, component=, community=, filter=")
        kw: Dict[str, Any] = dict(format=format, threads=threads, memory=None if memory is None else str(memory))
        if vertices is not None:
            kw["rows"] = self._rows_of(vertices)
        elif ego is not None:
            kw.update(ego=self._row(ego), radius=int(radius), direction=direction)
        elif kcore is not None:
            kw["kcore"] = int(kcore)
        elif component is not None:
            kw["component"] = -1 if isinstance(component, str) and component == "largest" else self._row(component)
        elif community is not None:
            kw["community"] = str(community)
        else:
            kw["filter"] = str(filter)
        return _grotto.extract(self._g, os.fspath(path), **kw)

    def _row(self, v: Any) -> int:
        at = self._position(v)
        if at < 0:
            from . import InputError

            raise InputError(f"vertex {v!r}: the graph has no such vertex")
        return at

    def _rows_of(self, vertices: Iterable[Any]) -> np.ndarray:
        members = list(vertices)
        rows = self._positions(members)
        if bool(np.any(rows < 0)):
            from . import InputError

            bad = members[int(np.argmax(rows < 0))]
            raise InputError(f"vertex {bad!r}: the graph has no such vertex")
        return rows.astype(np.int64)

    def _piece(self, path: Any, **choice: Any) -> Any:
        """The piece as an open graph file: at ``path``, or a temporary
        one removed when the returned graph is."""
        from . import open as _open

        where = None
        if path is None:
            where = tempfile.mkdtemp(prefix="grotto-piece-", dir=os.environ.get("GROTTO_TMPDIR") or None)
            path = os.path.join(where, "piece.grotto")
        try:
            self.extract(path, format="grotto", **choice)
        except BaseException:
            if where is not None:
                _remove(where)
            raise
        g = _open(path)
        if where is not None:
            g._removal = weakref.finalize(g, _remove, where)
        return g

    def subgraph(self, vertices: Iterable[Any], path: Any = None) -> Any:
        """The subgraph induced by ``vertices`` (your ids or names), as a
        graph file of the same kind (direction, weights, reverse edges),
        every listed vertex kept, isolated or not: written to ``path``,
        or to a temporary file that goes with the returned graph.
        ``.to_networkx()`` makes it a networkx graph."""
        return self._piece(path, vertices=vertices)

    def ego_graph(self, n: Any, radius: int = 1, center: bool = True, undirected: bool = False,
                  *, direction: Optional[str] = None, path: Any = None) -> Any:
        """The ego network of ``n``: the subgraph induced by the vertices
        within ``radius`` hops, as networkx's ``ego_graph`` (out-edges; or
        both ways with ``undirected=True``, or ``direction="in"`` for
        in-edges), as a graph file (see :meth:`subgraph`). With
        ``center=False``, without ``n`` itself."""
        d = direction or ("both" if undirected else "out")
        if center:
            return self._piece(path, ego=n, radius=radius, direction=d)
        res = self.run("ego", source=n, radius=radius, direction=d)
        keep = [v for v in res["vertex"].tolist() if v != n]
        return self._piece(path, vertices=keep)

    def k_core(self, k: int, path: Any = None) -> Any:
        """The K-core (every vertex with at least K neighbours inside it;
        undirected graphs) as a graph file (see :meth:`subgraph`)."""
        return self._piece(path, kcore=k)

    def _in_degree_rows(self) -> np.ndarray:
        """Every vertex's in-degree by result row, counted once over the
        out-lists (a directed file without reverse edges) and kept."""
        from . import _grotto

        got = self.__dict__.get("_in_rows")
        if got is None:
            n = self.num_vertices
            got = np.zeros(n, dtype=np.int64)
            start = 0
            while start < n:
                _, dst, _, start = _grotto.edge_batch(self._g, start, 1 << 22)
                got += np.bincount(dst.astype(np.int64), minlength=n)
            self.__dict__["_in_rows"] = got
        return got

    def _loops_kept(self) -> bool:
        got = self.__dict__.get("_loops")
        if got is None:
            got = self.__dict__["_loops"] = bool(self.info().get("self_loops_kept", False))
        return got

    def _loop_rows(self) -> np.ndarray:
        """Self loops per result row (an undirected graph's count twice in
        networkx's degree), counted once over the lists and kept."""
        from . import _grotto

        got = self.__dict__.get("_loop_rows_")
        if got is None:
            n = self.num_vertices
            got = np.zeros(n, dtype=np.int64)
            start = 0
            while self._loops_kept() and start < n:
                src, dst, _, start = _grotto.edge_batch(self._g, start, 1 << 22)
                at = src[src == dst].astype(np.int64)
                got += np.bincount(at, minlength=n)
            self.__dict__["_loop_rows_"] = got
        return got

    def _degree_rows(self, direction: str) -> np.ndarray:
        """Every vertex's degree by result row as networkx counts it:
        "out", "in", or "both" (a directed graph's in plus out; an
        undirected graph's degree with each self loop counted twice)."""
        ids = self.vertices()
        if not self.directed:
            return self.degrees(ids).astype(np.int64) + self._loop_rows()
        out = self.degrees(ids).astype(np.int64) if direction != "in" else 0
        if direction == "out":
            return out
        inn = self.degrees(ids, direction="in").astype(np.int64) if self._has_reverse() else self._in_degree_rows()
        return out + inn

    def _no_reverse(self, direction: str) -> Exception:
        from . import InputError

        return InputError(f"direction={direction!r} with weights: {self.path} has no reverse edges to "
                          "find in-edges by; convert it again with reverse=True (--reverse)")

    def _batches(self, batch_edges: int = 1 << 20) -> Iterator[Any]:
        """(src, dst, weights or None) arrays of edges in your ids (an
        undirected edge once), a batch at a time."""
        from . import _grotto

        ids = self.vertices()
        start = 0
        n = self.num_vertices
        while start < n:
            src, dst, w, start = _grotto.edge_batch(self._g, start, int(batch_edges))
            yield ids[src.astype(np.int64)], ids[dst.astype(np.int64)], w

    def edge_batches(self, batch_edges: int = 1 << 20, format: str = "pandas") -> Iterator[Any]:
        """Every edge (an undirected edge once, from its smaller end) in
        batches of about ``batch_edges``, each a pandas DataFrame
        (``format="pandas"``), a pyarrow RecordBatch (``"arrow"``) or a
        dict of NumPy arrays (``"numpy"``) with columns ``src``, ``dst``
        and on a weighted graph ``weight``, in your ids or names."""
        if format not in ("pandas", "arrow", "numpy"):
            from . import InputError

            raise InputError(f'format={format!r}: expected "pandas", "arrow" or "numpy"')
        for src, dst, w in self._batches(batch_edges):
            cols = {"src": src, "dst": dst}
            if w is not None:
                cols["weight"] = w
            if format == "numpy":
                yield cols
            elif format == "arrow":
                import pyarrow as pa

                yield pa.RecordBatch.from_pydict(cols)
            else:
                import pandas as pd

                yield pd.DataFrame(cols)

    def to_networkx(self, max_edges: Optional[int] = None, weight: str = "weight") -> Any:
        """The graph as a networkx ``Graph`` or ``DiGraph`` (nodes your ids
        or names, every vertex included; weights as the edge attribute
        ``weight``), refused with a clear message when it has more than
        ``max_edges`` edges (default ``grotto.MAX_NETWORKX_EDGES``, 10
        million: networkx takes about 500 bytes an edge)."""
        import networkx as nx

        from . import InputError

        import grotto

        limit = grotto.MAX_NETWORKX_EDGES if max_edges is None else int(max_edges)
        if self.num_edges > limit:
            raise InputError(
                f"{self.path} has {self.num_edges} edges, more than max_edges={limit} a networkx graph "
                "is made of here (about 500 bytes an edge); take a piece first (g.subgraph, g.ego_graph, "
                "g.k_core, g.extract) or pass a larger max_edges"
            )
        H = nx.DiGraph() if self.directed else nx.Graph()
        H.add_nodes_from(self.vertices().tolist())
        for src, dst, w in self._batches():
            if w is None:
                H.add_edges_from(zip(src.tolist(), dst.tolist()))
            else:
                H.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()), weight=weight)
        return H
