//! networkx graphs walked at native speed: the adjacency dicts of a
//! `Graph` or `DiGraph` turned into edge columns without a Python-level
//! loop.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt};

/// Edge columns: sources, destinations, weights when asked for, whether
/// every weight is a whole number of at most 2^24 in magnitude (so
/// float32 holds it, and sums of them up to 2^24, exactly), and whether
/// every weight is a Python int (networkx's sums of them are ints).
type Columns<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
    Option<Bound<'py, PyArray1<f32>>>,
    bool,
    bool,
);

/// Magnitude up to which float32 holds every whole number.
const F32_EXACT: f64 = (1u64 << 24) as f64;

/// The id of networkx node `node`: its position in `index` when given,
/// else the node itself, which must be a non-negative integer.
fn id_of(node: &Bound<'_, PyAny>, index: Option<&Bound<'_, PyDict>>) -> PyResult<u64> {
    match index {
        Some(ix) => match ix.get_item(node)? {
            Some(i) => i.extract(),
            None => Err(crate::invalid(format!(
                "node {} is a neighbour but not a node of the graph",
                node.repr()?
            ))),
        },
        None => {
            let bad = || {
                crate::invalid(format!(
                    "node {} is not a non-negative integer below 2^64",
                    node.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                ))
            };
            if node.is_instance_of::<PyBool>() {
                return Err(bad());
            }
            node.extract::<u64>().map_err(|_| bad())
        }
    }
}

/// Every edge of a networkx adjacency (`G._adj`, or `G._succ` of a
/// directed graph) as columns of ids: node ids themselves, or positions
/// in `index` (a dict node -> int) when given. An undirected graph lists
/// each edge in both dicts; it is taken once, from the smaller id (a loop
/// once). With `weight`, that edge attribute as f32 (1 where absent),
/// and whether those weights are exact (see [`Columns`]).
#[pyfunction]
#[pyo3(signature = (adj, directed, index=None, weight=None))]
pub fn adjacency_columns<'py>(
    py: Python<'py>,
    adj: &Bound<'py, PyDict>,
    directed: bool,
    index: Option<&Bound<'py, PyDict>>,
    weight: Option<&str>,
) -> PyResult<Columns<'py>> {
    let (mut src, mut dst, mut ws) = (Vec::new(), Vec::new(), Vec::new());
    let (mut exact, mut ints) = (true, true);
    for (u, nbrs) in adj.iter() {
        let nbrs = nbrs
            .cast_into::<PyDict>()
            .map_err(|_| crate::invalid("the graph's adjacency is not a dict of dicts".into()))?;
        let a = id_of(&u, index)?;
        let Some(w) = weight else {
            // Keys only: the edge attribute dicts are not touched.
            for v in nbrs.keys().iter() {
                let b = id_of(&v, index)?;
                if directed || b >= a {
                    src.push(a);
                    dst.push(b);
                }
            }
            continue;
        };
        for (v, data) in nbrs.iter() {
            let b = id_of(&v, index)?;
            if !directed && b < a {
                continue;
            }
            src.push(a);
            dst.push(b);
            let x = match data
                .cast::<PyDict>()
                .ok()
                .map(|d| d.get_item(w))
                .transpose()?
            {
                Some(Some(x)) => {
                    ints &= x.is_instance_of::<PyInt>() && !x.is_instance_of::<PyBool>();
                    x.extract::<f64>().map_err(|_| {
                        crate::invalid(format!(
                            "edge ({}, {}) has {w}={}, not a number",
                            u.repr().map_or_else(|_| "?".into(), |r| r.to_string()),
                            v.repr().map_or_else(|_| "?".into(), |r| r.to_string()),
                            x.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                        ))
                    })?
                }
                _ => 1.0,
            };
            exact &= x.fract() == 0.0 && x.abs() <= F32_EXACT;
            ws.push(x as f32);
        }
    }
    Ok((
        PyArray1::from_vec(py, src),
        PyArray1::from_vec(py, dst),
        weight.map(|_| PyArray1::from_vec(py, ws)),
        exact,
        ints,
    ))
}

/// Whether every neighbour dict of a networkx adjacency lists its nodes
/// in increasing order of their positions in `index` (a dict node ->
/// int): then networkx's traversal order is the one a grotto file gives
/// (lists sorted by id), and its BFS tree can be answered exactly.
#[pyfunction]
pub fn adjacency_sorted(adj: &Bound<'_, PyDict>, index: &Bound<'_, PyDict>) -> PyResult<bool> {
    for (_, nbrs) in adj.iter() {
        let nbrs = nbrs
            .cast_into::<PyDict>()
            .map_err(|_| crate::invalid("the graph's adjacency is not a dict of dicts".into()))?;
        let mut last: Option<u64> = None;
        for (v, _) in nbrs.iter() {
            let i = id_of(&v, Some(index))?;
            if last.is_some_and(|l| l > i) {
                return Ok(false);
            }
            last = Some(i);
        }
    }
    Ok(true)
}
