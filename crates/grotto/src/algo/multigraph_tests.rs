//! Graphs that keep duplicate edges (`convert --keep-duplicates`),
//! changed by three batches each: the lists hold exactly the expected
//! multiset of edges, the report counts what changed, and every
//! registered algorithm on both engines agrees with the same algorithm
//! on a fresh conversion of the updated edge list. The cases cover an
//! undirected graph with self loops kept and a directed one with reverse
//! edges, raw and packed blocks, and a hub whose list of repeated ids
//! spans blocks (so runs of one id straddle block boundaries).

use super::updates_tests::{agree_on_every_algorithm, xorshift};
use crate::ingest::merge::{commit, MergePolicy};
use crate::ingest::{convert, ConvertOptions, Input};
use crate::store::layout::LayoutConfig;
use crate::store::update::GraphUpdate;
use crate::store::{BlockReader, Direction, Graph};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An edge multiset: each edge (undirected: smaller end first) and its
/// copies.
type Multiset = BTreeMap<(u64, u64), u64>;

struct Case {
    undirected: bool,
    reverse: bool,
    loops: bool,
}

impl Case {
    fn norm(&self, (a, b): (u64, u64)) -> (u64, u64) {
        if self.undirected {
            (a.min(b), a.max(b))
        } else {
            (a, b)
        }
    }

    fn options(&self, n: u64, packed: bool) -> ConvertOptions {
        ConvertOptions {
            undirected: self.undirected,
            reverse: self.reverse,
            keep_duplicates: true,
            keep_self_loops: self.loops,
            vertices: Some(n),
            layout: LayoutConfig {
                packed,
                ..LayoutConfig::default()
            },
            ..ConvertOptions::default()
        }
    }
}

/// Writes `m` as an edge list (each copy a line) and converts it.
fn build(dir: &Path, name: &str, m: &Multiset, opts: &ConvertOptions) -> PathBuf {
    let text = dir.join(format!("{name}.el"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&text).unwrap());
    for (&(u, v), &c) in m {
        for _ in 0..c {
            writeln!(f, "{u} {v}").unwrap();
        }
    }
    drop(f);
    let out = dir.join(format!("{name}.grotto"));
    convert(&Input::path(&text), &out, opts).unwrap();
    out
}

/// The multiset `g`'s `dir` lists hold.
fn held(g: &Graph, dir: Direction, c: &Case) -> Multiset {
    let mut r = BlockReader::new(g, dir).unwrap();
    let mut ids = Vec::new();
    let mut got = Multiset::new();
    for v in 0..g.vertex_count() as u32 {
        r.neighbors(v, &mut ids, None).unwrap();
        assert!(ids.windows(2).all(|w| w[0] <= w[1]), "list of {v} sorted");
        for &u in &ids {
            let (a, b) = (g.original_id(v), g.original_id(u));
            let e = if dir == Direction::In { (b, a) } else { (a, b) };
            // An undirected edge is in both lists: counted from its
            // smaller end (a loop is held once).
            if c.undirected && e.0 > e.1 {
                continue;
            }
            *got.entry(e).or_default() += 1;
        }
    }
    got
}

#[test]
fn multigraphs_update_by_merging_and_match_a_fresh_conversion() {
    let cases = [
        Case {
            undirected: true,
            reverse: false,
            loops: true,
        },
        Case {
            undirected: false,
            reverse: true,
            loops: false,
        },
    ];
    let mut compared = 0;
    for packed in [false, true] {
        for c in &cases {
            let dir = tempfile::tempdir().unwrap();
            let mut x = 5u64 + packed as u64;
            let n = 400u64;
            let mut want = Multiset::new();
            // Random edges over few vertices: many repeat.
            for _ in 0..3000 {
                let e = (xorshift(&mut x) % 60, xorshift(&mut x) % n);
                if e.0 != e.1 || c.loops {
                    *want.entry(c.norm(e)).or_default() += 1;
                }
            }
            // A hub whose neighbours repeat one to four times: its list
            // spans blocks, and runs of one id cross block boundaries.
            for i in (1..1200u64).filter(|i| i % n != 0) {
                *want.entry(c.norm((0, i % n))).or_default() += 1 + i % 4;
            }
            let opts = c.options(n, packed);
            let path = build(dir.path(), "base", &want, &opts);
            assert_eq!(held(&Graph::open(&path).unwrap(), Direction::Out, c), want);
            for batch in 0..3 {
                let have: Vec<(u64, u64)> = want.keys().copied().collect();
                let mut del = Vec::new();
                for i in 0..have.len() / 5 {
                    let e = have[(xorshift(&mut x) % have.len() as u64) as usize];
                    del.push(e);
                    if i % 3 == 0 {
                        // Some edges deleted twice, or more times than held.
                        del.push(e);
                        del.push((e.1, e.0));
                    }
                }
                del.push((n - 1, n - 2));
                let mut ins = Vec::new();
                for i in 0..have.len() / 4 {
                    let e = if i % 4 == 0 {
                        have[(xorshift(&mut x) % have.len() as u64) as usize]
                    } else {
                        (xorshift(&mut x) % n, xorshift(&mut x) % n)
                    };
                    ins.push(e);
                    if i % 7 == 0 {
                        ins.push(e);
                    }
                }
                ins.push((3, 3));
                ins.push(del[0]);
                let mut up = GraphUpdate::open(&path).unwrap();
                for &(a, b) in &del {
                    up.delete(a, b).unwrap();
                }
                for &(a, b) in &ins {
                    up.insert(a, b).unwrap();
                }
                let r = commit(up, MergePolicy::default()).unwrap();
                assert!(r.merged && r.written);
                // Deletes first, each removing a copy while there is one;
                // then each insert adds a copy.
                let (mut deleted, mut absent, mut loops) = (0, 0, 0);
                let mut gone: Multiset = Multiset::new();
                for &e in &del {
                    let e = c.norm(e);
                    let left =
                        want.get(&e).copied().unwrap_or(0) - gone.get(&e).copied().unwrap_or(0);
                    if e.0 == e.1 && !c.loops {
                        absent += 1;
                    } else if left > 0 {
                        *gone.entry(e).or_default() += 1;
                        deleted += 1;
                    } else {
                        absent += 1;
                    }
                }
                for (e, k) in gone {
                    let w = want.get_mut(&e).unwrap();
                    *w -= k;
                    if *w == 0 {
                        want.remove(&e);
                    }
                }
                let mut inserted = 0;
                for &e in &ins {
                    if e.0 == e.1 && !c.loops {
                        loops += 1;
                        continue;
                    }
                    *want.entry(c.norm(e)).or_default() += 1;
                    inserted += 1;
                }
                let edges: u64 = want.values().sum();
                let what = format!("undirected {} packed {packed} batch {batch}", c.undirected);
                assert_eq!(
                    [
                        r.inserted,
                        r.deleted,
                        r.already_present,
                        r.not_present,
                        r.self_loops_dropped,
                        r.edges
                    ],
                    [inserted, deleted, 0, absent, loops, edges],
                    "{what}"
                );
                let updated = Arc::new(Graph::open(&path).unwrap());
                updated.verify_all_blocks().unwrap();
                assert_eq!(updated.edge_count(), edges, "{what}");
                assert_eq!(held(&updated, Direction::Out, c), want, "{what}");
                if c.reverse {
                    assert_eq!(held(&updated, Direction::In, c), want, "{what}");
                }
                let fresh = build(dir.path(), &format!("fresh{batch}"), &want, &opts);
                let fresh = Arc::new(Graph::open(&fresh).unwrap());
                compared += agree_on_every_algorithm(&updated, &fresh, &what, false);
            }
        }
    }
    assert!(compared >= 80, "only {compared} runs compared");
}

#[test]
fn multigraphs_refuse_delta_runs_and_weights() {
    let dir = tempfile::tempdir().unwrap();
    let c = Case {
        undirected: true,
        reverse: false,
        loops: false,
    };
    let m: Multiset = [((0, 1), 3), ((1, 2), 1)].into_iter().collect();
    let path = build(dir.path(), "g", &m, &c.options(3, false));
    let before = std::fs::read(&path).unwrap();
    let mut up = GraphUpdate::open(&path).unwrap();
    up.delete(0, 1).unwrap();
    let e = commit(up, MergePolicy::Never).unwrap_err().to_string();
    assert!(
        e.contains("keeps duplicate edges") && e.contains("--merge never"),
        "{e}"
    );
    let mut up = GraphUpdate::open(&path).unwrap();
    up.delete(0, 1).unwrap();
    let e = up.commit().unwrap_err().to_string();
    assert!(e.contains("keeps duplicate edges"), "{e}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a refused batch changes nothing"
    );
    // A weighted multigraph: a delete cannot tell its parallel edges apart.
    let text = dir.path().join("w.el");
    std::fs::write(&text, "0 1 1.5\n0 1 2.5\n1 2 1\n").unwrap();
    let w = dir.path().join("w.grotto");
    let opts = ConvertOptions {
        weighted: Some(true),
        ..c.options(3, false)
    };
    convert(&Input::path(&text), &w, &opts).unwrap();
    let e = GraphUpdate::open(&w).err().unwrap().to_string();
    assert!(e.contains("weighted and keeps duplicate edges"), "{e}");
}
