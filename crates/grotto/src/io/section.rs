//! Reading a large contiguous range of a graph file (a metadata section
//! such as the index, 8 bytes a vertex) with several reads in flight, and
//! its CRC-32C computed piece by piece as the pieces arrive.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Bytes each read asks for.
const PIECE: usize = 8 << 20;
/// Reads in flight at most (threads of their own: they wait on the
/// device, not on a core).
const IN_FLIGHT: usize = 8;

/// Fills `buf` from `file` at `offset` and returns its CRC-32C. Below two
/// pieces one read does it; above, up to [`IN_FLIGHT`] threads read
/// pieces of [`PIECE`] bytes and checksum each, and the pieces' CRCs are
/// combined in order. The first error (an unexpected end included) is
/// returned.
pub fn read_exact_at_with_crc(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<u32> {
    if buf.len() < 2 * PIECE {
        file.read_exact_at(buf, offset)?;
        return Ok(crc32c::crc32c(buf));
    }
    let total = buf.len();
    let pieces: Vec<std::sync::Mutex<&mut [u8]>> =
        buf.chunks_mut(PIECE).map(std::sync::Mutex::new).collect();
    // After a failure no further piece is read; pieces are handed out in
    // order, so the first error in order is a real one.
    let failed = AtomicBool::new(false);
    let crcs = in_flight(pieces.len(), |i| {
        if failed.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("a piece was not read"));
        }
        let r = match pieces[i].lock() {
            Ok(mut p) => file
                .read_exact_at(&mut p, offset + (i * PIECE) as u64)
                .map(|()| crc32c::crc32c(&p)),
            Err(_) => Err(std::io::Error::other("a read's lock was poisoned")),
        };
        if r.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        r
    });
    let mut crc = 0u32;
    for (i, c) in crcs.into_iter().enumerate() {
        let piece_crc = c?;
        let len = PIECE.min(total - i * PIECE);
        crc = if i == 0 {
            piece_crc
        } else {
            crc32c::crc32c_combine(crc, piece_crc, len)
        };
    }
    Ok(crc)
}

/// Runs `f(i)` for each `i` in `0..count` on up to [`IN_FLIGHT`] threads
/// of their own and returns the results in order: for a pass whose pieces
/// each read a stretch of a file and do little with it (a streamed check),
/// so that several reads are in flight whatever the cores. Below two
/// pieces it runs on the caller's thread.
pub fn in_flight<R: Send>(count: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    in_flight_with(count, || (), |_, i| f(i))
}

/// [`in_flight`] with a state of each worker's own made by `init` (a
/// buffer reused from piece to piece), lent to each of its calls.
pub fn in_flight_with<S, R: Send>(
    count: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize) -> R + Sync,
) -> Vec<R> {
    if count < 2 {
        let mut st = init();
        return (0..count).map(|i| f(&mut st, i)).collect();
    }
    let next = AtomicUsize::new(0);
    // Each worker keeps its (piece, result) pairs; they are put in piece
    // order once all are done (a worker's panic is raised here again).
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..IN_FLIGHT.min(count))
            .map(|_| {
                s.spawn(|| {
                    let mut st = init();
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= count {
                            return mine;
                        }
                        mine.push((i, f(&mut st, i)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn pieces_in_flight_come_back_in_order() {
        for count in [0, 1, 2, 7, 100] {
            let got = in_flight(count, |i| i * i);
            assert_eq!(got, (0..count).map(|i| i * i).collect::<Vec<_>>());
        }
    }

    #[test]
    fn pieces_read_in_parallel_give_the_bytes_and_the_crc_of_one_read() {
        let mut f = tempfile::tempfile().unwrap();
        let len = 2 * PIECE + PIECE / 3 + 5;
        let data: Vec<u8> = (0..len + 100).map(|i| (i * 7 + i / 4096) as u8).collect();
        f.write_all(&data).unwrap();
        for (off, n) in [(0usize, len), (100, len), (3, PIECE + 1), (0, 2 * PIECE)] {
            let mut buf = vec![0u8; n];
            let crc = read_exact_at_with_crc(&f, &mut buf, off as u64).unwrap();
            assert!(buf == data[off..off + n], "offset {off}, {n} bytes");
            assert_eq!(crc, crc32c::crc32c(&data[off..off + n]));
        }
        // Past the end: the error of a short read, not a partial success.
        let mut buf = vec![0u8; len];
        let e = read_exact_at_with_crc(&f, &mut buf, 200).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
