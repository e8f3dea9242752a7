//! Every registered algorithm on graphs changed by committed updates,
//! against the same algorithm on a fresh conversion of the updated edge
//! list: on both engines, the verifier passes on both files and the
//! results are equal (floats to 1e-6, BFS parents and DFS orders by their
//! verifiers only: they depend on thread timing). The graphs cover raw
//! and packed blocks, lists kept in the index, a hub whose list spans
//! several blocks (patched piece by piece), reverse edges and new
//! vertices, with dense ids, scattered ids (an id map, new ids falling
//! between the old ones, and a degree order) and names; each takes three
//! batches.

use super::output::Values;
use super::registry::Params;
use super::ALGORITHMS;
use crate::engine::{Engine, EngineConfig, EngineKind};
use crate::ingest::merge::MergePolicy;
use crate::ingest::parse::EdgeSink;
use crate::ingest::{
    convert, convert_from, ConvertOptions, EdgeGenerator, IdMode, Input, NoProgress, Source,
    VertexOrder,
};
use crate::store::layout::LayoutConfig;
use crate::store::names::Names;
use crate::store::update::{GraphUpdate, UpdateReport};
use crate::store::{BlockReader, Direction, Graph};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

struct Case {
    name: &'static str,
    undirected: bool,
    reverse: bool,
    n: u64,
    edges: Vec<(u64, u64)>,
    keys: Keys,
    order: VertexOrder,
}

/// What the user calls a case's vertex `i`: `i`, a scattered id (the
/// file gets an id map, and new ids fall between the old ones), or a name
/// (sorted as text: "n10" before "n9").
#[derive(Clone, Copy, Debug, PartialEq)]
enum Keys {
    Dense,
    Sparse,
    Names,
}

impl Keys {
    /// The user's integer id of vertex `i` (not for names).
    fn id(self, i: u64) -> u64 {
        match self {
            Keys::Sparse => (i.wrapping_mul(0x9E37_79B9) & ((1 << 40) - 1)) + 1,
            _ => i,
        }
    }

    /// The user's id of vertex `i` as text: what results label it with.
    fn token(self, i: u64) -> String {
        match self {
            Keys::Names => format!("n{i}"),
            k => k.id(i).to_string(),
        }
    }
}

/// A keyed case's graph for a conversion: its edges and every vertex,
/// isolated ones included, as the user's ids or name ranks.
struct Listed {
    edges: Vec<(u64, u64)>,
    vertices: Vec<u64>,
    names: Option<Arc<Names>>,
}

impl EdgeGenerator for Listed {
    fn chunks(&self) -> usize {
        1
    }
    fn emit(&self, _: usize, sink: &mut dyn EdgeSink) -> crate::Result<bool> {
        for &v in &self.vertices {
            sink.vertex(v);
        }
        let (us, vs): (Vec<u64>, Vec<u64>) = self.edges.iter().copied().unzip();
        Ok(sink.edges(&us, &vs, None))
    }
    fn edges(&self) -> u64 {
        self.edges.len() as u64
    }
    fn vertex_count(&self) -> Option<u64> {
        self.names.as_ref().map(|t| t.len())
    }
    fn describe(&self) -> String {
        "a test's keyed edges".into()
    }
    fn names(&self) -> Option<Arc<Names>> {
        self.names.clone()
    }
}

pub(super) fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn cases() -> Vec<Case> {
    let mut x = 11u64;
    let random: Vec<(u64, u64)> = (0..5000)
        .map(|_| (xorshift(&mut x) % 700, xorshift(&mut x) % 700))
        .collect();
    // A hub with 3000 neighbours: its list spans blocks raw and packed.
    let mut hub: Vec<(u64, u64)> = (1..3000u64).map(|i| (0, i * 3)).collect();
    hub.extend((1..1500u64).map(|i| (i * 3, i * 3 + 1)));
    let grid = crate::testkit::grid_edges(30, 30);
    vec![
        Case {
            name: "random, directed with reverse",
            undirected: false,
            reverse: true,
            n: 700,
            edges: random.clone(),
            keys: Keys::Dense,
            order: VertexOrder::None,
        },
        Case {
            name: "random, directed with reverse, scattered ids, degree order",
            undirected: false,
            reverse: true,
            n: 700,
            edges: random,
            keys: Keys::Sparse,
            order: VertexOrder::Degree,
        },
        Case {
            name: "hub, undirected",
            undirected: true,
            reverse: false,
            n: 9000,
            edges: hub.clone(),
            keys: Keys::Dense,
            order: VertexOrder::None,
        },
        Case {
            name: "hub, undirected, names",
            undirected: true,
            reverse: false,
            n: 9000,
            edges: hub,
            keys: Keys::Names,
            order: VertexOrder::None,
        },
        Case {
            name: "grid 30x30",
            undirected: true,
            reverse: false,
            n: 900,
            edges: grid,
            keys: Keys::Dense,
            order: VertexOrder::None,
        },
    ]
}

/// The edge set as the graph holds it (undirected: smaller end first;
/// self loops dropped).
fn normal(edges: &[(u64, u64)], undirected: bool) -> BTreeSet<(u64, u64)> {
    edges
        .iter()
        .filter(|e| e.0 != e.1)
        .map(|&(a, b)| {
            if undirected {
                (a.min(b), a.max(b))
            } else {
                (a, b)
            }
        })
        .collect()
}

/// Converts the edge set `edges` of `c` (with vertices `0..n` for
/// dense ids, `vertices` for keyed ones, isolated ones included).
fn build(
    dir: &Path,
    name: &str,
    edges: &BTreeSet<(u64, u64)>,
    n: u64,
    vertices: &BTreeSet<u64>,
    c: &Case,
    packed: bool,
) -> std::path::PathBuf {
    let out = dir.join(format!("{name}.grotto"));
    let opts = ConvertOptions {
        undirected: c.undirected,
        reverse: c.reverse,
        order: c.order,
        layout: LayoutConfig {
            packed,
            ..LayoutConfig::default()
        },
        ..ConvertOptions::default()
    };
    if c.keys == Keys::Dense {
        let text = dir.join(format!("{name}.el"));
        let mut f = std::io::BufWriter::new(std::fs::File::create(&text).unwrap());
        for (u, v) in edges {
            writeln!(f, "{u} {v}").unwrap();
        }
        drop(f);
        // The vertices: the base's range and the ids batches gave (a new
        // id is one vertex; dense when they continue the range).
        let _ = n;
        let opts = ConvertOptions {
            vertex_ids: Some(Arc::new(vertices.iter().copied().collect())),
            ..opts
        };
        convert(&Input::path(&text), &out, &opts).unwrap();
        return out;
    }
    let names = (c.keys == Keys::Names).then(|| {
        Arc::new(Names::from_unsorted(vertices.iter().map(|&i| c.keys.token(i)).collect()).unwrap())
    });
    // The id a conversion is given: the user's, or the name's rank.
    let key = |i: u64| match &names {
        Some(t) => t.find(c.keys.token(i).as_bytes()).unwrap() as u64,
        None => c.keys.id(i),
    };
    let listed = Listed {
        edges: edges.iter().map(|&(a, b)| (key(a), key(b))).collect(),
        vertices: vertices.iter().map(|&i| key(i)).collect(),
        names: names.clone(),
    };
    let opts = ConvertOptions {
        ids: IdMode::Compact,
        ..opts
    };
    convert_from(&Source::Generated(&listed), &out, &opts, &NoProgress).unwrap();
    out
}

/// Every list of `g` against the expected edge set, in the user's ids.
fn same_lists(g: &Graph, want_ids: &BTreeSet<(u64, u64)>, c: &Case) {
    let tok = |i: u64| c.keys.token(i);
    let want: BTreeSet<(String, String)> =
        want_ids.iter().map(|&(a, b)| (tok(a), tok(b))).collect();
    // An undirected edge as the pair of its ends' tokens, in the order
    // their vertex numbers have.
    let number: std::collections::HashMap<String, u64> = want_ids
        .iter()
        .flat_map(|&(a, b)| [(tok(a), a), (tok(b), b)])
        .collect();
    let before = |a: &String, b: &String| match (number.get(a), number.get(b)) {
        (Some(x), Some(y)) => x <= y,
        _ => a <= b,
    };
    let mut dirs = vec![Direction::Out];
    if c.reverse {
        dirs.push(Direction::In);
    }
    for dir in dirs {
        let mut r = BlockReader::new(g, dir).unwrap();
        let mut got = BTreeSet::new();
        let mut ids = Vec::new();
        for v in 0..g.vertex_count() as u32 {
            r.neighbors(v, &mut ids, None).unwrap();
            assert_eq!(ids.len() as u64, g.adjacency(dir).unwrap().degree(v));
            for &u in &ids {
                let (a, b) = (g.label_text(v), g.label_text(u));
                let e = match (dir, c.undirected) {
                    (Direction::Out, false) => (a, b),
                    (Direction::In, _) => (b, a),
                    (Direction::Out, true) if before(&a, &b) => (a, b),
                    (Direction::Out, true) => (b, a),
                };
                got.insert(e);
            }
        }
        assert_eq!(got, want, "{} {dir:?}", c.name);
    }
}

/// Whether the columns of two runs of `algo` are equal. `renumbered`:
/// the two files number vertices differently inside (added keys come
/// after the base's in an updated file, in key order in a fresh one), so
/// random walks, which follow the internal numbering, differ too.
/// Louvain and Leiden sweep in seeded orders of the internal numbering,
/// which a fresh file (in degree order) and an updated one never share:
/// their partitions are checked by their verifiers only.
fn columns_agree(
    algo: &str,
    a: Vec<(&'static str, Values)>,
    b: Vec<(&'static str, Values)>,
    renumbered: bool,
) {
    assert_eq!(a.len(), b.len(), "{algo}");
    for ((na, va), (nb, vb)) in a.into_iter().zip(b) {
        assert_eq!(na, nb);
        // Orders and parents that depend on which thread came first are
        // checked by the verifiers.
        if matches!(
            (algo, na),
            ("bfs" | "sssp", "parent") | ("dfs", _) | ("mis", _)
        ) || (renumbered && algo == "randomwalk")
            || matches!(algo, "louvain" | "leiden")
        {
            continue;
        }
        match (va, vb) {
            (Values::F64(x), Values::F64(y)) => {
                assert_eq!(x.len(), y.len());
                for (i, (p, q)) in x.iter().zip(&y).enumerate() {
                    assert!(
                        p == q || (p - q).abs() <= 1e-6 * p.abs().max(1.0),
                        "{algo} {na}[{i}]: {p} vs {q}"
                    );
                }
            }
            (x, y) => assert_eq!(format!("{x:?}"), format!("{y:?}"), "{algo} column {na}"),
        }
    }
}

#[test]
fn every_algorithm_agrees_with_a_fresh_conversion_after_updates() {
    let mut compared = 0;
    for packed in [true, false] {
        for c in cases() {
            let dir = tempfile::tempdir().unwrap();
            let mut want = normal(&c.edges, c.undirected);
            let mut n = c.n;
            let mut vertices: BTreeSet<u64> = (0..n).collect();
            let path = build(dir.path(), "base", &want, n, &vertices, &c, packed);
            let mut x = 99u64 + n;
            for batch in 0..3 {
                let mut up = GraphUpdate::open(&path).unwrap();
                let have: Vec<(u64, u64)> = want.iter().copied().collect();
                let mut del = Vec::new();
                for _ in 0..have.len() / 8 {
                    del.push(have[(xorshift(&mut x) % have.len() as u64) as usize]);
                }
                // Deletes of edges that are not there, and of unknown ids.
                del.push((n + 5, 1));
                del.push((1, 1));
                let mut ins = Vec::new();
                for i in 0..have.len() / 6 {
                    let a = xorshift(&mut x) % (n + 3);
                    let b = if i % 5 == 0 {
                        0
                    } else {
                        xorshift(&mut x) % (n + 3)
                    };
                    ins.push((a, b));
                }
                ins.push((2, 2));
                let keys = c.keys;
                let stage = |up: &mut GraphUpdate| {
                    for &(a, b) in &del {
                        if keys == Keys::Names {
                            up.delete_named(&keys.token(a), &keys.token(b)).unwrap();
                        } else {
                            up.delete(keys.id(a), keys.id(b)).unwrap();
                        }
                    }
                    for &(a, b) in &ins {
                        if keys == Keys::Names {
                            up.insert_named(&keys.token(a), &keys.token(b)).unwrap();
                        } else {
                            up.insert(keys.id(a), keys.id(b)).unwrap();
                        }
                    }
                };
                stage(&mut up);
                // The second batch merges (the first batch's delta with
                // it); the others append runs, the third to a merged file.
                let merged = batch == 1;
                let report = if merged {
                    // The same batch as a delta commit on a copy counts
                    // the same.
                    let copy = dir.path().join("copy.grotto");
                    std::fs::copy(&path, &copy).unwrap();
                    let mut other = GraphUpdate::open(&copy).unwrap();
                    stage(&mut other);
                    let d = other.commit().unwrap();
                    let m = crate::ingest::merge::commit(up, MergePolicy::Always).unwrap();
                    assert!(m.merged && !d.merged);
                    let counts = |r: &crate::store::update::UpdateReport| {
                        let r = r.clone();
                        [
                            r.inserted,
                            r.deleted,
                            r.already_present,
                            r.not_present,
                            r.self_loops_dropped,
                            r.new_vertices,
                            r.vertices,
                            r.edges,
                        ]
                    };
                    assert_eq!(counts(&m), counts(&d), "{} merge against delta", c.name);
                    m
                } else {
                    crate::ingest::merge::commit(up, MergePolicy::Never).unwrap()
                };
                assert!(report.written, "{} batch {batch}", c.name);
                for e in normal(&del, c.undirected) {
                    want.remove(&e);
                }
                want.extend(normal(&ins, c.undirected));
                n = ins
                    .iter()
                    .map(|e| e.0.max(e.1) + 1)
                    .max()
                    .unwrap_or(0)
                    .max(n);
                // A new id is one vertex, whatever the graph (networkx's
                // rule): no id between it and the others becomes one.
                vertices.extend(ins.iter().flat_map(|e| [e.0, e.1]));
                let count = vertices.len() as u64;
                assert_eq!(report.vertices, count, "{}", c.name);
                assert_eq!(report.edges, want.len() as u64, "{}", c.name);

                let updated = Arc::new(Graph::open(&path).unwrap());
                // A merge leaves a new base: no delta, commits counted anew.
                let commits = [Some(1), None, Some(1)][batch as usize];
                assert_eq!(updated.updates().map(|u| u.commits), commits, "{}", c.name);
                assert_eq!(updated.out().delta().is_none(), merged, "{}", c.name);
                updated.verify_all_blocks().unwrap();
                let hub = updated.vertex_named(&c.keys.token(0)).unwrap();
                if let Some((a, b)) = updated
                    .out()
                    .block_range(hub)
                    .filter(|r| r.1 > r.0 && !merged)
                {
                    // The hub's spanning list was patched by its fences.
                    let d = updated.out().delta().unwrap();
                    assert_eq!(d.fences(hub).len() as u64, b - a, "{}", c.name);
                }
                same_lists(&updated, &want, &c);
                let fresh_path = build(
                    dir.path(),
                    &format!("fresh{batch}"),
                    &want,
                    n,
                    &vertices,
                    &c,
                    packed,
                );
                let fresh = Arc::new(Graph::open(&fresh_path).unwrap());
                let what = format!("{} (packed {packed}, batch {batch})", c.name);
                // A dense graph given an id past a gap numbers its new
                // vertices in the order they came, a fresh one by id.
                let gaps = vertices.iter().next_back().map_or(0, |m| m + 1) != count;
                compared += agree_on_every_algorithm(
                    &updated,
                    &fresh,
                    &what,
                    c.keys != Keys::Dense || gaps,
                );
            }
        }
    }
    assert!(compared >= 200, "only {compared} runs compared");
}

/// Runs every registered algorithm on both engines on `updated` and on
/// `fresh` (a conversion of the same edges): each verifier must pass and
/// the columns agree ([`columns_agree`]). Returns how many runs were
/// compared (an algorithm or engine a graph does not take is skipped).
pub(super) fn agree_on_every_algorithm(
    updated: &Arc<Graph>,
    fresh: &Arc<Graph>,
    what: &str,
    renumbered: bool,
) -> usize {
    let mut compared = 0;
    for algo in ALGORITHMS {
        for kind in [EngineKind::Sync, EngineKind::Async] {
            let mut outs = Vec::new();
            for g in [updated, fresh] {
                let Ok(plan) = algo.plan(Some(kind), g) else {
                    continue;
                };
                let Ok(out) = super::run_on_tiny_cache(*algo, &plan, g) else {
                    continue;
                };
                assert!(
                    matches!(out.verdict, Some(Ok(()))),
                    "{} on {what} ({kind:?}): {:?}",
                    algo.name(),
                    out.verdict
                );
                outs.push(out.table.into_columns().unwrap());
            }
            if outs.len() == 2 {
                let b = outs.pop().unwrap();
                let a = outs.pop().unwrap();
                columns_agree(algo.name(), a, b, renumbered);
                compared += 1;
            }
        }
    }
    compared
}

/// Every arc of `g` with its weight, in user ids (undirected: smaller end
/// first), from the `dir` lists.
fn weighted_arcs(g: &Graph, dir: Direction, undirected: bool) -> BTreeMap<(u64, u64), f32> {
    let mut r = BlockReader::new(g, dir).unwrap();
    let (mut ids, mut ws) = (Vec::new(), Vec::new());
    let mut got = BTreeMap::new();
    for v in 0..g.vertex_count() as u32 {
        r.neighbors(v, &mut ids, Some(&mut ws)).unwrap();
        assert_eq!(ids.len(), ws.len());
        for (&u, &w) in ids.iter().zip(&ws) {
            let (a, b) = (g.original_id(v), g.original_id(u));
            let e = match (dir, undirected) {
                (Direction::In, _) => (b, a),
                (_, true) => (a.min(b), a.max(b)),
                _ => (a, b),
            };
            if let Some(old) = got.insert(e, w) {
                assert_eq!(old, w, "both arcs of {e:?} carry one weight");
            }
        }
    }
    got
}

/// Weighted graphs, updated by delta runs and by merges: after each of
/// three batches the arcs and weights equal the expected ones, SSSP on
/// both engines equals SSSP on a fresh conversion, and both commit modes
/// report the same counts.
#[test]
fn weighted_graphs_update_and_match_a_fresh_conversion() {
    use std::collections::BTreeMap as Map;
    let sssp = ALGORITHMS.iter().find(|a| a.name() == "sssp").unwrap();
    for (undirected, reverse) in [(false, true), (true, false)] {
        let dir = tempfile::tempdir().unwrap();
        let norm = |a: u64, b: u64| {
            if undirected {
                (a.min(b), a.max(b))
            } else {
                (a, b)
            }
        };
        let mut x = 3u64 + undirected as u64;
        let n = 300u64;
        let mut want: Map<(u64, u64), f32> = Map::new();
        // The last 10 vertices start without edges.
        for _ in 0..2000 {
            let (a, b) = (xorshift(&mut x) % (n - 10), xorshift(&mut x) % (n - 10));
            if a != b {
                want.entry(norm(a, b))
                    .or_insert((xorshift(&mut x) % 100 + 1) as f32 / 4.0);
            }
        }
        let write = |name: &str, want: &Map<(u64, u64), f32>, vs: &BTreeSet<u64>| {
            let text = dir.path().join(format!("{name}.el"));
            let mut f = std::io::BufWriter::new(std::fs::File::create(&text).unwrap());
            for ((u, v), w) in want {
                writeln!(f, "{u} {v} {w}").unwrap();
            }
            drop(f);
            let out = dir.path().join(format!("{name}.grotto"));
            let opts = ConvertOptions {
                undirected,
                reverse,
                weighted: Some(true),
                vertex_ids: Some(Arc::new(vs.iter().copied().collect())),
                ..ConvertOptions::default()
            };
            convert(&Input::path(&text), &out, &opts).unwrap();
            out
        };
        let base = write("base", &want, &(0..n).collect());
        let (x0, want0) = (x, want.clone());
        let mut reports: Vec<Vec<UpdateReport>> = Vec::new();
        for policy in [MergePolicy::Always, MergePolicy::Never] {
            let path = dir.path().join(format!("{policy:?}.grotto"));
            std::fs::copy(&base, &path).unwrap();
            let (mut x, mut want) = (x0, want0.clone());
            let mut n_now = n;
            let mut vs: BTreeSet<u64> = (0..n).collect();
            reports.push(Vec::new());
            for batch in 0..3u64 {
                let have: Vec<((u64, u64), f32)> = want.iter().map(|(k, w)| (*k, *w)).collect();
                let pick = |x: &mut u64| have[(xorshift(x) % have.len() as u64) as usize].0;
                let del: Vec<(u64, u64)> = (0..150).map(|_| pick(&mut x)).collect();
                // New edges (some to new vertices), edges already there (their
                // weight stays), and one deleted and inserted again.
                let mut ins: Vec<(u64, u64, f32)> = (0..200)
                    .map(|i| {
                        let (a, b) = (xorshift(&mut x) % (n_now + 4), xorshift(&mut x) % n_now);
                        (a, b, 0.5 + i as f32)
                    })
                    .collect();
                let again = del[0];
                ins.push((again.0, again.1, 999.0));
                let keep = pick(&mut x);
                ins.push((keep.0, keep.1, 555.0));
                // A vertex without edges becomes a hub of light edges: its
                // list is served from the delta with its weights, and
                // shortest paths run through it.
                let hub = n - 10 + 3 * batch;
                for _ in 0..20 {
                    let (a, b) = (pick(&mut x).0, pick(&mut x).1);
                    ins.push((a, hub, 0.01));
                    ins.push((hub, b, 0.02));
                }
                // Weight changes: existing edges, an edge just inserted, and
                // one that is not there.
                let mut set: Vec<(u64, u64, f32)> = (0..100)
                    .map(|i| {
                        let e = pick(&mut x);
                        (e.0, e.1, 1000.0 + i as f32)
                    })
                    .collect();
                set.push((ins[0].0, ins[0].1, 77.0));
                set.push((n_now + 100, 1, 5.0));

                let mut up = GraphUpdate::open(&path).unwrap();
                for &(a, b) in &del {
                    up.delete(a, b).unwrap();
                }
                assert!(
                    up.insert(1, 2).is_err(),
                    "a weighted graph's inserts need weights"
                );
                for &(a, b, w) in &ins {
                    up.insert_weighted(a, b, w).unwrap();
                }
                for &(a, b, w) in &set {
                    up.set_weight(a, b, w).unwrap();
                }
                let report = crate::ingest::merge::commit(up, policy).unwrap();
                assert_eq!(report.merged, policy == MergePolicy::Always);
                // The expected graph: deletes, inserts (an edge there keeps
                // its weight; the last insert of an arc wins), weight changes.
                let before = want.clone();
                for &(a, b) in &del {
                    want.remove(&norm(a, b));
                }
                let mut added = Map::new();
                for &(a, b, w) in &ins {
                    if a != b && !want.contains_key(&norm(a, b)) {
                        added.insert(norm(a, b), w);
                    }
                }
                want.extend(added);
                let mut set_count = 0;
                for &(a, b, w) in &set {
                    if let Some(old) = want.get_mut(&norm(a, b)) {
                        *old = w;
                        set_count += 1;
                    }
                }
                n_now = n_now.max(ins.iter().map(|e| e.0.max(e.1) + 1).max().unwrap());
                vs.extend(ins.iter().flat_map(|e| [e.0, e.1]));
                assert_eq!(report.edges, want.len() as u64, "batch {batch}");
                assert!(report.weights_set > 0 && report.weights_set <= set_count);
                assert!(report.weights_not_present >= 1);
                assert_ne!(before, want);
                reports.last_mut().unwrap().push(report);

                let g = Arc::new(Graph::open(&path).unwrap());
                assert!(g.weighted());
                g.verify_all_blocks().unwrap();
                assert_eq!(weighted_arcs(&g, Direction::Out, undirected), want);
                if reverse {
                    assert_eq!(weighted_arcs(&g, Direction::In, undirected), want);
                }
                let fresh =
                    Arc::new(Graph::open(&write(&format!("fresh{batch}"), &want, &vs)).unwrap());
                for kind in [EngineKind::Sync, EngineKind::Async] {
                    let mut outs = Vec::new();
                    for g in [&g, &fresh] {
                        let Ok(plan) = sssp.plan(Some(kind), g) else {
                            continue;
                        };
                        let engine =
                            Engine::open(plan.engine, g.clone(), EngineConfig::default()).unwrap();
                        let out = sssp
                            .execute(&engine, &plan, &Params::new(sssp.params()), true)
                            .unwrap();
                        assert!(matches!(out.verdict, Some(Ok(()))), "{:?}", out.verdict);
                        outs.push(out.table.into_columns().unwrap());
                    }
                    if outs.len() == 2 {
                        let b = outs.pop().unwrap();
                        columns_agree("sssp", outs.pop().unwrap(), b, false);
                    }
                }
                if policy == MergePolicy::Never {
                    assert_eq!(g.updates().map(|u| u.runs), Some(batch + 1));
                }
            }
        }
        // A delta commit counts what a merge counts.
        let counts = |r: &UpdateReport| {
            let c = [r.inserted, r.deleted, r.already_present, r.not_present];
            (c, r.weights_set, r.weights_not_present, r.edges, r.vertices)
        };
        for (m, d) in reports[0].iter().zip(&reports[1]) {
            assert_eq!(counts(m), counts(d));
        }
    }
}
