//! Vertex id bookkeeping during a build: which ids were seen, and how a
//! user's id becomes an internal one (identity, or order-preserving
//! compaction when ids are sparse or exceed the u32 range).

use std::collections::HashSet;

/// log2 of the ids one bitmap page covers.
const PAGE_SHIFT: u32 = 16;
/// Words in one bitmap page (65,536 ids, 8 KiB).
const PAGE_WORDS: usize = 1 << (PAGE_SHIFT - 6);

/// A growable bitmap over ids below 2^32, allocated in 8 KiB pages as ids
/// are set: memory follows the ids seen, not the largest one (a single id
/// of 4 billion costs one page and a 500 KB page table, not 500 MB).
#[derive(Clone, Debug, Default)]
pub struct Bitmap {
    pages: Vec<Option<Box<[u64]>>>,
}

impl Bitmap {
    /// Sets bit `i`.
    #[inline]
    pub fn set(&mut self, i: u64) {
        let p = (i >> PAGE_SHIFT) as usize;
        if p >= self.pages.len() {
            self.pages.resize(p + 1, None);
        }
        let page = self.pages[p].get_or_insert_with(|| vec![0u64; PAGE_WORDS].into_boxed_slice());
        page[((i >> 6) as usize) & (PAGE_WORDS - 1)] |= 1 << (i & 63);
    }
    /// Whether bit `i` is set.
    pub fn get(&self, i: u64) -> bool {
        match self.pages.get((i >> PAGE_SHIFT) as usize) {
            Some(Some(page)) => page[((i >> 6) as usize) & (PAGE_WORDS - 1)] >> (i & 63) & 1 == 1,
            _ => false,
        }
    }
    /// Ors `other` into `self`.
    pub fn union(&mut self, other: &Bitmap) {
        if other.pages.len() > self.pages.len() {
            self.pages.resize(other.pages.len(), None);
        }
        for (a, b) in self.pages.iter_mut().zip(&other.pages) {
            let Some(b) = b else { continue };
            match a {
                Some(a) => {
                    for (x, y) in a.iter_mut().zip(b.iter()) {
                        *x |= y;
                    }
                }
                None => *a = Some(b.clone()),
            }
        }
    }
    /// Number of set bits.
    pub fn count(&self) -> u64 {
        self.pages
            .iter()
            .flatten()
            .flat_map(|p| p.iter())
            .map(|w| w.count_ones() as u64)
            .sum()
    }
    /// The largest set bit, if any.
    pub fn max(&self) -> Option<u64> {
        let (p, page) = self.pages.iter().enumerate().rev().find_map(|(p, page)| {
            page.as_ref()
                .filter(|w| w.iter().any(|&x| x != 0))
                .map(|w| (p, w))
        })?;
        let (i, w) = page.iter().enumerate().rev().find(|(_, w)| **w != 0)?;
        Some(((p as u64) << PAGE_SHIFT) + i as u64 * 64 + 63 - w.leading_zeros() as u64)
    }
    /// Set bits in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        set_bits(&self.pages)
    }
    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.pages.len() as u64 * 8
            + self.pages.iter().flatten().count() as u64 * PAGE_WORDS as u64 * 8
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

/// Order-preserving map from sparse user ids to dense internal ids: the
/// seen-id bitmap's pages with the rank of each word, and the sorted ids
/// at or above 2^32 - 1.
#[derive(Clone, Debug)]
pub struct CompactMap {
    pages: Vec<Option<Box<[u64]>>>,
    /// Rank of the first id of each word of a present page.
    ranks: Vec<Option<Box<[u32]>>>,
    /// Rank of the first id of each page (for pages never touched).
    page_rank: Vec<u64>,
    small: u64,
    big: Vec<u64>,
}

impl CompactMap {
    /// Builds the map from every id seen.
    pub fn new(seen: &SeenIds) -> CompactMap {
        let pages = seen.small.pages.clone();
        let mut ranks = Vec::with_capacity(pages.len());
        let mut page_rank = Vec::with_capacity(pages.len());
        let mut acc = 0u64;
        for page in &pages {
            page_rank.push(acc);
            ranks.push(page.as_ref().map(|words| {
                words
                    .iter()
                    .map(|w| {
                        let r = acc as u32;
                        acc += w.count_ones() as u64;
                        r
                    })
                    .collect::<Box<[u32]>>()
            }));
        }
        let mut big: Vec<u64> = seen.big.iter().copied().collect();
        big.sort_unstable();
        CompactMap {
            pages,
            ranks,
            page_rank,
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
            let p = (id >> PAGE_SHIFT) as usize;
            if p >= self.pages.len() {
                return self.small;
            }
            match (&self.pages[p], &self.ranks[p]) {
                (Some(words), Some(ranks)) => {
                    let w = ((id >> 6) as usize) & (PAGE_WORDS - 1);
                    let below = words[w] & ((1u64 << (id & 63)) - 1);
                    ranks[w] as u64 + below.count_ones() as u64
                }
                _ => self.page_rank[p],
            }
        } else {
            self.small + self.big.partition_point(|&b| b < id) as u64
        }
    }
    /// The sorted user ids, one at a time (the id map section).
    pub fn original_ids_iter(&self) -> impl Iterator<Item = u64> + '_ {
        set_bits(&self.pages).chain(self.big.iter().copied())
    }

    /// The sorted user ids, i.e. the id map section.
    pub fn original_ids(&self) -> Vec<u64> {
        self.original_ids_iter().collect()
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
    /// Ids to ranks (dense below `limit`, or through `compact`), then
    /// a vertex order: `new_of[rank]` is the internal id (see
    /// [`super::order`]).
    Ordered {
        /// The compaction, if ids are compacted.
        compact: Option<std::sync::Arc<CompactMap>>,
        /// First id that cannot be stored densely (without compaction).
        limit: u64,
        /// Ranks to internal ids.
        new_of: std::sync::Arc<Vec<u32>>,
    },
}

impl IdMapper {
    /// The internal id of `id`, or `None` if it cannot be stored densely.
    #[inline]
    pub fn map(&self, id: u64) -> Option<u32> {
        match self {
            IdMapper::Dense { limit } => (id < *limit).then_some(id as u32),
            IdMapper::Compact(m) => Some(m.map(id) as u32),
            IdMapper::Ordered {
                compact,
                limit,
                new_of,
            } => {
                let r = match compact {
                    Some(m) => m.map(id),
                    None if id < *limit => id,
                    None => return None,
                };
                new_of.get(r as usize).copied()
            }
        }
    }
}

/// The set bits of paged bitmap words, in increasing order.
fn set_bits(pages: &[Option<Box<[u64]>>]) -> impl Iterator<Item = u64> + '_ {
    pages.iter().enumerate().flat_map(|(p, page)| {
        page.iter().flat_map(move |words| {
            words.iter().enumerate().flat_map(move |(i, &w)| {
                let base = ((p as u64) << PAGE_SHIFT) + i as u64 * 64;
                let mut w = w;
                std::iter::from_fn(move || {
                    if w == 0 {
                        return None;
                    }
                    let t = w.trailing_zeros() as u64;
                    w &= w - 1;
                    Some(base + t)
                })
            })
        })
    })
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

    #[test]
    fn a_huge_sparse_id_costs_a_page_not_its_value() {
        let mut s = SeenIds::default();
        for id in [0u64, 4_000_000_000, 4_000_000_001, 70_000] {
            s.insert(id);
        }
        assert!(s.small.bytes() < 1 << 20, "{} bytes", s.small.bytes());
        assert_eq!(s.max(), Some(4_000_000_001));
        assert_eq!(s.count(), 4);
        let m = CompactMap::new(&s);
        assert_eq!(
            m.original_ids(),
            vec![0, 70_000, 4_000_000_000, 4_000_000_001]
        );
        assert_eq!(m.map(70_000), 1);
        assert_eq!(
            m.map(1 << 20),
            2,
            "an id in an untouched page maps to the next rank"
        );
        assert_eq!(m.map(4_000_000_001), 3);
        assert_eq!(m.map(u32::MAX as u64 - 2), 4);
    }
}
