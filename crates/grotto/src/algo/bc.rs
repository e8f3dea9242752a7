//! Betweenness centrality (GAP's `bc`, networkx's
//! `betweenness_centrality`), by Brandes' algorithm, unweighted.
//!
//! From each source `s`, a breadth-first search along out-edges counts
//! the shortest paths `sigma(w)` to every vertex (each level pushes its
//! vertices' counts to the next level's), keeping each level's vertices.
//! Then the levels are walked back from the deepest: a vertex `v` pulls
//! the dependency `delta(v) = sum sigma(v) / sigma(w) * (1 + delta(w))`
//! over its out-neighbours `w` one level deeper, one step over the
//! level's lists (its blocks read in merged requests). Each vertex other
//! than `s` adds `delta` to its score. Edge weights are not used (as
//! networkx's `weight=None`); self loops lie on no shortest path; a
//! graph kept with `--keep-duplicates` counts each parallel edge as a
//! path of its own.
//!
//! Sources: every vertex (exact, the default), one or a list
//! (`--source`), or `--sources K` drawn with `--seed` by their place in
//! the user's order. Scores are the sums over the sources of ordered
//! pairs, or with `--normalized` (and the defaults as networkx's)
//! rescaled as networkx 3.6 rescales them; `--endpoints` counts the
//! path's ends as networkx's `endpoints=True` does.
//!
//! Memory: 4 bytes a vertex for the depth, 8 for the path count, 8 for
//! the dependency and 8 for the score, plus 4 for each vertex reached
//! (the levels). The verifier runs Brandes' algorithm serially on the
//! lists in memory from the same sources and compares every score within
//! 1e-9 relative.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{fail, Verdict};
use crate::engine::{Frontier, Run};
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Settings of betweenness centrality.
#[derive(Clone, Debug, Default)]
pub struct BcConfig {
    /// Sources, internal ids, sorted and distinct; empty: every vertex.
    pub sources: Vec<VertexId>,
    /// Whether the sources were sampled (`--sources K`): the scores are
    /// rescaled for `k` sampled sources. Sources given in a list give the
    /// plain sums unless `normalized`, which rescales them as sampled.
    pub sampled: bool,
    /// Rescale as networkx's `normalized=True` (default false: sums over
    /// ordered pairs, halved on an undirected graph, as networkx's
    /// `normalized=False`).
    pub normalized: bool,
    /// Count the ends of each path (networkx's `endpoints=True`).
    pub endpoints: bool,
}

/// Scores, in internal ids.
#[derive(Clone, Debug)]
pub struct BcResult {
    /// Per vertex, its betweenness.
    pub score: Vec<f64>,
    /// Sources the paths started from.
    pub sources: u64,
    /// Deepest level reached from any source.
    pub max_depth: u32,
}

/// An `f64` kept in an `AtomicU64`, added to with compare-and-swap.
#[inline]
fn add_f64(a: &AtomicU64, x: f64) {
    let mut cur = a.load(Relaxed);
    loop {
        let new = (f64::from_bits(cur) + x).to_bits();
        match a.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(c) => cur = c,
        }
    }
}

#[inline]
fn get(a: &AtomicU64) -> f64 {
    f64::from_bits(a.load(Relaxed))
}

/// `k` distinct sources drawn with `seed` by their place in the user's
/// order (Floyd's sampling), as internal ids, sorted.
pub fn sample(g: &Graph, k: u64, seed: u64) -> Vec<VertexId> {
    let n = g.vertex_count();
    let k = k.min(n);
    let mut rng = Rng::new(seed, 0xbc);
    let mut picked = BTreeSet::new();
    for j in n - k..n {
        let t = rng.below(j + 1);
        if !picked.insert(t) {
            picked.insert(j);
        }
    }
    let mut v: Vec<VertexId> = picked
        .into_iter()
        .map(|r| g.vertex_at_rank(r as u32))
        .collect();
    v.sort_unstable();
    v
}

/// The factor networkx 3.6 multiplies a vertex's sum by (`_rescale`):
/// `n` vertices, `k` sources (`None`: all, unsampled), and whether the
/// vertex is one of the sampled sources.
pub fn scale(n: u64, k: Option<u64>, cfg: &BcConfig, directed: bool, is_source: bool) -> f64 {
    let n = if cfg.endpoints {
        n
    } else {
        n.saturating_sub(1)
    } as f64;
    if n < 2.0 {
        return 1.0;
    }
    let correction = if directed { 1.0 } else { 2.0 };
    match k {
        Some(k) if !cfg.endpoints => {
            let k = k as f64;
            let ks = if is_source { k - 1.0 } else { k };
            if ks <= 0.0 {
                return f64::NAN;
            }
            if cfg.normalized {
                1.0 / (ks * (n - 1.0))
            } else {
                n / (ks * correction)
            }
        }
        _ => {
            let ks = k.map_or(n, |k| k as f64);
            if cfg.normalized {
                1.0 / (ks * (n - 1.0))
            } else {
                n / (ks * correction)
            }
        }
    }
}

/// How sums become scores: networkx's rescale for all vertices or `k`
/// sampled ones; none for a list of sources unless normalized.
struct Rescale<'a> {
    cfg: &'a BcConfig,
    n: u64,
    directed: bool,
    on: bool,
}

impl Rescale<'_> {
    fn new(n: u64, cfg: &BcConfig, directed: bool) -> Rescale<'_> {
        Rescale {
            cfg,
            n,
            directed,
            on: cfg.sources.is_empty() || cfg.sampled || cfg.normalized,
        }
    }

    fn apply(&self, v: VertexId, x: f64) -> f64 {
        if !self.on {
            return x;
        }
        let k = (!self.cfg.sources.is_empty()).then_some(self.cfg.sources.len() as u64);
        let is_source = k.is_some() && self.cfg.sources.binary_search(&v).is_ok();
        x * scale(self.n, k, self.cfg, self.directed, is_source)
    }
}

/// Runs Brandes' algorithm from every source on the synchronous engine.
pub fn run(r: &mut Run<'_>, cfg: &BcConfig) -> Result<BcResult> {
    let n = r.vertex_count();
    let directed = r.graph().directed();
    let all: Vec<VertexId>;
    let sources: &[VertexId] = if cfg.sources.is_empty() {
        all = (0..n as VertexId).collect();
        &all
    } else {
        &cfg.sources
    };
    let depth: Vec<AtomicU32> = r.collect(|_| AtomicU32::new(u32::MAX));
    let sigma: Vec<AtomicU64> = r.collect(|_| AtomicU64::new(0));
    let delta: Vec<AtomicU64> = r.collect(|_| AtomicU64::new(0));
    let score: Vec<AtomicU64> = r.collect(|_| AtomicU64::new(0));
    let mut max_depth = 0;
    for &s in sources {
        // Forward: levels of the search, with path counts.
        depth[s as usize].store(0, Relaxed);
        sigma[s as usize].store(1f64.to_bits(), Relaxed);
        let mut levels: Vec<Frontier> = vec![Frontier::single(s)];
        loop {
            let d = levels.len() as u32;
            let frontier = &levels[levels.len() - 1];
            let next = r.step(frontier, Direction::Out, |v, e, next| {
                let sv = get(&sigma[v as usize]);
                for &w in e.ids {
                    let dw = &depth[w as usize];
                    let mut at = dw.load(Relaxed);
                    if at == u32::MAX {
                        at = match dw.compare_exchange(u32::MAX, d, Relaxed, Relaxed) {
                            Ok(_) => {
                                next.activate(w);
                                d
                            }
                            Err(x) => x,
                        };
                    }
                    if at == d {
                        add_f64(&sigma[w as usize], sv);
                    }
                }
            })?;
            if next.is_empty() {
                break;
            }
            levels.push(next);
        }
        max_depth = max_depth.max(levels.len() as u32 - 1);
        // Backward: each level pulls its dependency from the next one.
        for d in (0..levels.len().saturating_sub(1)).rev() {
            let below = d as u32 + 1;
            r.step(&levels[d], Direction::Out, |v, e, _| {
                let sv = get(&sigma[v as usize]);
                let mut sum = 0.0;
                for &w in e.ids {
                    if depth[w as usize].load(Relaxed) == below {
                        sum += sv / get(&sigma[w as usize]) * (1.0 + get(&delta[w as usize]));
                    }
                }
                if sum != 0.0 {
                    add_f64(&delta[v as usize], sum);
                }
            })?;
        }
        // Scores, and the state cleared for the next source.
        let reached: u64 = levels.iter().map(|l| l.len()).sum();
        for level in &levels {
            level.for_each(|v| {
                let i = v as usize;
                if v != s {
                    let extra = if cfg.endpoints { 1.0 } else { 0.0 };
                    add_f64(&score[i], get(&delta[i]) + extra);
                } else if cfg.endpoints {
                    add_f64(&score[i], (reached - 1) as f64);
                }
                depth[i].store(u32::MAX, Relaxed);
                sigma[i].store(0, Relaxed);
                delta[i].store(0, Relaxed);
            });
        }
    }
    let factor = Rescale::new(n, cfg, directed);
    let score = r.collect(|v| factor.apply(v, get(&score[v as usize])));
    Ok(BcResult {
        score,
        sources: sources.len() as u64,
        max_depth,
    })
}

/// Brandes' algorithm serially on `csr` from `sources` (every vertex when
/// empty), with `cfg`'s rescale: the reference.
pub fn serial(g: &Graph, csr: &Csr, cfg: &BcConfig) -> Vec<f64> {
    let n = csr.vertex_count() as usize;
    let sources: Vec<VertexId> = if cfg.sources.is_empty() {
        (0..n as VertexId).collect()
    } else {
        cfg.sources.clone()
    };
    let mut score = vec![0.0f64; n];
    for &s in &sources {
        let mut order = Vec::new();
        let mut depth = vec![u32::MAX; n];
        let mut sigma = vec![0.0f64; n];
        let mut preds: Vec<Vec<VertexId>> = vec![Vec::new(); n];
        let mut queue = std::collections::VecDeque::new();
        depth[s as usize] = 0;
        sigma[s as usize] = 1.0;
        queue.push_back(s);
        while let Some(v) = queue.pop_front() {
            order.push(v);
            for &w in csr.neighbors(v) {
                if depth[w as usize] == u32::MAX {
                    depth[w as usize] = depth[v as usize] + 1;
                    queue.push_back(w);
                }
                if depth[w as usize] == depth[v as usize] + 1 {
                    sigma[w as usize] += sigma[v as usize];
                    preds[w as usize].push(v);
                }
            }
        }
        let mut delta = vec![0.0f64; n];
        for &w in order.iter().rev() {
            for &v in &preds[w as usize] {
                delta[v as usize] +=
                    sigma[v as usize] / sigma[w as usize] * (1.0 + delta[w as usize]);
            }
            if w != s {
                score[w as usize] += delta[w as usize] + if cfg.endpoints { 1.0 } else { 0.0 };
            }
        }
        if cfg.endpoints {
            score[s as usize] += (order.len() - 1) as f64;
        }
    }
    let factor = Rescale::new(n as u64, cfg, g.directed());
    for (v, x) in score.iter_mut().enumerate() {
        *x = factor.apply(v as VertexId, *x);
    }
    score
}

/// Checks every score against [`serial`], within 1e-9 relative.
pub fn verify(g: &Graph, csr: &Csr, cfg: &BcConfig, res: &BcResult) -> Verdict {
    let want = serial(g, csr, cfg);
    if res.score.len() != want.len() {
        fail!("{} scores for {} vertices", res.score.len(), want.len());
    }
    for (v, (&got, &want)) in res.score.iter().zip(&want).enumerate() {
        let same =
            (got.is_nan() && want.is_nan()) || (got - want).abs() <= 1e-9 * want.abs().max(1e-12);
        if !same {
            fail!(
                "vertex {} has betweenness {got}, the serial count gives {want}",
                g.original_id(v as VertexId)
            );
        }
    }
    Ok(())
}

/// Betweenness centrality as a registered algorithm (`grotto run bc`).
pub struct Bc;

impl Algorithm for Bc {
    const NAME: &'static str = "bc";
    const ABOUT: &'static str = "Betweenness centrality (GAP's bc, networkx's \
         betweenness_centrality): Brandes' algorithm from every vertex, from --source, or from \
         --sources K sampled ones; unweighted.";
    const PARAMS: &'static [Param] = &[
        Param::optional(
            "source",
            Kind::Vertices,
            "Sources, in your ids, separated by commas (default: every vertex, or --sources K).",
        ),
        Param::with_default(
            "sources",
            Kind::Int,
            "0",
            "Sample this many sources with --seed (networkx's k); 0: every vertex.",
        ),
        Param::with_default("seed", Kind::Int, "1", "Seed for --sources."),
        Param::optional(
            "normalized",
            Kind::Flag,
            "Rescale as networkx's normalized=True (default: networkx's normalized=False).",
        ),
        Param::optional(
            "endpoints",
            Kind::Flag,
            "Count each path's ends too (networkx's endpoints=True).",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = BcConfig;
    type Output = BcResult;

    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<BcConfig> {
        let k = p.u64("sources")?;
        let listed = p.vertices(g, "source")?;
        if k > 0 && !listed.is_empty() {
            return Err(Error::Invalid(
                "--source lists the sources and --sources samples them: give one".into(),
            ));
        }
        let (sources, sampled) = if k > 0 {
            (sample(g, k, p.u64("seed")?), true)
        } else {
            let mut s = listed;
            s.sort_unstable();
            s.dedup();
            (s, false)
        };
        Ok(BcConfig {
            sources,
            sampled,
            normalized: p.flag("normalized")?,
            endpoints: p.flag("endpoints")?,
        })
    }
    fn config_json(g: &Graph, p: &Params, c: &BcConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({
            "sources": if c.sources.is_empty() { serde_json::Value::from("all") } else { c.sources.len().into() },
            "sampled": c.sampled,
            "seed": p.u64("seed")?,
            "normalized": c.normalized,
            "endpoints": c.endpoints,
            "first_sources": c.sources.iter().take(5).map(|&v| g.original_id(v)).collect::<Vec<_>>(),
        }))
    }
    fn run_sync(r: &mut Run<'_>, c: &BcConfig) -> Result<BcResult> {
        run(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, c: &BcConfig, out: &BcResult) -> Verdict {
        verify(g, csr, c, out)
    }
    fn table(g: &Arc<Graph>, out: BcResult) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("betweenness", Values::F64(out.score));
        t
    }

    /// Sources, the deepest level, and the five most central vertices.
    fn summary(g: &Graph, out: &BcResult) -> serde_json::Value {
        let top: Vec<serde_json::Value> = super::top_k(out.score.len(), 5, |v| out.score[v])
            .into_iter()
            .map(|v| serde_json::json!([g.label(v as VertexId), out.score[v]]))
            .collect();
        serde_json::json!({
            "sources": out.sources,
            "max_depth": out.max_depth,
            "top": top,
        })
    }
}

#[cfg(test)]
mod tests;
