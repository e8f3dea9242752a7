//! Every registered algorithm on packed and raw files of the same graphs,
//! on every engine that runs it: the verifier passes on both layouts and
//! both give tables of the same shape. The graphs cover lists kept in the
//! index, short and long packed lists, lists of several span blocks
//! (a hub reaching ids spread over a million), and reverse edges.

use super::ALGORITHMS;
use crate::engine::EngineKind;
use crate::store::layout::LayoutConfig;
use crate::testkit;

fn graphs(packed: bool) -> Vec<(&'static str, testkit::TestGraph)> {
    let layout = || LayoutConfig {
        packed,
        ..LayoutConfig::default()
    };
    let mut rmat = Vec::new();
    let mut x = 7u64;
    for i in 0..6000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        rmat.push((i % 900, x % 900));
    }
    let mut hub: Vec<(u64, u64)> = (1..30_000u64).map(|i| (0, i * 37 % 1_000_003)).collect();
    hub.extend((1..2000u64).map(|i| (i * 37 % 1_000_003, (i + 1) * 37 % 1_000_003)));
    let grid = crate::testkit::grid_edges(40, 40);
    vec![
        (
            "random, directed with reverse",
            testkit::from_edges_laid_out(&rmat, false, true, layout()),
        ),
        (
            "hub over a million ids",
            testkit::from_edges_laid_out(&hub, true, false, layout()),
        ),
        (
            "grid 40x40",
            testkit::from_edges_laid_out(&grid, true, false, layout()),
        ),
    ]
}

#[test]
fn every_algorithm_agrees_on_packed_and_raw_files() {
    let (packed, raw) = (graphs(true), graphs(false));
    let spans = packed[1]
        .1
        .graph
        .out()
        .tags()
        .iter()
        .filter(|&&t| t == crate::store::format::TAG_SPAN)
        .count();
    assert!(spans >= 2, "the hub's list spans {spans} blocks");
    let mut compared = 0;
    for ((name, p), (_, r)) in packed.iter().zip(&raw) {
        assert!(p.graph.header().packed(), "{name}");
        assert!(!r.graph.header().packed(), "{name}");
        assert!(
            p.graph.out().block_count() < r.graph.out().block_count(),
            "{name}: packed {} blocks, raw {}",
            p.graph.out().block_count(),
            r.graph.out().block_count()
        );
        for algo in ALGORITHMS {
            for kind in [EngineKind::Sync, EngineKind::Async] {
                let mut rows = Vec::new();
                let mut refusals = Vec::new();
                for g in [&p.graph, &r.graph] {
                    let Ok(plan) = algo.plan(Some(kind), g) else {
                        continue;
                    };
                    let out = match super::run_on_tiny_cache(*algo, &plan, g) {
                        Ok(out) => out,
                        Err(e) => {
                            refusals.push(e.to_string());
                            continue;
                        }
                    };
                    assert!(
                        matches!(out.verdict, Some(Ok(()))),
                        "{} on {name} ({kind:?}, packed {}): {:?}",
                        algo.name(),
                        g.header().packed(),
                        out.verdict
                    );
                    rows.push(out.table.rows());
                }
                // An algorithm that refuses a graph refuses both layouts alike.
                assert!(
                    refusals.is_empty() || (refusals.len() == 2 && refusals[0] == refusals[1]),
                    "{} on {name} ({kind:?}): {refusals:?}",
                    algo.name()
                );
                if rows.len() == 2 {
                    assert_eq!(rows[0], rows[1], "{} on {name}", algo.name());
                    compared += 1;
                }
            }
        }
    }
    // Eleven algorithms, most on both engines, three graphs (38 pairs today).
    assert!(compared >= 35, "only {compared} runs compared");
}
