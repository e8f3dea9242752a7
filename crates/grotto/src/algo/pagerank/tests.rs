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

#[test]
fn weighted_async_push_matches_the_weighted_power_iteration() {
    for undirected in [false, true] {
        let tg = testkit::weighted_rmat(10, 8, 5, undirected);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        for sem in [Semantics::Standard, Semantics::Gap] {
            let cfg = PageRankConfig {
                semantics: sem,
                tolerance: 1e-9,
                max_iterations: 300,
                weighted: true,
                ..Default::default()
            };
            for ecfg in testkit::configs() {
                let e = crate::engine::AsyncEngine::open(tg.graph.clone(), ecfg.clone()).unwrap();
                let res = e.run(|r| run_async(r, &cfg)).unwrap().0;
                assert!(res.converged);
                verify(&csr, &cfg, &res).unwrap_or_else(|e| panic!("{ecfg:?} {sem:?}: {e}"));
                // The weights matter: the unweighted scores are not these.
                let plain = serial(
                    &csr,
                    &PageRankConfig {
                        weighted: false,
                        ..cfg.clone()
                    },
                );
                let apart: f64 = plain
                    .iter()
                    .zip(&res.score)
                    .map(|(a, b)| (a - b).abs())
                    .sum();
                assert!(
                    apart > 1e-3,
                    "weighted and unweighted scores {apart:.2e} apart"
                );
            }
        }
    }
}

#[test]
fn equal_weights_give_the_unweighted_scores_and_zero_weights_dangle() {
    // Every weight 2.5: the shares are 1/outdeg, as unweighted.
    let edges: Vec<(u64, u64, f32)> = (0..40u64)
        .flat_map(|u| [(u, (u * 7 + 3) % 40, 2.5), (u, (u * 11 + 5) % 40, 2.5)])
        .chain([(3, 9, 2.5)])
        .collect();
    let g = testkit::from_weighted(&edges, false);
    let cfg = PageRankConfig {
        tolerance: 1e-10,
        max_iterations: 500,
        weighted: true,
        ..Default::default()
    };
    let e = crate::engine::AsyncEngine::open(g.graph.clone(), Default::default()).unwrap();
    let weighted = e.run(|r| run_async(r, &cfg)).unwrap().0;
    let csr = Csr::load(&g.graph, Direction::Out).unwrap();
    let plain = serial(
        &csr,
        &PageRankConfig {
            weighted: false,
            ..cfg.clone()
        },
    );
    let l1: f64 = plain
        .iter()
        .zip(&weighted.score)
        .map(|(a, b)| (a - b).abs())
        .sum();
    assert!(l1 < 1e-8, "L1 {l1:.2e}");
    // A vertex whose out-weights are all 0 is dangling: 0 -> 1 weighs
    // nothing, so 1 gets only the uniform share, as networkx has it.
    let g = testkit::from_weighted(&[(0, 1, 0.0), (1, 2, 1.0), (2, 0, 1.0)], false);
    let e = crate::engine::AsyncEngine::open(g.graph.clone(), Default::default()).unwrap();
    let res = e.run(|r| run_async(r, &cfg)).unwrap().0;
    let csr = Csr::load(&g.graph, Direction::Out).unwrap();
    verify(&csr, &cfg, &res).unwrap();
    let (d, n) = (0.85, 3.0);
    // 0 dangles: 1 = (1-d)/n + d x0/n; 2 = 1's plus d x1; 0 = ... + d x2.
    let at = |id: &str| res.score[g.graph.vertex_named(id).unwrap() as usize];
    let want = (1.0 - d) / n + d * at("0") / n;
    assert!((at("1") - want).abs() < 1e-8, "{:?}", res.score);
}

#[test]
fn weighted_pagerank_refuses_what_it_cannot_run() {
    let cfg = PageRankConfig {
        weighted: true,
        ..Default::default()
    };
    let g = testkit::from_weighted(&[(0, 1, 1.0), (1, 2, -2.0), (2, 0, 1.0)], false);
    let e = crate::engine::AsyncEngine::open(g.graph.clone(), Default::default()).unwrap();
    let err = e.run(|r| run_async(r, &cfg)).unwrap_err().to_string();
    assert!(err.contains("1 -> 2 has weight -2"), "{err}");
    let e = crate::engine::SyncEngine::open(g.graph.clone(), Default::default()).unwrap();
    let err = e.run(|r| run(r, &cfg)).unwrap_err().to_string();
    assert!(err.contains("asynchronous engine"), "{err}");
    let plain = testkit::rmat(8, 4, 1, true);
    let e = crate::engine::AsyncEngine::open(plain.graph.clone(), Default::default()).unwrap();
    let err = e.run(|r| run_async(r, &cfg)).unwrap_err().to_string();
    assert!(err.contains("needs edge weights"), "{err}");
}

#[test]
fn gauss_seidel_and_auto_sweeps_stay_within_the_bound() {
    for tg in [
        testkit::grid(40, 40),
        testkit::rmat(10, 8, 7, true),
        testkit::rmat(9, 6, 8, false),
    ] {
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        for method in [Method::GaussSeidel, Method::Auto] {
            for sem in [Semantics::Standard, Semantics::Gap] {
                let cfg = PageRankConfig {
                    semantics: sem,
                    tolerance: 1e-9,
                    max_iterations: 300,
                    method,
                    ..Default::default()
                };
                for ecfg in testkit::configs() {
                    let e =
                        crate::engine::SyncEngine::open(tg.graph.clone(), ecfg.clone()).unwrap();
                    let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
                    assert!(res.converged, "{method:?} {sem:?} {ecfg:?}");
                    if method == Method::GaussSeidel {
                        assert_eq!(res.gauss_seidel, res.iterations);
                    }
                    verify(&csr, &cfg, &res)
                        .unwrap_or_else(|e| panic!("{method:?} {sem:?} {ecfg:?}: {e}"));
                }
            }
        }
    }
}

#[test]
fn auto_turns_to_gauss_seidel_where_jacobi_is_slow_and_saves_iterations() {
    let tg = testkit::grid(60, 60);
    let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
    let with = |method| {
        let cfg = PageRankConfig {
            method,
            ..Default::default()
        };
        e.run(|r| run(r, &cfg)).unwrap().0
    };
    let (jacobi, auto) = (with(Method::Jacobi), with(Method::Auto));
    assert_eq!(jacobi.gauss_seidel, 0);
    assert!(auto.gauss_seidel > 0, "auto never turned");
    // A tolerance no change can meet asks for fixed (Jacobi) iterations.
    let fixed = |method| {
        let cfg = PageRankConfig {
            method,
            tolerance: 1e-300,
            max_iterations: 30,
            ..Default::default()
        };
        e.run(|r| run(r, &cfg)).unwrap().0
    };
    let (a, j) = (fixed(Method::Auto), fixed(Method::Jacobi));
    assert_eq!((a.iterations, a.gauss_seidel), (30, 0));
    assert_eq!(a.score, j.score);
    assert!(
        auto.iterations * 4 < jacobi.iterations * 3,
        "auto {} iterations, jacobi {}",
        auto.iterations,
        jacobi.iterations
    );
    // Jacobi's scores do not depend on the threads.
    for threads in [1, 3] {
        let ecfg = crate::engine::EngineConfig {
            threads,
            ..Default::default()
        };
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), ecfg).unwrap();
        let cfg = PageRankConfig {
            method: Method::Jacobi,
            ..Default::default()
        };
        assert_eq!(e.run(|r| run(r, &cfg)).unwrap().0.score, jacobi.score);
    }
}

#[test]
fn the_switch_turns_on_slow_jacobi_and_back_on_slow_gauss_seidel() {
    let auto = PageRankConfig::default();
    // Jacobi shrinking by 0.4 an iteration: stays.
    let mut s = Switch::new(&auto);
    let mut change = 1.0;
    for _ in 0..10 {
        change *= 0.4;
        assert!(!s.next(false, change));
    }
    // Jacobi shrinking by 0.8: turns after the second iteration.
    let mut s = Switch::new(&auto);
    assert!(!s.next(false, 1.0));
    assert!(s.next(false, 0.8));
    // Gauss-Seidel at 0.5 an iteration (0.25 per two, below d^2): keeps on.
    assert!(s.next(true, 0.4));
    assert!(s.next(true, 0.2));
    assert!(s.next(true, 0.1));
    // Then slower than d^2 over two iterations: back to Jacobi for good.
    assert!(s.next(true, 0.09));
    assert!(!s.next(true, 0.085));
    assert!(!s.next(false, 0.01));
    assert!(!s.next(false, 0.0099));
    // Fixed methods are never switched.
    for method in [Method::Jacobi, Method::GaussSeidel] {
        let cfg = PageRankConfig {
            method,
            ..Default::default()
        };
        let mut s = Switch::new(&cfg);
        let gs = method == Method::GaussSeidel;
        for c in [1.0, 0.99, 0.98, 0.97] {
            assert_eq!(s.next(gs, c), gs);
        }
    }
}
