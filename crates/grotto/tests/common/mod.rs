//! What the update tests share: a seeded generator, a small graph file
//! built from an edge list, and every arc of a graph read back.

use grotto::ingest::{convert, ConvertOptions, Input};
use grotto::store::layout::LayoutConfig;
use grotto::store::{BlockReader, Direction, Graph};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The next number of a xorshift stream.
pub fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Converts `edges` (directed; `reverse` edges stored too; packed or raw
/// blocks) into `dir/name.grotto` through a text edge list.
pub fn convert_edges(
    dir: &Path,
    name: &str,
    edges: &[(u64, u64)],
    packed: bool,
    reverse: bool,
) -> PathBuf {
    convert_keyed(dir, name, edges, (packed, reverse, false), Keys::Dense)
}

/// Converts `edges` into a weighted, directed graph with reverse edges
/// and raw blocks, `dir/name.grotto`; the weight of `u -> v` is
/// [`weight_of`].
#[allow(dead_code)]
pub fn convert_weighted(dir: &Path, name: &str, edges: &[(u64, u64)]) -> PathBuf {
    let text = dir.join(format!("{name}.el"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&text).unwrap());
    for &(u, v) in edges {
        writeln!(f, "{u} {v} {}", weight_of(u, v)).unwrap();
    }
    drop(f);
    let out = dir.join(format!("{name}.grotto"));
    let opts = ConvertOptions {
        reverse: true,
        weighted: Some(true),
        ..ConvertOptions::default()
    };
    convert(&Input::path(&text), &out, &opts).unwrap();
    out
}

/// The kinds of graph file the update tests try: (packed, reverse edges,
/// weighted). A weighted file is raw, with reverse edges.
#[allow(dead_code)]
pub const KINDS: [(bool, bool, bool); 3] = [
    (true, true, false),
    (false, false, false),
    (false, true, true),
];

/// Converts `edges` into `dir/name.grotto` of kind `(packed, reverse,
/// weighted)` (see [`KINDS`]).
#[allow(dead_code)]
pub fn convert_kind(
    dir: &Path,
    name: &str,
    edges: &[(u64, u64)],
    (packed, reverse, weighted): (bool, bool, bool),
) -> PathBuf {
    if weighted {
        convert_weighted(dir, name, edges)
    } else {
        convert_edges(dir, name, edges, packed, reverse)
    }
}

/// How a test graph's vertices are called: by their numbers, by
/// numbers kept in an id map (`--ids compact`), or by names (`v` and the
/// number: `--ids string`).
#[allow(dead_code)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Keys {
    Dense,
    Compact,
    Names,
}

/// Converts `edges` like [`convert_kind`] (an unweighted kind), with the
/// vertices called as `keys` says.
#[allow(dead_code)]
pub fn convert_keyed(
    dir: &Path,
    name: &str,
    edges: &[(u64, u64)],
    (packed, reverse, _): (bool, bool, bool),
    keys: Keys,
) -> PathBuf {
    let text = dir.join(format!("{name}.el"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&text).unwrap());
    for (u, v) in edges {
        match keys {
            Keys::Names => writeln!(f, "v{u} v{v}").unwrap(),
            _ => writeln!(f, "{u} {v}").unwrap(),
        }
    }
    drop(f);
    let out = dir.join(format!("{name}.grotto"));
    let opts = ConvertOptions {
        reverse,
        ids: match keys {
            Keys::Dense => grotto::ingest::IdMode::Auto,
            Keys::Compact => grotto::ingest::IdMode::Compact,
            Keys::Names => grotto::ingest::IdMode::String,
        },
        layout: LayoutConfig {
            packed,
            ..LayoutConfig::default()
        },
        ..ConvertOptions::default()
    };
    convert(&Input::path(&text), &out, &opts).unwrap();
    out
}

/// The weight [`convert_weighted`] gives `u -> v`.
#[allow(dead_code)]
pub fn weight_of(u: u64, v: u64) -> f32 {
    ((u * 7 + v) % 13) as f32 + 0.5
}

/// Every arc of the graph at `path` as (adjacency, source, target, the
/// bits of its weight; 0 in an unweighted graph), after opening it and
/// checking every block.
#[allow(dead_code)]
pub fn read_arcs(path: &Path) -> grotto::Result<BTreeSet<(u8, u64, u64, u32)>> {
    let g = Graph::open(path)?;
    g.verify_all_blocks()?;
    let mut s = BTreeSet::new();
    let (mut ids, mut ws) = (Vec::new(), Vec::new());
    for (d, dir) in [(0u8, Direction::Out), (1, Direction::In)] {
        let Ok(mut r) = BlockReader::new(&g, dir) else {
            continue;
        };
        for v in 0..g.vertex_count() as u32 {
            r.neighbors(v, &mut ids, Some(&mut ws))?;
            ws.resize(ids.len(), 0.0);
            s.extend(
                ids.iter()
                    .zip(&ws)
                    .map(|(&u, w)| (d, g.original_id(v), g.original_id(u), w.to_bits())),
            );
        }
    }
    Ok(s)
}
