//! Communities by modularity: the multilevel core that Louvain and
//! Leiden share (the registry entries and verifiers are `louvain.rs` and
//! `leiden.rs`).
//!
//! Modularity with resolution `γ` follows networkx (`modularity`): with
//! `m` the total edge weight (a self loop once) and `k_v` a vertex's
//! weighted degree (a self loop twice),
//! `Q = Σ_c [ L_c / m − γ (K_c / 2m)² ]`, `L_c` the weight of the edges
//! inside community `c` and `K_c` the sum of its members' degrees.
//! Parallel edges (a `--keep-duplicates` file) add their weights, as
//! networkx's multigraph conversion does.
//!
//! A level is a graph behind [`Lists`]: the file (through the run) first,
//! then the graph of the communities, built by [`contract`] and held in
//! memory. On each level the vertices move between communities
//! ([`moving`]): a sweep cuts the vertices into `chunks` ranges of about
//! equal edge counts, taken in a seeded order; in a chunk every active
//! vertex finds the neighbouring community of largest gain against the
//! state at the chunk's start (in parallel), and the moves are then
//! applied one by one in vertex order, so the answer is the same on any
//! number of threads. A vertex that moves activates its neighbours
//! (GVE-Louvain's pruning). A level's sweeps end when one moves nothing,
//! raises modularity by less than `tolerance`, or after `max_sweeps`.
//! Levels end as networkx's `louvain_partitions` does: when a level
//! raises modularity by `threshold` or less (its partition is still the
//! answer), when a level moves nothing, or after `max_level` levels.
//!
//! Leiden adds a refinement ([`moving::refine`]) between moving and
//! contraction: inside each community, vertices start alone and merge
//! into a neighbouring refined community of the same community (largest
//! gain, greedy as GVE-Leiden), the graph is contracted by the refined
//! communities, and the next level starts from the unrefined partition.
//! Every refined community is connected, so communities made of them are
//! too; a partition reported before the algorithm has converged is split
//! into its connected pieces (which never lowers modularity).

pub mod moving;
mod quality;
mod report;
#[cfg(test)]
mod tests;

pub(crate) use quality::verify_partition;
pub use quality::{modularity, serial_modularity};
use quality::{modularity_of, modularity_on, AtomicF64Cell};
pub(crate) use report::{
    config, config_json, number_by_user_order, registered, summary, table, LEIDEN_PARAMS,
    LOUVAIN_PARAMS,
};

use crate::engine::multilevel::{
    contract_within, Coarse, ContractOptions, FileLevel, Lists, NextGraph,
};
use crate::engine::{EngineConfig, Frontier, Run, SyncEngine};
use crate::error::{Error, Result};
use crate::VertexId;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;

/// Settings of Louvain and Leiden (networkx's names where it has them).
#[derive(Clone, Debug)]
pub struct CommunityConfig {
    /// The resolution `γ` of modularity (default 1; below 1 favours larger
    /// communities, above 1 smaller ones).
    pub resolution: f64,
    /// A level that raises modularity by this much or less is the last
    /// (default 1e-7, networkx's `threshold`).
    pub threshold: f64,
    /// Levels at most (default 0: until converged; networkx's
    /// `max_level`).
    pub max_level: u32,
    /// Seed of the order chunks are swept in (default 1).
    pub seed: u64,
    /// A level's sweeps stop after one that raises modularity by less
    /// than this (default 1e-4; 0 sweeps until no vertex moves).
    pub tolerance: f64,
    /// Sweeps per level at most (default 100).
    pub max_sweeps: u32,
    /// Rounds a sweep is cut into at least (default 32; more when a
    /// round's lists would pass [`moving::HOLD_BYTES`]): a round's slices
    /// are decided in parallel, each against the others' state at the
    /// round's start, so more rounds see more of each other's moves, at a
    /// barrier each. With 1, a 65,536-vertex R-MAT graph ends 2-4% below
    /// igraph's modularity (the slices' stale views of each other); from
    /// 32 on it matches it, at no cost in time.
    pub rounds: u32,
    /// Keep every level's communities, for one column a level (default
    /// no: the last level's only).
    pub levels: bool,
    /// Leiden's refinement between moving and contraction (default no:
    /// Louvain).
    pub refine: bool,
    /// Use a weighted graph's weights (default yes; no counts every edge
    /// as 1, networkx's `weight=None`).
    pub weights: bool,
    /// Runs of the whole algorithm, each from the answer of the one
    /// before (default 1 here; the registry's default is 2 for both
    /// Louvain and Leiden, igraph's `n_iterations` for Leiden: on a scale-20
    /// R-MAT graph a second Louvain run raises modularity from 0.074 to
    /// 0.080, igraph's multilevel reaching 0.075, for half the time
    /// again); a run that raises modularity by `threshold` or less is the
    /// last.
    pub iterations: u32,
    /// Bytes the pass that builds a level may hold (records, and the next
    /// level's lists in memory); past them records are gathered in more
    /// passes and a next level is written as a scratch graph file beside
    /// the graph (default: half the memory available at the start).
    pub memory: Option<crate::cache::CacheSize>,
}

impl Default for CommunityConfig {
    fn default() -> CommunityConfig {
        CommunityConfig {
            resolution: 1.0,
            threshold: 1e-7,
            max_level: 0,
            seed: 1,
            tolerance: 1e-4,
            max_sweeps: 100,
            rounds: 32,
            levels: false,
            refine: false,
            weights: true,
            iterations: 1,
            memory: None,
        }
    }
}

/// What one level did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LevelReport {
    /// Vertices of the level's graph.
    pub vertices: u64,
    /// List entries of the level's graph.
    pub entries: u64,
    /// Communities after the level's moves.
    pub communities: u64,
    /// Modularity of the level's partition of the input graph.
    pub modularity: f64,
    /// Sweeps the moves took.
    pub sweeps: u32,
    /// Moves made.
    pub moves: u64,
    /// Leiden: refined communities the next level's graph is made of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refined: Option<u64>,
    /// Records the pass that built the next level's graph gathered (a
    /// vertex and a distinct neighbouring group each).
    pub records: u64,
    /// Passes over the level that pass took (more than one when its
    /// records did not fit the memory budget).
    pub passes: u32,
    /// Whether the next level's graph was held in memory (else written as
    /// a scratch graph file).
    pub next_in_memory: bool,
    /// Whether this level's graph is a scratch graph file.
    pub scratch: bool,
    /// Seconds the level's moves (and Leiden's refinement) took.
    pub move_s: f64,
    /// Seconds of the pass that built the next level's graph.
    pub contract_s: f64,
}

/// Communities, in internal ids.
#[derive(Clone, Debug)]
pub struct CommunityResult {
    /// Per vertex, its community: `0..communities`, numbered in the order
    /// of each community's first member in the user's order.
    pub community: Vec<u32>,
    /// Communities.
    pub communities: u64,
    /// Modularity of the partition, computed in `f64` from the lists.
    pub modularity: f64,
    /// The levels run.
    pub levels: Vec<LevelReport>,
    /// With [`CommunityConfig::levels`]: each level's communities, numbered
    /// as [`CommunityResult::community`] is.
    pub per_level: Vec<Vec<u32>>,
    /// Total edge weight `m`.
    pub total_weight: f64,
    /// The bytes a level's contraction could hold (`--memory`).
    pub memory_bytes: u64,
    /// Bytes read from levels written as scratch graph files.
    pub scratch_read_bytes: u64,
}

/// A level's graph: the file, read through the run, or one in memory.
enum Level<'a, 'r> {
    File(FileLevel<'a, 'r>),
    Memory(Coarse),
}

impl Level<'_, '_> {
    fn lists(&mut self) -> &mut dyn Lists {
        match self {
            Level::File(f) => f,
            Level::Memory(c) => c,
        }
    }
}

/// Per vertex of a level: weighted degree (a loop twice) and loop weight.
pub(crate) struct Degrees {
    pub(crate) k: Vec<f64>,
    pub(crate) loops: Vec<f64>,
}

/// The degrees of the file's vertices: from the index when every weight
/// is 1 and no loop was kept, else from one pass over the lists.
fn file_degrees(level: &mut FileLevel<'_, '_>, weights: bool) -> Result<Degrees> {
    let g = level.run().graph();
    let n = g.vertex_count();
    let loops_kept = g.header().flags & crate::store::format::FLAG_SELF_LOOPS != 0;
    let weighted = g.weighted() && weights;
    if !weighted && !loops_kept {
        let out = g.out();
        return Ok(Degrees {
            k: (0..n as VertexId).map(|v| out.degree(v) as f64).collect(),
            loops: Vec::new(),
        });
    }
    let k: Vec<AtomicF64Cell> = (0..n).map(|_| AtomicF64Cell::default()).collect();
    let loops: Vec<AtomicF64Cell> = (0..n).map(|_| AtomicF64Cell::default()).collect();
    level.visit_whole(&Frontier::all(n), &|v, ids, ws| {
        let (mut sum, mut own) = (0.0, 0.0);
        for (i, &u) in ids.iter().enumerate() {
            let w = ws.get(i);
            sum += w;
            if u == v {
                own += w;
            }
        }
        k[v as usize].set(sum + own);
        loops[v as usize].set(own);
    })?;
    Ok(Degrees {
        k: k.into_iter().map(AtomicF64Cell::get).collect(),
        loops: loops.into_iter().map(AtomicF64Cell::get).collect(),
    })
}

/// Renumbers `comm` (values below its length) densely in order of first
/// appearance; returns how many there are.
pub(crate) fn renumber(comm: &mut [u32]) -> u32 {
    renumber_kept(comm, |_| true).0
}

/// Renumbers `comm` (values below its length) densely: first, in order of
/// first appearance, the values some vertex with `has_edges` takes, then
/// the rest. Returns how many values there are, and how many come first.
fn renumber_kept(comm: &mut [u32], has_edges: impl Fn(usize) -> bool) -> (u32, u32) {
    let mut map = vec![u32::MAX; comm.len()];
    let mut next = 0u32;
    for (v, &c) in comm.iter().enumerate() {
        if has_edges(v) && map[c as usize] == u32::MAX {
            map[c as usize] = next;
            next += 1;
        }
    }
    let kept = next;
    for c in comm.iter_mut() {
        let m = &mut map[*c as usize];
        if *m == u32::MAX {
            *m = next;
            next += 1;
        }
        *c = *m;
    }
    (next, kept)
}

/// Marks an original vertex that no later level holds: it has no edges,
/// so it stays a community of its own.
const ALONE: u32 = u32::MAX;

/// Runs Louvain (or, with `cfg.refine`, Leiden) on the run's graph:
/// `cfg.iterations` times, each from the answer of the one before (as
/// igraph's `n_iterations`), while an iteration raises modularity by more
/// than `cfg.threshold`.
pub fn run(r: &mut Run<'_>, cfg: &CommunityConfig) -> Result<CommunityResult> {
    let g = r.graph();
    if g.directed() {
        return Err(Error::Invalid(format!(
            "{} is defined here on undirected graphs (networkx's modularity); convert the \
             edge list with --undirected",
            if cfg.refine { "leiden" } else { "louvain" }
        )));
    }
    if !(cfg.resolution.is_finite() && cfg.resolution > 0.0) {
        return Err(Error::Invalid(format!(
            "--resolution {}: expected a positive number",
            cfg.resolution
        )));
    }
    let memory_bytes = match cfg.memory {
        Some(size) => r.resolve_size(size),
        None => crate::metrics::available_memory_bytes().unwrap_or(4 << 30) / 2,
    };
    let mut d = Driver {
        cfg,
        m2: 0.0,
        q_prev: 0.0,
        reports: Vec::new(),
        per_level: Vec::new(),
        rng_level: 0,
        contract: ContractOptions {
            memory_bytes,
            temp_dir: Some(scratch_dir(g.path())),
        },
        engine: r.engine_config().clone(),
        scratch_read_bytes: 0,
    };
    let mut answer: Option<Vec<u32>> = None;
    let mut q = 0.0;
    for i in 0..cfg.iterations.max(1) {
        let mut file = FileLevel::new(r, cfg.weights);
        let deg = file_degrees(&mut file, cfg.weights)?;
        if i == 0 {
            d.m2 = deg.k.iter().sum();
            let loops: f64 = deg.loops.iter().sum();
            let sq: f64 = deg.k.iter().map(|k| k * k).sum();
            d.q_prev = if d.m2 == 0.0 {
                0.0
            } else {
                2.0 * loops / d.m2 - cfg.resolution * sq / (d.m2 * d.m2)
            };
        }
        let levels_before = d.reports.len();
        let q_before = d.q_prev;
        let (got, got_q) = d.pass(file, deg.k, answer.take())?;
        // An iteration that added no level, or raised modularity by the
        // threshold or less, ends the run (its answer is no worse).
        let done = d.reports.len() == levels_before || got_q - q_before <= cfg.threshold;
        answer = Some(got);
        q = got_q;
        if done || (cfg.max_level > 0 && d.reports.len() as u32 >= cfg.max_level) {
            break;
        }
        d.q_prev = got_q;
    }
    Ok(CommunityResult {
        communities: 0,
        community: answer.unwrap_or_default(),
        modularity: q,
        levels: d.reports,
        per_level: d.per_level,
        total_weight: d.m2 / 2.0,
        memory_bytes,
        scratch_read_bytes: d.scratch_read_bytes,
    })
}

/// Where a level that does not fit in memory is written: the graph file's
/// directory when it can be written, else the system's temporary one.
fn scratch_dir(graph: &std::path::Path) -> std::path::PathBuf {
    let dir = graph
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.to_path_buf())
        .unwrap_or_else(|| std::path::PathBuf::from("."));
    let writable = std::fs::metadata(&dir).is_ok_and(|m| !m.permissions().readonly())
        && tempfile::tempfile_in(&dir).is_ok();
    if writable {
        dir
    } else {
        std::env::temp_dir()
    }
}

/// What one run keeps from level to level and iteration to iteration.
struct Driver<'c> {
    cfg: &'c CommunityConfig,
    /// Twice the total weight: the sum of the degrees.
    m2: f64,
    /// Modularity of the last level's partition (of the singletons, at
    /// the start).
    q_prev: f64,
    reports: Vec<LevelReport>,
    per_level: Vec<Vec<u32>>,
    /// Levels run so far, for their random streams.
    rng_level: u64,
    /// How contractions use memory and disk.
    contract: ContractOptions,
    /// The settings of an engine over a scratch level.
    engine: EngineConfig,
    /// Bytes the engines over scratch levels read.
    scratch_read_bytes: u64,
}

impl Driver<'_> {
    /// One pass of levels from the file, starting from `start` (a
    /// partition of its vertices; singletons when `None`), `k` the file's
    /// degrees; returns the answer for every vertex and its modularity.
    fn pass(
        &mut self,
        file: FileLevel<'_, '_>,
        k: Vec<f64>,
        start: Option<Vec<u32>>,
    ) -> Result<(Vec<u32>, f64)> {
        let weighted = file.weighted();
        let first = self.reports.len();
        self.levels(Level::File(file), k, start, None, weighted, first)
    }

    /// The levels from `level` on: `k` its degrees, `start` the partition
    /// it starts from (singletons when `None`), `up` each original
    /// vertex's vertex on it (`None` on the file: itself); `first` the levels reported before this
    /// pass. A next level written as a scratch file runs through an engine
    /// of its own, the rest of the levels inside that run.
    fn levels(
        &mut self,
        mut level: Level<'_, '_>,
        mut k: Vec<f64>,
        mut start: Option<Vec<u32>>,
        mut up: Option<Vec<u32>>,
        mut weighted: bool,
        first: usize,
    ) -> Result<(Vec<u32>, f64)> {
        let cfg = self.cfg;
        let (m2, gamma) = (self.m2, cfg.resolution);
        // The partition of the current level's vertices that is the answer.
        let mut answer: Vec<u32>;
        loop {
            self.rng_level += 1;
            let scratch = matches!(level, Level::File(_))
                && !self.reports.is_empty()
                && self.reports.len() > first;
            let lists = level.lists();
            let nl = lists.vertex_count();
            let mut comm: Vec<u32> = start.take().unwrap_or_else(|| (0..nl as u32).collect());
            let t0 = std::time::Instant::now();
            let stats =
                moving::move_vertices(lists, &k, &mut comm, m2, cfg, self.rng_level, weighted)?;
            let mut dense = comm;
            // Communities with edges first: the rest (isolated vertices,
            // alone) are left out of the next level.
            let (communities, kept) =
                renumber_kept(&mut dense, |v| lists.degree(v as VertexId) > 0);
            if (self.reports.len() > first || first > 0) && stats.moves == 0 {
                // Nothing moved: the partition the level started from, the
                // last level's, is the answer.
                answer = dense;
                break;
            }
            let entries = (0..nl as VertexId).map(|v| lists.degree(v)).sum();
            // Leiden's refined communities, the groups of the next level
            // (Louvain's groups are the communities themselves).
            let refinement = if cfg.refine && communities as u64 != nl {
                let mut rfd = moving::refine(lists, &k, &dense, m2, cfg, self.rng_level, weighted)?;
                let (c, kept) = renumber_kept(&mut rfd, |v| lists.degree(v as VertexId) > 0);
                Some((rfd, c, kept))
            } else {
                None
            };
            let refined = refinement.as_ref().map(|r| r.1 as u64);
            // The next level's vertices: the groups with edges.
            let (groups, group_count) = match &refinement {
                Some((rfd, _, kept)) => (&rfd[..], *kept),
                None => (&dense[..], kept),
            };
            if cfg.levels {
                let shown = if cfg.refine && (communities as u64) < nl {
                    moving::split_disconnected(lists, &dense)?
                } else {
                    dense.clone()
                };
                self.per_level.push(lift(&up, &shown));
            }
            // Leiden: each group's community (groups refine communities),
            // numbered densely among the groups kept.
            let of: Option<Vec<u32>> = refinement.as_ref().map(|(rfd, _, kept)| {
                let mut of = vec![0u32; *kept as usize];
                for (v, &gr) in rfd.iter().enumerate() {
                    if gr < *kept {
                        of[gr as usize] = dense[v];
                    }
                }
                renumber(&mut of);
                of
            });
            // What the degrees give, taken before the contraction so that
            // they need not be held through it: the squares of the
            // communities' degree sums (for the modularity) and the next
            // level's degrees. A level that turns out to be the last
            // sums its degrees again only if it needs them.
            let squares = square_sums(&dense, &k, communities);
            let mut kn = vec![0.0f64; group_count as usize];
            for (v, &gr) in groups.iter().enumerate() {
                if let Some(x) = kn.get_mut(gr as usize) {
                    *x += k[v];
                }
            }
            k = Vec::new();
            let t1 = std::time::Instant::now();
            let next = contract_within(lists, groups, group_count, of.as_deref(), &self.contract)?;
            let contract_s = t1.elapsed().as_secs_f64();
            // Modularity of the level's (unrefined) partition.
            let inside = next.outer_inside.as_ref().unwrap_or(&next.inside);
            let q = modularity_of(inside, squares, m2, gamma);
            self.reports.push(LevelReport {
                vertices: nl,
                entries,
                communities: communities as u64,
                modularity: q,
                sweeps: stats.sweeps,
                moves: stats.moves,
                refined,
                records: next.records,
                passes: next.passes,
                next_in_memory: next.graph.memory().is_some(),
                scratch,
                move_s: (t1 - t0).as_secs_f64(),
                contract_s,
            });
            let last = stats.moves == 0
                || communities as u64 == nl
                || q - self.q_prev <= cfg.threshold
                || (cfg.max_level > 0 && self.reports.len() as u32 >= cfg.max_level);
            if last {
                answer = dense;
                break;
            }
            self.q_prev = q;
            // The next level: the groups' graph, its degrees, and where
            // each original vertex is on it.
            up = Some(descend(&up, groups, group_count));
            // What this level alone needed goes before the next one starts
            // (a scratch level runs inside this call, so it would stay).
            drop((refinement, dense, next.inside, next.outer_inside));
            start = of;
            k = kn;
            weighted = true;
            match next.graph {
                NextGraph::Memory(c) => level = Level::Memory(c),
                NextGraph::File(s) => {
                    let engine = SyncEngine::open(Arc::clone(&s.graph), self.engine.clone())?;
                    let (out, metrics) = engine.run(|r| {
                        self.levels(
                            Level::File(FileLevel::new(r, true)),
                            std::mem::take(&mut k),
                            start.take(),
                            up.take(),
                            true,
                            first,
                        )
                    })?;
                    self.scratch_read_bytes += metrics.bytes_read;
                    return Ok(out);
                }
            }
        }
        // The answer, on the current level; Leiden's split into connected
        // pieces where a community holds several of the level's vertices
        // (each of them is connected, so a community of one is).
        let lists = level.lists();
        let nl = lists.vertex_count();
        let mut final_q = self.reports.last().map_or(self.q_prev, |r| r.modularity);
        let count = answer.iter().max().map_or(0, |&c| c as u64 + 1);
        if cfg.refine && count < nl {
            let pieces = moving::split_disconnected(lists, &answer)?;
            let after = pieces.iter().max().map_or(0, |&c| c as u64 + 1);
            answer = pieces;
            if after != count {
                if k.len() as u64 != nl {
                    k = level_degrees(lists)?;
                }
                final_q = modularity_on(lists, &k, &answer, m2, gamma)?;
            }
        }
        drop(level);
        let answer = match up {
            None => answer,
            up => lift(&up, &answer),
        };
        Ok((answer, final_q))
    }
}

/// Each original vertex's value: `of` on the level `up` maps them to
/// (`None`: the level is the file, `of` itself); a vertex no level after
/// the file holds ([`ALONE`]) gets a community of its own, numbered
/// after `of`'s.
fn lift(up: &Option<Vec<u32>>, of: &[u32]) -> Vec<u32> {
    match up {
        None => of.to_vec(),
        Some(up) => {
            let mut next = of.iter().max().map_or(0, |&c| c + 1);
            up.iter()
                .map(|&x| match x {
                    ALONE => {
                        next += 1;
                        next - 1
                    }
                    x => of[x as usize],
                })
                .collect()
        }
    }
}

/// Each original vertex's vertex on the next level: its group there, or
/// [`ALONE`] when its group (`kept` or more) has no edges and the next
/// level leaves it out.
fn descend(up: &Option<Vec<u32>>, group: &[u32], kept: u32) -> Vec<u32> {
    let at = |x: u32| match group[x as usize] {
        g if g < kept => g,
        _ => ALONE,
    };
    match up {
        None => (0..group.len() as u32).map(at).collect(),
        Some(up) => up
            .iter()
            .map(|&x| if x == ALONE { ALONE } else { at(x) })
            .collect(),
    }
}

/// The sum over communities of their degree sums squared.
fn square_sums(comm: &[u32], k: &[f64], communities: u32) -> f64 {
    let mut tot = vec![0.0f64; communities as usize];
    for (v, &c) in comm.iter().enumerate() {
        tot[c as usize] += k[v];
    }
    tot.iter().map(|x| x * x).sum()
}

/// A level's weighted degrees (a loop twice), from one pass over its lists.
fn level_degrees(lists: &mut dyn Lists) -> Result<Vec<f64>> {
    let n = lists.vertex_count();
    let k: Vec<AtomicF64Cell> = (0..n).map(|_| AtomicF64Cell::default()).collect();
    lists.visit_whole(&Frontier::all(n), &|v, ids, ws| {
        let mut sum = 0.0;
        for (i, &u) in ids.iter().enumerate() {
            let w = ws.get(i);
            sum += if u == v { 2.0 * w } else { w };
        }
        k[v as usize].set(sum);
    })?;
    Ok(k.into_iter().map(AtomicF64Cell::get).collect())
}

/// An atomic `u32` array (for the moving phase's per-chunk decisions).
pub(crate) fn atomics(n: usize, x: u32) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(x)).collect()
}
