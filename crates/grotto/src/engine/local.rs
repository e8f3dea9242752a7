//! The index-resident vertices one executor of the asynchronous engine
//! holds, taken lowest priority first.
//!
//! A binary heap costs a walk of its height per pop, and with a million
//! entries most of that walk misses the cache. The priorities most
//! algorithms give these vertices sit in a narrow range (BFS depths,
//! k-core's and MIS's single priority), so [`LocalQueue`] keeps a window
//! of buckets above a base priority, each a plain stack, and sends only
//! what falls outside the window to a heap (WCC's labels, PPR's residual
//! priorities). Pops compare the lowest bucket with the heap's top, so
//! the order is exactly by priority either way; vertices of one priority
//! come out in no particular order.

use crate::VertexId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Priorities in one window of buckets.
pub const WINDOW: usize = 64;

/// A priority queue of vertices (smallest priority first).
#[derive(Debug)]
pub struct LocalQueue {
    /// The priority of bucket 0.
    base: u32,
    buckets: Vec<Vec<VertexId>>,
    /// No bucket below this one holds a vertex.
    low: usize,
    /// Vertices in the buckets.
    in_buckets: usize,
    /// Vertices whose priority is outside the window.
    heap: BinaryHeap<Reverse<(u32, VertexId)>>,
}

impl Default for LocalQueue {
    fn default() -> LocalQueue {
        LocalQueue {
            base: 0,
            buckets: (0..WINDOW).map(|_| Vec::new()).collect(),
            low: WINDOW,
            in_buckets: 0,
            heap: BinaryHeap::new(),
        }
    }
}

impl LocalQueue {
    /// An empty queue.
    pub fn new() -> LocalQueue {
        LocalQueue::default()
    }

    /// Whether the queue holds no vertex.
    pub fn is_empty(&self) -> bool {
        self.in_buckets == 0 && self.heap.is_empty()
    }

    /// Vertices held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.in_buckets + self.heap.len()
    }

    /// Adds `v` with priority `p`.
    #[inline]
    pub fn push(&mut self, p: u32, v: VertexId) {
        if self.in_buckets == 0 {
            // An empty window moves to the first priority it is given.
            self.base = p;
        }
        match p.checked_sub(self.base) {
            Some(i) if (i as usize) < WINDOW => {
                let i = i as usize;
                self.buckets[i].push(v);
                self.low = self.low.min(i);
                self.in_buckets += 1;
            }
            _ => self.heap.push(Reverse((p, v))),
        }
    }

    /// Removes and returns a vertex of the smallest priority.
    #[inline]
    pub fn pop(&mut self) -> Option<(u32, VertexId)> {
        if self.in_buckets > 0 {
            while self.buckets[self.low].is_empty() {
                self.low += 1;
            }
            let p = self.base + self.low as u32;
            if !matches!(self.heap.peek(), Some(Reverse((q, _))) if *q < p) {
                let v = self.buckets[self.low].pop()?;
                self.in_buckets -= 1;
                if self.in_buckets == 0 {
                    self.low = WINDOW;
                }
                return Some((p, v));
            }
        }
        self.heap.pop().map(|Reverse(e)| e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pops_by_priority_across_the_window_and_the_heap() {
        let mut q = LocalQueue::new();
        for (p, v) in [
            (10, 1),
            (12, 2),
            (200, 3),
            (3, 4),
            (10, 5),
            (73, 6),
            (74, 7),
        ] {
            q.push(p, v);
        }
        assert_eq!(q.len(), 7);
        let mut got = Vec::new();
        while let Some((p, _)) = q.pop() {
            got.push(p);
        }
        assert_eq!(got, vec![3, 10, 10, 12, 73, 74, 200]);
        assert!(q.is_empty());
    }

    proptest! {
        /// Any mix of pushes and pops gives the priorities a binary heap
        /// gives, and every vertex comes out once.
        #[test]
        fn agrees_with_a_binary_heap(ops in prop::collection::vec(
            prop_oneof![
                (0u32..300).prop_map(Some),
                (0u32..8).prop_map(|p| Some(u32::MAX - p)),
                Just(None),
            ],
            0..400,
        )) {
            let mut q = LocalQueue::new();
            let mut h = BinaryHeap::new();
            let (mut pushed, mut popped) = (Vec::new(), Vec::new());
            for (v, op) in ops.into_iter().enumerate() {
                match op {
                    Some(p) => {
                        q.push(p, v as VertexId);
                        h.push(Reverse(p));
                        pushed.push(v as VertexId);
                    }
                    None => {
                        let got = q.pop();
                        prop_assert_eq!(got.map(|e| e.0), h.pop().map(|r| r.0));
                        popped.extend(got.map(|e| e.1));
                    }
                }
                prop_assert_eq!(q.len(), h.len());
            }
            while let Some((p, v)) = q.pop() {
                prop_assert_eq!(Some(p), h.pop().map(|r| r.0));
                popped.push(v);
            }
            prop_assert!(h.is_empty());
            popped.sort_unstable();
            prop_assert_eq!(popped, pushed);
        }
    }
}
