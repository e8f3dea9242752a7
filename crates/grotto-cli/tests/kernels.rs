//! The kernels of GAP and Graphalytics that need both directions or a
//! memory budget (tc, lcc, bc, scc) from the command line: refusals name
//! the fix, sizes are checked before the run, and results go out in the
//! user's ids.

mod common;
use common::{grotto, p, report, text, text_graph};

/// Runs grotto with `args` and returns its output; fails the test when
/// it fails.
fn ok(args: &[&str]) -> String {
    common::ok(&grotto(args))
}

fn graph(d: &std::path::Path, name: &str, edges: &str, flags: &[&str]) -> std::path::PathBuf {
    let el = d.join(format!("{name}.el"));
    std::fs::write(&el, edges).unwrap();
    let g = d.join(format!("{name}.grotto"));
    let mut a = vec!["convert", p(&el), p(&g), "-q"];
    a.extend_from_slice(flags);
    ok(&a);
    g
}

/// The rows of a two-column CSV result: id and value.
fn values(path: &std::path::Path) -> Vec<(u64, f64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let (a, b) = l.split_once(',').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect()
}

#[test]
fn refusals_and_sizes_are_clear() {
    let d = tempfile::tempdir().unwrap();
    let plain = graph(d.path(), "d", "1 2\n2 3\n3 1\n", &[]);
    for algo in ["tc", "lcc", "scc"] {
        let o = grotto(&["run", algo, p(&plain)]);
        assert_eq!(o.status.code(), Some(2), "{algo}");
        assert!(
            text(&o.stderr).contains("--reverse"),
            "{algo}: {}",
            text(&o.stderr)
        );
    }
    let u = graph(d.path(), "u", "1 2\n2 3\n3 1\n3 4\n", &["--undirected"]);
    let o = grotto(&["run", "tc", p(&u), "--memory", "lots"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--memory"), "{}", text(&o.stderr));
    let o = grotto(&["run", "bc", p(&u), "--source", "9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--source 9"),
        "{}",
        text(&o.stderr)
    );
    let o = grotto(&["run", "bc", p(&u), "--source", "1", "--sources", "2"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn results_in_the_users_ids() {
    let d = tempfile::tempdir().unwrap();
    // A triangle 10-20-30 with a tail 30-40, ids with gaps.
    let u = graph(
        d.path(),
        "u",
        "10 20\n20 30\n30 10\n30 40\n",
        &["--undirected"],
    );
    let out = d.path().join("t.csv");
    let s = ok(&[
        "run",
        "tc",
        p(&u),
        "--per-vertex",
        "--verify",
        "-o",
        p(&out),
    ]);
    assert!(s.contains("triangles 1"), "{s}");
    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        csv.lines().skip(1).collect::<Vec<_>>(),
        ["10,1", "20,1", "30,1", "40,0"]
    );
    let out = d.path().join("l.csv");
    ok(&["run", "lcc", p(&u), "--verify", "-o", p(&out)]);
    let lcc = values(&out);
    assert_eq!(lcc[0], (10, 1.0));
    assert!((lcc[2].1 - 1.0 / 3.0).abs() < 1e-12, "{lcc:?}");
    let out = d.path().join("b.csv");
    ok(&["run", "bc", p(&u), "--verify", "-o", p(&out)]);
    // networkx: betweenness_centrality(G, normalized=False)[30] == 2.
    assert_eq!(values(&out)[2], (30, 2.0));
    let dg = graph(d.path(), "s", "1 2\n2 1\n2 3\n3 4\n4 3\n", &["--reverse"]);
    let out = d.path().join("s.csv");
    let s = ok(&["run", "scc", p(&dg), "--verify", "-o", p(&out)]);
    assert!(s.contains("components 2"), "{s}");
    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        csv.lines().skip(1).collect::<Vec<_>>(),
        ["1,1", "2,1", "3,3", "4,3"]
    );
}

/// `--parents first`: networkx's BFS tree and visiting order, verified
/// against networkx's rule, with the column `order`; the async engine
/// says it does not build it.
#[test]
fn bfs_parents_first_gives_networkx_s_tree_and_order() {
    let d = tempfile::tempdir().unwrap();
    // 0 reaches 3 through 1 and 2: networkx's parent is 1, visited first.
    let g = text_graph(d.path(), "g", "0 2\n0 1\n1 3\n2 3\n3 4\n", &[]);
    let out = d.path().join("r.csv");
    let r = report(&[
        "run",
        "bfs",
        p(&g),
        "--source",
        "0",
        "--parents",
        "first",
        "--verify",
        "-o",
        p(&out),
    ]);
    assert_eq!(r["verified"], true, "{r}");
    let body = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        body,
        "id,depth,parent,order\n0,0,0,0\n1,1,0,1\n2,1,0,2\n3,2,1,3\n4,3,3,4\n"
    );
    let o = grotto(&[
        "run",
        "bfs",
        p(&g),
        "--parents",
        "first",
        "--engine",
        "async",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("synchronous engine"),
        "{}",
        text(&o.stderr)
    );
}

/// `--direction`: every way of running the levels gives the same depths,
/// verified; bottom-up on a directed graph without reverse edges is
/// refused with the conversion that fixes it.
#[test]
fn bfs_directions_agree_and_bottom_up_names_what_it_needs() {
    let d = tempfile::tempdir().unwrap();
    let mut edges = String::new();
    for v in 0..200u64 {
        edges.push_str(&format!(
            "{v} {}\n{v} {}\n",
            (v * 7 + 1) % 200,
            (v * 13 + 5) % 200
        ));
    }
    // A second component and an isolated id.
    edges.push_str("300 301\n301 302\n305 305\n");
    let und = text_graph(d.path(), "u", &edges, &["--undirected"]);
    let mut depths = Vec::new();
    for dir in ["auto", "top-down", "bottom-up"] {
        let out = d.path().join(format!("{dir}.csv"));
        let r = report(&[
            "run",
            "bfs",
            p(&und),
            "--source",
            "0",
            "--direction",
            dir,
            "--verify",
            "-o",
            p(&out),
        ]);
        assert_eq!(r["verified"], true, "{dir}: {r}");
        assert_eq!(r["config"]["direction"], dir, "{r}");
        let body = std::fs::read_to_string(&out).unwrap();
        let mut rows: Vec<(String, String)> = body
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].to_string(), f[1].to_string())
            })
            .collect();
        rows.sort();
        depths.push(rows);
    }
    assert_eq!(depths[0], depths[1]);
    assert_eq!(depths[1], depths[2]);
    let dir = text_graph(d.path(), "d", &edges, &[]);
    let o = grotto(&[
        "run",
        "bfs",
        p(&dir),
        "--source",
        "0",
        "--direction",
        "bottom-up",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("--reverse"), "{}", text(&o.stderr));
    let r = report(&[
        "run",
        "bfs",
        p(&dir),
        "--source",
        "0",
        "--verify",
        "-o",
        p(&d.path().join("x.csv")),
    ]);
    assert_eq!(r["verified"], true, "{r}");
}
