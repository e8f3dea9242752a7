use super::*;
use crate::engine::{EngineConfig, SyncEngine};
use crate::ingest::ConvertOptions;
use crate::testkit::{self, TestGraph};
use std::collections::BTreeMap;

fn scc(g: &Arc<Graph>, e: EngineConfig) -> Result<SccResult> {
    let engine = SyncEngine::open(g.clone(), e)?;
    Ok(engine.run(|r| run(r, &SccConfig))?.0)
}

fn directed(edges: &[(u64, u64)], loops: bool) -> TestGraph {
    testkit::from_edges_with(
        edges,
        &ConvertOptions {
            reverse: true,
            keep_self_loops: loops,
            ..ConvertOptions::default()
        },
    )
}

/// Labels by id, checked by the verifier in every engine configuration.
fn labels(tg: &TestGraph) -> BTreeMap<u64, u64> {
    let g = &tg.graph;
    let csr = Csr::load(g, Direction::Out).unwrap();
    let mut first = None;
    for e in testkit::configs() {
        let res = scc(g, e.clone()).unwrap();
        assert_eq!(verify(g, &csr, &res), Ok(()), "{e:?}");
        let by_id: BTreeMap<u64, u64> = (0..g.vertex_count() as VertexId)
            .map(|v| {
                (
                    g.original_id(v),
                    g.original_id_of_rank(res.label[v as usize]),
                )
            })
            .collect();
        if let Some(f) = &first {
            assert_eq!(f, &by_id);
        }
        first = Some(by_id);
    }
    first.unwrap_or_default()
}

/// Two cycles joined one way, a tail, a chain into the first cycle and a
/// vertex with only a self loop.
#[test]
fn cycles_chains_and_a_self_loop() {
    let tg = directed(
        &[
            (1, 2),
            (2, 3),
            (3, 1), // {1,2,3}
            (3, 4),
            (4, 5),
            (5, 6),
            (6, 4), // {4,5,6}
            (6, 7), // 7 alone (a tail)
            (10, 11),
            (11, 12),
            (12, 1), // a chain into {1,2,3}
            (20, 20),
            (20, 1), // 20: a self loop only
        ],
        true,
    );
    let want: BTreeMap<u64, u64> = [
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 4),
        (5, 4),
        (6, 4),
        (7, 7),
        (10, 10),
        (11, 11),
        (12, 12),
        (20, 20),
    ]
    .into_iter()
    .collect();
    assert_eq!(labels(&tg), want);
}

#[test]
fn rmat_directed_and_undirected() {
    for seed in [1, 2] {
        let tg = testkit::from_edges_with(
            &testkit::rmat_edges(9, 4, seed),
            &ConvertOptions {
                reverse: true,
                keep_self_loops: true,
                keep_duplicates: seed == 2,
                ..ConvertOptions::default()
            },
        );
        let l = labels(&tg);
        let components: std::collections::BTreeSet<u64> = l.values().copied().collect();
        assert!(components.len() > 1 && components.len() < l.len());
    }
    labels(&testkit::rmat(8, 4, 3, true));
    labels(&testkit::grid(6, 7));
}

#[test]
fn refused_without_reverse_edges() {
    let tg = testkit::from_edges(&[(0, 1), (1, 0)], false, false);
    let err = scc(&tg.graph, EngineConfig::default()).unwrap_err();
    assert!(err.to_string().contains("--reverse"), "{err}");
}

#[test]
fn the_verifier_catches_a_wrong_label() {
    let tg = directed(&[(1, 2), (2, 1), (2, 3)], false);
    let mut res = scc(&tg.graph, EngineConfig::default()).unwrap();
    let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
    assert_eq!(verify(&tg.graph, &csr, &res), Ok(()));
    let v3 = tg.graph.vertex_named("3").unwrap();
    let v1 = tg.graph.vertex_named("1").unwrap();
    res.label[v3 as usize] = res.label[v1 as usize];
    assert!(verify(&tg.graph, &csr, &res).is_err());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// Small random directed graphs, sparse enough to leave many
    /// vertices after the pivot's component (trim and coloring at work):
    /// every label equals Tarjan's, in every engine configuration.
    #[test]
    fn random_graphs_match_tarjan(
        edges in proptest::collection::vec((0u64..40, 0u64..40), 1..90),
    ) {
        labels(&directed(&edges, true));
    }
}
