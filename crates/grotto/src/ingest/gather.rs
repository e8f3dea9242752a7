//! The memory build's lists under a vertex order, without moving records:
//! each cell's records become lists in the user's order (one counting
//! scatter, [`scatter_pages`]), the order is made from those lists'
//! lengths ([`degrees`]), targets are renumbered and lists sorted in place
//! ([`renumber_and_sort`]), and each build unit's lists are then copied
//! out in the new order ([`gather`]). Records (8 bytes) are read once;
//! what moves after is lists of 4-byte targets.

use super::cell::{scatter_cell, sort_lists, LocalCsr};
use super::records::Page;
use rayon::prelude::*;

/// The unsorted lists of every cell that has records, by first rank
/// (ranks: ids in the user's order): `range_of(cell)` is the ranks a
/// cell's records come from, within `0..n`. Each cell's pages are freed
/// once scattered.
pub fn scatter_pages(
    mut pages: Vec<Page>,
    n: u64,
    range_of: impl Fn(u64) -> (u64, u64) + Sync,
    weighted: bool,
) -> Vec<LocalCsr> {
    pages.sort_unstable_by_key(|p| p.owner);
    let mut cells: Vec<Vec<Page>> = Vec::new();
    for p in pages {
        match cells.last_mut() {
            Some(c) if c[0].owner == p.owner => c.push(p),
            _ => cells.push(vec![p]),
        }
    }
    let mut out: Vec<LocalCsr> = cells
        .into_par_iter()
        .map(|ps| {
            let (lo, hi) = range_of(ps[0].owner as u64);
            let hi = hi.min(n);
            let parts: Vec<(&[u64], &[f32])> =
                ps.iter().map(|p| (&p.keys[..], &p.weights[..])).collect();
            scatter_cell(lo.min(hi), hi, &parts, weighted)
        })
        .collect();
    out.sort_unstable_by_key(|c| c.lo);
    out
}

/// Records per rank (list lengths before duplicates are dropped): what
/// the vertex order is made from.
pub fn degrees(cells: &[LocalCsr], n: u64) -> Vec<u32> {
    let mut deg = vec![0u32; n as usize];
    let mut jobs: Vec<(&mut [u32], &LocalCsr)> = Vec::with_capacity(cells.len());
    let (mut rest, mut at) = (&mut deg[..], 0u64);
    for c in cells {
        let (_, tail) = std::mem::take(&mut rest).split_at_mut((c.lo - at) as usize);
        let (mine, tail) = tail.split_at_mut((c.hi - c.lo) as usize);
        rest = tail;
        at = c.hi;
        jobs.push((mine, c));
    }
    jobs.into_par_iter().for_each(|(d, c)| {
        for (i, x) in d.iter_mut().enumerate() {
            *x = c.offsets[i + 1] - c.offsets[i];
        }
    });
    deg
}

/// Renames every target through `new_of` (rank to new id; identity when
/// `None`), then sorts each list and drops duplicates (see
/// [`sort_lists`]).
pub fn renumber_and_sort(cells: &mut [LocalCsr], new_of: Option<&[u32]>, keep_duplicates: bool) {
    cells.par_iter_mut().for_each(|c| match new_of {
        Some(m) => {
            for t in c.targets.iter_mut() {
                *t = m[*t as usize];
            }
            sort_lists(c, keep_duplicates, |v| m[v as usize]);
        }
        None => sort_lists(c, keep_duplicates, |v| v as u32),
    });
}

/// Lists covering `0..n` in rank order: `cells` with an empty cell in
/// each gap (ranks of no record).
pub fn fill_gaps(cells: Vec<LocalCsr>, n: u64) -> Vec<LocalCsr> {
    let empty = |lo: u64, hi: u64| LocalCsr {
        lo,
        hi,
        offsets: vec![0; (hi - lo) as usize + 1],
        ..LocalCsr::default()
    };
    let mut out = Vec::with_capacity(cells.len() * 2 + 1);
    let mut at = 0u64;
    for c in cells {
        if c.lo > at {
            out.push(empty(at, c.lo));
        }
        at = c.hi;
        out.push(c);
    }
    if at < n {
        out.push(empty(at, n));
    }
    out
}

/// The lists of each build unit (`starts`: first new id of each, then
/// `n`), copied out of `cells` (sorted, targets in new ids) in the new
/// order: `order[v]` is the rank of new vertex `v`. The cells' counts of
/// duplicates and loops go with the first unit (they are only summed).
pub fn gather(cells: &[LocalCsr], order: &[u32], starts: &[u32]) -> Vec<LocalCsr> {
    let weighted = cells.iter().any(|c| !c.weights.is_empty());
    let cell_of = |r: u64| -> Option<&LocalCsr> {
        let i = cells.partition_point(|c| c.lo <= r).checked_sub(1)?;
        Some(&cells[i]).filter(|c| r < c.hi)
    };
    let list = |v: u32| -> (&[u32], &[f32]) {
        match cell_of(order[v as usize] as u64) {
            Some(c) => c.list(order[v as usize] as u64),
            None => (&[], &[]),
        }
    };
    let mut units: Vec<LocalCsr> = starts
        .par_windows(2)
        .map(|w| {
            let (lo, hi) = (w[0], w[1]);
            let mut offsets = Vec::with_capacity((hi - lo) as usize + 1);
            offsets.push(0u32);
            let mut total = 0u32;
            for v in lo..hi {
                total += list(v).0.len() as u32;
                offsets.push(total);
            }
            let mut targets = Vec::with_capacity(total as usize);
            let mut weights = Vec::with_capacity(if weighted { total as usize } else { 0 });
            for v in lo..hi {
                let (t, ws) = list(v);
                targets.extend_from_slice(t);
                weights.extend_from_slice(ws);
            }
            LocalCsr {
                lo: lo as u64,
                hi: hi as u64,
                offsets,
                targets,
                weights,
                ..LocalCsr::default()
            }
        })
        .collect();
    if let Some(first) = units.first_mut() {
        for c in cells {
            first.dup_entries += c.dup_entries;
            first.dup_loops += c.dup_loops;
            first.loops += c.loops;
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::cell::build_cell;

    fn page(owner: u32, keys: &[(u64, u64)], ws: &[f32]) -> Page {
        Page {
            owner,
            keys: keys.iter().map(|&(s, t)| s << 32 | t).collect(),
            weights: ws.to_vec(),
        }
    }

    #[test]
    fn gathered_lists_are_those_of_records_renumbered_first() {
        // Ranks 0..10 in cells of 4; rank 9 has no record, nor do 4..8.
        let recs = [
            (0u64, 3u64),
            (1, 0),
            (0, 3),
            (2, 2),
            (3, 9),
            (0, 1),
            (8, 0),
            (2, 2),
            (1, 8),
        ];
        let ws: Vec<f32> = (0..recs.len()).map(|i| 9.0 - i as f32).collect();
        let n = 10u64;
        let order: Vec<u32> = vec![2, 0, 8, 9, 1, 3, 4, 5, 6, 7];
        let new_of = crate::store::names::invert(&order);
        for weighted in [false, true] {
            let w = |r: std::ops::Range<usize>| if weighted { ws[r].to_vec() } else { vec![] };
            let pages = vec![
                page(2, &recs[6..7], &w(6..7)),
                page(0, &recs[..4], &w(0..4)),
                page(0, &recs[4..6], &w(4..6)),
                page(0, &recs[7..], &w(7..9)),
            ];
            let range = |c: u64| (c * 4, (c * 4 + 4).min(n));
            let mut cells = scatter_pages(pages, n, range, weighted);
            assert_eq!(cells.iter().map(|c| c.lo).collect::<Vec<_>>(), vec![0, 8]);
            assert_eq!(degrees(&cells, n), vec![3, 2, 2, 1, 0, 0, 0, 0, 1, 0]);
            renumber_and_sort(&mut cells, Some(&new_of), false);
            let starts = [0u32, 3, 10];
            let units = gather(&cells, &order, &starts);
            // The reference: every record renumbered, then one cell.
            let keys: Vec<u64> = recs
                .iter()
                .map(|&(s, t)| (new_of[s as usize] as u64) << 32 | new_of[t as usize] as u64)
                .collect();
            let all = w(0..9);
            let want = build_cell(0, n, &[(&keys, &all)], weighted, false);
            for v in 0..n {
                let u = &units[if v < 3 { 0 } else { 1 }];
                assert_eq!(u.list(v), want.list(v), "vertex {v}");
            }
            let sum = |f: fn(&LocalCsr) -> u64| units.iter().map(f).sum::<u64>();
            assert_eq!(sum(|c| c.dup_entries), want.dup_entries);
            assert_eq!(sum(|c| c.dup_loops), want.dup_loops);
            assert_eq!(sum(|c| c.loops), want.loops);
        }
    }

    #[test]
    fn gaps_become_empty_cells() {
        let c = |lo: u64, hi: u64| LocalCsr {
            lo,
            hi,
            offsets: vec![0; (hi - lo) as usize + 1],
            ..LocalCsr::default()
        };
        let filled = fill_gaps(vec![c(2, 4), c(4, 6), c(8, 9)], 12);
        let ranges: Vec<(u64, u64)> = filled.iter().map(|c| (c.lo, c.hi)).collect();
        assert_eq!(
            ranges,
            vec![(0, 2), (2, 4), (4, 6), (6, 8), (8, 9), (9, 12)]
        );
        assert!(filled
            .iter()
            .all(|c| c.offsets.len() as u64 == c.hi - c.lo + 1));
    }
}
