//! What a conversion checks before and while it works: that its input is
//! a file it can read more than once, that a vertex count fits the format
//! and the machine before anything of its size is allocated, the memory
//! floor of a bounded build, and how a parse error says which way the
//! input was read.

use super::parse::{MtxHeader, ParseCounts};
use super::{ConvertOptions, Format};
use crate::error::{Error, Result};
use crate::store::format::MAX_VERTICES;
use std::path::Path;

/// A conversion reads its input more than once (detection, then one to
/// three passes), so it must be a regular file: a directory, FIFO, pipe or
/// device is refused before it is opened (opening a FIFO would wait for a
/// writer).
pub(crate) fn check_input(path: &Path) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let bad = |what: &str| Error::BadInput {
        path: path.to_path_buf(),
        what: what.into(),
    };
    if path.as_os_str() == "-" {
        return Err(bad("standard input cannot be converted directly: convert reads its input more than once; save it to a file first"));
    }
    let m = std::fs::metadata(path).map_err(|e| Error::io(path, "open input", e))?;
    let t = m.file_type();
    if t.is_dir() {
        Err(bad("is a directory, not an edge list"))
    } else if t.is_fifo() || t.is_socket() || t.is_char_device() || t.is_block_device() {
        Err(bad("is a pipe, FIFO or device: convert reads its input more than once, so it needs a regular file (save the stream to a file first)"))
    } else {
        Ok(())
    }
}

/// Refuses a Matrix Market file whose entries (data lines read, and
/// malformed ones skipped) are not the count its size line declares:
/// a file cut short, or a size line that is wrong. `convert` and the
/// batches of `update` both read through this check.
pub(crate) fn check_mtx_entries(path: &Path, h: &MtxHeader, counts: &ParseCounts) -> Result<()> {
    let held = counts.data_lines + counts.skipped;
    if held == h.nnz {
        return Ok(());
    }
    Err(Error::BadInput {
        path: path.to_path_buf(),
        what: format!(
            "line {}: the size line declares {} entries but the file holds {held}",
            h.size_line, h.nnz
        ),
    })
}

/// Refuses a bounded build of `output` whose spilled records (`bytes`
/// for about `edges` edges: a generator's count is exact, a text file's
/// estimated) cannot fit in the free space of `dir`, the temporary
/// directory (`given`: named by --temp-dir, else the output's).
pub(crate) fn check_spill_room(
    output: &Path,
    edges: u64,
    bytes: u64,
    dir: &Path,
    given: bool,
) -> Result<()> {
    let Some(free) = crate::io::system::free_disk_bytes(dir) else {
        return Ok(());
    };
    if bytes <= free {
        return Ok(());
    }
    Err(Error::Limit {
        what: format!(
            "{}: about {edges} edges do not fit the memory budget (--memory), so the build \
             spills them to {} first: about {} of records, and {} are free there; give {}, \
             or fewer edges",
            output.display(),
            dir.display(),
            crate::metrics::human(bytes),
            crate::metrics::human(free),
            if given {
                "a --temp-dir with more room"
            } else {
                "a --temp-dir with more room (default: the output's directory)"
            }
        ),
    })
}

/// The process itself: code, thread stacks, the allocator's slack (7 MiB
/// resident at start, measured).
const FLOOR_PROCESS_BYTES: u64 = 12 << 20;
/// Per worker thread: its parse buffers (2 MiB chunks in flight and
/// queued) or its generator chunk, and its open spill pages.
const FLOOR_THREAD_BYTES: u64 = 6 << 20;
/// Per vertex: its index entry (8) and, with a vertex order, the order
/// and its inverse (4 + 4), or before them the record counter and the
/// sort key the order is made from.
pub(crate) const FLOOR_VERTEX_BYTES: u64 = 16;
/// Per vertex of a second adjacency (in-edges): its index entry.
const FLOOR_IN_VERTEX_BYTES: u64 = 8;
/// The smallest partition of records an external build loads at once.
pub(crate) const MIN_PARTITION_BYTES: u64 = 8 << 20;

/// Bytes of each of the graph writer's three buffers under a memory
/// budget: a 48th of it, between 256 KiB and 8 MiB.
pub(crate) fn write_buffer_bytes(budget: u64) -> u64 {
    (budget / 48).clamp(256 << 10, 8 << 20) / 4096 * 4096
}

/// What a bounded build needs however small its budget (see
/// docs/scale.md), in three parts: buffers (the process, the writer's
/// three buffers at this budget, `threads` workers' parse buffers),
/// bytes per vertex (`dirs` adjacencies), and the partition it cannot
/// split, `largest_list_bytes` (one vertex's records) or 8 MiB, whichever
/// is more.
pub fn memory_floor_parts(
    vertices: u64,
    dirs: u64,
    threads: usize,
    budget: u64,
    largest_list_bytes: u64,
) -> [u64; 3] {
    let per_vertex = FLOOR_VERTEX_BYTES + FLOOR_IN_VERTEX_BYTES * dirs.saturating_sub(1);
    [
        FLOOR_PROCESS_BYTES + 3 * write_buffer_bytes(budget) + threads as u64 * FLOOR_THREAD_BYTES,
        vertices.saturating_mul(per_vertex),
        largest_list_bytes.max(MIN_PARTITION_BYTES),
    ]
}

/// Refuses a vertex count whose O(V) build state cannot fit: beyond the
/// format's limit, or beyond the memory this machine allows for the
/// floor's per-vertex part (index, block map, list state: the same
/// bytes per vertex and adjacency the memory floor counts).
pub(crate) fn check_vertex_memory(n: u64, reverse: bool, what: &str) -> Result<()> {
    if n > MAX_VERTICES {
        return Err(Error::Limit {
            what: format!("{what}: more than the format's limit of {MAX_VERTICES} vertices"),
        });
    }
    let per_vertex = FLOOR_VERTEX_BYTES + if reverse { FLOOR_IN_VERTEX_BYTES } else { 0 };
    crate::metrics::check_memory(
        n.saturating_mul(per_vertex),
        &format!("the vertex index and build state of {what}"),
    )
}

/// Refuses a batch that would grow the graph at `path` to `n` vertices
/// (`grows`: what in the batch does, in words) when a conversion of
/// that many would be refused ([`check_vertex_memory`]): the graph
/// would then be one this machine could no longer merge, compact or
/// perhaps even open. Checked before anything is written.
pub(crate) fn check_growth(path: &Path, n: u64, reverse: bool, grows: &str) -> Result<()> {
    check_vertex_memory(n, reverse, &format!("{n} vertices")).map_err(|e| Error::Limit {
        what: format!(
            "cannot update {}: {grows} in the batch would make {n} vertices, and {e}; \
             nothing was written",
            path.display()
        ),
    })
}

/// Adds how the format was detected to a parse error, so that a user whose
/// file was read the wrong way sees why and what to pass; a word where
/// the first line should hold an id is most often a header row, and the
/// error says how to read one.
pub(crate) fn with_detection(
    e: Error,
    opts: &ConvertOptions,
    format: Option<Format>,
    evidence: Option<&str>,
) -> Error {
    let Error::Parse {
        path,
        line,
        column,
        expected,
        found,
        mut note,
    } = e
    else {
        return e;
    };
    if let (Some(f), Some(ev), None) = (format, evidence, opts.format) {
        note.push_str(&format!(
            "\n  (read as {}: {ev}; --format says otherwise)",
            f.name()
        ));
    }
    if line == 1
        && expected.contains("vertex names need --ids string")
        && format != Some(Format::Csv)
    {
        note.push_str(
            "\n  (if line 1 is a header row, read the file as CSV: --format csv, with --columns \
             SRC,DST when its columns are not named src and dst)",
        );
    }
    Error::Parse {
        path,
        line,
        column,
        expected,
        found,
        note,
    }
}
