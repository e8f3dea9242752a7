//! Reading a vertex's lists and degrees for the Python graph: which
//! adjacencies a `direction` names, degrees along them, and a list read
//! from disk in the user's order.

use crate::{invalid, py_err, PyGraph, Weights};
use grotto::store::{BlockReader, Direction};
use numpy::PyArray1;
use pyo3::prelude::*;

impl PyGraph {
    /// The lists a `direction` reads: "out" the out-lists; "in" the
    /// reverse edges of a directed graph (an error without them), the
    /// lists of an undirected one; "both" out and in of a directed graph,
    /// an undirected graph's lists once.
    pub(crate) fn directions(&self, direction: &str) -> PyResult<Vec<Direction>> {
        let g = &self.graph;
        match direction {
            "out" => Ok(vec![Direction::Out]),
            "in" | "both" if !g.directed() => Ok(vec![Direction::Out]),
            "in" | "both" if g.inn().is_none() => Err(invalid(format!(
                "direction={direction:?}: {} has no reverse edges to find in-neighbours by; \
                 convert it again with reverse=True (--reverse)",
                g.path().display()
            ))),
            "in" => Ok(vec![Direction::In]),
            "both" => Ok(vec![Direction::Out, Direction::In]),
            d => Err(invalid(format!(
                "direction={d:?}: expected \"out\", \"in\" or \"both\""
            ))),
        }
    }

    /// Degrees along `dirs` (added) of vertices found by `vs` (the first
    /// lookup error wins).
    pub(crate) fn degrees(
        &self,
        vs: impl Iterator<Item = grotto::Result<u32>>,
        dirs: &[Direction],
    ) -> PyResult<Vec<u64>> {
        let g = &self.graph;
        let adjs: Vec<_> = dirs
            .iter()
            .map(|&d| g.adjacency(d))
            .collect::<grotto::Result<_>>()
            .map_err(py_err)?;
        vs.map(|v| {
            v.map(|v| adjs.iter().map(|a| a.degree(v)).sum())
                .map_err(py_err)
        })
        .collect()
    }

    /// The neighbours of internal vertex `v` along `dirs`, in the user's
    /// order, and their weights (None when the graph is unweighted). Out
    /// and in together list a vertex once, with its out-edge's weight
    /// when both edges are there.
    pub(crate) fn read_list<'py>(
        &self,
        py: Python<'py>,
        v: u32,
        dirs: &[Direction],
    ) -> PyResult<(Vec<u32>, Weights<'py>)> {
        let g = &self.graph;
        // Lists are sorted and their ids looked up by rank: the order is
        // kept in memory from the first list on.
        g.load_order().map_err(py_err)?;
        let (mut ids, mut ws) = (Vec::new(), Vec::new());
        for &d in dirs {
            let mut r = BlockReader::new(g, d).map_err(py_err)?;
            let (mut more, mut mw) = (Vec::new(), Vec::new());
            r.neighbors(v, &mut more, Some(&mut mw)).map_err(py_err)?;
            if !g.weighted() {
                mw.clear();
            }
            ids.extend(more);
            ws.extend(mw);
        }
        if dirs.len() > 1 {
            // Stable: of two entries for a vertex, the out-list's first.
            let mut at: Vec<usize> = (0..ids.len()).collect();
            at.sort_by_key(|&i| ids[i]);
            at.dedup_by_key(|i| ids[*i]);
            ws = if ws.is_empty() {
                ws
            } else {
                at.iter().map(|&i| ws[i]).collect()
            };
            ids = at.iter().map(|&i| ids[i]).collect();
        }
        g.sort_by_rank(&mut ids, &mut ws);
        Ok((ids, g.weighted().then(|| PyArray1::from_vec(py, ws))))
    }
}
