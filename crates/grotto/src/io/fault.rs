//! A backend wrapper that injects faults, for testing the recovery paths of
//! the [`Reader`](super::Reader) over either real backend.

use super::raw::{RawBackend, RawDone, RawOp};
use std::collections::HashSet;
use std::io;
use std::time::{Duration, Instant};

/// Which faults to inject and how often. A period of `n` hits every `n`-th
/// operation pushed (retries count as operations); 0 disables that fault.
#[derive(Clone, Debug, Default)]
pub struct FaultPlan {
    /// Report fewer bytes than were transferred (half, plus an unaligned
    /// remainder), so the reader must resubmit the rest.
    pub short_every: u64,
    /// Fail with EIO without touching the device.
    pub eio_every: u64,
    /// Fail with EINTR without touching the device.
    pub eintr_every: u64,
    /// Fail with EAGAIN without touching the device.
    pub eagain_every: u64,
    /// Hold the completion back by `slow`.
    pub slow_every: u64,
    /// Delay for slow completions.
    pub slow: Duration,
    /// Pretend the file ends at this byte.
    pub eof_at: Option<u64>,
}

/// Wraps a backend and applies a [`FaultPlan`].
pub struct FaultyBackend<B> {
    inner: B,
    plan: FaultPlan,
    pushed: u64,
    inner_in_flight: usize,
    immediate: Vec<RawDone>,
    short: HashSet<u64>,
    slow: HashSet<u64>,
    clip: Vec<(u64, u64)>,
    held: Vec<(Instant, RawDone)>,
}

impl<B: RawBackend> FaultyBackend<B> {
    /// `inner` with faults from `plan`.
    pub fn new(inner: B, plan: FaultPlan) -> Self {
        FaultyBackend {
            inner,
            plan,
            pushed: 0,
            inner_in_flight: 0,
            immediate: Vec::new(),
            short: HashSet::new(),
            slow: HashSet::new(),
            clip: Vec::new(),
            held: Vec::new(),
        }
    }

    fn hit(&self, every: u64) -> bool {
        every > 0 && self.pushed.is_multiple_of(every)
    }

    fn release(&mut self, out: &mut Vec<RawDone>, now: Instant) -> usize {
        let before = out.len();
        self.held.retain(|&(t, d)| {
            if t <= now {
                out.push(d);
                false
            } else {
                true
            }
        });
        out.len() - before
    }
}

impl<B: RawBackend> RawBackend for FaultyBackend<B> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    unsafe fn push(&mut self, op: RawOp) -> io::Result<()> {
        self.pushed += 1;
        if self.hit(self.plan.eintr_every) {
            self.immediate.push((op.user_data, -libc::EINTR));
            return Ok(());
        }
        if self.hit(self.plan.eagain_every) {
            self.immediate.push((op.user_data, -libc::EAGAIN));
            return Ok(());
        }
        if self.hit(self.plan.eio_every) {
            self.immediate.push((op.user_data, -libc::EIO));
            return Ok(());
        }
        if let Some(eof) = self.plan.eof_at {
            if op.offset >= eof {
                self.immediate.push((op.user_data, 0));
                return Ok(());
            }
            self.clip.push((op.user_data, eof - op.offset));
        }
        if self.hit(self.plan.short_every) {
            self.short.insert(op.user_data);
        }
        if self.hit(self.plan.slow_every) {
            self.slow.insert(op.user_data);
        }
        self.inner_in_flight += 1;
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.push(op) }
    }

    fn submit(&mut self) -> io::Result<()> {
        self.inner.submit()
    }

    fn reap(&mut self, out: &mut Vec<RawDone>, min: usize) -> io::Result<()> {
        let mut got = self.immediate.len();
        out.append(&mut self.immediate);
        loop {
            got += self.release(out, Instant::now());
            let mut fresh = Vec::new();
            let want = if got >= min || !self.held.is_empty() {
                0
            } else {
                (min - got).min(self.inner_in_flight)
            };
            self.inner.reap(&mut fresh, want)?;
            self.inner_in_flight -= fresh.len();
            for (ud, mut res) in fresh {
                if let Some(i) = self.clip.iter().position(|c| c.0 == ud) {
                    let (_, room) = self.clip.swap_remove(i);
                    if res > 0 && res as u64 > room {
                        res = room as i32;
                    }
                }
                if self.short.remove(&ud) && res > 1 {
                    res = res / 2 + 100.min(res / 4);
                }
                if self.slow.remove(&ud) {
                    self.held.push((Instant::now() + self.plan.slow, (ud, res)));
                } else {
                    out.push((ud, res));
                    got += 1;
                }
            }
            if got >= min {
                return Ok(());
            }
            match self.held.iter().map(|h| h.0).min() {
                Some(t) => std::thread::sleep(t.saturating_duration_since(Instant::now())),
                None if self.inner_in_flight == 0 => return Ok(()),
                None => {}
            }
        }
    }
}
