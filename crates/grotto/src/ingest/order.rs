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
//! Both build paths count records per source before lists are built: the
//! memory path from the record pages it holds (then renumbers them and
//! regroups them by their new cell, page by page), the external path in
//! its counting pass (then renumbers records as it scatters them).

use super::records::{Page, CELL_SHIFT, PAGE_RECORDS};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// `n` zeroed counters.
pub fn counters(n: u64) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(0)).collect()
}

/// Records per source of the pages of each cell: `range_of(cell)` is the
/// range of sources a page of that cell holds (ranges of higher cells lie
/// higher). Cells are counted in parallel, each into its own part of the
/// result, so no counter is shared.
pub fn count_sources(pages: &mut [Page], n: u64, range_of: impl Fn(u64) -> (u64, u64)) -> Vec<u32> {
    let mut deg = vec![0u32; n as usize];
    pages.sort_unstable_by_key(|p| p.owner);
    let mut jobs: Vec<(u64, &mut [u32], &[Page])> = Vec::new();
    let (mut rest, mut at) = (&mut deg[..], 0u64);
    let mut pages: &[Page] = pages;
    while let Some(first) = pages.first() {
        let cell = first.owner;
        let k = pages.iter().take_while(|p| p.owner == cell).count();
        let (lo, hi) = range_of(cell as u64);
        let (lo, hi) = (lo.max(at).min(n), hi.max(at).min(n));
        let (_, tail) = std::mem::take(&mut rest).split_at_mut((lo - at) as usize);
        let (mine, tail) = tail.split_at_mut((hi - lo) as usize);
        rest = tail;
        at = hi;
        jobs.push((lo, mine, &pages[..k]));
        pages = &pages[k..];
    }
    jobs.into_par_iter().for_each(|(lo, d, ps)| {
        for p in ps {
            for &k in &p.keys {
                if let Some(c) = ((k >> 32) as usize)
                    .checked_sub(lo as usize)
                    .and_then(|i| d.get_mut(i))
                {
                    *c = c.saturating_add(1);
                }
            }
        }
    });
    deg
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

/// Renumbers every record of `pages` (`new_of[rank]` is a vertex's new
/// id) and regroups the records into pages of their unit (`starts`, from
/// [`unit_starts`]; a page's owner is its unit). Old pages are freed as
/// they are read, so memory stays about that of the records plus one
/// partial page per unit and worker.
pub fn regroup(pages: Vec<Page>, new_of: &[u32], starts: &[u32], weighted: bool) -> Vec<Page> {
    let workers = rayon::current_num_threads().max(1);
    let per = pages.len().div_ceil(workers).max(1);
    let mut groups: Vec<Vec<Page>> = Vec::new();
    let mut it = pages.into_iter();
    loop {
        let g: Vec<Page> = it.by_ref().take(per).collect();
        if g.is_empty() {
            break;
        }
        groups.push(g);
    }
    let unit_of = UnitOf::new(starts);
    let units = starts.len().saturating_sub(1);
    groups
        .into_par_iter()
        .flat_map_iter(|group| {
            let mut open: Vec<Option<Page>> = (0..units).map(|_| None).collect();
            let mut done = Vec::new();
            let mut keys: Vec<u64> = Vec::with_capacity(PAGE_RECORDS);
            for old in group {
                // Renumber first, in a loop of independent loads, then
                // scatter.
                keys.clear();
                keys.extend(old.keys.iter().map(|&k| {
                    ((new_of[(k >> 32) as usize] as u64) << 32)
                        | new_of[(k & 0xFFFF_FFFF) as usize] as u64
                }));
                for (i, &k) in keys.iter().enumerate() {
                    let u = unit_of.of((k >> 32) as u32);
                    let p = open[u].get_or_insert_with(|| Page {
                        owner: u as u32,
                        keys: Vec::with_capacity(PAGE_RECORDS),
                        weights: if weighted {
                            Vec::with_capacity(PAGE_RECORDS)
                        } else {
                            Vec::new()
                        },
                    });
                    p.keys.push(k);
                    if weighted {
                        p.weights.push(old.weights[i]);
                    }
                    if p.keys.len() == PAGE_RECORDS {
                        done.extend(open[u].take());
                    }
                }
            }
            done.extend(open.into_iter().flatten());
            done
        })
        .collect()
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
    fn sources_are_counted_per_cell_whatever_the_page_order() {
        let n = 70_000u64;
        let page = |owner: u32, srcs: &[u64]| Page {
            owner,
            keys: srcs.iter().map(|&s| s << 32 | 1).collect(),
            weights: Vec::new(),
        };
        let mut pages = vec![
            page(1, &[65_536, 69_999, 69_999]),
            page(0, &[0, 5, 5, 65_535]),
            page(1, &[65_536]),
        ];
        let range = |c: u64| ((c << CELL_SHIFT).min(n), ((c + 1) << CELL_SHIFT).min(n));
        let deg = count_sources(&mut pages, n, range);
        assert_eq!((deg[0], deg[5], deg[65_535]), (1, 2, 1));
        assert_eq!((deg[65_536], deg[69_999]), (2, 2));
        assert_eq!(deg.iter().map(|&d| d as u64).sum::<u64>(), 8);
    }

    #[test]
    fn regroup_renumbers_every_record_into_its_new_cell() {
        // 70000 vertices: two cells. Reverse the ids.
        let n = 70_000u32;
        let new_of: Vec<u32> = (0..n).map(|r| n - 1 - r).collect();
        let mut pages = Vec::new();
        let mut want = Vec::new();
        for c in 0..2u64 {
            let mut p = Page {
                owner: c as u32,
                keys: Vec::new(),
                weights: Vec::new(),
            };
            for i in 0..20_000u64 {
                let s = (c << CELL_SHIFT) + i % 3000;
                let t = (i * 7919) % n as u64;
                p.keys.push(s << 32 | t);
                p.weights.push(i as f32);
                want.push((
                    (new_of[s as usize] as u64) << 32 | new_of[t as usize] as u64,
                    i as f32,
                ));
            }
            pages.push(p);
        }
        let deg = vec![1u32; n as usize];
        let order: Vec<u32> = (0..n).collect();
        let starts = unit_starts(&order, &deg, 30_000);
        assert_eq!(starts, vec![0, 30_000, 60_000, 65_536, 70_000]);
        let out = regroup(pages, &new_of, &starts, true);
        let mut got = Vec::new();
        for p in &out {
            assert!(p.keys.len() <= PAGE_RECORDS);
            for (i, &k) in p.keys.iter().enumerate() {
                let s = (k >> 32) as u32;
                let u = p.owner as usize;
                assert!(starts[u] <= s && s < starts[u + 1]);
                got.push((k, p.weights[i]));
            }
        }
        let key = |a: &(u64, f32)| (a.0, a.1.to_bits());
        got.sort_by_key(key);
        want.sort_by_key(key);
        assert_eq!(got, want);
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
