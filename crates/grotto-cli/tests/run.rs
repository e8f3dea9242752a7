//! `grotto run` as a user drives it: summaries, JSON, result files, and
//! every way a run can be refused.

use std::path::Path;
use std::process::{Command, Output};

fn grotto(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grotto"))
        .args(args)
        .output()
        .expect("run grotto")
}

fn p(x: &Path) -> &str {
    x.to_str().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A small undirected graph with sparse ids: a triangle 10-20-30, a tail
/// 30-40, and a separate edge 500-600.
fn small(d: &Path) -> std::path::PathBuf {
    let el = d.join("g.el");
    std::fs::write(&el, "10 20\n20 30\n30 10\n30 40\n500 600\n").unwrap();
    let g = d.join("g.grotto");
    let o = grotto(&["convert", p(&el), p(&g), "--undirected", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    g
}

#[test]
fn every_algorithm_runs_and_reports_metrics() {
    let d = tempfile::tempdir().unwrap();
    let g = small(d.path());
    for algo in ["bfs", "dfs", "wcc", "pagerank", "randomwalk"] {
        let o = grotto(&["run", algo, p(&g), "--json", "--verify"]);
        assert!(o.status.success(), "{algo}: {}", text(&o.stderr));
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["schema_version"], 1);
        assert_eq!(j["algorithm"], algo);
        assert_eq!(j["verified"], true);
        for k in [
            "wall_s",
            "algo_s",
            "bytes_read",
            "requests",
            "bytes_per_edge",
            "mean_in_flight",
            "cache_hit_ratio",
            "lock_wait_share",
            "peak_rss_bytes",
            "traversed_edges",
        ] {
            assert!(j["metrics"][k].is_number(), "{algo}: metrics.{k} missing");
        }
        assert!(
            o.stderr.is_empty(),
            "--json prints nothing else: {}",
            text(&o.stderr)
        );
    }
}

#[test]
fn results_are_in_the_users_ids() {
    let d = tempfile::tempdir().unwrap();
    let g = small(d.path());
    let out = d.path().join("bfs.csv");
    let o = grotto(&[
        "run",
        "bfs",
        p(&g),
        "--source",
        "40",
        "--out",
        p(&out),
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(&out).unwrap();
    let mut lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.remove(0), "id,depth,parent");
    lines.sort();
    assert_eq!(
        lines,
        vec![
            "10,2,30",
            "20,2,30",
            "30,1,40",
            "40,0,40",
            "500,-1,-1",
            "600,-1,-1"
        ]
    );
    let out = d.path().join("wcc.csv");
    let o = grotto(&["run", "wcc", p(&g), "--out", p(&out)]);
    assert!(o.status.success());
    let s = text(&o.stdout);
    assert!(s.contains("components 2"), "{s}");
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(
        csv.contains("40,10\n") && csv.contains("600,500\n"),
        "{csv}"
    );
}

#[test]
fn human_summary_names_the_metrics() {
    let d = tempfile::tempdir().unwrap();
    let g = small(d.path());
    let o = grotto(&["run", "pagerank", p(&g)]);
    assert!(o.status.success());
    let s = text(&o.stdout);
    for k in [
        "time ",
        "edges ",
        "io ",
        "cache ",
        "engine ",
        "bytes read per edge",
        "hit ratio",
    ] {
        assert!(s.contains(k), "{k:?} missing in {s}");
    }
    let e = text(&o.stderr);
    assert!(
        e.contains("concurrency") && e.contains("cache"),
        "config echoed: {e}"
    );
}

#[test]
fn bad_runs_are_refused_with_a_reason() {
    let d = tempfile::tempdir().unwrap();
    let g = small(d.path());
    let cases: &[(&[&str], &str)] = &[
        (&["run", "bfs", p(&g), "--source", "11"], "--source 11"),
        (&["run", "dfs", p(&g), "--target", "99"], "--target 99"),
        (
            &["run", "bfs", p(&g), "--concurrency", "lots"],
            "--concurrency",
        ),
        (
            &["run", "bfs", p(&g), "--concurrency", "0"],
            "concurrency 0",
        ),
        (&["run", "bfs", p(&g), "--cache", "3 apples"], "cache size"),
        (&["run", "bfs", p(&g), "--mode", "diagonal"], "diagonal"),
        (&["run", "bfs", p(&g), "--format", "xml", "-o", "x"], "xml"),
        (&["run", "bfs", p(&g), "--engine", "warp"], "warp"),
        (&["run", "pagerank", p(&g), "--damping", "1.5"], "--damping"),
        (&["run", "pagerank", p(&g), "--method", "newton"], "newton"),
    ];
    for (args, needle) in cases {
        let o = grotto(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(needle),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
    // A missing file is an input error (exit 2) naming the path.
    let o = grotto(&["run", "bfs", "/nonexistent.grotto"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("/nonexistent.grotto"));
}

#[test]
fn a_corrupt_block_is_named_and_leaves_no_output() {
    let d = tempfile::tempdir().unwrap();
    // Enough edges for lists on disk.
    let el = d.path().join("g.el");
    let mut s = String::new();
    for i in 0..3000u32 {
        s.push_str(&format!("{} {}\n", i % 50, 50 + i));
    }
    std::fs::write(&el, s).unwrap();
    let g = d.path().join("g.grotto");
    assert!(grotto(&["convert", p(&el), p(&g), "-q"]).status.success());
    // Flip a byte in the first page that `check` names as an edge block.
    let mut bytes = std::fs::read(&g).unwrap();
    let mut hit = false;
    for off in (4096..bytes.len()).step_by(4096) {
        let mut b = bytes.clone();
        b[off + 8] ^= 0x5a;
        std::fs::write(&g, &b).unwrap();
        let c = grotto(&["check", p(&g)]);
        if !c.status.success() && text(&c.stderr).contains("out-blocks block") {
            bytes = b;
            hit = true;
            break;
        }
    }
    assert!(hit, "no edge block found to corrupt");
    std::fs::write(&g, &bytes).unwrap();
    let out = d.path().join("r.csv");
    let o = grotto(&["run", "wcc", p(&g), "--out", p(&out)]);
    assert_ne!(o.status.code(), Some(0));
    let e = text(&o.stderr);
    assert!(
        e.contains("out-blocks block") && e.contains("checksum"),
        "{e}"
    );
    assert!(!out.exists());
}

#[test]
fn verify_reports_ok_on_a_correct_run() {
    // Duplicate edges kept in the file must not confuse the verifier.
    // (A failed verification exits with 3; the verifiers' own tests show
    // they catch wrong results.)
    let d = tempfile::tempdir().unwrap();
    let el = d.path().join("g.el");
    std::fs::write(&el, "1 2\n1 2\n2 3\n").unwrap();
    let g = d.path().join("g.grotto");
    assert!(
        grotto(&["convert", p(&el), p(&g), "--keep-duplicates", "-q"])
            .status
            .success()
    );
    let o = grotto(&["run", "bfs", p(&g), "--source", "1", "--verify"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("verify      ok"));
}
