//! Block packing: where each adjacency list goes in the edge blocks.
//!
//! Lists are placed in vertex order with ACGraph's locality-preserving
//! last-fit rule: a list of at most 1024 ids goes into the most recently
//! opened block, among the last `window` blocks, that still has room for
//! it, and opens a new block otherwise; a longer list starts a fresh run of
//! consecutive blocks and its partly filled tail block joins the window.
//! Placement needs only degrees, so the external build can plan one vertex
//! range at a time.
//!
//! Short lists (up to [`LayoutConfig::short_max`] ids) are packed the same
//! way into a region of their own after the long lists: an algorithm that
//! only needs the lists of low-degree vertices (k-core peels them first)
//! reads that dense region instead of a block of every run of the file.

use super::format::SLOTS_PER_BLOCK;
use std::collections::VecDeque;

/// Knobs of the block layout.
#[derive(Clone, Debug)]
pub struct LayoutConfig {
    /// Blocks a list may be placed back into (ACGraph's window). Default 8;
    /// 1 gives next-fit, larger trades locality for fill ratio.
    pub window: usize,
    /// Keep lists of degree 1 and 2 inside the in-memory index instead of
    /// the edge blocks (ACGraph's mini lists). Default true; ignored for
    /// weighted graphs.
    pub inline_small: bool,
    /// Lists of at most this many ids that are not inline go to the short
    /// region after the long lists (0: no short region). Default
    /// [`SHORT_MAX`]; at most 1024; ignored for weighted graphs.
    pub short_max: u32,
    /// Store lists packed (delta and bit-packed, [`super::codec`]) instead
    /// of as raw u32 ids. Default true; ignored for weighted graphs, whose
    /// weights are addressed by slot.
    pub packed: bool,
}

/// Default longest list of the short region: 16 ids (64 bytes), so the
/// lists a k-core with k up to 17 peels first sit together.
pub const SHORT_MAX: u32 = 16;

impl Default for LayoutConfig {
    fn default() -> Self {
        LayoutConfig {
            window: 8,
            inline_small: true,
            short_max: SHORT_MAX,
            packed: true,
        }
    }
}

/// Streaming last-fit packer.
#[derive(Debug)]
pub struct Packer {
    window: VecDeque<(u64, u32)>,
    window_len: usize,
    next_block: u64,
    cap: u64,
}

impl Packer {
    /// A packer of u32 slots (1024 a block) with the given window (at least 1).
    pub fn new(window: usize) -> Packer {
        Packer::with_capacity(window, SLOTS_PER_BLOCK as u64)
    }

    /// A packer of units `cap` of which fill a block (bytes for packed
    /// lists: 4096).
    pub fn with_capacity(window: usize, cap: u64) -> Packer {
        Packer {
            window: VecDeque::new(),
            window_len: window.max(1),
            next_block: 0,
            cap,
        }
    }

    /// Opens `n` whole blocks that take no other list (a packed long
    /// list's span blocks) and returns the first.
    pub fn place_span(&mut self, n: u64) -> u64 {
        self.open_blocks(n)
    }

    /// Places a list of `degree > 0` units and returns its first one.
    pub fn place(&mut self, degree: u64) -> u64 {
        debug_assert!(degree > 0);
        let cap = self.cap;
        if degree <= cap {
            for (block, used) in self.window.iter_mut().rev() {
                if cap - (*used as u64) >= degree {
                    let slot = *block * cap + *used as u64;
                    *used += degree as u32;
                    return slot;
                }
            }
            let block = self.open_blocks(1);
            self.push_window(block, degree as u32);
            block * cap
        } else {
            let n = degree.div_ceil(cap);
            let first = self.open_blocks(n);
            let tail = (degree - (n - 1) * cap) as u32;
            self.push_window(first + n - 1, tail);
            first * cap
        }
    }

    fn open_blocks(&mut self, n: u64) -> u64 {
        let b = self.next_block;
        self.next_block += n;
        b
    }

    fn push_window(&mut self, block: u64, used: u32) {
        if self.window.len() == self.window_len {
            self.window.pop_front();
        }
        self.window.push_back((block, used));
    }

    /// Blocks opened so far.
    pub fn blocks(&self) -> u64 {
        self.next_block
    }

    /// Smallest block that may still receive a list; all blocks below it are final.
    pub fn first_open_block(&self) -> u64 {
        self.window.front().map_or(self.next_block, |&(b, _)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_lists_never_straddle_and_long_lists_start_aligned() {
        let mut p = Packer::new(8);
        let degrees = [3u64, 1000, 30, 1024, 1025, 3000, 2, 700, 700, 700, 1];
        let mut used = vec![false; 64 * 1024];
        for &d in &degrees {
            let s = p.place(d);
            if d <= 1024 {
                assert_eq!(s / 1024, (s + d - 1) / 1024, "list of {d} straddles");
            } else {
                assert_eq!(s % 1024, 0);
            }
            for x in s..s + d {
                assert!(!used[x as usize], "slot {x} used twice");
                used[x as usize] = true;
            }
        }
        assert!(p.first_open_block() <= p.blocks());
    }

    #[test]
    fn last_fit_reuses_window_space() {
        let mut p = Packer::new(8);
        assert_eq!(p.place(1000), 0);
        assert_eq!(p.place(1000), 1024);
        // 24 free in block 1 and 24 in block 0: last fit picks block 1.
        assert_eq!(p.place(20), 2024);
        assert_eq!(p.place(20), 1000);
        assert_eq!(p.blocks(), 2);
    }
}
#[cfg(test)]
mod more {
    use super::*;
    #[test]
    fn random_degrees_never_straddle() {
        let mut p = Packer::new(8);
        let mut x = 12345u64;
        for _ in 0..100000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let d = match (x >> 33) % 10 {
                0 => 1024,
                1 => 1025,
                2 => 3000,
                3 => 1023,
                _ => (x >> 40) % 200 + 1,
            };
            let s = p.place(d);
            if d <= 1024 {
                assert_eq!(s / 1024, (s + d - 1) / 1024, "deg {d} at {s}");
            } else {
                assert_eq!(s % 1024, 0);
            }
        }
    }
}
