//! The asynchronous engine's scheduling state: block states, a relaxed
//! concurrent priority queue of blocks, and the gate idle executors sleep
//! at.
//!
//! * Every block carries a state word (`BlockStates`) moved only by
//!   compare-and-swap: `IDLE` (no active vertex) → `QUEUED` (in the
//!   queue) → `LOADING` (claimed by one executor, read in flight or being
//!   looked up) → `PROCESSING` → `IDLE`; an activation that finds the block
//!   `PROCESSING` turns it into `AGAIN`, and the executor holding it
//!   processes it once more before it lets the block go (block reuse).
//!   The block's priority is the minimum over its activations since it
//!   was last processed (`fetch_min`).
//! * The queue (`BlockQueue`) is a MultiQueue (Rihani, Sanders and
//!   Dementiev, 2015): several small heaps, each behind its own lock, an
//!   atomic copy of each heap's top, and a pop that compares two random
//!   heaps' tops and takes the better. No lock is global; with a few
//!   heaps per thread contention stays rare. A heap holds runs of 64
//!   adjacent blocks, and an executor keeps popping from the same heap
//!   for a few pops (stickiness), so blocks of equal priority come out in
//!   increasing order and adjacent ones merge into one read.
//! * A block whose priority improves while queued is pushed again; the
//!   stale entry is skipped when popped (its state is no longer `QUEUED`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// A scheduling priority: smaller runs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Priority(pub u32);

impl Priority {
    /// The most urgent priority.
    pub const FIRST: Priority = Priority(0);
    /// The least urgent priority that schedules.
    pub const LAST: Priority = Priority(u32::MAX - 1);
    /// Activates a vertex without scheduling its block: the vertex runs
    /// when its block runs for another reason (in this flow or a later
    /// flow of the same run), so a block is not read for work that can
    /// wait. A vertex whose list sits in the index runs as with
    /// [`Priority::LAST`]; as a seed, or in rounds mode, it is `LAST`.
    /// What deferred vertices are left after a flow,
    /// [`AsyncRun::active_vertices`](super::AsyncRun::active_vertices)
    /// lists.
    pub const DEFER: Priority = Priority(u32::MAX);

    /// Smaller non-negative `x` first (for distances); NaN and negative
    /// values map to [`Priority::FIRST`].
    #[inline]
    pub fn ascending_f32(x: f32) -> Priority {
        if x > 0.0 {
            Priority(x.to_bits())
        } else {
            Priority::FIRST
        }
    }

    /// Larger non-negative `x` first (for residuals).
    #[inline]
    pub fn descending_f32(x: f32) -> Priority {
        Priority((!Priority::ascending_f32(x).0).min(Priority::LAST.0))
    }

    /// Larger non-negative `x` first, by powers of two: values within the
    /// same power of two share a priority, so adjacent blocks holding them
    /// come out together and merge into one read (for residuals, whose
    /// exact order matters less than reading fewer, larger requests).
    #[inline]
    pub fn descending_log2(x: f32) -> Priority {
        Priority::descending_f32(f32::from_bits(x.to_bits() & 0xFF80_0000))
    }
}

pub(super) const IDLE: u8 = 0;
pub(super) const QUEUED: u8 = 1;
pub(super) const LOADING: u8 = 2;
pub(super) const PROCESSING: u8 = 3;
pub(super) const AGAIN: u8 = 4;

/// Per-block state words and priorities.
pub(super) struct BlockStates {
    pub state: Vec<AtomicU8>,
    pub prio: Vec<AtomicU32>,
    /// Whether the block's most urgent activation came from a later block
    /// (its next scan then starts from its last vertex).
    pub down: Vec<std::sync::atomic::AtomicBool>,
}

impl BlockStates {
    pub fn new(blocks: u64) -> BlockStates {
        BlockStates {
            state: (0..blocks).map(|_| AtomicU8::new(IDLE)).collect(),
            prio: (0..blocks).map(|_| AtomicU32::new(u32::MAX)).collect(),
            down: (0..blocks)
                .map(|_| std::sync::atomic::AtomicBool::new(false))
                .collect(),
        }
    }

    /// Puts every block back to idle (after a failed pass).
    pub fn reset(&self) {
        for s in &self.state {
            s.store(IDLE, Ordering::Relaxed);
        }
        for p in &self.prio {
            p.store(u32::MAX, Ordering::Relaxed);
        }
    }
}

const EMPTY: u64 = u64::MAX;
/// Blocks per run that share a heap.
const RUN_SHIFT: u32 = 6;
/// Pops an executor takes from the same heap before it compares again.
const STICKY_POPS: u32 = 8;

#[repr(align(64))]
struct Heap {
    heap: Mutex<BinaryHeap<Reverse<u64>>>,
    top: AtomicU64,
}

/// A relaxed priority queue of blocks (a MultiQueue with stickiness).
pub(super) struct BlockQueue {
    heaps: Vec<Heap>,
    len: AtomicUsize,
}

/// An executor's position in the queue: its random state and the heap it
/// sticks to.
pub(super) struct Cursor {
    rng: u64,
    heap: usize,
    left: u32,
}

impl Cursor {
    pub fn new(seed: u64) -> Cursor {
        Cursor {
            rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            heap: 0,
            left: 0,
        }
    }

    fn next(&mut self, n: usize) -> usize {
        // xorshift64
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng % n as u64) as usize
    }
}

#[inline]
fn pack(b: u64, p: u32) -> u64 {
    ((p as u64) << 32) | b
}

fn lock(h: &Heap) -> std::sync::MutexGuard<'_, BinaryHeap<Reverse<u64>>> {
    // A panic while holding the lock leaves a valid heap: use it.
    h.heap.lock().unwrap_or_else(|e| e.into_inner())
}

impl BlockQueue {
    /// A queue for `threads` executors.
    pub fn new(threads: usize) -> BlockQueue {
        let n = (threads * 4).max(4);
        BlockQueue {
            heaps: (0..n)
                .map(|_| Heap {
                    heap: Mutex::new(BinaryHeap::new()),
                    top: AtomicU64::new(EMPTY),
                })
                .collect(),
            len: AtomicUsize::new(0),
        }
    }

    /// Adds block `b` (below 2^32) with priority `p`.
    pub fn push(&self, b: u64, p: u32) {
        let h = &self.heaps[((b >> RUN_SHIFT) as usize) % self.heaps.len()];
        let mut g = lock(h);
        g.push(Reverse(pack(b, p)));
        if let Some(Reverse(t)) = g.peek() {
            h.top.store(*t, Ordering::SeqCst);
        }
        self.len.fetch_add(1, Ordering::SeqCst);
    }

    /// Whether some entry may be queued.
    pub fn maybe_nonempty(&self) -> bool {
        self.len.load(Ordering::SeqCst) > 0
    }

    fn pop_from(&self, i: usize) -> Option<u64> {
        let h = &self.heaps[i];
        if h.top.load(Ordering::Relaxed) == EMPTY {
            return None;
        }
        let mut g = lock(h);
        let Reverse(x) = g.pop()?;
        h.top
            .store(g.peek().map_or(EMPTY, |r| r.0), Ordering::SeqCst);
        self.len.fetch_sub(1, Ordering::SeqCst);
        Some(x)
    }

    /// Takes a block with a small priority (not always the smallest):
    /// `(block, priority)`, or `None` when every heap is empty.
    pub fn pop(&self, c: &mut Cursor) -> Option<(u64, u32)> {
        let n = self.heaps.len();
        let unpack = |x: u64| (x & 0xFFFF_FFFF, (x >> 32) as u32);
        if c.left > 0 {
            c.left -= 1;
            if let Some(x) = self.pop_from(c.heap) {
                return Some(unpack(x));
            }
        }
        let (a, b) = (c.next(n), c.next(n));
        let (ta, tb) = (
            self.heaps[a].top.load(Ordering::Relaxed),
            self.heaps[b].top.load(Ordering::Relaxed),
        );
        let first = if ta <= tb { a } else { b };
        if let Some(x) = self.pop_from(first) {
            c.heap = first;
            c.left = STICKY_POPS;
            return Some(unpack(x));
        }
        // Both looked empty: sweep all heaps once.
        for k in 0..n {
            let i = (first + k) % n;
            if let Some(x) = self.pop_from(i) {
                c.heap = i;
                c.left = STICKY_POPS;
                return Some(unpack(x));
            }
        }
        None
    }
}

/// Where executors without work sleep until work appears or the pass
/// ends; waking costs a lock only when someone sleeps.
pub(super) struct Gate {
    lock: Mutex<u64>,
    cv: Condvar,
    sleepers: AtomicUsize,
}

impl Gate {
    pub fn new() -> Gate {
        Gate {
            lock: Mutex::new(0),
            cv: Condvar::new(),
            sleepers: AtomicUsize::new(0),
        }
    }

    /// Wakes every sleeper (after new work or the end was published).
    pub fn wake(&self) {
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            *g += 1;
            self.cv.notify_all();
        }
    }

    /// Sleeps until `ready()` holds.
    pub fn sleep_until(&self, ready: impl Fn() -> bool) {
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        while !ready() {
            g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_from_values_never_defer() {
        for x in [
            0.0f32,
            -1.0,
            f32::NAN,
            f32::MIN_POSITIVE,
            1e-30,
            1.0,
            1e30,
            f32::INFINITY,
        ] {
            assert!(Priority::ascending_f32(x) <= Priority::LAST, "{x}");
            assert!(Priority::descending_f32(x) <= Priority::LAST, "{x}");
            assert!(Priority::descending_log2(x) <= Priority::LAST, "{x}");
        }
        assert_eq!(Priority::descending_f32(0.0), Priority::LAST);
        // Powers of two: one priority per octave, larger first.
        let p = Priority::descending_log2;
        assert_eq!(p(1.0), p(1.99));
        assert_eq!(p(4.0), p(7.5));
        assert!(p(2.0) < p(1.99));
        assert!(p(1000.0) < p(3.0));
    }

    #[test]
    fn queue_pops_everything_roughly_in_priority_order() {
        let q = BlockQueue::new(2);
        for b in 0..1000u64 {
            q.push(b, (b % 7) as u32);
        }
        let mut c = Cursor::new(1);
        let mut got = Vec::new();
        while let Some((b, p)) = q.pop(&mut c) {
            assert_eq!(p, (b % 7) as u32);
            got.push(b);
        }
        got.sort_unstable();
        assert_eq!(got, (0..1000).collect::<Vec<_>>());
        assert!(!q.maybe_nonempty());
    }

    #[test]
    fn priorities_order_floats() {
        assert!(Priority::ascending_f32(0.5) < Priority::ascending_f32(2.0));
        assert!(Priority::descending_f32(0.5) > Priority::descending_f32(2.0));
        assert_eq!(Priority::ascending_f32(-1.0), Priority::FIRST);
    }
}
