//! Loading one adjacency from an open file: its metadata sections read
//! and checksummed, and every index entry, huge-table row and block-map
//! pair checked against the format's rules before anything is trusted.

use super::adjacency::{Adjacency, PACKED_LOW_BITS};
use super::blockmap::{
    block_span, check_coded_piece, code_piece, run_starts, BlockMap, CodedPiece,
};
use super::codec::MAX_IDS_PER_BLOCK;
use super::format::*;
use super::graph::Direction;
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::OnceLock;

pub(super) fn corrupt(path: &Path, what: String) -> Error {
    Error::Corrupt {
        path: path.to_path_buf(),
        what,
    }
}

pub(super) fn required(h: &Header, kind: SectionKind, path: &Path) -> Result<Section> {
    h.section(kind)
        .copied()
        .ok_or_else(|| corrupt(path, format!("section {} is missing", kind.name())))
}

/// The error of a failed read of section `s`: cut short, or the I/O
/// error.
fn read_error(path: &Path, s: &Section, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        Error::Truncated {
            path: path.into(),
            what: format!("section {} is cut short", s.kind.name()),
        }
    } else {
        Error::io(path, format!("read section {}", s.kind.name()), e)
    }
}

/// Reads section `s` with its padding into `bytes` and checks its CRC.
fn read_section(file: &File, path: &Path, s: &Section, bytes: &mut [u8]) -> Result<()> {
    let crc = crate::io::section::read_exact_at_with_crc(file, bytes, s.offset)
        .map_err(|e| read_error(path, s, e))?;
    if crc != s.crc {
        return Err(corrupt(
            path,
            format!("section {} fails its checksum", s.kind.name()),
        ));
    }
    Ok(())
}

/// Reads a metadata section with its padding and checks its CRC.
pub(super) fn read_checked(file: &File, path: &Path, s: &Section) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; padded(s.length) as usize];
    read_section(file, path, s, &mut buf)?;
    Ok(buf)
}

/// [`read_checked`] into a vector of `T` (the section's length a
/// multiple of its size), read in place: no second copy of a large
/// section, such as the index, is ever held.
pub(super) fn read_checked_as<T: bytemuck::Pod>(
    file: &File,
    path: &Path,
    s: &Section,
) -> Result<Vec<T>> {
    let size = std::mem::size_of::<T>();
    // Huge pages: a fault per 2 MiB, not per 4 KiB, as the read fills it.
    let words = (padded(s.length) as usize).div_ceil(size);
    let mut v: Vec<T> = crate::io::huge::zeroed_vec(words).ok_or_else(|| Error::Limit {
        what: format!(
            "{}: section {} ({} bytes) does not fit in memory",
            path.display(),
            s.kind.name(),
            s.length
        ),
    })?;
    let bytes = &mut bytemuck::cast_slice_mut::<T, u8>(&mut v)[..padded(s.length) as usize];
    read_section(file, path, s, bytes)?;
    v.truncate(s.length as usize / size);
    Ok(v)
}

pub(super) fn load_adjacency(
    file: &File,
    path: &Path,
    h: &Header,
    dir: Direction,
) -> Result<Adjacency> {
    let [kb, kw, ki, kc, kt, kh, km] = SectionKind::adjacency(dir == Direction::In);
    let n = h.vertex_count;
    // Presence and sizes were checked with the header's fields
    // (`Header::check_fields`).
    let blocks = required(h, kb, path)?;
    let weights = if h.weighted() {
        Some(required(h, kw, path)?)
    } else {
        None
    };
    let si = required(h, ki, path)?;
    let sc = required(h, kc, path)?;
    let st = required(h, kt, path)?;
    let sh = required(h, kh, path)?;

    let index: Vec<u64> = read_checked_as(file, path, &si)?;
    let crcs: Vec<u32> = read_checked_as(file, path, &sc)?;
    let tags = read_checked(file, path, &st)?[..st.length as usize].to_vec();
    let hb = read_checked(file, path, &sh)?;
    let flat: Vec<u64> = bytemuck::pod_collect_to_vec(&hb[..sh.length as usize]);
    let packed = h.packed();
    let width = if packed { 3 } else { 2 };
    let huge: Vec<(u64, u64)> = flat.chunks_exact(width).map(|c| (c[0], c[1])).collect();
    let huge_blocks: Vec<u64> = if packed {
        flat.chunks_exact(3).map(|c| c[2]).collect()
    } else {
        Vec::new()
    };
    if huge.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err(corrupt(
            path,
            format!("section {} is not sorted", kh.name()),
        ));
    }
    if let Some(&(v, d)) = huge.iter().find(|&&(v, d)| v >= n || d <= ENTRY_MAX_DEGREE) {
        return Err(corrupt(
            path,
            format!(
                "section {} lists vertex {v} with degree {d}: the table is for vertices below {n} \
                 with more than {ENTRY_MAX_DEGREE} neighbours",
                kh.name()
            ),
        ));
    }

    // Every entry must describe a list inside the blocks, laid out by the
    // format's rules; this is what later readers rely on.
    let slots = blocks.count * SLOTS_PER_BLOCK as u64;
    let cap = SLOTS_PER_BLOCK as u64;
    let mut entries = 0u64;
    // (block, vertex) pairs the block map must hold.
    let mut pairs = 0u64;
    // Huge entries seen: every row of the huge table must have one.
    let mut huge_used = 0u64;
    let inline = h.flags & FLAG_INLINE_SMALL != 0;
    let multi = h.flags & FLAG_MULTI != 0;
    // Bits an entry's encoding leaves unused (written as zeros).
    const ONE_SPARE: u64 = ((1 << 62) - 1) & !(u32::MAX as u64);
    const HUGE_SPARE: u64 = ((1 << 62) - 1) & !ENTRY_MAX_OFFSET;
    if packed {
        if let Some(b) = tags.iter().position(|&t| t != TAG_PACKED && t != TAG_SPAN) {
            return Err(corrupt(
                path,
                format!(
                    "{} block {b} has encoding tag {} which this grotto does not know",
                    kb.name(),
                    tags[b]
                ),
            ));
        }
    }
    let nb = blocks.count;
    // Span blocks the index claims (each must be claimed once).
    let mut span_claimed = 0u64;
    // A packed long list of `n` blocks from block `b`: inside, all span blocks.
    let spans_ok = |b: u64, n: u64| {
        n >= 1
            && b.checked_add(n).is_some_and(|end| end <= nb)
            && tags[b as usize..(b + n) as usize]
                .iter()
                .all(|&t| t == TAG_SPAN)
    };
    let low = (1u64 << PACKED_LOW_BITS) - 1;
    // Each entry checked on its own, on all cores, a chunk at a time; the
    // first bad entry in vertex order is the one reported.
    let check = |v: usize, e: u64| -> std::result::Result<[u64; 4], &'static str> {
        let (mut p, mut sp, mut hu) = (0u64, 0u64, 0u64);
        let d = match IndexEntry::decode(e) {
            IndexEntry::Disk { offset, degree } if packed && degree > 0 => {
                let b = offset >> PACKED_LOW_BITS;
                if degree == 1 && inline {
                    return Err("keeps a single neighbour on disk in a file with inline lists");
                }
                match tags.get(b as usize) {
                    Some(&TAG_PACKED) if degree <= MAX_IDS_PER_BLOCK as u64 => p += 1,
                    Some(&TAG_SPAN) if spans_ok(b, (offset & low) + 1) => {
                        p += (offset & low) + 1;
                        sp += (offset & low) + 1;
                    }
                    _ => return Err("describes an impossible packed list"),
                }
                degree
            }
            IndexEntry::Huge { offset } if packed => {
                let i = huge
                    .binary_search_by_key(&(v as u64), |&(x, _)| x)
                    .map_err(|_| "has no degree in the huge table")?;
                let n = huge_blocks[i];
                if e & HUGE_SPARE != 0
                    || offset & low != 0
                    || !spans_ok(offset >> PACKED_LOW_BITS, n)
                {
                    return Err("describes an impossible long list");
                }
                hu += 1;
                p += n;
                sp += n;
                huge[i].1
            }
            IndexEntry::Disk { offset, degree } => {
                if degree == 0 {
                    if offset != 0 {
                        return Err("is an empty list with a slot offset");
                    }
                } else {
                    // Both below 2^40 and 2^22: no overflow.
                    if offset + degree > slots {
                        return Err("points past the last block");
                    }
                    if degree <= cap && offset / cap != (offset + degree - 1) / cap {
                        return Err("straddles a block boundary");
                    }
                    if degree > cap && offset % cap != 0 {
                        return Err("starts a long list inside a block");
                    }
                    if degree == 1 && inline {
                        return Err("keeps a single neighbour on disk in a file with inline lists");
                    }
                    let (a, b) = block_span(offset, degree);
                    p += b - a + 1;
                }
                degree
            }
            IndexEntry::Huge { offset } => {
                let d = huge
                    .binary_search_by_key(&(v as u64), |&(x, _)| x)
                    .map(|i| huge[i].1)
                    .map_err(|_| "has no degree in the huge table")?;
                let fits = offset.checked_add(d).is_some_and(|end| end <= slots);
                if e & HUGE_SPARE != 0 || offset % cap != 0 || !fits {
                    return Err("describes an impossible long list");
                }
                hu += 1;
                let (a, b) = block_span(offset, d);
                p += b - a + 1;
                d
            }
            IndexEntry::One(x) => {
                if x as u64 >= n || e & ONE_SPARE != 0 || !inline {
                    return Err("holds an impossible inline neighbour");
                }
                1
            }
            IndexEntry::Two(x, y) => {
                let sorted = x < y || (multi && x == y);
                if x as u64 >= n || y as u64 >= n || !sorted || !inline {
                    return Err("holds impossible inline neighbours");
                }
                2
            }
        };
        Ok([d, p, sp, hu])
    };
    const CHUNK: usize = 1 << 16;
    let sums: Vec<Result<[u64; 4]>> = index
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut t = [0u64; 4];
            for (i, &e) in chunk.iter().enumerate() {
                let v = c * CHUNK + i;
                let r = check(v, e).map_err(|why| {
                    corrupt(path, format!("{} entry of vertex {v} {why}", ki.name()))
                })?;
                t[0] = t[0].checked_add(r[0]).ok_or_else(|| {
                    corrupt(
                        path,
                        format!("{} overflows the number of entries", ki.name()),
                    )
                })?;
                t[1] += r[1];
                t[2] += r[2];
                t[3] += r[3];
            }
            Ok(t)
        })
        .collect();
    for t in sums {
        let t = t?;
        entries = entries.checked_add(t[0]).ok_or_else(|| {
            corrupt(
                path,
                format!("{} overflows the number of entries", ki.name()),
            )
        })?;
        pairs += t[1];
        span_claimed += t[2];
        huge_used += t[3];
    }
    let spans = tags.iter().filter(|&&t| t == TAG_SPAN).count() as u64;
    if packed && span_claimed != spans {
        return Err(corrupt(
            path,
            format!(
                "{} has {spans} span blocks, the index claims {span_claimed}",
                kb.name()
            ),
        ));
    }
    if huge_used != huge.len() as u64 {
        return Err(corrupt(
            path,
            format!(
                "section {} lists {} long lists, the index {huge_used}",
                kh.name(),
                huge.len()
            ),
        ));
    }
    let stored_map = match h.section(km).copied() {
        Some(sm) if sm.count != blocks.count => {
            return Err(corrupt(
                path,
                format!(
                    "section {} maps {} blocks, the adjacency has {}",
                    km.name(),
                    sm.count,
                    blocks.count
                ),
            ))
        }
        Some(sm) => Some(StoredMap {
            file: file
                .try_clone()
                .map_err(|e| Error::io(path, format!("open section {}", km.name()), e))?,
            section: sm,
            pairs,
            n,
            coded: h.version >= CODED_MAP_VERSION,
        }),
        None => None,
    };
    Ok(Adjacency {
        path: path.to_path_buf(),
        index,
        huge,
        huge_blocks,
        packed,
        crcs,
        tags,
        blocks,
        weights,
        entries,
        map: OnceLock::new(),
        stored_map,
        delta: None,
    })
}

/// A block map section of an open file, read when first needed
/// ([`Adjacency::block_map`]); `pairs` is what the index says it holds.
#[derive(Debug)]
pub(super) struct StoredMap {
    file: File,
    section: Section,
    pairs: u64,
    n: u64,
    /// Runs delta-coded (format version 7 on), not 4-byte ids.
    coded: bool,
}

/// Ids of a stored block map that one worker reads, checks and codes at
/// a time (a piece ends at a block's end; 1 MiB of ids).
const MAP_PIECE_IDS: u64 = 1 << 18;

/// Where a stored map is cut into pieces: block numbers from 0 to the
/// last, each piece holding at least `piece` of what `starts` counts
/// (ids or bytes) except perhaps the last.
fn piece_cuts(starts: &[u64], piece: u64) -> Vec<usize> {
    let blocks = starts.len().saturating_sub(1);
    let mut cuts = vec![0usize];
    for b in 1..blocks {
        if starts[b] - starts[*cuts.last().unwrap_or(&0)] >= piece {
            cuts.push(b);
        }
    }
    cuts.push(blocks);
    cuts
}

/// A piece of a stored map as read: its bytes' CRC, their number, and
/// what checking it gave (or what is wrong with its shape).
type Piece<T> = (u32, u64, std::result::Result<T, String>);

/// What checking a coded piece gave: the ids it holds and the first
/// block that disagrees with the index.
type Checked = (u64, Option<u64>);

impl StoredMap {
    /// Reads, checks (shape, checksum, agreement with `range`, the
    /// index's block ranges) and codes the map, in pieces of whole
    /// blocks read and coded on all cores.
    pub(super) fn read(
        &self,
        path: &Path,
        range: impl Fn(crate::VertexId) -> Option<(u64, u64)> + Sync,
    ) -> Result<BlockMap> {
        self.read_in_pieces(path, range, MAP_PIECE_IDS)
    }

    /// [`StoredMap::read`] in pieces of at least `piece_ids` ids (bytes of
    /// code in a coded map).
    pub(super) fn read_in_pieces(
        &self,
        path: &Path,
        range: impl Fn(crate::VertexId) -> Option<(u64, u64)> + Sync,
        piece_ids: u64,
    ) -> Result<BlockMap> {
        if self.coded {
            return self.read_coded(path, range, piece_ids);
        }
        let (crc_head, starts, hl) = self.head(path, 4)?;
        // Pieces of whole blocks, the last running to the padded end
        // (the checksum covers the padding).
        let blocks = self.section.count as usize;
        let cuts = piece_cuts(&starts, piece_ids);
        let end = padded(self.section.length);
        // Each worker reuses one buffer: a fresh page costs a fault.
        let pieces: Vec<Result<Piece<CodedPiece>>> = cuts
            .par_windows(2)
            .map_init(Vec::new, |buf: &mut Vec<u8>, w| {
                let (b0, b1) = (w[0], w[1]);
                let lo = hl + 4 * starts[b0];
                let hi = if b1 == blocks {
                    end
                } else {
                    hl + 4 * starts[b1]
                };
                buf.resize((hi - lo) as usize, 0);
                self.read_at(path, lo, buf)?;
                let crc = crc32c::crc32c(buf);
                let coded = code_piece(buf, b0 as u64, &starts[b0..=b1], self.n, &range);
                Ok((crc, hi - lo, coded))
            })
            .collect();
        let coded = self.settle(path, crc_head, pieces)?;
        self.agree(path, coded.iter().find_map(|p| p.disagrees), starts[blocks])?;
        Ok(BlockMap::from_pieces(coded, self.pairs))
    }

    /// [`StoredMap::read_in_pieces`] for a version 7 map: the coded runs
    /// are read straight into the map's memory, each piece (whole blocks,
    /// at least `piece_bytes` of code) read and checked on its own core.
    fn read_coded(
        &self,
        path: &Path,
        range: impl Fn(crate::VertexId) -> Option<(u64, u64)> + Sync,
        piece_bytes: u64,
    ) -> Result<BlockMap> {
        let (crc_head, starts, hl) = self.head(path, 1)?;
        let blocks = self.section.count as usize;
        let cuts = piece_cuts(&starts, piece_bytes);
        // The code and the padding after it (the checksum covers both),
        // cut into the pieces' parts.
        let mut code = vec![0u8; (padded(self.section.length) - hl) as usize];
        let mut parts = Vec::with_capacity(cuts.len() - 1);
        let mut rest = &mut code[..];
        for w in cuts.windows(2) {
            let len = if w[1] == blocks {
                rest.len()
            } else {
                (starts[w[1]] - starts[w[0]]) as usize
            };
            let (part, tail) = rest.split_at_mut(len);
            parts.push((w[0], w[1], part));
            rest = tail;
        }
        let checked: Vec<Result<Piece<Checked>>> = parts
            .into_par_iter()
            .map(|(b0, b1, part)| {
                self.read_at(path, hl + starts[b0], part)?;
                let crc = crc32c::crc32c(part);
                let got = check_coded_piece(part, b0 as u64, &starts[b0..=b1], self.n, &range);
                Ok((crc, part.len() as u64, got))
            })
            .collect();
        let got = self.settle(path, crc_head, checked)?;
        let pairs: u64 = got.iter().map(|g| g.0).sum();
        self.agree(path, got.iter().find_map(|g| g.1), pairs)?;
        code.truncate(starts[blocks] as usize);
        Ok(BlockMap::from_coded(starts, code, pairs))
    }

    /// The section named as damaged, `why`.
    fn bad(&self, path: &Path, why: String) -> Error {
        corrupt(path, format!("section {} {why}", self.section.kind.name()))
    }

    /// Reads `buf.len()` bytes from `at` in the section.
    fn read_at(&self, path: &Path, at: u64, buf: &mut [u8]) -> Result<()> {
        self.file
            .read_exact_at(buf, self.section.offset + at)
            .map_err(|e| read_error(path, &self.section, e))
    }

    /// The section's run starts, counted in `unit`-byte items, checked:
    /// their CRC, the starts, and the head's length in bytes.
    fn head(&self, path: &Path, unit: u64) -> Result<(u32, Vec<u64>, u64)> {
        let s = &self.section;
        let mut head = vec![0u8; (((s.count + 1) * 8).min(s.length)) as usize];
        self.read_at(path, 0, &mut head)?;
        let starts = run_starts(&head, s.count, s.length, unit).map_err(|w| self.bad(path, w))?;
        Ok((crc32c::crc32c(&head), starts, head.len() as u64))
    }

    /// The pieces' results once all are read: a damaged section is named
    /// by its checksum first (the head's CRC combined with the pieces' in
    /// order), then by what is wrong with a piece's shape.
    fn settle<T>(
        &self,
        path: &Path,
        crc_head: u32,
        pieces: Vec<Result<Piece<T>>>,
    ) -> Result<Vec<T>> {
        let mut crc = crc_head;
        let mut got = Vec::with_capacity(pieces.len());
        for p in pieces {
            let (c, len, piece) = p?;
            crc = crc32c::crc32c_combine(crc, c, len as usize);
            got.push(piece);
        }
        if crc != self.section.crc {
            return Err(self.bad(path, "fails its checksum".into()));
        }
        got.into_iter()
            .collect::<std::result::Result<Vec<_>, String>>()
            .map_err(|w| self.bad(path, w))
    }

    /// Fails when a block lists a vertex the index puts elsewhere
    /// (`first_bad`) or the map holds another number of pairs than the
    /// index implies.
    fn agree(&self, path: &Path, first_bad: Option<u64>, pairs: u64) -> Result<()> {
        let at = match first_bad {
            Some(b) => b,
            None if pairs != self.pairs => self.section.count,
            None => return Ok(()),
        };
        Err(self.bad(
            path,
            format!("disagrees with the index at block {at} (or in its number of pairs)"),
        ))
    }
}
