//! What Louvain and Leiden share at their edges: the registry's
//! parameters and the config made from them, the numbering of the
//! answer in the user's order, its table and its summary.

use super::{CommunityConfig, CommunityResult};
use crate::algo::output::{Table, Values};
use crate::error::{Error, Result};
use crate::store::Graph;
use std::sync::Arc;

/// Numbers `result.community` in the order of each community's first
/// member in the user's order, and counts them.
pub(crate) fn number_by_user_order(g: &Graph, result: &mut CommunityResult) -> Result<()> {
    let n = result.community.len();
    let mut rank = vec![0u32; n];
    g.ranks_of(0, &mut rank)?;
    let relabel = |col: &mut [u32]| {
        let c = col.iter().max().map_or(0, |&x| x as usize + 1);
        let mut first = vec![u32::MAX; c];
        for (v, &x) in col.iter().enumerate() {
            first[x as usize] = first[x as usize].min(rank[v]);
        }
        let mut order: Vec<u32> = (0..c as u32).collect();
        order.sort_unstable_by_key(|&x| first[x as usize]);
        let mut to = vec![0u32; c];
        for (i, &x) in order.iter().enumerate() {
            to[x as usize] = i as u32;
        }
        for x in col.iter_mut() {
            *x = to[*x as usize];
        }
        c as u64
    };
    result.communities = relabel(&mut result.community);
    for col in &mut result.per_level {
        relabel(col);
    }
    Ok(())
}

/// The community column, and one column a level when kept.
pub(crate) fn table(g: &Arc<Graph>, out: CommunityResult) -> Table {
    let mut t = Table::for_graph(g.clone());
    t.push("community", Values::U32(out.community));
    for (i, col) in out.per_level.into_iter().enumerate() {
        t.push(level_name(i + 1), Values::U32(col));
    }
    t
}

/// `levelN`, made once for each `N` asked for (column names are static).
fn level_name(n: usize) -> &'static str {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    while names.len() < n {
        let name = format!("level{}", names.len() + 1);
        names.push(Box::leak(name.into_boxed_str()));
    }
    names[n - 1]
}

/// Summary figures: modularity, communities and their largest sizes, and
/// every level.
pub(crate) fn summary(out: &CommunityResult) -> serde_json::Value {
    let mut size = vec![0u64; out.communities as usize];
    for &c in &out.community {
        size[c as usize] += 1;
    }
    let largest: Vec<u64> = crate::algo::top_k(size.len(), 5, |c| size[c] as f64)
        .into_iter()
        .map(|c| size[c])
        .collect();
    let singletons = size.iter().filter(|&&s| s == 1).count();
    serde_json::json!({
        "modularity": out.modularity,
        "communities": out.communities,
        "largest": largest,
        "singletons": singletons,
        "total_weight": out.total_weight,
        "memory_bytes": out.memory_bytes,
        "scratch_read_bytes": out.scratch_read_bytes,
        "levels": out.levels,
    })
}

/// The config as a record.
pub(crate) fn config_json(c: &CommunityConfig) -> serde_json::Value {
    serde_json::json!({
        "resolution": c.resolution,
        "threshold": c.threshold,
        "max_level": c.max_level,
        "seed": c.seed,
        "tolerance": c.tolerance,
        "max_sweeps": c.max_sweeps,
        "rounds": c.rounds,
        "levels": c.levels,
        "weights": c.weights,
        "iterations": c.iterations,
        "memory": c.memory.map(|m| m.to_string()),
    })
}

/// The parameters of Louvain and Leiden (`iterations` 2 by default for
/// both), in the registry's form.
macro_rules! community_params {
    ($iterations:literal) => {{
        use crate::algo::registry::{Kind, Param};
        &[
        Param::with_default(
            "resolution",
            Kind::Float,
            "1",
            "Resolution of modularity: below 1 favours larger communities, above 1 smaller ones.",
        ),
        Param::with_default(
            "threshold",
            Kind::Float,
            "1e-7",
            "A level that raises modularity by this much or less is the last (networkx's threshold).",
        ),
        Param::with_default(
            "max-level",
            Kind::Int,
            "0",
            "Levels at most (0: until converged; networkx's max_level).",
        ),
        Param::with_default(
            "seed",
            Kind::Int,
            "1",
            "Seed of the order ranges of vertices are swept in (the answer is the same on any thread count).",
        ),
        Param::with_default(
            "tolerance",
            Kind::Float,
            "1e-4",
            "A level's sweeps stop after one that raises modularity by less than this (0: until no vertex moves).",
        ),
        Param::with_default("max-sweeps", Kind::Int, "100", "Sweeps per level at most."),
        Param::with_default(
            "rounds",
            Kind::Int,
            "32",
            "Rounds a sweep is cut into at least (more when a round's lists would pass 64 MiB): a round's 64 slices are decided in parallel, each blind to the others' moves, so fewer rounds lose modularity.",
        ),
        Param::with_default(
            "levels",
            Kind::Flag,
            "false",
            "Keep every level's communities: columns level1, level2, ...",
        ),
        Param::with_default(
            "ignore-weights",
            Kind::Flag,
            "false",
            "Count every edge of a weighted graph as 1 (networkx's weight=None).",
        ),
            Param::with_default(
                "iterations",
                Kind::Int,
                $iterations,
                "Runs of the whole algorithm, each from the last one's answer (igraph's n_iterations).",
            ),
            Param::optional(
                "memory",
                Kind::Size,
                "What building a level may hold (default: half the available memory); past it records take more passes and the level is written as a scratch graph beside the graph.",
            ),
        ]
    }};
}

/// Louvain's parameters.
pub(crate) const LOUVAIN_PARAMS: &[crate::algo::registry::Param] = community_params!("2");
/// Leiden's parameters.
pub(crate) const LEIDEN_PARAMS: &[crate::algo::registry::Param] = community_params!("2");

/// The config from parameter values.
pub(crate) fn config(p: &crate::algo::registry::Params, refine: bool) -> Result<CommunityConfig> {
    let c = CommunityConfig {
        resolution: p.f64("resolution")?,
        threshold: p.f64("threshold")?,
        max_level: p.u32("max-level")?,
        seed: p.u64("seed")?,
        tolerance: p.f64("tolerance")?,
        max_sweeps: p.u32("max-sweeps")?,
        rounds: p.u32("rounds")?,
        levels: p.flag("levels")?,
        refine,
        weights: !p.flag("ignore-weights")?,
        iterations: p.u32("iterations")?,
        memory: p.opt_size("memory")?,
    };
    if !(c.resolution.is_finite() && c.resolution > 0.0) {
        return Err(Error::Invalid(format!(
            "--resolution {}: expected a positive number",
            c.resolution
        )));
    }
    if c.rounds == 0 || c.max_sweeps == 0 || c.iterations == 0 {
        return Err(Error::Invalid(
            "--rounds, --max-sweeps and --iterations take a positive integer".into(),
        ));
    }
    Ok(c)
}

/// The registry entry of Louvain or Leiden (`$ty`, named `$name`): the
/// two differ in their parameters' defaults, the refinement and the
/// verifier, which is the calling module's `verify` (as `run` is its run).
macro_rules! registered {
    ($ty:ident, $name:literal, $params:expr, $refine:literal, $what:literal, $about:expr) => {
        impl $crate::algo::registry::Algorithm for $ty {
            const NAME: &'static str = $name;
            const ABOUT: &'static str = $about;
            const PARAMS: &'static [$crate::algo::registry::Param] = $params;
            const SYNC: $crate::algo::registry::OnSync = $crate::algo::registry::OnSync::Native;
            const ASYNC: bool = false;
            type Config = CommunityConfig;
            type Output = CommunityResult;

            /// Sweeps in block order, reading the blocks of active vertices.
            fn preferred(_: &Graph) -> $crate::algo::registry::EngineKind {
                $crate::algo::registry::EngineKind::Sync
            }
            fn config(
                g: &Graph,
                p: &$crate::algo::registry::Params,
                _: &$crate::algo::registry::Setting,
            ) -> Result<CommunityConfig> {
                $crate::algo::need_undirected(g, $what)?;
                community::config(p, $refine)
            }
            fn config_json(
                _: &Graph,
                _: &$crate::algo::registry::Params,
                c: &CommunityConfig,
            ) -> Result<serde_json::Value> {
                Ok(community::config_json(c))
            }
            fn run_sync(r: &mut Run<'_>, c: &CommunityConfig) -> Result<CommunityResult> {
                run(r, c)
            }
            fn verify(g: &Graph, csr: &Csr, c: &CommunityConfig, out: &CommunityResult) -> Verdict {
                verify(g, csr, c, out)
            }
            fn table(
                g: &std::sync::Arc<Graph>,
                out: CommunityResult,
            ) -> $crate::algo::output::Table {
                community::table(g, out)
            }
            fn summary(_: &Graph, out: &CommunityResult) -> serde_json::Value {
                community::summary(out)
            }
        }
    };
}
pub(crate) use registered;
