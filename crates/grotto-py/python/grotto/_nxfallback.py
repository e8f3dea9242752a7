"""networkx's own functions on graph files: for a function the backend
does not implement, networkx hands a graph file to the backend anyway (a
graph file belongs to it); the backend then runs networkx's own code on
the file as a networkx graph (``Graph.to_networkx``, made once per file
and kept) when it has at most ``grotto.MAX_NETWORKX_EDGES`` edges, and
otherwise refuses with the reason. Functions that change their input
are refused: a graph file is read-only to networkx code. Pieces a
function returns (``ego_graph``, ``k_core`` and its family) are networkx
graphs up to that size, graph files above it."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from . import Graph


def limit() -> int:
    """The most edges a graph file is made a networkx graph with."""
    import grotto

    return int(grotto.MAX_NETWORKX_EDGES)


def _dispatchable(name: str) -> Any:
    from networkx.utils.backends import _registered_algorithms

    return _registered_algorithms.get(name)


class Fallback(type):
    """The backend's metaclass: a networkx function it has no method of
    its own for runs as networkx's code (see the module comment)."""

    def __getattr__(cls, name: str) -> Any:
        f = None if name.startswith("_") else _dispatchable(name)
        if f is None:
            raise AttributeError(name)

        def run(*args: Any, **kwargs: Any) -> Any:
            return in_networkx(f, args, kwargs)

        run.__name__ = name
        return run


def _graph_args(f: Any, args: Tuple, kwargs: Dict[str, Any]) -> Dict[Any, Any]:
    """The graph arguments of a call: position or name -> value."""
    out: Dict[Any, Any] = {}
    for gname, pos in (f.graphs or {}).items():
        if gname in kwargs:
            out[gname] = kwargs[gname]
        elif pos is not None and pos < len(args):
            out[pos] = args[pos]
    return out


def can_fall_back(name: str, args: Tuple, kwargs: Dict[str, Any]) -> Any:
    """Whether networkx's own ``name`` runs on this call's graph files
    (True), or why not (a string)."""
    f = _dispatchable(name)
    if f is None:
        return False
    files = [g for g in _graph_args(f, args, kwargs).values() if isinstance(g, Graph)]
    if not files:
        # A converted networkx graph: networkx runs its own function.
        return f"grotto does not implement {name}; networkx's own runs on the networkx graph"
    if _mutates(f, args, kwargs):
        return f"{name} changes its input graph, and a graph file is read-only to networkx code"
    for g in files:
        if g.num_edges > limit():
            return (f"grotto does not implement {name}, and networkx's own needs {g.path} in memory: "
                    f"{g.num_edges} edges, more than grotto.MAX_NETWORKX_EDGES={limit()}; take a piece "
                    "first (g.subgraph, g.ego_graph, g.k_core) or raise the limit")
    return True


def _mutates(f: Any, args: Tuple, kwargs: Dict[str, Any]) -> bool:
    """Whether this call of ``f`` changes its input: networkx marks such
    functions ``mutates_input`` (True, or {"ARG": position} / {"not ARG":
    position} for those that do when an argument is set / unset)."""
    m = f.mutates_input
    if not isinstance(m, dict):
        return bool(m)
    import inspect

    try:
        bound = inspect.signature(f.orig_func).bind_partial(*args, **kwargs)
    except TypeError:
        return True
    bound.apply_defaults()
    for key in m:
        neg = key.startswith("not ")
        arg = key[4:] if neg else key
        value = bool(bound.arguments.get(arg))
        if value != neg:
            return True
    return False


def refuse_on_files(name: str, args: Tuple, kwargs: Dict[str, Any], answer: Any) -> None:
    """Raises networkx's ``NetworkXNotImplemented`` with the reason when a
    graph file cannot be answered: networkx itself only logs a backend's
    reason, and takes a ``NotImplementedError`` from ``can_run`` as a cue
    to try the next backend, of which a graph file has none."""
    if answer is True or not isinstance(answer, str):
        return
    f = _dispatchable(name)
    if f is None or not any(isinstance(g, Graph) for g in _graph_args(f, args, kwargs).values()):
        return
    import networkx as nx

    raise nx.NetworkXNotImplemented(f"'{name}' is not implemented by ['grotto'] backends for these "
                                    f"arguments, because: {answer}")


def as_networkx(g: Graph) -> Any:
    """The graph file as a networkx graph, made once and kept with it."""
    H = g.__dict__.get("_as_networkx")
    if H is None:
        import networkx as nx

        H = nx.freeze(g.to_networkx(max_edges=limit()))
        g.__dict__["_as_networkx"] = H
    return H


def in_networkx(f: Any, args: Tuple, kwargs: Dict[str, Any]) -> Any:
    """networkx's own ``f`` with each graph file argument made a networkx
    graph."""
    args = list(args)
    kwargs = dict(kwargs)
    for at, g in _graph_args(f, tuple(args), kwargs).items():
        if isinstance(g, Graph):
            if isinstance(at, int):
                args[at] = as_networkx(g)
            else:
                kwargs[at] = as_networkx(g)
    kwargs.pop("backend", None)
    return f.orig_func(*args, **kwargs)


def small_or_file(piece: Graph) -> Any:
    """A piece as networkx code expects it: a networkx graph up to
    ``grotto.MAX_NETWORKX_EDGES`` edges, else the graph file itself."""
    if piece.num_edges <= limit():
        return piece.to_networkx()
    return piece


def ego_graph(G: Any, n: Any, radius: Any = 1, center: bool = True, undirected: bool = False,
              distance: Optional[str] = None) -> Any:
    """networkx's ``ego_graph`` from grotto's ego search: a graph file's
    piece (see :func:`small_or_file`), or a converted networkx graph's
    subgraph with its attributes."""
    import networkx as nx

    from ._nxgraph import _view

    V = _view(G)
    if not V.has(n):
        raise nx.NodeNotFound(f"Source {n} is not in G")
    d = "both" if undirected and V.directed else "out"
    if isinstance(G, Graph):
        import math

        return small_or_file(G.ego_graph(n, max(0, math.floor(radius)), center, direction=d))
    import math

    res = V.runs.run("ego", source=V.vertex(n), radius=max(0, math.floor(radius)), direction=d)
    members = V.nodes_of(res["vertex"])
    if not center:
        members = [v for v in members if v != n]
    return G._source().subgraph(members).copy()


def as_file(G: Any, weight: Optional[str]) -> Any:
    """networkx graph ``G`` written as a temporary graph file and opened
    (weights from the attribute ``weight``), or None when no file can
    hold it (a multigraph, an empty graph, a conversion refused): for
    measuring how networkx's own tests fare on graph files."""
    import os
    import tempfile
    import weakref

    import grotto

    from ._pieces import _remove

    if G.is_multigraph() or len(G) == 0:
        return None
    where = tempfile.mkdtemp(prefix="grotto-nxfile-")
    path = os.path.join(where, "g.grotto")
    try:
        grotto.from_networkx(G, path, weight=weight, reverse=G.is_directed(), keep_self_loops=True,
                             memory="64MiB")
        g = grotto.open(path)
    except Exception:
        _remove(where)
        return None
    g._removal = weakref.finalize(g, _remove, where)
    return g
