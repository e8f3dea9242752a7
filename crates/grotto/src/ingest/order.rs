//! Vertex order at convert (`--order degree`): internal ids renumbered by
//! out-degree, largest first, ties in the user's order.
//!
//! Why: hubs get the smallest ids, so the gaps between sorted neighbour
//! ids shrink (most edges of a skewed graph point at hubs) and packed
//! blocks hold more lists; and lists of similar length share blocks, so
//! an algorithm that needs only some degrees (k-core) reads fewer blocks.
//!
//! A vertex's *rank* is the internal id it would have without an order.
//! The file stores the rank of each internal vertex (the order section);
//! the store layer maps every id a user sees or types through it.
//!
//! Both build paths count records per source: the memory path from the
//! lists it scatters in the user's order (then renumbers their targets
//! and gathers them in the new order, see `gather`), the external path in
//! its counting pass (then renumbers records as it scatters them).

use super::records::CELL_SHIFT;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// `n` zeroed counters.
pub fn counters(n: u64) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(0)).collect()
}

/// The degree order: entry `i` is the rank of new internal vertex `i`,
/// ranks sorted by `deg` (records per rank) descending, ties by rank.
pub fn degree_order(deg: &[u32]) -> Vec<u32> {
    let mut keys: Vec<u64> = deg
        .par_iter()
        .enumerate()
        .map(|(r, &d)| ((!d as u64) << 32) | r as u64)
        .collect();
    keys.par_sort_unstable();
    keys.into_par_iter().map(|k| k as u32).collect()
}

/// Whether an order pays: the top 1% of vertices (at least one) hold at
/// least a tenth of the records. `order` is the degree order of `deg`.
pub fn skewed(order: &[u32], deg: &[u32]) -> bool {
    let total: u64 = deg.iter().map(|&d| d as u64).sum();
    let top: u64 = order
        .iter()
        .take((order.len() / 100).max(1))
        .map(|&r| deg[r as usize] as u64)
        .sum();
    top * 10 >= total && total > 0
}

/// The values of counters.
pub fn loads(c: &[AtomicU32]) -> Vec<u32> {
    c.par_iter().map(|a| a.load(Relaxed)).collect()
}

/// Adds `b` into `a`, element by element (saturating), in parallel.
pub fn add_into(a: &mut [u32], b: &[u32]) {
    a.par_iter_mut()
        .zip(b.par_iter())
        .for_each(|(x, &y)| *x = x.saturating_add(y));
}

/// How an external build splits one adjacency: build units (as
/// [`unit_starts`]) and partitions, runs of whole units whose records are
/// loaded and built together.
#[derive(Debug, PartialEq)]
pub struct Cuts {
    /// First vertex (new id) of each unit, then `n`.
    pub units: Vec<u32>,
    /// First unit of each partition, then the unit count.
    pub parts: Vec<usize>,
    /// Records of each partition.
    pub records: Vec<u64>,
}

impl Cuts {
    /// The vertices of partition `p` (new ids).
    pub fn vertices(&self, p: usize) -> (u32, u32) {
        (self.units[self.parts[p]], self.units[self.parts[p + 1]])
    }

    /// Records of the largest partition.
    pub fn largest(&self) -> u64 {
        self.records.iter().copied().max().unwrap_or(0)
    }

    /// First vertex of each partition, then `n`: what records are routed by.
    pub fn part_starts(&self) -> Vec<u32> {
        self.parts.iter().map(|&u| self.units[u]).collect()
    }
}

/// Cuts the vertices, in new order (`order[v]` is the rank of new vertex
/// `v`, or `v` itself without an order), into units of at most
/// `unit_cap` records and partitions of at most `part_cap`, each at a
/// vertex boundary: only a vertex with more records alone exceeds a cap.
/// `deg` counts records per rank.
pub fn cuts(order: Option<&[u32]>, deg: &[u32], unit_cap: u64, part_cap: u64) -> Cuts {
    let d = |v: usize| match order {
        Some(o) => deg[o[v] as usize] as u64,
        None => deg[v] as u64,
    };
    let n = deg.len();
    let unit_cap = unit_cap.min(part_cap).max(1);
    let mut units = vec![0u32];
    let mut parts = vec![0usize];
    let mut records = Vec::new();
    let (mut in_unit, mut in_part) = (0u64, 0u64);
    for v in 0..n {
        let r = d(v);
        let new_part = in_part > 0 && in_part + r > part_cap;
        let cell_edge = v > 0 && v.trailing_zeros() >= CELL_SHIFT;
        if new_part || cell_edge || (in_unit > 0 && in_unit + r > unit_cap) {
            units.push(v as u32);
            in_unit = 0;
            if new_part {
                parts.push(units.len() - 1);
                records.push(in_part);
                in_part = 0;
            }
        }
        in_unit += r;
        in_part += r;
    }
    units.push(n as u32);
    parts.push(units.len() - 1);
    records.push(in_part);
    Cuts {
        units,
        parts,
        records,
    }
}

/// Build units over new ids: consecutive ranges within one cell (2^CELL_SHIFT
/// vertices) of at most `cap` records unless one vertex alone has more,
/// so that the hubs an order puts first do not make one unit most of
/// the work. Returns each unit's first vertex, then `n`.
pub fn unit_starts(order: &[u32], deg: &[u32], cap: u64) -> Vec<u32> {
    cuts(Some(order), deg, cap, u64::MAX).units
}

/// Finds the unit of a vertex: the first unit that may hold each block of
/// 256 vertices, then a short scan forward.
pub(super) struct UnitOf<'a> {
    starts: &'a [u32],
    first: Vec<u32>,
}

impl<'a> UnitOf<'a> {
    pub(super) fn new(starts: &'a [u32]) -> UnitOf<'a> {
        let n = *starts.last().unwrap_or(&0) as usize;
        let mut first = Vec::with_capacity(n.div_ceil(256));
        let mut u = 0usize;
        for b in 0..n.div_ceil(256) {
            while starts[u + 1] as usize <= b * 256 {
                u += 1;
            }
            first.push(u as u32);
        }
        UnitOf { starts, first }
    }
    #[inline]
    pub(super) fn of(&self, v: u32) -> usize {
        let mut u = self.first[(v >> 8) as usize] as usize;
        while self.starts[u + 1] <= v {
            u += 1;
        }
        u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degree_order_puts_hubs_first_and_keeps_ties_in_rank_order() {
        let deg: Vec<AtomicU32> = [1u32, 5, 0, 5, 2]
            .iter()
            .map(|&d| AtomicU32::new(d))
            .collect();
        assert_eq!(degree_order(&loads(&deg)), vec![1, 3, 4, 0, 2]);
    }

    #[test]
    fn cuts_keep_units_and_partitions_under_their_caps_at_vertex_boundaries() {
        // A hub of 50 records, then 99 vertices of 1..=3.
        let mut deg = vec![50u32];
        deg.extend((0..99).map(|i| 1 + i % 3));
        let total: u64 = deg.iter().map(|&d| d as u64).sum();
        let order: Vec<u32> = (0..100).rev().collect();
        for ord in [None, Some(&order[..])] {
            let c = cuts(ord, &deg, 10, 25);
            assert_eq!(*c.units.last().unwrap(), 100);
            assert_eq!(c.parts[0], 0);
            assert_eq!(*c.parts.last().unwrap(), c.units.len() - 1);
            let d = |v: u32| match ord {
                Some(o) => deg[o[v as usize] as usize] as u64,
                None => deg[v as usize] as u64,
            };
            let mut sum = 0;
            for w in c.units.windows(2) {
                let r: u64 = (w[0]..w[1]).map(d).sum();
                assert!(r <= 10 || w[1] - w[0] == 1, "unit {w:?}: {r}");
                sum += r;
            }
            assert_eq!(sum, total);
            for p in 0..c.parts.len() - 1 {
                let (lo, hi) = c.vertices(p);
                let r: u64 = (lo..hi).map(d).sum();
                assert!(r <= 25 || hi - lo == 1, "partition {p}: {r}");
                assert_eq!(r, c.records[p], "partition {p}");
            }
            assert_eq!(c.records.len(), c.parts.len() - 1);
            assert_eq!(c.largest(), 50);
        }
        // Cells of 2^16 vertices still bound units.
        let c = cuts(None, &vec![0u32; 70_000], 1 << 40, 1 << 40);
        assert_eq!(c.units, vec![0, 65_536, 70_000]);
        assert_eq!(c.parts, vec![0, 2]);
    }
}
