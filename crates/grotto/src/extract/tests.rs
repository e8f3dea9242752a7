use super::*;
use crate::algo::reference::Csr;
use crate::ingest::{ConvertOptions, IdMode};
use crate::store::Direction;
use crate::testkit;
use std::collections::BTreeSet;

/// A vertex's user-facing label (its id, or its name).
fn label(g: &Graph, v: VertexId) -> String {
    match g.names() {
        Some(t) => t.get(g.rank(v)).to_string(),
        None => g.original_id(v).to_string(),
    }
}

/// The edges between kept vertices, by brute force over every list.
fn want_edges(g: &Graph, keep: &[bool]) -> BTreeSet<(String, String)> {
    let csr = Csr::load(g, Direction::Out).unwrap();
    let mut out = BTreeSet::new();
    for v in 0..g.vertex_count() as VertexId {
        for &u in csr.neighbors(v) {
            if keep[v as usize] && keep[u as usize] && (g.directed() || v <= u) {
                let (a, b) = (label(g, v), label(g, u));
                out.insert(if g.directed() || a <= b {
                    (a, b)
                } else {
                    (b, a)
                });
            }
        }
    }
    out
}

fn edges_of(g: &Graph) -> BTreeSet<(String, String)> {
    want_edges(g, &vec![true; g.vertex_count() as usize])
}

fn vertices_of(g: &Graph, keep: Option<&[bool]>) -> BTreeSet<String> {
    (0..g.vertex_count() as VertexId)
        .filter(|&v| keep.is_none_or(|k| k[v as usize]))
        .map(|v| label(g, v))
        .collect()
}

fn check_piece(tg: &testkit::TestGraph, keep: &[bool]) {
    let g = &tg.graph;
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("piece.grotto");
    let p = write(
        g,
        keep,
        &out,
        PieceFormat::Grotto,
        &[],
        &ConvertOptions::default(),
        &NoProgress,
    )
    .unwrap();
    let h = Graph::open(&out).unwrap();
    assert_eq!(h.directed(), g.directed());
    assert_eq!(h.inn().is_some(), g.inn().is_some());
    assert_eq!(vertices_of(&h, None), vertices_of(g, Some(keep)));
    assert_eq!(edges_of(&h), want_edges(g, keep));
    assert_eq!(p.edges, h.edge_count());
    assert_eq!(p.vertices, h.vertex_count());
    // The edge list holds the same edges.
    let el = d.path().join("piece.el");
    let q = write(
        g,
        keep,
        &el,
        PieceFormat::EdgeList,
        &[],
        &ConvertOptions::default(),
        &NoProgress,
    )
    .unwrap();
    assert_eq!(q.edges, p.edges);
    let text = std::fs::read_to_string(&el).unwrap();
    let lines: BTreeSet<(String, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut t = l.split(' ');
            let (a, b) = (t.next().unwrap().to_string(), t.next().unwrap().to_string());
            if g.directed() || a <= b {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect();
    assert_eq!(lines, want_edges(g, keep));
}

/// Every third vertex, and the first one whatever its degree.
fn some(n: u64) -> Vec<bool> {
    (0..n).map(|v| v % 3 == 0 || v == 1).collect()
}

#[test]
fn a_piece_holds_exactly_the_edges_between_kept_vertices() {
    for tg in [
        testkit::rmat(9, 6, 3, true),
        testkit::rmat(9, 6, 4, false),
        testkit::from_edges(&[(5, 7), (7, 9), (9, 5), (11, 13), (100, 5)], true, false),
    ] {
        let keep = some(tg.graph.vertex_count());
        check_piece(&tg, &keep);
    }
}

#[test]
fn a_piece_of_a_graph_of_names_keeps_its_names_and_isolated_vertices() {
    let opts = ConvertOptions {
        ids: IdMode::String,
        undirected: true,
        ..ConvertOptions::default()
    };
    let tg = testkit::from_edges_with(&[(1, 2), (2, 10), (10, 1), (3, 4), (20, 30)], &opts);
    let g = &tg.graph;
    let named = |s: &str| g.vertex_named(s).unwrap();
    let mut keep = vec![false; g.vertex_count() as usize];
    // A triangle, and 3 without its neighbour 4.
    for s in ["1", "2", "10", "3"] {
        keep[named(s) as usize] = true;
    }
    check_piece(&tg, &keep);
}

#[test]
fn selections_choose_the_vertices_they_name() {
    // Two components: a 4-clique with a tail, and a path.
    let tg = testkit::from_edges(
        &[
            (0, 1),
            (0, 2),
            (0, 3),
            (1, 2),
            (1, 3),
            (2, 3),
            (3, 4),
            (4, 5),
            (6, 7),
            (7, 8),
        ],
        true,
        false,
    );
    let g = &tg.graph;
    let cfg = testkit::configs()[0].clone();
    let ids = |keep: Vec<bool>| -> Vec<u64> {
        (0..keep.len())
            .filter(|&v| keep[v])
            .map(|v| g.original_id(v as VertexId))
            .collect()
    };
    let v = |x: u64| g.vertex_of(x).unwrap();
    let ego = Selection::Ego {
        source: v(3),
        radius: 1,
        towards: Towards::Out,
    };
    assert_eq!(ids(select(g, &ego, &cfg).unwrap()), [0, 1, 2, 3, 4]);
    assert_eq!(
        ids(select(g, &Selection::Kcore(3), &cfg).unwrap()),
        [0, 1, 2, 3]
    );
    assert_eq!(
        ids(select(g, &Selection::Component(Some(v(7))), &cfg).unwrap()),
        [6, 7, 8]
    );
    assert_eq!(
        ids(select(g, &Selection::Component(None), &cfg).unwrap()),
        [0, 1, 2, 3, 4, 5]
    );
    // A result file, as grotto run writes one.
    let d = tempfile::tempdir().unwrap();
    let csv = d.path().join("r.csv");
    std::fs::write(
        &csv,
        "id,community,score\n0,7,0.5\n4,7,0.1\n6,2,0.9\n8,,1.5\n",
    )
    .unwrap();
    let f = |spec: &str| select(g, &Selection::Filter(Filter::parse(spec).unwrap()), &cfg);
    let at = |rest: &str| format!("{}:{rest}", csv.display());
    assert_eq!(ids(f(&at("score>0.4")).unwrap()), [0, 6, 8]);
    assert_eq!(ids(f(&at("score<=0.5")).unwrap()), [0, 4]);
    assert_eq!(ids(f(&at("community!=7")).unwrap()), [6]);
    let c = Filter::community(&at("7")).unwrap();
    assert_eq!(ids(select(g, &Selection::Filter(c), &cfg).unwrap()), [0, 4]);
    let e = f(&at("nope>1")).unwrap_err().to_string();
    assert!(
        e.contains("no column nope") && e.contains("community"),
        "{e}"
    );
    std::fs::write(&csv, "id,score\n0,0.5\n99,0.7\n").unwrap();
    let e = f(&at("score>0")).unwrap_err().to_string();
    assert!(e.contains("row 2") && e.contains("99"), "{e}");
}

#[test]
fn filters_parse_and_refuse_what_they_cannot_read() {
    let f = Filter::parse("out/ranks.parquet:rank >= 1e-3").unwrap();
    assert_eq!(f.path, Path::new("out/ranks.parquet"));
    assert_eq!(f.column.as_deref(), Some("rank"));
    assert_eq!((f.op, f.value.as_str()), (Op::Ge, "1e-3"));
    let f = Filter::parse("c:/x.csv:label==abc").unwrap();
    assert_eq!(f.path, Path::new("c:/x.csv"));
    assert_eq!((f.op, f.value.as_str()), (Op::Eq, "abc"));
    for bad in [
        "ranks.parquet",
        "r.csv:rank",
        "r.csv:>3",
        "r.csv:rank>",
        ":rank>3",
    ] {
        let e = Filter::parse(bad).unwrap_err().to_string();
        assert!(e.contains("RESULT:COLUMN OP VALUE"), "{bad}: {e}");
    }
    assert!(Filter::community("c.csv").is_err());
    assert!(f.passes(&Cell::Text("abc".into())).unwrap());
    assert!(!f.passes(&Cell::Null).unwrap());
}

#[test]
fn csv_fields_follow_rfc_4180_quotes() {
    let d = tempfile::tempdir().unwrap();
    let csv = d.path().join("r.csv");
    std::fs::write(&csv, "id,name\n1,\"a, \"\"b\"\"\"\n2,plain\n3,\"open\n").unwrap();
    let mut got = Vec::new();
    let e = result_table::csv(&csv, &|_| Ok((0, 1)), &mut |_, _, x| {
        got.push(x);
        Ok(())
    })
    .unwrap_err()
    .to_string();
    assert_eq!(
        got,
        [Cell::Text("a, \"b\"".into()), Cell::Text("plain".into())]
    );
    assert!(e.contains("r.csv:4:") && e.contains("closing quote"), "{e}");
}
