//! Bottom-up levels of a BFS (Beamer's direction optimization) and the
//! rule that picks each level's direction.
//!
//! A top-down level expands every frontier vertex's out-list; on a
//! low-diameter graph the middle levels' frontiers hold most of the
//! edges, and most of what they reach is already visited. A bottom-up
//! level instead walks the lists of the vertices not yet visited, in the
//! other direction (an undirected graph's own lists, or a directed
//! graph's reverse edges), and stops at the first neighbour in the
//! current level: that neighbour is a parent one level up, so depths stay
//! exact. Out of core, the step reads the blocks of the unvisited
//! vertices' lists instead of the frontier's.
//!
//! The rule is GAP's: go bottom-up when the out-arcs of the vertices to
//! expand exceed the arcs not yet examined over `ALPHA`; stay bottom-up
//! while the level grows or holds more than one vertex in `BETA`; then go
//! back top-down for at least one level. The constants are GAP's (15 and
//! 18); other values have not been measured here yet. On rmat22 the rule
//! runs levels 2 and 3 bottom-up, on a road-like grid none
//! (docs/engine.md, "Direction-optimizing BFS").

use super::DepthCells;
use crate::engine::{AtomicBitmap, Frontier, Run};
use crate::error::Result;
use crate::store::{Adjacency, Direction};
use crate::VertexId;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Which way a BFS runs its levels (`--direction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BfsDirection {
    /// Each level picks by the rule in this module (default).
    Auto,
    /// Every level expands the frontier's out-lists (the search before
    /// direction optimization).
    TopDown,
    /// Every level walks the unvisited vertices' in-lists (tests and
    /// measurements).
    BottomUp,
}

/// Go bottom-up when the frontier's out-arcs exceed the unexamined arcs
/// over this.
pub const ALPHA: u64 = 15;
/// Stay bottom-up while a level holds more than one vertex in this.
pub const BETA: u64 = 18;

/// The direction rule's state across levels.
pub(super) struct Rule {
    mode: BfsDirection,
    n: u64,
    /// Arcs not yet examined by a top-down level (GAP's `edges_to_check`).
    unexamined: u64,
    /// Whether the last level ran bottom-up.
    bottom_up: bool,
    /// The size of the level before the last bottom-up one.
    before: u64,
}

impl Rule {
    /// A rule for a graph of `n` vertices and `arcs` out-arcs; `pull`
    /// tells whether bottom-up levels are possible at all.
    pub(super) fn new(mode: BfsDirection, n: u64, arcs: u64, pull: bool) -> Rule {
        Rule {
            mode: if pull { mode } else { BfsDirection::TopDown },
            n,
            unexamined: arcs,
            bottom_up: false,
            before: 0,
        }
    }

    /// Whether the next level runs bottom-up, given the vertices and the
    /// out-arcs of the frontier it starts from (`arcs` is only asked for
    /// when the answer depends on it).
    pub(super) fn bottom_up(&mut self, size: u64, arcs: impl FnOnce() -> u64) -> bool {
        let up = match self.mode {
            BfsDirection::TopDown => false,
            BfsDirection::BottomUp => true,
            BfsDirection::Auto if self.bottom_up => {
                // Stay while the levels grow or are large.
                let stay = size >= self.before || size > self.n / BETA;
                if !stay {
                    // Back top-down: GAP counts one arc for the level.
                    self.unexamined = self.unexamined.saturating_sub(1);
                }
                stay
            }
            BfsDirection::Auto => {
                let a = arcs();
                if a > self.unexamined / ALPHA {
                    true
                } else {
                    self.unexamined = self.unexamined.saturating_sub(a);
                    false
                }
            }
        };
        self.bottom_up = up;
        self.before = size;
        up
    }
}

/// Out-arcs of the frontier's vertices, summed in parallel.
pub(super) fn arcs_of(f: &Frontier, adj: &Adjacency) -> u64 {
    use rayon::prelude::*;
    if let Frontier::All(_) = f {
        return adj.entries();
    }
    const PIECE: usize = 1 << 12;
    let units = f.units();
    (0..units.div_ceil(PIECE))
        .into_par_iter()
        .map(|k| {
            let mut buf = Vec::new();
            f.vertices(k * PIECE, ((k + 1) * PIECE).min(units), &mut buf);
            buf.iter().map(|&v| adj.degree(v)).sum::<u64>()
        })
        .sum()
}

/// The frontier's members as a bitmap over the `n` vertices.
pub(super) fn bitmap_of(f: Frontier, n: u64) -> AtomicBitmap {
    match f {
        Frontier::Dense(bits, _) => bits,
        Frontier::Sparse(list) => AtomicBitmap::from_sorted(&list, n),
        Frontier::All(_) => {
            let b = AtomicBitmap::new(n);
            b.fill();
            b
        }
    }
}

/// What a bottom-up level shares with the rest of the search.
pub(super) struct Level<'a> {
    /// The direction whose lists name a vertex's possible parents.
    pub dir: Direction,
    /// The level's vertices (depth `depth - 1`).
    pub front: &'a AtomicBitmap,
    pub visited: &'a AtomicBitmap,
    pub parent: &'a [AtomicU32],
    pub depth: &'a DepthCells,
    /// The depth of what this level finds.
    pub at: u32,
}

/// Runs one bottom-up level and returns the vertices it found. Every
/// vertex not yet visited is offered its list (piece by piece, a long
/// list's pieces possibly on several threads); at the first neighbour in
/// `front` the vertex takes it as parent, the thread that sets its
/// visited bit being the one writer.
pub(super) fn step(r: &mut Run<'_>, l: &Level<'_>) -> Result<Frontier> {
    let (unvisited, count) = l.visited.complement();
    let todo = Frontier::Dense(unvisited, count);
    r.step(&todo, l.dir, |v, edges, next| {
        if l.visited.contains(v as u64) {
            // Found through another piece of its list.
            return;
        }
        let hit = edges
            .ids
            .iter()
            .copied()
            .find(|&u| l.front.contains(u as u64));
        if let Some(u) = hit {
            if l.visited.insert(v as u64) {
                l.parent[v as usize].store(u as VertexId, Relaxed);
                l.depth.store(v, l.at);
                next.activate_new(v);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_switches_as_gaps_does() {
        // 1,000 vertices, 15,000 arcs: bottom-up once the frontier's arcs
        // pass 1,000 of what is left.
        let mut r = Rule::new(BfsDirection::Auto, 1000, 15_000, true);
        assert!(!r.bottom_up(1, || 10));
        assert!(!r.bottom_up(10, || 500));
        // 14,490 left: 966 is the bar.
        assert!(r.bottom_up(300, || 5000));
        // Growing, then large: stays.
        assert!(r.bottom_up(400, || unreachable!()));
        assert!(r.bottom_up(100, || unreachable!()));
        // Shrinking and below 1000 / 18: back top-down.
        assert!(!r.bottom_up(40, || unreachable!()));
        assert!(!r.bottom_up(5, || 20));
        // No reverse lists: never.
        let mut r = Rule::new(BfsDirection::BottomUp, 10, 100, false);
        assert!(!r.bottom_up(5, || 100));
        let mut r = Rule::new(BfsDirection::BottomUp, 10, 100, true);
        assert!(r.bottom_up(1, || 0));
    }
}
