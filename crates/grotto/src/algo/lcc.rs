//! Local clustering coefficient (LCC), with the semantics of LDBC
//! Graphalytics' LCC kernel.
//!
//! A vertex's neighbours are the distinct vertices other than itself
//! that it has an edge with (on a directed graph, in either direction:
//! this needs the reverse edges). With `d` neighbours, its coefficient is
//! the number of edges between them over the number there could be:
//! `e / (d (d - 1) / 2)` on an undirected graph (networkx's `clustering`),
//! and on a directed graph the number of arcs between them, each
//! direction counted, over `d (d - 1)`. A vertex with fewer than two
//! neighbours has coefficient 0. Self loops and repeated edges count
//! nowhere.
//!
//! An edge between two neighbours of `v` closes a triangle at `v`, so
//! the counts come from [`super::intersect`], the core triangle counting
//! uses, weighted by the arcs between the other two corners.
//!
//! The verifier counts, for every vertex, the arcs between its
//! neighbours with sets in memory and compares every coefficient within
//! 1e-12 relative.

use super::intersect::{self, CountConfig, Counts};
use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, OnSync, Param, Params, Setting};
use super::tc::{budget, MEMORY};
use super::{fail, Verdict};
use crate::cache::CacheSize;
use crate::engine::Run;
use crate::error::Result;
use crate::store::Graph;
use std::sync::Arc;

/// Settings of LCC.
#[derive(Clone, Debug, Default)]
pub struct LccConfig {
    /// Memory for the lists held at once (default `None`: half the
    /// memory available when the run starts).
    pub memory: Option<CacheSize>,
}

/// Coefficients, in internal ids.
#[derive(Clone, Debug)]
pub struct LccResult {
    /// Per vertex, its coefficient.
    pub lcc: Vec<f64>,
    /// The core's counts (per vertex: the edges, or arcs, between its
    /// neighbours, and its neighbours).
    pub counts: Counts,
    /// The list budget the run used, in bytes.
    pub memory: u64,
}

/// A coefficient from `e` edges (arcs, when `directed`) between `d`
/// neighbours.
fn coefficient(e: u64, d: u32, directed: bool) -> f64 {
    if d < 2 {
        return 0.0;
    }
    let pairs = d as f64 * (d as f64 - 1.0);
    if directed {
        e as f64 / pairs
    } else {
        2.0 * e as f64 / pairs
    }
}

/// Computes LCC on the synchronous engine.
pub fn run(r: &mut Run<'_>, cfg: &LccConfig) -> Result<LccResult> {
    let memory = budget(r, cfg.memory);
    let directed = r.graph().directed();
    let counts = intersect::count(
        r,
        &CountConfig {
            memory,
            per_vertex: true,
            arcs: true,
        },
    )?;
    let lcc = counts
        .per_vertex
        .iter()
        .zip(&counts.neighbours)
        .map(|(&e, &d)| coefficient(e, d, directed))
        .collect();
    Ok(LccResult {
        lcc,
        counts,
        memory,
    })
}

/// Checks every coefficient against [`intersect::serial`]'s counts.
pub fn verify(g: &Graph, csr: &Csr, res: &LccResult) -> Verdict {
    let directed = g.directed();
    let inn = directed.then(|| csr.reversed());
    let (count, neighbours, _) = intersect::serial(csr, inn.as_ref(), directed);
    if res.lcc.len() != count.len() {
        fail!(
            "{} coefficients for {} vertices",
            res.lcc.len(),
            count.len()
        );
    }
    for (v, &got) in res.lcc.iter().enumerate() {
        let want = coefficient(count[v], neighbours[v], directed);
        if (got - want).abs() > 1e-12 * want.abs().max(1.0) {
            fail!(
                "vertex {} has coefficient {got}, the serial count gives {want} \
                 ({} edges between {} neighbours)",
                g.original_id(v as crate::VertexId),
                count[v],
                neighbours[v]
            );
        }
    }
    Ok(())
}

/// LCC as a registered algorithm (`grotto run lcc`).
pub struct Lcc;

impl Algorithm for Lcc {
    const NAME: &'static str = "lcc";
    const ABOUT: &'static str = "Local clustering coefficient (LDBC Graphalytics; networkx's \
         clustering on undirected graphs): the share of a vertex's neighbour pairs that are linked.";
    const PARAMS: &'static [Param] = &[MEMORY];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = LccConfig;
    type Output = LccResult;

    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<LccConfig> {
        intersect::needs_reverse(g, "lcc")?;
        Ok(LccConfig {
            memory: p.opt_size("memory")?,
        })
    }
    fn config_json(_: &Graph, _: &Params, c: &LccConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({"memory": c.memory.map(|m| m.to_string())}))
    }
    fn run_sync(r: &mut Run<'_>, c: &LccConfig) -> Result<LccResult> {
        run(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, _: &LccConfig, out: &LccResult) -> Verdict {
        verify(g, csr, out)
    }
    fn table(g: &Arc<Graph>, out: LccResult) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("lcc", Values::F64(out.lcc));
        t
    }

    /// The mean coefficient (networkx's `average_clustering`), the
    /// triangles, and how the lists were cut.
    fn summary(_: &Graph, out: &LccResult) -> serde_json::Value {
        let c = &out.counts;
        let mean = if out.lcc.is_empty() {
            0.0
        } else {
            out.lcc.iter().sum::<f64>() / out.lcc.len() as f64
        };
        serde_json::json!({
            "average_clustering": mean,
            "triangles": c.triangles,
            "held_ranges": c.held_ranges,
            "pivot_loads": c.pivot_loads,
            "memory_budget_bytes": out.memory,
            "peak_list_bytes": c.peak_list_bytes,
        })
    }
}
