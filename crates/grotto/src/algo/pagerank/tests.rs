//! Tests of PageRank: pull and push iterations and the asynchronous push
//! against a serial power iteration, and f32 contributions against f64.

use super::*;
use crate::testkit;

/// Runs `one` (a PageRank on some engine) on each test graph, semantics
/// and engine setting, and checks it against the serial power iteration.
fn against_serial(
    one: impl Fn(&Arc<Graph>, crate::engine::EngineConfig, &PageRankConfig) -> PageRankResult,
) {
    for tg in [
        testkit::rmat(10, 8, 7, true),
        testkit::rmat(9, 6, 8, false),
        testkit::star(3000),
    ] {
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        for sem in [Semantics::Standard, Semantics::Gap] {
            let cfg = PageRankConfig {
                semantics: sem,
                tolerance: 1e-9,
                max_iterations: 300,
                ..Default::default()
            };
            for ecfg in testkit::configs() {
                let res = one(&tg.graph, ecfg.clone(), &cfg);
                assert!(res.converged);
                verify(&csr, &cfg, &res).unwrap_or_else(|e| panic!("{ecfg:?} {sem:?}: {e}"));
                if sem == Semantics::Standard {
                    let sum: f64 = res.score.iter().sum();
                    assert!((sum - 1.0).abs() < 1e-9, "sum {sum}");
                }
            }
        }
    }
}

#[test]
fn matches_serial_power_iteration() {
    against_serial(|g, ecfg, cfg| {
        let e = crate::engine::SyncEngine::open(g.clone(), ecfg).unwrap();
        e.run(|r| run(r, cfg)).unwrap().0
    });
}

#[test]
fn async_push_matches_serial_power_iteration() {
    against_serial(|g, ecfg, cfg| {
        let e = crate::engine::AsyncEngine::open(g.clone(), ecfg).unwrap();
        e.run(|r| run_async(r, cfg)).unwrap().0
    });
}

#[test]
fn f32_contributions_stay_within_the_bound_and_sum_to_one() {
    assert_eq!(Precision::Auto.resolve(1e-6), Precision::F32);
    assert_eq!(Precision::Auto.resolve(1e-7), Precision::F64);
    assert_eq!(Precision::F32.resolve(1e-12), Precision::F32);
    for tg in [testkit::rmat(10, 8, 7, true), testkit::star(3000)] {
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        for sem in [Semantics::Standard, Semantics::Gap] {
            let cfg = PageRankConfig {
                semantics: sem,
                tolerance: 1e-6,
                ..Default::default()
            };
            let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
            let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
            assert_eq!(res.contributions, Precision::F32);
            assert!(res.converged);
            verify(&csr, &cfg, &res).unwrap_or_else(|e| panic!("{sem:?}: {e}"));
            let f64_cfg = PageRankConfig {
                contributions: Precision::F64,
                ..cfg.clone()
            };
            let (exact, _) = e.run(|r| run(r, &f64_cfg)).unwrap();
            assert_eq!(exact.contributions, Precision::F64);
            let l1: f64 = res
                .score
                .iter()
                .zip(&exact.score)
                .map(|(a, b)| (a - b).abs())
                .sum();
            // Both stop within tolerance d/(1-d) of the fixed point.
            assert!(
                l1 < 2.0 * 6.0 * cfg.tolerance,
                "{sem:?}: f32 and f64 differ by {l1:e}"
            );
        }
    }
}

#[test]
fn push_style_without_reverse_edges() {
    let tg = testkit::from_edges(&[(0, 1), (1, 2), (2, 0), (2, 3), (4, 2)], false, false);
    let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
    let cfg = PageRankConfig {
        tolerance: 1e-10,
        ..Default::default()
    };
    let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
    let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
    assert_eq!(res.style, "push");
    verify(&csr, &cfg, &res).unwrap();
}
