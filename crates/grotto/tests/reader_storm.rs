//! Readers during updates: while one thread commits batches to a graph
//! (delta runs, merges that rename a new file over it, and `compact`),
//! reader threads open the same path at random moments and run
//! algorithms on both engines, and others open it, wait for commits to
//! land, and only then run. Every reader must see one version whole: no
//! error, and a result equal to the result of some version the writer
//! committed. (A reader that took its index from the old file and its
//! blocks from the new one failed block checksums.)
//!
//! `GROTTO_STORM_COMMITS` sets the number of commits (default 200; a
//! release check runs 5000).

mod common;

use common::{convert_edges, xorshift};
use grotto::algo::output::Values;
use grotto::algo::registry::{self, Params};
use grotto::cache::CacheSize;
use grotto::engine::{Engine, EngineConfig, EngineKind};
use grotto::ingest::merge::{commit, MergePolicy};
use grotto::ingest::{compact::compact, ConvertOptions, NoProgress};
use grotto::store::update::GraphUpdate;
use grotto::store::Graph;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const VERTICES: u64 = 1500;

/// A version's fingerprint: vertex and edge counts, BFS depths from two
/// sources and WCC labels of every vertex, computed through the engines.
fn fingerprint(g: Arc<Graph>, kind: EngineKind) -> grotto::Result<u64> {
    let mut h = DefaultHasher::new();
    (g.vertex_count(), g.edge_count()).hash(&mut h);
    let cfg = EngineConfig {
        threads: 2,
        concurrency: 4,
        // A small pool, so that the runs read blocks from the file.
        cache: CacheSize::Bytes(64 << 10),
        ..EngineConfig::default()
    };
    for (name, source) in [("bfs", Some("0")), ("bfs", Some("7")), ("wcc", None)] {
        let a = registry::find(name).expect("registered");
        let mut p = Params::new(a.params());
        if let Some(s) = source {
            p.set("source", s).expect("source");
        }
        // WCC on the asynchronous engine needs an undirected graph.
        let kind = if name == "bfs" {
            kind
        } else {
            EngineKind::Sync
        };
        let e = Engine::open(kind, g.clone(), cfg.clone())?;
        let plan = a.plan(Some(kind), &g)?;
        let o = a.execute(&e, &plan, &p, false)?;
        // Parents depend on which path a run took first: not compared.
        for c in o.table.columns.iter().filter(|c| c.name != "parent") {
            c.name.hash(&mut h);
            match &c.values {
                Values::U64(v) => v.hash(&mut h),
                Values::I64(v) => v.hash(&mut h),
                Values::U32(v) => v.hash(&mut h),
                other => format!("{other:?}").hash(&mut h),
            }
        }
    }
    Ok(h.finish())
}

fn commits() -> u64 {
    std::env::var("GROTTO_STORM_COMMITS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200)
}

/// One batch: a few inserts of random edges and deletes of random edges
/// (absent ones are counted, not errors), over ids that already exist.
fn batch(path: &Path, seed: u64) -> GraphUpdate {
    let mut up = GraphUpdate::open(path).expect("open for update");
    let mut x = seed | 1;
    for _ in 0..40 {
        let u = xorshift(&mut x) % VERTICES;
        let v = xorshift(&mut x) % VERTICES;
        up.insert(u, v).expect("insert");
        let u = xorshift(&mut x) % VERTICES;
        let v = xorshift(&mut x) % VERTICES;
        up.delete(u, v).expect("delete");
    }
    up
}

#[test]
fn readers_see_one_whole_version_while_updates_commit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut x = 7u64;
    let edges: Vec<(u64, u64)> = (0..6 * VERTICES)
        .map(|_| (xorshift(&mut x) % VERTICES, xorshift(&mut x) % VERTICES))
        .chain((0..VERTICES - 1).map(|v| (v, v + 1)))
        .collect();
    let path = convert_edges(dir.path(), "storm", &edges, true, true);
    // Each version's fingerprint on each engine (their columns' types
    // differ).
    let both = |g: Arc<Graph>| {
        [EngineKind::Sync, EngineKind::Async]
            .map(|k| fingerprint(g.clone(), k).expect("a version's fingerprint"))
    };
    let versions = Arc::new(Mutex::new(vec![both(Arc::new(
        Graph::open(&path).expect("open"),
    ))]));
    let done = Arc::new(AtomicBool::new(false));
    let committed = Arc::new(AtomicU64::new(0));
    let total = commits();

    let writer = {
        let (path, versions, done, committed) = (
            path.clone(),
            versions.clone(),
            done.clone(),
            committed.clone(),
        );
        std::thread::spawn(move || {
            let (mut delta, mut merge, mut compacts) = (0, 0, 0);
            for i in 0..total {
                if i % 25 == 24 {
                    compact(&path, &ConvertOptions::default(), &NoProgress).expect("compact");
                    compacts += 1;
                } else {
                    let policy = if i % 4 == 3 {
                        merge += 1;
                        MergePolicy::Always
                    } else {
                        delta += 1;
                        MergePolicy::Never
                    };
                    commit(batch(&path, 1000 + i), policy).expect("commit");
                }
                let g = Arc::new(Graph::open(&path).expect("open after commit"));
                let f = both(g);
                versions.lock().expect("versions").push(f);
                committed.fetch_add(1, Ordering::SeqCst);
            }
            done.store(true, Ordering::SeqCst);
            (delta, merge, compacts)
        })
    };

    let readers: Vec<_> = (0..8u64)
        .map(|r| {
            let (path, done, committed) = (path.clone(), done.clone(), committed.clone());
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                let mut x = 99 + r;
                while !done.load(Ordering::SeqCst) {
                    let kind = if xorshift(&mut x).is_multiple_of(2) {
                        EngineKind::Sync
                    } else {
                        EngineKind::Async
                    };
                    let g = match Graph::open(&path) {
                        Ok(g) => Arc::new(g),
                        Err(e) => panic!("reader {r}: opening failed during updates: {e}"),
                    };
                    // Every third run starts late: opened before commits
                    // that land while it waits.
                    if xorshift(&mut x).is_multiple_of(3) {
                        let at = committed.load(Ordering::SeqCst);
                        while committed.load(Ordering::SeqCst) < at + 2
                            && !done.load(Ordering::SeqCst)
                        {
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                    } else {
                        std::thread::sleep(std::time::Duration::from_micros(
                            xorshift(&mut x) % 3000,
                        ));
                    }
                    match fingerprint(g, kind) {
                        Ok(f) => seen.push((kind == EngineKind::Async, f)),
                        Err(e) => panic!("reader {r}: a run failed during updates: {e}"),
                    }
                }
                seen
            })
        })
        .collect();

    let (delta, merge, compacts) = writer.join().expect("writer");
    let versions = versions.lock().expect("versions").clone();
    let mut runs = 0;
    for (r, h) in readers.into_iter().enumerate() {
        for (on_async, f) in h.join().expect("reader") {
            assert!(
                versions.iter().any(|v| v[on_async as usize] == f),
                "reader {r} saw a graph that no commit made"
            );
            runs += 1;
        }
    }
    assert!(delta > 0 && merge > 0 && compacts > 0);
    assert!(runs >= 16, "only {runs} reader runs");
    eprintln!(
        "{total} commits ({delta} delta runs, {merge} merges, {compacts} compactions), {runs} reader runs, all whole"
    );
}
