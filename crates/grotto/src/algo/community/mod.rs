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
#[cfg(test)]
mod tests;

use super::output::{Table, Values};
use super::reference::Csr;
use super::{Mismatch, Verdict};
use crate::engine::multilevel::{
    contract_within, Coarse, ContractOptions, FileLevel, Lists, NextGraph, Weights,
};
use crate::engine::{EngineConfig, Frontier, Run, SyncEngine};
use crate::error::{Error, Result};
use crate::store::Graph;
use crate::VertexId;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
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
    /// Rounds a sweep is cut into at least (default 1; more when a
    /// round's lists would pass [`moving::HOLD_BYTES`]): a round's slices
    /// are decided in parallel, each against the others' state at the
    /// round's start, so more rounds see more of each other's moves, at a
    /// barrier each.
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
    /// before (default 1 for Louvain, 2 for Leiden, igraph's
    /// `n_iterations`); a run that raises modularity by `threshold` or
    /// less is the last.
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
            rounds: 1,
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

/// An `f64` written once by the one visit of its vertex.
#[derive(Default)]
struct AtomicF64Cell(std::sync::atomic::AtomicU64);

impl AtomicF64Cell {
    fn set(&self, x: f64) {
        self.0.store(x.to_bits(), Relaxed)
    }
    fn get(self) -> f64 {
        f64::from_bits(self.0.into_inner())
    }
}

/// Modularity of `comm` (communities `0..c`) from per-community inside
/// weights and degree sums.
fn modularity_of(inside: &[f64], tot: &[f64], m2: f64, gamma: f64) -> f64 {
    if m2 == 0.0 {
        return 0.0;
    }
    let l: f64 = inside.iter().sum();
    let t: f64 = tot.iter().map(|x| x * x).sum();
    2.0 * l / m2 - gamma * t / (m2 * m2)
}

/// Renumbers `comm` (values below its length) densely in order of first
/// appearance; returns how many there are.
pub(crate) fn renumber(comm: &mut [u32]) -> u32 {
    let mut map = vec![u32::MAX; comm.len()];
    let mut next = 0u32;
    for c in comm.iter_mut() {
        let m = &mut map[*c as usize];
        if *m == u32::MAX {
            *m = next;
            next += 1;
        }
        *c = *m;
    }
    next
}

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
        let n = file.vertex_count();
        let up: Vec<u32> = (0..n as u32).collect();
        let weighted = file.weighted();
        let first = self.reports.len();
        self.levels(Level::File(file), k, start, up, weighted, first)
    }

    /// The levels from `level` on: `k` its degrees, `start` the partition
    /// it starts from (singletons when `None`), `up` each original
    /// vertex's vertex on it; `first` the levels reported before this
    /// pass. A next level written as a scratch file runs through an engine
    /// of its own, the rest of the levels inside that run.
    fn levels(
        &mut self,
        mut level: Level<'_, '_>,
        mut k: Vec<f64>,
        mut start: Option<Vec<u32>>,
        mut up: Vec<u32>,
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
            let communities = renumber(&mut dense);
            if (self.reports.len() > first || first > 0) && stats.moves == 0 {
                // Nothing moved: the partition the level started from, the
                // last level's, is the answer.
                answer = dense;
                break;
            }
            let entries = (0..nl as VertexId).map(|v| lists.degree(v)).sum();
            let (groups, group_count, refined) = if cfg.refine && communities as u64 != nl {
                let mut rfd = moving::refine(lists, &k, &dense, m2, cfg, self.rng_level, weighted)?;
                let c = renumber(&mut rfd);
                (rfd, c, Some(c as u64))
            } else {
                (dense.clone(), communities, None)
            };
            if cfg.levels {
                let shown = if cfg.refine && (communities as u64) < nl {
                    moving::split_disconnected(lists, &dense)?
                } else {
                    dense.clone()
                };
                self.per_level
                    .push(up.iter().map(|&x| shown[x as usize]).collect());
            }
            // Each group's community (groups refine communities).
            let mut of = vec![0u32; group_count as usize];
            for (v, &gr) in groups.iter().enumerate() {
                of[gr as usize] = dense[v];
            }
            let t1 = std::time::Instant::now();
            let next = contract_within(
                lists,
                &groups,
                group_count,
                refined.map(|_| &of[..]),
                &self.contract,
            )?;
            let contract_s = t1.elapsed().as_secs_f64();
            // Modularity of the level's (unrefined) partition.
            let mut tot = vec![0.0f64; communities as usize];
            for (v, &c) in dense.iter().enumerate() {
                tot[c as usize] += k[v];
            }
            let inside = next.outer_inside.as_ref().unwrap_or(&next.inside);
            let q = modularity_of(inside, &tot, m2, gamma);
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
            let mut kn = vec![0.0f64; group_count as usize];
            for (v, &gr) in groups.iter().enumerate() {
                kn[gr as usize] += k[v];
            }
            for x in up.iter_mut() {
                *x = groups[*x as usize];
            }
            if refined.is_some() {
                start = Some(of);
            }
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
                            std::mem::take(&mut up),
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
                final_q = modularity_on(lists, &k, &answer, m2, gamma)?;
            }
        }
        drop(level);
        Ok((up.iter().map(|&x| answer[x as usize]).collect(), final_q))
    }
}

/// Modularity of `comm` on a level, from one pass over its lists.
fn modularity_on(
    lists: &mut dyn Lists,
    k: &[f64],
    comm: &[u32],
    m2: f64,
    gamma: f64,
) -> Result<f64> {
    let c = comm.iter().max().map_or(0, |&x| x as usize + 1);
    let mut tot = vec![0.0f64; c];
    for (v, &x) in comm.iter().enumerate() {
        tot[x as usize] += k[v];
    }
    let n = lists.vertex_count();
    let inside_v: Vec<AtomicF64Cell> = (0..n).map(|_| AtomicF64Cell::default()).collect();
    lists.visit_whole(&Frontier::all(n), &|v, ids, ws: Weights<'_>| {
        let mut s = 0.0;
        for (i, &u) in ids.iter().enumerate() {
            if comm[u as usize] == comm[v as usize] {
                s += if u == v { 2.0 * ws.get(i) } else { ws.get(i) };
            }
        }
        inside_v[v as usize].set(s);
    })?;
    let mut inside = vec![0.0f64; c];
    for (v, cell) in inside_v.into_iter().enumerate() {
        inside[comm[v] as usize] += cell.get() / 2.0;
    }
    Ok(modularity_of(&inside, &tot, m2, gamma))
}

/// Modularity of a given partition of the run's graph (`community[v]`
/// for each vertex, any numbering below the vertex count), with
/// resolution `gamma`, from one pass over the lists: networkx's
/// `modularity`, its directed form on a directed graph (`L_c / m − γ
/// K_out K_in / m²`); `weights`: a weighted graph's weights count (else
/// each edge is 1).
pub fn modularity(r: &mut Run<'_>, community: &[u32], gamma: f64, weights: bool) -> Result<f64> {
    let n = r.vertex_count() as usize;
    if community.len() != n || community.iter().any(|&c| c as usize >= n.max(1)) {
        return Err(Error::Invalid(format!(
            "a partition needs a community below {n} for each of the {n} vertices"
        )));
    }
    let directed = r.graph().directed();
    let mut file = FileLevel::new(r, weights);
    if !directed {
        let deg = file_degrees(&mut file, weights)?;
        let m2: f64 = deg.k.iter().sum();
        return modularity_on(&mut file, &deg.k, community, m2, gamma);
    }
    // Per vertex: its out-weight, its weight inside its community; in-
    // weights summed by community afterwards from the targets.
    let cells: Vec<[AtomicF64Cell; 2]> = (0..n).map(|_| Default::default()).collect();
    let into: Vec<crate::algo::AtomicF64> = (0..n).map(|_| Default::default()).collect();
    file.visit_whole(&Frontier::all(n as u64), &|v, ids, ws| {
        let (mut out, mut inside) = (0.0, 0.0);
        for (i, &u) in ids.iter().enumerate() {
            let w = ws.get(i);
            out += w;
            into[community[u as usize] as usize].add(w);
            if community[u as usize] == community[v as usize] {
                inside += w;
            }
        }
        cells[v as usize][0].set(out);
        cells[v as usize][1].set(inside);
    })?;
    let (mut m, mut l) = (0.0, 0.0);
    let mut out_c = vec![0.0f64; n];
    for (v, [o, i]) in cells.into_iter().enumerate() {
        let o = o.get();
        m += o;
        l += i.get();
        out_c[community[v] as usize] += o;
    }
    if m == 0.0 {
        return Ok(0.0);
    }
    let t: f64 = out_c.iter().zip(&into).map(|(o, i)| o * i.load()).sum();
    Ok(l / m - gamma * t / (m * m))
}

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

/// Modularity of `community` on the in-memory `csr` of an undirected
/// graph, computed serially from its entries (their weights when
/// `weighted`, else 1 each): the verifier's own sum.
pub fn serial_modularity(csr: &Csr, weighted: bool, community: &[u32], gamma: f64) -> f64 {
    let n = csr.vertex_count() as usize;
    let c = community.iter().max().map_or(0, |&x| x as usize + 1);
    let (mut inside, mut tot) = (vec![0.0f64; c], vec![0.0f64; c]);
    let mut m2 = 0.0;
    for v in 0..n {
        let ids = csr.neighbors(v as VertexId);
        let ws = csr.weights(v as VertexId);
        for (i, &u) in ids.iter().enumerate() {
            let w = if weighted { ws[i] as f64 } else { 1.0 };
            // A loop: one entry, twice in the degree, once inside.
            let times = if u as usize == v { 2.0 } else { 1.0 };
            m2 += w * times;
            tot[community[v] as usize] += w * times;
            if community[u as usize] == community[v] {
                inside[community[v] as usize] += w * times / 2.0;
            }
        }
    }
    modularity_of(&inside, &tot, m2, gamma)
}

/// What the verifiers of both algorithms check: one community per
/// vertex, numbered `0..communities` by first member in the user's order,
/// and the modularity reported equal to the serial sum.
pub(crate) fn verify_partition(
    g: &Graph,
    csr: &Csr,
    cfg: &CommunityConfig,
    res: &CommunityResult,
) -> Verdict {
    let n = g.vertex_count() as usize;
    if res.community.len() != n {
        return Err(Mismatch(format!(
            "{} communities given for {n} vertices",
            res.community.len()
        )));
    }
    let mut rank = vec![0u32; n];
    g.ranks_of(0, &mut rank)
        .map_err(|e| Mismatch(e.to_string()))?;
    let mut by_rank = vec![0u32; n];
    for (v, &r) in rank.iter().enumerate() {
        by_rank[r as usize] = res.community[v];
    }
    let mut next = 0u32;
    for (r, &c) in by_rank.iter().enumerate() {
        if c > next {
            return Err(Mismatch(format!(
                "community {c} first appears at the vertex of rank {r}, before community {next}"
            )));
        }
        if c == next {
            next += 1;
        }
    }
    if next as u64 != res.communities {
        return Err(Mismatch(format!(
            "{next} communities numbered, {} reported",
            res.communities
        )));
    }
    let q = serial_modularity(
        csr,
        g.weighted() && cfg.weights,
        &res.community,
        cfg.resolution,
    );
    if (q - res.modularity).abs() > 1e-9 * q.abs().max(1.0) {
        return Err(Mismatch(format!(
            "modularity {} reported, the serial sum gives {q}",
            res.modularity
        )));
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
    let largest: Vec<u64> = super::top_k(size.len(), 5, |c| size[c] as f64)
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

/// The parameters of Louvain (`iterations` 1 by default) and Leiden (2),
/// in the registry's form.
macro_rules! community_params {
    ($iterations:literal) => {{
        use super::registry::{Kind, Param};
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
            "1",
            "Rounds a sweep is cut into at least (more when a round's lists would pass 64 MiB): a round's 64 slices are decided in parallel.",
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
pub(crate) const LOUVAIN_PARAMS: &[super::registry::Param] = community_params!("1");
/// Leiden's parameters.
pub(crate) const LEIDEN_PARAMS: &[super::registry::Param] = community_params!("2");

/// The config from parameter values.
pub(crate) fn config(p: &super::registry::Params, refine: bool) -> Result<CommunityConfig> {
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

/// An atomic `u32` array (for the moving phase's per-chunk decisions).
pub(crate) fn atomics(n: usize, x: u32) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(x)).collect()
}
