//! From records to sorted lists: [`build_cell`] turns the records of one
//! cell into sorted adjacency lists with a counting scatter (counters fit
//! in cache), then sorts each list, drops duplicates unless asked to keep
//! them, and notes loops.

/// Sorted adjacency lists of the sources `lo..hi`.
#[derive(Debug, Default)]
pub struct LocalCsr {
    /// First source.
    pub lo: u64,
    /// One past the last source.
    pub hi: u64,
    /// `offsets[i]..offsets[i+1]` is the list of source `lo + i`.
    pub offsets: Vec<u32>,
    /// Targets.
    pub targets: Vec<u32>,
    /// Weights (empty when unweighted).
    pub weights: Vec<f32>,
    /// Duplicate entries removed (excluding loops).
    pub dup_entries: u64,
    /// Duplicate self-loop entries removed.
    pub dup_loops: u64,
    /// Self loops kept.
    pub loops: u64,
}

impl LocalCsr {
    /// The list of source `v` (global id).
    pub fn list(&self, v: u64) -> (&[u32], &[f32]) {
        let i = (v - self.lo) as usize;
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let w = if self.weights.is_empty() {
            &[][..]
        } else {
            &self.weights[a..b]
        };
        (&self.targets[a..b], w)
    }
}

/// Orders f32 bits so that integer order equals numeric order.
#[inline]
fn ordered_bits(w: f32) -> u32 {
    let b = w.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | (1 << 31)
    }
}
#[inline]
fn from_ordered_bits(b: u32) -> f32 {
    f32::from_bits(if b >> 31 == 1 { b & !(1 << 31) } else { !b })
}

/// Builds the lists of sources `lo..hi` from record slices.
pub fn build_cell(
    lo: u64,
    hi: u64,
    parts: &[(&[u64], &[f32])],
    weighted: bool,
    keep_duplicates: bool,
) -> LocalCsr {
    let mut c = scatter_cell(lo, hi, parts, weighted);
    sort_lists(&mut c, keep_duplicates, |v| v as u32);
    c
}

/// The lists of sources `lo..hi` in record order (unsorted, duplicates
/// kept, no counts): a counting scatter of the records' targets.
pub fn scatter_cell(lo: u64, hi: u64, parts: &[(&[u64], &[f32])], weighted: bool) -> LocalCsr {
    let n = (hi - lo) as usize;
    let mut offsets = vec![0u32; n + 1];
    for (keys, _) in parts {
        for &k in *keys {
            offsets[((k >> 32) - lo) as usize + 1] += 1;
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let total = offsets[n] as usize;
    let mut targets = vec![0u32; total];
    let mut weights = if weighted {
        vec![0f32; total]
    } else {
        Vec::new()
    };
    let mut cur: Vec<u32> = offsets[..n].to_vec();
    for (keys, ws) in parts {
        for (i, &k) in keys.iter().enumerate() {
            let s = ((k >> 32) - lo) as usize;
            let at = cur[s] as usize;
            cur[s] += 1;
            targets[at] = k as u32;
            if weighted {
                weights[at] = ws[i];
            }
        }
    }
    LocalCsr {
        lo,
        hi,
        offsets,
        targets,
        weights,
        ..LocalCsr::default()
    }
}

/// Sorts each list of `c` (by target, then weight), drops duplicates
/// unless `keep_duplicates` (a weighted duplicate keeps its smallest
/// weight), compacts in place and counts them and the self loops kept;
/// `id(v)` is the id that source `v`'s targets call it by.
pub fn sort_lists(c: &mut LocalCsr, keep_duplicates: bool, id: impl Fn(u64) -> u32) {
    let n = (c.hi - c.lo) as usize;
    // A weighted cell has a weight per target (none when it has no record).
    let weighted = !c.weights.is_empty();
    let (lo, offsets, targets, weights) = (c.lo, &mut c.offsets, &mut c.targets, &mut c.weights);
    let (mut dup_entries, mut dup_loops, mut loops) = (0u64, 0u64, 0u64);
    let mut write = 0usize;
    let mut scratch: Vec<u64> = Vec::new();
    let mut room = super::radix::Room::default();
    let mut start = 0usize;
    for i in 0..n {
        let end = offsets[i + 1] as usize;
        let src = id(lo + i as u64);
        offsets[i] = write as u32;
        if weighted {
            scratch.clear();
            scratch.extend(
                (start..end).map(|j| ((targets[j] as u64) << 32) | ordered_bits(weights[j]) as u64),
            );
            scratch.sort_unstable();
            let mut last = u64::MAX;
            for &x in &scratch {
                let t = x >> 32;
                if t == last && !keep_duplicates {
                    if t as u32 == src {
                        dup_loops += 1
                    } else {
                        dup_entries += 1
                    }
                    continue;
                }
                last = t;
                targets[write] = t as u32;
                weights[write] = from_ordered_bits(x as u32);
                if t as u32 == src {
                    loops += 1;
                }
                write += 1;
            }
        } else {
            super::radix::sort_u32(&mut targets[start..end], &mut room);
            let mut last = u64::MAX;
            for j in start..end {
                let t = targets[j];
                if t as u64 == last && !keep_duplicates {
                    if t == src {
                        dup_loops += 1
                    } else {
                        dup_entries += 1
                    }
                    continue;
                }
                last = t as u64;
                targets[write] = t;
                if t == src {
                    loops += 1;
                }
                write += 1;
            }
        }
        start = end;
    }
    offsets[n] = write as u32;
    targets.truncate(write);
    targets.shrink_to_fit();
    if weighted {
        weights.truncate(write);
        weights.shrink_to_fit();
    }
    c.dup_entries += dup_entries;
    c.dup_loops += dup_loops;
    c.loops += loops;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_sort_dedup_and_count_loops() {
        let keys = [
            (5u64 << 32) | 9,
            (5 << 32) | 7,
            (5 << 32) | 9,
            (6 << 32) | 6,
            (6 << 32) | 6,
            (4 << 32) | 1,
        ];
        let c = build_cell(4, 8, &[(&keys, &[])], false, false);
        assert_eq!(c.list(4).0, &[1]);
        assert_eq!(c.list(5).0, &[7, 9]);
        assert_eq!(c.list(6).0, &[6]);
        assert_eq!(c.list(7).0, &[] as &[u32]);
        assert_eq!((c.dup_entries, c.dup_loops, c.loops), (1, 1, 1));
        let k = build_cell(4, 8, &[(&keys, &[])], false, true);
        assert_eq!(k.list(5).0, &[7, 9, 9]);
    }

    #[test]
    fn weighted_duplicates_keep_the_smallest_weight() {
        let keys = [3u64, 3, 1];
        let ws = [2.0f32, -1.5, 0.25];
        let c = build_cell(0, 1, &[(&keys, &ws)], true, false);
        assert_eq!(c.list(0), (&[1u32, 3][..], &[0.25f32, -1.5][..]));
    }
}
