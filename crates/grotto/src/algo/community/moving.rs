//! The phases of one level: moving vertices between communities
//! ([`move_vertices`]), Leiden's refinement ([`refine`]), and splitting
//! communities into connected pieces ([`split_disconnected`]).
//!
//! Moving and refinement sweep the level in rounds. The vertices are cut
//! into `rounds x SLICES` slices, consecutive ranges of about equal edge
//! counts; round `r` takes slices `r, r + rounds, r + 2 rounds, ...`
//! (spread over the graph), and the rounds run in a seeded order. A
//! round's lists are held in memory ([`Lists::hold`]); each slice is then
//! decided by one thread, its vertices one after the other in order, each
//! seeing the moves made before it in its slice and, for the rest of the
//! graph, the state at the round's start. The round's moves are applied
//! at its end, slice by slice in order, each checked against what the
//! ones before it changed. No decision depends on which thread took which
//! slice, so the answer is the same on any number of threads, and sums of
//! community degrees are taken in one order.

use super::CommunityConfig;
use crate::engine::multilevel::{GroupSums, Held, Lists};
use crate::engine::AtomicBitmap;
use crate::engine::Frontier;
use crate::error::Result;
use crate::rng::Rng;
use crate::VertexId;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// Slices a round is cut into: the units threads take, fixed so that the
/// answer does not depend on the thread count.
pub(crate) const SLICES: u32 = 64;

/// Bytes of lists a round holds at most (more rounds a sweep when the
/// level's lists are larger): 4 a list entry, 8 weighted.
pub(crate) const HOLD_BYTES: u64 = 64 << 20;

thread_local! {
    static SUMS: RefCell<GroupSums> = RefCell::new(GroupSums::default());
}

/// What a level's moves did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MoveStats {
    /// Sweeps run.
    pub(crate) sweeps: u32,
    /// Moves applied.
    pub(crate) moves: u64,
    /// Modularity gained, as the moves predicted it.
    pub(crate) gain: f64,
}

/// Consecutive ranges `lo..hi` covering the level's vertices, `parts` of
/// them with about equal list entries each (a range holds at least one
/// vertex; a vertex with more entries than a share is a range alone).
pub(crate) fn plan_ranges(lists: &dyn Lists, parts: u64) -> Vec<(VertexId, VertexId)> {
    let n = lists.vertex_count();
    let total: u64 = (0..n as VertexId).map(|v| lists.degree(v).max(1)).sum();
    let share = total.div_ceil(parts.max(1)).max(1);
    let (mut out, mut lo, mut acc) = (Vec::new(), 0u64, 0u64);
    for v in 0..n {
        acc += lists.degree(v as VertexId).max(1);
        if acc >= share {
            out.push((lo as VertexId, v as VertexId + 1));
            (lo, acc) = (v + 1, 0);
        }
    }
    if lo < n {
        out.push((lo as VertexId, n as VertexId));
    }
    out
}

/// A level's rounds: for each, its slices (ranges of vertices, in
/// increasing order).
fn plan_rounds(
    lists: &dyn Lists,
    cfg: &CommunityConfig,
    weighted: bool,
) -> Vec<Vec<(VertexId, VertexId)>> {
    let n = lists.vertex_count();
    let entries: u64 = (0..n as VertexId).map(|v| lists.degree(v)).sum();
    let bytes = entries * if weighted { 8 } else { 4 };
    let rounds = (cfg.rounds as u64).max(bytes.div_ceil(HOLD_BYTES)).max(1);
    let ranges = plan_ranges(lists, rounds * SLICES as u64);
    let rounds = (rounds as usize).min(ranges.len()).max(1);
    (0..rounds)
        .map(|r| ranges.iter().skip(r).step_by(rounds).copied().collect())
        .collect()
}

/// `0..len` in a seeded random order.
fn shuffled(len: usize, seed: u64, stream: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed, stream);
    let mut order: Vec<usize> = (0..len).collect();
    for i in (1..len).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    order
}

/// Takes the members of `lo..hi` out of `set` and appends them, in order
/// (whole words where the range covers them).
fn drain_range(set: &AtomicBitmap, lo: u64, hi: u64, out: &mut Vec<VertexId>) {
    let mut v = lo;
    let mut words = Vec::new();
    while v < hi {
        if v.is_multiple_of(64) && v + 64 <= hi {
            let w = (v / 64) as usize;
            let end = (hi / 64) as usize;
            words.clear();
            set.drain_words(w, end, &mut words);
            out.extend(words.iter().map(|&x| x as VertexId));
            v = end as u64 * 64;
            continue;
        }
        if set.take(v) {
            out.push(v as VertexId);
        }
        v += 1;
    }
}

/// Each community's degree sum.
fn degree_sums(k: &[f64], comm: &[u32], n: usize) -> Vec<f64> {
    let mut tot = vec![0.0f64; n];
    for (v, &c) in comm.iter().enumerate() {
        tot[c as usize] += k[v];
    }
    tot
}

/// One decided move: the vertex, its new community, and (a refinement's)
/// the neighbour it joins through.
#[derive(Clone, Copy)]
struct Move {
    v: VertexId,
    to: u32,
    via: VertexId,
}

/// Runs `decide(slice, members)` for every slice of a round, slices
/// taken by the level's threads from a shared cursor; returns each
/// slice's moves, in slice order.
fn decide_slices(
    threads: usize,
    slices: &[(VertexId, VertexId, Vec<VertexId>)],
    decide: &(dyn Fn(usize) -> Vec<Move> + Sync),
) -> Vec<Vec<Move>> {
    let out: Vec<Mutex<Vec<Move>>> = (0..slices.len()).map(|_| Mutex::new(Vec::new())).collect();
    let cursor = AtomicUsize::new(0);
    let work = || loop {
        let i = cursor.fetch_add(1, Relaxed);
        if i >= slices.len() {
            return;
        }
        if slices[i].2.is_empty() {
            continue;
        }
        let m = decide(i);
        *out[i].lock().unwrap_or_else(|p| p.into_inner()) = m;
    };
    let busy: u64 = slices.iter().map(|s| s.2.len() as u64).sum();
    let threads = if busy < 2048 {
        1
    } else {
        threads.min(slices.len()).max(1)
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
    out.into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect()
}

/// A slice's view of a per-vertex array: its own vertices' values as the
/// slice changed them, the round's start for the rest.
struct Overlay<'a> {
    lo: VertexId,
    own: Vec<u32>,
    shared: &'a [u32],
}

impl<'a> Overlay<'a> {
    fn new(shared: &'a [u32], lo: VertexId, hi: VertexId) -> Overlay<'a> {
        Overlay {
            lo,
            own: shared[lo as usize..hi as usize].to_vec(),
            shared,
        }
    }
    #[inline]
    fn get(&self, u: VertexId) -> u32 {
        match self.own.get(u.wrapping_sub(self.lo) as usize) {
            Some(&x) => x,
            None => self.shared[u as usize],
        }
    }
    fn set(&mut self, u: VertexId, x: u32) {
        self.own[(u - self.lo) as usize] = x;
    }
}

/// Changes a slice made to per-community sums, by community.
#[derive(Default)]
struct Deltas {
    tot: GroupSums,
    size: GroupSums,
}

/// The round's slices with their active members, drained from `active`.
/// Each slice's members are taken in a seeded random order (networkx's
/// Louvain shuffles its vertices too; a fixed order leaves every sweep
/// the same bias); `all` gets them sorted, as [`Lists::hold`] takes them.
fn round_members(
    slices: &[(VertexId, VertexId)],
    active: &AtomicBitmap,
    seed: u64,
    stream: u64,
    all: &mut Vec<VertexId>,
) -> Vec<(VertexId, VertexId, Vec<VertexId>)> {
    all.clear();
    slices
        .iter()
        .enumerate()
        .map(|(i, &(lo, hi))| {
            let mut m = Vec::new();
            drain_range(active, lo as u64, hi as u64, &mut m);
            all.extend_from_slice(&m);
            let mut rng = Rng::new(seed, stream ^ (lo as u64) << 20 ^ i as u64);
            for j in (1..m.len()).rev() {
                m.swap(j, rng.below(j as u64 + 1) as usize);
            }
            (lo, hi, m)
        })
        .collect()
}

/// Moves vertices between communities until a sweep moves none, gains
/// less than `cfg.tolerance`, or `cfg.max_sweeps` have run. `comm` (the
/// partition the level starts from, communities below the vertex count)
/// is updated in place; `k` holds the weighted degrees, `m2` their sum.
///
/// The gain of moving `v` (degree `k`) from `d` to `c`, times `m`, is
/// `W_c − W_d − γ k (K_c − K_d + k) / 2m` (`W_x`: the weight of `v`'s
/// edges into `x`, its loop excluded; `K_x`: `x`'s degree sum with `v`),
/// networkx's `_one_level`; the largest positive gain wins, the smaller
/// community on a tie. A move into a community that the moves applied
/// before it emptied is dropped. A vertex that moves activates its
/// neighbours; a sweep visits the active vertices only.
pub(crate) fn move_vertices(
    lists: &mut dyn Lists,
    k: &[f64],
    comm: &mut [u32],
    m2: f64,
    cfg: &CommunityConfig,
    level: u64,
    weighted: bool,
) -> Result<MoveStats> {
    let n = lists.vertex_count() as usize;
    let mut stats = MoveStats::default();
    if m2 == 0.0 || n == 0 {
        return Ok(stats);
    }
    let gamma = cfg.resolution;
    let mut tot = degree_sums(k, comm, n);
    let rounds = plan_rounds(lists, cfg, weighted);
    let active = AtomicBitmap::new(n as u64);
    active.fill();
    let threads = lists.threads();
    while stats.sweeps < cfg.max_sweeps {
        stats.sweeps += 1;
        let (mut moves, mut gained) = (0u64, 0.0f64);
        let stream = level << 32 | stats.sweeps as u64;
        for ri in shuffled(rounds.len(), cfg.seed, stream) {
            let mut all = Vec::new();
            let slices = round_members(&rounds[ri], &active, cfg.seed, stream, &mut all);
            if all.is_empty() {
                continue;
            }
            let (comm_m, tot_m, active) = (&mut *comm, &mut tot, &active);
            lists.hold(all, &mut |held: &dyn Held| {
                let decided = decide_slices(threads, &slices, &|i| {
                    let (lo, hi, members) = &slices[i];
                    let mut view = Overlay::new(comm_m, *lo, *hi);
                    let mut delta = Deltas::default();
                    let mut out = Vec::new();
                    for &v in members {
                        let (ids, ws) = held.list(v);
                        let d = view.get(v);
                        let kv = k[v as usize];
                        let tot_of = |c: u32| tot_m[c as usize] + delta.tot.get(c);
                        let best = SUMS.with_borrow_mut(|t| {
                            t.add_list(ids, ws, |u| view.get(u), v);
                            let stay = t.get(d) - gamma * kv * (tot_of(d) - kv) / m2;
                            let mut best = (0.0f64, d);
                            for (c, wc) in t.iter() {
                                if c == d {
                                    continue;
                                }
                                let g = wc - gamma * kv * tot_of(c) / m2 - stay;
                                if g > best.0 || (g == best.0 && best.1 != d && c < best.1) {
                                    best = (g, c);
                                }
                            }
                            t.clear();
                            best
                        });
                        let (_, to) = best;
                        if to == d {
                            continue;
                        }
                        view.set(v, to);
                        delta.tot.add(d, -kv);
                        delta.tot.add(to, kv);
                        out.push(Move { v, to, via: v });
                    }
                    out
                });
                // Applied in slice order, each move only if it still gains
                // against the moves applied before it (its weights into
                // its two communities summed again from its list): every
                // move applied raises modularity, so no set of moves
                // made from stale views can cycle.
                for m in decided.iter().flatten() {
                    let d = comm_m[m.v as usize];
                    let kv = k[m.v as usize];
                    let (ids, ws) = held.list(m.v);
                    let (mut wd, mut wt) = (0.0, 0.0);
                    for (j, &u) in ids.iter().enumerate() {
                        if u == m.v {
                            continue;
                        }
                        let c = comm_m[u as usize];
                        if c == d {
                            wd += ws.get(j);
                        } else if c == m.to {
                            wt += ws.get(j);
                        }
                    }
                    let g =
                        wt - wd - gamma * kv * (tot_m[m.to as usize] - tot_m[d as usize] + kv) / m2;
                    if g <= 0.0 {
                        continue;
                    }
                    comm_m[m.v as usize] = m.to;
                    tot_m[d as usize] -= kv;
                    tot_m[m.to as usize] += kv;
                    moves += 1;
                    gained += 2.0 * g / m2;
                    for &u in ids {
                        active.insert(u as u64);
                    }
                }
                Ok(())
            })?;
        }
        stats.moves += moves;
        stats.gain += gained;
        if moves == 0 || gained < cfg.tolerance {
            break;
        }
    }
    Ok(stats)
}

/// Leiden's refinement of the partition `comm` (dense communities): every
/// vertex starts as a refined community of its own; in one sweep, a
/// vertex still alone, and well connected to its community
/// (`W_S ≥ γ k (K_S − k) / 2m`, `W_S` its edges into the rest of its
/// community `S`), joins the refined community inside `S` of its
/// neighbours with the largest positive gain `W_R − γ k K_R / 2m`. It
/// joins through a neighbour it has an edge to, and the join is dropped
/// when that neighbour has left the refined community, or the vertex is
/// no longer alone, by the time it applies: every refined community stays
/// connected. Returns the refined community of each vertex (not dense).
pub(crate) fn refine(
    lists: &mut dyn Lists,
    k: &[f64],
    comm: &[u32],
    m2: f64,
    cfg: &CommunityConfig,
    level: u64,
    weighted: bool,
) -> Result<Vec<u32>> {
    let n = lists.vertex_count() as usize;
    let mut refined: Vec<u32> = (0..n as u32).collect();
    if m2 == 0.0 || n == 0 {
        return Ok(refined);
    }
    let gamma = cfg.resolution;
    let tot_s = degree_sums(k, comm, n);
    let mut rtot: Vec<f64> = k.to_vec();
    let mut rsize = vec![1u32; n];
    let rounds = plan_rounds(lists, cfg, weighted);
    let threads = lists.threads();
    let every = AtomicBitmap::new(n as u64);
    every.fill();
    let stream = 1 << 63 | level << 32;
    for ri in shuffled(rounds.len(), cfg.seed, stream) {
        let mut all = Vec::new();
        let mut slices = round_members(&rounds[ri], &every, cfg.seed, stream ^ ri as u64, &mut all);
        for s in &mut slices {
            s.2.retain(|&v| rsize[refined[v as usize] as usize] == 1);
        }
        all.retain(|&v| rsize[refined[v as usize] as usize] == 1);
        if all.is_empty() {
            continue;
        }
        let (refined_m, rtot_m, rsize_m) = (&mut refined, &mut rtot, &mut rsize);
        lists.hold(all, &mut |held: &dyn Held| {
            let decided = decide_slices(threads, &slices, &|i| {
                let (lo, hi, members) = &slices[i];
                let mut view = Overlay::new(refined_m, *lo, *hi);
                let mut delta = Deltas::default();
                let mut out = Vec::new();
                for &v in members {
                    let own = view.get(v);
                    let size_of = |r: u32| rsize_m[r as usize] as f64 + delta.size.get(r);
                    if size_of(own) != 1.0 {
                        continue;
                    }
                    let (ids, ws) = held.list(v);
                    let s = comm[v as usize];
                    let kv = k[v as usize];
                    let tot_of = |r: u32| rtot_m[r as usize] + delta.tot.get(r);
                    let best = SUMS.with_borrow_mut(|t| {
                        let mut w_s = 0.0;
                        for (j, &u) in ids.iter().enumerate() {
                            if u != v && comm[u as usize] == s {
                                let w = ws.get(j);
                                w_s += w;
                                t.add(view.get(u), w);
                            }
                        }
                        let mut best = (0.0f64, u32::MAX);
                        if w_s >= gamma * kv * (tot_s[s as usize] - kv) / m2 {
                            for (r, wr) in t.iter() {
                                let g = wr - gamma * kv * tot_of(r) / m2;
                                if g > best.0 || (g == best.0 && best.1 != u32::MAX && r < best.1) {
                                    best = (g, r);
                                }
                            }
                        }
                        t.clear();
                        best
                    });
                    let (_, to) = best;
                    if to == u32::MAX {
                        continue;
                    }
                    let Some(via) = ids
                        .iter()
                        .copied()
                        .find(|&u| u != v && comm[u as usize] == s && view.get(u) == to)
                    else {
                        continue;
                    };
                    view.set(v, to);
                    delta.tot.add(own, -kv);
                    delta.tot.add(to, kv);
                    delta.size.add(own, -1.0);
                    delta.size.add(to, 1.0);
                    out.push(Move { v, to, via });
                }
                out
            });
            // Applied in slice order: a vertex still alone, joining through
            // a neighbour still in the refined community, with a gain
            // against the joins applied before it.
            for m in decided.iter().flatten() {
                let own = refined_m[m.v as usize];
                if rsize_m[own as usize] != 1 || refined_m[m.via as usize] != m.to {
                    continue;
                }
                let (ids, ws) = held.list(m.v);
                let mut wt = 0.0;
                for (j, &u) in ids.iter().enumerate() {
                    if u != m.v && refined_m[u as usize] == m.to {
                        wt += ws.get(j);
                    }
                }
                let kv = k[m.v as usize];
                if wt - gamma * kv * rtot_m[m.to as usize] / m2 <= 0.0 {
                    continue;
                }
                refined_m[m.v as usize] = m.to;
                rsize_m[own as usize] = 0;
                rtot_m[own as usize] -= kv;
                rsize_m[m.to as usize] += 1;
                rtot_m[m.to as usize] += kv;
            }
            Ok(())
        })?;
    }
    Ok(refined)
}

/// `comm` with every community cut into its connected pieces (edges
/// inside a community, on the level's lists), numbered densely in order
/// of each piece's first vertex.
pub(crate) fn split_disconnected(lists: &mut dyn Lists, comm: &[u32]) -> Result<Vec<u32>> {
    let n = lists.vertex_count();
    let parent = super::atomics(n as usize, 0);
    for (v, p) in parent.iter().enumerate() {
        p.store(v as u32, Relaxed);
    }
    lists.visit_whole(&Frontier::all(n), &|v, ids, _| {
        for &u in ids {
            if u > v && comm[u as usize] == comm[v as usize] {
                unite(&parent, u, v);
            }
        }
    })?;
    let mut out: Vec<u32> = (0..n as u32).map(|v| find(&parent, v)).collect();
    super::renumber(&mut out);
    Ok(out)
}

/// The root of `x`'s tree, halving the path on the way.
fn find(p: &[AtomicU32], mut x: u32) -> u32 {
    loop {
        let px = p[x as usize].load(Relaxed);
        if px == x {
            return x;
        }
        let ppx = p[px as usize].load(Relaxed);
        let _ = p[x as usize].compare_exchange(px, ppx, Relaxed, Relaxed);
        x = ppx;
    }
}

/// Joins the trees of `a` and `b`: the larger root is hung under the
/// smaller by a compare-and-swap, retried until it holds.
fn unite(p: &[AtomicU32], a: u32, b: u32) {
    loop {
        let (ra, rb) = (find(p, a), find(p, b));
        if ra == rb {
            return;
        }
        let (hi, lo) = if ra > rb { (ra, rb) } else { (rb, ra) };
        if p[hi as usize]
            .compare_exchange(hi, lo, Relaxed, Relaxed)
            .is_ok()
        {
            return;
        }
    }
}
