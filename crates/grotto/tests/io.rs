//! The io and cache layers against real files: both backends, injected
//! faults (short reads, EIO, EINTR, EAGAIN, slow completions, a file that
//! ends early), merged reads into scattered slots, and a multi-threaded
//! stress test of the pool that checks every block's bytes.

use grotto::cache::{BlockCache, BufferPool, Lookup};
use grotto::gen::rmat::{Rmat, RmatConfig};
use grotto::gen::AsSource;
use grotto::ingest::{convert_from, ConvertOptions, NoProgress, Source};
use grotto::io::{
    scan::scan, uring_status, AlignedBuf, BackendChoice, Done, FaultPlan, IoBuf, IoFile, IoOptions,
};
use grotto::store::{Direction, Graph};
use grotto::{BlockId, Error};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const BLOCKS: u64 = 512;

/// A file whose block `b` holds the u64 `b * 0x1_0001 + i` at word `i`.
fn stamped_file(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("stamped.bin");
    let mut f = std::fs::File::create(&p).unwrap();
    for b in 0..BLOCKS {
        let mut buf = Vec::with_capacity(4096);
        for i in 0..512u64 {
            buf.extend_from_slice(&(b * 0x1_0001 + i).to_le_bytes());
        }
        f.write_all(&buf).unwrap();
    }
    f.sync_all().unwrap();
    p
}

fn block_ok(b: u64, bytes: &[u8]) -> bool {
    bytes
        .chunks_exact(8)
        .enumerate()
        .all(|(i, w)| u64::from_le_bytes(w.try_into().unwrap()) == b * 0x1_0001 + i as u64)
}

/// The backends to test here, saying why io_uring is skipped if it is.
fn backends() -> Vec<BackendChoice> {
    match uring_status() {
        Ok(()) => vec![
            BackendChoice::Uring,
            BackendChoice::Pread,
            BackendChoice::Memory,
        ],
        Err((_, why)) => {
            eprintln!("io_uring tests skipped: {why}; testing the pread fallback only");
            vec![BackendChoice::Pread, BackendChoice::Memory]
        }
    }
}

fn open(p: &Path, backend: BackendChoice, faults: Option<FaultPlan>) -> Arc<IoFile> {
    IoFile::open(
        p,
        &IoOptions {
            backend,
            faults,
            ..IoOptions::default()
        },
    )
    .unwrap()
}

/// Reads every block once, `per` blocks per request into separate slots,
/// `depth` in flight; returns the blocks in order or the first error.
fn read_all(file: &Arc<IoFile>, depth: usize, per: usize) -> Result<Vec<Vec<u8>>, Error> {
    let bufs: Vec<AlignedBuf> = (0..BLOCKS)
        .map(|_| AlignedBuf::new(4096, 4096).unwrap())
        .collect();
    let mut r = file.reader(depth, None)?;
    let mut next = 0u64;
    let mut done: Vec<Done> = Vec::new();
    let mut first_err = None;
    loop {
        while next < BLOCKS && r.room() > 0 {
            let n = (per as u64).min(BLOCKS - next);
            let iov: Vec<IoBuf> = (next..next + n)
                .map(|b| IoBuf {
                    ptr: bufs[b as usize].as_ptr(),
                    len: 4096,
                })
                .collect();
            // SAFETY: each buffer is used by exactly one request and read
            // only after all requests completed.
            unsafe { r.read(next * 4096, &iov, next)? };
            next += n;
        }
        r.flush()?;
        if r.in_flight() == 0 {
            break;
        }
        done.clear();
        r.wait(&mut done, 1)?;
        for d in done.drain(..) {
            if let Err(e) = d.result {
                first_err.get_or_insert(e);
            }
        }
    }
    drop(r);
    match first_err {
        Some(e) => Err(e),
        None => Ok(bufs.iter().map(|b| b.as_slice().to_vec()).collect()),
    }
}

#[test]
fn both_backends_read_exact_bytes_single_and_merged() {
    let dir = tempfile::tempdir().unwrap();
    let p = stamped_file(dir.path());
    for be in backends() {
        let f = open(&p, be, None);
        assert!(f.direct(), "O_DIRECT should work on the project's disk");
        for (depth, per) in [(1, 1), (32, 1), (8, 16), (4, 7)] {
            let blocks = read_all(&f, depth, per).unwrap();
            for (b, bytes) in blocks.iter().enumerate() {
                assert!(
                    block_ok(b as u64, bytes),
                    "{be:?} depth {depth} per {per}: block {b} wrong"
                );
            }
        }
    }
}

#[test]
fn the_memory_backend_is_read_only_and_stops_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let p = stamped_file(dir.path());
    let write = IoFile::open(
        &p,
        &IoOptions {
            backend: BackendChoice::Memory,
            write: true,
            ..IoOptions::default()
        },
    );
    assert!(matches!(write, Err(Error::Invalid(m)) if m.contains("read-only")));
    let f = open(&p, BackendChoice::Memory, None);
    assert_eq!(f.backend().name(), "memory");
    // A read that runs past the end is a truncation, as on the device.
    let buf = AlignedBuf::new(8192, 4096).unwrap();
    let mut r = f.reader(1, None).unwrap();
    let iov = [IoBuf {
        ptr: buf.as_ptr(),
        len: 8192,
    }];
    // SAFETY: the buffer is lent to this one request until it completes.
    unsafe { r.read((BLOCKS - 1) * 4096, &iov, 0).unwrap() };
    let mut done = Vec::new();
    r.wait(&mut done, 1).unwrap();
    assert!(
        matches!(done[0].result, Err(Error::Truncated { .. })),
        "{:?}",
        done[0].result
    );
}

#[test]
fn retried_faults_still_give_exact_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let p = stamped_file(dir.path());
    for be in backends() {
        let plans = [
            FaultPlan {
                short_every: 2,
                ..FaultPlan::default()
            },
            FaultPlan {
                eintr_every: 2,
                ..FaultPlan::default()
            },
            FaultPlan {
                eagain_every: 3,
                ..FaultPlan::default()
            },
            FaultPlan {
                slow_every: 5,
                slow: Duration::from_millis(3),
                ..FaultPlan::default()
            },
            FaultPlan {
                short_every: 3,
                eintr_every: 4,
                eagain_every: 5,
                slow_every: 7,
                slow: Duration::from_millis(1),
                ..FaultPlan::default()
            },
        ];
        for plan in plans {
            let f = open(&p, be, Some(plan.clone()));
            for per in [1, 9] {
                let blocks =
                    read_all(&f, 16, per).unwrap_or_else(|e| panic!("{be:?} {plan:?}: {e}"));
                for (b, bytes) in blocks.iter().enumerate() {
                    assert!(
                        block_ok(b as u64, bytes),
                        "{be:?} {plan:?}: block {b} wrong"
                    );
                }
            }
        }
    }
}

#[test]
fn eio_is_an_error_with_path_and_range() {
    let dir = tempfile::tempdir().unwrap();
    let p = stamped_file(dir.path());
    for be in backends() {
        let f = open(
            &p,
            be,
            Some(FaultPlan {
                eio_every: 10,
                ..FaultPlan::default()
            }),
        );
        let e = read_all(&f, 8, 1).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Io { .. }), "{msg}");
        assert!(
            msg.contains("stamped.bin") && msg.contains("read 4096 bytes at byte"),
            "{msg}"
        );
        assert!(!e.is_input_error());
    }
}

#[test]
fn end_of_file_is_reported_as_truncation() {
    let dir = tempfile::tempdir().unwrap();
    let p = stamped_file(dir.path());
    for be in backends() {
        // Injected: the file pretends to end at block 300 (mid-request too).
        let f = open(
            &p,
            be,
            Some(FaultPlan {
                eof_at: Some(300 * 4096),
                ..FaultPlan::default()
            }),
        );
        let e = read_all(&f, 8, 7).unwrap_err();
        assert!(matches!(e, Error::Truncated { .. }), "{e}");
        assert!(e.to_string().contains("past the end of the file"), "{e}");
        // Real: a file cut short.
        let cut = dir.path().join("cut.bin");
        std::fs::copy(&p, &cut).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&cut)
            .unwrap()
            .set_len(100 * 4096)
            .unwrap();
        let f = open(&cut, be, None);
        let e = read_all(&f, 8, 1).unwrap_err();
        assert!(matches!(e, Error::Truncated { .. }), "{e}");
    }
}

#[test]
fn misaligned_requests_are_refused_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    let p = stamped_file(dir.path());
    let f = open(&p, BackendChoice::Auto, None);
    let b = AlignedBuf::new(8192, 4096).unwrap();
    let mut r = f.reader(4, None).unwrap();
    // SAFETY: refused before reaching the device.
    let e = unsafe {
        r.read(
            100,
            &[IoBuf {
                ptr: b.as_ptr(),
                len: 4096,
            }],
            0,
        )
    }
    .unwrap_err();
    assert!(e.to_string().contains("not aligned"), "{e}");
    // SAFETY: as above.
    let e = unsafe {
        r.read(
            0,
            &[IoBuf {
                ptr: b.as_ptr().wrapping_add(1),
                len: 4096,
            }],
            0,
        )
    }
    .unwrap_err();
    assert!(e.to_string().contains("not aligned"), "{e}");
    assert_eq!(r.in_flight(), 0);
}

#[test]
fn unavailable_uring_is_refused_when_forced() {
    // The probe runs once per process; this checks the forced path only
    // when the real probe fails. The CLI tests cover the simulated case.
    if let Err((_, why)) = uring_status() {
        let dir = tempfile::tempdir().unwrap();
        let p = stamped_file(dir.path());
        let e = IoFile::open(
            &p,
            &IoOptions {
                backend: BackendChoice::Uring,
                ..IoOptions::default()
            },
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains(why.as_str()));
        let f = open(&p, BackendChoice::Auto, None);
        assert!(f.notes().iter().any(|n| n.contains("pread")));
    }
}

#[test]
fn scan_reads_the_range_in_large_requests() {
    let dir = tempfile::tempdir().unwrap();
    let p = stamped_file(dir.path());
    for be in backends() {
        let f = open(&p, be, None);
        let mut seen = vec![false; BLOCKS as usize];
        let stats = scan(&f, 4096..BLOCKS * 4096, 128 << 10, 4, |off, bytes| {
            for (i, blk) in bytes.chunks(4096).enumerate() {
                let b = off / 4096 + i as u64;
                assert!(block_ok(b, blk));
                assert!(!seen[b as usize]);
                seen[b as usize] = true;
            }
            Ok(())
        })
        .unwrap();
        assert!(!seen[0] && seen[1..].iter().all(|&s| s));
        assert_eq!(stats.requests, (BLOCKS - 1).div_ceil(32));
        assert_eq!(stats.bytes, (BLOCKS - 1) * 4096);
    }
}

/// Many threads pin random blocks through a pool of a few slots; every pin
/// must show its own block's bytes.
#[test]
fn pool_stress_never_returns_another_blocks_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let p = stamped_file(dir.path());
    for be in backends() {
        let file = open(&p, be, None);
        let pool = BufferPool::new(BLOCKS, 6).unwrap();
        std::thread::scope(|s| {
            for t in 0..6u64 {
                let (pool, file) = (&pool, &file);
                s.spawn(move || {
                    let mut r = file.reader(2, Some(Arc::clone(pool.arena()))).unwrap();
                    let mut rng = grotto::rng::Rng::new(7, t);
                    let mut done = Vec::new();
                    for _ in 0..3000 {
                        // Skewed keys so hits, joins and evictions all happen.
                        let range = if rng.below(2) == 0 { 8 } else { BLOCKS };
                        let key = rng.below(range);
                        loop {
                            match pool.lookup(key).unwrap() {
                                Lookup::Hit(pin) => {
                                    assert!(
                                        block_ok(key, pin.bytes()),
                                        "hit on {key} has wrong bytes"
                                    );
                                    break;
                                }
                                Lookup::Joined(j) => {
                                    if let Ok(pin) = j.wait() {
                                        assert!(
                                            block_ok(key, pin.bytes()),
                                            "join on {key} has wrong bytes"
                                        );
                                        break;
                                    }
                                }
                                Lookup::Miss(load) => {
                                    // SAFETY: the slot is claimed by `load`
                                    // and not published before the read ends.
                                    unsafe { r.read(key * 4096, &[load.buf()], key).unwrap() };
                                    r.flush().unwrap();
                                    done.clear();
                                    r.wait(&mut done, 1).unwrap();
                                    done[0].result.as_ref().unwrap();
                                    let pin = load.finish();
                                    assert!(
                                        block_ok(key, pin.bytes()),
                                        "load of {key} has wrong bytes"
                                    );
                                    break;
                                }
                                Lookup::Full => std::thread::yield_now(),
                            }
                        }
                    }
                });
            }
        });
        let st = pool.stats();
        assert!(st.misses > 0 && st.hits > 0 && st.evictions > 0, "{st:?}");
        assert_eq!(st.failed_loads, 0);
    }
}

fn rmat_graph(dir: &Path, scale: u32) -> std::path::PathBuf {
    let out = dir.join(format!("rmat{scale}.grotto"));
    let g = Rmat::new(RmatConfig {
        scale,
        edge_factor: 8,
        seed: 3,
        ..RmatConfig::default()
    })
    .unwrap();
    let opts = ConvertOptions {
        undirected: true,
        ..ConvertOptions::default()
    };
    convert_from(&Source::Generated(&AsSource(&g)), &out, &opts, &NoProgress).unwrap();
    out
}

#[test]
fn block_cache_matches_the_synchronous_reader_from_many_threads() {
    let dir = tempfile::tempdir().unwrap();
    let path = rmat_graph(dir.path(), 14);
    let g = Arc::new(Graph::open(&path).unwrap());
    let nblocks = g.out().block_count();
    let mut expected = Vec::new();
    let mut buf = vec![0u8; 4096];
    for b in 0..nblocks {
        g.read_block(Direction::Out, BlockId(b), &mut buf).unwrap();
        expected.push(buf.clone());
    }
    for be in backends() {
        let io = open(&path, be, None);
        for slots in [3u64, 17, nblocks + 1] {
            let cache =
                BlockCache::new(Arc::clone(&g), Arc::clone(&io), slots * 4096, 64 << 10).unwrap();
            std::thread::scope(|s| {
                for t in 0..3u64 {
                    let (cache, expected) = (&cache, &expected);
                    s.spawn(move || {
                        let mut r = cache.reader(8).unwrap();
                        let mut rng = grotto::rng::Rng::new(11, t);
                        for round in 0..20 {
                            let mut keys: Vec<_> = (0..40)
                                .map(|_| {
                                    cache
                                        .key(Direction::Out, false, BlockId(rng.below(nblocks)))
                                        .unwrap()
                                })
                                .collect();
                            if round % 2 == 0 {
                                keys.sort();
                                keys.dedup();
                            }
                            let mut got = 0;
                            r.fetch(&keys, |pin| {
                                assert_eq!(pin.bytes(), &expected[pin.key() as usize][..]);
                                got += 1;
                                Ok(())
                            })
                            .unwrap();
                            assert_eq!(got, keys.len());
                        }
                        // A dense pass in order uses merged requests.
                        let all: Vec<_> = (0..nblocks)
                            .map(|b| cache.key(Direction::Out, false, BlockId(b)).unwrap())
                            .collect();
                        r.fetch(&all, |pin| {
                            assert_eq!(pin.bytes(), &expected[pin.key() as usize][..]);
                            Ok(())
                        })
                        .unwrap();
                    });
                }
            });
            assert_eq!(cache.pool().stats().failed_loads, 0);
        }
    }
}

#[test]
fn block_cache_names_the_block_on_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = rmat_graph(dir.path(), 12);
    let g = Arc::new(Graph::open(&path).unwrap());
    let key_of = |c: &BlockCache, b| c.key(Direction::Out, false, BlockId(b)).unwrap();
    // EIO from the device.
    let io = open(
        &path,
        BackendChoice::Auto,
        Some(FaultPlan {
            eio_every: 1,
            ..FaultPlan::default()
        }),
    );
    let cache = BlockCache::new(Arc::clone(&g), io, 1 << 20, 4096).unwrap();
    let e = cache
        .reader(4)
        .unwrap()
        .get(key_of(&cache, 5))
        .err()
        .unwrap();
    let msg = e.to_string();
    assert!(
        msg.contains("out block 5") && msg.contains("rmat12.grotto"),
        "{msg}"
    );
    // A flipped byte inside block 2.
    let off = g.block_offset(Direction::Out, false, BlockId(2)).unwrap();
    let bad = dir.path().join("bad.grotto");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[off as usize + 10] ^= 0x40;
    std::fs::write(&bad, bytes).unwrap();
    let gb = Arc::new(Graph::open(&bad).unwrap());
    let cache =
        BlockCache::new(gb, open(&bad, BackendChoice::Auto, None), 1 << 20, 1 << 20).unwrap();
    let all: Vec<_> = (0..6).map(|b| key_of(&cache, b)).collect();
    let e = cache
        .reader(4)
        .unwrap()
        .fetch(&all, |_| Ok(()))
        .err()
        .unwrap();
    assert!(
        matches!(e, Error::Corrupt { .. }) && e.to_string().contains("block 2 fails its checksum"),
        "{e}"
    );
    // The failed load left no slot behind: a good block still loads.
    let mut r = cache.reader(4).unwrap();
    assert!(r.get(key_of(&cache, 3)).is_ok());
    assert!(r.get(key_of(&cache, 2)).is_err());
}
