//! Tests of the asynchronous engine: seeds, deferral, settings.

use super::*;
use crate::store::Direction;
use crate::testkit;
use std::sync::atomic::{AtomicU32, Ordering};

/// BFS depths by label correction on the async engine, edge by edge
/// ([`AsyncRun::flow`]) or a run at a time ([`AsyncRun::flow_runs`]).
fn depths(e: &AsyncEngine, s: VertexId, runs: bool) -> Vec<u32> {
    let n = e.graph().vertex_count() as usize;
    let (d, _) = e
        .run(|run| {
            let depth: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
            depth[s as usize].store(0, Ordering::Relaxed);
            let relax = |d: u32, u: VertexId| {
                let old = depth[u as usize].fetch_min(d + 1, Ordering::Relaxed);
                (d + 1 < old).then_some(Priority(d + 1))
            };
            let seeds = Seeds::List(&[(s, Priority::FIRST)]);
            let apply = |v: VertexId| Some(depth[v as usize].load(Ordering::Relaxed));
            if runs {
                run.flow_runs(&Flow::default(), seeds, apply, |d, nb, act| {
                    for &u in nb.ids {
                        if let Some(p) = relax(d, u) {
                            act.activate(u, p);
                        }
                    }
                })?;
            } else {
                run.flow(&Flow::default(), seeds, apply, |d, e| relax(d, e.dst))?;
            }
            Ok(depth
                .into_iter()
                .map(|a| a.into_inner())
                .collect::<Vec<_>>())
        })
        .unwrap();
    d
}

/// How many times each vertex was applied in a pass from `seeds` that
/// sends nothing.
fn applied(e: &AsyncEngine, seeds: Seeds<'_>) -> Vec<u32> {
    let n = e.graph().vertex_count() as usize;
    let (runs, _) = e
        .run(|run| {
            let runs: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            run.flow(
                &Flow::default(),
                seeds,
                |v| {
                    runs[v as usize].fetch_add(1, Ordering::Relaxed);
                    None::<()>
                },
                |(), _| None,
            )?;
            Ok(runs.into_iter().map(|a| a.into_inner()).collect::<Vec<_>>())
        })
        .unwrap();
    runs
}

#[test]
fn every_kind_of_seed_runs_each_chosen_vertex_once() {
    // Lists inline in the index, in the short region and long, and
    // isolated vertices; seeding runs on several threads.
    let t = testkit::rmat(12, 4, 5, true);
    let n = t.graph.vertex_count() as VertexId;
    let chosen = |v: VertexId| v % 3 != 1;
    let want: Vec<u32> = (0..n).map(|v| u32::from(chosen(v))).collect();
    let mut list: Vec<(VertexId, Priority)> = (0..n)
        .rev()
        .filter(|&v| chosen(v))
        .map(|v| (v, Priority(v % 7)))
        .collect();
    // Repeats and ids out of range are ignored.
    list.push((0, Priority(3)));
    list.push((n + 5, Priority::FIRST));
    let pick = |v: VertexId| chosen(v).then_some(Priority(v % 5));
    for cfg in testkit::configs() {
        let e = AsyncEngine::open(Arc::clone(&t.graph), cfg.clone()).unwrap();
        assert_eq!(applied(&e, Seeds::Where(&pick)), want, "where, {cfg:?}");
        assert_eq!(applied(&e, Seeds::List(&list)), want, "list, {cfg:?}");
        let all = vec![1; n as usize];
        assert_eq!(applied(&e, Seeds::All(Priority(2))), all, "all, {cfg:?}");
        let f = |v: VertexId| Priority(v / 100);
        assert_eq!(applied(&e, Seeds::AllWith(&f)), all, "all with, {cfg:?}");
    }
}

#[test]
fn deferred_vertices_wait_for_their_block_and_are_never_lost() {
    let t = testkit::rmat(12, 4, 5, true);
    let g = &t.graph;
    let n = g.vertex_count() as usize;
    let adj = g.adjacency(Direction::Out).unwrap();
    // The first block of each list (raw or packed), and the source's.
    let block = |v: VertexId| adj.block_range(v).map(|(first, _)| first);
    let s = (0..n as VertexId).max_by_key(|&v| adj.degree(v)).unwrap();
    let (lo, hi) = adj.block_range(s).unwrap();
    let nbrs = crate::algo::reference::Csr::load(g, Direction::Out)
        .unwrap()
        .neighbors(s)
        .to_vec();
    for cfg in testkit::configs() {
        let e = AsyncEngine::open(Arc::clone(g), cfg.clone()).unwrap();
        let ((first, total, left, after), _) = e
            .run(|run| {
                let runs: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
                let count = |v: VertexId| runs[v as usize].fetch_add(1, Ordering::Relaxed);
                // The source defers all its neighbours.
                run.flow(
                    &Flow::default(),
                    Seeds::List(&[(s, Priority::FIRST)]),
                    |v| (count(v) == 0 && v == s).then_some(()),
                    |(), _| Some(Priority::DEFER),
                )?;
                let first: Vec<u32> = runs.iter().map(|a| a.load(Ordering::Relaxed)).collect();
                let left = run.active_vertices();
                // A later flow from what is left runs it.
                let seeds: Vec<(VertexId, Priority)> =
                    left.iter().map(|&v| (v, Priority::FIRST)).collect();
                run.flow(
                    &Flow::default(),
                    Seeds::List(&seeds),
                    |v| {
                        count(v);
                        None::<()>
                    },
                    |(), _| None,
                )?;
                let total: Vec<u32> = runs.iter().map(|a| a.load(Ordering::Relaxed)).collect();
                Ok((first, total, left, run.active_vertices()))
            })
            .unwrap();
        assert_eq!(first[s as usize], 1, "{cfg:?}");
        assert!(!left.is_empty(), "no neighbour was left waiting: {cfg:?}");
        assert!(after.is_empty(), "{cfg:?}");
        for &u in &nbrs {
            let i = u as usize;
            // Each ran once: in the first flow if its list is in the
            // index or its block was read for the source's list,
            // otherwise in the second.
            assert_eq!(total[i], 1, "vertex {u}, {cfg:?}");
            let with_source = block(u).is_none_or(|b| (lo..=hi).contains(&b));
            if first[i] == 1 {
                assert!(with_source, "vertex {u} ran without its block, {cfg:?}");
            } else {
                assert!(left.contains(&u), "vertex {u} was lost, {cfg:?}");
            }
            if block(u).is_none() {
                assert_eq!(first[i], 1, "index vertex {u} waited, {cfg:?}");
            }
        }
        let others = (0..n).filter(|&v| v != s as usize && !nbrs.contains(&(v as VertexId)));
        for v in others {
            assert_eq!(total[v], 0, "vertex {v}, {cfg:?}");
        }
    }
}

#[test]
fn label_correcting_bfs_matches_serial_bfs_in_every_setting() {
    for t in [
        testkit::rmat(10, 8, 3, true),
        testkit::star(3000),
        testkit::grid(30, 40),
    ] {
        let csr = crate::algo::reference::Csr::load(&t.graph, Direction::Out).unwrap();
        let want = csr.bfs_depths(0);
        for cfg in testkit::configs() {
            let e = AsyncEngine::open(Arc::clone(&t.graph), cfg.clone()).unwrap();
            assert_eq!(depths(&e, 0, false), want, "{cfg:?}");
            assert_eq!(depths(&e, 0, true), want, "runs, {cfg:?}");
        }
    }
}

/// BFS depths from `s` by a pass that reads ahead, with the run's
/// measurements.
fn depths_reading_ahead(e: &AsyncEngine, s: VertexId) -> (Vec<u32>, RunMetrics) {
    let n = e.graph().vertex_count() as usize;
    e.run(|run| {
        let depth: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
        depth[s as usize].store(0, Ordering::Relaxed);
        let flow = Flow {
            readahead: true,
            ..Flow::default()
        };
        run.flow(
            &flow,
            Seeds::List(&[(s, Priority::FIRST)]),
            |v| Some(depth[v as usize].load(Ordering::Relaxed)),
            |d, e| {
                let old = depth[e.dst as usize].fetch_min(d + 1, Ordering::Relaxed);
                (d + 1 < old).then_some(Priority(d + 1))
            },
        )?;
        Ok(depth
            .into_iter()
            .map(|a| a.into_inner())
            .collect::<Vec<_>>())
    })
    .unwrap()
}

#[test]
fn reading_ahead_finds_the_wave_s_blocks_and_wastes_at_most_its_limit() {
    // Two grids, one after the other in the file (the user's order): a
    // BFS in the first moves through its rows, whose blocks are read
    // ahead of the wave; none of the second grid's blocks is needed.
    let (rows, cols) = (300u64, 300u64);
    let mut edges = testkit::grid_edges(rows, cols);
    let off = rows * cols;
    let second: Vec<_> = edges.iter().map(|&(a, b)| (a + off, b + off)).collect();
    edges.extend(second);
    let t = testkit::from_edges(&edges, true, false);
    let g = t.graph.clone();
    let want = crate::algo::reference::Csr::load(&g, Direction::Out)
        .unwrap()
        .bfs_depths(0);
    let blocks = g.adjacency(Direction::Out).unwrap().block_count();
    for threads in [1, 2] {
        let cfg = EngineConfig {
            threads,
            concurrency: 4,
            cache: crate::cache::CacheSize::Percent(100.0),
            ..EngineConfig::default()
        };
        let e = AsyncEngine::open(g.clone(), cfg).unwrap();
        let (got, m) = depths_reading_ahead(&e, 0);
        assert_eq!(got, want, "{threads} threads");
        // Most of the first grid's blocks came ahead of the wave, each
        // read once; what was read ahead and never used is bounded.
        let limit = (e.cache_bytes() / SLOT_BYTES as u64 / 2).min(8);
        assert!(m.readahead_blocks >= blocks / 4, "{m:?}");
        assert!(m.readahead_wasted <= limit, "{m:?}");
        assert!(
            m.bytes_read <= (blocks / 2 + limit + 4) * 4096,
            "{m:?} of {blocks}"
        );
    }
}

#[test]
fn a_wave_against_the_file_order_costs_no_more_scans_than_one_with_it() {
    // BFS on a grid from its first and from its last vertex: inside a
    // block, the second runs from high ids to low. Scans alternate their
    // direction, so neither needs a scan per vertex of a row.
    let (rows, cols) = (200u64, 300u64);
    let t = testkit::from_edges(&testkit::grid_edges(rows, cols), true, false);
    let g = t.graph.clone();
    let csr = crate::algo::reference::Csr::load(&g, Direction::Out).unwrap();
    let blocks = g.adjacency(Direction::Out).unwrap().block_count();
    let cfg = EngineConfig {
        threads: 1,
        concurrency: 4,
        cache: crate::cache::CacheSize::Percent(100.0),
        ..EngineConfig::default()
    };
    let e = AsyncEngine::open(g.clone(), cfg).unwrap();
    for s in [0, (rows * cols - 1) as VertexId] {
        let (got, m) = depths_reading_ahead(&e, s);
        assert_eq!(got, csr.bfs_depths(s), "from {s}");
        assert!(
            m.block_visits <= 4 * blocks,
            "from {s}: {} visits of {blocks} blocks",
            m.block_visits
        );
    }
}
