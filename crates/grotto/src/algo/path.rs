//! A shortest path from one vertex to another: the path itself, vertex by
//! vertex, searched from both ends where the graph allows it and stopped
//! as soon as the path is known.
//!
//! Hops (`weighted` off) on the synchronous engine: a bidirectional BFS.
//! Each step expands, level by level, the side whose frontier is
//! smaller: forward along out-edges from the source, backward along the
//! target's in-edges (the reverse edges of a directed graph, the lists of
//! an undirected one). The first step that reaches a vertex the other side
//! has seen ends the search; among the vertices it met in that step, the
//! one nearest the other end is on a shortest path (every one met is at
//! the same depth on this side). A directed graph without reverse edges is
//! searched forward only, to the target's level.
//!
//! Weights (`weighted` on) on the asynchronous engine: priority-ordered
//! label correcting as [`super::sssp`] (distance and parent in one 64-bit
//! word, `f32` sums as the weights are stored), run from both ends at once
//! on an undirected graph: a vertex holds a distance from the source and
//! one to the target, and a processed vertex sends both. Each edge a side
//! sends along offers a path (its distance, the edge and the other side's
//! distance at the far end); the shortest offered so far bounds the search,
//! and a side's distance that exceeds half of it is sent no further. Every
//! vertex within half the shortest distance of either end is then settled,
//! and a shortest path has an edge between two such vertices, one settled
//! from each end, so it is offered by whichever end processed its vertex
//! last. A directed graph is searched forward, a vertex sent further only
//! while its distance is below the target's (early stopping; the engine
//! runs one direction a pass). The asynchronous engine also counts hops
//! (every weight 1) when asked to.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{atomics_u32, fail, in_direction, Verdict, NONE};
use crate::engine::{AsyncRun, AtomicBitmap, Flow, Frontier, Priority, Run, Seeds};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// Settings of a point-to-point search.
#[derive(Clone, Debug)]
pub struct PathConfig {
    /// Where the path starts (internal id).
    pub source: VertexId,
    /// Where it ends (internal id).
    pub target: VertexId,
    /// Follow edge weights (default no: count hops, networkx's
    /// `weight=None`).
    pub weighted: bool,
}

/// A shortest path, in internal ids.
#[derive(Clone, Debug)]
pub struct PathResult {
    /// The source.
    pub source: VertexId,
    /// The target.
    pub target: VertexId,
    /// The path's vertices from source to target (empty: no path).
    pub path: Vec<VertexId>,
    /// Each path vertex's distance from the source (hops, or the sum of
    /// the weights along the path).
    pub dist: Vec<f64>,
    /// Whether weights were followed.
    pub weighted: bool,
    /// Whether the search ran from both ends.
    pub bidirectional: bool,
    /// Vertices whose lists the search read (both sides; a vertex read
    /// again after its distance fell counts again).
    pub searched: u64,
}

impl PathResult {
    fn single(cfg: &PathConfig, bidirectional: bool) -> PathResult {
        PathResult {
            source: cfg.source,
            target: cfg.target,
            path: vec![cfg.source],
            dist: vec![0.0],
            weighted: cfg.weighted,
            bidirectional,
            searched: 0,
        }
    }

    /// The path's length (hops, or the weights' sum); `None` without a
    /// path.
    pub fn length(&self) -> Option<f64> {
        self.dist.last().copied()
    }
}

/// The vertices from `from` back to the end whose parents `parent`
/// holds (`end` is its own parent), `from` first; an error if the chain
/// does not reach `end` within `limit` steps (a broken parent array).
fn chain(
    from: VertexId,
    end: VertexId,
    limit: u64,
    parent: impl Fn(VertexId) -> VertexId,
) -> Result<Vec<VertexId>> {
    let mut out = vec![from];
    let mut v = from;
    while v != end {
        v = parent(v);
        if v == NONE || out.len() as u64 > limit {
            return Err(Error::Invalid(format!(
                "internal error: the search's parents from vertex {from} do not lead to {end}"
            )));
        }
        out.push(v);
    }
    Ok(out)
}

/// Bidirectional BFS on the synchronous engine (hops).
pub fn run(r: &mut Run<'_>, cfg: &PathConfig) -> Result<PathResult> {
    if cfg.weighted {
        return Err(Error::Invalid(
            "a weighted path runs on the asynchronous engine: use --engine async (or auto)".into(),
        ));
    }
    let back = in_direction(r.graph());
    if cfg.source == cfg.target {
        return Ok(PathResult::single(cfg, back.is_some()));
    }
    let n = r.vertex_count();
    let (s, t) = (cfg.source, cfg.target);
    // Per side: its visited set (probed per edge), parents and depths.
    let sides = [Side::new(n, s), Side::new(n, t)];
    // Met so far: the other side's depth and the vertex, packed so the
    // nearest to the other end wins a fetch-min.
    let met = AtomicU64::new(u64::MAX);
    let mut fronts = [Frontier::single(s), Frontier::single(t)];
    let mut levels = [0u32; 2];
    let mut searched = 0u64;
    loop {
        let side = match back {
            // Forward only: the target's depth is its one "other side".
            None => 0,
            Some(_) if fronts[0].len() <= fronts[1].len() => 0,
            Some(_) => 1,
        };
        if fronts[side].is_empty() {
            break;
        }
        let dir = if side == 0 {
            Direction::Out
        } else {
            back.unwrap_or(Direction::Out)
        };
        let (me, other) = (&sides[side], &sides[1 - side]);
        let depth = levels[side] + 1;
        let forward_only = back.is_none();
        searched += fronts[side].len();
        let next = r.step(&fronts[side], dir, |v, edges, next| {
            for &u in edges.ids {
                if me.seen.contains(u as u64) || !me.seen.insert(u as u64) {
                    continue;
                }
                me.parent[u as usize].store(v, Relaxed);
                me.depth[u as usize].store(depth, Relaxed);
                next.activate_new(u);
                let far = if forward_only {
                    if u == t {
                        0
                    } else {
                        u32::MAX
                    }
                } else {
                    other.depth[u as usize].load(Relaxed)
                };
                if far != u32::MAX {
                    met.fetch_min((far as u64) << 32 | u as u64, Relaxed);
                }
            }
        })?;
        fronts[side] = next;
        levels[side] = depth;
        if met.load(Relaxed) != u64::MAX {
            break;
        }
    }
    let m = met.into_inner();
    if m == u64::MAX {
        return Ok(PathResult {
            path: Vec::new(),
            dist: Vec::new(),
            searched,
            ..PathResult::single(cfg, back.is_some())
        });
    }
    let u = m as u32;
    let mut path = chain(u, s, n, |v| sides[0].parent[v as usize].load(Relaxed))?;
    path.reverse();
    if back.is_some() {
        let rest = chain(u, t, n, |v| sides[1].parent[v as usize].load(Relaxed))?;
        path.extend_from_slice(&rest[1..]);
    }
    Ok(PathResult {
        dist: (0..path.len()).map(|i| i as f64).collect(),
        path,
        searched,
        ..PathResult::single(cfg, back.is_some())
    })
}

/// One end of a bidirectional BFS.
struct Side {
    seen: AtomicBitmap,
    parent: Vec<AtomicU32>,
    depth: Vec<AtomicU32>,
}

impl Side {
    fn new(n: u64, root: VertexId) -> Side {
        let side = Side {
            seen: AtomicBitmap::new(n),
            parent: atomics_u32(n, NONE),
            depth: atomics_u32(n, u32::MAX),
        };
        side.seen.insert(root as u64);
        side.parent[root as usize].store(root, Relaxed);
        side.depth[root as usize].store(0, Relaxed);
        side
    }
}

fn pack(d: f32, p: VertexId) -> u64 {
    ((d.to_bits() as u64) << 32) | p as u64
}

fn dist_of(x: u64) -> f32 {
    f32::from_bits((x >> 32) as u32)
}

/// Lowers `cell`'s distance to `d` with parent `p` if `d` is shorter;
/// true when it did.
#[inline]
fn relax(cell: &AtomicU64, d: f32, p: VertexId) -> bool {
    let mut cur = cell.load(Relaxed);
    while d < dist_of(cur) {
        match cell.compare_exchange_weak(cur, pack(d, p), Relaxed, Relaxed) {
            Ok(_) => return true,
            Err(c) => cur = c,
        }
    }
    false
}

/// The shortest path offered so far: its length (as `f32` bits, which
/// order as the lengths do, for a lock-free test on every offer) and the
/// edge `x -> y` it crosses, `x` settled from the source and `y` from the
/// target.
struct Offers {
    best: AtomicU32,
    edge: Mutex<(f32, VertexId, VertexId)>,
}

impl Offers {
    fn best(&self) -> f32 {
        f32::from_bits(self.best.load(Relaxed))
    }

    fn offer(&self, len: f32, x: VertexId, y: VertexId) {
        if len < self.best() {
            let mut e = self.edge.lock().unwrap_or_else(|p| p.into_inner());
            if len < e.0 {
                *e = (len, x, y);
                self.best.fetch_min(len.to_bits(), Relaxed);
            }
        }
    }
}

/// The search on the asynchronous engine: from both ends of an undirected
/// graph, forward with early stopping on a directed one.
pub fn run_async(r: &mut AsyncRun<'_>, cfg: &PathConfig) -> Result<PathResult> {
    let g = r.graph();
    if cfg.weighted && !g.weighted() {
        return Err(Error::Invalid(
            "a weighted path needs edge weights and this graph has none: convert a `u v w` \
             edge list with --weighted (without --weighted, path counts hops)"
                .into(),
        ));
    }
    let both = !g.directed();
    if cfg.source == cfg.target {
        return Ok(PathResult::single(cfg, both));
    }
    let n = r.vertex_count();
    let (s, t) = (cfg.source, cfg.target);
    let unreached = pack(f32::INFINITY, NONE);
    let fwd: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(unreached)).collect();
    let bwd: Vec<AtomicU64> = (0..if both { n } else { 0 })
        .map(|_| AtomicU64::new(unreached))
        .collect();
    fwd[s as usize].store(pack(0.0, s), Relaxed);
    if both {
        bwd[t as usize].store(pack(0.0, t), Relaxed);
    }
    let offers = Offers {
        best: AtomicU32::new(f32::INFINITY.to_bits()),
        edge: Mutex::new((f32::INFINITY, NONE, NONE)),
    };
    let searched = AtomicU64::new(0);
    let bad: Mutex<Option<(VertexId, VertexId, f32)>> = Mutex::new(None);
    // Whether a side's distance `d` is still worth sending on.
    let live = |d: f32| {
        let b = offers.best();
        if both {
            d + d <= b
        } else {
            d < b
        }
    };
    // The target side's distance at `u`.
    let to_target = |u: VertexId| {
        if both {
            dist_of(bwd[u as usize].load(Relaxed))
        } else if u == t {
            0.0
        } else {
            f32::INFINITY
        }
    };
    let seeds = [(s, Priority::FIRST), (t, Priority::FIRST)];
    let seeds = if both { &seeds[..] } else { &seeds[..1] };
    let inf = f32::INFINITY;
    r.flow(
        &Flow {
            weights: cfg.weighted,
            ..Flow::default()
        },
        Seeds::List(seeds),
        |v| {
            let df = dist_of(fwd[v as usize].load(Relaxed));
            let df = if live(df) { df } else { inf };
            let db = if both { to_target(v) } else { inf };
            let db = if live(db) { db } else { inf };
            if df == inf && db == inf {
                return None;
            }
            searched.fetch_add(1, Relaxed);
            Some((df, db))
        },
        |(df, db), e| {
            if e.weight.is_nan() || e.weight < 0.0 {
                let mut b = bad.lock().unwrap_or_else(|p| p.into_inner());
                b.get_or_insert((e.src, e.dst, e.weight));
                return None;
            }
            let mut next = inf;
            if df < inf {
                let nd = df + e.weight;
                let far = to_target(e.dst);
                if far < inf {
                    offers.offer(nd + far, e.src, e.dst);
                }
                if relax(&fwd[e.dst as usize], nd, e.src) && live(nd) && e.dst != t {
                    next = nd;
                }
            }
            if db < inf {
                let nd = db + e.weight;
                let near = dist_of(fwd[e.dst as usize].load(Relaxed));
                if near < inf {
                    offers.offer(near + nd, e.dst, e.src);
                }
                if relax(&bwd[e.dst as usize], nd, e.src) && live(nd) {
                    next = next.min(nd);
                }
            }
            (next < inf).then(|| Priority::ascending_f32(next))
        },
    )?;
    if let Some((u, v, w)) = bad.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(Error::Invalid(format!(
            "edge {} -> {} has weight {w}: shortest paths need non-negative weights",
            g.label_text(u),
            g.label_text(v)
        )));
    }
    let searched = searched.into_inner();
    let (len, x, y) = offers.edge.into_inner().unwrap_or_else(|p| p.into_inner());
    if len == inf {
        return Ok(PathResult {
            path: Vec::new(),
            dist: Vec::new(),
            searched,
            ..PathResult::single(cfg, both)
        });
    }
    let mut path = chain(x, s, n, |v| fwd[v as usize].load(Relaxed) as u32)?;
    path.reverse();
    let rest = if both {
        chain(y, t, n, |v| bwd[v as usize].load(Relaxed) as u32)?
    } else {
        vec![t]
    };
    let mut dist: Vec<f64> = path
        .iter()
        .map(|&v| dist_of(fwd[v as usize].load(Relaxed)) as f64)
        .collect();
    for &v in &rest {
        dist.push(if both {
            (len - to_target(v)) as f64
        } else {
            len as f64
        });
    }
    path.extend_from_slice(&rest);
    Ok(PathResult {
        path,
        dist,
        searched,
        ..PathResult::single(cfg, both)
    })
}

/// Serial Dijkstra with `f64` sums (hops when `weighted` is off): the
/// distance from `s` to every vertex.
fn serial_distances(g: &Csr, s: VertexId, weighted: bool) -> Vec<f64> {
    use std::cmp::Reverse;
    let n = g.vertex_count() as usize;
    let mut dist = vec![f64::INFINITY; n];
    dist[s as usize] = 0.0;
    let mut heap = std::collections::BinaryHeap::new();
    heap.push(Reverse((0u64, s)));
    while let Some(Reverse((bits, v))) = heap.pop() {
        let d = f64::from_bits(bits);
        if d > dist[v as usize] {
            continue;
        }
        for (i, &u) in g.neighbors(v).iter().enumerate() {
            let w = if weighted {
                g.weights(v)[i] as f64
            } else {
                1.0
            };
            let nd = d + w;
            if nd < dist[u as usize] {
                dist[u as usize] = nd;
                heap.push(Reverse((nd.to_bits(), u)));
            }
        }
    }
    dist
}

/// Checks the path against a serial Dijkstra (BFS for hops): a path
/// exactly when the target is reachable, from the source to the target
/// along edges of the graph, and as short as the serial distance (hops
/// exactly; weights up to the `f32` rounding of the search's sums).
pub fn verify(g: &Csr, cfg: &PathConfig, res: &PathResult) -> Verdict {
    let want = serial_distances(g, cfg.source, cfg.weighted)[cfg.target as usize];
    if want.is_infinite() {
        if !res.path.is_empty() {
            fail!(
                "a path of {} vertices, but the target is unreachable",
                res.path.len()
            );
        }
        return Ok(());
    }
    if res.path.first() != Some(&cfg.source) || res.path.last() != Some(&cfg.target) {
        fail!(
            "the path runs from {:?} to {:?}, not from the source {} to the target {}",
            res.path.first(),
            res.path.last(),
            cfg.source,
            cfg.target
        );
    }
    let mut len = 0.0f64;
    for pair in res.path.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let w = g
            .neighbors(a)
            .iter()
            .enumerate()
            .filter(|&(_, &u)| u == b)
            .map(|(i, _)| {
                if cfg.weighted {
                    g.weights(a)[i] as f64
                } else {
                    1.0
                }
            })
            .fold(f64::INFINITY, f64::min);
        if w.is_infinite() {
            fail!("the path steps from {a} to {b}, which have no edge");
        }
        len += w;
    }
    let slack = if cfg.weighted {
        want * res.path.len() as f64 * f32::EPSILON as f64
    } else {
        0.0
    };
    if (len - want).abs() > slack {
        fail!("the path is {len} long, a shortest one {want}");
    }
    if res.dist.len() != res.path.len() {
        fail!(
            "{} distances for {} path vertices",
            res.dist.len(),
            res.path.len()
        );
    }
    match res.length() {
        Some(l) if (l - len).abs() <= slack => Ok(()),
        l => fail!("the path's length is given as {l:?}, its edges sum to {len}"),
    }
}

impl PathResult {
    /// One row per vertex of the path: `step` (from 0 at the source),
    /// `vertex` in the user's ids and `distance` from the source (no rows
    /// without a path).
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::rows_of(g.clone());
        t.push("step", Values::U64((0..self.path.len() as u64).collect()));
        t.push("vertex", Values::Vertex(self.path));
        t.push("distance", Values::F64(self.dist));
        t
    }

    /// Figures for the run summary (the path itself while it has at most
    /// [`SHOWN`] vertices; the table always holds it).
    pub fn summary(&self, g: &Graph) -> serde_json::Value {
        let hops = self.path.len().saturating_sub(1);
        serde_json::json!({
            "source": g.label(self.source),
            "target": g.label(self.target),
            "reachable": !self.path.is_empty(),
            "length": self.length(),
            "hops": (!self.path.is_empty()).then_some(hops),
            "weighted": self.weighted,
            "search": if self.bidirectional { "bidirectional" } else { "forward" },
            "searched_vertices": self.searched,
            "path": (self.path.len() <= SHOWN)
                .then(|| self.path.iter().map(|&v| g.label(v)).collect::<Vec<_>>()),
        })
    }
}

/// Path vertices the run summary lists at most.
pub const SHOWN: usize = 10_000;

/// The point-to-point search as a registered algorithm (`grotto run path`).
pub struct ShortestPath;

impl Algorithm for ShortestPath {
    const NAME: &'static str = "path";
    const ABOUT: &'static str = "A shortest path from --source to --target, vertex by vertex \
         (hops, or weights with --weighted), searched from both ends where it can.";
    const PARAMS: &'static [Param] = &[
        Param::required(
            "source",
            Kind::Vertex,
            "Where the path starts, in your ids.",
        ),
        Param::required("target", Kind::Vertex, "Where it ends, in your ids."),
        Param::with_default(
            "weighted",
            Kind::Flag,
            "false",
            "Follow the edge weights (a weighted graph; async engine) instead of counting hops.",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = true;
    type Config = PathConfig;
    type Output = PathResult;

    /// Hops: as BFS, the synchronous engine's level steps on graphs of
    /// average degree 8 or more, whose few wide levels the two sides
    /// meet in; the asynchronous engine on sparse, high-diameter ones,
    /// where a step per level costs more than the level's work (a
    /// 1500x1500 road-like grid, 1541 hops: 0.74 s async, 1.34 s sync).
    fn preferred(g: &Graph) -> EngineKind {
        if super::average_degree(g) >= 8.0 {
            EngineKind::Sync
        } else {
            EngineKind::Async
        }
    }
    /// Weights on the asynchronous engine, the only one that orders by
    /// distance.
    fn preferred_for(g: &Graph, p: &Params) -> EngineKind {
        if p.flag("weighted").unwrap_or(false) {
            EngineKind::Async
        } else {
            Self::preferred(g)
        }
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<PathConfig> {
        let need = |name: &str| {
            p.vertex(g, name)?
                .ok_or_else(|| Error::Invalid(format!("--{name} is required")))
        };
        Ok(PathConfig {
            source: need("source")?,
            target: need("target")?,
            weighted: p.flag("weighted")?,
        })
    }
    fn config_json(g: &Graph, _: &Params, c: &PathConfig) -> Result<serde_json::Value> {
        Ok(
            serde_json::json!({"source": g.label(c.source), "target": g.label(c.target),
            "weighted": c.weighted}),
        )
    }
    fn run_sync(r: &mut Run<'_>, c: &PathConfig) -> Result<PathResult> {
        run(r, c)
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &PathConfig) -> Result<PathResult> {
        run_async(r, c)
    }
    fn verify(_: &Graph, csr: &Csr, c: &PathConfig, out: &PathResult) -> Verdict {
        verify(csr, c, out)
    }
    fn table(g: &Arc<Graph>, out: PathResult) -> Table {
        out.into_table(g)
    }
    fn summary(g: &Graph, out: &PathResult) -> serde_json::Value {
        out.summary(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{AsyncEngine, SyncEngine};
    use crate::testkit;

    /// Every pair among a few vertices, on both engines and every engine
    /// configuration, hops and (on weighted graphs) weights.
    fn check_pairs(tg: &testkit::TestGraph, weighted: bool, pairs: &[(VertexId, VertexId)]) {
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        for cfg in testkit::configs() {
            let a = AsyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
            let s = SyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
            for &(source, target) in pairs {
                let c = PathConfig {
                    source,
                    target,
                    weighted,
                };
                let (res, _) = a.run(|r| run_async(r, &c)).unwrap();
                verify(&csr, &c, &res).unwrap_or_else(|e| panic!("async {cfg:?} {c:?}: {e}"));
                if !weighted {
                    let (res, _) = s.run(|r| run(r, &c)).unwrap();
                    verify(&csr, &c, &res).unwrap_or_else(|e| panic!("sync {cfg:?} {c:?}: {e}"));
                }
            }
        }
    }

    /// Pairs given in the user's ids, as internal ones.
    fn ids(tg: &testkit::TestGraph, user: &[(u64, u64)]) -> Vec<(VertexId, VertexId)> {
        let id = |v: u64| tg.graph.vertex_named(&v.to_string()).unwrap();
        user.iter().map(|&(a, b)| (id(a), id(b))).collect()
    }

    fn pairs(n: u64, k: u64) -> Vec<(VertexId, VertexId)> {
        let mut rng = crate::rng::Rng::new(k, 3);
        let mut out: Vec<_> = (0..k)
            .map(|_| (rng.below(n) as VertexId, rng.below(n) as VertexId))
            .collect();
        out.push((0, 0));
        out
    }

    #[test]
    fn hops_match_serial_bfs_both_ways_and_forward() {
        for tg in [
            testkit::rmat(10, 6, 4, true),
            testkit::rmat(10, 6, 4, false),
            // Directed without reverse edges: forward only.
            testkit::from_edges(&testkit::rmat_edges(9, 6, 2), false, false),
            testkit::grid(20, 30),
            testkit::star(500),
        ] {
            let n = tg.graph.vertex_count();
            check_pairs(&tg, false, &pairs(n, 6));
        }
    }

    #[test]
    fn weights_match_serial_dijkstra() {
        for undirected in [true, false] {
            let tg = testkit::weighted_rmat(10, 8, 5, undirected);
            let n = tg.graph.vertex_count();
            check_pairs(&tg, true, &pairs(n, 6));
        }
    }

    #[test]
    fn unreachable_targets_give_no_path() {
        // Two pieces, and a one-way edge.
        let tg = testkit::from_edges(&[(0, 1), (1, 2), (3, 4), (4, 5)], true, false);
        check_pairs(&tg, false, &ids(&tg, &[(0, 5), (5, 0), (0, 2), (2, 0)]));
        for reverse in [true, false] {
            let d = testkit::from_edges(&[(0, 1), (1, 2), (2, 3)], false, reverse);
            check_pairs(&d, false, &ids(&d, &[(3, 0), (0, 3), (1, 1)]));
        }
        let w = testkit::from_weighted(&[(0, 1, 1.0), (2, 3, 2.0)], true);
        check_pairs(&w, true, &ids(&w, &[(0, 3), (0, 1), (3, 2)]));
    }

    #[test]
    fn takes_the_lighter_way_round() {
        // 0-1-2-3 costs 3; 0-3 directly costs 5: weights take the long
        // way, hops the short one.
        let tg =
            testkit::from_weighted(&[(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (0, 3, 5.0)], true);
        let g = &tg.graph;
        let id = |v: u64| g.vertex_named(&v.to_string()).unwrap();
        let e = AsyncEngine::open(g.clone(), Default::default()).unwrap();
        for (weighted, want, len) in [(true, vec![0, 1, 2, 3], 3.0), (false, vec![0, 3], 1.0)] {
            let c = PathConfig {
                source: id(0),
                target: id(3),
                weighted,
            };
            let (res, _) = e.run(|r| run_async(r, &c)).unwrap();
            let want: Vec<VertexId> = want.into_iter().map(id).collect();
            assert_eq!(res.path, want);
            assert_eq!(res.length(), Some(len));
            assert!(res.bidirectional);
        }
    }

    #[test]
    fn verifier_catches_a_longer_path_and_a_missing_edge() {
        let tg = testkit::from_edges(&[(0, 1), (1, 2), (2, 3), (0, 3)], true, false);
        let g = &tg.graph;
        let id = |v: u64| g.vertex_named(&v.to_string()).unwrap();
        let csr = Csr::load(g, Direction::Out).unwrap();
        let c = PathConfig {
            source: id(0),
            target: id(3),
            weighted: false,
        };
        let long = PathResult {
            path: vec![id(0), id(1), id(2), id(3)],
            dist: vec![0.0, 1.0, 2.0, 3.0],
            ..PathResult::single(&c, true)
        };
        assert!(verify(&csr, &c, &long).is_err());
        let short = PathResult {
            path: vec![id(0), id(3)],
            dist: vec![0.0, 1.0],
            ..PathResult::single(&c, true)
        };
        verify(&csr, &c, &short).unwrap();
        let jump = PathResult {
            path: vec![id(0), id(2), id(3)],
            dist: vec![0.0, 1.0, 2.0],
            ..PathResult::single(&c, true)
        };
        assert!(verify(&csr, &c, &jump).is_err());
        let none = PathResult {
            path: Vec::new(),
            dist: Vec::new(),
            ..PathResult::single(&c, true)
        };
        assert!(verify(&csr, &c, &none).is_err());
    }

    #[test]
    fn refuses_weights_on_an_unweighted_graph_and_negative_weights() {
        let tg = testkit::rmat(8, 4, 1, true);
        let e = AsyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let c = PathConfig {
            source: 0,
            target: 1,
            weighted: true,
        };
        let err = e.run(|r| run_async(r, &c)).unwrap_err().to_string();
        assert!(err.contains("--weighted"), "{err}");
        let neg = testkit::from_weighted(&[(0, 1, 1.0), (1, 2, -2.0), (2, 3, 1.0)], true);
        let e = AsyncEngine::open(neg.graph.clone(), Default::default()).unwrap();
        let c = PathConfig {
            source: 0,
            target: 3,
            weighted: true,
        };
        let err = e.run(|r| run_async(r, &c)).unwrap_err().to_string();
        assert!(err.contains("non-negative"), "{err}");
    }
}
