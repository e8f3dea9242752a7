//! Weights summed by group, per thread: the table both a contraction and
//! an algorithm's moves sum a list's neighbours in.

use super::Weights;
use crate::VertexId;

/// Weights summed by group for one vertex: an open-addressing table kept
/// per thread and reused, at most half full. An empty table is sized for
/// the list about to be summed ([`GroupSums::prepare`]): its slots are the
/// first `size` of the memory kept, so a short list after a hub's probes
/// a few cache lines, not the hub's table.
#[derive(Default)]
pub(crate) struct GroupSums {
    keys: Vec<u32>,
    sums: Vec<f64>,
    used: Vec<u32>,
    /// Slots in use: a power of two, at most the memory kept.
    size: usize,
    /// `64 - log2(size)`: a key's slot is the top bits of its product.
    shift: u32,
}

/// A free slot of a [`GroupSums`] table (no group reaches it: groups are
/// below the vertex count, which is below `u32::MAX`).
const FREE: u32 = u32::MAX;

/// The fewest slots a table uses.
const MIN_SLOTS: usize = 32;

impl GroupSums {
    /// Makes room for `more` groups beyond those added so far without
    /// growing on the way (a list's length bounds its groups).
    #[inline]
    pub(crate) fn prepare(&mut self, more: usize) {
        let need = 2 * (self.used.len() + more);
        if self.used.is_empty() {
            let size = need.next_power_of_two().max(MIN_SLOTS);
            if size > self.keys.len() {
                self.keys = vec![FREE; size];
                self.sums = vec![0.0; size];
            }
            self.size = size;
            self.shift = 64 - size.trailing_zeros();
        } else if need > self.size {
            self.grow(need);
        }
    }

    #[inline]
    fn slot(&self, g: u32) -> usize {
        ((g as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// Adds `w` to group `g`'s sum; room must have been made
    /// ([`GroupSums::prepare`]).
    #[inline(always)]
    pub(crate) fn add_prepared(&mut self, g: u32, w: f64) {
        let mask = self.size - 1;
        let mut i = self.slot(g);
        loop {
            let k = self.keys[i];
            if k == g {
                self.sums[i] += w;
                return;
            }
            if k == FREE {
                self.keys[i] = g;
                self.sums[i] = w;
                self.used.push(i as u32);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `w` to group `g`'s sum.
    #[inline]
    pub(crate) fn add(&mut self, g: u32, w: f64) {
        self.prepare(1);
        self.add_prepared(g, w);
    }

    /// Adds every `(group[i], weights[i])`: the groups are read a run at a
    /// time first, so that their cache misses overlap, and a run of one
    /// group is summed in a register before it touches the table.
    #[inline]
    pub(crate) fn add_list(
        &mut self,
        ids: &[VertexId],
        weights: Weights<'_>,
        mut group: impl FnMut(VertexId) -> u32,
        skip: VertexId,
    ) {
        self.prepare(ids.len());
        let mut run = [0u32; 32];
        let (mut last, mut acc) = (FREE, 0.0);
        for (c, part) in ids.chunks(32).enumerate() {
            for (x, &u) in run.iter_mut().zip(part) {
                *x = if u == skip { FREE } else { group(u) };
            }
            for (j, &g) in run[..part.len()].iter().enumerate() {
                if g == FREE {
                    continue;
                }
                let w = weights.get(c * 32 + j);
                if g == last {
                    acc += w;
                    continue;
                }
                if last != FREE {
                    self.add_prepared(last, acc);
                }
                (last, acc) = (g, w);
            }
        }
        if last != FREE {
            self.add_prepared(last, acc);
        }
    }

    /// The sum of group `g` (0 when none was added).
    #[inline]
    pub(crate) fn get(&self, g: u32) -> f64 {
        if self.size == 0 {
            return 0.0;
        }
        let mask = self.size - 1;
        let mut i = self.slot(g);
        loop {
            let k = self.keys[i];
            if k == g {
                return self.sums[i];
            }
            if k == FREE {
                return 0.0;
            }
            i = (i + 1) & mask;
        }
    }

    /// The groups and sums, in the order they were first added.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.used
            .iter()
            .map(|&i| (self.keys[i as usize], self.sums[i as usize]))
    }

    /// Empties the table (a slot at a time, as many as were used).
    pub(crate) fn clear(&mut self) {
        for &i in &self.used {
            self.keys[i as usize] = FREE;
        }
        self.used.clear();
    }

    fn grow(&mut self, need: usize) {
        let size = need.next_power_of_two().max(MIN_SLOTS);
        let old: Vec<(u32, f64)> = self.iter().collect();
        self.clear();
        if size > self.keys.len() {
            self.keys = vec![FREE; size];
            self.sums = vec![0.0; size];
        }
        self.size = size;
        self.shift = 64 - size.trailing_zeros();
        for (g, w) in old {
            self.add_prepared(g, w);
        }
    }
}
