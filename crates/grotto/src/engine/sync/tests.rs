//! Tests of the synchronous engine: modes, caches, faults.

use super::*;
use crate::cache::CacheSize;
use crate::io::{FaultPlan, IoOptions};
use crate::testkit;
use crate::Error;

fn count_reached(e: &SyncEngine) -> Result<u64> {
    let n = e.graph().vertex_count();
    e.run(|r| {
        let seen = AtomicBitmap::new(n);
        seen.insert(0);
        let mut f = Frontier::single(0);
        let mut total = 0;
        while !f.is_empty() {
            total += f.len();
            f = r.step(&f, Direction::Out, |_, edges, next| {
                for &u in edges.ids {
                    if seen.insert(u as u64) {
                        next.activate(u);
                    }
                }
            })?;
        }
        Ok(total)
    })
    .map(|p| p.0)
}

#[test]
fn read_errors_end_the_run_with_the_block_named() {
    // About 40 blocks read one per request (no merging): at least one
    // of the two readers pushes a fifth request, whatever the
    // scheduling (a 7-block graph with merged requests sometimes
    // finished without any reader reaching five).
    let tg = testkit::grid(100, 100);
    for mode in [Mode::Vertex, Mode::Block] {
        for backend in [
            crate::io::BackendChoice::Auto,
            crate::io::BackendChoice::Pread,
        ] {
            let cfg = EngineConfig {
                mode,
                threads: 2,
                concurrency: 8,
                cache: CacheSize::Bytes(8 * 4096),
                merge_bytes: 4096,
                io: IoOptions {
                    backend,
                    faults: Some(FaultPlan {
                        eio_every: 5,
                        ..FaultPlan::default()
                    }),
                    ..IoOptions::default()
                },
            };
            let e = SyncEngine::open(tg.graph.clone(), cfg).unwrap();
            let err = count_reached(&e).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, Error::Io { .. }), "{msg}");
            assert!(msg.contains("out block"), "{msg}");
        }
    }
}

#[test]
fn short_reads_and_interrupts_change_nothing() {
    let tg = testkit::rmat(10, 8, 21, true);
    let clean = SyncEngine::open(tg.graph.clone(), EngineConfig::default()).unwrap();
    let want = count_reached(&clean).unwrap();
    for mode in [Mode::Vertex, Mode::Block] {
        let cfg = EngineConfig {
            mode,
            threads: 2,
            concurrency: 16,
            cache: CacheSize::Bytes(16 * 4096),
            io: IoOptions {
                faults: Some(FaultPlan {
                    short_every: 3,
                    eintr_every: 7,
                    eagain_every: 11,
                    ..FaultPlan::default()
                }),
                ..IoOptions::default()
            },
            ..EngineConfig::default()
        };
        let e = SyncEngine::open(tg.graph.clone(), cfg).unwrap();
        assert_eq!(count_reached(&e).unwrap(), want);
    }
}

#[test]
fn block_mode_reads_each_block_at_most_once_per_level() {
    let tg = testkit::rmat(11, 8, 22, true);
    let blocks = tg.graph.out().block_count();
    for cache in [CacheSize::Bytes(4096), CacheSize::Percent(100.0)] {
        let cfg = EngineConfig {
            cache,
            ..EngineConfig::default()
        };
        let e = SyncEngine::open(tg.graph.clone(), cfg).unwrap();
        let n = e.graph().vertex_count();
        let ((), m) = e
            .run(|r| {
                r.step(&Frontier::all(n), Direction::Out, |_, _, _| {})?;
                Ok(())
            })
            .unwrap();
        assert_eq!(m.bytes_read, blocks * 4096);
    }
}

#[test]
fn unchecked_and_checked_activations_make_the_same_frontiers() {
    // Every vertex activates its neighbours that are multiples of
    // `m`: once through the duplicate check, once through
    // `activate_new` with a claim bitmap; small m gives a dense next
    // frontier, large m a sparse one.
    let tg = testkit::rmat(11, 8, 23, true);
    let e = SyncEngine::open(tg.graph.clone(), EngineConfig::default()).unwrap();
    let n = e.graph().vertex_count();
    for m in [1u32, 97] {
        let (fronts, _) = e
            .run(|r| {
                let checked = r.step(&Frontier::all(n), Direction::Out, |_, edges, next| {
                    for &u in edges.ids.iter().filter(|&&u| u % m == 0) {
                        next.activate(u);
                    }
                })?;
                let claimed = AtomicBitmap::new(n);
                let fresh = r.step(&Frontier::all(n), Direction::Out, |_, edges, next| {
                    for &u in edges.ids.iter().filter(|&&u| u % m == 0) {
                        if claimed.insert(u as u64) {
                            next.activate_new(u);
                        }
                    }
                })?;
                Ok((checked, fresh))
            })
            .unwrap();
        assert_eq!(
            fronts.0.is_dense(),
            m == 1,
            "both frontier forms are covered"
        );
        assert_eq!(fronts.0.is_dense(), fronts.1.is_dense());
        assert_eq!(fronts.0.len(), fronts.1.len());
        assert_eq!(fronts.0.to_vec(), fronts.1.to_vec());
        assert!(!fronts.0.is_empty());
    }
}

#[test]
fn long_activation_lists_spill_into_a_dense_frontier() {
    // A star's centre activates 40,000 leaves from one list, past the
    // 16Ki-vertex bound of a worker's list, in a graph of 1.4M vertices
    // (where 40,000 would make a sparse frontier): both kinds of
    // activation spill into the bitmap, and the frontier is dense with
    // every leaf, once.
    let mut edges: Vec<(u64, u64)> = (1..=40_000).map(|i| (0, i)).collect();
    edges.push((1_400_000, 1_400_001));
    let tg = testkit::from_edges_with(
        &edges,
        &crate::ingest::ConvertOptions {
            undirected: true,
            ids: crate::ingest::IdMode::Dense,
            ..Default::default()
        },
    );
    let e = SyncEngine::open(tg.graph.clone(), EngineConfig::default()).unwrap();
    let n = e.graph().vertex_count();
    assert!(
        n > 32 * 40_000,
        "{n} vertices: a sparse frontier without the spill"
    );
    let centre = (0..n as VertexId)
        .max_by_key(|&v| e.graph().out().degree(v))
        .unwrap();
    let (fronts, _) = e
        .run(|r| {
            let one = Frontier::single(centre);
            let checked = r.step(&one, Direction::Out, |_, edges, next| {
                for &u in edges.ids {
                    next.activate(u);
                    next.activate(u);
                }
            })?;
            let fresh = r.step(&one, Direction::Out, |_, edges, next| {
                for &u in edges.ids {
                    next.activate_new(u);
                }
            })?;
            Ok((checked, fresh))
        })
        .unwrap();
    let leaves = e.graph().neighbors(centre).unwrap();
    assert_eq!(leaves.len(), 40_000);
    for f in [fronts.0, fronts.1] {
        assert!(f.is_dense());
        assert_eq!(f.len(), 40_000);
        assert!(f.to_vec() == leaves, "the leaves, each once");
    }
}

#[test]
fn eager_visits_only_whole_lists_in_loaded_blocks() {
    let tg = testkit::rmat(11, 8, 24, true);
    let adj = tg.graph.out();
    let n = tg.graph.vertex_count();
    // A frontier of a few vertices with lists on disk.
    let front: Vec<VertexId> = (0..n as VertexId)
        .filter(|&v| adj.disk_span(v).is_some())
        .step_by(97)
        .collect();
    let loaded: std::collections::HashSet<u64> = front
        .iter()
        .flat_map(|&v| {
            let (a, b) = adj.block_range(v).unwrap();
            a..=b
        })
        .collect();
    for mode in [Mode::Block, Mode::Vertex] {
        let cfg = EngineConfig {
            mode,
            ..EngineConfig::default()
        };
        let e = SyncEngine::open(tg.graph.clone(), cfg).unwrap();
        let offered = AtomicBitmap::new(n);
        let edges_seen: Vec<std::sync::atomic::AtomicU64> = (0..n)
            .map(|_| std::sync::atomic::AtomicU64::new(0))
            .collect();
        let frontier = Frontier::from_vertices(front.clone());
        e.run(|r| {
            r.step_eager(
                &frontier,
                Direction::Out,
                |v| offered.insert(v as u64) && v % 2 == 0,
                |v, edges, _| {
                    edges_seen[v as usize].fetch_add(edges.ids.len() as u64, Ordering::Relaxed);
                },
            )
        })
        .unwrap();
        let offered = offered.to_vec_for_test();
        if mode == Mode::Vertex {
            assert!(offered.is_empty());
            continue;
        }
        assert!(!offered.is_empty());
        for &v in &offered {
            let (a, b) = adj.block_range(v as VertexId).unwrap();
            let d = adj.degree(v as VertexId);
            assert!(!front.contains(&(v as VertexId)));
            assert_eq!(a, b, "a whole list");
            assert!(loaded.contains(&a), "in a loaded block");
            let want = if v % 2 == 0 { d } else { 0 };
            assert_eq!(edges_seen[v as usize].load(Ordering::Relaxed), want);
        }
    }
}

#[test]
fn bad_settings_are_refused() {
    let tg = testkit::grid(3, 3);
    for cfg in [
        EngineConfig {
            concurrency: 0,
            ..EngineConfig::default()
        },
        EngineConfig {
            threads: 0,
            ..EngineConfig::default()
        },
    ] {
        assert!(SyncEngine::open(tg.graph.clone(), cfg).is_err());
    }
}
