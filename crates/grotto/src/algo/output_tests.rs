//! Tests of result tables: row order across chunks, and every format's
//! bytes.

/// Rows come out in order whatever the chunk (one row, a chunk that
/// does not divide the rows, one chunk for all, no rows).
#[test]
fn by_rows_keeps_row_order_across_chunks() {
    for (rows, chunk) in [(0, 4), (1, 1), (10, 3), (10, 10), (1000, 7), (5, 64)] {
        let got = by_rows(rows, chunk, None, |v, r| (v, r)).unwrap();
        let want: Vec<(usize, usize)> = (0..rows).map(|r| (r, r)).collect();
        assert_eq!(got, want, "{rows} rows, chunk {chunk}");
    }
}

use super::*;

fn table() -> Table {
    let mut t = Table::default();
    t.push("id", Values::U64(vec![7, 9]));
    t.push("parent", Values::I64(vec![-1, 7]));
    t.push("score", Values::F64(vec![0.25, 0.75]));
    t
}

#[test]
fn csv_and_records() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("r.csv");
    table().write(&p, Format::Csv).unwrap();
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "id,parent,score\n7,-1,0.25\n9,7,0.75\n"
    );
    assert_eq!(table().layout(), "id:u64,parent:i64,score:f64");
    let b = d.path().join("r.bin");
    table().write(&b, Format::Bin).unwrap();
    let bytes = std::fs::read(&b).unwrap();
    assert_eq!(bytes.len(), 48);
    assert_eq!(&bytes[8..16], &(-1i64).to_le_bytes());
    let n = d.path().join("r.npy");
    table().write(&n, Format::Npy).unwrap();
    let bytes = std::fs::read(&n).unwrap();
    let hl = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + hl) % 64, 0);
    assert_eq!(bytes.len(), 10 + hl + 48);
    assert!(std::str::from_utf8(&bytes[10..10 + hl])
        .unwrap()
        .contains("('score', '<f8')"));
}
