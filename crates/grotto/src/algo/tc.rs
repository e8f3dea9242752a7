//! Triangle counting (GAP's `tc`, networkx's `triangles`).
//!
//! Counts the triangles of the graph's underlying undirected simple
//! graph: self loops and repeated edges are ignored, and on a directed
//! graph (which needs its reverse edges) an edge in either direction
//! joins two vertices, as networkx counts `triangles(G.to_undirected())`.
//! The total is in the summary; `--per-vertex` adds each vertex's count
//! (the triangles it is a corner of), the column `triangles`, and to the
//! summary the connected triples (paths of two edges: `d (d - 1) / 2` at
//! a vertex of `d` distinct neighbours other than itself) and the
//! transitivity, three triangles per triple (networkx's `transitivity`).
//!
//! The work is [`super::intersect`]'s: degree-ordered lists, each
//! triangle found once from its lowest-ranked corner, within a memory
//! budget for the lists (`--memory`).
//!
//! The verifier counts, for every vertex, the edges between its
//! neighbours with sets in memory, and compares every count and the
//! total.

use super::intersect::{self, CountConfig, Counts};
use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{fail, Verdict};
use crate::cache::CacheSize;
use crate::engine::Run;
use crate::error::Result;
use crate::store::Graph;
use std::sync::Arc;

/// Settings of triangle counting.
#[derive(Clone, Debug, Default)]
pub struct TcConfig {
    /// Memory for the lists held at once (default `None`: half the
    /// memory available when the run starts).
    pub memory: Option<CacheSize>,
    /// Count per vertex too (default false: the total only).
    pub per_vertex: bool,
}

/// What a count found.
#[derive(Clone, Debug)]
pub struct TcResult {
    /// The core's counts; `per_vertex` is empty unless asked for.
    pub counts: Counts,
    /// The list budget the run used, in bytes.
    pub memory: u64,
}

/// The list budget: the size given, or half the available memory.
pub(crate) fn budget(r: &Run<'_>, memory: Option<CacheSize>) -> u64 {
    match memory {
        Some(m) => r.resolve_size(m),
        None => crate::metrics::available_memory_bytes().unwrap_or(4 << 30) / 2,
    }
}

/// Counts triangles on the synchronous engine.
pub fn run(r: &mut Run<'_>, cfg: &TcConfig) -> Result<TcResult> {
    let memory = budget(r, cfg.memory);
    let counts = intersect::count(
        r,
        &CountConfig {
            memory,
            per_vertex: cfg.per_vertex,
            arcs: false,
        },
    )?;
    Ok(TcResult { counts, memory })
}

/// Paths of two edges, `d (d - 1) / 2` summed over the vertices, when the
/// counts have each vertex's distinct neighbours (per-vertex runs).
pub fn connected_triples(c: &Counts) -> Option<u128> {
    if c.neighbours.is_empty() {
        return None;
    }
    Some(
        c.neighbours
            .iter()
            .map(|&d| d as u128 * (d as u128).saturating_sub(1) / 2)
            .sum(),
    )
}

/// Three triangles per connected triple (0 without triangles), as
/// networkx's `transitivity`.
pub fn transitivity(triangles: u64, triples: u128) -> f64 {
    if triangles == 0 || triples == 0 {
        0.0
    } else {
        3.0 * triangles as f64 / triples as f64
    }
}

/// Checks `res` against [`intersect::serial`]: the total, and every
/// vertex's count when there are any.
pub fn verify(g: &Graph, csr: &Csr, res: &TcResult) -> Verdict {
    let inn = g.directed().then(|| csr.reversed());
    let (count, neighbours, total) = intersect::serial(csr, inn.as_ref(), false);
    if res.counts.triangles != total {
        fail!(
            "{} triangles counted, the serial count finds {total}",
            res.counts.triangles
        );
    }
    if !res.counts.per_vertex.is_empty() {
        for (v, (&got, &want)) in res.counts.per_vertex.iter().zip(&count).enumerate() {
            if got != want {
                fail!(
                    "vertex {} is a corner of {got} triangles, the serial count says {want}",
                    g.original_id(v as crate::VertexId)
                );
            }
        }
        // The neighbour counts the connected triples come from.
        for (v, (&got, &want)) in res.counts.neighbours.iter().zip(&neighbours).enumerate() {
            if got != want {
                fail!(
                    "vertex {} has {got} distinct neighbours, the serial count says {want}",
                    g.original_id(v as crate::VertexId)
                );
            }
        }
        if res.counts.per_vertex.len() != count.len() {
            fail!(
                "{} counts for {} vertices",
                res.counts.per_vertex.len(),
                count.len()
            );
        }
    }
    Ok(())
}

/// The `--memory` parameter the intersection core's users share.
pub(crate) const MEMORY: Param = Param::optional(
    "memory",
    Kind::Size,
    "Memory for the degree-ordered lists held at once (512MiB, or 10% of the graph file; \
     default: half the available memory); less cuts the run into more sweeps over the edges.",
);

/// Triangle counting as a registered algorithm (`grotto run tc`).
pub struct Tc;

impl Algorithm for Tc {
    const NAME: &'static str = "tc";
    const ABOUT: &'static str = "Triangle counting (GAP's tc, networkx's triangles): the total, \
         and with --per-vertex each vertex's triangles; direction, self loops and repeats ignored.";
    const PARAMS: &'static [Param] = &[
        MEMORY,
        Param::optional(
            "per-vertex",
            Kind::Flag,
            "Count each vertex's triangles too (the column triangles), as networkx's triangles.",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = TcConfig;
    type Output = TcResult;

    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<TcConfig> {
        intersect::needs_reverse(g, "tc")?;
        Ok(TcConfig {
            memory: p.opt_size("memory")?,
            per_vertex: p.flag("per-vertex")?,
        })
    }
    fn config_json(_: &Graph, _: &Params, c: &TcConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({
            "memory": c.memory.map(|m| m.to_string()),
            "per_vertex": c.per_vertex,
        }))
    }
    fn run_sync(r: &mut Run<'_>, c: &TcConfig) -> Result<TcResult> {
        run(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, _: &TcConfig, out: &TcResult) -> Verdict {
        verify(g, csr, out)
    }
    fn table(g: &Arc<Graph>, out: TcResult) -> Table {
        let mut t = Table::for_graph(g.clone());
        if !out.counts.per_vertex.is_empty() {
            t.push("triangles", Values::U64(out.counts.per_vertex));
        }
        t
    }

    /// The total, how the lists were cut and the memory they took; with
    /// per-vertex counts, the connected triples and the transitivity.
    fn summary(_: &Graph, out: &TcResult) -> serde_json::Value {
        let c = &out.counts;
        let mut s = serde_json::json!({
            "triangles": c.triangles,
            "oriented_edges": c.oriented_edges,
            "held_ranges": c.held_ranges,
            "pivot_loads": c.pivot_loads,
            "memory_budget_bytes": out.memory,
            "peak_list_bytes": c.peak_list_bytes,
        });
        if let Some(triples) = connected_triples(c) {
            // Past u64 (2^32 neighbours at several vertices) the count is
            // given as a float, which the ratio needs anyway.
            s["connected_triples"] = match u64::try_from(triples) {
                Ok(t) => serde_json::json!(t),
                Err(_) => serde_json::json!(triples as f64),
            };
            s["transitivity"] = serde_json::json!(transitivity(c.triangles, triples));
        }
        s
    }
}
