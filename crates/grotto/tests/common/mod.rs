//! What the update tests share: a seeded generator and a small graph file
//! built from an edge list.

use grotto::ingest::{convert, ConvertOptions, Input};
use grotto::store::layout::LayoutConfig;
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
