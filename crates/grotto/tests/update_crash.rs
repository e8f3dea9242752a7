//! Committed updates under simulated power cuts: at every operation of a
//! commit (each write and each sync), with held writes landing whole,
//! torn or not at all, the file opens afterwards as the graph before the
//! commit or the graph after it, never a mix and never unopenable.

mod common;

use common::{convert_edges, convert_kind, read_arcs, xorshift, KINDS};
use grotto::io::inplace::PowerCut;
use grotto::store::update::GraphUpdate;
use std::collections::BTreeSet;
use std::path::Path;

/// Every arc of the graph at `path`, which must open and check.
fn arcs(path: &Path) -> BTreeSet<(u8, u64, u64, u32)> {
    read_arcs(path).expect("the file opens and checks after a cut")
}

/// Stages a large batch: a tenth of the edges deleted, as many inserted,
/// some on new vertices; in a weighted graph the inserts carry weights,
/// and a tenth of the edges get new ones.
fn stage(up: &mut GraphUpdate, edges: &[(u64, u64)], seed: u64) {
    let weighted = up.graph().weighted();
    let mut x = seed;
    let pick = |x: &mut u64| edges[(xorshift(x) % edges.len() as u64) as usize];
    for _ in 0..edges.len() / 10 {
        let e = pick(&mut x);
        up.delete(e.0, e.1).unwrap();
    }
    for _ in 0..edges.len() / 10 {
        let (u, v) = (xorshift(&mut x) % 4200, xorshift(&mut x) % 4100);
        if weighted {
            up.insert_weighted(u, v, (x % 64) as f32 * 0.25).unwrap();
        } else {
            up.insert(u, v).unwrap();
        }
    }
    if weighted {
        for _ in 0..edges.len() / 10 {
            let e = pick(&mut x);
            up.set_weight(e.0, e.1, 100.0 + (x % 64) as f32).unwrap();
        }
    }
}

/// `m` random edges among 4096 vertices.
fn random_edges(m: usize, seed: u64) -> Vec<(u64, u64)> {
    let mut x = seed;
    (0..m)
        .map(|_| (xorshift(&mut x) % 4096, xorshift(&mut x) % 4096))
        .collect()
}

#[test]
fn a_power_cut_at_any_point_of_a_commit_leaves_the_old_or_the_new_graph() {
    let dir = tempfile::tempdir().unwrap();
    let edges = random_edges(30_000, 5);
    let mut trials = 0;
    for kind in KINDS {
        let base = convert_kind(
            dir.path(),
            &format!("base{}{}", kind.0, kind.2),
            &edges,
            kind,
        );
        // A first commit, so that the cuts below hit a second one (the
        // slots alternate) as well as a first one.
        let once = dir.path().join("once.grotto");
        std::fs::copy(&base, &once).unwrap();
        let mut up = GraphUpdate::open(&once).unwrap();
        stage(&mut up, &edges, 1);
        up.commit().unwrap();
        for start in [&base, &once] {
            let before = arcs(start);
            let clean = dir.path().join("clean.grotto");
            std::fs::copy(start, &clean).unwrap();
            let mut up = GraphUpdate::open(&clean).unwrap();
            stage(&mut up, &edges, 2);
            up.commit().unwrap();
            let after = arcs(&clean);
            assert_ne!(before, after);
            // Write run, sync, write slot, sync, write its mirror, sync:
            // a cut at each, and after, with the held writes (at most
            // two) lost, whole or torn in every combination.
            for at_op in 0..7u64 {
                for outcome in 0..9u64 {
                    let t = dir.path().join("cut.grotto");
                    std::fs::copy(start, &t).unwrap();
                    let cut = PowerCut { at_op, outcome };
                    let mut up = GraphUpdate::open_with_power_cut(&t, cut).unwrap();
                    stage(&mut up, &edges, 2);
                    let r = up.commit();
                    let now = arcs(&t);
                    match r {
                        Ok(_) => assert_eq!(now, after, "op {at_op}: committed"),
                        Err(e) => {
                            assert!(e.to_string().contains("simulated power cut"), "{e}");
                            assert!(
                                now == before || now == after,
                                "op {at_op}, outcome {outcome}: a mix"
                            );
                        }
                    }
                    // The next commit on the survivor works and lands.
                    let mut up = GraphUpdate::open(&t).unwrap();
                    stage(&mut up, &edges, 3);
                    up.commit().unwrap();
                    arcs(&t);
                    trials += 1;
                }
            }
        }
    }
    assert!(trials >= 378, "{trials} trials");
}

#[test]
fn a_failed_write_during_a_commit_leaves_the_old_graph() {
    use grotto::io::FaultPlan;
    let dir = tempfile::tempdir().unwrap();
    // Enough changes for a run of several 128 KiB write requests.
    let edges = random_edges(200_000, 11);
    let base = convert_edges(dir.path(), "base", &edges, true, true);
    let before = arcs(&base);
    let mut failed = 0;
    for every in [1, 2, 3, 5, 9] {
        let t = dir.path().join("fail.grotto");
        std::fs::copy(&base, &t).unwrap();
        let plan = FaultPlan {
            eio_every: every,
            ..FaultPlan::default()
        };
        let Ok(mut up) = GraphUpdate::open_with_faults(&t, plan) else {
            return; // no O_DIRECT on this file system: nothing to inject into
        };
        up.set_write_depth(4).unwrap();
        stage(&mut up, &edges, every);
        match up.commit() {
            Ok(_) => {}
            Err(e) => {
                let e = e.to_string();
                assert!(e.contains("write") && e.contains("at byte"), "{e}");
                assert_eq!(arcs(&t), before, "a failed commit changed the graph");
                failed += 1;
            }
        }
        // The next commit, without faults, works and lands.
        let mut up = GraphUpdate::open(&t).unwrap();
        stage(&mut up, &edges, 100 + every);
        up.commit().unwrap();
        assert_ne!(arcs(&t), before);
    }
    assert!(failed >= 4, "{failed} of 5 commits failed");
}
