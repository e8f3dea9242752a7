//! Modularity: of a level from one pass over its lists, of any given
//! partition of a graph file (undirected and directed), and the serial
//! sum the verifiers compare against.

use super::{file_degrees, CommunityConfig, CommunityResult};
use crate::algo::reference::Csr;
use crate::algo::{Mismatch, Verdict};
use crate::engine::multilevel::{FileLevel, Lists, Weights};
use crate::engine::{Frontier, Run};
use crate::error::{Error, Result};
use crate::store::Graph;
use crate::VertexId;
use std::sync::atomic::Ordering::Relaxed;

/// An `f64` written once by the one visit of its vertex.
#[derive(Default)]
pub(super) struct AtomicF64Cell(std::sync::atomic::AtomicU64);

impl AtomicF64Cell {
    pub(super) fn set(&self, x: f64) {
        self.0.store(x.to_bits(), Relaxed)
    }
    pub(super) fn get(self) -> f64 {
        f64::from_bits(self.0.into_inner())
    }
}

/// Modularity from per-community inside weights and the sum of the
/// communities' degree sums squared.
pub(super) fn modularity_of(inside: &[f64], squares: f64, m2: f64, gamma: f64) -> f64 {
    if m2 == 0.0 {
        return 0.0;
    }
    let l: f64 = inside.iter().sum();
    2.0 * l / m2 - gamma * squares / (m2 * m2)
}

/// Modularity of `comm` on a level, from one pass over its lists.
pub(super) fn modularity_on(
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
    Ok(modularity_of(
        &inside,
        tot.iter().map(|x| x * x).sum(),
        m2,
        gamma,
    ))
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
    modularity_of(&inside, tot.iter().map(|x| x * x).sum(), m2, gamma)
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
