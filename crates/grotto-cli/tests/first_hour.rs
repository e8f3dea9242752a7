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

/// A command missing its graph, or with a misspelt flag: the usage line
/// is the command's own, with the options in brackets, not the flags
/// typed listed as if they were required.
#[test]
fn a_bad_command_line_s_usage_shows_options_as_optional() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "g", "0 1\n1 2\n", &["--undirected"]);
    for args in [
        vec!["run", "pagerank", "--damping", "0.9"],
        vec!["run", "pagerank", p(&g), "--dampin", "0.9"],
    ] {
        let o = grotto(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("Usage: grotto run pagerank [OPTIONS] <GRAPH>"),
            "{err}"
        );
        assert!(!err.contains("--damping <DAMPING> <GRAPH>"), "{err}");
    }
    let o = grotto(&["convert", "--memory", "4GiB", "a.el"]);
    let err = text(&o.stderr);
    assert!(
        err.contains("Usage: grotto convert [OPTIONS] <INPUT> <OUTPUT>"),
        "{err}"
    );
}

/// Results name the vertex column `id` in every format, as Parquet,
/// Python and GraphFrames do, and the record layout reads as 64-bit
/// types.
#[test]
fn results_name_their_vertex_column_id_everywhere() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "g", "0 1\n1 2\n", &["--undirected"]);
    let csv = d.path().join("r.csv");
    let say = ok(&grotto(&[
        "run",
        "bfs",
        p(&g),
        "--source",
        "0",
        "-o",
        p(&csv),
    ]));
    let body = std::fs::read_to_string(&csv).unwrap();
    assert!(body.starts_with("id,depth,parent\n"), "{body}");
    let npy = d.path().join("r.npy");
    let say_npy = ok(&grotto(&[
        "run",
        "bfs",
        p(&g),
        "--source",
        "0",
        "-o",
        p(&npy),
        "--format",
        "npy",
    ]));
    assert!(say_npy.contains("id:u64,depth:i64,parent:i64"), "{say_npy}");
    assert!(!say.contains(":u8") && !say.contains(":i8"), "{say}");
}

/// Summaries read as sentences: counts agree with their nouns, steps are
/// called what they are, values carry no JSON punctuation, and the cache
/// size is one number from the header to the summary.
#[test]
fn summaries_read_without_json_and_agree_with_themselves() {
    let d = tempfile::tempdir().unwrap();
    // One self loop, one duplicate; one component.
    let g = text_graph(
        d.path(),
        "g",
        "0 1\n1 2\n2 2\n1 0\n2 3\n",
        &["--undirected"],
    );
    let conv = ok(&grotto(&["info", p(&g)]));
    assert!(conv.contains("1 self loop,"), "{conv}");
    let check = ok(&grotto(&["check", p(&g)]));
    assert!(check.contains("ok (0 blocks checked)"), "{check}");
    let run = |args: &[&str]| {
        let o = grotto(args);
        (ok(&o), text(&o.stderr))
    };
    let (wcc, head) = run(&["run", "wcc", p(&g)]);
    assert!(
        !wcc.contains("1 levels") && wcc.contains("1 iteration"),
        "{wcc}"
    );
    let cache_head = head
        .split("cache ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    let cache_sum = wcc
        .split("cache       ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(cache_head, cache_sum, "{head}\n{wcc}");
    let (pr, _) = run(&["run", "pagerank", p(&g)]);
    assert!(pr.contains(" iterations"), "{pr}");
    assert!(!pr.contains("levels"), "{pr}");
    for junk in ["[[", "\"", "null"] {
        assert!(!pr.contains(junk), "{junk}: {pr}");
    }
    // Numbers to six significant digits, not seventeen.
    let longest = pr.split(|c: char| !c.is_ascii_digit()).map(str::len).max();
    assert!(longest < Some(9), "{pr}");
    assert!(pr.contains("converged yes"), "{pr}");
    let (bfs, _) = run(&["run", "bfs", p(&g), "--engine", "async", "--source", "0"]);
    assert!(bfs.contains(" pass") && !bfs.contains("1 levels"), "{bfs}");
}

/// PageRank on a weighted graph as networkx computes it by default:
/// `--weighted` runs it (on the async engine, verified), and an
/// unweighted graph says what it needs.
#[test]
fn weighted_pagerank_runs_and_verifies() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(
        d.path(),
        "w",
        "0 1 1.0\n1 2 3.0\n2 0 0.5\n0 2 2.0\n2 3 1.5\n3 0 1.0\n",
        &["--weighted", "--reverse"],
    );
    let r = report(&["run", "pagerank", p(&g), "--weighted", "--verify"]);
    assert_eq!(r["verified"], true, "{r}");
    assert_eq!(r["metrics"]["engine"], "async", "{r}");
    assert_eq!(r["config"]["weighted"], true, "{r}");
    let plain = text_graph(d.path(), "u", "0 1\n1 2\n", &[]);
    let o = grotto(&["run", "pagerank", p(&plain), "--weighted"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("needs edge weights"), "{err}");
    let o = grotto(&["run", "pagerank", p(&g), "--weighted", "--engine", "sync"]);
    assert!(
        text(&o.stderr).contains("asynchronous engine"),
        "{}",
        text(&o.stderr)
    );
}
