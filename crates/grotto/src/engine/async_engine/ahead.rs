//! Reading ahead of a pass's wave ([`super::Flow::readahead`]): which
//! blocks to read when the queue is empty, and the count of those that
//! paid off.

use super::super::frontier::AtomicBitmap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// [`Ahead::down`] before any block is taken.
const UNSET: u64 = u64::MAX;

/// Reading ahead: when the queue is empty and the device has room, the
/// executors read the idle blocks that follow, in file order, the
/// furthest block taken from the queue, and those that precede the
/// nearest one, taking the two sides in turn, so a wave that moves
/// through the file either way (BFS on a high-diameter graph, from
/// anywhere) finds its next blocks in memory instead of waiting one read
/// per step. A block read ahead is processed
/// like any other (it finds no active vertex and stays in the pool); it
/// is *proven* when it is activated afterwards. At most `limit` blocks
/// are unproven at a time, so a pass that does not need them wastes at
/// most `limit` reads.
pub(super) struct Ahead {
    /// The next block to read ahead upwards.
    up: AtomicU64,
    /// The block after the next one to read ahead downwards (`UNSET`
    /// until a block is taken from the queue; 0 when none is left).
    down: AtomicU64,
    /// Which side the next claim tries first.
    turn: AtomicU64,
    /// Blocks read ahead and not activated since.
    pub(super) unproven: AtomicI64,
    /// Blocks read ahead.
    pub(super) read: AtomicU64,
    /// Which blocks were read ahead and not yet activated.
    pub(super) marked: AtomicBitmap,
    pub(super) limit: i64,
}

impl Ahead {
    /// Read-ahead over `blocks` blocks with at most `limit` unproven.
    pub(super) fn new(blocks: u64, limit: usize) -> Ahead {
        Ahead {
            up: AtomicU64::new(0),
            down: AtomicU64::new(UNSET),
            turn: AtomicU64::new(0),
            unproven: AtomicI64::new(0),
            read: AtomicU64::new(0),
            marked: AtomicBitmap::new(blocks),
            limit: limit.max(1) as i64,
        }
    }

    /// Block `b` was taken from the queue: read ahead from past it, and
    /// from before it.
    #[inline]
    pub(super) fn past(&self, b: u64) {
        if self.up.load(Ordering::Relaxed) <= b {
            self.up.fetch_max(b + 1, Ordering::Relaxed);
        }
        if self.down.load(Ordering::Relaxed) > b {
            self.down.fetch_min(b, Ordering::Relaxed);
        }
    }

    /// The next block upwards, below `blocks`, if any is left.
    fn next_up(&self, blocks: u64) -> Option<u64> {
        let b = self.up.fetch_add(1, Ordering::Relaxed);
        if b >= blocks {
            self.up.store(blocks, Ordering::Relaxed);
            return None;
        }
        Some(b)
    }

    /// The next block downwards, if any is left.
    fn next_down(&self) -> Option<u64> {
        let mut d = self.down.load(Ordering::Relaxed);
        loop {
            if d == 0 || d == UNSET {
                return None;
            }
            match self
                .down
                .compare_exchange_weak(d, d - 1, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(d - 1),
                Err(x) => d = x,
            }
        }
    }

    /// The next candidate, the sides taken in turn; `None` when both
    /// are used up.
    pub(super) fn next(&self, blocks: u64) -> Option<u64> {
        if self.turn.fetch_add(1, Ordering::Relaxed).is_multiple_of(2) {
            self.next_up(blocks).or_else(|| self.next_down())
        } else {
            self.next_down().or_else(|| self.next_up(blocks))
        }
    }

    /// Block `b` was activated: if it was read ahead, that paid off.
    #[inline]
    pub(super) fn activated(&self, b: u64) {
        if self.marked.contains(b) && self.marked.take(b) {
            self.unproven.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Blocks read ahead, and those never activated.
    pub(super) fn counts(&self) -> (u64, u64) {
        let wasted = self.unproven.load(Ordering::Relaxed).max(0) as u64;
        (self.read.load(Ordering::Relaxed), wasted)
    }
}
