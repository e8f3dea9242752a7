//! Breadth-first search: the depth and a BFS-tree parent of every vertex
//! reachable from a source, following out-edges.
//!
//! Level-synchronous top-down BFS (CAVE's PBFS): a vertex joins the next
//! level when a thread sets its bit in a visited bitmap (one atomic
//! fetch-or; exactly one thread wins and writes the parent and depth), so
//! the depth is exact. The bitmap is what each edge probes: at n/8 bytes it
//! stays in the CPU cache where the parent array would not. Levels whose
//! frontier holds many of the arcs left run bottom-up instead ([`bottom_up`]:
//! Beamer's direction optimization, GAP's switch rule), walking the
//! unvisited vertices' in-lists and stopping at the first parent; `--direction`
//! forces either way. The verifier applies GAP's
//! rules: the source is its own parent at depth 0, every other reached
//! vertex's parent is one level up and has an edge to it, and the reached
//! set and depths match a serial BFS.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting, SEED, SOURCE};
use super::{fail, into_values, Verdict, NONE};
use crate::engine::{AsyncRun, AtomicBitmap, Flow, Frontier, Priority, Run, Seeds};
use crate::error::Result;
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

mod bottom_up;
pub mod first;

pub use bottom_up::BfsDirection;

/// Settings of a BFS.
#[derive(Clone, Debug)]
pub struct BfsConfig {
    /// Where the search starts (internal id; the CLI's default is a
    /// seeded random vertex with out-edges, see [`super::pick_source`]).
    pub source: VertexId,
    /// networkx's tree and visiting order ([`first`]; sync engine),
    /// instead of any BFS tree (default no).
    pub first_parents: bool,
    /// Which way levels run (default [`BfsDirection::Auto`]: top-down
    /// or bottom-up by GAP's rule, bottom-up only where the graph has
    /// every vertex's in-lists: undirected, or reverse edges kept).
    pub direction: BfsDirection,
}

/// Depth per vertex at the width the search needed: a byte each while
/// every depth is below 255, else four. [`Depths::get`] reads either,
/// with `u32::MAX` for unreached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Depths {
    /// Depths below 255; 255 for unreached.
    Narrow(Vec<u8>),
    /// Any depth; `u32::MAX` for unreached.
    Wide(Vec<u32>),
}

impl Depths {
    /// The depth of vertex `v` (`u32::MAX`: unreached).
    #[inline]
    pub fn get(&self, v: usize) -> u32 {
        match self {
            Depths::Narrow(d) if d[v] == u8::MAX => u32::MAX,
            Depths::Narrow(d) => d[v] as u32,
            Depths::Wide(d) => d[v],
        }
    }

    /// Vertices.
    pub fn len(&self) -> usize {
        match self {
            Depths::Narrow(d) => d.len(),
            Depths::Wide(d) => d.len(),
        }
    }

    /// Whether there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every depth in vertex order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(|v| self.get(v))
    }

    /// Every depth at four bytes.
    pub fn to_vec(&self) -> Vec<u32> {
        self.iter().collect()
    }

    /// The depths as a result column (written as counts, -1 unreached).
    pub fn into_values(self) -> Values {
        match self {
            Depths::Narrow(d) => Values::Count8(d),
            Depths::Wide(d) => Values::Count(d),
        }
    }
}

/// [`Depths`] while a search writes them.
enum DepthCells {
    Narrow(Vec<AtomicU8>),
    Wide(Vec<AtomicU32>),
}

impl DepthCells {
    #[inline]
    fn load(&self, v: VertexId) -> u32 {
        match self {
            DepthCells::Narrow(d) => match d[v as usize].load(Relaxed) {
                u8::MAX => u32::MAX,
                x => x as u32,
            },
            DepthCells::Wide(d) => d[v as usize].load(Relaxed),
        }
    }

    /// Sets `v`'s depth to `x`, below 255 while narrow ([`DepthCells::fit`]).
    #[inline]
    fn store(&self, v: VertexId, x: u32) {
        match self {
            DepthCells::Narrow(d) => d[v as usize].store(x as u8, Relaxed),
            DepthCells::Wide(d) => d[v as usize].store(x, Relaxed),
        }
    }

    /// Widens the cells, between levels, before a depth of `x` is stored.
    fn fit(&mut self, x: u32) {
        if let DepthCells::Narrow(d) = self {
            if x >= u8::MAX as u32 {
                let wide = d
                    .iter()
                    .map(|c| match c.load(Relaxed) {
                        u8::MAX => AtomicU32::new(u32::MAX),
                        x => AtomicU32::new(x as u32),
                    })
                    .collect();
                *self = DepthCells::Wide(wide);
            }
        }
    }

    fn into_depths(self) -> Depths {
        match self {
            DepthCells::Narrow(d) => {
                Depths::Narrow(d.into_iter().map(AtomicU8::into_inner).collect())
            }
            DepthCells::Wide(d) => Depths::Wide(into_values(d)),
        }
    }
}

/// Depths and parents, in internal ids.
#[derive(Clone, Debug)]
pub struct BfsResult {
    /// The source.
    pub source: VertexId,
    /// Depth per vertex; `u32::MAX` ([`Depths::get`]) when unreached.
    pub depth: Depths,
    /// Parent per vertex ([`NONE`] when unreached; the source's is itself).
    pub parent: Vec<VertexId>,
    /// Vertices reached, the source included.
    pub reached: u64,
    /// Levels with at least one vertex.
    pub levels: u32,
    /// Visiting position per vertex with `--parents first` ([`NONE`]:
    /// unreached), else `None`.
    pub order: Option<Vec<u32>>,
}

/// Runs BFS on the engine.
///
/// In block mode, a vertex found earlier in the current level whose block
/// is loaded for the level is expanded at once (its depth is already
/// final: every vertex one level closer was found in the previous level).
/// What it reaches unvisited is only a candidate for the level after next,
/// with it as parent: when the level ends, candidates that no vertex of
/// the level reached are claimed at that depth. The vertex then leaves the
/// next frontier, so its block is not read again for it.
pub fn run(r: &mut Run<'_>, cfg: &BfsConfig) -> Result<BfsResult> {
    let n = r.vertex_count();
    let s = cfg.source;
    // Written in parallel: at 5 bytes a vertex the first touch of each
    // page costs more than the search's small levels.
    let parent: Vec<AtomicU32> = r.collect(|_| AtomicU32::new(NONE));
    // A byte a vertex until a depth of 255 is reached.
    let mut depth = DepthCells::Narrow(r.collect(|_| AtomicU8::new(u8::MAX)));
    // Probed once per edge: a bitmap (n/8 bytes) stays in cache where the
    // parent array (4n bytes) would not.
    let visited = AtomicBitmap::new(n);
    // Expanded ahead of their level, and candidates for the level after
    // next. A candidate's parent goes straight into `parent` (no array of
    // its own: 4 bytes a vertex saved), by a compare-and-swap from NONE.
    // A claim in the level stores its parent unconditionally: a swap
    // before that store is overwritten and a swap after it fails, so a
    // claimed vertex keeps its claimer, and an unclaimed candidate keeps
    // the one vertex that set its bit.
    let early = AtomicBitmap::new(n);
    let candidate = AtomicBitmap::new(n);
    visited.insert(s as u64);
    parent[s as usize].store(s, Relaxed);
    depth.store(s, 0);
    let mut frontier = Frontier::single(s);
    // Claimed for the level after the one being built.
    let mut ahead: Vec<VertexId> = Vec::new();
    let (mut reached, mut levels) = (1u64, 1u32);
    // Bottom-up levels walk in-lists: an undirected graph's own lists,
    // or a directed graph's reverse edges.
    let g = r.graph();
    let pull = if !g.directed() {
        Some(Direction::Out)
    } else if g.adjacency(Direction::In).is_ok() {
        Some(Direction::In)
    } else {
        None
    };
    if pull.is_none() && cfg.direction == BfsDirection::BottomUp {
        return Err(crate::Error::Invalid(
            "--direction bottom-up needs every vertex's in-edges: an undirected graph, or a \
             directed one converted with --reverse"
                .into(),
        ));
    }
    let out_adj = g.adjacency(Direction::Out)?;
    let mut rule = bottom_up::Rule::new(cfg.direction, n, out_adj.entries(), pull.is_some());
    while !frontier.is_empty() || !ahead.is_empty() {
        // The frontier is at depth `levels - 1`; what it finds is at
        // `next_depth`, written by the thread that claims the vertex.
        let next_depth = levels;
        // Candidates found in this step are one level deeper still.
        depth.fit(next_depth + 1);
        let up = match pull {
            Some(dir)
                if rule.bottom_up(frontier.len() + ahead.len() as u64, || {
                    bottom_up::arcs_of(&frontier, out_adj)
                }) =>
            {
                Some(dir)
            }
            _ => None,
        };
        let out = match up {
            // Every unvisited vertex next to the frontier is one level
            // down (those next to a vertex expanded early were claimed
            // into `ahead` already).
            Some(dir) => {
                let front =
                    bottom_up::bitmap_of(std::mem::replace(&mut frontier, Frontier::empty()), n);
                bottom_up::step(
                    r,
                    &bottom_up::Level {
                        dir,
                        front: &front,
                        visited: &visited,
                        parent: &parent,
                        depth: &depth,
                        at: next_depth,
                    },
                )?
            }
            None => {
                let marks = Marks {
                    depth: &depth,
                    parent: &parent,
                    visited: &visited,
                    early: &early,
                    candidate: &candidate,
                };
                top_down(r, &frontier, next_depth, &marks)?
            }
        };
        // The level: what the step found plus what was claimed ahead.
        let size = out.len() + ahead.len() as u64;
        if size == 0 {
            break;
        }
        reached += size;
        levels += 1;
        // Those not expanded early form the next frontier.
        frontier = out.merge_without(&ahead, &early, n);
        // Candidates no vertex of this level reached are one level deeper.
        ahead.clear();
        let mut found = Vec::new();
        candidate.drain_words(0, candidate.word_count(), &mut found);
        for w in found {
            if visited.insert(w) {
                // Unclaimed, so `parent` still holds the candidate's.
                depth.store(w as VertexId, next_depth + 1);
                ahead.push(w as VertexId);
            }
        }
    }
    Ok(BfsResult {
        source: s,
        depth: depth.into_depths(),
        parent: into_values(parent),
        reached,
        levels,
        order: None,
    })
}

/// What a top-down level reads and marks (see [`run`]).
#[derive(Clone, Copy)]
struct Marks<'a> {
    depth: &'a DepthCells,
    parent: &'a [AtomicU32],
    visited: &'a AtomicBitmap,
    early: &'a AtomicBitmap,
    candidate: &'a AtomicBitmap,
}

/// One top-down level: expands the frontier (at depth `next_depth - 1`)
/// and the vertices found in this level whose block is loaded for it
/// (see [`run`]).
fn top_down(
    r: &mut Run<'_>,
    frontier: &Frontier,
    next_depth: u32,
    m: &Marks<'_>,
) -> Result<Frontier> {
    let Marks {
        depth,
        parent,
        visited,
        early,
        candidate,
    } = *m;
    r.step_eager(
        frontier,
        Direction::Out,
        // Found this level (or claimed ahead for it): its depth is final.
        |v| depth.load(v) == next_depth && early.insert(v as u64),
        |v, edges, next| {
            if depth.load(v) == next_depth {
                for &u in edges.ids {
                    if !visited.contains(u as u64) && candidate.insert(u as u64) {
                        let _ = parent[u as usize].compare_exchange(NONE, v, Relaxed, Relaxed);
                    }
                }
                return;
            }
            // Probe a run of neighbours without branching on the
            // answers, so the CPU overlaps the bitmap's cache misses,
            // then claim the few that were unvisited.
            let mut unseen = [0 as VertexId; 64];
            for run in edges.ids.chunks(64) {
                let mut k = 0;
                for &u in run {
                    unseen[k] = u;
                    k += usize::from(!visited.contains(u as u64));
                }
                for &u in &unseen[..k] {
                    // The thread whose insert sets the bit is the only
                    // writer, and the only one to activate u.
                    if visited.insert(u as u64) {
                        parent[u as usize].store(v, Relaxed);
                        depth.store(u, next_depth);
                        next.activate_new(u);
                    }
                }
            }
        },
    )
}

/// Runs BFS on the asynchronous engine: label-correcting search with the
/// depth as priority. A vertex's depth and parent sit in one 64-bit word
/// changed by compare-and-swap, so a parent always matches the depth it
/// was set with; a vertex reached again by a shorter path runs again.
pub fn run_async(r: &mut AsyncRun<'_>, cfg: &BfsConfig) -> Result<BfsResult> {
    let s = cfg.source;
    let pack = |d: u32, p: VertexId| ((d as u64) << 32) | p as u64;
    let state: Vec<AtomicU64> = r.collect(|_| AtomicU64::new(u64::MAX));
    state[s as usize].store(pack(0, s), Relaxed);
    // An upper bound of each depth, saturating at 255, probed first: at
    // one byte per vertex it stays in cache where the 8-byte words would
    // not, and on a low-diameter graph it answers most edges.
    let near: Vec<AtomicU8> = r.collect(|_| AtomicU8::new(u8::MAX));
    near[s as usize].store(0, Relaxed);
    // A BFS wave moves through a high-diameter graph along its layout
    // (a grid's rows, a BFS order): reading ahead keeps the device busy
    // where the wave alone would wait one read per step.
    let flow = Flow {
        readahead: true,
        ..Flow::default()
    };
    r.flow_runs(
        &flow,
        Seeds::List(&[(s, Priority::FIRST)]),
        |v| Some((v, (state[v as usize].load(Relaxed) >> 32) as u32 + 1)),
        |(v, d), nb, act| {
            // A neighbour is a candidate unless its bound says it is no
            // deeper than d (255 means "255 or more": no bound, and a
            // depth of 255 or more is compared as 254 so it always is).
            let cap = d.min(254);
            let mut unseen = [0 as VertexId; 64];
            for run in nb.ids.chunks(64) {
                // Probe the run without branching on the answers, so the
                // CPU overlaps the bounds' cache misses.
                let mut k = 0;
                for &u in run {
                    unseen[k] = u;
                    k += usize::from(near[u as usize].load(Relaxed) as u32 > cap);
                }
                for &u in &unseen[..k] {
                    let cell = &state[u as usize];
                    let mut cur = cell.load(Relaxed);
                    while d < (cur >> 32) as u32 {
                        match cell.compare_exchange_weak(cur, pack(d, v), Relaxed, Relaxed) {
                            Ok(_) => {
                                near[u as usize].fetch_min(d.min(255) as u8, Relaxed);
                                act.activate(u, Priority(d));
                                break;
                            }
                            Err(c) => cur = c,
                        }
                    }
                }
            }
        },
    )?;
    let depth: Vec<u32> = r.collect(|v| (state[v as usize].load(Relaxed) >> 32) as u32);
    let parent: Vec<u32> = r.collect(|v| state[v as usize].load(Relaxed) as u32);
    drop(state);
    let (reached, deepest) = depth
        .iter()
        .filter(|&&d| d != u32::MAX)
        .fold((0u64, 0u32), |(k, m), &d| (k + 1, m.max(d)));
    let levels = if reached > 0 { deepest + 1 } else { 0 };
    Ok(BfsResult {
        source: s,
        depth: Depths::Wide(depth),
        parent,
        reached,
        levels,
        order: None,
    })
}

/// Checks `res` against GAP's rules and a serial BFS on `g`.
// Verifiers index several per-vertex arrays by the same vertex.
#[allow(clippy::needless_range_loop)]
pub fn verify(g: &Csr, res: &BfsResult) -> Verdict {
    let s = res.source;
    let want = g.bfs_depths(s);
    if res.parent[s as usize] != s || res.depth.get(s as usize) != 0 {
        fail!("the source {s} is not its own parent at depth 0");
    }
    for v in 0..g.vertex_count() as usize {
        let (d, p) = (res.depth.get(v), res.parent[v]);
        if (want[v] == u32::MAX) != (p == NONE) {
            fail!(
                "vertex {v}: reachable by serial BFS: {}, has a parent: {}",
                want[v] != u32::MAX,
                p != NONE
            );
        }
        if p == NONE || v as VertexId == s {
            continue;
        }
        if d != want[v] {
            fail!("vertex {v} has depth {d}, serial BFS says {}", want[v]);
        }
        if res.depth.get(p as usize).wrapping_add(1) != d {
            fail!(
                "vertex {v} at depth {d} has parent {p} at depth {}",
                res.depth.get(p as usize)
            );
        }
        if !g.has_edge(p, v as VertexId) {
            fail!("vertex {v}'s parent {p} has no edge to it");
        }
    }
    Ok(())
}

impl BfsResult {
    /// Per-vertex `vertex,depth,parent` in the user's ids (-1: unreached).
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("depth", self.depth.into_values());
        t.push("parent", Values::Vertex(self.parent));
        if let Some(order) = self.order {
            t.push(
                "order",
                Values::I64(
                    order
                        .into_iter()
                        .map(|p| if p == NONE { -1 } else { p as i64 })
                        .collect(),
                ),
            );
        }
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self, g: &Graph) -> serde_json::Value {
        serde_json::json!({
            "source": g.label(self.source),
            "reached": self.reached,
            "levels": self.levels,
        })
    }
}

/// BFS as a registered algorithm (`grotto run bfs`).
pub struct Bfs;

impl Algorithm for Bfs {
    const NAME: &'static str = "bfs";
    const ABOUT: &'static str =
        "Breadth-first search: depth and parent of every vertex reachable from a source.";
    const PARAMS: &'static [Param] = &[
        SOURCE,
        SEED,
        Param::with_default(
            "parents",
            Kind::Choice(&["any", "first"]),
            "any",
            "any: a BFS tree; first: networkx's, each vertex's parent the first visited vertex \
             with an edge to it (neighbours taken in increasing id order), and the column order \
             (the visiting position; sync engine).",
        ),
        Param::with_default(
            "direction",
            Kind::Choice(&["auto", "top-down", "bottom-up"]),
            "auto",
            "auto: each level top-down or bottom-up by GAP's rule (bottom-up walks the unvisited \
             vertices' in-lists and stops at the first parent; it needs an undirected graph or \
             reverse edges, else every level is top-down); top-down: every level expands the \
             frontier; bottom-up: every level walks the unvisited vertices (sync engine).",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = true;
    type Config = BfsConfig;
    type Output = BfsResult;

    /// The asynchronous engine wins by far on sparse, high-diameter graphs
    /// (1000x1000 grid: 46x) and loses on dense, low-diameter ones (R-MAT:
    /// about 1.5x slower, CPU-bound on 2 cores); the average degree tells
    /// them apart.
    fn preferred(g: &Graph) -> EngineKind {
        if super::average_degree(g) >= 8.0 {
            EngineKind::Sync
        } else {
            EngineKind::Async
        }
    }
    /// networkx's tree, and a forced direction, are the sync engine's.
    fn preferred_for(g: &Graph, p: &Params) -> EngineKind {
        let forced = matches!(p.text("direction"), Ok(Some("top-down" | "bottom-up")));
        match p.text("parents") {
            Ok(Some("first")) => EngineKind::Sync,
            _ if forced => EngineKind::Sync,
            _ => Self::preferred(g),
        }
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<BfsConfig> {
        Ok(BfsConfig {
            source: p.source(g)?,
            first_parents: p.text("parents")? == Some("first"),
            direction: match p.text("direction")? {
                Some("top-down") => BfsDirection::TopDown,
                Some("bottom-up") => BfsDirection::BottomUp,
                _ => BfsDirection::Auto,
            },
        })
    }
    fn config_json(g: &Graph, p: &Params, c: &BfsConfig) -> Result<serde_json::Value> {
        Ok(
            serde_json::json!({"source": g.label(c.source), "seed": p.u64("seed")?,
            "parents": if c.first_parents { "first" } else { "any" },
            "direction": p.text("direction")?.unwrap_or("auto")}),
        )
    }
    fn run_sync(r: &mut Run<'_>, c: &BfsConfig) -> Result<BfsResult> {
        if c.first_parents {
            return first::run(r, c);
        }
        run(r, c)
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &BfsConfig) -> Result<BfsResult> {
        if c.first_parents {
            return Err(crate::Error::Invalid(
                "--parents first (networkx's tree) runs on the synchronous engine: use --engine \
                 sync (or auto)"
                    .into(),
            ));
        }
        if c.direction != BfsDirection::Auto {
            return Err(crate::Error::Invalid(
                "--direction top-down or bottom-up runs on the synchronous engine: use --engine \
                 sync (or auto)"
                    .into(),
            ));
        }
        run_async(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, c: &BfsConfig, out: &BfsResult) -> Verdict {
        verify(csr, out)?;
        if c.first_parents {
            first::verify(g, csr, out)?;
        }
        Ok(())
    }
    fn table(g: &Arc<Graph>, out: BfsResult) -> Table {
        out.into_table(g)
    }
    fn summary(g: &Graph, out: &BfsResult) -> serde_json::Value {
        out.summary(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;

    /// Two grids side by side (the second unreachable from the first),
    /// a directed path with its reverse edges, and isolated vertices.
    fn pieces() -> testkit::TestGraph {
        let mut e = testkit::grid_edges(20, 30);
        e.extend(
            testkit::grid_edges(5, 5)
                .into_iter()
                .map(|(a, b)| (a + 600, b + 600)),
        );
        e.extend((700..760).map(|v| (v, v + 1)));
        e.push((0, 700));
        // 761..800 isolated: the id range reaches 800.
        e.push((800, 0));
        testkit::from_edges(&e, false, true)
    }

    #[test]
    fn matches_serial_bfs_in_every_configuration() {
        for (tg, wide) in [
            (testkit::rmat(11, 8, 3, true), false),
            (testkit::rmat(10, 6, 4, false), false),
            (testkit::grid(30, 40), false),
            // Depths past 254: the byte-wide depths widen mid-run.
            (testkit::grid(3, 400), true),
            // A level of 40,000 vertices: activation lists spill.
            (testkit::star(40_000), false),
            // Vertices a bottom-up level finds no parent for.
            (pieces(), false),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let s = super::super::pick_source(&tg.graph, 1).unwrap();
            for cfg in testkit::configs() {
                let e = crate::engine::SyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
                for direction in [
                    BfsDirection::Auto,
                    BfsDirection::TopDown,
                    BfsDirection::BottomUp,
                ] {
                    let c = BfsConfig {
                        source: s,
                        first_parents: false,
                        direction,
                    };
                    let (res, m) = e.run(|r| run(r, &c)).unwrap();
                    verify(&csr, &res).unwrap_or_else(|e| panic!("{cfg:?} {direction:?}: {e}"));
                    assert_eq!(matches!(res.depth, Depths::Wide(_)), wide, "{cfg:?}");
                    let want: u64 = (0..csr.vertex_count() as VertexId)
                        .filter(|&v| res.parent[v as usize] != NONE)
                        .map(|v| csr.neighbors(v).len() as u64)
                        .sum();
                    if direction == BfsDirection::TopDown {
                        assert_eq!(m.traversed_edges, want, "{cfg:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_directed_graph_without_reverse_edges_runs_top_down() {
        let tg = testkit::from_edges(&testkit::rmat_edges(9, 8, 5), false, false);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let s = super::super::pick_source(&tg.graph, 1).unwrap();
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let mut c = BfsConfig {
            source: s,
            first_parents: false,
            direction: BfsDirection::Auto,
        };
        let (res, _) = e.run(|r| run(r, &c)).unwrap();
        verify(&csr, &res).unwrap();
        c.direction = BfsDirection::BottomUp;
        let err = e.run(|r| run(r, &c)).unwrap_err().to_string();
        assert!(err.contains("--reverse"), "{err}");
    }

    #[test]
    fn auto_goes_bottom_up_on_rmat_and_reads_fewer_edges() {
        let tg = testkit::rmat(12, 16, 9, true);
        let s = super::super::pick_source(&tg.graph, 1).unwrap();
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let edges = |direction| {
            let c = BfsConfig {
                source: s,
                first_parents: false,
                direction,
            };
            let (res, m) = e.run(|r| run(r, &c)).unwrap();
            (res.reached, m.traversed_edges)
        };
        let (auto, top) = (edges(BfsDirection::Auto), edges(BfsDirection::TopDown));
        assert_eq!(auto.0, top.0);
        assert!(auto.1 < top.1, "auto {auto:?} top-down {top:?}");
    }

    #[test]
    fn async_matches_serial_bfs_in_every_configuration() {
        for tg in [
            testkit::rmat(11, 8, 3, true),
            testkit::rmat(10, 6, 4, false),
            testkit::grid(30, 40),
            testkit::grid(3, 400), // depths beyond 255
            testkit::star(5000),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let s = super::super::pick_source(&tg.graph, 1).unwrap();
            for cfg in testkit::configs() {
                let e = crate::engine::AsyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
                let (res, _) = e
                    .run(|r| {
                        run_async(
                            r,
                            &BfsConfig {
                                source: s,
                                first_parents: false,
                                direction: BfsDirection::Auto,
                            },
                        )
                    })
                    .unwrap();
                verify(&csr, &res).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
            }
        }
    }

    #[test]
    fn verifier_catches_a_wrong_parent() {
        let tg = testkit::grid(5, 5);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let (mut res, _) = e
            .run(|r| {
                run(
                    r,
                    &BfsConfig {
                        source: 0,
                        first_parents: false,
                        direction: BfsDirection::Auto,
                    },
                )
            })
            .unwrap();
        verify(&csr, &res).unwrap();
        res.parent[24] = 0;
        assert!(verify(&csr, &res).is_err());
    }
}
