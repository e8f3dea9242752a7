//! Replacement policies. A policy runs under the pool's lock and claims a
//! victim slot through [`SlotTable`] (see [`super::slot`] for the slot
//! protocol); the hit path only sets a slot's reference bit, so policies
//! stay out of it.

pub use super::slot::SlotTable;

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
            if t.referenced(i) && !t.is_free(i) {
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
