//! The vertices of a converted graph are exactly the ids the input gave:
//! those in an edge and those listed (`ConvertOptions::vertex_ids`), from
//! text and from arrays, wherever the gaps in the ids fall. An id given
//! nowhere is no vertex: it is not counted, has no rank, and is in no
//! result; a dense range is kept only when asked for.

use grotto::algo::registry::{self, Params};
use grotto::engine::{Engine, EngineConfig, EngineKind};
use grotto::ingest::arrays::EdgeArrays;
use grotto::ingest::{convert, convert_from, ConvertOptions, Input, NoProgress, Source};
use grotto::store::Graph;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// The user ids of a graph's vertices, in the user's order.
fn vertex_ids(g: &Graph) -> Vec<u64> {
    (0..g.vertex_count() as u32)
        .map(|r| g.original_id_of_rank(r))
        .collect()
}

/// The ids an input gives: its edges' ends and the listed ones.
fn given(edges: &[(u64, u64)], listed: &[u64]) -> BTreeSet<u64> {
    edges
        .iter()
        .flat_map(|&(u, v)| [u, v])
        .chain(listed.iter().copied())
        .collect()
}

fn opts(listed: &[u64]) -> ConvertOptions {
    ConvertOptions {
        reverse: true,
        vertex_ids: (!listed.is_empty()).then(|| Arc::new(listed.to_vec())),
        allow_empty: true,
        ..ConvertOptions::default()
    }
}

/// WCC's component count on the sync engine, verified.
fn components(g: Arc<Graph>) -> u64 {
    let a = registry::find("wcc").expect("wcc");
    let e = Engine::open(EngineKind::Sync, g.clone(), EngineConfig::default()).expect("engine");
    let plan = a.plan(Some(EngineKind::Sync), &g).expect("plan");
    let o = a
        .execute(&e, &plan, &Params::new(a.params()), true)
        .expect("wcc");
    assert_eq!(o.verdict, Some(Ok(())));
    o.summary["components"].as_u64().expect("components")
}

fn check(path: &Path, want: &BTreeSet<u64>, edges: &[(u64, u64)]) {
    let g = Graph::open(path).expect("open");
    assert_eq!(g.vertex_count(), want.len() as u64, "vertex count");
    assert_eq!(vertex_ids(&g), want.iter().copied().collect::<Vec<_>>());
    // Components: every listed id in no edge is one of its own.
    let mut parent: std::collections::BTreeMap<u64, u64> = want.iter().map(|&v| (v, v)).collect();
    fn find(p: &mut std::collections::BTreeMap<u64, u64>, x: u64) -> u64 {
        let up = p[&x];
        if up == x {
            return x;
        }
        let r = find(p, up);
        p.insert(x, r);
        r
    }
    for &(u, v) in edges {
        let (a, b) = (find(&mut parent, u), find(&mut parent, v));
        parent.insert(a.max(b), a.min(b));
    }
    let roots = want.iter().filter(|&&v| find(&mut parent, v) == v).count() as u64;
    assert_eq!(components(Arc::new(g)), roots);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn text_input_has_exactly_the_given_vertices(
        edges in prop::collection::vec((0u64..300, 0u64..300), 1..40),
        listed in prop::collection::vec(0u64..400, 0..8),
    ) {
        let d = tempfile::tempdir().expect("tempdir");
        let text = d.path().join("g.el");
        let body: String = edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
        std::fs::write(&text, body).expect("write");
        let out = d.path().join("g.grotto");
        convert(&Input::path(&text), &out, &opts(&listed)).expect("convert");
        check(&out, &given(&edges, &listed), &edges);
    }

    #[test]
    fn array_input_has_exactly_the_given_vertices(
        edges in prop::collection::vec((0u64..1000, 0u64..1000), 1..40),
        listed in prop::collection::vec(0u64..1000, 0..8),
    ) {
        let d = tempfile::tempdir().expect("tempdir");
        let (s, t): (Vec<u64>, Vec<u64>) = edges.iter().copied().unzip();
        let arrays = EdgeArrays::new(&s, &t, None, "columns").expect("arrays");
        let out = d.path().join("a.grotto");
        convert_from(&Source::Generated(&arrays), &out, &opts(&listed), &NoProgress)
            .expect("convert");
        check(&out, &given(&edges, &listed), &edges);
    }
}

#[test]
fn dense_ids_stay_dense_and_a_vertex_count_keeps_the_range() {
    let d = tempfile::tempdir().expect("tempdir");
    let text = d.path().join("d.el");
    std::fs::write(&text, "0 1\n1 2\n2 3\n").expect("write");
    let out = d.path().join("d.grotto");
    convert(&Input::path(&text), &out, &ConvertOptions::default()).expect("convert");
    let g = Graph::open(&out).expect("open");
    assert!(!g.header().has_id_map(), "0..4 all occur: no id map");
    assert_eq!(g.vertex_count(), 4);
    // A gap inside: compacted, the missing id is no vertex.
    std::fs::write(&text, "0 1\n1 3\n").expect("write");
    convert(&Input::path(&text), &out, &ConvertOptions::default()).expect("convert");
    let g = Graph::open(&out).expect("open");
    assert_eq!(vertex_ids(&g), vec![0, 1, 3]);
    // The dense range on request: every id below N.
    let o = ConvertOptions {
        vertices: Some(6),
        ..ConvertOptions::default()
    };
    convert(&Input::path(&text), &out, &o).expect("convert");
    let g = Graph::open(&out).expect("open");
    assert_eq!(g.vertex_count(), 6);
    assert!(!g.header().has_id_map());
    // Listed ids must lie in the range given.
    let o = ConvertOptions {
        vertices: Some(6),
        vertex_ids: Some(Arc::new(vec![9])),
        ..ConvertOptions::default()
    };
    let e = convert(&Input::path(&text), &out, &o).expect_err("9 is outside 0..6");
    assert!(e.to_string().contains("outside 0..6"), "{e}");
}
