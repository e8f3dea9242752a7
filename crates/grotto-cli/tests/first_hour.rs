//! Traps a newcomer met in the first hour (issue 46), typed as they
//! typed them: each error now says what to do.

mod common;

use common::*;

/// A CSV file with a header row, converted without `--format csv`: the
/// error says line 1 looks like a header and how to read one, and the
/// command it suggests works.
#[test]
fn a_header_row_is_named_with_the_flags_that_read_it() {
    let d = tempfile::tempdir().unwrap();
    let csv = d.path().join("collab.csv");
    std::fs::write(&csv, "source,target\n1,2\n2,3\n").unwrap();
    let g = d.path().join("c.grotto");
    let o = grotto(&["convert", p(&csv), p(&g), "--undirected"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("collab.csv:1:1"), "{err}");
    assert!(err.contains("if line 1 is a header row"), "{err}");
    assert!(
        err.contains("--format csv") && err.contains("--columns"),
        "{err}"
    );
    assert!(!g.exists());
    let args = ["convert", p(&csv), p(&g), "--undirected", "--format", "csv"];
    let mut a = args.to_vec();
    a.extend(["--columns", "source,target", "--json"]);
    let r: serde_json::Value = serde_json::from_str(&ok(&grotto(&a))).unwrap();
    assert_eq!(r["edges"], 2, "{r}");
}

/// A text file given where a graph belongs: the error names
/// `grotto convert`.
#[test]
fn a_text_file_given_to_run_points_to_convert() {
    let d = tempfile::tempdir().unwrap();
    let el = d.path().join("e.el");
    std::fs::write(&el, "0 1\n1 2\n").unwrap();
    let o = grotto(&["run", "bfs", p(&el)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("not a grotto graph file"), "{err}");
    assert!(err.contains("grotto convert INPUT GRAPH.grotto"), "{err}");
}

/// Help says what the commands do: every bench, every export format,
/// every input convert reads, and what -q leaves.
#[test]
fn help_names_everything_it_offers() {
    let top = ok(&grotto(&["--help"]));
    assert!(top.contains("CSV or Parquet"), "{top}");
    assert!(!top.contains("result of export"), "{top}");
    let bench = ok(&grotto(&["bench", "--help"]));
    for b in ["bench io", "bench pool", "bench decode", "bench ace"] {
        assert!(bench.contains(b), "{b}: {bench}");
    }
    let export = ok(&grotto(&["export", "--help"]));
    assert!(export.contains("Matrix Market, or Parquet"), "{export}");
}
