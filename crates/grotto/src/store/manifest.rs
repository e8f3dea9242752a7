//! Byte layout of what an update adds to a graph file (format version 6):
//! the manifest section's two slots and the delta runs they list. How
//! they are written, and in which order, is in [`super::update`];
//! `docs/format.md` ("Updates") says the same in prose.
//!
//! A slot (4096 bytes) names the runs in force and the graph's counts
//! after them; the valid slot with the higher sequence number wins, so a
//! commit switches from one version to the next with one synced write of
//! the other slot, and a torn write leaves the older slot in force.
//!
//! A run holds one commit's net changes: sorted arc keys inserted and
//! deleted in each adjacency, and the fences of the spanning base lists
//! they touch (see [`super::delta`]). A weighted graph's run (magic
//! [`WEIGHTED_RUN_MAGIC`]) ends with the weight of every insert, and may
//! delete and insert one arc: a base arc given a new weight. A run that
//! adds vertices to a graph with an id map or names carries their keys
//! ([`NewKeys`]; flag bits in the magic's last byte, 16 more bytes of
//! head, and the keys after everything else).

use super::delta::NetOps;
use super::format::BLOCK_BYTES;
use super::header::{get_u32, get_u64, put_u32, put_u64};
use crate::VertexId;

/// First eight bytes of a valid manifest slot.
pub const SLOT_MAGIC: [u8; 8] = *b"GRMANIF\x01";
/// First eight bytes of a delta run.
pub const RUN_MAGIC: [u8; 8] = *b"GRDELTA\x01";
/// First eight bytes of a delta run with weights (a weighted graph's).
pub const WEIGHTED_RUN_MAGIC: [u8; 8] = *b"GRDELTA\x02";
/// The manifest section: two slots.
pub const MANIFEST_BYTES: u64 = 2 * BLOCK_BYTES as u64;
const SLOT_FIXED: usize = 64;
const RUN_ROW: usize = 24;
const SLOT_CRC_AT: usize = BLOCK_BYTES - 4;
/// Most runs one manifest lists; a commit past it folds them into one.
pub const MAX_RUNS: usize = (SLOT_CRC_AT - SLOT_FIXED) / RUN_ROW;
const RUN_FIXED: usize = 64;
/// The head of a run that carries new keys: the fixed part, the number
/// of keys and the bytes of their names.
const RUN_FIXED_KEYED: usize = RUN_FIXED + 16;
/// Flag in the magic's last byte: the run carries new ids.
const KEYS_IDS: u8 = 0x10;
/// Flag in the magic's last byte: the run carries new names.
const KEYS_NAMES: u8 = 0x20;

/// Where a run lies in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunRef {
    /// Byte offset, a multiple of 4096.
    pub offset: u64,
    /// Length in bytes, without padding.
    pub length: u64,
    /// CRC-32C of the run's bytes.
    pub crc: u32,
}

/// One manifest slot, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// Higher wins.
    pub seq: u64,
    /// The CRC of the header this slot belongs to (a slot copied from
    /// another file does not count).
    pub header_crc: u32,
    /// Vertices after the runs.
    pub vertices: u64,
    /// Edges after the runs.
    pub edges: u64,
    /// Out-adjacency entries after the runs.
    pub out_entries: u64,
    /// The runs, oldest first.
    pub runs: Vec<RunRef>,
}

/// The commit number a slot's bytes name where its magic is intact,
/// whether or not its checksum holds (to describe a damaged slot).
pub fn raw_seq(b: &[u8]) -> Option<u64> {
    (b.len() == BLOCK_BYTES && b[..8] == SLOT_MAGIC).then(|| get_u64(b, 8))
}

impl Manifest {
    /// The slot's 4096 bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; BLOCK_BYTES];
        b[..8].copy_from_slice(&SLOT_MAGIC);
        put_u64(&mut b, 8, self.seq);
        put_u32(&mut b, 16, self.header_crc);
        put_u32(&mut b, 20, self.runs.len() as u32);
        put_u64(&mut b, 24, self.vertices);
        put_u64(&mut b, 32, self.edges);
        put_u64(&mut b, 40, self.out_entries);
        for (i, r) in self.runs.iter().enumerate() {
            let at = SLOT_FIXED + i * RUN_ROW;
            put_u64(&mut b, at, r.offset);
            put_u64(&mut b, at + 8, r.length);
            put_u32(&mut b, at + 16, r.crc);
        }
        let crc = crc32c::crc32c(&b[..SLOT_CRC_AT]);
        put_u32(&mut b, SLOT_CRC_AT, crc);
        b
    }

    /// Decodes a slot: `Ok(None)` when it holds no valid manifest (never
    /// written, or torn: magic or checksum wrong), an error when its
    /// checksum is right but its fields are not.
    pub fn decode(b: &[u8]) -> Result<Option<Manifest>, String> {
        if b.len() != BLOCK_BYTES
            || b[..8] != SLOT_MAGIC
            || crc32c::crc32c(&b[..SLOT_CRC_AT]) != get_u32(b, SLOT_CRC_AT)
        {
            return Ok(None);
        }
        let n = get_u32(b, 20) as usize;
        if n > MAX_RUNS {
            return Err(format!("manifest lists {n} runs, at most {MAX_RUNS} fit"));
        }
        if let Some(i) = (48..SLOT_FIXED)
            .chain(SLOT_FIXED + n * RUN_ROW..SLOT_CRC_AT)
            .find(|&i| b[i] != 0)
        {
            return Err(format!("manifest byte {i} is reserved but not zero"));
        }
        let runs = (0..n)
            .map(|i| {
                let at = SLOT_FIXED + i * RUN_ROW;
                RunRef {
                    offset: get_u64(b, at),
                    length: get_u64(b, at + 8),
                    crc: get_u32(b, at + 16),
                }
            })
            .collect::<Vec<_>>();
        if let Some(i) = (0..n).find(|&i| get_u32(b, SLOT_FIXED + i * RUN_ROW + 20) != 0) {
            return Err(format!("manifest run row {i}: reserved word is not zero"));
        }
        Ok(Some(Manifest {
            seq: get_u64(b, 8),
            header_crc: get_u32(b, 16),
            vertices: get_u64(b, 24),
            edges: get_u64(b, 32),
            out_entries: get_u64(b, 40),
            runs,
        }))
    }
}

/// A run's fences: for the spanning base list of `v` in adjacency `dir`
/// (0 out, 1 in), the first base id of each of its blocks after the first.
pub type Fences = Vec<(u8, VertexId, Vec<VertexId>)>;

/// The keys of the vertices runs add to a graph whose vertices have keys
/// (the user's ids in an id map, or names), in the order of their
/// internal ids: the first is the vertex count before them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum NewKeys {
    /// None: a graph with dense ids adds vertices without keys.
    #[default]
    None,
    /// User ids new to the id map.
    Ids(Vec<u64>),
    /// Names new to the name table.
    Names(Vec<String>),
}

impl NewKeys {
    /// How many keys.
    pub fn len(&self) -> usize {
        match self {
            NewKeys::None => 0,
            NewKeys::Ids(v) => v.len(),
            NewKeys::Names(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `later`'s keys (a later run's): both must be of one kind.
    pub fn extend(&mut self, later: NewKeys) -> Result<(), String> {
        match (&mut *self, later) {
            (_, NewKeys::None) => {}
            (NewKeys::None, l) => *self = l,
            (NewKeys::Ids(a), NewKeys::Ids(b)) => a.extend(b),
            (NewKeys::Names(a), NewKeys::Names(b)) => a.extend(b),
            _ => return Err("runs add both ids and names".into()),
        }
        Ok(())
    }

    /// The flag bits in a run's magic.
    fn flag(&self) -> u8 {
        match self {
            NewKeys::None => 0,
            NewKeys::Ids(_) => KEYS_IDS,
            NewKeys::Names(_) => KEYS_NAMES,
        }
    }

    /// Bytes of the names (0 for ids).
    fn name_bytes(&self) -> usize {
        match self {
            NewKeys::Names(v) => v.iter().map(String::len).sum(),
            _ => 0,
        }
    }

    /// The bytes at a run's end: ids as u64, or names as u32 lengths
    /// and then their bytes.
    fn encode(&self, b: &mut Vec<u8>) {
        match self {
            NewKeys::None => {}
            NewKeys::Ids(v) => b.extend_from_slice(bytemuck::cast_slice(v)),
            NewKeys::Names(v) => {
                for s in v {
                    b.extend_from_slice(&(s.len() as u32).to_le_bytes());
                }
                for s in v {
                    b.extend_from_slice(s.as_bytes());
                }
            }
        }
    }

    /// Reads `k` keys of the kind `flag` says from `b`, which they fill.
    fn decode(flag: u8, k: usize, b: &[u8]) -> Result<NewKeys, String> {
        Ok(match flag {
            KEYS_IDS => NewKeys::Ids(b.chunks_exact(8).map(|c| get_u64(c, 0)).collect()),
            KEYS_NAMES => {
                let (lens, mut text) = b.split_at(4 * k);
                let mut names = Vec::with_capacity(k);
                for c in lens.chunks_exact(4) {
                    let len = get_u32(c, 0) as usize;
                    if len > text.len() {
                        return Err("delta run: its new names overrun it".into());
                    }
                    let (name, rest) = text.split_at(len);
                    let name = std::str::from_utf8(name)
                        .map_err(|_| "delta run: a new name is not UTF-8 text".to_string())?;
                    names.push(name.to_string());
                    text = rest;
                }
                if !text.is_empty() {
                    return Err("delta run: its new names do not fill it".into());
                }
                NewKeys::Names(names)
            }
            _ => NewKeys::None,
        })
    }
}

/// One commit's changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    /// Vertices after this run.
    pub vertices: u64,
    /// Out-adjacency changes.
    pub out: NetOps,
    /// In-adjacency changes (graphs with reverse edges).
    pub inn: NetOps,
    /// Fences, sorted by (dir, vertex).
    pub fences: Fences,
    /// The keys of the vertices the run adds, when the graph's vertices
    /// have keys.
    pub keys: NewKeys,
}

impl Run {
    /// Whether the run carries weights (those of a weighted graph's
    /// inserts).
    pub fn weighted(&self) -> bool {
        !self.out.ins_w.is_empty() || !self.inn.ins_w.is_empty()
    }

    /// The run's bytes (unpadded).
    pub fn encode(&self) -> Vec<u8> {
        let arrays = [&self.out.ins, &self.out.del, &self.inn.ins, &self.inn.del];
        let ids: usize = self.fences.iter().map(|f| f.2.len()).sum();
        let keys: usize = arrays.iter().map(|a| a.len()).sum();
        let weights = if self.weighted() {
            4 * (self.out.ins.len() + self.inn.ins.len())
        } else {
            0
        };
        let mut b = Vec::with_capacity(
            RUN_FIXED_KEYED + 8 * keys + 16 * self.fences.len() + 4 * ids + weights,
        );
        let mut magic = if weights > 0 {
            WEIGHTED_RUN_MAGIC
        } else {
            RUN_MAGIC
        };
        magic[7] |= self.keys.flag();
        b.extend_from_slice(&magic);
        b.extend_from_slice(&self.vertices.to_le_bytes());
        for a in arrays {
            b.extend_from_slice(&(a.len() as u64).to_le_bytes());
        }
        b.extend_from_slice(&(self.fences.len() as u64).to_le_bytes());
        b.extend_from_slice(&(ids as u64).to_le_bytes());
        if self.keys.flag() != 0 {
            b.extend_from_slice(&(self.keys.len() as u64).to_le_bytes());
            b.extend_from_slice(&(self.keys.name_bytes() as u64).to_le_bytes());
        }
        for a in arrays {
            b.extend_from_slice(bytemuck::cast_slice(a));
        }
        for (dir, v, f) in &self.fences {
            b.extend_from_slice(&(((*dir as u64) << 32) | *v as u64).to_le_bytes());
            b.extend_from_slice(&(f.len() as u64).to_le_bytes());
        }
        for (_, _, f) in &self.fences {
            b.extend_from_slice(bytemuck::cast_slice(f));
        }
        if weights > 0 {
            // An adjacency without inserts has no weights to give.
            for ops in [&self.out, &self.inn] {
                let mut w = ops.ins_w.clone();
                w.resize(ops.ins.len(), 0.0);
                b.extend_from_slice(bytemuck::cast_slice(&w));
            }
        }
        self.keys.encode(&mut b);
        b
    }

    /// Decodes and checks a run's bytes (their checksum was checked by the
    /// caller): see [`RunView::parse`].
    pub fn decode(b: &[u8]) -> Result<Run, String> {
        let mut words = vec![0u64; b.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..b.len()].copy_from_slice(b);
        let r = RunView::parse(&words, b.len())?;
        let ops = |i: usize| NetOps {
            ins: r.keys[i].to_vec(),
            del: r.keys[i + 1].to_vec(),
            ins_w: r.weights(&words, i / 2).to_vec(),
        };
        Ok(Run {
            vertices: r.vertices,
            out: ops(0),
            inn: ops(2),
            fences: r.fences,
            keys: r.new_keys,
        })
    }
}

/// A run checked where it was read: its keys are borrowed from the words
/// holding its bytes, so opening a graph copies none of them.
#[derive(Debug)]
pub struct RunView<'a> {
    /// Vertices after this run.
    pub vertices: u64,
    /// Keys inserted into and deleted from the out-lists, then the
    /// in-lists, each sorted.
    pub keys: [&'a [u64]; 4],
    /// Where each of `keys` lies in the words.
    pub at: [std::ops::Range<usize>; 4],
    /// A weighted run's: where the weights of the out- and the
    /// in-inserts lie in the words' bytes read as `f32` (else empty).
    pub w_at: [std::ops::Range<usize>; 2],
    /// Fences, sorted by (dir, vertex).
    pub fences: Fences,
    /// The keys of the vertices the run adds (a graph with an id map or
    /// names).
    pub new_keys: NewKeys,
}

impl<'a> RunView<'a> {
    /// Checks the run whose `len` bytes start `words` (the last word
    /// padded with anything): lengths, keys strictly increasing and below
    /// the vertex count, a key never both inserted and deleted (unless
    /// the run is weighted: a new weight), fences sorted.
    pub fn parse(words: &'a [u64], len: usize) -> Result<RunView<'a>, String> {
        let b = bytemuck::cast_slice::<u64, u8>(words);
        if len > b.len() || len < RUN_FIXED {
            return Err("delta run: bad magic".into());
        }
        let flags = b[7];
        let (kind, key_flag) = (flags & 0x0f, flags & 0xf0);
        let weighted = match (&b[..7], kind, key_flag) {
            (m, 1, 0 | KEYS_IDS | KEYS_NAMES) if m == &RUN_MAGIC[..7] => false,
            (m, 2, 0 | KEYS_IDS | KEYS_NAMES) if m == &RUN_MAGIC[..7] => true,
            _ => return Err("delta run: bad magic".into()),
        };
        let fixed = if key_flag != 0 {
            RUN_FIXED_KEYED
        } else {
            RUN_FIXED
        };
        if len < fixed {
            return Err("delta run: bad magic".into());
        }
        let b = &b[..len];
        let vertices = get_u64(b, 8);
        let counts: Vec<u64> = (0..6).map(|i| get_u64(b, 16 + 8 * i)).collect();
        let weights = if weighted {
            counts[0].checked_add(counts[2])
        } else {
            Some(0)
        };
        // The new keys' bytes, at the end.
        let (nk, name_bytes) = if key_flag != 0 {
            (get_u64(b, RUN_FIXED), get_u64(b, RUN_FIXED + 8))
        } else {
            (0, 0)
        };
        let tail = match key_flag {
            KEYS_IDS if name_bytes == 0 => nk.checked_mul(8),
            KEYS_NAMES => nk.checked_mul(4).and_then(|t| t.checked_add(name_bytes)),
            0 => Some(0),
            _ => None,
        };
        let need = counts[..4]
            .iter()
            .try_fold(fixed as u64, |s, &c| s.checked_add(c.checked_mul(8)?))
            .and_then(|s| s.checked_add(counts[4].checked_mul(16)?))
            .and_then(|s| s.checked_add(counts[5].checked_mul(4)?))
            .and_then(|s| s.checked_add(weights?.checked_mul(4)?))
            .and_then(|s| s.checked_add(tail?));
        if need != Some(b.len() as u64) {
            return Err(format!(
                "delta run: {} bytes, its counts call for {need:?}",
                b.len()
            ));
        }
        let tail = tail.unwrap_or(0) as usize;
        let new_keys = NewKeys::decode(key_flag, nk as usize, &b[b.len() - tail..])?;
        let b = &b[..b.len() - tail];
        // The key arrays follow the fixed part, each a whole number of words.
        let mut w = fixed / 8;
        let at: [std::ops::Range<usize>; 4] = std::array::from_fn(|i| {
            let r = w..w + counts[i] as usize;
            w = r.end;
            r
        });
        let keys: [&[u64]; 4] = std::array::from_fn(|i| &words[at[i].clone()]);
        for k in keys {
            check_keys(k, vertices)?;
        }
        for (ins, del) in [(keys[0], keys[1]), (keys[2], keys[3])] {
            if let Some(k) = first_common(ins, del).filter(|_| !weighted) {
                return Err(format!(
                    "delta run: arc {} -> {} is both inserted and deleted",
                    k >> 32,
                    k as u32
                ));
            }
        }
        // The weights (if any) end the run; the fences come before them.
        let nw = if weighted {
            (counts[0] + counts[2]) as usize
        } else {
            0
        };
        let w0 = (b.len() - 4 * nw) / 4;
        let w_at = if weighted {
            let mid = w0 + counts[0] as usize;
            [w0..mid, mid..mid + counts[2] as usize]
        } else {
            [0..0, 0..0]
        };
        let rows = counts[4] as usize;
        let mut at_b = b.len() - 4 * nw - 16 * rows - 4 * counts[5] as usize;
        let mut heads = Vec::with_capacity(rows);
        let mut total = 0u64;
        for i in 0..rows {
            let k = get_u64(b, at_b + 16 * i);
            let c = get_u64(b, at_b + 16 * i + 8);
            if k >> 32 > 1 || (k as u32 as u64) >= vertices {
                return Err(format!("delta run: fence row {i} names no list"));
            }
            if heads.last().is_some_and(|&(p, _)| p >= k) {
                return Err("delta run: fence rows are not sorted".into());
            }
            total = total.saturating_add(c);
            heads.push((k, c));
        }
        if total != counts[5] {
            return Err("delta run: fence rows do not add up to its fences".into());
        }
        at_b += 16 * rows;
        let mut fences = Vec::with_capacity(rows);
        for (k, c) in heads {
            let f: Vec<VertexId> = (0..c as usize).map(|i| get_u32(b, at_b + 4 * i)).collect();
            at_b += 4 * c as usize;
            fences.push(((k >> 32) as u8, k as VertexId, f));
        }
        Ok(RunView {
            vertices,
            keys,
            at,
            w_at,
            fences,
            new_keys,
        })
    }

    /// The weights of the inserts of adjacency `dir` (0 out, 1 in) of a
    /// weighted run, read from `words`, the words it was parsed from
    /// (empty for an unweighted run).
    pub fn weights<'w>(&self, words: &'w [u64], dir: usize) -> &'w [f32] {
        &bytemuck::cast_slice::<u64, f32>(words)[self.w_at[dir].clone()]
    }
}

/// Checks arc keys: strictly increasing, both ends below `vertices`. The
/// checks run as branch-free folds over pieces, on all threads: a run of a
/// few percent of a large graph holds millions of keys, and every open of
/// the graph checks them.
fn check_keys(v: &[u64], vertices: u64) -> Result<(), String> {
    use rayon::prelude::*;
    // Each piece checks its own order and the step into the next piece.
    const PIECE: usize = 1 << 16;
    let (sorted, top) = v
        .par_chunks(PIECE)
        .enumerate()
        .map(|(i, c)| {
            let mut sorted = c.windows(2).fold(true, |ok, w| ok & (w[0] < w[1]));
            if let (Some(&last), Some(&next)) = (c.last(), v.get((i + 1) * PIECE)) {
                sorted &= last < next;
            }
            (sorted, c.iter().fold(0u32, |m, &k| m.max(k as u32)))
        })
        .reduce(|| (true, 0), |a, b| (a.0 && b.0, a.1.max(b.1)));
    if !sorted {
        return Err("delta run: keys are not strictly increasing".into());
    }
    let last_source = v.last().map_or(0, |&k| k >> 32);
    if !v.is_empty() && (last_source >= vertices || top as u64 >= vertices) {
        let k = v
            .iter()
            .find(|&&k| (k >> 32) >= vertices || (k as u32 as u64) >= vertices)
            .copied()
            .unwrap_or(0);
        return Err(format!(
            "delta run: arc {} -> {} names a vertex beyond {vertices}",
            k >> 32,
            k as u32
        ));
    }
    Ok(())
}

/// A key in both sorted arrays, if any.
fn first_common(a: &[u64], b: &[u64]) -> Option<u64> {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return Some(a[i]),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn slots_round_trip_and_torn_slots_do_not_count() {
        let m = Manifest {
            seq: 7,
            header_crc: 0xdead_beef,
            vertices: 10,
            edges: 12,
            out_entries: 24,
            runs: vec![RunRef {
                offset: 8192,
                length: 100,
                crc: 5,
            }],
        };
        let b = m.encode();
        assert_eq!(Manifest::decode(&b), Ok(Some(m)));
        let mut torn = b.clone();
        torn[100] ^= 1;
        assert_eq!(Manifest::decode(&torn), Ok(None));
        assert_eq!(Manifest::decode(&vec![0u8; BLOCK_BYTES]), Ok(None));
    }

    proptest! {
        #[test]
        fn runs_round_trip(
            ins in proptest::collection::btree_set((0u64..50, 0u64..50), 0..40),
            del in proptest::collection::btree_set((50u64..60, 0u64..50), 0..40),
            f in proptest::collection::vec(0u32..50, 0..9),
            cut in 0usize..4000,
            weighted in any::<bool>(),
            kind in 0u8..3,
            names in proptest::collection::vec("[a-zé\\PC]{0,6}", 0..7),
        ) {
            let keys = |s: &std::collections::BTreeSet<(u64, u64)>| s.iter().map(|&(v, u)| (v << 32) | u).collect::<Vec<_>>();
            let w = |n: usize| if weighted { (0..n).map(|i| i as f32 * 0.25).collect() } else { vec![] };
            // A weighted run may delete and insert one arc (a new weight).
            let mut out_del = keys(&del);
            if weighted {
                out_del.extend(keys(&ins).into_iter().step_by(3));
                out_del.sort_unstable();
            }
            let r = Run {
                vertices: 60,
                out: NetOps { ins: keys(&ins), del: out_del, ins_w: w(ins.len()) },
                inn: NetOps { ins: keys(&del), del: vec![], ins_w: w(del.len()) },
                fences: vec![(0, 3, f.clone()), (1, 4, f)],
                keys: match kind {
                    0 => NewKeys::None,
                    1 => NewKeys::Ids(names.iter().map(|s| s.len() as u64 * 977).collect()),
                    _ => NewKeys::Names(names),
                },
            };
            let b = r.encode();
            prop_assert_eq!(Run::decode(&b), Ok(r));
            // A cut run never decodes (and never panics).
            if cut < b.len() {
                prop_assert!(Run::decode(&b[..cut]).is_err());
            }
        }
    }

    #[test]
    fn bad_keys_are_refused_wherever_they_lie() {
        // More keys than one checking piece, so that the step between
        // two pieces is checked too.
        let n = 3 * (1 << 16) + 5;
        let good: Vec<u64> = (0..n as u64).map(|i| ((i / 7) << 32) | (i % 7)).collect();
        let vertices = n as u64 / 7 + 1;
        let run = |ins: Vec<u64>, del: Vec<u64>| {
            Run::decode(
                &Run {
                    vertices,
                    out: NetOps {
                        ins,
                        del,
                        ins_w: vec![],
                    },
                    ..Run::default()
                }
                .encode(),
            )
        };
        assert!(run(good.clone(), vec![]).is_ok());
        for at in [1, 1 << 16, 2 << 16, n - 1] {
            let mut bad = good.clone();
            bad.swap(at - 1, at);
            let e = run(bad, vec![]).unwrap_err();
            assert!(e.contains("not strictly increasing"), "{at}: {e}");
            let mut dup = good.clone();
            dup[at] = dup[at - 1];
            assert!(run(vec![], dup).is_err(), "{at}");
        }
        let mut far = good.clone();
        far[1000] = (142 << 32) | vertices;
        let e = run(far, vec![]).unwrap_err();
        assert!(e.contains(&format!("arc 142 -> {vertices}")), "{e}");
        let mut past = good.clone();
        past.push(vertices << 32);
        assert!(run(past, vec![]).unwrap_err().contains("beyond"));
        let e = run(good.clone(), vec![good[77]]).unwrap_err();
        assert!(e.contains("both inserted and deleted"), "{e}");
        // A weighted run may (a new weight); its weights are counted.
        let weighted = Run {
            vertices,
            out: NetOps {
                ins: good.clone(),
                del: vec![good[77]],
                ins_w: vec![1.5; good.len()],
            },
            ..Run::default()
        };
        let b = weighted.encode();
        assert_eq!(Run::decode(&b), Ok(weighted));
        assert!(Run::decode(&b[..b.len() - 4]).is_err());
    }

    #[test]
    fn hostile_counts_are_refused_before_allocating() {
        let mut b = Run::default().encode();
        b[16..24].copy_from_slice(&(u64::MAX / 4).to_le_bytes());
        assert!(Run::decode(&b).is_err());
    }
}
