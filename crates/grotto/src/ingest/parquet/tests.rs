//! Tests of Parquet edge input: types, row groups, directories, bad rows.
use super::*;
use crate::ingest::{convert, convert_path, ConvertOptions, Input, NoProgress};
use crate::store::{BlockReader, Direction, Graph};
use arrow_array::{Float64Array, Int32Array, Int64Array, RecordBatch, StringArray, UInt64Array};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use std::sync::Arc;

/// Writes `cols` as a Parquet file with row groups of `group` rows.
fn write(path: &Path, cols: Vec<(&str, ArrayRef)>, group: usize) {
    let batch = RecordBatch::try_from_iter(cols).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let mut w =
        ArrowWriter::try_new(File::create(path).unwrap(), batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

fn lists(path: &Path) -> Vec<(u64, Vec<(u64, u32)>)> {
    let g = Graph::open(path).unwrap();
    let mut r = BlockReader::new(&g, Direction::Out).unwrap();
    let (mut ids, mut ws) = (Vec::new(), Vec::new());
    let mut out = Vec::new();
    for v in 0..g.vertex_count() as u32 {
        r.neighbors(v, &mut ids, Some(&mut ws)).unwrap();
        let w: Vec<u32> = if g.weighted() {
            ws.iter().map(|x| x.to_bits()).collect()
        } else {
            vec![0; ids.len()]
        };
        let mut l: Vec<(u64, u32)> = ids.iter().map(|&u| g.original_id(u)).zip(w).collect();
        l.sort();
        out.push((g.original_id(v), l));
    }
    out.sort();
    out
}

/// A file in several row groups, a directory of two files and the
/// same edges as text give the same graph.
#[test]
fn parquet_files_and_text_give_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    let n = 5000usize;
    let src: Vec<i64> = (0..n)
        .map(|i| (i * 7919 % 1000) as i64 + 1_000_000_000_000)
        .collect();
    let dst: Vec<i64> = (0..n)
        .map(|i| (i * 104_729 % 1000) as i64 + 1_000_000_000_000)
        .collect();
    let w: Vec<f64> = (0..n).map(|i| (i % 13) as f64 * 0.5 + 1.0).collect();
    let text: String = (0..n)
        .map(|i| format!("{} {} {}\n", src[i], dst[i], w[i]))
        .collect();
    std::fs::write(dir.path().join("e.txt"), text).unwrap();
    let one = dir.path().join("one.parquet");
    write(
        &one,
        vec![
            ("src", Arc::new(Int64Array::from(src.clone())) as ArrayRef),
            ("dst", Arc::new(Int64Array::from(dst.clone())) as ArrayRef),
            (
                "weight",
                Arc::new(Float64Array::from(w.clone())) as ArrayRef,
            ),
        ],
        700,
    );
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    for (k, r) in [(0, 0..2000), (1, 2000..n)] {
        write(
            &parts.join(format!("part-{k}.parquet")),
            vec![
                (
                    "src",
                    Arc::new(UInt64Array::from(
                        src[r.clone()].iter().map(|&x| x as u64).collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
                (
                    "dst",
                    Arc::new(Int64Array::from(dst[r.clone()].to_vec())) as ArrayRef,
                ),
                (
                    "weight",
                    Arc::new(Float64Array::from(w[r].to_vec())) as ArrayRef,
                ),
            ],
            1 << 20,
        );
    }
    std::fs::write(parts.join("_SUCCESS"), "").unwrap();
    let opts = ConvertOptions {
        undirected: true,
        ..Default::default()
    };
    let t = dir.path().join("t.grotto");
    convert(&Input::path(dir.path().join("e.txt")), &t, &opts).unwrap();
    let want = lists(&t);
    for (src_path, groups) in [(&one, 8), (&parts, 2)] {
        let out = dir.path().join("p.grotto");
        let e = ParquetEdges::open(src_path, &EdgeColumns::default(), None).unwrap();
        assert_eq!((e.chunks(), e.rows()), (groups, n as u64));
        let r = convert_path(src_path, &out, &opts, &EdgeColumns::default(), &NoProgress).unwrap();
        assert!(r.weighted && r.ids_compacted);
        assert_eq!(lists(&out), want, "{}", src_path.display());
    }
    // The input itself is never the output.
    let e = convert_path(&one, &one, &opts, &EdgeColumns::default(), &NoProgress);
    assert!(e.is_err());
    assert!(ParquetEdges::open(&one, &EdgeColumns::default(), None).is_ok());
}

#[test]
fn bad_tables_are_refused_with_file_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let case = |name: &str, cols: Vec<(&str, ArrayRef)>, columns: &str| {
        let p = dir.path().join(format!("{name}.parquet"));
        write(&p, cols, 1 << 20);
        let out = dir.path().join(format!("{name}.grotto"));
        let c: EdgeColumns = columns.parse().unwrap();
        let e = convert_path(&p, &out, &ConvertOptions::default(), &c, &NoProgress).unwrap_err();
        assert!(!out.exists());
        e.to_string()
    };
    let ids = |v: Vec<i64>| Arc::new(Int64Array::from(v)) as ArrayRef;
    let e = case(
        "neg",
        vec![("src", ids(vec![1, 2, -3])), ("dst", ids(vec![2, 3, 4]))],
        "src,dst",
    );
    assert!(
        e.contains("neg.parquet") && e.contains("row 2 has src -3"),
        "{e}"
    );
    let nulls = Arc::new(Int32Array::from(vec![Some(1), None])) as ArrayRef;
    let e = case("null", vec![("a", nulls), ("b", ids(vec![2, 3]))], "a,b");
    assert!(e.contains("row 1 has no \"a\""), "{e}");
    let s = Arc::new(StringArray::from(vec!["x", "y"])) as ArrayRef;
    let e = case("str", vec![("src", s), ("dst", ids(vec![2, 3]))], "src,dst");
    assert!(e.contains("both id columns"), "{e}");
    let s = Arc::new(StringArray::from(vec![Some("x"), Some("y")])) as ArrayRef;
    let t = Arc::new(StringArray::from(vec![Some("y"), None])) as ArrayRef;
    let e = case("strnull", vec![("src", s), ("dst", t)], "src,dst");
    assert!(e.contains("row 1 has no \"dst\""), "{e}");
    let e = case(
        "missing",
        vec![("from", ids(vec![1])), ("to", ids(vec![2]))],
        "src,dst",
    );
    assert!(
        e.contains("no column \"src\"") && e.contains("--columns"),
        "{e}"
    );
    let junk = dir.path().join("junk.parquet");
    std::fs::write(&junk, "not parquet").unwrap();
    let e = convert_path(
        &junk,
        &dir.path().join("j.grotto"),
        &ConvertOptions::default(),
        &EdgeColumns::default(),
        &NoProgress,
    );
    assert!(e
        .unwrap_err()
        .to_string()
        .contains("not a readable Parquet file"));
}
