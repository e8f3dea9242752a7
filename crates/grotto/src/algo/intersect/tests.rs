use super::*;
use crate::algo::lcc::{self, LccConfig};
use crate::algo::reference::Csr;
use crate::algo::tc::{self, TcConfig};
use crate::cache::CacheSize;
use crate::engine::{EngineConfig, SyncEngine};
use crate::ingest::ConvertOptions;
use crate::testkit::{self, TestGraph};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The core's counts on `g` with a list budget of `memory` bytes.
fn counts(g: &Arc<Graph>, memory: u64, arcs: bool, e: EngineConfig) -> Counts {
    let engine = SyncEngine::open(g.clone(), e).unwrap();
    let cfg = CountConfig {
        memory,
        per_vertex: true,
        arcs,
    };
    engine.run(|r| count(r, &cfg)).unwrap().0
}

/// The serial reference's counts on `g`.
fn reference(g: &Graph, arcs: bool) -> (Vec<u64>, Vec<u32>, u64) {
    let csr = Csr::load(g, Direction::Out).unwrap();
    let inn = g.directed().then(|| csr.reversed());
    serial(&csr, inn.as_ref(), arcs)
}

/// Budgets from "everything at its degree" down to an eighth of the
/// lists (and, on a small graph, one vertex a range), so that the single
/// sweep, a few ranges and many ranges all run.
fn budgets(g: &Graph) -> Vec<u64> {
    let lists = g.edge_count() * 5 + g.vertex_count() * PER_VERTEX;
    let mut b = vec![1 << 40, lists / 2, lists / 8];
    if g.vertex_count() <= 32 {
        b.push(1);
    }
    b
}

/// The core equals the serial counts in every engine configuration and
/// at every budget.
fn agrees(tg: &TestGraph, arcs: bool) {
    let want = reference(&tg.graph, arcs);
    for e in testkit::configs() {
        for m in budgets(&tg.graph) {
            let c = counts(&tg.graph, m, arcs, e.clone());
            assert_eq!(c.triangles, want.2, "budget {m}, {e:?}");
            assert_eq!(c.per_vertex, want.0, "budget {m}, {e:?}");
            assert_eq!(c.neighbours, want.1, "budget {m}, {e:?}");
            if m < (1 << 40) && tg.graph.edge_count() > 2 {
                assert!(c.held_ranges > 1, "budget {m}: {} ranges", c.held_ranges);
            }
        }
    }
}

fn graph(edges: &[(u64, u64)], undirected: bool, messy: bool) -> TestGraph {
    testkit::from_edges_with(
        edges,
        &ConvertOptions {
            undirected,
            reverse: !undirected,
            keep_self_loops: messy,
            keep_duplicates: messy,
            ..ConvertOptions::default()
        },
    )
}

#[test]
fn k4_and_a_tail() {
    let tg = graph(
        &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3, 4)],
        true,
        false,
    );
    let want = reference(&tg.graph, false);
    assert_eq!(want.2, 4);
    assert_eq!(want.0, vec![3, 3, 3, 3, 0]);
    agrees(&tg, false);
}

/// Self loops and repeated edges change nothing.
#[test]
fn self_loops_and_repeats_are_ignored() {
    let edges = [
        (0, 1),
        (1, 0),
        (0, 1),
        (1, 2),
        (2, 0),
        (2, 2),
        (0, 0),
        (2, 3),
    ];
    let clean = graph(&edges, true, false);
    let messy = graph(&edges, true, true);
    assert_eq!(
        reference(&clean.graph, false),
        reference(&messy.graph, false)
    );
    assert_eq!(reference(&messy.graph, false).2, 1);
    agrees(&messy, false);
}

/// The directed graph of Graphalytics' LCC validation set: its
/// coefficients through the registered algorithm, at several budgets.
#[test]
fn graphalytics_directed_lcc() {
    let lists: &[(u64, &[u64])] = &[
        (1, &[3, 5]),
        (2, &[4, 5, 10]),
        (3, &[1, 5, 8, 10]),
        (5, &[3, 4, 8]),
        (6, &[3, 4]),
        (7, &[4]),
        (8, &[1]),
        (9, &[4]),
    ];
    let edges: Vec<(u64, u64)> = lists
        .iter()
        .flat_map(|&(v, l)| l.iter().map(move |&u| (v, u)))
        .collect();
    let tg = graph(&edges, false, false);
    let want: BTreeMap<u64, f64> = [
        (1, 4.0 / 6.0),
        (2, 1.0 / 6.0),
        (3, 3.0 / 20.0),
        (4, 1.0 / 20.0),
        (5, 1.0 / 4.0),
        (6, 0.0),
        (7, 0.0),
        (8, 5.0 / 6.0),
        (9, 0.0),
        (10, 0.0),
    ]
    .into_iter()
    .collect();
    for m in [None, Some(CacheSize::Bytes(64)), Some(CacheSize::Bytes(1))] {
        for e in testkit::configs() {
            let engine = SyncEngine::open(tg.graph.clone(), e).unwrap();
            let res = engine
                .run(|r| lcc::run(r, &LccConfig { memory: m }))
                .unwrap()
                .0;
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            assert_eq!(lcc::verify(&tg.graph, &csr, &res), Ok(()));
            let got: BTreeMap<u64, f64> = (0..tg.graph.vertex_count() as VertexId)
                .map(|v| (tg.graph.original_id(v), res.lcc[v as usize]))
                .collect();
            assert_eq!(got.len(), want.len());
            for (id, w) in &want {
                assert!(
                    (got[id] - w).abs() < 1e-12,
                    "vertex {id}: {} != {w}",
                    got[id]
                );
            }
        }
    }
    agrees(&tg, true);
    agrees(&tg, false);
}

/// A verifier that cannot fail checks nothing: a count off by one is
/// caught.
#[test]
fn verifiers_catch_a_wrong_count() {
    let tg = graph(&[(0, 1), (1, 2), (2, 0), (2, 3)], true, false);
    let engine = SyncEngine::open(tg.graph.clone(), EngineConfig::default()).unwrap();
    let cfg = TcConfig {
        memory: None,
        per_vertex: true,
    };
    let mut res = engine.run(|r| tc::run(r, &cfg)).unwrap().0;
    let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
    assert_eq!(tc::verify(&tg.graph, &csr, &res), Ok(()));
    res.counts.per_vertex[3] += 1;
    assert!(tc::verify(&tg.graph, &csr, &res).is_err());
    res.counts.per_vertex[3] -= 1;
    res.counts.triangles += 1;
    assert!(tc::verify(&tg.graph, &csr, &res).is_err());
    let mut l = engine
        .run(|r| lcc::run(r, &LccConfig::default()))
        .unwrap()
        .0;
    assert_eq!(lcc::verify(&tg.graph, &csr, &l), Ok(()));
    l.lcc[0] *= 1.0 + 1e-9;
    assert!(lcc::verify(&tg.graph, &csr, &l).is_err());
}

#[test]
fn rmat_undirected_and_directed() {
    agrees(&testkit::rmat(9, 8, 3, true), false);
    let d = testkit::from_edges_with(
        &testkit::rmat_edges(8, 8, 5),
        &ConvertOptions {
            reverse: true,
            ..ConvertOptions::default()
        },
    );
    agrees(&d, true);
    agrees(&d, false);
}

/// A degree-ordered file (internal ids not the user's) counts the same.
#[test]
fn degree_ordered_file() {
    let a = testkit::rmat(9, 8, 7, true);
    let b = testkit::rmat_ordered(9, 8, 7);
    assert_eq!(
        counts(&a.graph, 1 << 40, false, EngineConfig::default()).triangles,
        counts(&b.graph, 4096, false, EngineConfig::default()).triangles
    );
    agrees(&b, false);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Random multigraphs with self loops, directed or not, at a random
    /// budget: the core's counts are the serial ones.
    #[test]
    fn random_graphs(
        edges in proptest::collection::vec((0u64..24, 0u64..24), 1..120),
        undirected in any::<bool>(),
        messy in any::<bool>(),
        arcs in any::<bool>(),
        memory in 1u64..4096,
    ) {
        let tg = graph(&edges, undirected, messy);
        let want = reference(&tg.graph, arcs && !undirected);
        let cfg = EngineConfig {
            cache: CacheSize::Bytes(4 * 4096),
            threads: 2,
            ..EngineConfig::default()
        };
        let c = counts(&tg.graph, memory, arcs, cfg);
        prop_assert_eq!(c.triangles, want.2);
        prop_assert_eq!(c.per_vertex, want.0);
        prop_assert_eq!(c.neighbours, want.1);
    }
}

/// A triangle with a tail: 5 connected triples (1 + 1 + 3 at the corner
/// with the tail), so networkx's transitivity 3/5; a self loop and a
/// repeated edge change neither.
#[test]
fn connected_triples_and_transitivity() {
    let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (2, 2), (3, 2)];
    for messy in [false, true] {
        let tg = graph(&edges, true, messy);
        let c = counts(&tg.graph, 1 << 40, false, EngineConfig::default());
        assert_eq!(tc::connected_triples(&c), Some(5));
        assert_eq!(tc::transitivity(c.triangles, 5), 0.6);
    }
    assert_eq!(tc::transitivity(0, 5), 0.0);
    assert_eq!(tc::transitivity(3, 0), 0.0);
}
