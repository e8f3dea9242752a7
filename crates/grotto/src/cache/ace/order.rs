//! Replacement orders for the write pool: clock, LRU, CFLRU and LRU-WSR.
//!
//! A policy keeps the *virtual order* in which pages would leave the pool.
//! The pool asks it three questions: which page goes next (the top page,
//! [`WriteOrder::victim`]), which dirty pages come next in that order (the
//! ACE writer's batch, [`WriteOrder::next_dirty`]) and which clean ones
//! (the ACE evictor's batch when prefetching, [`WriteOrder::next_clean`]).
//! Slots are dense indices `0..slots`; a free slot is in no policy's order.

/// A replacement policy that knows which pages are dirty.
pub trait WriteOrder: Send {
    /// Name for reports ("clock", "lru", "cflru", "lru-wsr").
    fn name(&self) -> &'static str;
    /// A page was just read into `slot`. `hot` places it where a page just
    /// used goes (the requested page); otherwise it goes where pages leave
    /// first (a prefetched page, so a wrong guess costs nothing).
    fn inserted(&mut self, slot: usize, hot: bool);
    /// The page in `slot` was read or written.
    fn touched(&mut self, slot: usize);
    /// `slot` was emptied.
    fn removed(&mut self, slot: usize);
    /// The page to evict next, changing the policy's own state as its
    /// eviction would (clock clears the bits it passes, LRU-WSR sends hot
    /// dirty pages back with their cold flag set). `None` when empty.
    fn victim(&mut self, dirty: &[bool]) -> Option<usize>;
    /// Appends up to `n` dirty slots in the order the policy would evict
    /// them, from the top page on.
    fn next_dirty(&mut self, dirty: &[bool], n: usize, out: &mut Vec<usize>);
    /// Appends up to `n` clean slots in eviction order, from the top on.
    fn next_clean(&mut self, dirty: &[bool], n: usize, out: &mut Vec<usize>);
}

/// Which replacement policy (`--policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    /// Clock (second chance), the policy of the engines' read pool.
    Clock,
    /// Least recently used.
    Lru,
    /// Clean-first LRU: in the last quarter of the LRU order, evict clean
    /// pages before dirty ones.
    Cflru,
    /// LRU with write-sequence reordering: a dirty page reaching the end
    /// gets one more round (its cold flag set) unless it is cold already.
    LruWsr,
}

impl PolicyKind {
    /// Every policy, in report order.
    pub const ALL: [PolicyKind; 4] = [
        PolicyKind::Clock,
        PolicyKind::Lru,
        PolicyKind::Cflru,
        PolicyKind::LruWsr,
    ];

    /// The policy for a pool of `slots` slots.
    pub fn build(self, slots: usize) -> Box<dyn WriteOrder> {
        match self {
            PolicyKind::Clock => Box::new(ClockOrder::new(slots)),
            PolicyKind::Lru => Box::new(LruOrder::new(slots, Flavor::Plain)),
            PolicyKind::Cflru => Box::new(LruOrder::new(
                slots,
                Flavor::CleanFirst {
                    window: (slots / 4).max(1),
                },
            )),
            PolicyKind::LruWsr => Box::new(LruOrder::new(slots, Flavor::Wsr)),
        }
    }

    /// The name `--policy` takes and reports print.
    pub fn name(self) -> &'static str {
        match self {
            PolicyKind::Clock => "clock",
            PolicyKind::Lru => "lru",
            PolicyKind::Cflru => "cflru",
            PolicyKind::LruWsr => "lru-wsr",
        }
    }
}

impl std::str::FromStr for PolicyKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        PolicyKind::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown policy {s:?}: use clock, lru, cflru or lru-wsr"))
    }
}

/// Clock: a hand sweeps the slots; a referenced page loses its bit and is
/// passed, an unreferenced one is the victim.
pub struct ClockOrder {
    hand: usize,
    referenced: Vec<bool>,
    present: Vec<bool>,
}

impl ClockOrder {
    /// A clock over `slots` empty slots.
    pub fn new(slots: usize) -> ClockOrder {
        ClockOrder {
            hand: 0,
            referenced: vec![false; slots],
            present: vec![false; slots],
        }
    }

    /// The virtual order from the hand: unreferenced pages in sweep order,
    /// then the referenced ones (which the sweep would clear and meet next
    /// time round). Calls `f` until it returns false.
    fn walk(&self, mut f: impl FnMut(usize) -> bool) {
        let n = self.present.len();
        for pass in [false, true] {
            for k in 0..n {
                let i = (self.hand + k) % n;
                if self.present[i] && self.referenced[i] == pass && !f(i) {
                    return;
                }
            }
        }
    }
}

impl WriteOrder for ClockOrder {
    fn name(&self) -> &'static str {
        "clock"
    }
    fn inserted(&mut self, slot: usize, hot: bool) {
        self.present[slot] = true;
        self.referenced[slot] = hot;
        // A page just used goes behind the hand (met last); a prefetched
        // one left at the hand is the first the sweep takes.
        if hot && self.hand == slot {
            self.hand = (slot + 1) % self.present.len();
        }
    }
    fn touched(&mut self, slot: usize) {
        self.referenced[slot] = true;
    }
    fn removed(&mut self, slot: usize) {
        self.present[slot] = false;
        self.referenced[slot] = false;
    }
    fn victim(&mut self, _dirty: &[bool]) -> Option<usize> {
        let n = self.present.len();
        for _ in 0..2 * n + 1 {
            let i = self.hand;
            if self.present[i] {
                if !self.referenced[i] {
                    return Some(i);
                }
                self.referenced[i] = false;
            }
            self.hand = (i + 1) % n;
        }
        None
    }
    fn next_dirty(&mut self, dirty: &[bool], n: usize, out: &mut Vec<usize>) {
        let start = out.len();
        self.walk(|i| {
            if dirty[i] {
                out.push(i);
            }
            out.len() - start < n
        });
    }
    fn next_clean(&mut self, dirty: &[bool], n: usize, out: &mut Vec<usize>) {
        let start = out.len();
        self.walk(|i| {
            if !dirty[i] {
                out.push(i);
            }
            out.len() - start < n
        });
    }
}

/// The LRU family's variants.
#[derive(Clone, Copy, Debug)]
enum Flavor {
    Plain,
    CleanFirst { window: usize },
    Wsr,
}

const NIL: usize = usize::MAX;

/// LRU, CFLRU and LRU-WSR over one doubly linked list of slots: the head
/// is the most recently used page, the tail the first to go.
pub struct LruOrder {
    flavor: Flavor,
    prev: Vec<usize>,
    next: Vec<usize>,
    cold: Vec<bool>,
    head: usize,
    tail: usize,
    len: usize,
}

impl LruOrder {
    fn new(slots: usize, flavor: Flavor) -> LruOrder {
        LruOrder {
            flavor,
            prev: vec![NIL; slots],
            next: vec![NIL; slots],
            cold: vec![false; slots],
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }

    fn unlink(&mut self, s: usize) {
        let (p, n) = (self.prev[s], self.next[s]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n] = p;
        }
        self.prev[s] = NIL;
        self.next[s] = NIL;
        self.len -= 1;
    }

    fn push_front(&mut self, s: usize) {
        self.prev[s] = NIL;
        self.next[s] = self.head;
        if self.head != NIL {
            self.prev[self.head] = s;
        } else {
            self.tail = s;
        }
        self.head = s;
        self.len += 1;
    }

    fn push_back(&mut self, s: usize) {
        self.next[s] = NIL;
        self.prev[s] = self.tail;
        if self.tail != NIL {
            self.next[self.tail] = s;
        } else {
            self.head = s;
        }
        self.tail = s;
        self.len += 1;
    }

    fn linked(&self, s: usize) -> bool {
        self.prev[s] != NIL || self.head == s
    }

    /// Walks from the tail; `f` returns false to stop.
    fn walk(&self, mut f: impl FnMut(usize) -> bool) {
        let mut s = self.tail;
        while s != NIL {
            if !f(s) {
                return;
            }
            s = self.prev[s];
        }
    }
}

impl WriteOrder for LruOrder {
    fn name(&self) -> &'static str {
        match self.flavor {
            Flavor::Plain => "lru",
            Flavor::CleanFirst { .. } => "cflru",
            Flavor::Wsr => "lru-wsr",
        }
    }
    fn inserted(&mut self, slot: usize, hot: bool) {
        if self.linked(slot) {
            self.unlink(slot);
        }
        self.cold[slot] = false;
        if hot {
            self.push_front(slot);
        } else {
            self.push_back(slot);
        }
    }
    fn touched(&mut self, slot: usize) {
        if self.linked(slot) {
            self.unlink(slot);
            self.push_front(slot);
        }
        self.cold[slot] = false;
    }
    fn removed(&mut self, slot: usize) {
        if self.linked(slot) {
            self.unlink(slot);
        }
        self.cold[slot] = false;
    }
    fn victim(&mut self, dirty: &[bool]) -> Option<usize> {
        match self.flavor {
            Flavor::Plain => (self.tail != NIL).then_some(self.tail),
            Flavor::CleanFirst { window } => {
                let mut found = None;
                let mut seen = 0;
                self.walk(|s| {
                    seen += 1;
                    if !dirty[s] {
                        found = Some(s);
                    }
                    found.is_none() && seen < window
                });
                found.or((self.tail != NIL).then_some(self.tail))
            }
            Flavor::Wsr => {
                // Each hot dirty page is sent back once with its cold flag
                // set, so within len + 1 steps the tail is evictable.
                for _ in 0..=self.len {
                    let t = self.tail;
                    if t == NIL {
                        return None;
                    }
                    if !dirty[t] || self.cold[t] {
                        return Some(t);
                    }
                    self.unlink(t);
                    self.push_front(t);
                    self.cold[t] = true;
                }
                (self.tail != NIL).then_some(self.tail)
            }
        }
    }
    fn next_dirty(&mut self, dirty: &[bool], n: usize, out: &mut Vec<usize>) {
        let start = out.len();
        match self.flavor {
            Flavor::Plain | Flavor::CleanFirst { .. } => self.walk(|s| {
                if dirty[s] {
                    out.push(s);
                }
                out.len() - start < n
            }),
            Flavor::Wsr => {
                // As the policy would: a hot dirty page met on the way is
                // sent to the head with its cold flag set; cold dirty pages
                // are the ones written.
                let mut s = self.tail;
                for _ in 0..self.len {
                    if s == NIL || out.len() - start >= n {
                        break;
                    }
                    let up = self.prev[s];
                    if dirty[s] {
                        if self.cold[s] {
                            out.push(s);
                        } else {
                            self.unlink(s);
                            self.push_front(s);
                            self.cold[s] = true;
                        }
                    }
                    s = up;
                }
            }
        }
    }
    fn next_clean(&mut self, dirty: &[bool], n: usize, out: &mut Vec<usize>) {
        let start = out.len();
        self.walk(|s| {
            if !dirty[s] {
                out.push(s);
            }
            out.len() - start < n
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills slots 0..n in order (slot 0 least recently used).
    fn filled(kind: PolicyKind, n: usize) -> Box<dyn WriteOrder> {
        let mut p = kind.build(n);
        for s in 0..n {
            p.inserted(s, true);
        }
        p
    }

    #[test]
    fn lru_evicts_least_recent_and_lists_dirty_in_order() {
        let mut p = filled(PolicyKind::Lru, 6);
        p.touched(0);
        let mut dirty = vec![false; 6];
        assert_eq!(p.victim(&dirty), Some(1));
        dirty[2] = true;
        dirty[4] = true;
        dirty[0] = true;
        let mut out = Vec::new();
        p.next_dirty(&dirty, 2, &mut out);
        assert_eq!(out, vec![2, 4]);
        out.clear();
        p.next_dirty(&dirty, 8, &mut out);
        assert_eq!(out, vec![2, 4, 0]);
        out.clear();
        p.next_clean(&dirty, 3, &mut out);
        assert_eq!(out, vec![1, 3, 5]);
        p.removed(1);
        assert_eq!(p.victim(&dirty), Some(2));
    }

    #[test]
    fn prefetched_pages_go_first() {
        for kind in PolicyKind::ALL {
            let mut p = filled(kind, 4);
            p.removed(2);
            p.inserted(2, false);
            assert_eq!(p.victim(&[false; 4]), Some(2), "{}", kind.name());
        }
    }

    #[test]
    fn cflru_prefers_clean_pages_in_its_window() {
        // Window of 8 / 4 = 2 pages from the tail.
        let mut p = filled(PolicyKind::Cflru, 8);
        let mut dirty = vec![false; 8];
        dirty[0] = true;
        assert_eq!(p.victim(&dirty), Some(1));
        dirty[1] = true;
        // Both window pages dirty: the LRU page goes.
        assert_eq!(p.victim(&dirty), Some(0));
    }

    #[test]
    fn lru_wsr_gives_hot_dirty_pages_a_second_round() {
        let mut p = filled(PolicyKind::LruWsr, 4);
        let mut dirty = vec![false; 4];
        dirty[0] = true;
        // Page 0 is dirty and hot: sent to the head (cold), page 1 goes.
        assert_eq!(p.victim(&dirty), Some(1));
        dirty[1] = true;
        dirty[2] = true;
        dirty[3] = true;
        // Now 1, 2, 3 are hot dirty, 0 cold dirty at the head: after
        // sending 1, 2, 3 round, 0 is at the tail and cold.
        assert_eq!(p.victim(&dirty), Some(0));
        // A touch makes a page hot again.
        p.touched(0);
        let mut out = Vec::new();
        p.next_dirty(&dirty, 3, &mut out);
        assert_eq!(out, vec![1, 2, 3]);
    }

    #[test]
    fn lru_wsr_writer_skips_hot_pages_as_the_thesis_figure() {
        // Tail to head: 0 (dirty, cold), 1 (clean), 2 (dirty, hot),
        // 3 (dirty, cold): the writer takes 0 and 3, and sends 2 to the head.
        let mut p = filled(PolicyKind::LruWsr, 4);
        let dirty = vec![true, false, true, true];
        // Make 0 and 3 cold by one round each.
        assert_eq!(p.victim(&dirty), Some(1));
        let mut out = Vec::new();
        p.next_dirty(&dirty, 4, &mut out);
        // Order now 1, 2, 3, 0 (tail first) after the victim call sent 0
        // back cold; 2 and 3 are hot and go round (cold), 0 is written.
        assert_eq!(out, vec![0]);
        // Now 1, 0, 2, 3: every dirty page is cold.
        out.clear();
        p.next_dirty(&dirty, 4, &mut out);
        assert_eq!(out, vec![0, 2, 3]);
    }

    #[test]
    fn clock_passes_referenced_pages_and_orders_them_last() {
        let mut p = ClockOrder::new(4);
        for s in 0..4 {
            p.inserted(s, s % 2 == 0);
        }
        // Only the hot inserts moved the hand: it is at 1, the first
        // prefetched (unreferenced) page.
        let dirty = [true, false, true, true];
        let mut out = Vec::new();
        p.next_dirty(&dirty, 4, &mut out);
        // Unreferenced first (3), then referenced (2, 0) from the hand.
        assert_eq!(out, vec![3, 2, 0]);
        assert_eq!(p.victim(&dirty), Some(1));
        out.clear();
        p.next_clean(&dirty, 4, &mut out);
        assert_eq!(out, vec![1]);
    }

    #[test]
    fn policies_parse_by_name() {
        for k in PolicyKind::ALL {
            assert_eq!(k.name().parse::<PolicyKind>(), Ok(k));
            assert_eq!(k.build(3).name(), k.name());
        }
        assert!("arc".parse::<PolicyKind>().is_err());
    }
}
