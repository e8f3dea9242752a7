//! `grotto run louvain` and `grotto run leiden` as a user runs them:
//! communities in the user's ids in every output format, a summary with
//! each level, the verifier, and refusals that name the fix.

mod common;
use common::{grotto, ok, p, report, text, text_graph};

/// Two 5-cliques joined by one edge, ids far apart (compacted), and an
/// isolated vertex given by `--vertices`-free input: every vertex is in
/// an edge.
fn two_cliques() -> String {
    let mut s = String::new();
    for base in [100u64, 9_000_000] {
        for a in 0..5 {
            for b in a + 1..5 {
                s += &format!("{} {}\n", base + a, base + b);
            }
        }
    }
    s += "104 9000000\n";
    s
}

#[test]
fn communities_come_out_in_the_users_ids_in_every_format() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "c", &two_cliques(), &["--undirected"]);
    for algo in ["louvain", "leiden"] {
        let r = report(&["run", algo, p(&g), "--verify"]);
        let s = &r["summary"];
        assert_eq!(s["communities"], 2, "{r}");
        // networkx: modularity(G, [clique A, clique B]) with m = 21.
        let m = 21.0f64;
        let want = 2.0 * (10.0 / m - (21.0f64 / (2.0 * m)).powi(2));
        assert!(
            (s["modularity"].as_f64().unwrap() - want).abs() < 1e-12,
            "{s}"
        );
        assert!(!s["levels"].as_array().unwrap().is_empty());
        assert_eq!(r["verified"], true, "{r}");
        let csv = d.path().join(format!("{algo}.csv"));
        ok(&grotto(&["run", algo, p(&g), "--out", p(&csv), "-q"]));
        let body = std::fs::read_to_string(&csv).unwrap();
        let mut lines = body.lines();
        assert_eq!(lines.next(), Some("id,community"));
        let rows: Vec<(u64, u64)> = lines
            .map(|l| {
                let (a, b) = l.split_once(',').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        assert_eq!(rows.len(), 10);
        // Numbered in the order of each community's first vertex.
        for &(id, c) in &rows {
            assert_eq!(c, u64::from(id >= 9_000_000), "{rows:?}");
        }
        for fmt in ["npy", "parquet", "graphalytics"] {
            let out = d.path().join(format!("{algo}.{fmt}"));
            ok(&grotto(&[
                "run",
                algo,
                p(&g),
                "--out",
                p(&out),
                "--format",
                fmt,
                "-q",
            ]));
            assert!(std::fs::metadata(&out).unwrap().len() > 0);
        }
    }
}

#[test]
fn levels_resolution_and_refusals() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "c", &two_cliques(), &["--undirected"]);
    let csv = d.path().join("levels.csv");
    ok(&grotto(&[
        "run",
        "louvain",
        p(&g),
        "--levels",
        "--out",
        p(&csv),
        "-q",
    ]));
    let header = std::fs::read_to_string(&csv).unwrap();
    assert!(
        header.starts_with("id,community,level1"),
        "{}",
        &header[..40]
    );
    // A tiny resolution puts everything together.
    let r = report(&["run", "louvain", p(&g), "--resolution", "0.01"]);
    assert_eq!(r["summary"]["communities"], 1, "{r}");
    for bad in [
        &["--resolution", "0"][..],
        &["--resolution", "-1"][..],
        &["--iterations", "0"][..],
    ] {
        let mut a = vec!["run", "leiden", p(&g)];
        a.extend_from_slice(bad);
        let o = grotto(&a);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", text(&o.stderr));
    }
    let dg = text_graph(d.path(), "dir", "1 2\n2 3\n3 1\n", &["--reverse"]);
    let o = grotto(&["run", "louvain", p(&dg)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--undirected"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_weighted_graph_counts_its_weights_unless_told_not_to() {
    let d = tempfile::tempdir().unwrap();
    // A 4-cycle whose heavy edges pair 1-2 and 3-4.
    let g = text_graph(
        d.path(),
        "w",
        "1 2 10\n2 3 1\n3 4 10\n4 1 1\n",
        &["--undirected", "--weighted"],
    );
    let r = report(&["run", "leiden", p(&g), "--verify"]);
    assert_eq!(r["summary"]["communities"], 2, "{r}");
    assert_eq!(r["summary"]["total_weight"], 22.0);
    let u = report(&["run", "leiden", p(&g), "--ignore-weights", "--verify"]);
    assert_eq!(u["summary"]["total_weight"], 4.0, "{u}");
}
