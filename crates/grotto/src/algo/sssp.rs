//! Single-source shortest paths on a weighted graph with non-negative
//! weights, on the asynchronous engine.
//!
//! Priority-ordered label correcting: a vertex sends its distance; a
//! neighbour that gets a shorter one takes it (distance and parent in one
//! 64-bit word changed by compare-and-swap) and runs again with the new
//! distance as priority, so blocks holding the nearest active vertices
//! are processed first, as Dijkstra would. With `delta`, priorities are
//! buckets of that width (delta-stepping's order). Distances are `f32`
//! sums along the path, as the weights are stored; addition is monotone,
//! so the result equals a serial Dijkstra with the same arithmetic
//! exactly. A negative or NaN weight stops the run with an error naming
//! the edge.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting, SEED, SOURCE};
use super::{fail, Verdict, NONE};
use crate::engine::{AsyncRun, Flow, Priority, Seeds};
use crate::error::{Error, Result};
use crate::store::Graph;
use crate::VertexId;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::sync::Mutex;

/// Settings of SSSP.
#[derive(Clone, Debug)]
pub struct SsspConfig {
    /// The source (internal id).
    pub source: VertexId,
    /// Bucket width of the priority (default: none, exact distances).
    pub delta: Option<f32>,
}

/// Distances and a shortest-path tree, in internal ids.
#[derive(Clone, Debug)]
pub struct SsspResult {
    /// The source.
    pub source: VertexId,
    /// Distance per vertex; infinity when unreached.
    pub dist: Vec<f32>,
    /// Parent per vertex ([`NONE`] when unreached; the source's is itself).
    pub parent: Vec<VertexId>,
    /// Vertices reached.
    pub reached: u64,
}

fn pack(d: f32, p: VertexId) -> u64 {
    ((d.to_bits() as u64) << 32) | p as u64
}

fn dist_of(x: u64) -> f32 {
    f32::from_bits((x >> 32) as u32)
}

/// Runs SSSP on the asynchronous engine.
pub fn run_async(r: &mut AsyncRun<'_>, cfg: &SsspConfig) -> Result<SsspResult> {
    if !r.graph().weighted() {
        return Err(Error::Invalid(
            "sssp needs edge weights and this graph has none: convert a `u v w` edge list \
             with --weighted (bfs gives hop distances on unweighted graphs)"
                .into(),
        ));
    }
    if let Some(d) = cfg.delta {
        if !(d > 0.0 && d.is_finite()) {
            return Err(Error::Invalid(format!(
                "--delta {d} must be a positive number"
            )));
        }
    }
    let n = r.vertex_count();
    let s = cfg.source;
    let unreached = pack(f32::INFINITY, NONE);
    let state: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(unreached)).collect();
    state[s as usize].store(pack(0.0, s), Relaxed);
    let bad: Mutex<Option<(VertexId, VertexId, f32)>> = Mutex::new(None);
    let prio = |d: f32| match cfg.delta {
        Some(delta) => Priority(((d / delta) as u32).min(Priority::LAST.0)),
        None => Priority::ascending_f32(d),
    };
    r.flow(
        &Flow {
            weights: true,
            ..Flow::default()
        },
        Seeds::List(&[(s, Priority::FIRST)]),
        |v| Some((v, dist_of(state[v as usize].load(Relaxed)))),
        |(v, d), e| {
            if e.weight.is_nan() || e.weight < 0.0 {
                let mut b = bad.lock().unwrap_or_else(|p| p.into_inner());
                b.get_or_insert((v, e.dst, e.weight));
                return None;
            }
            let nd = d + e.weight;
            let cell = &state[e.dst as usize];
            let mut cur = cell.load(Relaxed);
            while nd < dist_of(cur) {
                match cell.compare_exchange_weak(cur, pack(nd, v), Relaxed, Relaxed) {
                    Ok(_) => return Some(prio(nd)),
                    Err(c) => cur = c,
                }
            }
            None
        },
    )?;
    let g = r.graph();
    if let Some((u, v, w)) = bad.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(Error::Invalid(format!(
            "edge {} -> {} has weight {w}: shortest paths need non-negative weights",
            g.label_text(u),
            g.label_text(v)
        )));
    }
    let mut dist = Vec::with_capacity(n as usize);
    let mut parent = Vec::with_capacity(n as usize);
    for c in state {
        let x = c.into_inner();
        dist.push(dist_of(x));
        parent.push(x as u32);
    }
    let reached = parent.iter().filter(|&&p| p != NONE).count() as u64;
    Ok(SsspResult {
        source: s,
        dist,
        parent,
        reached,
    })
}

/// Serial Dijkstra with `f32` sums (the reference).
pub fn dijkstra(g: &Csr, s: VertexId) -> Vec<f32> {
    use std::cmp::Reverse;
    let n = g.vertex_count() as usize;
    let mut dist = vec![f32::INFINITY; n];
    dist[s as usize] = 0.0;
    let mut heap = std::collections::BinaryHeap::new();
    heap.push(Reverse((0u32, s)));
    while let Some(Reverse((bits, v))) = heap.pop() {
        let d = f32::from_bits(bits);
        if d > dist[v as usize] {
            continue;
        }
        for (&u, &w) in g.neighbors(v).iter().zip(g.weights(v)) {
            let nd = d + w;
            if nd < dist[u as usize] {
                dist[u as usize] = nd;
                heap.push(Reverse((nd.to_bits(), u)));
            }
        }
    }
    dist
}

/// Checks distances against serial Dijkstra (exactly) and the tree.
pub fn verify(g: &Csr, res: &SsspResult) -> Verdict {
    let want = dijkstra(g, res.source);
    for (v, (&a, &b)) in res.dist.iter().zip(&want).enumerate() {
        if a != b {
            fail!("vertex {v} at distance {a}, serial Dijkstra says {b}");
        }
        let p = res.parent[v];
        if p == NONE || v as VertexId == res.source {
            continue;
        }
        let nb = g.neighbors(p);
        let ok = nb
            .iter()
            .zip(g.weights(p))
            .any(|(&u, &w)| u as usize == v && res.dist[p as usize] + w == a);
        if !ok {
            fail!("vertex {v}'s parent {p} has no edge giving its distance {a}");
        }
    }
    Ok(())
}

impl SsspResult {
    /// Per-vertex `vertex,distance,parent` in the user's ids (distance
    /// `inf` and parent -1 when unreached).
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("distance", Values::F32(self.dist));
        t.push("parent", Values::Vertex(self.parent));
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self, g: &Graph) -> serde_json::Value {
        let far = self
            .dist
            .iter()
            .copied()
            .filter(|d| d.is_finite())
            .fold(0.0f32, f32::max);
        serde_json::json!({
            "source": g.label(self.source),
            "reached": self.reached,
            "farthest": far,
        })
    }
}

/// SSSP as a registered algorithm (`grotto run sssp`).
pub struct Sssp;

impl Algorithm for Sssp {
    const NAME: &'static str = "sssp";
    const ABOUT: &'static str =
        "Single-source shortest paths on non-negative weights (weighted graphs; async engine).";
    const PARAMS: &'static [Param] = &[
        SOURCE,
        SEED,
        Param::optional(
            "delta",
            Kind::Float,
            "Priority buckets of this width (delta-stepping order; default: exact distances).",
        ),
    ];
    const SYNC: OnSync = OnSync::Unsupported;
    const ASYNC: bool = true;
    type Config = SsspConfig;
    type Output = SsspResult;

    /// Only the asynchronous engine runs it.
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Async
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<SsspConfig> {
        Ok(SsspConfig {
            source: p.source(g)?,
            delta: p.opt_f64("delta")?.map(|d| d as f32),
        })
    }
    fn config_json(g: &Graph, p: &Params, c: &SsspConfig) -> Result<serde_json::Value> {
        Ok(
            serde_json::json!({"source": g.label(c.source), "seed": p.u64("seed")?,
            "delta": c.delta}),
        )
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &SsspConfig) -> Result<SsspResult> {
        run_async(r, c)
    }
    fn verify(_: &Graph, csr: &Csr, _: &SsspConfig, out: &SsspResult) -> Verdict {
        verify(csr, out)
    }
    fn table(g: &Arc<Graph>, out: SsspResult) -> Table {
        out.into_table(g)
    }
    fn summary(g: &Graph, out: &SsspResult) -> serde_json::Value {
        out.summary(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::AsyncEngine;
    use crate::store::Direction;
    use crate::testkit;

    #[test]
    fn matches_dijkstra_in_every_configuration() {
        for undirected in [true, false] {
            let tg = testkit::weighted_rmat(10, 8, 5, undirected);
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let s = super::super::pick_source(&tg.graph, 1).unwrap();
            for cfg in testkit::configs() {
                let e = AsyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
                for delta in [None, Some(0.5)] {
                    let c = SsspConfig { source: s, delta };
                    let (res, _) = e.run(|r| run_async(r, &c)).unwrap();
                    verify(&csr, &res).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
                }
            }
        }
    }

    #[test]
    fn refuses_unweighted_graphs_and_negative_weights() {
        let tg = testkit::rmat(8, 4, 1, true);
        let e = AsyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let c = SsspConfig {
            source: 0,
            delta: None,
        };
        let err = e.run(|r| run_async(r, &c)).unwrap_err().to_string();
        assert!(err.contains("--weighted"), "{err}");
        let neg = testkit::from_weighted(&[(0, 1, 1.0), (1, 2, -2.0), (2, 3, 1.0)], false);
        let e = AsyncEngine::open(neg.graph.clone(), Default::default()).unwrap();
        let err = e.run(|r| run_async(r, &c)).unwrap_err().to_string();
        assert!(err.contains("1 -> 2 has weight -2"), "{err}");
    }
}
