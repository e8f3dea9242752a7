use super::*;
use crate::engine::{EngineConfig, SyncEngine};
use crate::ingest::{convert, ConvertOptions, Format, Input};
use crate::testkit::{self, TestGraph};
use std::path::{Path, PathBuf};

/// CDLP on `g` with `cfg` through the synchronous engine set up as `e`.
fn cdlp(g: &Arc<Graph>, cfg: &CdlpConfig, e: EngineConfig) -> Result<CdlpResult> {
    let engine = SyncEngine::open(g.clone(), e)?;
    Ok(engine.run(|r| run(r, cfg))?.0)
}

/// The verifier's verdict on `res`.
fn check(g: &Graph, cfg: &CdlpConfig, res: &CdlpResult) -> Verdict {
    let csr = Csr::load(g, Direction::Out).unwrap();
    Cdlp::verify(g, &csr, cfg, res)
}

/// Every vertex's label, both in the user's ids.
fn by_id(g: &Graph, res: &CdlpResult) -> BTreeMap<u64, u64> {
    (0..g.vertex_count() as VertexId)
        .map(|v| {
            let l = g.original_id_of_rank(res.label[v as usize]);
            (g.original_id(v), l)
        })
        .collect()
}

fn config(iterations: u32, label_buffer: u64) -> CdlpConfig {
    CdlpConfig {
        iterations,
        label_buffer,
    }
}

/// A graph of `edges` plus the isolated vertices `alone`.
fn with_isolated(edges: &[(u64, u64)], alone: &[u64], undirected: bool) -> TestGraph {
    testkit::from_edges_with(
        edges,
        &ConvertOptions {
            undirected,
            reverse: !undirected,
            vertex_ids: Some(Arc::new(alone.to_vec())),
            ..ConvertOptions::default()
        },
    )
}

/// Runs every round count in `want` (rounds, labels by id) in every
/// engine configuration and with each label buffer, verified.
fn expect(tg: &TestGraph, buffers: &[u64], want: &[(u32, &[(u64, u64)])]) {
    for &(rounds, labels) in want {
        let want: BTreeMap<u64, u64> = labels.iter().copied().collect();
        for e in testkit::configs() {
            for &b in buffers {
                let cfg = config(rounds, b);
                let res = cdlp(&tg.graph, &cfg, e.clone()).unwrap();
                assert_eq!(
                    by_id(&tg.graph, &res),
                    want,
                    "{rounds} rounds, buffer {b}, {e:?}"
                );
                assert_eq!(check(&tg.graph, &cfg, &res), Ok(()));
            }
        }
    }
}

/// A triangle with a tail and an isolated vertex: ties go to the
/// smallest label, the isolated vertex keeps its own.
#[test]
fn undirected_ties_and_an_isolated_vertex() {
    let tg = with_isolated(&[(1, 2), (1, 3), (2, 3), (3, 4), (4, 5)], &[9], true);
    expect(
        &tg,
        &[0],
        &[
            (0, &[(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (9, 9)]),
            (1, &[(1, 2), (2, 1), (3, 1), (4, 3), (5, 4), (9, 9)]),
            (2, &[(1, 1), (2, 1), (3, 1), (4, 1), (5, 3), (9, 9)]),
        ],
    );
}

/// In- and out-neighbours together, 5 and 7 linked both ways (so 7
/// counts twice for 5 and beats 3), a vertex without out-edges (4), one
/// without in-edges (9), an isolated one (8); with ranges of one vertex
/// (buffer 1) and of a few.
#[test]
fn directed_counts_both_directions() {
    let tg = with_isolated(&[(5, 7), (7, 5), (5, 3), (3, 4), (9, 3)], &[8], false);
    expect(
        &tg,
        &[0, 1, 3, 5],
        &[
            (1, &[(3, 4), (4, 3), (5, 7), (7, 5), (8, 8), (9, 3)]),
            (2, &[(3, 3), (4, 4), (5, 5), (7, 7), (8, 8), (9, 4)]),
        ],
    );
}

#[test]
fn stops_when_labels_stop_changing() {
    let edges = [(1, 2), (2, 3), (3, 1), (7, 8), (8, 9), (9, 7)];
    let tg = testkit::from_edges(&edges, true, false);
    let cfg = config(10, 0);
    let res = cdlp(&tg.graph, &cfg, EngineConfig::default()).unwrap();
    // Round 3 changes nothing: each triangle has its smallest id.
    assert_eq!((res.iterations, res.changed), (3, 0));
    let want = BTreeMap::from([(1, 1), (2, 1), (3, 1), (7, 7), (8, 7), (9, 7)]);
    assert_eq!(by_id(&tg.graph, &res), want);
    assert_eq!(check(&tg.graph, &cfg, &res), Ok(()));
}

#[test]
fn refuses_a_directed_graph_without_reverse_edges() {
    let tg = testkit::from_edges(&[(1, 2), (2, 3)], false, false);
    let err = cdlp(&tg.graph, &config(3, 0), EngineConfig::default()).unwrap_err();
    assert!(err.to_string().contains("--reverse"), "{err}");
    let p = Params::new(Cdlp::PARAMS);
    let s = Setting {
        engine: EngineKind::Sync,
        rounds: false,
        concurrency: 1,
    };
    assert!(Cdlp::config(&tg.graph, &p, &s).is_err());
}

/// Generated graphs, directed and undirected, a degree-ordered one and a
/// hub whose list arrives in pieces, in every engine configuration, with
/// a small label buffer too (many ranges, hubs past it): the serial
/// rounds agree.
#[test]
fn matches_serial_rounds_in_every_configuration() {
    // Long runs too: undirected rounds after the first few visit only the
    // neighbours of the vertices that changed (a grid's labels keep
    // moving for many rounds, R-MAT's settle, hubs' lists come in pieces).
    for (tg, iterations) in [
        (testkit::grid(12, 30), 40),
        (testkit::rmat(10, 4, 3, true), 15),
        (hubs(true), 15),
    ] {
        for e in testkit::configs() {
            let cfg = config(iterations, 0);
            let res = cdlp(&tg.graph, &cfg, e.clone()).unwrap();
            assert_eq!(
                check(&tg.graph, &cfg, &res),
                Ok(()),
                "{iterations} rounds, {e:?}"
            );
        }
    }
    for (tg, buffers) in [
        (testkit::rmat(10, 4, 3, true), &[0][..]),
        (testkit::rmat(10, 4, 4, false), &[0, 64][..]),
        (testkit::rmat_ordered(10, 4, 5), &[0][..]),
        (hubs(true), &[0][..]),
        (hubs(false), &[0, 100][..]),
    ] {
        for e in testkit::configs() {
            for &b in buffers {
                let cfg = config(5, b);
                let res = cdlp(&tg.graph, &cfg, e.clone()).unwrap();
                assert_eq!(check(&tg.graph, &cfg, &res), Ok(()), "buffer {b}, {e:?}");
            }
        }
    }
}

/// A clique whose labels settle in one round, a path, and pairs whose two
/// labels swap every round: after the first rounds few vertices change,
/// so a round visits only the neighbours of those that did, and the
/// pairs must keep swapping (and the path settling) all the same.
#[test]
fn few_changes_visit_few_vertices_and_miss_none() {
    let mut e: Vec<(u64, u64)> = Vec::new();
    for a in 0..200 {
        for b in a + 1..200 {
            e.push((a, b));
        }
    }
    e.extend((300..308).map(|v| (v, v + 1)));
    e.extend((0..5).map(|i| (400 + 2 * i, 401 + 2 * i)));
    e.push((150, 300));
    let tg = testkit::from_edges(&e, true, false);
    for e in testkit::configs() {
        for iterations in [6, 7, 12] {
            let cfg = config(iterations, 0);
            let res = cdlp(&tg.graph, &cfg, e.clone()).unwrap();
            assert_eq!(
                check(&tg.graph, &cfg, &res),
                Ok(()),
                "{iterations} rounds, {e:?}"
            );
            assert!(res.changed >= 10, "the pairs swap every round");
        }
    }
}

/// A graph whose hubs' lists span blocks (raw blocks: packed ones hold
/// these lists whole). Directed, 0 has 3000 out- and 1500 in-neighbours,
/// 5000 has 2000 out-neighbours and no in-edges.
fn hubs(undirected: bool) -> TestGraph {
    let mut e: Vec<(u64, u64)> = (1..=3000).map(|l| (0, l)).collect();
    e.extend((1..=3000).step_by(2).map(|l| (l, 0)));
    e.extend((1..=2000).map(|l| (5000, l)));
    e.extend((1..3000).step_by(7).map(|l| (l, l + 1)));
    let raw = crate::store::layout::LayoutConfig {
        packed: false,
        ..Default::default()
    };
    let tg = testkit::from_edges_laid_out(&e, undirected, !undirected, raw);
    let g = &tg.graph;
    let mut lists = vec![(0, Direction::Out), (5000, Direction::Out)];
    if !undirected {
        lists.push((0, Direction::In));
    }
    for (id, dir) in lists {
        let v = g.vertex_of(id).unwrap();
        let span = g.adjacency(dir).unwrap().block_range(v);
        assert!(span.is_some_and(|(a, b)| b > a), "{id} {dir:?}: {span:?}");
    }
    tg
}

#[test]
fn verifier_catches_a_wrong_label_and_an_early_stop() {
    let tg = testkit::rmat(8, 4, 2, true);
    let cfg = config(4, 0);
    let res = cdlp(&tg.graph, &cfg, EngineConfig::default()).unwrap();
    assert_eq!(check(&tg.graph, &cfg, &res), Ok(()));
    let mut bad = res.clone();
    let v = (0..bad.label.len()).find(|&v| bad.label[v] != 0).unwrap();
    bad.label[v] = 0;
    assert!(check(&tg.graph, &cfg, &bad).is_err());
    let mut early = res.clone();
    (early.iterations, early.changed) = (2, 1);
    assert!(check(&tg.graph, &cfg, &early).is_err());
}

#[test]
fn tally_finds_the_smallest_most_frequent_label() {
    let mut t = Tally::default();
    assert_eq!(t.mode([].into_iter(), 0), None);
    assert_eq!(t.mode([7].into_iter(), 1), Some(7));
    assert_eq!(t.mode([9, 4, 9, 4, 5].into_iter(), 5), Some(4));
    assert_eq!(t.mode([5, 3].into_iter(), 2), Some(3));
    assert_eq!(t.mode([4, 4].into_iter(), 2), Some(4));
    // Runs of a label (counted without probing) and a tie between two.
    assert_eq!(t.mode([6, 6, 6, 2, 2, 2, 2, 6].into_iter(), 8), Some(2));
    assert_eq!(t.mode([6, 6, 6, 2, 2, 2, 6, 6].into_iter(), 8), Some(6));
    // Many distinct labels (a larger table), then a small one again.
    let many: Vec<u32> = (0..5000).map(|i| (i * 7919) % 4093).collect();
    assert_eq!(t.mode(many.iter().copied(), many.len()), Some(0));
    assert_eq!(t.mode([3, 2, 3].into_iter(), 3), Some(3));
}

/// LDBC Graphalytics' validation graphs, in `../shared` beside the
/// repository; `None` (the test skips, saying so) when that is absent.
fn validation_graphs() -> Option<PathBuf> {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if !shared.is_dir() {
        eprintln!(
            "skipped: {} is absent, so LDBC's validation graphs are not here",
            shared.display()
        );
        return None;
    }
    Some(shared.join("graphalytics/validation-graphs"))
}

/// `id value` lines.
fn expected(path: &Path) -> BTreeMap<u64, u64> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut w = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            (w.next().unwrap(), w.next().unwrap())
        })
        .collect()
}

/// Converts `input` with `opts` (directed: with reverse edges) and
/// checks `rounds` of CDLP against `want`, verified, with the default
/// buffer and one of a few labels.
fn agrees_with_ldbc(input: &Path, mut opts: ConvertOptions, rounds: u32, want: &Path) {
    opts.reverse = !opts.undirected;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.grotto");
    convert(&Input::path(input), &out, &opts).unwrap();
    let g = Arc::new(Graph::open(&out).unwrap());
    let want = expected(want);
    for b in [0, 4] {
        let cfg = config(rounds, b);
        let res = cdlp(&g, &cfg, EngineConfig::default()).unwrap();
        assert_eq!(by_id(&g, &res), want, "{} (buffer {b})", input.display());
        assert_eq!(check(&g, &cfg, &res), Ok(()));
    }
}

#[test]
fn agrees_with_ldbc_validation_graphs() {
    let Some(dir) = validation_graphs() else {
        return;
    };
    for (kind, undirected) in [("dir", false), ("undir", true)] {
        let opts = ConvertOptions {
            format: Some(Format::AdjList),
            undirected,
            ..ConvertOptions::default()
        };
        let input = dir.join(format!("cdlp/{kind}-input"));
        agrees_with_ldbc(&input, opts, 5, &dir.join(format!("cdlp/{kind}-output")));
    }
    for (kind, undirected) in [("directed", false), ("undirected", true)] {
        let base = dir.join("example").join(format!("example-{kind}"));
        let ids = std::fs::read_to_string(base.with_extension("v")).unwrap();
        let ids: Vec<u64> = ids.split_whitespace().map(|x| x.parse().unwrap()).collect();
        let opts = ConvertOptions {
            undirected,
            ignore_weights: true,
            vertex_ids: Some(Arc::new(ids)),
            ..ConvertOptions::default()
        };
        let want = dir.join("example").join(format!("example-{kind}-CDLP"));
        agrees_with_ldbc(&base.with_extension("e"), opts, 2, &want);
    }
}

proptest::proptest! {
    /// The tally's mode (sorted on the stack for short lists, counted in
    /// the table for long ones) is the smallest most frequent label.
    #[test]
    fn tally_mode_matches_a_count(labels in proptest::collection::vec(0u32..12, 0..70)) {
        let mut counts = std::collections::BTreeMap::new();
        for &l in &labels {
            *counts.entry(l).or_insert(0) += 1;
        }
        let top = counts.values().copied().max();
        let want = counts.iter().find(|(_, &c)| Some(c) == top).map(|(&l, _)| l);
        let mut t = Tally::default();
        proptest::prop_assert_eq!(t.mode(labels.iter().copied(), labels.len()), want);
    }
}
