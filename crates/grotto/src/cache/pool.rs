//! A fixed budget of aligned 4 KiB slots shared by all threads.
//!
//! The hit path takes no lock: a key maps to a slot through an atomic
//! table, and pinning is one atomic add on the slot's state word followed
//! by a check that the slot still holds that key. Only a miss takes the
//! global lock, for as long as it takes the replacement policy to claim a
//! victim and the table to be updated; the read itself happens outside it.
//! A read already in flight is joined, never issued twice. A slot's state
//! and its transitions are in [`super::slot`].

use super::policy::{Clock, Replacement};
use super::slot::{Phase, Slot, SlotTable, NO_KEY};
use super::stats::{PoolStats, Striped};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, IoBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// Bytes per slot: one edge block.
pub const SLOT_BYTES: usize = 4096;

/// A key mapped to no slot.
const NONE: u32 = u32::MAX;

/// The buffer pool. Keys are dense integers below the `keys` given at
/// creation (the cache layer maps graph blocks to them).
pub struct BufferPool {
    arena: Arc<AlignedBuf>,
    slots: Box<[Slot]>,
    map: Box<[AtomicU32]>,
    policy: Mutex<Box<dyn Replacement>>,
    pub(super) stats: PoolStats,
}

/// What a lookup found.
pub enum Lookup<'p> {
    /// The block is in memory, pinned.
    Hit(Pinned<'p>),
    /// Another thread's read of the block is in flight; this handle holds a
    /// pin and turns into a [`Pinned`] when that read lands.
    Joined(Joined<'p>),
    /// Not in memory: a slot was claimed for it; read into
    /// [`Load::buf`] and call [`Load::finish`].
    Miss(Load<'p>),
    /// Every slot is pinned or loading: release pins and try again.
    Full,
}

impl BufferPool {
    /// A pool of `slots` slots for keys `0..keys`, with clock replacement.
    pub fn new(keys: u64, slots: usize) -> Result<BufferPool> {
        BufferPool::with_policy(keys, slots, Box::new(Clock::default()))
    }

    /// A pool with a given replacement policy.
    pub fn with_policy(
        keys: u64,
        slots: usize,
        policy: Box<dyn Replacement>,
    ) -> Result<BufferPool> {
        if slots == 0 {
            return Err(Error::Invalid(
                "the cache needs at least one 4 KiB slot".into(),
            ));
        }
        if slots >= NONE as usize || keys == NO_KEY {
            return Err(Error::Limit {
                what: format!(
                    "cache of {slots} slots over {keys} blocks exceeds the pool's limits"
                ),
            });
        }
        let arena = AlignedBuf::new(slots * SLOT_BYTES, SLOT_BYTES)?;
        let arena = Arc::new(arena);
        Ok(BufferPool {
            arena,
            slots: (0..slots).map(|_| Slot::new()).collect(),
            map: (0..keys).map(|_| AtomicU32::new(NONE)).collect(),
            policy: Mutex::new(policy),
            stats: PoolStats::default(),
        })
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Number of keys.
    pub fn keys(&self) -> u64 {
        self.map.len() as u64
    }

    /// Bytes of slot memory (the budget).
    pub fn budget_bytes(&self) -> u64 {
        (self.slots.len() * SLOT_BYTES) as u64
    }

    /// The slot memory, for registering with io_uring.
    pub fn arena(&self) -> &Arc<AlignedBuf> {
        &self.arena
    }

    /// Counters so far.
    pub fn stats(&self) -> super::stats::PoolSnapshot {
        self.stats.snapshot()
    }

    /// Name of the replacement policy.
    pub fn policy_name(&self) -> &'static str {
        self.lock_policy().name()
    }

    fn lock_policy(&self) -> MutexGuard<'_, Box<dyn Replacement>> {
        // The policy never panics while held; recover it if it did.
        self.policy.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Pins `key` if it is in memory or loading, without any lock.
    fn try_pin(&self, key: u64) -> Option<Lookup<'_>> {
        loop {
            let s = self.map[key as usize].load(Ordering::Acquire);
            if s == NONE {
                return None;
            }
            let slot = &self.slots[s as usize];
            let (phase, referenced) = slot.pin();
            if slot.key() != key {
                self.unpin(s);
                continue;
            }
            match phase {
                Phase::Ready => {
                    if !referenced {
                        slot.reference();
                    }
                    return Some(Lookup::Hit(Pinned {
                        pool: self,
                        slot: s,
                        key,
                    }));
                }
                Phase::Loading => {
                    return Some(Lookup::Joined(Joined {
                        pool: self,
                        slot: s,
                        key,
                    }))
                }
                Phase::Free => {
                    self.unpin(s);
                    // A failed load is being undone; let it finish.
                    std::hint::spin_loop();
                }
            }
        }
    }

    fn unpin(&self, slot: u32) {
        self.slots[slot as usize].unpin();
    }

    /// Finds `key`: a pinned hit, a joined read in flight, or a claimed slot
    /// to read it into.
    pub fn lookup(&self, key: u64) -> Result<Lookup<'_>> {
        if key >= self.keys() {
            return Err(Error::Invalid(format!(
                "block key {key} out of range ({} keys)",
                self.keys()
            )));
        }
        loop {
            if let Some(l) = self.try_pin(key) {
                match &l {
                    Lookup::Hit(_) => self.stats.hits.add(1),
                    _ => self.stats.joins.add(1),
                }
                return Ok(l);
            }
            let t0 = Instant::now();
            let mut policy = self.lock_policy();
            self.stats.lock_wait_ns.add(t0.elapsed().as_nanos() as u64);
            self.stats.lock_acquisitions.add(1);
            if self.map[key as usize].load(Ordering::Acquire) != NONE {
                continue; // someone else claimed it meanwhile
            }
            let table = SlotTable { slots: &self.slots };
            let Some(victim) = policy.evict(&table) else {
                self.stats.full.add(1);
                return Ok(Lookup::Full);
            };
            let slot = &self.slots[victim];
            let old = slot.key();
            if old != NO_KEY {
                self.map[old as usize].store(NONE, Ordering::Release);
                self.stats.evictions.add(1);
            }
            slot.set_key(key);
            self.map[key as usize].store(victim as u32, Ordering::Release);
            drop(policy);
            self.stats.misses.add(1);
            return Ok(Lookup::Miss(Load {
                pool: self,
                slot: victim as u32,
                key,
                done: false,
            }));
        }
    }

    fn slot_ptr(&self, slot: u32) -> *mut u8 {
        // SAFETY: slot < slots, so the offset stays inside the arena.
        unsafe { self.arena.as_ptr().add(slot as usize * SLOT_BYTES) }
    }
}

/// A pinned, loaded block. Unpins on drop.
pub struct Pinned<'p> {
    pool: &'p BufferPool,
    slot: u32,
    key: u64,
}

impl<'p> Pinned<'p> {
    /// The block's 4096 bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the slot is READY and pinned by us, so no load writes it
        // and it cannot be reclaimed until this pin is dropped.
        unsafe { std::slice::from_raw_parts(self.pool.slot_ptr(self.slot), SLOT_BYTES) }
    }

    /// The key it holds.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The slot it occupies.
    pub fn slot(&self) -> u32 {
        self.slot
    }
}

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        self.pool.unpin(self.slot);
    }
}

/// A pin on a slot whose read another thread has in flight.
pub struct Joined<'p> {
    pool: &'p BufferPool,
    slot: u32,
    key: u64,
}

impl<'p> Joined<'p> {
    /// `Some(Ok(pinned))` once the read landed, `Some(Err(()))` if it failed
    /// (look the key up again), `None` while it is still in flight.
    #[allow(clippy::result_unit_err)]
    pub fn poll(self) -> std::result::Result<std::result::Result<Pinned<'p>, ()>, Joined<'p>> {
        let slot = &self.pool.slots[self.slot as usize];
        match slot.phase() {
            Phase::Loading => Err(self),
            Phase::Ready if slot.key() == self.key => {
                let p = Pinned {
                    pool: self.pool,
                    slot: self.slot,
                    key: self.key,
                };
                std::mem::forget(self);
                Ok(Ok(p))
            }
            _ => Ok(Err(())), // dropping self unpins
        }
    }

    /// Waits (spinning, then yielding) for the read to land.
    #[allow(clippy::result_unit_err)]
    pub fn wait(mut self) -> std::result::Result<Pinned<'p>, ()> {
        let mut spins = 0u32;
        loop {
            match self.poll() {
                Ok(r) => return r,
                Err(j) => self = j,
            }
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// The key being loaded.
    pub fn key(&self) -> u64 {
        self.key
    }
}

impl Drop for Joined<'_> {
    fn drop(&mut self) {
        self.pool.unpin(self.slot);
    }
}

/// A claimed slot awaiting its bytes. Dropping it without [`Load::finish`]
/// gives the slot back and lets joined readers retry.
pub struct Load<'p> {
    pool: &'p BufferPool,
    slot: u32,
    key: u64,
    done: bool,
}

impl<'p> Load<'p> {
    /// The slot's memory, to read the block into.
    pub fn buf(&self) -> IoBuf {
        IoBuf {
            ptr: self.pool.slot_ptr(self.slot),
            len: SLOT_BYTES,
        }
    }

    /// The slot's bytes, for checking what was read before publishing it.
    ///
    /// # Safety
    ///
    /// The read into [`Load::buf`] must have completed (its completion
    /// reaped), and no other request may target this slot: until then the
    /// device may be writing the bytes this slice would alias.
    pub unsafe fn bytes(&self) -> &[u8] {
        // SAFETY: the slot is LOADING and owned by this handle, so no
        // reader of the pool sees it before `finish`; the caller promises
        // the device is done writing it.
        unsafe { std::slice::from_raw_parts(self.pool.slot_ptr(self.slot), SLOT_BYTES) }
    }

    /// The key being loaded.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Publishes the loaded bytes; the caller keeps a pin.
    pub fn finish(mut self) -> Pinned<'p> {
        self.done = true;
        self.pool.slots[self.slot as usize].publish();
        Pinned {
            pool: self.pool,
            slot: self.slot,
            key: self.key,
        }
    }
}

impl Drop for Load<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        // Failed load: unmap the key, free the slot (joiners see FREE,
        // unpin and look again), release our pin.
        let pool = self.pool;
        let _g = pool.lock_policy();
        pool.map[self.key as usize].store(NONE, Ordering::Release);
        let slot = &pool.slots[self.slot as usize];
        slot.set_key(NO_KEY);
        slot.abandon();
        pool.unpin(self.slot);
        pool.stats.failed_loads.add(1);
    }
}

#[doc(hidden)]
pub fn _assert_send_sync() {
    fn f<T: Send + Sync>() {}
    f::<BufferPool>();
    let _ = Striped::default;
}
