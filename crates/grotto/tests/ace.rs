//! The write pool against a model: every page read returns what was last
//! written to it, the file holds every write after a flush, the pool never
//! holds more pages than it has slots, and ACE changes when pages are
//! written, not which pages are missed (for policies whose choice does not
//! depend on dirtiness).

use grotto::cache::ace::{Ace, PolicyKind, PoolConfig, Section, WritePool, WriteStats};
use grotto::io::{BackendChoice, FaultPlan, IoFile, IoOptions};
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

const PAGE: usize = 4096;

/// A file of `pages` pages, page `k` stamped with `k` in its first bytes.
fn page_file(dir: &Path, pages: u64) -> std::path::PathBuf {
    let p = dir.join("pages.bin");
    let mut bytes = vec![0u8; pages as usize * PAGE];
    for k in 0..pages as usize {
        bytes[k * PAGE..k * PAGE + 8].copy_from_slice(&(k as u64).to_le_bytes());
    }
    std::fs::write(&p, bytes).unwrap();
    p
}

fn open(path: &Path, faults: Option<FaultPlan>) -> Arc<IoFile> {
    open_with(path, faults, BackendChoice::Auto)
}

fn open_with(path: &Path, faults: Option<FaultPlan>, backend: BackendChoice) -> Arc<IoFile> {
    IoFile::open(
        path,
        &IoOptions {
            write: true,
            faults,
            backend,
            ..Default::default()
        },
    )
    .unwrap()
}

fn variants() -> Vec<Option<Ace>> {
    vec![
        None,
        Some(Ace {
            n_w: 4,
            n_e: 4,
            prefetch: false,
        }),
        Some(Ace {
            n_w: 4,
            n_e: 3,
            prefetch: true,
        }),
    ]
}

/// Runs `trace` (page, Some(stamp) for a write) and checks every read
/// against the model; returns the stats and the model.
fn replay(
    file: &Arc<IoFile>,
    pages: u64,
    slots: usize,
    policy: PolicyKind,
    ace: Option<Ace>,
    trace: &[(u64, Option<u64>)],
) -> (WriteStats, HashMap<u64, u64>) {
    // Two sections, the second first in the file, to exercise the mapping.
    let half = pages / 2;
    let sections = vec![
        Section {
            first_key: 0,
            offset: half * PAGE as u64,
            pages: pages - half,
        },
        Section {
            first_key: pages - half,
            offset: 0,
            pages: half,
        },
    ];
    let file_page = |k: u64| {
        if k < pages - half {
            k + half
        } else {
            k - (pages - half)
        }
    };
    let mut pool = WritePool::new(
        file,
        sections,
        PoolConfig {
            slots,
            policy,
            ace,
            flush_depth: 8,
        },
    )
    .unwrap();
    let mut model: HashMap<u64, u64> = HashMap::new();
    for &(k, w) in trace {
        let want = *model.get(&k).unwrap_or(&file_page(k));
        match w {
            None => {
                let b = pool.read(k).unwrap();
                let got = u64::from_le_bytes(b[..8].try_into().unwrap());
                assert_eq!(got, want, "page {k} under {}", pool.name());
            }
            Some(stamp) => {
                let b = pool.write(k).unwrap();
                let got = u64::from_le_bytes(b[..8].try_into().unwrap());
                assert_eq!(got, want, "page {k} under {}", pool.name());
                b[..8].copy_from_slice(&stamp.to_le_bytes());
                model.insert(k, stamp);
            }
        }
        assert!(pool.dirty_pages() <= slots);
    }
    pool.sync().unwrap();
    assert_eq!(pool.dirty_pages(), 0);
    let stats = pool.stats();
    assert_eq!(stats.hits + stats.misses, trace.len() as u64);
    // The file as a model of file pages.
    let mut on_disk = HashMap::new();
    for (k, v) in &model {
        on_disk.insert(file_page(*k), *v);
    }
    (stats, on_disk)
}

fn check_file(path: &Path, pages: u64, on_disk: &HashMap<u64, u64>, restamp: &dyn Fn(u64) -> u64) {
    let bytes = std::fs::read(path).unwrap();
    for p in 0..pages {
        let at = p as usize * PAGE;
        let got = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        let want = on_disk.get(&p).copied().unwrap_or_else(|| restamp(p));
        assert_eq!(got, want, "file page {p}");
    }
}

fn skewed_trace(seed: u64, len: usize, pages: u64, write_pct: u64) -> Vec<(u64, Option<u64>)> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..len)
        .map(|i| {
            let hot = next() % 10 < 8;
            let k = if hot {
                next() % (pages / 8).max(1)
            } else {
                next() % pages
            };
            let w = (next() % 100 < write_pct).then_some(1_000_000 + i as u64);
            (k, w)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn reads_see_the_last_write_and_the_file_holds_every_write(
        seed in any::<u64>(),
        slots in 1usize..12,
        write_pct in 0u64..100,
        policy in 0usize..4,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let pages = 40;
        let path = page_file(dir.path(), pages);
        let trace = skewed_trace(seed, 400, pages, write_pct);
        for ace in variants() {
            let file = open(&path, None);
            let (_, on_disk) = replay(&file, pages, slots, PolicyKind::ALL[policy], ace, &trace);
            check_file(&path, pages, &on_disk, &|p| p);
            // Restore the stamps for the next variant.
            drop(file);
            page_file(dir.path(), pages);
        }
    }
}

#[test]
fn ace_misses_what_the_plain_policy_misses_and_batches_its_writes() {
    let dir = tempfile::tempdir().unwrap();
    let pages = 400;
    let path = page_file(dir.path(), pages);
    let trace = skewed_trace(7, 20_000, pages, 60);
    for policy in [PolicyKind::Clock, PolicyKind::Lru] {
        let plain = replay(&open(&path, None), pages, 32, policy, None, &trace).0;
        page_file(dir.path(), pages);
        let ace = replay(
            &open(&path, None),
            pages,
            32,
            policy,
            Some(Ace {
                n_w: 8,
                n_e: 8,
                prefetch: false,
            }),
            &trace,
        )
        .0;
        page_file(dir.path(), pages);
        assert_eq!(ace.misses, plain.misses, "{}", policy.name());
        assert!(plain.pages_written > 1000, "{plain:?}");
        // Batches of 8: far fewer waits for writes than pages written.
        assert!(
            ace.write_waits * 4 < plain.write_waits,
            "{ace:?} vs {plain:?}"
        );
        // The plain policy waits for each page (the final flush aside).
        assert!(
            plain.write_waits * 10 > plain.pages_written * 9,
            "{plain:?}"
        );
    }
}

#[test]
fn prefetching_reads_a_stream_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let pages = 512;
    let path = page_file(dir.path(), pages);
    // Sequential sweeps with a write on each page: streams for the
    // sequential prefetcher, dirty pages for ACE's evictions.
    let trace: Vec<(u64, Option<u64>)> = (0..3)
        .flat_map(|r| (0..pages).map(move |k| (k, Some(r * 10_000 + k))))
        .collect();
    let ace = Some(Ace {
        n_w: 8,
        n_e: 8,
        prefetch: true,
    });
    let (with, _) = replay(&open(&path, None), pages, 64, PolicyKind::Lru, ace, &trace);
    assert!(
        with.prefetched > 0 && with.prefetch_used > with.prefetched / 2,
        "{with:?}"
    );
    assert!(with.misses < trace.len() as u64 / 2, "{with:?}");
}

#[test]
fn a_failed_write_names_its_page_and_keeps_it_dirty() {
    let dir = tempfile::tempdir().unwrap();
    let pages = 16;
    let path = page_file(dir.path(), pages);
    // Pushes: read of page 0, read of page 1, then the write-back of page
    // 0 to make room for page 2, which is the third: it fails.
    let file = open(
        &path,
        Some(FaultPlan {
            eio_every: 3,
            ..Default::default()
        }),
    );
    let sections = vec![Section {
        first_key: 0,
        offset: 0,
        pages,
    }];
    let mut pool = WritePool::new(
        &file,
        sections,
        PoolConfig {
            slots: 2,
            policy: PolicyKind::Lru,
            ace: None,
            flush_depth: 1,
        },
    )
    .unwrap();
    pool.write(0).unwrap()[0] = 0xAB;
    pool.write(1).unwrap()[0] = 0xCD;
    let e = pool.write(2).expect_err("the write-back of page 0 fails");
    let msg = e.to_string();
    assert!(
        msg.contains("write page 0") && msg.contains("pages.bin"),
        "{msg}"
    );
    assert_eq!(
        pool.dirty_pages(),
        2,
        "a failed write leaves its page dirty"
    );
    assert_eq!(pool.read(0).unwrap()[0], 0xAB, "and its bytes in the pool");
    assert!(pool.read(99).is_err(), "a page outside the pool is refused");
    // Pages between sections are refused too, before anything is evicted.
    let gap = WritePool::new(
        &open(&path, None),
        vec![
            Section {
                first_key: 0,
                offset: 0,
                pages: 2,
            },
            Section {
                first_key: 4,
                offset: 2 * PAGE as u64,
                pages: 2,
            },
        ],
        PoolConfig {
            slots: 1,
            policy: PolicyKind::Clock,
            ace: None,
            flush_depth: 1,
        },
    );
    let mut gap = gap.unwrap();
    gap.write(0).unwrap();
    assert!(gap.read(3).is_err());
    assert_eq!(
        gap.dirty_pages(),
        1,
        "nothing was evicted for the refused page"
    );
}

#[test]
fn the_pread_fallback_writes_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let pages = 64;
    let path = page_file(dir.path(), pages);
    let trace = skewed_trace(11, 3000, pages, 50);
    let ace = Some(Ace {
        n_w: 8,
        n_e: 4,
        prefetch: true,
    });
    let file = open_with(&path, None, BackendChoice::Pread);
    assert_eq!(file.backend(), grotto::io::BackendKind::Pread);
    let (stats, on_disk) = replay(&file, pages, 8, PolicyKind::LruWsr, ace, &trace);
    assert!(stats.pages_written > 100, "{stats:?}");
    check_file(&path, pages, &on_disk, &|p| p);
}
