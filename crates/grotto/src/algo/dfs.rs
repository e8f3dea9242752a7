//! Pseudo depth-first search by stack splitting (CAVE 4.7): visits every
//! vertex reachable from a source exactly once, depth-first along each of
//! several stacks explored at the same time.
//!
//! It starts with one stack holding the source. In each round every stack
//! pops entries until it finds an unvisited vertex and visits it (numbering
//! visits in round order, stack by stack); the engine then reads the
//! round's vertices together (up to `max_stacks` block reads at once) and
//! each pushes its unvisited neighbours onto its own stack, in reverse so
//! the smallest id is explored first. After the round, a stack longer than
//! `split_threshold` gives its bottom half (the oldest, shallowest
//! entries) to a new stack, while there are fewer than `max_stacks`. With a
//! target, the search stops when the target is visited.
//!
//! The verifier checks that the visited set is what a serial BFS reaches
//! (or, when stopping at a target, part of it and containing the target),
//! that visit numbers are distinct, and that every visited vertex but the
//! source was pushed by an earlier-visited vertex with an edge to it.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting, SEED, SOURCE};
use super::{fail, Verdict, NONE};
use crate::engine::{Frontier, Run};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::Arc;
use std::sync::Mutex;

/// Settings of a pseudo-DFS.
#[derive(Clone, Debug)]
pub struct DfsConfig {
    /// Start vertex.
    pub source: VertexId,
    /// Stop when this vertex is visited.
    pub target: Option<VertexId>,
    /// A stack longer than this is split in two (default 32).
    pub split_threshold: usize,
    /// Most stacks explored at once (default 32, the CLI uses the engine's
    /// concurrency so a round keeps k_r reads in flight).
    pub max_stacks: usize,
}

impl DfsConfig {
    /// Defaults for a search from `source`.
    pub fn new(source: VertexId) -> DfsConfig {
        DfsConfig {
            source,
            target: None,
            split_threshold: 32,
            max_stacks: 32,
        }
    }
}

/// Visit numbers and discovering vertices, in internal ids.
#[derive(Clone, Debug)]
pub struct DfsResult {
    /// The source.
    pub source: VertexId,
    /// The target, if one was given.
    pub target: Option<VertexId>,
    /// Visit number per vertex ([`NONE`]: not visited).
    pub order: Vec<u32>,
    /// The vertex whose neighbour list led to each visited vertex (the
    /// source's is itself; [`NONE`]: not visited).
    pub parent: Vec<VertexId>,
    /// Vertices visited.
    pub visited: u64,
    /// Whether the target was visited.
    pub found: bool,
    /// Rounds run.
    pub rounds: u64,
    /// Most stacks alive at once.
    pub peak_stacks: usize,
}

/// Runs the search on the engine.
pub fn run(r: &mut Run<'_>, cfg: &DfsConfig) -> Result<DfsResult> {
    if cfg.max_stacks == 0 || cfg.split_threshold < 2 {
        return Err(Error::Invalid(
            "--stacks must be at least 1 and --split-threshold at least 2".into(),
        ));
    }
    let n = r.vertex_count() as usize;
    let mut order = vec![NONE; n];
    let mut parent = vec![NONE; n];
    let mut stacks: Vec<Mutex<Vec<(VertexId, VertexId)>>> =
        vec![Mutex::new(vec![(cfg.source, cfg.source)])];
    let (mut visited, mut rounds, mut found, mut peak) = (0u32, 0u64, false, 1usize);
    let mut round: Vec<(VertexId, u32)> = Vec::new();
    while !found {
        stacks.retain_mut(|s| !lock(s).is_empty());
        round.clear();
        for (si, s) in stacks.iter_mut().enumerate() {
            let st = lock(s);
            while let Some((v, from)) = st.pop() {
                if order[v as usize] == NONE {
                    order[v as usize] = visited;
                    parent[v as usize] = from;
                    visited += 1;
                    round.push((v, si as u32));
                    found |= Some(v) == cfg.target;
                    break;
                }
            }
            if found {
                break;
            }
        }
        if round.is_empty() || found {
            break;
        }
        rounds += 1;
        round.sort_unstable();
        let vs: Vec<VertexId> = round.iter().map(|p| p.0).collect();
        let (order_ref, round_ref, stacks_ref) = (&order, &round, &stacks);
        r.step(&Frontier::Sparse(vs), Direction::Out, |v, edges, _| {
            let i = round_ref.partition_point(|p| p.0 < v);
            let si = round_ref[i].1 as usize;
            let mut st = stacks_ref[si].lock().unwrap_or_else(|p| p.into_inner());
            for &u in edges.ids.iter().rev() {
                if order_ref[u as usize] == NONE {
                    st.push((u, v));
                }
            }
        })?;
        let mut i = 0;
        while i < stacks.len() && stacks.len() < cfg.max_stacks {
            let st = lock(&mut stacks[i]);
            if st.len() > cfg.split_threshold {
                let bottom: Vec<_> = st.drain(..st.len() / 2).collect();
                stacks.push(Mutex::new(bottom));
            } else {
                i += 1;
            }
        }
        peak = peak.max(stacks.len());
    }
    Ok(DfsResult {
        source: cfg.source,
        target: cfg.target,
        order,
        parent,
        visited: visited as u64,
        found,
        rounds,
        peak_stacks: peak,
    })
}

fn lock<T>(m: &mut Mutex<T>) -> &mut T {
    m.get_mut().unwrap_or_else(|p| p.into_inner())
}

/// Checks `res` on the out-edges `g`.
// Verifiers index several per-vertex arrays by the same vertex.
#[allow(clippy::needless_range_loop)]
pub fn verify(g: &Csr, res: &DfsResult) -> Verdict {
    let reach = g.bfs_depths(res.source);
    let n = g.vertex_count() as usize;
    let mut seen = vec![false; res.visited as usize];
    for v in 0..n {
        let o = res.order[v];
        let reachable = reach[v] != u32::MAX;
        if o == NONE {
            if reachable && !res.found {
                fail!("vertex {v} is reachable but was not visited");
            }
            continue;
        }
        if !reachable {
            fail!(
                "vertex {v} was visited but is not reachable from {}",
                res.source
            );
        }
        if o as u64 >= res.visited || std::mem::replace(&mut seen[o as usize], true) {
            fail!("visit number {o} of vertex {v} is out of range or repeated");
        }
        if v as VertexId == res.source {
            if o != 0 {
                fail!("the source was visited {o}th, not first");
            }
            continue;
        }
        let p = res.parent[v];
        if p == NONE || res.order[p as usize] == NONE || res.order[p as usize] >= o {
            fail!("vertex {v} (visit {o}) was not reached from an earlier-visited vertex (parent {p})");
        }
        if !g.has_edge(p, v as VertexId) {
            fail!("vertex {v}'s discoverer {p} has no edge to it");
        }
    }
    if let Some(t) = res.target {
        let reachable = reach[t as usize] != u32::MAX;
        if res.found != (res.order[t as usize] != NONE) || reachable != res.found {
            fail!(
                "target {t}: reachable {reachable}, reported found {}",
                res.found
            );
        }
    }
    Ok(())
}

impl DfsResult {
    /// Per-vertex `vertex,order,parent` in the user's ids (-1: unvisited).
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("order", Values::Count(self.order));
        t.push("parent", Values::Vertex(self.parent));
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self, g: &Graph) -> serde_json::Value {
        let mut j = serde_json::json!({
            "source": g.label(self.source),
            "visited": self.visited,
            "rounds": self.rounds,
            "peak_stacks": self.peak_stacks,
        });
        if let Some(t) = self.target {
            j["target"] = g.label(t);
            j["found"] = self.found.into();
        }
        j
    }
}

/// Pseudo-DFS as a registered algorithm (`grotto run dfs`).
pub struct Dfs;

impl Algorithm for Dfs {
    const NAME: &'static str = "dfs";
    const ABOUT: &'static str =
        "Pseudo depth-first search by stack splitting: visit order and discovering vertex.";
    const PARAMS: &'static [Param] = &[
        SOURCE,
        Param::optional("target", Kind::Vertex, "Stop when this vertex is visited."),
        SEED,
        Param::with_default(
            "split-threshold",
            Kind::Int,
            "32",
            "Split a stack longer than this in two.",
        ),
        Param::optional(
            "stacks",
            Kind::Int,
            "Most stacks explored at once (default: the concurrency).",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = DfsConfig;
    type Output = DfsResult;

    /// Only the synchronous engine runs it.
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, p: &Params, s: &Setting) -> Result<DfsConfig> {
        Ok(DfsConfig {
            source: p.source(g)?,
            target: p.vertex(g, "target")?,
            split_threshold: p.opt_usize("split-threshold")?.unwrap_or(32),
            max_stacks: p.opt_usize("stacks")?.unwrap_or(s.concurrency),
        })
    }
    fn config_json(g: &Graph, p: &Params, c: &DfsConfig) -> Result<serde_json::Value> {
        Ok(
            serde_json::json!({"source": g.label(c.source), "seed": p.u64("seed")?,
            "split_threshold": c.split_threshold, "stacks": c.max_stacks}),
        )
    }
    fn run_sync(r: &mut Run<'_>, c: &DfsConfig) -> Result<DfsResult> {
        run(r, c)
    }
    fn verify(_: &Graph, csr: &Csr, _: &DfsConfig, out: &DfsResult) -> Verdict {
        verify(csr, out)
    }
    fn table(g: &Arc<Graph>, out: DfsResult) -> Table {
        out.into_table(g)
    }
    fn summary(g: &Graph, out: &DfsResult) -> serde_json::Value {
        out.summary(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;

    #[test]
    fn visits_the_reachable_set_once_in_every_configuration() {
        for tg in [
            testkit::rmat(10, 6, 11, true),
            testkit::rmat(10, 4, 12, false),
            testkit::grid(15, 20),
            testkit::star(2500),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let s = super::super::pick_source(&tg.graph, 2).unwrap();
            for ecfg in testkit::configs() {
                let e = crate::engine::SyncEngine::open(tg.graph.clone(), ecfg.clone()).unwrap();
                for (thr, stacks) in [(4, 8), (32, 1), (1000, 64)] {
                    let cfg = DfsConfig {
                        split_threshold: thr,
                        max_stacks: stacks,
                        ..DfsConfig::new(s)
                    };
                    let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
                    verify(&csr, &res).unwrap_or_else(|e| panic!("{ecfg:?} {thr}/{stacks}: {e}"));
                    assert!(res.peak_stacks <= stacks);
                }
            }
        }
    }

    #[test]
    fn stops_at_the_target() {
        let tg = testkit::grid(20, 20);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let cfg = DfsConfig {
            target: Some(21),
            ..DfsConfig::new(0)
        };
        let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
        assert!(res.found && res.order[21] != NONE);
        assert!(res.visited < 400);
        verify(&csr, &res).unwrap();
    }
}
