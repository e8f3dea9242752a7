//! Strongly connected components (networkx's
//! `strongly_connected_components`), out of core.
//!
//! Four phases, each a few sweeps over the lists that are still needed:
//! 1. **Degrees.** A vertex without in-edges or without out-edges is a
//!    component of its own; its degrees say so and nothing is read.
//! 2. **Forward-backward.** From a pivot (the vertex with the largest
//!    product of in- and out-degree), a search along out-edges, then one
//!    along in-edges kept inside the forward set: the vertices both reach
//!    are the pivot's component, usually the giant one. Only the lists of
//!    vertices still undecided are read.
//! 3. **Trim.** Among the vertices left, a vertex with no in-edge or no
//!    out-edge from another vertex left is a component of its own
//!    (their lists are read once to count). Trimming one lowers its
//!    neighbours' counts, so trimming repeats (one step per direction
//!    over the vertices just trimmed) until nothing more goes: the chains
//!    that hang off a web graph's core go here. Trimming before the
//!    search would read the lists of every vertex trimmed, scattered over
//!    nearly every block, for little gain.
//! 4. **Coloring.** Every vertex left takes the smallest rank that
//!    reaches it (label propagation along out-edges among the vertices
//!    left); a vertex whose color is its own rank is a root, and a search
//!    along in-edges from the roots, kept inside each color, collects each
//!    root's component. Each round settles at least the component of the
//!    smallest vertex left; rounds repeat until none is left.
//!
//! A component's label is its smallest member in the user's order (as
//! WCC's is), written in the user's ids. A directed graph needs its
//! reverse edges (`convert --reverse`); on an undirected graph the
//! components are the connected ones. Memory: 4 bytes a vertex for the
//! label, 4 for the color, 4 for the rank, and 8 for the live counts
//! while phase 3 runs.
//!
//! The verifier runs Tarjan's algorithm serially on the lists in memory
//! and compares every label.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, OnSync, Param, Params, Setting};
use super::{fail, Verdict};
use crate::engine::{AtomicBitmap, Frontier, Run};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

/// No label yet.
const NONE: u32 = u32::MAX;

/// Components, in internal ids.
#[derive(Clone, Debug)]
pub struct SccResult {
    /// Per vertex: the rank of its component's smallest member in the
    /// user's order ([`Graph::original_id_of_rank`] gives the id).
    pub label: Vec<u32>,
    /// Vertices trimmed as components of their own.
    pub trimmed: u64,
    /// Size of the pivot's component.
    pub pivot_component: u64,
    /// Coloring rounds run after it.
    pub rounds: u32,
}

/// The error for a directed graph without reverse edges.
fn needs_reverse(g: &Graph) -> Result<()> {
    if g.directed() && g.inn().is_none() {
        return Err(Error::Invalid(
            "scc follows in-edges as well as out-edges, and this directed graph has no reverse \
             edges: convert it again with --reverse"
                .into(),
        ));
    }
    Ok(())
}

/// The direction that walks edges backwards.
fn back(g: &Graph) -> Direction {
    if g.directed() {
        Direction::In
    } else {
        Direction::Out
    }
}

/// Runs the phases on the synchronous engine.
pub fn run(r: &mut Run<'_>, _: &SccConfig) -> Result<SccResult> {
    let g = r.graph();
    needs_reverse(g)?;
    let n = r.vertex_count();
    let back = back(g);
    let mut rank: Vec<u32> = r.zeroed()?;
    r.for_ranges(&mut rank, |lo, part| g.ranks_of(lo as VertexId, part))
        .into_iter()
        .collect::<Result<Vec<()>>>()?;
    let label: Vec<AtomicU32> = r.collect(|_| AtomicU32::new(NONE));
    let free = |v: VertexId| label[v as usize].load(Relaxed) == NONE;
    let out_deg = g.out();
    let in_deg = g.adjacency(back)?;

    // 1. A vertex without in- or out-edges is a component of its own: the
    //    degrees say so, nothing is read.
    let mut trimmed = 0u64;
    for v in 0..n as usize {
        if out_deg.degree(v as VertexId) == 0 || in_deg.degree(v as VertexId) == 0 {
            label[v].store(rank[v], Relaxed);
            trimmed += 1;
        }
    }

    // 2. Forward-backward from the pivot.
    let pivot = (0..n as VertexId)
        .filter(|&v| free(v))
        .max_by_key(|&v| (out_deg.degree(v) * in_deg.degree(v), std::cmp::Reverse(v)));
    let mut pivot_component = 0;
    let color: Vec<AtomicU32> = r.collect(|_| AtomicU32::new(NONE));
    if let Some(p) = pivot {
        // Forward marks with color 0, backward inside it with color 1.
        // A vertex marked whose list lies in a block loaded anyway is
        // expanded at once (reachability needs no levels), so a block is
        // seldom read again for the next level: each list once (`done`).
        let search = |r: &mut Run<'_>, dir, from: u32, to: u32| -> Result<()> {
            let done = AtomicBitmap::new(n);
            color[p as usize].store(to, Relaxed);
            done.insert(p as u64);
            let mut f = Frontier::single(p);
            while !f.is_empty() {
                let found = r.step_eager(
                    &f,
                    dir,
                    |v| color[v as usize].load(Relaxed) == to && done.insert(v as u64),
                    |_, e, next| {
                        for &w in e.ids {
                            if free(w)
                                && color[w as usize]
                                    .compare_exchange(from, to, Relaxed, Relaxed)
                                    .is_ok()
                            {
                                next.activate(w);
                            }
                        }
                    },
                )?;
                let more: Vec<VertexId> = found
                    .to_vec()
                    .into_iter()
                    .filter(|&v| done.insert(v as u64))
                    .collect();
                f = Frontier::from_sorted(more, n);
            }
            Ok(())
        };
        search(r, Direction::Out, NONE, 0)?;
        search(r, back, 0, 1)?;
        let min = (0..n as VertexId)
            .filter(|&v| color[v as usize].load(Relaxed) == 1)
            .map(|v| rank[v as usize])
            .min()
            .unwrap_or(rank[p as usize]);
        for v in 0..n as usize {
            if color[v].load(Relaxed) == 1 {
                label[v].store(min, Relaxed);
                pivot_component += 1;
            }
        }
    }

    // 3. Trim what is left, to a fixed point, counting only the edges
    //    among the vertices left (their lists are read once to count).
    let left: Vec<VertexId> = (0..n as VertexId).filter(|&v| free(v)).collect();
    if !left.is_empty() {
        let live_out: Vec<AtomicU32> = r.collect(|_| AtomicU32::new(0));
        let live_in: Vec<AtomicU32> = r.collect(|_| AtomicU32::new(0));
        let all = Frontier::from_sorted(left.clone(), n);
        let count = |r: &mut Run<'_>, dir, live: &[AtomicU32]| {
            r.step(&all, dir, |v, e, _| {
                let k = e.ids.iter().filter(|&&w| free(w)).count() as u32;
                live[v as usize].fetch_add(k, Relaxed);
            })
        };
        count(r, Direction::Out, &live_out)?;
        count(r, back, &live_in)?;
        let first: Vec<VertexId> = left
            .iter()
            .copied()
            .filter(|&v| {
                live_out[v as usize].load(Relaxed) == 0 || live_in[v as usize].load(Relaxed) == 0
            })
            .collect();
        for &v in &first {
            label[v as usize].store(rank[v as usize], Relaxed);
        }
        trimmed += first.len() as u64;
        let mut gone = Frontier::from_sorted(first, n);
        while !gone.is_empty() {
            // Lose an edge at the far end of each list of a trimmed vertex.
            let lose = |r: &mut Run<'_>, dir, live: &[AtomicU32]| {
                r.step(&gone, dir, |_, e, next| {
                    for &w in e.ids {
                        let wi = w as usize;
                        if free(w)
                            && live[wi].fetch_sub(1, Relaxed) == 1
                            && label[wi]
                                .compare_exchange(NONE, rank[wi], Relaxed, Relaxed)
                                .is_ok()
                        {
                            next.activate(w);
                        }
                    }
                })
            };
            let a = lose(r, Direction::Out, &live_in)?;
            let b = lose(r, back, &live_out)?;
            let mut more = a.to_vec();
            more.extend(b.to_vec());
            more.sort_unstable();
            more.dedup();
            trimmed += more.len() as u64;
            gone = Frontier::from_sorted(more, n);
        }
    }

    // 4. Coloring rounds.
    let mut rounds = 0;
    loop {
        let left: Vec<VertexId> = (0..n as VertexId).filter(|&v| free(v)).collect();
        if left.is_empty() {
            break;
        }
        rounds += 1;
        for &v in &left {
            color[v as usize].store(rank[v as usize], Relaxed);
        }
        let mut f = Frontier::from_sorted(left.clone(), n);
        while !f.is_empty() {
            f = r.step(&f, Direction::Out, |v, e, next| {
                let c = color[v as usize].load(Relaxed);
                for &w in e.ids {
                    if free(w) && color[w as usize].fetch_min(c, Relaxed) > c {
                        next.activate(w);
                    }
                }
            })?;
        }
        let roots: Vec<VertexId> = left
            .into_iter()
            .filter(|&v| color[v as usize].load(Relaxed) == rank[v as usize])
            .collect();
        for &v in &roots {
            label[v as usize].store(rank[v as usize], Relaxed);
        }
        let mut f = Frontier::from_sorted(roots, n);
        while !f.is_empty() {
            f = r.step(&f, back, |v, e, next| {
                let c = color[v as usize].load(Relaxed);
                for &u in e.ids {
                    if color[u as usize].load(Relaxed) == c
                        && label[u as usize]
                            .compare_exchange(NONE, c, Relaxed, Relaxed)
                            .is_ok()
                    {
                        next.activate(u);
                    }
                }
            })?;
        }
    }
    Ok(SccResult {
        label: label.into_iter().map(AtomicU32::into_inner).collect(),
        trimmed,
        pivot_component,
        rounds,
    })
}

/// Components by Tarjan's algorithm (iterative) on `out` and labels the
/// smallest `rank` of each: the reference.
pub fn serial(out: &Csr, rank: &[u32]) -> Vec<u32> {
    let n = out.vertex_count() as usize;
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut label = vec![NONE; n];
    let mut next = 0u32;
    for s in 0..n as u32 {
        if index[s as usize] != u32::MAX {
            continue;
        }
        // (vertex, position in its list)
        let mut call: Vec<(u32, usize)> = vec![(s, 0)];
        index[s as usize] = next;
        low[s as usize] = next;
        next += 1;
        stack.push(s);
        on_stack[s as usize] = true;
        while let Some(&mut (v, ref mut at)) = call.last_mut() {
            let list = out.neighbors(v);
            if *at < list.len() {
                let w = list[*at];
                *at += 1;
                if index[w as usize] == u32::MAX {
                    index[w as usize] = next;
                    low[w as usize] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                low[u as usize] = low[u as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                let min = members
                    .iter()
                    .map(|&w| rank[w as usize])
                    .min()
                    .unwrap_or(NONE);
                for w in members {
                    label[w as usize] = min;
                }
            }
        }
    }
    label
}

/// Checks every label against [`serial`].
pub fn verify(g: &Graph, csr: &Csr, res: &SccResult) -> Verdict {
    let n = g.vertex_count() as usize;
    let mut rank = vec![0u32; n];
    g.ranks_of(0, &mut rank)
        .map_err(|e| super::Mismatch(e.to_string()))?;
    let want = serial(csr, &rank);
    if res.label.len() != n {
        fail!("{} labels for {n} vertices", res.label.len());
    }
    for (v, (&got, &want)) in res.label.iter().zip(&want).enumerate() {
        if got != want {
            fail!(
                "vertex {} is in the component labelled {}, Tarjan's algorithm says {}",
                g.original_id(v as VertexId),
                g.original_id_of_rank(got),
                g.original_id_of_rank(want)
            );
        }
    }
    Ok(())
}

/// Settings of SCC (none yet).
#[derive(Clone, Debug, Default)]
pub struct SccConfig;

/// SCC as a registered algorithm (`grotto run scc`).
pub struct Scc;

impl Algorithm for Scc {
    const NAME: &'static str = "scc";
    const ABOUT: &'static str = "Strongly connected components: a label per vertex, the smallest \
         id of its component (directed graphs need --reverse).";
    const PARAMS: &'static [Param] = &[];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = SccConfig;
    type Output = SccResult;

    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, _: &Params, _: &Setting) -> Result<SccConfig> {
        needs_reverse(g)?;
        Ok(SccConfig)
    }
    fn config_json(_: &Graph, _: &Params, _: &SccConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({}))
    }
    fn run_sync(r: &mut Run<'_>, c: &SccConfig) -> Result<SccResult> {
        run(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, _: &SccConfig, out: &SccResult) -> Verdict {
        g.load_order().map_err(|e| super::Mismatch(e.to_string()))?;
        verify(g, csr, out)
    }
    fn table(g: &Arc<Graph>, out: SccResult) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push(
            "component",
            match g.names() {
                Some(names) => Values::Name(names.clone(), out.label),
                None => Values::Rank(out.label),
            },
        );
        t
    }

    /// Components, the largest with its label and size, and how each
    /// phase did.
    fn summary(g: &Graph, out: &SccResult) -> serde_json::Value {
        let mut size = vec![0u64; out.label.len()];
        for &l in &out.label {
            size[l as usize] += 1;
        }
        let components = size.iter().filter(|&&s| s > 0).count();
        let largest = super::top_k(size.len(), 1, |l| size[l] as f64)
            .into_iter()
            .filter(|&l| size[l] > 0)
            .map(|l| {
                let id: serde_json::Value = match g.names() {
                    Some(t) => t.get(l as u32).into(),
                    None => g.original_id_of_rank(l as u32).into(),
                };
                serde_json::json!([id, size[l]])
            })
            .next();
        serde_json::json!({
            "components": components,
            "largest": largest,
            "trimmed": out.trimmed,
            "pivot_component": out.pivot_component,
            "coloring_rounds": out.rounds,
        })
    }
}

#[cfg(test)]
mod tests;
