//! One pass of the asynchronous engine: the state its executors share
//! ([`Pass`]), seeding, activation, the continuation of long lists, and
//! the executor loop that processes index-resident vertices and blocks
//! as their reads land.

use super::super::frontier::AtomicBitmap;
use super::super::local::LocalQueue;
use super::super::par::fan_out;
use super::super::schedule::{
    BlockQueue, BlockStates, Cursor, Gate, Priority, AGAIN, IDLE, LOADING, PROCESSING, QUEUED,
};
use super::super::session::{RunProgress, Tally};
use super::ahead::Ahead;
use super::flow::{Neighbours, Seeds, Spread};
use super::seeds::SeedList;
use crate::cache::{BlockKey, CacheReader, Pinned};
use crate::error::{Error, Result};
use crate::store::blockmap::BlockMap;
use crate::store::{Adjacency, Graph};
use crate::VertexId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Shards of the continuation table.
pub(super) const CONT_SHARDS: usize = 64;
/// Index-resident vertices an executor runs between two pump rounds.
const INLINE_BATCH: usize = 256;
/// Seeded index-resident vertices an executor claims at a time.
const SEED_CLAIM: usize = 1024;
/// Seeds a seeding worker takes at a time.
const SEED_CHUNK: usize = 1 << 14;
/// Queued blocks each executor after the first needs before it takes
/// blocks from the queue: executor `k` (from 1) joins a wave of at least
/// `WAVE_PER_EXECUTOR * (k - 1)` queued blocks. On a thin wave a second
/// executor mostly runs vertices whose priority is not final yet, and they
/// run again; 8 measured best of 4, 8, 16, 32 and 64 (docs/async.md).
const WAVE_PER_EXECUTOR: i64 = 8;

type Conts<M> = Mutex<HashMap<u64, Vec<(VertexId, M)>>>;

/// Everything the executors of one pass share.
pub(super) struct Pass<'p, M, A, S> {
    pub(super) graph: &'p Graph,
    pub(super) adj: &'p Adjacency,
    pub(super) map: &'p BlockMap,
    pub(super) st: &'p BlockStates,
    pub(super) active: &'p AtomicBitmap,
    pub(super) next: Option<&'p AtomicBitmap>,
    pub(super) base: u64,
    pub(super) wbase: Option<u64>,
    pub(super) blocks: u64,
    pub(super) n: u64,
    pub(super) queue: BlockQueue,
    pub(super) gate: Gate,
    /// Blocks not idle, unclaimed index-resident seeds, and one per
    /// executor queue of index-resident vertices not yet drained.
    pub(super) outstanding: AtomicI64,
    pub(super) abort: AtomicBool,
    pub(super) conts: Vec<Conts<M>>,
    pub(super) conts_len: AtomicUsize,
    pub(super) seeds: SeedList,
    pub(super) seed_cursor: AtomicUsize,
    pub(super) apply: &'p A,
    pub(super) spread: &'p S,
    pub(super) reuse: u32,
    /// Blocks one merged read holds (the device profile's merge size).
    pub(super) run_blocks: u64,
    /// The engine's live progress, told of edges every 64 blocks.
    pub(super) live: &'p RunProgress,
    /// Reading ahead of the wave, when the flow asks for it.
    pub(super) ahead: Option<Ahead>,
    /// Blocks in the queued state (each counted once, however many
    /// entries the queue holds for it): the wave's width.
    pub(super) queued: AtomicI64,
}

/// One executor's private state.
struct Exec<'c> {
    local: LocalQueue,
    /// Whether `local` holds its one unit of the pass's outstanding work
    /// (taken when it gets its first vertex, given back when it is
    /// drained), so its vertices cost no shared counter update each.
    held: bool,
    halves: HashMap<u64, (Option<Pinned<'c>>, Option<Pinned<'c>>)>,
    counts: Tally,
    /// `counts.edges` when last added to the live progress.
    told: u64,
    /// Where packed lists are decoded (reused from list to list).
    scratch: Vec<VertexId>,
    /// Where the weights of lists an update changed are merged (reused).
    wscratch: Vec<f32>,
    /// A block's vertices in the order a scan takes them (reused).
    order: Vec<VertexId>,
    /// The block being scanned, if any.
    scanning: Option<u64>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'p, M, A, S> Pass<'p, M, A, S>
where
    M: Copy + Send,
    A: Fn(VertexId) -> Option<M> + Sync,
    S: Spread<M>,
{
    /// The block holding the start of `v`'s list, if it is on disk.
    #[inline]
    fn first_block(&self, v: VertexId) -> Option<u64> {
        self.adj.block_range(v).map(|(first, _)| first)
    }

    /// Activates the seeds with `threads` threads: blocks holding a seed
    /// are queued with their seeds' best priority, index-resident seeds
    /// are listed in priority order for the executors to claim.
    pub(super) fn seed(&mut self, seeds: Seeds<'_>, threads: usize) {
        let (len, filled) = match seeds {
            Seeds::List(l) => (l.len(), false),
            Seeds::Where(_) => (self.n as usize, false),
            Seeds::All(_) | Seeds::AllWith(_) => (self.n as usize, true),
        };
        if filled {
            self.active.fill();
        }
        let cursor = AtomicUsize::new(0);
        let this = &*self;
        // Per worker: its chunks' index-resident seeds, keyed by where
        // each chunk starts, and the blocks it queued.
        let parts = fan_out((0..threads.max(1)).collect(), |_| {
            let (mut inline, mut queued) = (Vec::new(), Vec::new());
            loop {
                let lo = cursor.fetch_add(SEED_CHUNK, Ordering::Relaxed);
                if lo >= len {
                    return (inline, queued);
                }
                let mut mine = SeedList::default();
                for i in lo..(lo + SEED_CHUNK).min(len) {
                    let (v, p) = match seeds {
                        Seeds::All(p) => (i as VertexId, p),
                        Seeds::AllWith(f) => (i as VertexId, f(i as VertexId)),
                        Seeds::Where(f) => match f(i as VertexId) {
                            Some(p) => (i as VertexId, p),
                            None => continue,
                        },
                        Seeds::List(l) => match l[i] {
                            (v, p) if (v as u64) < this.n => (v, p),
                            _ => continue,
                        },
                    };
                    let p = p.min(Priority::LAST);
                    let new = filled || this.active.insert(v as u64);
                    match this.first_block(v) {
                        Some(b) => {
                            // Look before writing: most seeds share their
                            // block with others, and a write would take the
                            // line from the other workers.
                            let i = b as usize;
                            if p.0 < this.st.prio[i].load(Ordering::Relaxed) {
                                this.st.prio[i].fetch_min(p.0, Ordering::Relaxed);
                            }
                            if this.st.state[i].load(Ordering::Relaxed) == IDLE
                                && this.st.state[i]
                                    .compare_exchange(
                                        IDLE,
                                        QUEUED,
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                            {
                                queued.push(b);
                            }
                        }
                        None if new => mine.push(p.0, v),
                        None => {}
                    }
                }
                inline.push((lo, mine));
            }
        });
        // No executor runs yet: every count and priority is final here.
        let (mut chunks, mut blocks) = (Vec::new(), Vec::new());
        for (inline, queued) in parts {
            chunks.extend(inline);
            blocks.push(queued);
        }
        chunks.sort_unstable_by_key(|c| c.0);
        let list = SeedList::merge(chunks.into_iter().map(|c| c.1).collect());
        let queued: usize = blocks.iter().map(Vec::len).sum();
        self.outstanding
            .fetch_add((queued + list.len()) as i64, Ordering::SeqCst);
        self.queued.fetch_add(queued as i64, Ordering::Relaxed);
        self.seeds = list;
        let this = &*self;
        fan_out(blocks, |bs| {
            for b in bs {
                this.queue
                    .push(b, this.st.prio[b as usize].load(Ordering::Relaxed));
            }
        });
    }

    fn seeds_left(&self) -> bool {
        self.seed_cursor.load(Ordering::Relaxed) < self.seeds.len()
    }

    fn claim_seeds(&self, x: &mut Exec<'_>) {
        if !self.seeds_left() {
            return;
        }
        let lo = self.seed_cursor.fetch_add(SEED_CLAIM, Ordering::Relaxed);
        let mine = lo.min(self.seeds.len())..(lo + SEED_CLAIM).min(self.seeds.len());
        if mine.is_empty() {
            return;
        }
        // Each seed was counted on its own; the queue's unit covers them
        // once it is held.
        self.hold(x);
        let claimed = mine.len();
        for i in mine {
            let (p, v) = self.seeds.get(i);
            x.local.push(p, v);
        }
        self.outstanding.fetch_sub(claimed as i64, Ordering::SeqCst);
    }

    /// Makes the executor's queue hold its unit of outstanding work.
    #[inline]
    fn hold(&self, x: &mut Exec<'_>) {
        if !x.held {
            x.held = true;
            self.outstanding.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Activates `u` with priority `p`, from a spread of vertex `from`'s
    /// list.
    #[inline]
    fn activate(&self, u: VertexId, p: Priority, from: VertexId, x: &mut Exec<'_>) {
        if let Some(next) = self.next {
            next.insert(u as u64);
            return;
        }
        let new = self.active.insert(u as u64);
        match self.first_block(u) {
            Some(_) if p == Priority::DEFER => {}
            Some(b) => {
                // The side the most urgent activation comes from: a block
                // later in the file (or, from the index, a larger id)
                // means a wave moving towards the file's start, whose
                // chains inside this block run from its last vertex.
                if p.0 < self.st.prio[b as usize].load(Ordering::Relaxed) {
                    let down = match x.scanning {
                        Some(c) if c == b => None,
                        Some(c) => Some(c > b),
                        None => Some(from > u),
                    };
                    let side = &self.st.down[b as usize];
                    // Written only when it changes: hubs' blocks are
                    // activated from every core.
                    if let Some(d) = down.filter(|&d| side.load(Ordering::Relaxed) != d) {
                        side.store(d, Ordering::Relaxed);
                    }
                }
                self.block_activate(b, p)
            }
            None => {
                if new {
                    self.hold(x);
                    x.local.push(p.min(Priority::LAST).0, u);
                }
            }
        }
    }

    /// Makes block `b` (re)run with priority at most `p`.
    fn block_activate(&self, b: u64, p: Priority) {
        if let Some(a) = &self.ahead {
            a.activated(b);
        }
        let i = b as usize;
        // Look before writing: a block's own vertices activate it again
        // and again while it runs, mostly with no better priority and
        // after it is already marked to run again.
        let prio = &self.st.prio[i];
        let seen = prio.load(Ordering::Acquire);
        let old = if p.0 < seen {
            prio.fetch_min(p.0, Ordering::AcqRel)
        } else {
            seen
        };
        let s = &self.st.state[i];
        let mut cur = s.load(Ordering::Acquire);
        loop {
            match cur {
                IDLE => match s.compare_exchange(IDLE, QUEUED, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => {
                        self.outstanding.fetch_add(1, Ordering::SeqCst);
                        self.queued.fetch_add(1, Ordering::Relaxed);
                        self.queue
                            .push(b, self.st.prio[i].load(Ordering::Acquire).min(p.0));
                        self.gate.wake();
                        return;
                    }
                    Err(c) => cur = c,
                },
                QUEUED => {
                    if p.0 < old {
                        self.queue.push(b, p.0);
                    }
                    return;
                }
                PROCESSING => {
                    match s.compare_exchange(PROCESSING, AGAIN, Ordering::AcqRel, Ordering::Acquire)
                    {
                        Ok(_) => return,
                        Err(c) => cur = c,
                    }
                }
                _ => return, // LOADING or AGAIN: it will look at its vertices
            }
        }
    }

    fn finished_one(&self) {
        if self.outstanding.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.gate.wake();
        }
    }

    fn fail(&self) {
        self.abort.store(true, Ordering::SeqCst);
        self.gate.wake();
    }

    /// Sends `msg` along `ids` (with `weights`, if read).
    #[inline]
    fn send(
        &self,
        v: VertexId,
        ids: &[VertexId],
        weights: Option<&[f32]>,
        msg: M,
        x: &mut Exec<'_>,
    ) -> Result<()> {
        self.graph.check_list(v, ids)?;
        x.counts.edges += ids.len() as u64;
        let run = Neighbours {
            src: v,
            ids,
            weights,
        };
        self.spread
            .spread(msg, run, &mut |u, p| self.activate(u, p, v, x));
        Ok(())
    }

    /// Runs an active vertex whose list is kept in the index (or empty).
    fn run_inline(&self, v: VertexId, x: &mut Exec<'_>) -> Result<()> {
        if self.active.take(v as u64) {
            x.counts.visits += 1;
            if let Some(msg) = (self.apply)(v) {
                let list = self.adj.inline_list(v);
                let ids = list.as_ref().map_or(&[][..], |l| l.ids());
                // Lists in the index are unweighted; one an update gave a
                // weighted graph has its weights.
                let ws = list.as_ref().and_then(|l| l.weights());
                self.send(v, ids, ws.filter(|_| self.wbase.is_some()), msg, x)?;
            }
        }
        Ok(())
    }

    /// Sends `msg` along the part of `v`'s list held by block `b`.
    fn piece(
        &self,
        v: VertexId,
        b: u64,
        eb: &[u8],
        wb: Option<&[u8]>,
        msg: M,
        x: &mut Exec<'_>,
    ) -> Result<()> {
        let mut scratch = std::mem::take(&mut x.scratch);
        let r = match wb {
            None => match self.adj.list_in_block(v, b, eb, &mut scratch) {
                Ok(Some(piece)) => self.send(v, piece.ids, None, msg, x),
                Ok(None) => Ok(()),
                Err(e) => Err(e),
            },
            Some(wb) => {
                let mut wscratch = std::mem::take(&mut x.wscratch);
                let r =
                    match self
                        .adj
                        .weighted_list_in_block(v, b, eb, wb, &mut scratch, &mut wscratch)
                    {
                        Ok(Some((piece, ws))) => self.send(v, piece.ids, Some(ws), msg, x),
                        Ok(None) => Ok(()),
                        Err(e) => Err(e),
                    };
                x.wscratch = wscratch;
                r
            }
        };
        x.scratch = scratch;
        r
    }

    /// Processes every active vertex whose list starts in block `b` and
    /// every continuation queued for it.
    ///
    /// A scan that runs `backward` takes the vertices from the last: a
    /// block run again while in memory alternates, so a chain of
    /// activations inside it (a grid row reached from its far end) is
    /// done in two scans whichever way it runs, not one scan a vertex.
    fn scan(
        &self,
        b: u64,
        eb: &[u8],
        wb: Option<&[u8]>,
        bp: u32,
        backward: bool,
        x: &mut Exec<'_>,
    ) -> Result<()> {
        x.counts.blocks += 1;
        if x.counts.blocks.is_multiple_of(64) {
            self.live
                .edges
                .fetch_add(x.counts.edges - x.told, Ordering::Relaxed);
            x.told = x.counts.edges;
        }
        if self.conts_len.load(Ordering::Acquire) > 0 {
            let taken = lock(&self.conts[b as usize % CONT_SHARDS]).remove(&b);
            if let Some(list) = taken {
                self.conts_len.fetch_sub(list.len(), Ordering::AcqRel);
                for (v, msg) in list {
                    self.piece(v, b, eb, wb, msg, x)?;
                }
            }
        }
        if !backward {
            return self.scan_vertices(b, eb, wb, bp, self.map.vertices(b), x);
        }
        // The block map decodes forwards only: a backward scan lists the
        // vertices first.
        let mut order = std::mem::take(&mut x.order);
        order.clear();
        order.extend(self.map.vertices(b));
        let r = self.scan_vertices(b, eb, wb, bp, order.iter().rev().copied(), x);
        x.order = order;
        r
    }

    /// Processes every active vertex of `order` whose list starts in
    /// block `b`.
    fn scan_vertices(
        &self,
        b: u64,
        eb: &[u8],
        wb: Option<&[u8]>,
        bp: u32,
        order: impl Iterator<Item = VertexId>,
        x: &mut Exec<'_>,
    ) -> Result<()> {
        for v in order {
            // Most of a block's vertices are not active when it runs
            // again: one bit answers before the index is decoded.
            if !self.active.contains(v as u64) {
                continue;
            }
            let Some((first, last)) = self.adj.block_range(v) else {
                continue;
            };
            if first != b || !self.active.take(v as u64) {
                continue;
            }
            x.counts.visits += 1;
            let Some(msg) = (self.apply)(v) else {
                continue;
            };
            self.piece(v, b, eb, wb, msg, x)?;
            let last = last.min(self.blocks.saturating_sub(1));
            for b2 in first + 1..=last {
                lock(&self.conts[b2 as usize % CONT_SHARDS])
                    .entry(b2)
                    .or_default()
                    .push((v, msg));
                self.conts_len.fetch_add(1, Ordering::AcqRel);
                self.block_activate(b2, Priority(bp));
            }
        }
        Ok(())
    }

    /// Processes block `b`, claimed by this executor, again while it is
    /// reactivated (up to the reuse cap), then lets it go.
    fn process(&self, b: u64, eb: &[u8], wb: Option<&[u8]>, x: &mut Exec<'_>) -> Result<()> {
        let i = b as usize;
        let s = &self.st.state[i];
        s.store(PROCESSING, Ordering::Release);
        let mut runs = 0u32;
        loop {
            let bp = self.st.prio[i].swap(u32::MAX, Ordering::AcqRel);
            // The first scan starts from the side the block's most urgent
            // activation came from; later ones alternate.
            let first_back = self.st.down[i].load(Ordering::Relaxed);
            x.scanning = Some(b);
            let r = self.scan(b, eb, wb, bp, (runs % 2 == 1) != first_back, x);
            x.scanning = None;
            r?;
            runs += 1;
            // What the scan activated among vertices whose lists live in
            // the index runs now, not after the block is let go: a chain
            // through them (a road's vertices of degree 1 or 2 are inline)
            // comes back to this block while it is still held, instead of
            // queueing it again and reading it again when the pool is
            // small. Road grid BFS, 1 thread: 92K block scans to 11K.
            for _ in 0..INLINE_BATCH {
                let Some((_, v)) = x.local.pop() else {
                    break;
                };
                self.run_inline(v, x)?;
            }
            if s.compare_exchange(PROCESSING, IDLE, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                self.finished_one();
                return Ok(());
            }
            // Reactivated while we held it.
            if runs <= self.reuse {
                x.counts.reuses += 1;
                s.store(PROCESSING, Ordering::Release);
                continue;
            }
            s.store(QUEUED, Ordering::Release);
            self.queued.fetch_add(1, Ordering::Relaxed);
            self.queue.push(b, self.st.prio[i].load(Ordering::Acquire));
            self.gate.wake();
            return Ok(());
        }
    }

    /// A block (or its weights) arrived.
    fn arrive<'c>(&self, pin: Pinned<'c>, x: &mut Exec<'c>) -> Result<()> {
        let key = pin.key();
        let Some(wbase) = self.wbase else {
            return self.process(key - self.base, pin.bytes(), None, x);
        };
        let (b, is_weight) = if key >= wbase && key < wbase + self.blocks {
            (key - wbase, true)
        } else {
            (key - self.base, false)
        };
        let e = x.halves.entry(b).or_default();
        if is_weight {
            e.1 = Some(pin);
        } else {
            e.0 = Some(pin);
        }
        if e.0.is_some() && e.1.is_some() {
            if let Some((Some(ep), Some(wp))) = x.halves.remove(&b) {
                return self.process(b, ep.bytes(), Some(wp.bytes()), x);
            }
        }
        Ok(())
    }

    /// One executor: runs until the pass is over or fails.
    pub(super) fn executor<'c>(&self, reader: &mut CacheReader<'c>, seed: u64) -> Result<Tally> {
        let mut x = Exec {
            local: LocalQueue::new(),
            held: false,
            halves: HashMap::new(),
            counts: Tally::default(),
            told: 0,
            scratch: Vec::new(),
            wscratch: Vec::new(),
            order: Vec::new(),
            scanning: None,
        };
        let r = self.executor_loop(reader, seed, &mut x);
        if r.is_err() {
            self.fail();
        }
        r.map(|()| x.counts)
    }

    /// Takes queued block `b` for reading; false if it is not queued.
    fn claim(&self, b: u64) -> bool {
        let ok = self.st.state[b as usize]
            .compare_exchange(QUEUED, LOADING, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok();
        if ok {
            self.queued.fetch_sub(1, Ordering::Relaxed);
        }
        ok
    }

    /// Whether executor `me` (from 1) takes blocks from the queue now:
    /// the first always, the others while the wave is wide enough (see
    /// [`WAVE_PER_EXECUTOR`]).
    #[inline]
    fn may_take(&self, me: u64) -> bool {
        me <= 1 || self.queued.load(Ordering::Relaxed) >= WAVE_PER_EXECUTOR * (me as i64 - 1)
    }

    /// Takes the next idle block to read ahead, if the flow reads ahead
    /// and not too many blocks read ahead are still unproven.
    fn claim_ahead(&self) -> Option<u64> {
        let a = self.ahead.as_ref()?;
        loop {
            if a.unproven.load(Ordering::Relaxed) >= a.limit {
                return None;
            }
            let b = a.next(self.blocks)?;
            let s = &self.st.state[b as usize];
            if s.load(Ordering::Relaxed) != IDLE {
                continue;
            }
            // Marked before it can be seen loading, so an activation that
            // comes while it loads proves it.
            a.unproven.fetch_add(1, Ordering::Relaxed);
            a.marked.insert(b);
            if s.compare_exchange(IDLE, LOADING, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                // Counted like a queued block until it is processed.
                self.outstanding.fetch_add(1, Ordering::SeqCst);
                a.read.fetch_add(1, Ordering::Relaxed);
                return Some(b);
            }
            a.activated(b);
        }
    }

    /// The key of edge block `b`; its weight block is asked for next.
    fn key_of(&self, b: u64, wnext: &mut Option<BlockKey>) -> BlockKey {
        if let Some(w) = self.wbase {
            *wnext = Some(BlockKey(w + b));
        }
        BlockKey(self.base + b)
    }

    fn executor_loop<'c>(
        &self,
        reader: &mut CacheReader<'c>,
        seed: u64,
        x: &mut Exec<'c>,
    ) -> Result<()> {
        let mut cursor = Cursor::new(seed);
        let mut wnext: Option<BlockKey> = None;
        // The block after the last one taken from the queue, the
        // priority it was taken with, and how many more may follow it.
        let mut run: Option<(u64, u32, u64)> = None;
        loop {
            if self.abort.load(Ordering::Relaxed) {
                return Ok(());
            }
            if crate::interrupt::requested() {
                self.fail();
                return Err(Error::Interrupted);
            }
            if x.local.is_empty() {
                self.claim_seeds(x);
            }
            for _ in 0..INLINE_BATCH {
                let Some((_, v)) = x.local.pop() else {
                    break;
                };
                self.run_inline(v, x)?;
            }
            // Drained: what its vertices activated is counted by now.
            if x.held && x.local.is_empty() {
                x.held = false;
                self.finished_one();
            }
            let mut round = |reader: &mut CacheReader<'c>, wait: bool| {
                let mut source = || -> Option<BlockKey> {
                    if let Some(k) = wnext.take() {
                        return Some(k);
                    }
                    // The queued block after the last one taken joins its
                    // read when it is no less urgent: a longer request
                    // costs the device little more than a short one.
                    if let Some((b, p, left)) = run.take() {
                        if left > 0
                            && b < self.blocks
                            && self.st.prio[b as usize].load(Ordering::Acquire) <= p
                            && self.claim(b)
                        {
                            if let Some(a) = &self.ahead {
                                a.past(b);
                            }
                            run = Some((b + 1, p, left - 1));
                            return Some(self.key_of(b, &mut wnext));
                        }
                    }
                    if !self.may_take(seed) {
                        return None;
                    }
                    while let Some((b, p)) = self.queue.pop(&mut cursor) {
                        if self.claim(b) {
                            if let Some(a) = &self.ahead {
                                a.past(b);
                            }
                            run = Some((b + 1, p, self.run_blocks - 1));
                            return Some(self.key_of(b, &mut wnext));
                        }
                    }
                    let b = self.claim_ahead()?;
                    Some(self.key_of(b, &mut wnext))
                };
                let mut f = |pin: Pinned<'c>| self.arrive(pin, x);
                reader.pump(&mut source, &mut f, wait)
            };
            let p = round(reader, false)?;
            if p.delivered > 0 || !x.local.is_empty() {
                continue;
            }
            if !reader.idle() || wnext.is_some() || !x.halves.is_empty() {
                let mut round = |reader: &mut CacheReader<'c>| {
                    let mut source = || -> Option<BlockKey> {
                        if let Some(k) = wnext.take() {
                            return Some(k);
                        }
                        None
                    };
                    let mut f = |pin: Pinned<'c>| self.arrive(pin, x);
                    reader.pump(&mut source, &mut f, true)
                };
                round(reader)?;
                continue;
            }
            if self.outstanding.load(Ordering::SeqCst) <= 0 {
                return Ok(());
            }
            if (self.queue.maybe_nonempty() && self.may_take(seed)) || self.seeds_left() {
                continue;
            }
            self.gate.sleep_until(|| {
                (self.queue.maybe_nonempty() && self.may_take(seed))
                    || self.seeds_left()
                    || self.outstanding.load(Ordering::SeqCst) <= 0
                    || self.abort.load(Ordering::SeqCst)
            });
        }
    }
}
