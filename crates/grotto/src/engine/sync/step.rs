//! The workers of one synchronous step: claiming frontier units, the
//! vertex-mode worker (each active vertex fetches its blocks), and the two
//! block-mode passes (plan the blocks a level needs, then read each once
//! and visit every active vertex in it).

use super::super::frontier::{AtomicBitmap, Frontier, GRAB_UNITS};
use super::super::{Edges, Next};
use crate::cache::{BlockKey, CacheReader, Pinned};
use crate::error::{Error, Result};
use crate::store::blockmap::BlockMap;
use crate::store::{Adjacency, Graph};
use crate::VertexId;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// What one worker produced in a step.
#[derive(Default)]
pub(super) struct Local {
    pub(super) next: Vec<VertexId>,
    /// Activations made with [`Next::activate_new`] (no bit set).
    pub(super) fresh: Vec<VertexId>,
    /// Activations moved into the next frontier's bitmap, the lists
    /// having reached [`StepCtx::spill`].
    pub(super) spilled: u64,
    pub(super) visits: u64,
    pub(super) edges: u64,
    /// Where packed lists are decoded (reused from list to list).
    pub(super) scratch: Vec<VertexId>,
    /// Where the weights of a list an update changed are merged (reused).
    pub(super) wscratch: Vec<f32>,
}

/// Everything a worker of one step reads.
pub(super) struct StepCtx<'s, F> {
    pub(super) graph: &'s Graph,
    pub(super) adj: &'s Adjacency,
    pub(super) frontier: &'s Frontier,
    /// A sparse frontier's members (an empty set for other frontiers).
    pub(super) cur_bits: &'s AtomicBitmap,
    pub(super) next_bits: &'s OnceLock<AtomicBitmap>,
    pub(super) visit: &'s F,
    /// Block mode: decides whether a vertex outside the frontier whose
    /// whole list is in a block just loaded is visited too.
    pub(super) eager: Option<&'s (dyn Fn(VertexId) -> bool + Sync)>,
    pub(super) base: u64,
    /// A weighted step: the pool key of weight block 0 (each edge block's
    /// weights are read with it, and its lists visited with them).
    pub(super) wbase: Option<u64>,
    /// The most vertices a worker's activation list holds (see [`Next`]).
    pub(super) spill: usize,
    pub(super) cursor: AtomicUsize,
    pub(super) abort: AtomicBool,
}

impl<F> StepCtx<'_, F>
where
    F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
{
    /// Claims the next run of frontier units; false when none is left.
    fn claim(&self, out: &mut Vec<VertexId>) -> bool {
        out.clear();
        if self.abort.load(Ordering::Relaxed) || crate::interrupt::requested() {
            return false;
        }
        let units = self.frontier.units();
        let lo = self.cursor.fetch_add(GRAB_UNITS, Ordering::Relaxed);
        if lo >= units {
            return false;
        }
        self.frontier
            .vertices(lo, (lo + GRAB_UNITS).min(units), out);
        true
    }

    fn member(&self, v: VertexId) -> bool {
        match self.frontier {
            Frontier::All(_) => true,
            Frontier::Dense(bits, _) => bits.contains(v as u64),
            Frontier::Sparse(_) => self.cur_bits.contains(v as u64),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn call(
        &self,
        v: VertexId,
        ids: &[VertexId],
        weights: Option<&[f32]>,
        first: u64,
        degree: u64,
        local: &mut Local,
    ) {
        local.visits += 1;
        local.edges += ids.len() as u64;
        let mut next = Next {
            bits: self.next_bits,
            n: self.graph.vertex_count(),
            list: &mut local.next,
            fresh: &mut local.fresh,
            spill: self.spill,
            spilled: &mut local.spilled,
        };
        let edges = Edges {
            ids,
            first,
            degree,
            weights,
        };
        (self.visit)(v, edges, &mut next);
    }

    /// Visits `v` if its list is kept in the index; true if it was.
    fn inline(&self, v: VertexId, local: &mut Local) -> Result<bool> {
        let Some(list) = self.adj.inline_list(v) else {
            return Ok(false);
        };
        let ids = list.ids();
        self.graph.check_list(v, ids)?;
        // Lists in the index are unweighted; one an update gave a weighted
        // graph has its weights.
        let ws = list.weights().filter(|_| self.wbase.is_some());
        self.call(v, ids, ws, 0, ids.len() as u64, local);
        Ok(true)
    }

    /// Whether `v`'s whole list is in block `b`.
    fn whole_list_in(&self, v: VertexId, b: u64) -> bool {
        self.adj.block_range(v) == Some((b, b))
    }

    /// Visits the part of `v`'s list held by block `b` (bytes `bytes`,
    /// and `wbytes` its weight block's in a weighted step).
    fn deliver(
        &self,
        v: VertexId,
        b: u64,
        bytes: &[u8],
        wbytes: Option<&[u8]>,
        local: &mut Local,
    ) -> Result<()> {
        let mut scratch = std::mem::take(&mut local.scratch);
        let r = match wbytes {
            None => match self.adj.list_in_block(v, b, bytes, &mut scratch) {
                Ok(Some(piece)) => self.graph.check_list(v, piece.ids).map(|()| {
                    self.call(v, piece.ids, None, piece.first, piece.degree, local);
                }),
                Ok(None) => Ok(()),
                Err(e) => Err(e),
            },
            Some(wb) => {
                let mut wscratch = std::mem::take(&mut local.wscratch);
                let r = match self.adj.weighted_list_in_block(
                    v,
                    b,
                    bytes,
                    wb,
                    &mut scratch,
                    &mut wscratch,
                ) {
                    Ok(Some((piece, ws))) => self.graph.check_list(v, piece.ids).map(|()| {
                        self.call(v, piece.ids, Some(ws), piece.first, piece.degree, local);
                    }),
                    Ok(None) => Ok(()),
                    Err(e) => Err(e),
                };
                local.wscratch = wscratch;
                r
            }
        };
        local.scratch = scratch;
        r
    }
}

/// Vertex mode: each active vertex fetches its own blocks.
pub(super) fn vertex_worker<F>(reader: &mut CacheReader<'_>, ctx: &StepCtx<'_, F>) -> Result<Local>
where
    F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
{
    let local = RefCell::new(Local::default());
    let pending = RefCell::new(Pending::default());
    let failed: RefCell<Option<Error>> = RefCell::new(None);
    let mut batch = Vec::new();
    let mut at = 0;
    let mut queue: VecDeque<BlockKey> = VecDeque::new();
    let keys = std::iter::from_fn(|| loop {
        if let Some(k) = queue.pop_front() {
            return Some(k);
        }
        if at >= batch.len() {
            at = 0;
            if !ctx.claim(&mut batch) {
                return None;
            }
            continue;
        }
        let v = batch[at];
        at += 1;
        match ctx.inline(v, &mut local.borrow_mut()) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => {
                ctx.abort.store(true, Ordering::Relaxed);
                failed.borrow_mut().get_or_insert(e);
                return None;
            }
        }
        if let Some((a, b)) = ctx.adj.block_range(v) {
            for blk in a..=b {
                let k = BlockKey(ctx.base + blk);
                pending.borrow_mut().push(k.0, v);
                queue.push_back(k);
            }
        }
    });
    let r = reader.fetch_iter(keys, |pin| {
        let key = pin.key();
        let v = pending.borrow_mut().pop(key).ok_or_else(|| {
            Error::Invalid(format!(
                "block key {key} arrived but no vertex asked for it"
            ))
        })?;
        ctx.deliver(
            v,
            key - ctx.base,
            pin.bytes(),
            None,
            &mut local.borrow_mut(),
        )
    });
    if let Err(e) = r {
        ctx.abort.store(true, Ordering::Relaxed);
        return Err(e);
    }
    if let Some(e) = failed.into_inner() {
        return Err(e);
    }
    Ok(local.into_inner())
}

/// Block mode, pass 1: visit inline lists, record membership of a sparse
/// frontier, mark the blocks the frontier needs.
/// With `need` (`None` when every block is walked, see
/// [`block_worker`]'s `filter`).
pub(super) fn plan_worker<F>(ctx: &StepCtx<'_, F>, need: Option<&AtomicBitmap>) -> Result<Local>
where
    F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
{
    let mut local = Local::default();
    let mut batch = Vec::new();
    let sparse = matches!(ctx.frontier, Frontier::Sparse(_));
    while ctx.claim(&mut batch) {
        for &v in &batch {
            if ctx.inline(v, &mut local)? {
                continue;
            }
            let Some(need) = need else {
                continue;
            };
            if let Some((a, b)) = ctx.adj.block_range(v) {
                if sparse {
                    ctx.cur_bits.insert(v as u64);
                }
                for blk in a..=b {
                    // Neighbouring vertices share blocks: a load spares
                    // most of the locked read-modify-writes.
                    if !need.contains(blk) {
                        need.insert(blk);
                    }
                }
            }
        }
    }
    Ok(local)
}

/// Block mode, pass 2: read each needed block once and visit every active
/// vertex with neighbours in it. In a weighted step each block's weight
/// block is asked for right after it, and the block is visited when both
/// have landed (the pool holds at least four slots a read in flight, so
/// the first to land waits for the other without starving the reads).
///
/// With `filter`, a block none of whose vertices is in the frontier is
/// skipped before it is asked for (a dense frontier walks every block so
/// instead of planning them: the reads start at once).
pub(super) fn block_worker<F>(
    reader: &mut CacheReader<'_>,
    ctx: &StepCtx<'_, F>,
    map: &BlockMap,
    blocks: &[u64],
    filter: bool,
) -> Result<Local>
where
    F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
{
    let mut local = Local::default();
    let mut mine: &[u64] = &[];
    // A weighted step's weight key, asked for after its edge block's.
    let mut wnext: Option<BlockKey> = None;
    let keys = std::iter::from_fn(|| loop {
        if let Some(k) = wnext.take() {
            return Some(k);
        }
        if let Some((&b, rest)) = mine.split_first() {
            mine = rest;
            if filter && !map.vertices(b).any(|v| ctx.member(v)) {
                continue;
            }
            wnext = ctx.wbase.map(|w| BlockKey(w + b));
            return Some(BlockKey(ctx.base + b));
        }
        if ctx.abort.load(Ordering::Relaxed) || crate::interrupt::requested() {
            return None;
        }
        let lo = ctx.cursor.fetch_add(GRAB_UNITS, Ordering::Relaxed);
        if lo >= blocks.len() {
            return None;
        }
        mine = &blocks[lo..(lo + GRAB_UNITS).min(blocks.len())];
    });
    let visit = |b: u64, bytes: &[u8], wbytes: Option<&[u8]>, local: &mut Local| {
        for v in map.vertices(b) {
            if ctx.member(v) {
                ctx.deliver(v, b, bytes, wbytes, local)?;
            } else if let Some(eager) = ctx.eager {
                if ctx.whole_list_in(v, b) && eager(v) {
                    ctx.deliver(v, b, bytes, wbytes, local)?;
                }
            }
        }
        Ok(())
    };
    // A weighted step's blocks of which one half has landed.
    let mut halves: HashMap<u64, (Option<Pinned<'_>>, Option<Pinned<'_>>)> = HashMap::new();
    let r = reader.fetch_iter(keys, |pin| {
        let key = pin.key();
        let Some(wbase) = ctx.wbase else {
            return visit(key - ctx.base, pin.bytes(), None, &mut local);
        };
        let (b, is_weight) = if key >= wbase && key < wbase + ctx.adj.block_count() {
            (key - wbase, true)
        } else {
            (key - ctx.base, false)
        };
        let e = halves.entry(b).or_default();
        if is_weight {
            e.1 = Some(pin);
        } else {
            e.0 = Some(pin);
        }
        if let (Some(_), Some(_)) = e {
            if let Some((Some(ep), Some(wp))) = halves.remove(&b) {
                return visit(b, ep.bytes(), Some(wp.bytes()), &mut local);
            }
        }
        Ok(())
    });
    if let Err(e) = r {
        ctx.abort.store(true, Ordering::Relaxed);
        return Err(e);
    }
    Ok(local)
}

/// Vertices waiting for each block key (vertex mode): a multimap as an
/// intrusive list per key, so a step allocates nothing per request.
#[derive(Default)]
struct Pending {
    heads: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    nodes: Vec<(VertexId, u32)>,
    free: Vec<u32>,
}

const NIL: u32 = u32::MAX;

impl Pending {
    fn push(&mut self, key: u64, v: VertexId) {
        let next = self.heads.get(&key).copied().unwrap_or(NIL);
        let i = match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = (v, next);
                i
            }
            None => {
                self.nodes.push((v, next));
                (self.nodes.len() - 1) as u32
            }
        };
        self.heads.insert(key, i);
    }

    fn pop(&mut self, key: u64) -> Option<VertexId> {
        let i = *self.heads.get(&key)?;
        let (v, next) = self.nodes[i as usize];
        if next == NIL {
            self.heads.remove(&key);
        } else {
            self.heads.insert(key, next);
        }
        self.free.push(i);
        Some(v)
    }
}

/// A multiplicative hash for dense integer keys.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (x ^ (x >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
