//! Property tests: random edge lists (duplicates, self loops, isolated
//! vertices, degrees around the 1024-id block size) go through every input
//! format and both build paths and come back as exactly the expected edges.

use grotto::export::{export, ExportFormat};
use grotto::ingest::{convert, BuildPath, ConvertOptions, IdMode, Input, VertexOrder};
use grotto::store::layout::LayoutConfig;
use grotto::store::Graph;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::io::Write;

#[derive(Clone, Copy, Debug)]
enum Fmt {
    EdgeList,
    AdjList,
    Mtx,
    Gzip,
    Zstd,
}

fn render(edges: &[(u64, u64)], fmt: Fmt, n: u64) -> Vec<u8> {
    let mut s = String::new();
    match fmt {
        Fmt::Mtx => {
            s.push_str("%%MatrixMarket matrix coordinate pattern general\n% comment\n");
            s.push_str(&format!("{n} {n} {}\n", edges.len()));
            for (u, v) in edges {
                s.push_str(&format!("{} {}\n", u + 1, v + 1));
            }
        }
        Fmt::AdjList => {
            s.push_str("# adjacency list\n");
            s.push_str(&format!("{}\n", edges.first().map_or(0, |e| e.0)));
            for (u, v) in edges {
                // one edge per line, padded with a second list line so the
                // sniffer sees an adjacency list
                s.push_str(&format!("{u} {v}\n"));
            }
        }
        _ => {
            s.push_str("# edge list\r\n");
            for (i, (u, v)) in edges.iter().enumerate() {
                let sep = if i % 3 == 0 { "\t" } else { " " };
                s.push_str(&format!("{u}{sep}{v}\r\n"));
            }
        }
    }
    let bytes = s.into_bytes();
    match fmt {
        Fmt::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&bytes).unwrap();
            e.finish().unwrap()
        }
        Fmt::Zstd => zstd::encode_all(&bytes[..], 1).unwrap(),
        _ => bytes,
    }
}

fn expected(edges: &[(u64, u64)], undirected: bool, keep_loops: bool) -> BTreeSet<(u64, u64)> {
    edges
        .iter()
        .filter(|(u, v)| keep_loops || u != v)
        .map(|&(u, v)| if undirected && v < u { (v, u) } else { (u, v) })
        .collect()
}

fn exported(path: &std::path::Path) -> BTreeSet<(u64, u64)> {
    let g = Graph::open(path).unwrap();
    g.verify_all_blocks().unwrap();
    let mut out = Vec::new();
    export(
        &g,
        ExportFormat::EdgeList,
        &mut out,
        std::path::Path::new("out"),
    )
    .unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut it = l.split(' ').map(|x| x.parse::<u64>().unwrap());
            (it.next().unwrap(), it.next().unwrap())
        })
        .collect()
}

/// Edge lists with hubs of degree 1023..=1025 and 3000, duplicates and loops.
fn graphs() -> impl Strategy<Value = (Vec<(u64, u64)>, u64)> {
    (
        2u64..3000,
        prop::collection::vec((0u64..3000, 0u64..3000), 0..400),
        prop::sample::select(vec![0u64, 1, 1023, 1024, 1025, 3000]),
        any::<u64>(),
    )
        .prop_map(|(n, raw, hub_deg, seed)| {
            let mut e: Vec<(u64, u64)> = raw.into_iter().map(|(u, v)| (u % n, v % n)).collect();
            let hub = seed % n;
            for i in 0..hub_deg {
                e.push((hub, (hub + 1 + i) % (n + hub_deg)));
            }
            if let Some(&x) = e.first() {
                e.push(x); // a duplicate
            }
            e.push((hub, hub)); // a self loop
            let n = e.iter().map(|&(u, v)| u.max(v) + 1).max().unwrap_or(0);
            (e, n)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn every_format_and_path_round_trips((edges, n) in graphs(), fmt in prop::sample::select(vec![Fmt::EdgeList, Fmt::AdjList, Fmt::Mtx, Fmt::Gzip, Fmt::Zstd]), undirected: bool, external: bool, keep_loops: bool, short_max in prop::sample::select(vec![0u32, 1, 3, 16, 1024]), packed: bool, order in prop::sample::select(vec![VertexOrder::None, VertexOrder::Degree, VertexOrder::Auto])) {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        std::fs::write(&input, render(&edges, fmt, n)).unwrap();
        let out = dir.path().join("g.grotto");
        let opts = ConvertOptions {
            undirected,
            keep_self_loops: keep_loops,
            memory_bytes: if external { Some(16 << 10) } else { None },
            force_external: external,
            // Many partitions: about 400 edges, up to 3000 at one hub.
            partition_records: external.then_some(97),
            order,
            ids: IdMode::Dense,
            layout: LayoutConfig { short_max, packed, ..LayoutConfig::default() },
            // One line without neighbours among hundreds of "u v" lines reads
            // as an edge list with a stray line: an adjacency list is said.
            format: matches!(fmt, Fmt::AdjList).then_some(grotto::ingest::Format::AdjList),
            ..ConvertOptions::default()
        };
        let r = convert(&Input::path(&input), &out, &opts).unwrap();
        prop_assert_eq!(r.path == BuildPath::External, external, "{:?}", r);
        prop_assert!(!external || edges.len() < 300 || r.partitions > 1, "{:?}", r);
        prop_assert!(short_max > 0 || r.short_blocks == 0, "{:?}", r);
        let g = Graph::open(&out).unwrap();
        prop_assert_eq!(g.header().packed(), packed);
        g.verify_all_blocks().unwrap();
        let base = if matches!(fmt, Fmt::Mtx) { 1 } else { 0 };
        let want: BTreeSet<(u64, u64)> = expected(&edges, undirected, keep_loops).into_iter().map(|(u, v)| (u + base, v + base)).collect();
        prop_assert_eq!(g.edge_count(), want.len() as u64);
        let mut n_expect = n;
        if matches!(fmt, Fmt::AdjList | Fmt::EdgeList | Fmt::Gzip | Fmt::Zstd) {
            n_expect = edges.iter().map(|&(u, v)| u.max(v) + 1).max().unwrap_or(0);
        }
        prop_assert_eq!(g.vertex_count(), n_expect);
        prop_assert_eq!(exported(&out), want);
    }

    #[test]
    fn sparse_and_huge_ids_are_compacted(ids in prop::collection::btree_set(any::<u64>(), 2..60), pairs in prop::collection::vec((0usize..60, 0usize..60), 1..200), external: bool) {
        let ids: Vec<u64> = ids.into_iter().collect();
        let edges: Vec<(u64, u64)> = pairs.into_iter().map(|(a, b)| (ids[a % ids.len()], ids[b % ids.len()])).collect();
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.el");
        std::fs::write(&input, render(&edges, Fmt::EdgeList, 0)).unwrap();
        let out = dir.path().join("g.grotto");
        let opts = ConvertOptions { ids: IdMode::Compact, force_external: external, partition_records: external.then_some(53), memory_bytes: if external { Some(16 << 10) } else { None }, ..ConvertOptions::default() };
        convert(&Input::path(&input), &out, &opts).unwrap();
        prop_assert_eq!(exported(&out), expected(&edges, false, false));
        let g = Graph::open(&out).unwrap();
        for &(u, _) in &edges {
            let v = g.vertex_of(u).unwrap();
            prop_assert_eq!(g.original_id(v), u);
        }
    }
}

#[test]
fn weighted_edges_keep_their_weights() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("w.el");
    std::fs::write(&input, "0 1 0.5\n1 2 2.25\n0 1 0.25\n2 2 9\n").unwrap();
    let out = dir.path().join("w.grotto");
    for external in [false, true] {
        let opts = ConvertOptions {
            force_external: external,
            partition_records: external.then_some(2),
            memory_bytes: if external { Some(16 << 10) } else { None },
            ..ConvertOptions::default()
        };
        convert(&Input::path(&input), &out, &opts).unwrap();
        let g = Graph::open(&out).unwrap();
        assert!(g.weighted());
        let mut s = Vec::new();
        export(
            &g,
            ExportFormat::EdgeList,
            &mut s,
            std::path::Path::new("out"),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(s).unwrap(),
            "# vertices 3 edges 2 directed\n0 1 0.25\n1 2 2.25\n"
        );
    }
}

#[test]
fn reverse_edges_mirror_the_out_edges() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("d.el");
    std::fs::write(&input, "0 1\n0 2\n3 1\n2 1\n").unwrap();
    let out = dir.path().join("d.grotto");
    for external in [false, true] {
        let opts = ConvertOptions {
            reverse: true,
            force_external: external,
            partition_records: external.then_some(2),
            memory_bytes: if external { Some(16 << 10) } else { None },
            ..ConvertOptions::default()
        };
        convert(&Input::path(&input), &out, &opts).unwrap();
        let g = Graph::open(&out).unwrap();
        let mut r = grotto::store::BlockReader::new(&g, grotto::store::Direction::In).unwrap();
        let mut nb = Vec::new();
        r.neighbors(1, &mut nb, None).unwrap();
        assert_eq!(nb, vec![0, 2, 3]);
    }
}

#[test]
fn zstd_external_small() {
    let mut edges = vec![(0u64, 1u64), (1, 1), (0, 1)];
    for i in 0..3000 {
        edges.push((2, 3 + i));
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, render(&edges, Fmt::Zstd, 2)).unwrap();
    let out = dir.path().join("g.grotto");
    let opts = ConvertOptions {
        force_external: true,
        memory_bytes: Some(16 << 10),
        ids: IdMode::Dense,
        ..ConvertOptions::default()
    };
    let r = convert(&Input::path(&input), &out, &opts).unwrap();
    assert_eq!(r.path, BuildPath::External, "{r:?}");
    assert_eq!(exported(&out), expected(&edges, false, false));
}

/// Lists of at most `short_max` ids (not kept inline) sit in the blocks
/// after every longer list, packed without straddling a block; both
/// build paths place them alike.
#[test]
fn short_lists_follow_the_long_ones() {
    let mut edges = Vec::new();
    for v in 0..400u64 {
        // Degrees 0..=39 by vertex, a few hubs of 1500.
        let d = if v % 97 == 0 { 1500 } else { v % 40 };
        for i in 0..d {
            edges.push((v, (v + 1 + i * 7) % 5000));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, render(&edges, Fmt::EdgeList, 5000)).unwrap();
    let mut spans = Vec::new();
    for external in [false, true] {
        let out = dir.path().join(format!("g{external}.grotto"));
        let opts = ConvertOptions {
            memory_bytes: if external { Some(16 << 10) } else { None },
            force_external: external,
            // Many partitions: about 400 edges, up to 3000 at one hub.
            partition_records: external.then_some(97),
            ids: IdMode::Dense,
            layout: LayoutConfig {
                short_max: 16,
                ..LayoutConfig::default()
            },
            ..ConvertOptions::default()
        };
        let r = convert(&Input::path(&input), &out, &opts).unwrap();
        assert!(r.short_blocks > 0, "{r:?}");
        let g = Graph::open(&out).unwrap();
        let adj = g.out();
        let first_short = adj.block_count() - r.short_blocks;
        let mut mine = Vec::new();
        for v in 0..g.vertex_count() as u32 {
            let Some((a, b)) = adj.block_range(v) else {
                continue;
            };
            let d = adj.degree(v);
            let slot = adj.disk_span(v).map_or(0, |s| s.0);
            if d <= 16 {
                assert!(a >= first_short, "vertex {v} of degree {d} in block {a}");
                assert_eq!(a, b, "vertex {v}'s short list straddles blocks");
            } else {
                assert!(b < first_short, "vertex {v} of degree {d} in block {b}");
            }
            mine.push((v, slot, d));
        }
        assert_eq!(exported(&out), expected(&edges, false, false));
        spans.push(mine);
    }
    assert_eq!(spans[0], spans[1], "the two build paths place lists alike");
}

/// A list of more than 2^22 ids (the index's degree field) in a packed
/// file: its degree and block count live in the huge table, every span
/// block decodes on its own, and `check` passes.
#[test]
fn packed_huge_list_round_trips() {
    use grotto::store::format::IndexEntry;
    let n: u64 = (1 << 22) + 100;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("star.txt");
    let mut text = String::with_capacity(n as usize * 12);
    for i in 1..=n {
        // Every third id, so the gaps are not all 1.
        text.push_str(&format!("0 {}\n", i * 3));
    }
    std::fs::write(&input, text).unwrap();
    let out = dir.path().join("star.grotto");
    let opts = ConvertOptions {
        ids: IdMode::Dense,
        ..ConvertOptions::default()
    };
    convert(&Input::path(&input), &out, &opts).unwrap();
    let g = Graph::open(&out).unwrap();
    assert!(g.header().packed());
    let adj = g.out();
    assert!(matches!(adj.entry(0), IndexEntry::Huge { .. }));
    assert_eq!(adj.degree(0), n);
    let (a, b) = adj.block_range(0).unwrap();
    assert!(b > a, "one hub list over blocks {a}..={b}");
    let ids = g.neighbors(0).unwrap();
    assert_eq!(ids.len() as u64, n);
    assert!(ids
        .iter()
        .enumerate()
        .all(|(i, &x)| x as u64 == (i as u64 + 1) * 3));
    g.verify_all_blocks().unwrap();
}

#[test]
fn generated_graphs_build_the_same_file_on_every_path() {
    use grotto::gen::rmat::{Rmat, RmatConfig};
    use grotto::gen::{AsSource, WeightedSource};
    use grotto::ingest::{convert_from, EdgeGenerator, NoProgress, Source};
    let g = Rmat::new(RmatConfig {
        scale: 12,
        edge_factor: 8,
        ..RmatConfig::default()
    })
    .unwrap();
    let plain = AsSource(&g);
    let weighted = WeightedSource { g: &g, seed: 3 };
    let dir = tempfile::tempdir().unwrap();
    for (undirected, reverse, src) in [
        (true, false, &plain as &dyn EdgeGenerator),
        (false, true, &plain as &dyn EdgeGenerator),
        (true, false, &weighted as &dyn EdgeGenerator),
    ] {
        let mut files = Vec::new();
        // Memory path; external with spilled partitions; external with
        // each partition from its own pass over the generator; external
        // spilling groups of two or three partitions, a pass each.
        for (i, (external, replay, groups)) in [
            (false, false, None),
            (true, false, None),
            (true, true, None),
            (true, false, Some(12_000)),
        ]
        .into_iter()
        .enumerate()
        {
            let out = dir.path().join(format!("g{i}.grotto"));
            let opts = ConvertOptions {
                undirected,
                reverse,
                force_external: external,
                replay_partitions: replay,
                spill_group_records: groups,
                partition_records: external.then_some(5000),
                order: VertexOrder::Auto,
                ..ConvertOptions::default()
            };
            let r = convert_from(&Source::Generated(src), &out, &opts, &NoProgress).unwrap();
            assert_eq!(r.path == BuildPath::External, external);
            assert!(!external || r.partitions > 4, "{r:?}");
            assert_eq!(r.parse.data_lines, 8 << 12, "{r:?}");
            // A count pass, then a scatter pass, a pass per partition or
            // one per group of two or three (of one adjacency).
            let passes = r.input_passes as usize;
            match (external, replay, groups) {
                (false, _, _) => assert_eq!(passes, 1),
                (true, false, None) => assert_eq!(passes, 2),
                (true, true, _) => assert_eq!(passes, 1 + r.partitions),
                (true, false, Some(_)) => assert!(
                    (1 + r.partitions.div_ceil(3)..r.partitions).contains(&passes),
                    "{r:?}"
                ),
            }
            files.push(std::fs::read(&out).unwrap());
        }
        assert!(files[0] == files[1], "memory and spilled builds differ");
        assert!(files[0] == files[2], "memory and replayed builds differ");
        assert!(
            files[0] == files[3],
            "memory and group-spilled builds differ"
        );
    }
}
