//! The ACE reader's two prefetchers, in fixed memory: a sequential one
//! (a miss right after a miss on the page before it starts a stream, and
//! the pages after it are read along) and a history one (a page's misses
//! remember the misses that followed them last time).

/// Recent misses remembered for stream detection.
const RECENT: usize = 64;
/// Successors remembered per history entry.
const FOLLOWERS: usize = 8;

/// Both prefetchers, sized for a pool of a given number of slots.
pub struct Prefetcher {
    keys: u64,
    recent: [u64; RECENT],
    recent_at: usize,
    /// Direct-mapped history: (page, followers, count) per entry.
    table: Vec<Entry>,
    mask: usize,
    /// The miss before the current one, and its entry.
    last: Option<u64>,
}

#[derive(Clone, Copy)]
struct Entry {
    page: u64,
    followers: [u64; FOLLOWERS],
    count: u8,
}

const EMPTY: u64 = u64::MAX;

/// History entries for at most `entries`: the largest power of two not
/// above it (at least 2), so a slot is a mask of the hash.
fn table_len(entries: usize) -> usize {
    (entries.max(2) + 1).next_power_of_two() / 2
}

impl Prefetcher {
    /// Prefetchers for pages `0..keys`, with a history table of at most
    /// `entries` entries (rounded down to a power of two).
    pub fn new(keys: u64, entries: usize) -> Prefetcher {
        let size = table_len(entries);
        Prefetcher {
            keys,
            recent: [EMPTY; RECENT],
            recent_at: 0,
            table: vec![
                Entry {
                    page: EMPTY,
                    followers: [EMPTY; FOLLOWERS],
                    count: 0,
                };
                size
            ],
            mask: size - 1,
            last: None,
        }
    }

    fn slot(&self, page: u64) -> usize {
        (page.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & self.mask
    }

    /// Appends up to `x` pages to read along with the missed page `p`: the
    /// pages after it when the miss continues a stream, else the pages
    /// that missed after `p` last time. Then remembers the miss.
    pub fn predict(&mut self, p: u64, x: usize, out: &mut Vec<u64>) {
        let start = out.len();
        if p > 0 && self.recent.contains(&(p - 1)) {
            out.extend((p + 1..self.keys).take(x));
            // The stream goes on at the next miss past what is read along.
            if let Some(&last) = out[start..].last() {
                self.recent[self.recent_at] = last;
                self.recent_at = (self.recent_at + 1) % RECENT;
            }
        } else {
            let e = &self.table[self.slot(p)];
            if e.page == p {
                for &f in e.followers[..e.count as usize].iter().rev() {
                    if out.len() - start >= x {
                        break;
                    }
                    if f != p && !out[start..].contains(&f) {
                        out.push(f);
                    }
                }
            }
        }
        self.remember(p);
    }

    /// Records a miss on `p` without predicting.
    pub fn remember(&mut self, p: u64) {
        self.recent[self.recent_at] = p;
        self.recent_at = (self.recent_at + 1) % RECENT;
        if let Some(q) = self.last {
            let i = self.slot(q);
            let e = &mut self.table[i];
            if e.page != q {
                *e = Entry {
                    page: q,
                    followers: [EMPTY; FOLLOWERS],
                    count: 0,
                };
            }
            if !e.followers[..e.count as usize].contains(&p) {
                if (e.count as usize) < FOLLOWERS {
                    e.followers[e.count as usize] = p;
                    e.count += 1;
                } else {
                    e.followers.copy_within(1.., 0);
                    e.followers[FOLLOWERS - 1] = p;
                }
            }
        }
        self.last = Some(p);
    }

    /// Bytes the history table takes for `entries` entries.
    pub fn table_bytes(entries: usize) -> usize {
        table_len(entries) * std::mem::size_of::<Entry>() + RECENT * 8
    }

    /// Bytes of memory the prefetchers hold.
    pub fn bytes(&self) -> usize {
        self.table.len() * std::mem::size_of::<Entry>() + RECENT * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_prefetches_the_pages_after() {
        let mut p = Prefetcher::new(100, 64);
        let mut out = Vec::new();
        p.predict(10, 3, &mut out);
        assert!(out.is_empty());
        p.predict(11, 3, &mut out);
        assert_eq!(out, vec![12, 13, 14]);
        // The next miss after what was read along continues the stream.
        out.clear();
        p.predict(15, 3, &mut out);
        assert_eq!(out, vec![16, 17, 18]);
        out.clear();
        p.predict(98, 3, &mut out);
        p.predict(99, 3, &mut out);
        assert!(out.is_empty(), "no page past the end: {out:?}");
    }

    #[test]
    fn history_replays_the_misses_that_followed() {
        let mut p = Prefetcher::new(1000, 4096);
        let mut out = Vec::new();
        for page in [500, 20, 700, 300] {
            p.predict(page, 2, &mut out);
        }
        assert!(out.is_empty());
        p.predict(500, 2, &mut out);
        assert_eq!(out, vec![20]);
        out.clear();
        p.predict(20, 2, &mut out);
        assert_eq!(out, vec![700]);
        assert!(p.bytes() < 4096 * 100);
    }
}
