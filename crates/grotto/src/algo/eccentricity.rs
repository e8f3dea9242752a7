//! Eccentricity of a source and a lower bound on the diameter by BFS
//! sweeps.
//!
//! The eccentricity of `s` is the largest BFS depth among the vertices `s`
//! reaches (following out-edges; unreached vertices do not count). With
//! more than one sweep, each next BFS starts from a vertex the previous
//! one reached last (the smallest id among the farthest), the double-sweep
//! heuristic: the largest eccentricity found is a lower bound on the
//! diameter of the reached part, and on real graphs is usually the
//! diameter itself. Every sweep is a BFS ([`super::bfs`]) on the same run,
//! so later sweeps find the blocks the earlier ones left in the pool.
//!
//! This file is also the example of adding an algorithm: it and one line
//! in [`super::ALGORITHMS`] (with its `pub mod` line) put it on the
//! command line as `grotto run eccentricity`.

use super::bfs::{self, BfsConfig, BfsResult};
use super::output::Table;
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting, SEED, SOURCE};
use super::{fail, Verdict};
use crate::engine::{AsyncRun, Run};
use crate::error::{Error, Result};
use crate::store::Graph;
use crate::VertexId;
use std::sync::Arc;

/// Settings of the sweeps.
#[derive(Clone, Debug)]
pub struct EccentricityConfig {
    /// Where the first sweep starts.
    pub source: VertexId,
    /// BFS sweeps (at least 1; default 1, 2 for the double sweep).
    pub sweeps: u32,
}

/// One BFS sweep's start and what it found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// Where the sweep started.
    pub start: VertexId,
    /// The start's eccentricity.
    pub eccentricity: u32,
    /// The smallest id among the vertices at that depth.
    pub farthest: VertexId,
}

/// The sweeps' findings, in internal ids.
#[derive(Clone, Debug)]
pub struct EccentricityResult {
    /// Depth of every vertex from the source (the first sweep);
    /// `u32::MAX` when unreached.
    pub depth: super::bfs::Depths,
    /// Vertices the source reaches, itself included.
    pub reached: u64,
    /// Every sweep in order; the first starts at the source.
    pub sweeps: Vec<Sweep>,
}

impl EccentricityResult {
    /// The largest eccentricity over the sweeps: a lower bound on the
    /// diameter of the part of the graph the sweeps reached.
    pub fn diameter_lower_bound(&self) -> u32 {
        self.sweeps
            .iter()
            .map(|s| s.eccentricity)
            .max()
            .unwrap_or(0)
    }
}

/// The eccentricity of a BFS's source and the first farthest vertex.
fn sweep_of(res: &BfsResult) -> Sweep {
    let mut s = Sweep {
        start: res.source,
        eccentricity: 0,
        farthest: res.source,
    };
    for (v, d) in res.depth.iter().enumerate() {
        if d != u32::MAX && d > s.eccentricity {
            s.eccentricity = d;
            s.farthest = v as VertexId;
        }
    }
    s
}

/// Runs the sweeps with `bfs` (one engine's BFS).
fn sweeps(
    cfg: &EccentricityConfig,
    mut bfs: impl FnMut(&BfsConfig) -> Result<BfsResult>,
) -> Result<EccentricityResult> {
    if cfg.sweeps == 0 {
        return Err(Error::Invalid("--sweeps must be at least 1".into()));
    }
    let first = bfs(&BfsConfig {
        source: cfg.source,
        first_parents: false,
        direction: super::bfs::BfsDirection::Auto,
    })?;
    let mut found = vec![sweep_of(&first)];
    // A sweep's start decides it, and its farthest vertex the next
    // start: once a start comes round again, the sweeps from it repeat
    // those from its first time, and are copied rather than run.
    let mut ran: std::collections::HashMap<VertexId, usize> = [(cfg.source, 0)].into();
    for _ in 1..cfg.sweeps {
        let from = found[found.len() - 1].farthest;
        let next = match ran.get(&from) {
            Some(&i) => found[i],
            None => {
                ran.insert(from, found.len());
                sweep_of(&bfs(&BfsConfig {
                    source: from,
                    first_parents: false,
                    direction: super::bfs::BfsDirection::Auto,
                })?)
            }
        };
        found.push(next);
    }
    Ok(EccentricityResult {
        reached: first.reached,
        depth: first.depth,
        sweeps: found,
    })
}

/// Eccentricity as a registered algorithm (`grotto run eccentricity`).
pub struct Eccentricity;

impl Algorithm for Eccentricity {
    const NAME: &'static str = "eccentricity";
    const ABOUT: &'static str = "Eccentricity of a source, and with --sweeps 2 or more a lower bound on the diameter (BFS from the farthest vertex found).";
    const PARAMS: &'static [Param] = &[
        SOURCE,
        SEED,
        Param::with_default(
            "sweeps",
            Kind::Int,
            "1",
            "BFS sweeps; each after the first starts at the farthest vertex the previous one reached.",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = true;
    type Config = EccentricityConfig;
    type Output = EccentricityResult;

    /// Whichever engine BFS prefers on `g`.
    fn preferred(g: &Graph) -> EngineKind {
        bfs::Bfs::preferred(g)
    }
    /// Refuses more sweeps than vertices: by then some start has come
    /// round again, and every later sweep repeats an earlier one.
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<EccentricityConfig> {
        let sweeps = p.u32("sweeps")?;
        let n = g.vertex_count();
        if sweeps as u64 > n.max(1) {
            return Err(Error::Invalid(format!(
                "--sweeps {sweeps} is more than the graph's {n} vertices: each sweep starts at \
                 the farthest vertex of the one before, so after {n} sweeps a start comes round \
                 again and no sweep finds anything new; give at most {n} (2 is the double sweep)",
                n = n.max(1)
            )));
        }
        Ok(EccentricityConfig {
            source: p.source(g)?,
            sweeps,
        })
    }
    fn config_json(g: &Graph, p: &Params, c: &EccentricityConfig) -> Result<serde_json::Value> {
        Ok(
            serde_json::json!({"source": g.label(c.source), "seed": p.u64("seed")?,
            "sweeps": c.sweeps}),
        )
    }
    fn run_sync(r: &mut Run<'_>, c: &EccentricityConfig) -> Result<EccentricityResult> {
        sweeps(c, |b| bfs::run(r, b))
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &EccentricityConfig) -> Result<EccentricityResult> {
        sweeps(c, |b| bfs::run_async(r, b))
    }

    /// Each sweep's start is the previous sweep's farthest vertex, and
    /// its eccentricity and farthest vertex are a serial BFS's; the depths
    /// are the first serial BFS's.
    fn verify(_: &Graph, csr: &Csr, c: &EccentricityConfig, out: &EccentricityResult) -> Verdict {
        if out.sweeps.len() != c.sweeps as usize {
            fail!(
                "{} sweeps ran, {} were asked for",
                out.sweeps.len(),
                c.sweeps
            );
        }
        let mut start = c.source;
        for (i, s) in out.sweeps.iter().enumerate() {
            if s.start != start {
                fail!("sweep {i} started at {}, not at {start}", s.start);
            }
            let want = csr.bfs_depths(start);
            if i == 0 && want != out.depth.to_vec() {
                fail!("the depths from the source differ from a serial BFS's");
            }
            let ecc = want.iter().filter(|&&d| d != u32::MAX).max().copied();
            let far = want.iter().position(|&d| Some(d) == ecc);
            if Some(s.eccentricity) != ecc || far != Some(s.farthest as usize) {
                fail!(
                    "sweep {i} from {start}: eccentricity {} at {}, serial BFS says {ecc:?} at {far:?}",
                    s.eccentricity,
                    s.farthest
                );
            }
            start = s.farthest;
        }
        Ok(())
    }

    fn table(g: &Arc<Graph>, out: EccentricityResult) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("depth", out.depth.into_values());
        t
    }

    fn summary(g: &Graph, out: &EccentricityResult) -> serde_json::Value {
        let first = out.sweeps[0];
        serde_json::json!({
            "source": g.label(first.start),
            "eccentricity": first.eccentricity,
            "farthest": g.label(first.farthest),
            "reached": out.reached,
            "diameter_lower_bound": out.diameter_lower_bound(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::registry::{Entry, Plan, Registered};
    use crate::engine::Engine;
    use crate::testkit;

    /// On a 30x40 grid the corner's eccentricity is 29 + 39, and the
    /// double sweep finds the diameter, on both engines.
    #[test]
    fn grid_corner_and_double_sweep_on_both_engines() {
        let tg = testkit::grid(30, 40);
        let entry = Entry::<Eccentricity>::NEW;
        for kind in [EngineKind::Sync, EngineKind::Async] {
            for cfg in testkit::configs().into_iter().take(3) {
                let e = Engine::open(kind, tg.graph.clone(), cfg).unwrap();
                let mut p = Params::new(Eccentricity::PARAMS);
                p.set("source", &tg.graph.original_id(45).to_string())
                    .unwrap();
                p.set("sweeps", "3").unwrap();
                let plan = Plan {
                    engine: kind,
                    rounds: false,
                };
                let o = entry.execute(&e, &plan, &p, true).unwrap();
                assert_eq!(o.verdict, Some(Ok(())), "{kind:?}");
                assert_eq!(o.summary["diameter_lower_bound"], 29 + 39);
                assert_eq!(o.table.rows(), 1200);
            }
        }
    }

    #[test]
    fn verifier_catches_a_wrong_eccentricity() {
        let tg = testkit::grid(5, 5);
        let csr = Csr::load(&tg.graph, crate::store::Direction::Out).unwrap();
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let c = EccentricityConfig {
            source: 0,
            sweeps: 2,
        };
        let (mut res, _) = e.run(|r| Eccentricity::run_sync(r, &c)).unwrap();
        assert_eq!(Eccentricity::verify(&tg.graph, &csr, &c, &res), Ok(()));
        res.sweeps[1].eccentricity -= 1;
        assert!(Eccentricity::verify(&tg.graph, &csr, &c, &res).is_err());
    }
}
