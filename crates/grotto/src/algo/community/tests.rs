use super::*;
use crate::algo::leiden::{self, Leiden};
use crate::algo::louvain::{self, Louvain};
use crate::algo::reference::Csr;
use crate::algo::registry::Algorithm;
use crate::engine::{EngineConfig, SyncEngine};
use crate::ingest::ConvertOptions;
use crate::store::{Direction, Graph};
use crate::testkit::{self, TestGraph};

/// Zachary's karate club (networkx's `karate_club_graph`, unweighted).
const KARATE: &[(u64, u64)] = &[
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (0, 5),
    (0, 6),
    (0, 7),
    (0, 8),
    (0, 10),
    (0, 11),
    (0, 12),
    (0, 13),
    (0, 17),
    (0, 19),
    (0, 21),
    (0, 31),
    (1, 2),
    (1, 3),
    (1, 7),
    (1, 13),
    (1, 17),
    (1, 19),
    (1, 21),
    (1, 30),
    (2, 3),
    (2, 7),
    (2, 8),
    (2, 9),
    (2, 13),
    (2, 27),
    (2, 28),
    (2, 32),
    (3, 7),
    (3, 12),
    (3, 13),
    (4, 6),
    (4, 10),
    (5, 6),
    (5, 10),
    (5, 16),
    (6, 16),
    (8, 30),
    (8, 32),
    (8, 33),
    (9, 33),
    (13, 33),
    (14, 32),
    (14, 33),
    (15, 32),
    (15, 33),
    (18, 32),
    (18, 33),
    (19, 33),
    (20, 32),
    (20, 33),
    (22, 32),
    (22, 33),
    (23, 25),
    (23, 27),
    (23, 29),
    (23, 32),
    (23, 33),
    (24, 25),
    (24, 27),
    (24, 31),
    (25, 31),
    (26, 29),
    (26, 33),
    (27, 33),
    (28, 31),
    (28, 33),
    (29, 32),
    (29, 33),
    (30, 32),
    (30, 33),
    (31, 32),
    (31, 33),
    (32, 33),
];

fn undirected(edges: &[(u64, u64)]) -> TestGraph {
    testkit::from_edges(edges, true, false)
}

/// Runs Louvain (or Leiden) with `cfg` on `g` through engine set-up `e`.
fn detect(g: &Arc<Graph>, cfg: &CommunityConfig, e: EngineConfig) -> CommunityResult {
    let engine = SyncEngine::open(g.clone(), e).unwrap();
    let out = engine
        .run(|r| {
            if cfg.refine {
                leiden::run(r, cfg)
            } else {
                louvain::run(r, cfg)
            }
        })
        .unwrap()
        .0;
    let csr = Csr::load(g, Direction::Out).unwrap();
    let verdict = if cfg.refine {
        Leiden::verify(g, &csr, cfg, &out)
    } else {
        Louvain::verify(g, &csr, cfg, &out)
    };
    assert_eq!(verdict, Ok(()), "{cfg:?}");
    out
}

fn both() -> [CommunityConfig; 2] {
    [
        CommunityConfig::default(),
        CommunityConfig {
            refine: true,
            ..CommunityConfig::default()
        },
    ]
}

/// The communities of the user's ids: sets of ids, sorted.
fn sets(g: &Graph, res: &CommunityResult) -> Vec<Vec<u64>> {
    let mut by = vec![Vec::new(); res.communities as usize];
    for (v, &c) in res.community.iter().enumerate() {
        by[c as usize].push(g.original_id(v as VertexId));
    }
    for s in &mut by {
        s.sort_unstable();
    }
    by.sort();
    by
}

#[test]
fn karate_reaches_the_known_optimum_in_every_engine_configuration() {
    let tg = undirected(KARATE);
    for cfg in both() {
        let first = detect(&tg.graph, &cfg, EngineConfig::default());
        // The best partition of the karate club has modularity 0.4198
        // (Brandes et al.); networkx's Louvain finds 0.4188 to 0.4198.
        assert!(first.modularity > 0.415, "{cfg:?}: {}", first.modularity);
        for e in testkit::configs() {
            let res = detect(&tg.graph, &cfg, e.clone());
            assert_eq!(res.community, first.community, "{cfg:?} {e:?}");
            assert_eq!(res.modularity, first.modularity);
        }
    }
}

/// Groups of `size` vertices, every pair inside a group linked with
/// probability `p_in` and across groups `p_out` (a planted partition),
/// from a seeded hash of the pair.
fn planted(groups: u64, size: u64, p_in: f64, p_out: f64, seed: u64) -> Vec<(u64, u64)> {
    let n = groups * size;
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            let p = if u / size == v / size { p_in } else { p_out };
            let h = crate::rng::Rng::new(seed, u * n + v).next_u64();
            if (h >> 11) as f64 / (1u64 << 53) as f64 <= p {
                edges.push((u, v));
            }
        }
    }
    edges
}

#[test]
fn a_planted_partition_is_recovered_and_the_same_on_any_thread_count() {
    let tg = undirected(&planted(12, 40, 0.3, 0.004, 5));
    for cfg in both() {
        let one = detect(
            &tg.graph,
            &cfg,
            EngineConfig {
                threads: 1,
                ..EngineConfig::default()
            },
        );
        let want: Vec<Vec<u64>> = (0..12).map(|g| (g * 40..g * 40 + 40).collect()).collect();
        assert_eq!(sets(&tg.graph, &one), want, "{cfg:?}");
        for threads in [2, 3, 8] {
            let e = EngineConfig {
                threads,
                cache: crate::cache::CacheSize::Bytes(8 * 4096),
                ..EngineConfig::default()
            };
            assert_eq!(detect(&tg.graph, &cfg, e).community, one.community);
        }
    }
}

#[test]
fn rmat_communities_beat_singletons_and_leiden_keeps_them_connected() {
    let tg = testkit::rmat(12, 8, 3, true);
    for cfg in both() {
        let res = detect(&tg.graph, &cfg, EngineConfig::default());
        assert!(res.modularity > 0.12, "{cfg:?}: {}", res.modularity);
        assert!(res.levels.len() >= 2);
        // Levels raise modularity, each by more than the threshold but
        // perhaps the last.
        for w in res.levels.windows(2) {
            assert!(w[1].modularity >= w[0].modularity - 1e-12);
        }
    }
}

/// Isolated vertices (half of an R-MAT graph's) take no part past the
/// file: each is a community of its own, every vertex has one community,
/// and the answer is the one the graph without them gets.
#[test]
fn isolated_vertices_stay_alone_and_leave_the_answer_as_it_is() {
    // Two cliques of five joined by an edge, among isolated vertices.
    let mut edges = Vec::new();
    for base in [3u64, 20] {
        for a in 0..5 {
            for b in a + 1..5 {
                edges.push((base + 2 * a, base + 2 * b));
            }
        }
    }
    edges.push((3, 20));
    let with = testkit::from_edges_with(
        &edges,
        &ConvertOptions {
            undirected: true,
            vertices: Some(40),
            ..ConvertOptions::default()
        },
    );
    let dense: Vec<(u64, u64)> = edges
        .iter()
        .map(|&(a, b)| {
            let at = |x: u64| {
                if x < 20 {
                    (x - 3) / 2
                } else {
                    5 + (x - 20) / 2
                }
            };
            (at(a), at(b))
        })
        .collect();
    let without = undirected(&dense);
    for cfg in both() {
        let a = detect(&with.graph, &cfg, EngineConfig::default());
        let b = detect(&without.graph, &cfg, EngineConfig::default());
        assert!((a.modularity - b.modularity).abs() < 1e-12, "{cfg:?}");
        let sets_a = sets(&with.graph, &a);
        let edged: Vec<&Vec<u64>> = sets_a.iter().filter(|s| s.len() > 1).collect();
        assert_eq!(edged.len(), 2, "{cfg:?}: {sets_a:?}");
        assert_eq!(a.communities, 2 + (40 - 10), "{cfg:?}: {sets_a:?}");
        for level in &a.levels[1..] {
            assert!(level.vertices <= 10, "{cfg:?}: {:?}", a.levels);
        }
    }
}

#[test]
fn weights_self_loops_and_parallel_edges_count_as_networkx_counts_them() {
    // Two triangles joined by a heavy edge, a loop on 0.
    let edges = [
        (0, 1, 1.0),
        (1, 2, 1.0),
        (0, 2, 1.0),
        (3, 4, 1.0),
        (4, 5, 1.0),
        (3, 5, 1.0),
        (2, 3, 0.5),
        (0, 0, 2.0),
    ];
    let tg = weighted_file(edges.iter().map(|&(u, v, w)| (u, v, w)), false);
    for cfg in both() {
        let res = detect(&tg.graph, &cfg, EngineConfig::default());
        assert_eq!(
            sets(&tg.graph, &res),
            vec![vec![0, 1, 2], vec![3, 4, 5]],
            "{cfg:?}"
        );
        // networkx: modularity(G, [{0,1,2},{3,4,5}]) with m = 8.5, the
        // loop in L_c once and in the degree twice.
        let m = 8.5;
        let want =
            (5.0 / m - (10.5f64 / (2.0 * m)).powi(2)) + (3.0 / m - (6.5f64 / (2.0 * m)).powi(2));
        assert!(
            (res.modularity - want).abs() < 1e-12,
            "{} {want}",
            res.modularity
        );
        assert_eq!(res.total_weight, m);
    }
    // Parallel edges add up: the same edges twice weigh as doubled.
    let mut twice = KARATE.to_vec();
    twice.extend_from_slice(&KARATE[..20]);
    let multi = testkit::from_edges_with(
        &twice,
        &ConvertOptions {
            undirected: true,
            keep_duplicates: true,
            ..ConvertOptions::default()
        },
    );
    let res = detect(
        &multi.graph,
        &CommunityConfig::default(),
        EngineConfig::default(),
    );
    assert_eq!(res.total_weight, 98.0);
}

#[test]
fn levels_kept_are_the_answers_of_max_level() {
    let tg = testkit::grid(24, 24);
    for cfg in both() {
        let all = detect(
            &tg.graph,
            &CommunityConfig {
                levels: true,
                ..cfg.clone()
            },
            EngineConfig::default(),
        );
        assert!(all.per_level.len() >= 3, "{}", all.per_level.len());
        assert_eq!(all.per_level.last(), Some(&all.community));
        for (i, col) in all.per_level.iter().enumerate() {
            let capped = CommunityConfig {
                max_level: i as u32 + 1,
                ..cfg.clone()
            };
            let res = detect(&tg.graph, &capped, EngineConfig::default());
            assert_eq!(&res.community, col, "{cfg:?} level {}", i + 1);
        }
    }
}

#[test]
fn resolution_orders_community_counts_and_bad_settings_are_refused() {
    let tg = undirected(&planted(6, 30, 0.2, 0.02, 9));
    let count = |gamma: f64| {
        let cfg = CommunityConfig {
            resolution: gamma,
            ..CommunityConfig::default()
        };
        detect(&tg.graph, &cfg, EngineConfig::default()).communities
    };
    assert!(count(0.2) <= count(1.0));
    assert!(count(1.0) <= count(5.0));
    let directed = testkit::from_edges(&[(0, 1), (1, 2)], false, true);
    let engine = SyncEngine::open(directed.graph.clone(), EngineConfig::default()).unwrap();
    let err = engine
        .run(|r| louvain::run(r, &CommunityConfig::default()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("--undirected"), "{err}");
}

#[test]
fn the_verifier_catches_a_wrong_modularity_and_a_disconnected_community() {
    let tg = undirected(&[(0, 1), (1, 2), (3, 4), (4, 5), (2, 3)]);
    let g = &tg.graph;
    let csr = Csr::load(g, Direction::Out).unwrap();
    let cfg = CommunityConfig::default();
    let mut res = detect(g, &cfg, EngineConfig::default());
    res.modularity += 0.01;
    assert!(Louvain::verify(g, &csr, &cfg, &res).is_err());
    // {0, 1, 4, 5} and {2, 3}: the first is in two pieces.
    let order: Vec<u64> = (0..6).map(|v| g.original_id(v)).collect();
    let community: Vec<u32> = order
        .iter()
        .map(|&id| if id == 2 || id == 3 { 1 } else { 0 })
        .collect();
    let q = serial_modularity(&csr, false, &community, 1.0);
    let bad = CommunityResult {
        community,
        communities: 2,
        modularity: q,
        levels: Vec::new(),
        per_level: Vec::new(),
        total_weight: 5.0,
        memory_bytes: 0,
        scratch_read_bytes: 0,
    };
    assert_eq!(Louvain::verify(g, &csr, &cfg, &bad), Ok(()));
    let err = Leiden::verify(g, &csr, &cfg, &bad).unwrap_err();
    assert!(err.0.contains("disconnected"), "{err}");
}

#[test]
fn levels_past_the_memory_budget_go_to_scratch_files_with_the_same_answer() {
    for tg in [testkit::rmat(11, 8, 5, true), testkit::grid(40, 40)] {
        for cfg in both() {
            let free = detect(&tg.graph, &cfg, EngineConfig::default());
            assert!(free
                .levels
                .iter()
                .all(|l| l.next_in_memory && l.passes == 1));
            let tight = CommunityConfig {
                memory: Some(crate::cache::CacheSize::Bytes(64 << 10)),
                ..cfg.clone()
            };
            for e in [EngineConfig::default(), testkit::configs().remove(0)] {
                let res = detect(&tg.graph, &tight, e);
                assert_eq!(res.community, free.community, "{cfg:?}");
                assert_eq!(res.modularity, free.modularity);
                assert!(res.levels.iter().any(|l| l.passes > 1), "{:?}", res.levels);
                assert!(res.levels.iter().any(|l| l.scratch), "{:?}", res.levels);
                assert!(res.scratch_read_bytes > 0);
            }
        }
    }
}

/// Modularity by its definition, pair by pair:
/// `Q = (1 / 2m) Σ_ij (A_ij − γ k_i k_j / 2m) [c_i = c_j]`, with a loop
/// counted twice in `A_ii` (networkx's degree convention); the check on
/// the verifier's sum.
fn by_definition(n: usize, edges: &[(u64, u64, f64)], community: &[u32], gamma: f64) -> f64 {
    let mut a = vec![vec![0.0f64; n]; n];
    for &(u, v, w) in edges {
        let (u, v) = (u as usize, v as usize);
        if u == v {
            a[u][u] += 2.0 * w;
        } else {
            a[u][v] += w;
            a[v][u] += w;
        }
    }
    let k: Vec<f64> = a.iter().map(|r| r.iter().sum()).collect();
    let m2: f64 = k.iter().sum();
    if m2 == 0.0 {
        return 0.0;
    }
    let mut q = 0.0;
    for i in 0..n {
        for j in 0..n {
            if community[i] == community[j] {
                q += a[i][j] - gamma * k[i] * k[j] / m2;
            }
        }
    }
    q / m2
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 24, ..Default::default() })]

    /// On random weighted multigraphs with loops and sparse ids: the
    /// verifier's serial sum is modularity by its definition for the run's
    /// partition and a random one; every vertex has exactly one community,
    /// numbered in first-vertex order; the ids come back as given.
    #[test]
    fn modularity_sums_and_partitions_hold_on_random_graphs(
        raw in proptest::collection::vec((0u64..14, 0u64..14, 1u8..5), 1..50),
        relabel in proptest::collection::vec(0u32..4, 14),
        gamma in 0.3f64..2.0,
        spread in 1u64..1_000_000_007,
    ) {
        let tg = weighted_file(raw.iter().map(|&(u, v, w)| (u * spread, v * spread, w as f64)), true);
        let g = tg.graph.clone();
        let n = g.vertex_count() as usize;
        // The edges in internal ids.
        let edges: Vec<(u64, u64, f64)> = raw
            .iter()
            .map(|&(u, v, w)| {
                let a = g.vertex_of(u * spread).unwrap() as u64;
                let b = g.vertex_of(v * spread).unwrap() as u64;
                (a, b, w as f64)
            })
            .collect();
        let csr = Csr::load(&g, Direction::Out).unwrap();
        let random: Vec<u32> = (0..n).map(|v| relabel[(g.original_id(v as VertexId) / spread) as usize]).collect();
        let q = serial_modularity(&csr, true, &random, gamma);
        proptest::prop_assert!((q - by_definition(n, &edges, &random, gamma)).abs() < 1e-12);
        for refine in [false, true] {
            let cfg = CommunityConfig { resolution: gamma, refine, ..CommunityConfig::default() };
            let res = detect(&g, &cfg, EngineConfig::default());
            let want = by_definition(n, &edges, &res.community, gamma);
            proptest::prop_assert!((res.modularity - want).abs() < 1e-12, "{} {}", res.modularity, want);
            proptest::prop_assert_eq!(res.community.len(), n);
            let ids: std::collections::BTreeSet<u64> = (0..n).map(|v| g.original_id(v as VertexId)).collect();
            let given: std::collections::BTreeSet<u64> = raw.iter().flat_map(|&(u, v, _)| [u * spread, v * spread]).collect();
            proptest::prop_assert_eq!(ids, given);
        }
    }
}

/// An undirected weighted graph file of `edges` (self loops kept, and
/// parallel edges when `duplicates`), converted from an edge list.
fn weighted_file(edges: impl Iterator<Item = (u64, u64, f64)>, duplicates: bool) -> TestGraph {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("w.el");
    let body: String = edges.map(|(u, v, w)| format!("{u} {v} {w}\n")).collect();
    std::fs::write(&text, body).unwrap();
    let out = dir.path().join("w.grotto");
    let opts = ConvertOptions {
        undirected: true,
        weighted: Some(true),
        keep_self_loops: true,
        keep_duplicates: duplicates,
        ..ConvertOptions::default()
    };
    crate::ingest::convert(&crate::ingest::Input::path(&text), &out, &opts).unwrap();
    TestGraph {
        graph: Arc::new(Graph::open(&out).unwrap()),
        _dir: dir,
    }
}
