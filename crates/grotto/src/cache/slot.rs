//! One buffer-pool slot: its state word, and every transition of it.
//!
//! A slot's state is one `AtomicU64`: the number of pins in the low 32
//! bits, a reference bit (bit 32, for second-chance replacement), and a
//! phase in the bits above. Its `key` says which block it holds or is
//! loading. Only this module reads or writes the state word; the pool
//! ([`super::pool`]) and the replacement policies ([`super::policy`]) move
//! it through the methods below, so the protocol is in one place:
//!
//! | from | to | by | under the policy lock? |
//! |---|---|---|---|
//! | FREE or READY, no pins | LOADING, one pin | `Slot::claim` (a policy choosing a victim) | yes |
//! | LOADING | READY, pins kept, referenced | `Slot::publish` (the loader, after checking the bytes) | no |
//! | LOADING | FREE, pins kept | `Slot::abandon` (a failed load, after unmapping the key) | yes |
//! | any | the same, one pin more / less | `Slot::pin` / `Slot::unpin` | no |
//! | READY | READY, referenced / not | `Slot::reference` / `Slot::clear_reference` | no / yes |
//!
//! A pin taken on a slot that then turns out to hold another key, or to be
//! FREE, is dropped again by the pool (`try_pin` looks up the key after
//! pinning). A claim succeeds only on an unpinned slot, so a pinned block
//! is never reloaded under its reader; the claim's compare-and-swap also
//! fails if a pin arrives between the check and the swap.

use std::sync::atomic::{AtomicU64, Ordering};

const PIN_MASK: u64 = 0xffff_ffff;
const REF: u64 = 1 << 32;
const PHASE_SHIFT: u32 = 33;

/// Where a slot is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Holds nothing.
    Free,
    /// Claimed: a read is filling it.
    Loading,
    /// Holds its key's bytes.
    Ready,
}

impl Phase {
    #[inline]
    fn bits(self) -> u64 {
        (match self {
            Phase::Free => 0,
            Phase::Loading => 1,
            Phase::Ready => 2,
        }) << PHASE_SHIFT
    }
    #[inline]
    fn of(state: u64) -> Phase {
        match state >> PHASE_SHIFT {
            1 => Phase::Loading,
            2 => Phase::Ready,
            _ => Phase::Free,
        }
    }
}

/// A key no block has: the slot holds nothing.
pub(super) const NO_KEY: u64 = u64::MAX;

/// One slot's shared state.
pub(super) struct Slot {
    /// pins (low 32 bits) | REF bit | phase.
    state: AtomicU64,
    /// The key whose bytes the slot holds or is loading.
    key: AtomicU64,
}

impl Slot {
    /// A FREE slot holding no key.
    pub(super) fn new() -> Slot {
        Slot {
            state: AtomicU64::new(Phase::Free.bits()),
            key: AtomicU64::new(NO_KEY),
        }
    }

    /// The key the slot holds or is loading.
    #[inline]
    pub(super) fn key(&self) -> u64 {
        self.key.load(Ordering::Acquire)
    }

    /// Records the key a claimed (or freed) slot is for.
    #[inline]
    pub(super) fn set_key(&self, key: u64) {
        self.key.store(key, Ordering::Release);
    }

    /// The current phase.
    #[inline]
    pub(super) fn phase(&self) -> Phase {
        Phase::of(self.state.load(Ordering::Acquire))
    }

    /// Adds a pin; returns the phase and reference bit seen before it.
    #[inline]
    pub(super) fn pin(&self) -> (Phase, bool) {
        let old = self.state.fetch_add(1, Ordering::AcqRel);
        (Phase::of(old), old & REF != 0)
    }

    /// Removes a pin.
    #[inline]
    pub(super) fn unpin(&self) {
        let old = self.state.fetch_sub(1, Ordering::Release);
        debug_assert!(old & PIN_MASK > 0, "unpin of an unpinned slot");
    }

    /// Whether the slot was used since its bit was last cleared.
    #[inline]
    pub(super) fn referenced(&self) -> bool {
        self.state.load(Ordering::Relaxed) & REF != 0
    }

    /// Sets the reference bit (a hit).
    #[inline]
    pub(super) fn reference(&self) {
        self.state.fetch_or(REF, Ordering::Relaxed);
    }

    /// Clears the reference bit (a policy's second chance).
    #[inline]
    pub(super) fn clear_reference(&self) {
        self.state.fetch_and(!REF, Ordering::Relaxed);
    }

    /// FREE or READY and unpinned -> LOADING with the claimer's pin; false
    /// if the slot is pinned or loading. Under the policy lock.
    #[inline]
    pub(super) fn claim(&self) -> bool {
        let s = self.state.load(Ordering::Acquire);
        if s & PIN_MASK != 0 || Phase::of(s) == Phase::Loading {
            return false;
        }
        self.state
            .compare_exchange(
                s,
                Phase::Loading.bits() | 1,
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    /// LOADING -> READY, keeping the pins, marked referenced.
    #[inline]
    pub(super) fn publish(&self) {
        let _ = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                debug_assert_eq!(Phase::of(s), Phase::Loading);
                Some((s & PIN_MASK) | REF | Phase::Ready.bits())
            });
    }

    /// LOADING -> FREE, keeping the pins (joined readers see FREE, unpin
    /// and look again). Under the policy lock, after the key is unmapped.
    #[inline]
    pub(super) fn abandon(&self) {
        let _ = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                Some((s & PIN_MASK) | Phase::Free.bits())
            });
    }
}

/// The pool's slots as a policy sees them.
pub struct SlotTable<'a> {
    pub(super) slots: &'a [Slot],
}

impl SlotTable<'_> {
    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when there are no slots.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Whether slot `i` was used since its bit was last cleared.
    pub fn referenced(&self, i: usize) -> bool {
        self.slots[i].referenced()
    }

    /// Whether slot `i` holds nothing.
    pub fn is_free(&self, i: usize) -> bool {
        self.slots[i].phase() == Phase::Free
    }

    /// Clears slot `i`'s reference bit.
    pub fn clear_reference(&self, i: usize) {
        self.slots[i].clear_reference();
    }

    /// Claims slot `i` for a new load if it is free, or loaded and
    /// unpinned; false if it is pinned or loading.
    pub fn claim(&self, i: usize) -> bool {
        self.slots[i].claim()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocol_moves_as_the_table_says() {
        let s = Slot::new();
        assert_eq!(s.phase(), Phase::Free);
        assert!(s.claim(), "a free slot is claimed");
        assert_eq!(s.phase(), Phase::Loading);
        assert!(!s.claim(), "a loading slot is not");
        let (phase, _) = s.pin(); // a joiner
        assert_eq!(phase, Phase::Loading);
        s.publish();
        assert_eq!(s.phase(), Phase::Ready);
        assert!(s.referenced());
        assert!(!s.claim(), "pinned twice");
        s.unpin();
        s.unpin();
        s.clear_reference();
        assert!(!s.referenced());
        assert!(s.claim(), "ready and unpinned");
        s.abandon();
        assert_eq!(s.phase(), Phase::Free);
        s.unpin();
        assert!(s.claim());
    }
}
