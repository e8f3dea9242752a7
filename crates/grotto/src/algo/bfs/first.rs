//! BFS with networkx's tree and visiting order (`--parents first`):
//! vertices are visited level by level, each level in the order its
//! vertices were found, each vertex's out-neighbours in increasing order
//! of the user's ids; a vertex's parent is the first visited vertex with
//! an edge to it. That is what networkx's `bfs_edges` gives on a graph
//! whose adjacency lists are in increasing node order, so its
//! `bfs_tree`, `bfs_successors` and `bfs_predecessors` come out exactly.
//!
//! One level-synchronous step per level: each frontier vertex offers its
//! visiting position to its unvisited neighbours by an atomic minimum, so
//! a newly found vertex keeps the earliest; the level's vertices are then
//! sorted by (that position, their rank in the user's order), which is
//! networkx's queue order, and numbered on. 8 bytes a vertex more than the
//! plain search, and a sort of each level.

use super::{BfsConfig, BfsResult, Depths};
use crate::algo::reference::Csr;
use crate::algo::{atomics_u32, fail, into_values, Verdict, NONE};
use crate::engine::{Frontier, Run};
use crate::error::Result;
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::atomic::Ordering::Relaxed;

/// Runs the search; the result's `order` holds each vertex's visiting
/// position (the source 0; [`NONE`] when unreached).
pub fn run(r: &mut Run<'_>, cfg: &BfsConfig) -> Result<BfsResult> {
    let n = r.vertex_count();
    let g = r.graph();
    // Ranks are looked up for every vertex found: load them once.
    g.load_order()?;
    let s = cfg.source;
    let position = atomics_u32(n, NONE);
    let earliest = atomics_u32(n, NONE);
    let mut parent = vec![NONE; n as usize];
    let mut depth = vec![u32::MAX; n as usize];
    let mut by_position: Vec<VertexId> = vec![s];
    position[s as usize].store(0, Relaxed);
    parent[s as usize] = s;
    depth[s as usize] = 0;
    let mut frontier = Frontier::single(s);
    let mut levels = 1u32;
    loop {
        let found = r.step(&frontier, Direction::Out, |u, edges, next| {
            let p = position[u as usize].load(Relaxed);
            for &v in edges.ids {
                if position[v as usize].load(Relaxed) == NONE
                    && earliest[v as usize].fetch_min(p, Relaxed) == NONE
                {
                    // The first offer: v joins the next level, once.
                    next.activate_new(v);
                }
            }
        })?;
        if found.is_empty() {
            break;
        }
        let mut level = found.to_vec();
        level.sort_unstable_by_key(|&v| (earliest[v as usize].load(Relaxed), g.rank(v)));
        for &v in &level {
            position[v as usize].store(by_position.len() as u32, Relaxed);
            parent[v as usize] = by_position[earliest[v as usize].load(Relaxed) as usize];
            depth[v as usize] = levels;
            by_position.push(v);
        }
        levels += 1;
        frontier = found;
    }
    Ok(BfsResult {
        source: s,
        depth: Depths::Wide(depth),
        parent,
        reached: by_position.len() as u64,
        levels,
        order: Some(into_values(position)),
    })
}

/// Checks a `--parents first` result against networkx's queue-based BFS,
/// run serially on `csr` with each list taken in the user's order: every
/// parent and visiting position equal.
pub fn verify(g: &Graph, csr: &Csr, res: &BfsResult) -> Verdict {
    let n = csr.vertex_count() as usize;
    let Some(order) = &res.order else {
        fail!("the result has no visiting order");
    };
    let (mut parent, mut position) = (vec![NONE; n], vec![NONE; n]);
    let s = res.source;
    parent[s as usize] = s;
    position[s as usize] = 0;
    let mut queue = std::collections::VecDeque::from([s]);
    let mut next = 1u32;
    while let Some(u) = queue.pop_front() {
        let mut nb: Vec<VertexId> = csr.neighbors(u).to_vec();
        nb.sort_unstable_by_key(|&v| g.rank(v));
        for v in nb {
            if parent[v as usize] == NONE {
                parent[v as usize] = u;
                position[v as usize] = next;
                next += 1;
                queue.push_back(v);
            }
        }
    }
    for v in 0..n {
        if parent[v] != res.parent[v] || position[v] != order[v] {
            fail!(
                "vertex {v}: parent {} at position {}, networkx's BFS says {} at {}",
                res.parent[v],
                order[v],
                parent[v],
                position[v]
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;

    #[test]
    fn gives_networkx_s_tree_and_order_in_every_configuration() {
        for tg in [
            testkit::rmat(10, 8, 3, true),
            testkit::rmat(9, 6, 4, false),
            // Degree-ordered inside: ties go by the user's ids.
            testkit::rmat_ordered(9, 8, 5),
            testkit::grid(20, 30),
            testkit::star(3000),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let s = crate::algo::pick_source(&tg.graph, 1).unwrap();
            let cfg = BfsConfig {
                source: s,
                first_parents: true,
                direction: crate::algo::bfs::BfsDirection::Auto,
            };
            for ecfg in testkit::configs() {
                let e = crate::engine::SyncEngine::open(tg.graph.clone(), ecfg.clone()).unwrap();
                let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
                super::super::verify(&csr, &res).unwrap_or_else(|e| panic!("{ecfg:?}: {e}"));
                verify(&tg.graph, &csr, &res).unwrap_or_else(|e| panic!("{ecfg:?}: {e}"));
            }
        }
    }

    #[test]
    fn the_verifier_catches_another_valid_tree() {
        // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3: 3's parent is 1, visited first.
        let tg = testkit::from_edges(&[(0, 1), (0, 2), (1, 3), (2, 3)], false, false);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let s = tg.graph.vertex_named("0").unwrap();
        let cfg = BfsConfig {
            source: s,
            first_parents: true,
            direction: crate::algo::bfs::BfsDirection::Auto,
        };
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let (mut res, _) = e.run(|r| run(r, &cfg)).unwrap();
        verify(&tg.graph, &csr, &res).unwrap();
        let (v1, v2, v3) = (
            tg.graph.vertex_named("1").unwrap(),
            tg.graph.vertex_named("2").unwrap(),
            tg.graph.vertex_named("3").unwrap(),
        );
        assert_eq!(res.parent[v3 as usize], v1);
        // Another BFS tree, valid by GAP's rules, is not networkx's.
        res.parent[v3 as usize] = v2;
        super::super::verify(&csr, &res).unwrap();
        assert!(verify(&tg.graph, &csr, &res).is_err());
    }
}
