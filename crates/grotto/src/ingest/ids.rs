//! Vertex id bookkeeping during a build: which ids were seen, and how a
//! user's id becomes an internal one (identity, or order-preserving
//! compaction when ids are sparse or exceed the u32 range).

use std::collections::HashSet;

/// A growable bitmap over ids below 2^32.
#[derive(Clone, Debug, Default)]
pub struct Bitmap {
    words: Vec<u64>,
}

impl Bitmap {
    /// Sets bit `i`.
    #[inline]
    pub fn set(&mut self, i: u64) {
        let w = (i >> 6) as usize;
        if w >= self.words.len() {
            self.words.resize((w + 1).next_power_of_two().max(1024), 0);
        }
        self.words[w] |= 1 << (i & 63);
    }
    /// Whether bit `i` is set.
    pub fn get(&self, i: u64) -> bool {
        self.words
            .get((i >> 6) as usize)
            .is_some_and(|w| w >> (i & 63) & 1 == 1)
    }
    /// Ors `other` into `self`.
    pub fn union(&mut self, other: &Bitmap) {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }
    /// Number of set bits.
    pub fn count(&self) -> u64 {
        self.words.iter().map(|w| w.count_ones() as u64).sum()
    }
    /// The largest set bit, if any.
    pub fn max(&self) -> Option<u64> {
        let (i, w) = self
            .words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)?;
        Some(i as u64 * 64 + 63 - w.leading_zeros() as u64)
    }
    /// Set bits in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let t = w.trailing_zeros() as u64;
                w &= w - 1;
                Some(i as u64 * 64 + t)
            })
        })
    }
    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }
}

/// Ids seen by one worker: a bitmap for ids below 2^32 - 1 and a set for
/// the rare larger ones.
#[derive(Clone, Debug, Default)]
pub struct SeenIds {
    /// Ids below `u32::MAX`.
    pub small: Bitmap,
    /// Ids at or above `u32::MAX`.
    pub big: HashSet<u64>,
}

impl SeenIds {
    /// Records `id`.
    #[inline]
    pub fn insert(&mut self, id: u64) {
        if id < u32::MAX as u64 {
            self.small.set(id);
        } else {
            self.big.insert(id);
        }
    }
    /// Merges another worker's ids.
    pub fn union(&mut self, o: &SeenIds) {
        self.small.union(&o.small);
        self.big.extend(o.big.iter().copied());
    }
    /// Distinct ids seen.
    pub fn count(&self) -> u64 {
        self.small.count() + self.big.len() as u64
    }
    /// Largest id seen.
    pub fn max(&self) -> Option<u64> {
        self.big.iter().copied().max().or_else(|| self.small.max())
    }
}

/// Order-preserving map from sparse user ids to dense internal ids.
#[derive(Clone, Debug)]
pub struct CompactMap {
    words: Vec<u64>,
    rank: Vec<u32>,
    small: u64,
    big: Vec<u64>,
}

impl CompactMap {
    /// Builds the map from every id seen.
    pub fn new(seen: &SeenIds) -> CompactMap {
        let words = seen.small.words.clone();
        let mut rank = Vec::with_capacity(words.len());
        let mut acc = 0u64;
        for w in &words {
            rank.push(acc as u32);
            acc += w.count_ones() as u64;
        }
        let mut big: Vec<u64> = seen.big.iter().copied().collect();
        big.sort_unstable();
        CompactMap {
            words,
            rank,
            small: acc,
            big,
        }
    }
    /// Number of vertices.
    pub fn len(&self) -> u64 {
        self.small + self.big.len() as u64
    }
    /// True when no id was seen.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Internal id of a seen user id; ids never seen map to the rank of the
    /// next seen id (used for range boundaries).
    #[inline]
    pub fn map(&self, id: u64) -> u64 {
        if id < u32::MAX as u64 {
            let w = (id >> 6) as usize;
            if w >= self.words.len() {
                return self.small;
            }
            let below = self.words[w] & ((1u64 << (id & 63)) - 1);
            self.rank[w] as u64 + below.count_ones() as u64
        } else {
            self.small + self.big.partition_point(|&b| b < id) as u64
        }
    }
    /// The sorted user ids, i.e. the id map section.
    pub fn original_ids(&self) -> Vec<u64> {
        let mut v: Vec<u64> = Bitmap {
            words: self.words.clone(),
        }
        .iter()
        .collect();
        v.extend_from_slice(&self.big);
        v
    }
}

/// How a build turns user ids (minus the format's base) into internal ids.
#[derive(Clone, Debug)]
pub enum IdMapper {
    /// Internal id = user id; ids must stay below `limit`.
    Dense {
        /// First id that cannot be stored densely.
        limit: u64,
    },
    /// Order-preserving compaction.
    Compact(std::sync::Arc<CompactMap>),
}

impl IdMapper {
    /// The internal id of `id`, or `None` if it cannot be stored densely.
    #[inline]
    pub fn map(&self, id: u64) -> Option<u32> {
        match self {
            IdMapper::Dense { limit } => (id < *limit).then_some(id as u32),
            IdMapper::Compact(m) => Some(m.map(id) as u32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn compaction_preserves_order() {
        let mut s = SeenIds::default();
        for id in [5u64, 1 << 40, 3, 1000, u64::MAX, 3] {
            s.insert(id);
        }
        let m = CompactMap::new(&s);
        assert_eq!(m.len(), 5);
        assert_eq!(m.original_ids(), vec![3, 5, 1000, 1 << 40, u64::MAX]);
        for (i, id) in m.original_ids().into_iter().enumerate() {
            assert_eq!(m.map(id), i as u64);
        }
        assert_eq!(m.map(4), 1);
    }
}
