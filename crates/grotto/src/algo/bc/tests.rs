use super::*;
use crate::engine::{EngineConfig, SyncEngine};
use crate::ingest::ConvertOptions;
use crate::testkit::{self, TestGraph};

fn bc(g: &Arc<Graph>, cfg: &BcConfig, e: EngineConfig) -> BcResult {
    let engine = SyncEngine::open(g.clone(), e).unwrap();
    engine.run(|r| run(r, cfg)).unwrap().0
}

fn by_id(g: &Graph, res: &BcResult) -> Vec<(u64, f64)> {
    let mut v: Vec<(u64, f64)> = (0..g.vertex_count() as VertexId)
        .map(|v| (g.original_id(v), res.score[v as usize]))
        .collect();
    v.sort_by_key(|x| x.0);
    v
}

fn cfg(sources: Vec<VertexId>, sampled: bool, normalized: bool, endpoints: bool) -> BcConfig {
    BcConfig {
        sources,
        sampled,
        normalized,
        endpoints,
    }
}

/// Verified against the serial reference in every engine configuration
/// (`all`) or the default one.
fn agrees(tg: &TestGraph, c: &BcConfig, all: bool) {
    let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
    let configs = if all {
        testkit::configs()
    } else {
        vec![EngineConfig::default()]
    };
    for e in configs {
        let res = bc(&tg.graph, c, e.clone());
        assert_eq!(verify(&tg.graph, &csr, c, &res), Ok(()), "{c:?} {e:?}");
    }
}

/// A path 0-1-2-3 (undirected): networkx's normalized=False gives 0, 2,
/// 2, 0; normalized=True 0, 2/3, 2/3, 0; endpoints=True adds the ends.
#[test]
fn a_path_as_networkx_scores_it() {
    let tg = testkit::from_edges(&[(0, 1), (1, 2), (2, 3)], true, false);
    let e = EngineConfig::default();
    let got = by_id(
        &tg.graph,
        &bc(&tg.graph, &cfg(vec![], false, false, false), e.clone()),
    );
    assert_eq!(got, vec![(0, 0.0), (1, 2.0), (2, 2.0), (3, 0.0)]);
    let got = by_id(
        &tg.graph,
        &bc(&tg.graph, &cfg(vec![], false, true, false), e.clone()),
    );
    for (x, want) in got.iter().zip([0.0, 2.0 / 3.0, 2.0 / 3.0, 0.0]) {
        assert!((x.1 - want).abs() < 1e-15, "{got:?}");
    }
    // networkx: betweenness_centrality(path_graph(4), normalized=False,
    // endpoints=True) = {0: 3, 1: 5, 2: 5, 3: 3}.
    let got = by_id(
        &tg.graph,
        &bc(&tg.graph, &cfg(vec![], false, false, true), e),
    );
    assert_eq!(got, vec![(0, 3.0), (1, 5.0), (2, 5.0), (3, 3.0)]);
}

/// Two shortest paths through different middles share the dependency.
#[test]
fn a_diamond_splits_paths() {
    // Directed 0->1->3, 0->2->3: 1 and 2 each carry half of (0, 3).
    let tg = testkit::from_edges(&[(0, 1), (0, 2), (1, 3), (2, 3)], false, false);
    let got = by_id(
        &tg.graph,
        &bc(
            &tg.graph,
            &cfg(vec![], false, false, false),
            EngineConfig::default(),
        ),
    );
    assert_eq!(got, vec![(0, 0.0), (1, 0.5), (2, 0.5), (3, 0.0)]);
}

#[test]
fn rmat_graphs_every_way() {
    let u = testkit::rmat(7, 6, 2, true);
    let d = testkit::from_edges_with(
        &testkit::rmat_edges(7, 6, 4),
        &ConvertOptions {
            keep_self_loops: true,
            ..ConvertOptions::default()
        },
    );
    for tg in [&u, &d] {
        let g = &tg.graph;
        agrees(tg, &cfg(vec![], false, false, false), false);
        agrees(tg, &cfg(vec![], false, true, true), false);
        let s = sample(g, 7, 3);
        assert_eq!(s.len(), 7);
        agrees(tg, &cfg(s.clone(), true, true, false), true);
        agrees(tg, &cfg(s.clone(), true, false, false), false);
        agrees(tg, &cfg(s[..2].to_vec(), false, false, false), true);
    }
}

/// The same seed draws the same sources, by the user's order, whatever
/// the file's internal order.
#[test]
fn sampling_follows_the_users_order() {
    let a = testkit::rmat(9, 8, 7, true);
    let b = testkit::rmat_ordered(9, 8, 7);
    let ids = |g: &Graph, s: Vec<VertexId>| {
        let mut v: Vec<u64> = s.into_iter().map(|v| g.original_id(v)).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(
        ids(&a.graph, sample(&a.graph, 20, 5)),
        ids(&b.graph, sample(&b.graph, 20, 5))
    );
    assert_ne!(
        ids(&a.graph, sample(&a.graph, 20, 5)),
        ids(&a.graph, sample(&a.graph, 20, 6))
    );
}

#[test]
fn the_verifier_catches_a_wrong_score() {
    let tg = testkit::rmat(7, 6, 1, true);
    let c = cfg(vec![], false, false, false);
    let mut res = bc(&tg.graph, &c, EngineConfig::default());
    let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
    assert_eq!(verify(&tg.graph, &csr, &c, &res), Ok(()));
    let top = super::super::top_k(res.score.len(), 1, |v| res.score[v])[0];
    res.score[top] *= 1.0 + 1e-6;
    assert!(verify(&tg.graph, &csr, &c, &res).is_err());
}
