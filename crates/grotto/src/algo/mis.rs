//! Maximal independent set of an undirected graph, in the asynchronous
//! engine's synchronous (rounds) mode.
//!
//! Blelloch, Fineman and Shun's parallel greedy MIS: every vertex gets a
//! seeded random rank; the result is exactly the set the serial greedy
//! algorithm builds by scanning vertices in rank order, whatever the
//! threads or the schedule. A first pass counts, for every vertex, its
//! neighbours of smaller rank. Vertices with none join the set. Then, in
//! rounds: a vertex that joined knocks its undecided neighbours out; a
//! vertex knocked out tells its neighbours of larger rank, and a vertex
//! whose count of undecided smaller-rank neighbours reaches zero joins.
//! Each vertex is decided once and its list read once after the count,
//! so the graph is read twice; the number of rounds is the longest chain
//! of dependencies, O(log^2 n) with high probability.
//!
//! The verifier checks independence, maximality, and equality with the
//! serial greedy set of the same ranks.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{fail, need_undirected, Verdict};
use crate::engine::{AsyncRun, Flow, Priority, Seeds};
use crate::error::Result;
use crate::rng::Rng;
use crate::store::Graph;
use crate::VertexId;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

/// Settings of MIS.
#[derive(Clone, Debug)]
pub struct MisConfig {
    /// Seed of the random ranks.
    pub seed: u64,
}

/// The set, in internal ids.
#[derive(Clone, Debug)]
pub struct MisResult {
    /// Per vertex: whether it is in the set.
    pub in_set: Vec<bool>,
    /// Vertices in the set.
    pub size: u64,
    /// Rounds run after the counting pass.
    pub rounds: u64,
}

const UNDECIDED: u8 = 0;
const IN: u8 = 1;
const OUT: u8 = 2;

/// The rank of `v`: a seeded hash of its place in the user's order
/// (`user`), so that a seed gives the same set whatever the file's
/// vertex order; ties broken by id.
pub fn rank(seed: u64, user: u32, v: VertexId) -> (u64, VertexId) {
    (Rng::new(seed, user as u64).next_u64(), v)
}

/// A vertex's rank travels with its messages; a neighbour's rank is
/// computed where it is needed (a hash: no 16-byte-per-vertex table to
/// miss in).
#[derive(Clone, Copy)]
enum Msg {
    Count((u64, VertexId)),
    Joined,
    Out((u64, VertexId)),
}

/// Runs MIS on the asynchronous engine.
pub fn run_async(r: &mut AsyncRun<'_>, cfg: &MisConfig) -> Result<MisResult> {
    need_undirected(r.graph(), "a maximal independent set")?;
    let n = r.vertex_count();
    let seed = cfg.seed;
    let g = r.graph();
    // Ranks are looked up per edge: the order in memory.
    g.load_order()?;
    let rank = |seed, v| rank(seed, g.rank(v), v);
    let smaller: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let state: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(UNDECIDED)).collect();
    // Count each vertex's smaller-rank neighbours from its own list (the
    // graph is undirected): one add per run, to the vertex's own counter.
    r.flow_runs(
        &Flow::default(),
        Seeds::All(Priority::FIRST),
        |v| Some(Msg::Count(rank(seed, v))),
        |m, nb, _| {
            if let Msg::Count(rv) = m {
                let below = nb
                    .ids
                    .iter()
                    .filter(|&&u| u != rv.1 && rank(seed, u) < rv)
                    .count();
                if below > 0 {
                    smaller[rv.1 as usize].fetch_add(below as u32, Relaxed);
                }
            }
        },
    )?;
    let roots: Vec<(VertexId, Priority)> = (0..n as VertexId)
        .filter(|&v| smaller[v as usize].load(Relaxed) == 0)
        .map(|v| {
            state[v as usize].store(IN, Relaxed);
            (v, Priority::FIRST)
        })
        .collect();
    let before = rounds_so_far(r);
    let flow = Flow {
        rounds: true,
        ..Flow::default()
    };
    r.flow(
        &flow,
        Seeds::List(&roots),
        |v| match state[v as usize].load(Relaxed) {
            IN => Some(Msg::Joined),
            OUT => Some(Msg::Out(rank(seed, v))),
            _ => None,
        },
        |m, e| {
            let d = e.dst as usize;
            match m {
                Msg::Joined => state[d]
                    .compare_exchange(UNDECIDED, OUT, Relaxed, Relaxed)
                    .is_ok()
                    .then_some(Priority::FIRST),
                Msg::Out(rv) => {
                    if e.dst != rv.1
                        && rv < rank(seed, e.dst)
                        && smaller[d].fetch_sub(1, Relaxed) == 1
                        && state[d]
                            .compare_exchange(UNDECIDED, IN, Relaxed, Relaxed)
                            .is_ok()
                    {
                        Some(Priority::FIRST)
                    } else {
                        None
                    }
                }
                Msg::Count(_) => None,
            }
        },
    )?;
    let rounds = rounds_so_far(r) - before;
    let in_set: Vec<bool> = state.iter().map(|s| s.load(Relaxed) == IN).collect();
    let size = in_set.iter().filter(|&&x| x).count() as u64;
    Ok(MisResult {
        in_set,
        size,
        rounds,
    })
}

fn rounds_so_far(r: &AsyncRun<'_>) -> u64 {
    r.rounds()
}

/// The serial greedy set: vertices in rank order, each joining unless a
/// neighbour already did.
pub fn serial(g: &Csr, seed: u64, user: &dyn Fn(VertexId) -> u32) -> Vec<bool> {
    let n = g.vertex_count() as usize;
    let mut order: Vec<VertexId> = (0..n as VertexId).collect();
    order.sort_by_key(|&v| rank(seed, user(v), v));
    let mut in_set = vec![false; n];
    let mut blocked = vec![false; n];
    for v in order {
        if blocked[v as usize] {
            continue;
        }
        in_set[v as usize] = true;
        for &u in g.neighbors(v) {
            blocked[u as usize] = true;
        }
    }
    in_set
}

/// Checks independence, maximality and equality with the serial greedy
/// set (`user` gives each vertex's place in the user's order, which the
/// ranks hash).
pub fn verify(g: &Csr, seed: u64, user: &dyn Fn(VertexId) -> u32, res: &MisResult) -> Verdict {
    let n = g.vertex_count() as usize;
    for v in 0..n {
        let nb = g.neighbors(v as VertexId);
        if res.in_set[v] {
            if let Some(&u) = nb
                .iter()
                .find(|&&u| u as usize != v && res.in_set[u as usize])
            {
                fail!("vertices {v} and {u} are both in the set and adjacent");
            }
        } else if !nb.iter().any(|&u| res.in_set[u as usize]) {
            fail!("vertex {v} is outside the set with no neighbour in it: not maximal");
        }
    }
    let want = serial(g, seed, user);
    if let Some(v) = (0..n).find(|&v| want[v] != res.in_set[v]) {
        fail!(
            "vertex {v}: serial greedy by the same ranks says in the set: {}",
            want[v]
        );
    }
    Ok(())
}

impl MisResult {
    /// Per-vertex `vertex,in_set` (1 or 0) in the user's ids.
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("in_set", Values::Bool(self.in_set));
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self) -> serde_json::Value {
        serde_json::json!({ "set_size": self.size, "rounds": self.rounds })
    }
}

/// MIS as a registered algorithm (`grotto run mis`).
pub struct Mis;

impl Algorithm for Mis {
    const NAME: &'static str = "mis";
    const ABOUT: &'static str = "Maximal independent set: the greedy set by seeded random ranks (undirected graphs; async engine, rounds mode).";
    const PARAMS: &'static [Param] = &[Param::with_default(
        "seed",
        Kind::Int,
        "1",
        "Seed of the ranks.",
    )];
    const SYNC: OnSync = OnSync::Unsupported;
    const ASYNC: bool = true;
    type Config = MisConfig;
    type Output = MisResult;

    /// Only the asynchronous engine runs it.
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Async
    }
    fn config(_: &Graph, p: &Params, _: &Setting) -> Result<MisConfig> {
        Ok(MisConfig {
            seed: p.u64("seed")?,
        })
    }
    fn config_json(_: &Graph, _: &Params, c: &MisConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({"seed": c.seed}))
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &MisConfig) -> Result<MisResult> {
        run_async(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, c: &MisConfig, out: &MisResult) -> Verdict {
        g.load_order().map_err(|e| super::Mismatch(e.to_string()))?;
        verify(csr, c.seed, &|v| g.rank(v), out)
    }
    fn table(g: &Arc<Graph>, out: MisResult) -> Table {
        out.into_table(g)
    }
    fn summary(_: &Graph, out: &MisResult) -> serde_json::Value {
        out.summary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::AsyncEngine;
    use crate::store::Direction;
    use crate::testkit;

    #[test]
    fn equals_serial_greedy_in_every_configuration() {
        for tg in [
            testkit::rmat(11, 8, 3, true),
            testkit::grid(20, 30),
            testkit::star(3000),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            for cfg in testkit::configs() {
                let e = AsyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
                for seed in [1, 7] {
                    let (res, _) = e.run(|r| run_async(r, &MisConfig { seed })).unwrap();
                    verify(&csr, seed, &|v| tg.graph.rank(v), &res)
                        .unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
                }
            }
        }
    }

    #[test]
    fn verifier_catches_a_dependent_set() {
        let tg = testkit::grid(5, 5);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let e = AsyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let (mut res, _) = e.run(|r| run_async(r, &MisConfig { seed: 3 })).unwrap();
        verify(&csr, 3, &|v| v, &res).unwrap();
        let v = res.in_set.iter().position(|&x| !x).unwrap();
        res.in_set[v] = true;
        assert!(verify(&csr, 3, &|v| v, &res).is_err());
    }
}
