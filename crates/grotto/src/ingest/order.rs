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

/// Counts the records of each source (keys `source << 32 | target`).
pub fn count_sources(pages: &[Page], deg: &[AtomicU32]) {
    pages.par_iter().for_each(|p| {
        for &k in &p.keys {
            deg[(k >> 32) as usize].fetch_add(1, Relaxed);
        }
    });
}

/// The degree order: entry `i` is the rank of new internal vertex `i`,
/// ranks sorted by `deg` (records per rank) descending, ties by rank.
pub fn degree_order(deg: &[AtomicU32]) -> Vec<u32> {
    let mut keys: Vec<u64> = deg
        .par_iter()
        .enumerate()
        .map(|(r, d)| ((!d.load(Relaxed) as u64) << 32) | r as u64)
        .collect();
    keys.par_sort_unstable();
    keys.into_par_iter().map(|k| k as u32).collect()
}

/// Renumbers every record of `pages` (`new_of[rank]` is a vertex's new
/// id) and regroups the records into pages of their new source cell.
/// Old pages are freed as they are read, so memory stays about that of
/// the records plus one partial page per cell and worker.
pub fn regroup(pages: Vec<Page>, new_of: &[u32], weighted: bool) -> Vec<Page> {
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
    let cells = new_of.len().max(1).div_ceil(1 << CELL_SHIFT);
    groups
        .into_par_iter()
        .flat_map_iter(|group| {
            let mut open: Vec<Option<Page>> = (0..cells).map(|_| None).collect();
            let mut done = Vec::new();
            for old in group {
                for (i, &k) in old.keys.iter().enumerate() {
                    let s = new_of[(k >> 32) as usize];
                    let t = new_of[(k & 0xFFFF_FFFF) as usize];
                    let c = (s >> CELL_SHIFT) as usize;
                    let p = open[c].get_or_insert_with(|| Page {
                        owner: c as u32,
                        keys: Vec::with_capacity(PAGE_RECORDS),
                        weights: if weighted {
                            Vec::with_capacity(PAGE_RECORDS)
                        } else {
                            Vec::new()
                        },
                    });
                    p.keys.push(((s as u64) << 32) | t as u64);
                    if weighted {
                        p.weights.push(old.weights[i]);
                    }
                    if p.keys.len() == PAGE_RECORDS {
                        done.extend(open[c].take());
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
        assert_eq!(degree_order(&deg), vec![1, 3, 4, 0, 2]);
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
        let out = regroup(pages, &new_of, true);
        let mut got = Vec::new();
        for p in &out {
            assert!(p.keys.len() <= PAGE_RECORDS);
            for (i, &k) in p.keys.iter().enumerate() {
                assert_eq!((k >> 32) >> CELL_SHIFT, p.owner as u64);
                got.push((k, p.weights[i]));
            }
        }
        let key = |a: &(u64, f32)| (a.0, a.1.to_bits());
        got.sort_by_key(key);
        want.sort_by_key(key);
        assert_eq!(got, want);
    }
}
