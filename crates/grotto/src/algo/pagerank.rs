//! PageRank by power iteration, one whole-graph sweep per iteration.
//!
//! Standard semantics (the default, as `networkx.pagerank`): scores start
//! at 1/N; each iteration gives every vertex `(1 - d)/N`, plus `d` times
//! the sum of `score(u)/outdeg(u)` over its in-neighbours `u`, plus `d/N`
//! times the total score of vertices without out-edges (dangling mass is
//! spread uniformly), so scores always sum to 1. Iteration stops when the
//! L1 change of an iteration is below `tolerance` (stricter than networkx,
//! which stops at `N * tolerance`); the distance to the exact fixed point
//! is then at most `tolerance * d / (1 - d)`.
//!
//! GAP semantics (`--semantics gap`): the same without dangling
//! redistribution, as in the GAP Benchmark Suite's `pr` kernel.
//!
//! Sweeps (`--method`): Jacobi reads the previous iteration's scores
//! (networkx's power iteration; the same scores on any number of
//! threads); Gauss-Seidel reads each new score as soon as it is written
//! (GAP's `pr`), which on graphs whose slow modes are smooth (road
//! networks, meshes) converges at about Jacobi's rate squared: 54
//! iterations to 27 on a 1000x1000 road grid, but 17 to 43 on R-MAT. The
//! default, `auto`, starts with Jacobi and turns to Gauss-Seidel when
//! Jacobi's change shrinks by less than [`GS_SWITCH_RATIO`] an iteration
//! (and back for good if Gauss-Seidel does worse than Jacobi's worst
//! case), except with a tolerance below [`FIXED_ITERATIONS_TOLERANCE`]:
//! that asks for a fixed number of power iterations (Graphalytics,
//! GraphX), which are Jacobi's. Both stop by the same rule and within the same bound; with
//! Gauss-Seidel the result depends, within it, on the order the threads
//! take the blocks.
//!
//! Weighted (`--weighted`, networkx's `weight=`): `u` gives each
//! out-neighbour `v` the share `w(u, v) / W(u)` of its score instead of
//! `1 / outdeg(u)`, `W(u)` the sum of its out-weights; a vertex whose
//! out-weights sum to 0 is dangling. Weights must be finite and not
//! negative. It runs on the async engine (the only one that reads
//! weights), after one pass that sums each vertex's out-weights.
//!
//! Pull on the in-edges (reverse edges of a directed graph, the edges of
//! an undirected one): each vertex sums its in-neighbours' contributions,
//! with no write shared between threads except for lists longer than one
//! block. A directed graph without reverse edges is run push-style on the
//! out-edges with atomic additions.
//!
//! Contributions (`score(u)/outdeg(u)`, the values every edge reads) are
//! kept as f32 when the tolerance allows (`--contributions auto`, the
//! default: from a tolerance of [`F32_TOLERANCE`] up). The gather over
//! in-neighbours is the whole cost of an iteration and its reads are
//! random; half the bytes per vertex keep twice as many of them in cache
//! (rmat scale 22: 1.3x faster, `docs/engine.md`). Sums stay in f64.
//! Rounding a contribution to f32 errs by at most 2^-24 of it, so an
//! iteration errs by at most `d 2^-24` in L1 (scores sum to 1), a
//! sixteenth of the smallest tolerance that gets f32; the distance to the
//! exact fixed point grows by at most `2^-24 (1 + d/(1 - d))`. With
//! standard semantics each iteration gives back what rounding lost as part
//! of the uniform share, so scores still sum to 1.
//!
//! The verifier runs a serial power iteration to a tolerance 1000 times
//! tighter and bounds the L1 distance.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{fail, in_direction, AtomicF64, Verdict};
use crate::engine::{AsyncRun, AtomicBitmap, Frontier, Run};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

/// Which PageRank definition to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Semantics {
    /// networkx's: dangling mass redistributed, scores sum to 1.
    Standard,
    /// GAP's: no dangling redistribution.
    Gap,
}

impl std::str::FromStr for Semantics {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Semantics, String> {
        match s {
            "standard" | "networkx" => Ok(Semantics::Standard),
            "gap" => Ok(Semantics::Gap),
            _ => Err(format!("semantics \"{s}\": expected standard or gap")),
        }
    }
}

/// How contributions are stored during the pull iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// f32 from a tolerance of [`F32_TOLERANCE`] up, else f64.
    Auto,
    /// f32: half the memory traffic, rounding error below 2^-24 per value.
    F32,
    /// f64.
    F64,
}

/// The smallest tolerance `Precision::Auto` runs with f32 contributions:
/// sixteen times the most an iteration's rounding can move the scores.
pub const F32_TOLERANCE: f64 = 16.0 / (1u64 << 24) as f64;

impl std::str::FromStr for Precision {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Precision, String> {
        match s {
            "auto" => Ok(Precision::Auto),
            "f32" => Ok(Precision::F32),
            "f64" => Ok(Precision::F64),
            _ => Err(format!("contributions \"{s}\": expected auto, f32 or f64")),
        }
    }
}

impl Precision {
    /// `F32` or `F64`, `Auto` decided by `tolerance`.
    pub fn resolve(self, tolerance: f64) -> Precision {
        match self {
            Precision::Auto if tolerance >= F32_TOLERANCE => Precision::F32,
            Precision::Auto => Precision::F64,
            p => p,
        }
    }

    /// Relative rounding error of one stored contribution.
    fn rounding(self) -> f64 {
        if self == Precision::F32 {
            1.0 / (1u64 << 24) as f64
        } else {
            0.0
        }
    }

    fn name(self) -> &'static str {
        match self {
            Precision::Auto => "auto",
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }
}

/// Settings of PageRank.
#[derive(Clone, Debug)]
pub struct PageRankConfig {
    /// Damping factor d (default 0.85).
    pub damping: f64,
    /// Stop when an iteration changes scores by less than this in L1
    /// (default 1e-6).
    pub tolerance: f64,
    /// Iteration cap (default 100).
    pub max_iterations: u32,
    /// Definition (default standard).
    pub semantics: Semantics,
    /// Contributions' storage in the pull iteration (default auto).
    pub contributions: Precision,
    /// Shares proportional to edge weights (default no; async engine).
    pub weighted: bool,
    /// Jacobi or Gauss-Seidel sweeps (default auto; the pull iteration
    /// only: push and weighted runs are Jacobi).
    pub method: Method,
}

impl Default for PageRankConfig {
    fn default() -> PageRankConfig {
        PageRankConfig {
            damping: 0.85,
            tolerance: 1e-6,
            max_iterations: 100,
            semantics: Semantics::Standard,
            contributions: Precision::Auto,
            weighted: false,
            method: Method::Auto,
        }
    }
}

/// Scores, in internal ids.
#[derive(Clone, Debug)]
pub struct PageRankResult {
    /// Score per vertex.
    pub score: Vec<f64>,
    /// Iterations run.
    pub iterations: u32,
    /// L1 change of the last iteration.
    pub last_change: f64,
    /// Whether the change fell below the tolerance.
    pub converged: bool,
    /// "pull" or "push".
    pub style: &'static str,
    /// How contributions were stored: `F32` or `F64`.
    pub contributions: Precision,
    /// Iterations run as Gauss-Seidel sweeps (the others were Jacobi).
    pub gauss_seidel: u32,
}

fn check(cfg: &PageRankConfig) -> Result<()> {
    if !(cfg.damping > 0.0 && cfg.damping < 1.0) {
        return Err(Error::Invalid(format!(
            "--damping {} must lie strictly between 0 and 1",
            cfg.damping
        )));
    }
    if !(cfg.tolerance > 0.0 && cfg.tolerance.is_finite()) {
        return Err(Error::Invalid(format!(
            "--tolerance {} must be a positive number",
            cfg.tolerance
        )));
    }
    Ok(())
}

/// A stored contribution: f64, or f32 (rounded on store).
trait Contribution: Sync + Send {
    fn zero() -> Self;
    fn get(&self) -> f64;
    fn set(&self, x: f64);
}

impl Contribution for AtomicF64 {
    fn zero() -> Self {
        AtomicF64::new(0.0)
    }
    #[inline]
    fn get(&self) -> f64 {
        self.load()
    }
    #[inline]
    fn set(&self, x: f64) {
        self.store(x)
    }
}

impl Contribution for AtomicU32 {
    fn zero() -> Self {
        AtomicU32::new(0)
    }
    #[inline]
    fn get(&self) -> f64 {
        f32::from_bits(self.load(Ordering::Relaxed)) as f64
    }
    #[inline]
    fn set(&self, x: f64) {
        self.store((x as f32).to_bits(), Ordering::Relaxed)
    }
}

/// Runs PageRank on the engine.
pub fn run(r: &mut Run<'_>, cfg: &PageRankConfig) -> Result<PageRankResult> {
    check(cfg)?;
    if cfg.weighted {
        return Err(Error::Invalid(
            "weighted PageRank runs on the asynchronous engine (the one that reads weights): \
             use --engine async (or auto)"
                .into(),
        ));
    }
    match cfg.contributions.resolve(cfg.tolerance) {
        Precision::F32 => run_with::<AtomicU32>(r, cfg, Precision::F32),
        _ => run_with::<AtomicF64>(r, cfg, Precision::F64),
    }
}

fn run_with<C: Contribution>(
    r: &mut Run<'_>,
    cfg: &PageRankConfig,
    contributions: Precision,
) -> Result<PageRankResult> {
    let n = r.vertex_count();
    let x: Vec<AtomicF64> = r.collect(|_| AtomicF64::new(1.0 / n as f64));
    let contrib: Vec<C> = r.collect(|_| C::zero());
    let pull = in_direction(r.graph());
    let (iterations, change, gauss_seidel) = match pull {
        Some(dir) => pull_iterations(r, cfg, dir, &x, &contrib)?,
        None => {
            let (i, c) = push_iterations(r, cfg, &x, &contrib)?;
            (i, c, 0)
        }
    };
    drop(contrib);
    Ok(PageRankResult {
        // In place: no second array of scores.
        score: x.into_iter().map(AtomicF64::into_inner).collect(),
        iterations,
        last_change: change,
        converged: change < cfg.tolerance,
        style: if pull.is_some() { "pull" } else { "push" },
        contributions,
        gauss_seidel,
    })
}

/// Sets every vertex's contribution `score / outdeg` and returns what
/// they add up to over all edges: the mass the next gather collects,
/// rounding of the stored contributions included. A vertex without
/// out-edges is in no list, so its slot keeps its score instead (what
/// [`old_score`] reads back after the scores are overwritten).
fn contribute<C: Contribution>(r: &Run<'_>, x: &[AtomicF64], contrib: &[C]) -> f64 {
    let out = r.graph().out();
    r.sum_f64(|v| contribute_one(out.degree(v), x[v as usize].load(), &contrib[v as usize]))
}

/// [`contribute`] for one vertex of out-degree `deg` and score `x`.
#[inline]
fn contribute_one<C: Contribution>(deg: u64, x: f64, c: &C) -> f64 {
    if deg == 0 {
        c.set(x);
        return 0.0;
    }
    c.set(x / deg as f64);
    deg as f64 * c.get()
}

/// The score `v` had when [`contribute`] ran: its contribution times its
/// out-degree, or the score kept in its slot. With f32 contributions it
/// errs by 2^-24 of the score at most (2^-24 in all, which the stopping
/// rule's bound already allows for: [`Precision::rounding`]).
#[inline]
fn old_score<C: Contribution>(deg: u64, c: &C) -> f64 {
    if deg == 0 {
        c.get()
    } else {
        c.get() * deg as f64
    }
}

/// The uniform share of an iteration that gathered `gathered` in all.
fn base(cfg: &PageRankConfig, n: u64, gathered: f64) -> f64 {
    let (d, nf) = (cfg.damping, n as f64);
    match cfg.semantics {
        // (1 - d)/N + d dangling/N in exact arithmetic (the gathered
        // mass is 1 - dangling); taken from what is gathered, the share
        // also gives back what rounding lost, and scores sum to 1.
        Semantics::Standard => (1.0 - d * gathered) / nf,
        Semantics::Gap => (1.0 - d) / nf,
    }
}

/// Pull iterations on the in-edges (`dir`): nothing but the scores and
/// contributions (12 or 16 bytes a vertex) is held. The uniform share is
/// known before the gather; a list handed over in pieces is summed in a
/// small map until its last piece; vertices without in-edges get the
/// share alone. After the gather one pass over the vertices gives those
/// without in-edges the share alone, sums the L1 change, and sets the next
/// iteration's contributions; its sums are taken in fixed chunks, so they
/// do not depend on the threads.
///
/// A Jacobi iteration writes each new score over the old one as soon as
/// its list is summed (the old one is read back from the contribution,
/// [`old_score`]). A Gauss-Seidel iteration writes the new contribution
/// instead, which the vertices summed later read, and leaves the old
/// score in place for the final pass, which reads the new one back from
/// the contribution. Its uniform share takes the dangling mass of the
/// scores the iteration started from; each neighbour is read either
/// before or after its update, so the residual of the new scores is at
/// most `d` times the L1 change, as for Jacobi, and the distance to the
/// fixed point at most `tolerance * d / (1 - d)`. Scores then sum to 1
/// only within that bound, so with standard semantics a last pass shifts
/// them by the same amount each to sum to 1 (at most doubling the bound).
/// Returns the iterations, the last change, and how many iterations were
/// Gauss-Seidel.
fn pull_iterations<C: Contribution>(
    r: &mut Run<'_>,
    cfg: &PageRankConfig,
    dir: Direction,
    x: &[AtomicF64],
    contrib: &[C],
) -> Result<(u32, f64, u32)> {
    let n = r.vertex_count();
    let d = cfg.damping;
    let adj = r.graph().adjacency(dir)?;
    let no_in = AtomicBitmap::new(n);
    r.for_each_vertex(|v| {
        if adj.degree(v) == 0 {
            no_in.insert(v as u64);
        }
    });
    let pieces: Mutex<HashMap<VertexId, (f64, u64)>> = Mutex::new(HashMap::new());
    let out = r.graph().out();
    let (mut iterations, mut change) = (0, f64::INFINITY);
    let mut gathered = contribute(r, x, contrib);
    let mut gs = cfg.method == Method::GaussSeidel;
    // The dangling mass a Gauss-Seidel share needs; every later one comes
    // from the pass after the gather (auto turns only after one).
    let mut dangling = match gs {
        true => r.sum_f64(|v| match out.degree(v) {
            0 => x[v as usize].load(),
            _ => 0.0,
        }),
        false => 0.0,
    };
    let mut switch = Switch::new(cfg);
    let mut gs_iterations = 0;
    while iterations < cfg.max_iterations && change >= cfg.tolerance {
        iterations += 1;
        let share = match gs {
            false => base(cfg, n, gathered),
            true => gs_share(cfg, n, dangling),
        };
        let settle = |v: VertexId, s: f64| {
            let new = share + d * s;
            match gs {
                false => x[v as usize].store(new),
                true => {
                    contribute_one(out.degree(v), new, &contrib[v as usize]);
                }
            }
        };
        r.step(&Frontier::all(n), dir, |v, edges, _| {
            let s: f64 = edges.ids.iter().map(|&u| contrib[u as usize].get()).sum();
            if edges.is_whole() {
                return settle(v, s);
            }
            let mut m = pieces.lock().unwrap_or_else(|p| p.into_inner());
            let e = m.entry(v).or_insert((0.0, 0));
            e.0 += s;
            e.1 += edges.ids.len() as u64;
            if e.1 >= edges.degree {
                let (s, _) = m.remove(&v).unwrap_or_default();
                drop(m);
                settle(v, s);
            }
        })?;
        let [c, g, dm] = r.sum_f64s(|v| {
            let (deg, c) = (out.degree(v), &contrib[v as usize]);
            let (new, old) = if gs {
                let new = match no_in.contains(v as u64) {
                    true => share,
                    false => old_score(deg, c),
                };
                (new, x[v as usize].swap(new))
            } else {
                let new = if no_in.contains(v as u64) {
                    settle(v, 0.0);
                    share
                } else {
                    x[v as usize].load()
                };
                (new, old_score(deg, c))
            };
            let g = contribute_one(deg, new, c);
            [(new - old).abs(), g, if deg == 0 { new } else { 0.0 }]
        });
        (change, gathered, dangling) = (c, g, dm);
        gs_iterations += gs as u32;
        gs = switch.next(gs, change);
    }
    if gs_iterations > 0 && cfg.semantics == Semantics::Standard {
        let shift = (1.0 - r.sum_f64(|v| x[v as usize].load())) / n as f64;
        r.for_each_vertex(|v| x[v as usize].store(x[v as usize].load() + shift));
    }
    Ok((iterations, change, gs_iterations))
}

/// Push iterations on the out-edges, for a directed graph without
/// reverse edges: every edge adds its source's contribution to its
/// target's sum (atomic additions), 8 more bytes a vertex.
fn push_iterations<C: Contribution>(
    r: &mut Run<'_>,
    cfg: &PageRankConfig,
    x: &[AtomicF64],
    contrib: &[C],
) -> Result<(u32, f64)> {
    let n = r.vertex_count();
    let d = cfg.damping;
    let acc: Vec<AtomicF64> = r.collect(|_| AtomicF64::new(0.0));
    let (mut iterations, mut change) = (0, f64::INFINITY);
    while iterations < cfg.max_iterations && change >= cfg.tolerance {
        iterations += 1;
        contribute(r, x, contrib);
        r.for_each_vertex(|v| acc[v as usize].store(0.0));
        r.step(&Frontier::all(n), Direction::Out, |u, edges, _| {
            let c = contrib[u as usize].get();
            for &v in edges.ids {
                acc[v as usize].add(c);
            }
        })?;
        let share = base(cfg, n, r.sum_f64(|v| acc[v as usize].load()));
        change = r.sum_f64(|v| {
            let new = share + d * acc[v as usize].load();
            let old = x[v as usize].load();
            x[v as usize].store(new);
            (new - old).abs()
        });
    }
    Ok((iterations, change))
}

fn unweighted() -> Error {
    Error::Invalid(
        "weighted PageRank needs edge weights and this graph has none: convert a `u v w` edge \
         list with --weighted (or leave out --weighted for PageRank on the edges alone)"
            .into(),
    )
}

/// Serial power iteration on the out-edges `g` (the reference).
// Verifiers index several per-vertex arrays by the same vertex.
#[allow(clippy::needless_range_loop)]
pub fn serial(g: &Csr, cfg: &PageRankConfig) -> Vec<f64> {
    let n = g.vertex_count() as usize;
    let nf = n as f64;
    let d = cfg.damping;
    let mut x = vec![1.0 / nf; n];
    for _ in 0..cfg.max_iterations.max(1000) {
        let mut acc = vec![0.0; n];
        let mut dangling = 0.0;
        for u in 0..n {
            let nb = g.neighbors(u as VertexId);
            let w = g.weights(u as VertexId);
            let split: f64 = match cfg.weighted {
                true => w.iter().map(|&x| x as f64).sum(),
                false => nb.len() as f64,
            };
            if split == 0.0 {
                dangling += x[u];
                continue;
            }
            for (k, &v) in nb.iter().enumerate() {
                let share = if cfg.weighted { w[k] as f64 } else { 1.0 };
                acc[v as usize] += x[u] * share / split;
            }
        }
        let base = match cfg.semantics {
            Semantics::Standard => (1.0 - d) / nf + d * dangling / nf,
            Semantics::Gap => (1.0 - d) / nf,
        };
        let mut change = 0.0;
        for v in 0..n {
            let new = base + d * acc[v];
            change += (new - x[v]).abs();
            x[v] = new;
        }
        if change < cfg.tolerance * 1e-3 {
            break;
        }
    }
    x
}

/// Checks `res` against [`serial`]: L1 distance within what the stopping
/// rule allows, and (standard semantics) scores summing to 1.
pub fn verify(g: &Csr, cfg: &PageRankConfig, res: &PageRankResult) -> Verdict {
    let want = serial(g, cfg);
    let l1: f64 = want
        .iter()
        .zip(&res.score)
        .map(|(a, b)| (a - b).abs())
        .sum();
    if res.converged {
        // Gauss-Seidel's shift to a sum of 1 can double the distance.
        let gs = if res.gauss_seidel > 0 { 2.0 } else { 1.0 };
        let slack = 2.0 + gs * cfg.damping / (1.0 - cfg.damping);
        let bound = (cfg.tolerance + res.contributions.rounding()) * slack + 1e-9;
        if l1 > bound {
            fail!("L1 distance to the serial reference is {l1:.3e}, more than {bound:.3e}");
        }
    }
    if cfg.semantics == Semantics::Standard {
        let sum: f64 = res.score.iter().sum();
        if (sum - 1.0).abs() > 1e-9 {
            fail!("scores sum to {sum}, not 1");
        }
    }
    Ok(())
}

impl PageRankResult {
    /// Per-vertex `vertex,score` in the user's ids.
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("score", Values::F64(self.score));
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self, g: &Graph) -> serde_json::Value {
        let top: Vec<VertexId> = super::top_k(self.score.len(), 5, |v| self.score[v])
            .into_iter()
            .map(|v| v as VertexId)
            .collect();
        serde_json::json!({
            "iterations": self.iterations,
            "last_change": self.last_change,
            "converged": self.converged,
            "style": self.style,
            "contributions": self.contributions.name(),
            "gauss_seidel_iterations": self.gauss_seidel,
            "sum": self.score.iter().sum::<f64>(),
            "top": top.iter().map(|&v| serde_json::json!([g.label(v), self.score[v as usize]])).collect::<Vec<_>>(),
        })
    }
}

/// PageRank as a registered algorithm (`grotto run pagerank`).
pub struct PageRank;

impl Algorithm for PageRank {
    const NAME: &'static str = "pagerank";
    const ABOUT: &'static str =
        "PageRank by power iteration (dangling mass spread uniformly; scores sum to 1).";
    const PARAMS: &'static [Param] = &[
        Param::with_default("damping", Kind::Float, "0.85", "Damping factor."),
        Param::with_default(
            "tolerance",
            Kind::Float,
            "1e-6",
            "Stop when an iteration changes the scores by less than this (L1).",
        ),
        Param::with_default("max-iterations", Kind::Int, "100", "Iteration cap."),
        Param::with_default(
            "semantics",
            Kind::Choice(&["standard", "gap"]),
            "standard",
            "standard (networkx) or gap (no dangling redistribution).",
        ),
        Param::with_default(
            "contributions",
            Kind::Choice(&["auto", "f32", "f64"]),
            "auto",
            "Storage of score/outdegree read along every edge: f32 halves the \
             memory traffic (error below 2^-24 per value); auto picks f32 from \
             a tolerance of 1e-6 up.",
        ),
        Param::with_default(
            "method",
            Kind::Choice(&["auto", "jacobi", "gauss-seidel"]),
            "auto",
            "jacobi reads the previous iteration's scores (networkx, Graphalytics: the same \
             result on any number of threads); gauss-seidel reads each score as soon as it is \
             updated (GAP; fewer iterations on road networks and meshes, not on power-law \
             graphs); auto starts with jacobi and turns to gauss-seidel when jacobi's change \
             shrinks by less than a factor 0.65 an iteration (never with a tolerance below \
             1e-15: fixed iterations, which are jacobi's).",
        ),
        Param::optional(
            "weighted",
            Kind::Flag,
            "Split each score among the out-edges in proportion to their weights, as \
             networkx's weight= (weighted graphs; async engine).",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = true;
    type Config = PageRankConfig;
    type Output = PageRankResult;

    /// Power iteration reads every block once per iteration; the
    /// synchronous engine's block mode does that with the least overhead
    /// (see docs/engine.md).
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    /// Weights are read by the async engine only.
    fn preferred_for(g: &Graph, p: &Params) -> EngineKind {
        match p.flag("weighted") {
            Ok(true) => EngineKind::Async,
            _ => Self::preferred(g),
        }
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<PageRankConfig> {
        let semantics = p.text("semantics")?.unwrap_or("standard");
        let weighted = p.flag("weighted")?;
        if weighted && !g.weighted() {
            return Err(unweighted());
        }
        Ok(PageRankConfig {
            weighted,
            damping: p.f64("damping")?,
            tolerance: p.f64("tolerance")?,
            max_iterations: p.u32("max-iterations")?,
            semantics: semantics.parse().map_err(Error::Invalid)?,
            contributions: p
                .text("contributions")?
                .unwrap_or("auto")
                .parse()
                .map_err(Error::Invalid)?,
            method: p
                .text("method")?
                .unwrap_or("auto")
                .parse()
                .map_err(Error::Invalid)?,
        })
    }
    fn config_json(_: &Graph, _: &Params, c: &PageRankConfig) -> Result<serde_json::Value> {
        Ok(
            serde_json::json!({"damping": c.damping, "tolerance": c.tolerance,
            "max_iterations": c.max_iterations,
            "semantics": format!("{:?}", c.semantics).to_lowercase(),
            "contributions": c.contributions.name(), "weighted": c.weighted,
            "method": c.method.name()}),
        )
    }
    fn run_sync(r: &mut Run<'_>, c: &PageRankConfig) -> Result<PageRankResult> {
        run(r, c)
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &PageRankConfig) -> Result<PageRankResult> {
        run_async(r, c)
    }
    fn verify(_: &Graph, csr: &Csr, c: &PageRankConfig, out: &PageRankResult) -> Verdict {
        verify(csr, c, out)
    }
    fn table(g: &Arc<Graph>, out: PageRankResult) -> Table {
        out.into_table(g)
    }
    fn summary(g: &Graph, out: &PageRankResult) -> serde_json::Value {
        out.summary(g)
    }
}

mod push;
pub use push::run_async;
mod sweep;
use sweep::{gs_share, Switch};
pub use sweep::{Method, FIXED_ITERATIONS_TOLERANCE, GS_SWITCH_RATIO};

#[cfg(test)]
mod tests;
