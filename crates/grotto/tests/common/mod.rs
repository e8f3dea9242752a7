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
    let text = dir.join(format!("{name}.el"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&text).unwrap());
    for (u, v) in edges {
        writeln!(f, "{u} {v}").unwrap();
    }
    drop(f);
    let out = dir.join(format!("{name}.grotto"));
    let opts = ConvertOptions {
        reverse,
        layout: LayoutConfig {
            packed,
            ..LayoutConfig::default()
        },
        ..ConvertOptions::default()
    };
    convert(&Input::path(&text), &out, &opts).unwrap();
    out
}

/// Every arc of the graph at `path` in user ids, tagged 0 (out-lists) or
/// 1 (in-lists), after `check`'s verification; the first error met else.
pub fn read_arcs(path: &Path) -> grotto::Result<BTreeSet<(u8, u64, u64)>> {
    let g = Graph::open(path)?;
    g.verify_all_blocks()?;
    let mut s = BTreeSet::new();
    let mut ids = Vec::new();
    for (d, dir) in [(0u8, Direction::Out), (1, Direction::In)] {
        let Ok(mut r) = BlockReader::new(&g, dir) else {
            continue;
        };
        for v in 0..g.vertex_count() as u32 {
            r.neighbors(v, &mut ids, None)?;
            s.extend(ids.iter().map(|&u| (d, g.original_id(v), g.original_id(u))));
        }
    }
    Ok(s)
}
