//! Replacement policies. A policy runs under the pool's lock and claims a
//! victim slot through [`SlotTable`]; the hit path only sets a slot's
//! reference bit, so policies stay out of it.

use super::pool::{phase, Slot, FREE, LOADING, PHASE_SHIFT, PIN_MASK, READY, REF};
use std::sync::atomic::Ordering;

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
        self.slots[i].state.load(Ordering::Relaxed) & REF != 0
    }

    /// Clears slot `i`'s reference bit.
    pub fn clear_reference(&self, i: usize) {
        self.slots[i].state.fetch_and(!REF, Ordering::Relaxed);
    }

    /// Claims slot `i` for a new load if it is free, or loaded and
    /// unpinned; false if it is pinned or loading.
    pub fn claim(&self, i: usize) -> bool {
        let st = &self.slots[i].state;
        let s = st.load(Ordering::Acquire);
        if s & PIN_MASK != 0 || phase(s) == LOADING || !(phase(s) == READY || phase(s) == FREE) {
            return false;
        }
        st.compare_exchange(
            s,
            (LOADING << PHASE_SHIFT) | 1,
            Ordering::AcqRel,
            Ordering::Relaxed,
        )
        .is_ok()
    }
}

/// A replacement policy.
pub trait Replacement: Send {
    /// Name for reports.
    fn name(&self) -> &'static str;
    /// Claims a victim with [`SlotTable::claim`] and returns it, or `None`
    /// when every slot is pinned or loading.
    fn evict(&mut self, table: &SlotTable<'_>) -> Option<usize>;
}

/// Clock (second chance): sweep a hand over the slots, skip pinned ones,
/// give referenced ones a second chance by clearing their bit.
#[derive(Default)]
pub struct Clock {
    hand: usize,
}

impl Replacement for Clock {
    fn name(&self) -> &'static str {
        "clock"
    }

    fn evict(&mut self, t: &SlotTable<'_>) -> Option<usize> {
        let n = t.len();
        // Two full sweeps clear every reference bit; a third pass would
        // only find slots that are pinned.
        for _ in 0..2 * n + 1 {
            let i = self.hand;
            self.hand = (self.hand + 1) % n;
            if t.referenced(i) && phase(t.slots[i].state.load(Ordering::Relaxed)) != FREE {
                t.clear_reference(i);
                continue;
            }
            if t.claim(i) {
                return Some(i);
            }
        }
        None
    }
}
