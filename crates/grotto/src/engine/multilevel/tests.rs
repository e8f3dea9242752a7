//! Tests of the multilevel seam: contraction, group sums, and whole
//! weighted lists from the file in every engine configuration.

use super::sums::GroupSums;
use super::*;
use crate::algo::reference::Csr;
use crate::engine::SyncEngine;
use crate::testkit;
use std::sync::Arc;

/// A weighted undirected graph as both-way lists (a loop once).
fn coarse(n: usize, edges: &[(u32, u32, f64)]) -> Coarse {
    let mut lists: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    for &(a, b, w) in edges {
        lists[a as usize].push((b, w));
        if a != b {
            lists[b as usize].push((a, w));
        }
    }
    let mut offsets = vec![0u64];
    let (mut t, mut ws) = (Vec::new(), Vec::new());
    for l in &mut lists {
        l.sort_by_key(|x| x.0);
        for &(u, w) in l.iter() {
            t.push(u);
            ws.push(w);
        }
        offsets.push(t.len() as u64);
    }
    Coarse::new(offsets, t, ws, 2).unwrap()
}

#[test]
fn contraction_sums_edges_between_and_inside_groups() {
    // Groups {0,1,2} and {3,4}; a loop on 4 of weight 5.
    let mut g = coarse(
        5,
        &[
            (0, 1, 1.0),
            (1, 2, 2.0),
            (0, 2, 3.0),
            (2, 3, 4.0),
            (1, 4, 0.5),
            (3, 4, 1.0),
            (4, 4, 5.0),
        ],
    );
    let c = contract(&mut g, &[0, 0, 0, 1, 1], 2).unwrap();
    assert_eq!(c.inside, vec![6.0, 6.0]);
    let (ids, ws) = c.graph.memory().unwrap().list(0);
    assert_eq!((ids, ws), (&[0, 1][..], &[6.0, 4.5][..]));
    let (ids, ws) = c.graph.memory().unwrap().list(1);
    assert_eq!((ids, ws), (&[0, 1][..], &[4.5, 6.0][..]));
    // Every weighted degree is kept: 2 x inside + the edges to others.
    let k: f64 = [1.0 + 3.0, 1.0 + 2.0 + 0.5, 2.0 + 3.0 + 4.0].iter().sum();
    let (_, ws) = c.graph.memory().unwrap().list(0);
    assert_eq!(2.0 * c.inside[0] + ws[1], k);
}

#[test]
fn group_sums_grow_and_clear() {
    let mut t = GroupSums::default();
    for g in 0..1000u32 {
        t.add(g % 300, 1.0);
    }
    assert_eq!(t.iter().count(), 300);
    assert_eq!(t.get(7), 4.0);
    assert_eq!(t.get(299), 3.0);
    assert_eq!(t.get(5000), 0.0);
    let d: Vec<(u32, f64)> = t.iter().collect();
    assert_eq!(d.len(), 300);
    assert_eq!(d[0], (0, 4.0));
    t.clear();
    assert_eq!(t.iter().count(), 0);
    t.add_list(
        &[1, 2, 2, 5, 9, 2],
        Weights::F64(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        |u| u % 3,
        5,
    );
    let mut got: Vec<(u32, f64)> = t.iter().collect();
    got.sort_by_key(|x| x.0);
    assert_eq!(got, vec![(0, 5.0), (1, 1.0), (2, 11.0)]);
    assert_eq!(t.get(7), 0.0);
}

#[test]
fn a_bad_grouping_is_refused() {
    let mut g = coarse(2, &[(0, 1, 1.0)]);
    assert!(contract(&mut g, &[0, 2], 2).is_err());
    assert!(contract(&mut g, &[0], 2).is_err());
}

/// A vertex without edges may be left out (a group past the count); one
/// with edges may not.
#[test]
fn isolated_vertices_are_left_out_of_the_groups_graph() {
    // 1 and 3 have no edges.
    let mut g = coarse(5, &[(0, 2, 1.0), (2, 4, 2.0), (4, 4, 3.0)]);
    let c = contract(&mut g, &[0, 7, 0, 9, 1], 2).unwrap();
    assert_eq!(c.inside, vec![1.0, 3.0]);
    let m = c.graph.memory().unwrap();
    assert_eq!(m.vertex_count(), 2);
    assert_eq!(m.list(0), (&[0, 1][..], &[1.0, 2.0][..]));
    assert_eq!(m.list(1), (&[0, 1][..], &[2.0, 3.0][..]));
    // Within a budget that cuts the groups into one range each, the same.
    let small = ContractOptions {
        memory_bytes: 32,
        temp_dir: None,
    };
    let c = contract_within(&mut g, &[0, 7, 0, 9, 1], 2, None, &small).unwrap();
    assert_eq!((c.inside.clone(), c.passes), (vec![1.0, 3.0], 3));
    let err = contract(&mut g, &[0, 0, 5, 0, 1], 2)
        .unwrap_err()
        .to_string();
    assert!(err.contains("vertex 2 has edges"), "{err}");
}

/// Every vertex's whole list (and weights) as the run hands them, in
/// every engine configuration, against the lists in memory: lists
/// longer than a block (a star's hub) arrive whole, and a weighted
/// graph's weights come with them.
#[test]
fn the_file_level_hands_whole_weighted_lists() {
    for tg in [
        testkit::star(9000),
        testkit::weighted_rmat(10, 8, 2, true),
        testkit::weighted_rmat(8, 40, 4, true),
    ] {
        let g = &tg.graph;
        let csr = Csr::load(g, Direction::Out).unwrap();
        let n = g.vertex_count();
        for e in testkit::configs() {
            let engine = SyncEngine::open(Arc::clone(g), e.clone()).unwrap();
            let (got, _) = engine
                .run(|r| {
                    let seen: Vec<Mutex<(Vec<u32>, Vec<f64>)>> =
                        (0..n).map(|_| Mutex::new(Default::default())).collect();
                    let mut level = FileLevel::new(r, true);
                    level.visit_whole(&Frontier::all(n), &|v, ids, ws| {
                        let mut s = seen[v as usize].lock().unwrap();
                        s.0.extend_from_slice(ids);
                        s.1.extend((0..ids.len()).map(|i| ws.get(i)));
                    })?;
                    // A held set: every third vertex.
                    let some: Vec<VertexId> = (0..n as VertexId).step_by(3).collect();
                    let mut held_ok = true;
                    level.hold(some.clone(), &mut |h: &dyn Held| {
                        for &v in &some {
                            let (ids, ws) = h.list(v);
                            let ws: Vec<f64> = (0..ids.len()).map(|i| ws.get(i)).collect();
                            let want: Vec<f64> = if g.weighted() {
                                csr.weights(v).iter().map(|&w| w as f64).collect()
                            } else {
                                vec![1.0; ids.len()]
                            };
                            held_ok &= ids == csr.neighbors(v) && ws == want;
                        }
                        Ok(())
                    })?;
                    assert!(held_ok, "{e:?}");
                    Ok(seen
                        .into_iter()
                        .map(|m| m.into_inner().unwrap())
                        .collect::<Vec<_>>())
                })
                .unwrap();
            for v in 0..n as VertexId {
                let (ids, ws) = &got[v as usize];
                assert_eq!(ids.as_slice(), csr.neighbors(v), "vertex {v} {e:?}");
                if g.weighted() {
                    let want: Vec<f64> = csr.weights(v).iter().map(|&w| w as f64).collect();
                    assert_eq!(ws, &want, "vertex {v} {e:?}");
                } else {
                    assert!(ws.iter().all(|&w| w == 1.0));
                }
            }
        }
    }
}

/// The pass over the file gives the same groups' graph as the same
/// lists held in memory.
#[test]
fn contracting_the_file_equals_contracting_its_lists_in_memory() {
    let tg = testkit::weighted_rmat(10, 8, 6, true);
    let g = &tg.graph;
    let n = g.vertex_count();
    let csr = Csr::load(g, Direction::Out).unwrap();
    let group: Vec<u32> = (0..n as u32).map(|v| (v * 7919) % 97).collect();
    let mut offsets = vec![0u64];
    let (mut t, mut w) = (Vec::new(), Vec::new());
    for v in 0..n as VertexId {
        t.extend_from_slice(csr.neighbors(v));
        w.extend(csr.weights(v).iter().map(|&x| x as f64));
        offsets.push(t.len() as u64);
    }
    let mut mem = Coarse::new(offsets, t, w, 2).unwrap();
    let want = contract(&mut mem, &group, 97).unwrap();
    for e in testkit::configs() {
        let engine = SyncEngine::open(Arc::clone(g), e.clone()).unwrap();
        let (got, _) = engine
            .run(|r| contract(&mut FileLevel::new(r, true), &group, 97))
            .unwrap();
        assert_eq!(got.inside, want.inside, "{e:?}");
        for h in 0..97 {
            assert_eq!(
                got.graph.memory().unwrap().list(h),
                want.graph.memory().unwrap().list(h)
            );
        }
    }
}

/// A group whose members' entries pass what one pass may hold is cut
/// into pieces of its members, summed piece after piece: the groups'
/// graph equals the one built in a single pass.
#[test]
fn a_group_too_large_for_a_pass_is_split_by_members() {
    let mut edges = Vec::new();
    for v in 0..60u32 {
        for d in [1u32, 7, 13] {
            edges.push((v, (v + d) % 60, 1.0 + (v % 3) as f64));
        }
    }
    edges.push((5, 5, 2.0));
    let mut g = coarse(60, &edges);
    // Group 0 holds most vertices; 1 and 2 a few each.
    let group: Vec<u32> = (0..60)
        .map(|v| {
            if v % 10 == 3 {
                1
            } else if v % 10 == 7 {
                2
            } else {
                0
            }
        })
        .collect();
    let whole = contract(&mut g, &group, 3).unwrap();
    for memory in [240u64, 400, 1000] {
        let opts = ContractOptions {
            memory_bytes: memory,
            temp_dir: None,
        };
        let cut = contract_within(&mut g, &group, 3, Some(&[0, 1, 1]), &opts).unwrap();
        assert!(cut.passes > 3, "{memory}: {} passes", cut.passes);
        assert_eq!(cut.inside, whole.inside, "{memory}");
        let (a, b) = (whole.graph.memory().unwrap(), &cut.graph);
        let b = match b {
            NextGraph::Memory(c) => c,
            NextGraph::File(_) => panic!("three groups fit in memory"),
        };
        for x in 0..3 {
            assert_eq!(a.list(x), b.list(x), "{memory}: group {x}");
        }
        let oi = cut.outer_inside.unwrap();
        assert_eq!(oi[0], whole.inside[0]);
        let between: f64 = a
            .list(1)
            .0
            .iter()
            .zip(a.list(1).1)
            .filter(|x| *x.0 == 2)
            .map(|x| x.1)
            .sum();
        assert_eq!(oi[1], whole.inside[1] + whole.inside[2] + between);
    }
}
