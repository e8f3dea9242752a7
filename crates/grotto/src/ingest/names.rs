//! Learning vertex names in a first pass over the input (`--ids string`,
//! Arrow string columns).
//!
//! Every worker adds the names it reads to one set shared by all of them,
//! split into shards by a hash of the name so that workers rarely wait on
//! each other and each distinct name is held once (memory grows with the
//! vertex count, not with threads or edges). The set then becomes a sorted
//! [`Names`] table, and the second pass resolves each name to its rank.

use super::parse::EdgeSink;
use crate::error::{Error, Result};
use crate::store::format::MAX_VERTICES;
use crate::store::names::Names;
use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex};

/// Shards of the shared set (a power of two).
const SHARDS: usize = 256;

/// The distinct names read so far, shared by the collecting workers.
pub struct NameSet {
    shards: Vec<Mutex<HashSet<Box<[u8]>>>>,
    hasher: std::collections::hash_map::RandomState,
}

impl Default for NameSet {
    fn default() -> NameSet {
        NameSet {
            shards: (0..SHARDS).map(|_| Mutex::new(HashSet::new())).collect(),
            hasher: std::collections::hash_map::RandomState::new(),
        }
    }
}

impl NameSet {
    /// Adds `name` if it is new.
    pub fn insert(&self, name: &[u8]) {
        let mut h = self.hasher.build_hasher();
        h.write(name);
        let shard = (h.finish() as usize) & (SHARDS - 1);
        if let Ok(mut set) = self.shards[shard].lock() {
            if !set.contains(name) {
                set.insert(name.into());
            }
        }
    }

    /// Number of distinct names.
    pub fn len(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.lock().map_or(0, |s| s.len() as u64))
            .sum()
    }

    /// True when no name was added.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sorted table of every name added.
    pub fn into_names(self) -> Result<Names> {
        let n = self.len();
        if n > MAX_VERTICES {
            return Err(Error::Limit {
                what: format!(
                    "{n} distinct vertex names exceed the format's limit of {MAX_VERTICES}"
                ),
            });
        }
        let mut all: Vec<Box<[u8]>> = Vec::with_capacity(n as usize);
        for s in self.shards {
            let set = s.into_inner().map_err(|_| {
                Error::Invalid("a worker failed while collecting vertex names".into())
            })?;
            all.extend(set);
        }
        Names::from_unsorted(all)
    }
}

/// A parse sink that only learns names (edges are counted, not kept).
pub struct NameCollector {
    set: Arc<NameSet>,
    /// Edges seen by this worker.
    pub edges: u64,
}

impl NameCollector {
    /// A collector adding to `set`.
    pub fn new(set: Arc<NameSet>) -> NameCollector {
        NameCollector { set, edges: 0 }
    }
}

impl EdgeSink for NameCollector {
    fn edge(&mut self, _u: u64, _v: u64, _w: f32) -> bool {
        self.edges += 1;
        true
    }
    fn vertex(&mut self, _u: u64) {}
    fn name(&mut self, token: &[u8]) {
        self.set.insert(token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_share_one_set_and_the_table_is_sorted() {
        let set = Arc::new(NameSet::default());
        std::thread::scope(|s| {
            for t in 0..4 {
                let set = set.clone();
                s.spawn(move || {
                    let mut c = NameCollector::new(set);
                    for i in 0..1000 {
                        c.name(format!("v{}", (i * 7 + t) % 500).as_bytes());
                    }
                });
            }
        });
        let set = Arc::try_unwrap(set).ok().unwrap();
        assert_eq!(set.len(), 500);
        let names = set.into_names().unwrap();
        assert_eq!(names.len(), 500);
        assert_eq!(names.get(0), "v0");
        assert_eq!(names.get(1), "v1");
        assert_eq!(names.get(2), "v10");
    }
}
