//! String vertex ids as a user meets them: `convert --ids string`, every
//! algorithm run on a graph with names and checked against the same graph
//! with integer ids, exports that read back, and what is refused.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
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

const N: u64 = 300;

/// The name of integer vertex `i`: injective, non-ASCII, and ordered
/// differently from the integers (so internal ids differ between files).
fn name(i: u64) -> String {
    format!("n{}-é", (i * 7919) % 1009)
}

/// The same weighted undirected graph twice: with integer ids and with
/// names. Returns (integer file, names file).
fn pair(d: &Path) -> (PathBuf, PathBuf) {
    let mut x = 88172645463325252u64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut ints, mut names) = (String::new(), String::new());
    for _ in 0..1500 {
        let (u, v) = (rnd() % N, rnd() % N);
        // Weights are small integers: sums are exact in every order.
        let w = 1 + rnd() % 9;
        ints += &format!("{u} {v} {w}\n");
        names += &format!("{} {} {w}\n", name(u), name(v));
    }
    // Every vertex is named on some line.
    for u in 0..N {
        ints += &format!("{u} {} 1\n", (u + 1) % N);
        names += &format!("{} {} 1\n", name(u), name((u + 1) % N));
    }
    let (ie, ne) = (d.join("ints.el"), d.join("names.el"));
    std::fs::write(&ie, ints).unwrap();
    std::fs::write(&ne, names).unwrap();
    let (ig, ng) = (d.join("ints.grotto"), d.join("names.grotto"));
    for (el, g, extra) in [(&ie, &ig, None), (&ne, &ng, Some("--ids=string"))] {
        let mut args = vec!["convert", p(el), p(g), "--undirected", "--weighted", "-q"];
        args.extend(extra);
        let o = grotto(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    (ig, ng)
}

/// Runs `algo` on `g` with `args`, verified, and returns the CSV result
/// as (first column -> other columns).
fn run(g: &Path, algo: &str, args: &[&str]) -> HashMap<String, Vec<String>> {
    let out = g.with_extension(format!("{algo}.csv"));
    let mut a = vec!["run", algo, p(g), "--verify", "-q", "--out", p(&out)];
    a.extend(args);
    let o = grotto(&a);
    assert!(o.status.success(), "{algo} {args:?}: {}", text(&o.stderr));
    let body = std::fs::read_to_string(&out).unwrap();
    body.lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split(',').map(str::to_string);
            let k = f.next().unwrap();
            (k, f.collect())
        })
        .collect()
}

#[test]
fn every_algorithm_runs_verified_on_names_and_agrees_with_integer_ids() {
    let d = tempfile::tempdir().unwrap();
    let (ig, ng) = pair(d.path());
    let info = text(&grotto(&["info", p(&ng)]).stdout);
    // Every file is written as version 7 (room for updates, coded maps).
    assert!(info.contains("format version   7"), "{info}");
    assert!(info.contains("vertex names     yes"), "{info}");
    assert!(text(&grotto(&["info", p(&ig)]).stdout).contains("format version   7"));

    let s = name(5);
    // Values that do not depend on how ties between vertices are broken.
    for (algo, ia, na, col) in [
        (
            "bfs",
            vec!["--source", "5"],
            vec!["--source", s.as_str()],
            0,
        ),
        (
            "sssp",
            vec!["--source", "5"],
            vec!["--source", s.as_str()],
            0,
        ),
        ("coreness", vec![], vec![], 0),
        ("kcore", vec!["--k", "4"], vec!["--k", "4"], 0),
        (
            "eccentricity",
            vec!["--source", "5"],
            vec!["--source", s.as_str()],
            0,
        ),
    ] {
        let (a, b) = (run(&ig, algo, &ia), run(&ng, algo, &na));
        assert_eq!(a.len() as u64, N, "{algo}");
        for i in 0..N {
            assert_eq!(
                a[&i.to_string()][col],
                b[&name(i)][col],
                "{algo}: vertex {i} ({})",
                name(i)
            );
        }
    }
    // PageRank: equal up to the order of floating-point sums.
    let (a, b) = (run(&ig, "pagerank", &[]), run(&ng, "pagerank", &[]));
    for i in 0..N {
        let (x, y): (f64, f64) = (
            a[&i.to_string()][0].parse().unwrap(),
            b[&name(i)][0].parse().unwrap(),
        );
        assert!((x - y).abs() <= 1e-9 * x.abs().max(1e-12), "{i}: {x} {y}");
    }
    // WCC: the same partition, each labelled by its smallest name.
    let (a, b) = (run(&ig, "wcc", &[]), run(&ng, "wcc", &[]));
    let mut smallest: HashMap<&str, String> = HashMap::new();
    for i in 0..N {
        let e = smallest
            .entry(a[&i.to_string()][0].as_str())
            .or_insert_with(|| name(i));
        if name(i) < *e {
            *e = name(i);
        }
    }
    for i in 0..N {
        assert_eq!(b[&name(i)][0], smallest[a[&i.to_string()][0].as_str()]);
    }
    // The rest: verified, every row a name, parents and targets names.
    for (algo, args) in [
        ("dfs", vec!["--source", s.as_str()]),
        ("mis", vec![]),
        ("ppr", vec!["--source", s.as_str()]),
        ("randomwalk", vec![]),
        ("bfs", vec!["--source", s.as_str(), "--engine", "async"]),
        ("wcc", vec!["--engine", "async"]),
    ] {
        let r = run(&ng, algo, &args);
        assert_eq!(r.len() as u64, N, "{algo}");
        assert!((0..N).all(|i| r.contains_key(&name(i))), "{algo}");
    }
    let dfs = run(&ng, "dfs", &["--source", s.as_str()]);
    assert!(dfs
        .values()
        .all(|v| v[1].is_empty() || v[1].starts_with('n') && v[1].ends_with("-é")));
    // The JSON summary names the source.
    let o = grotto(&["run", "bfs", p(&ng), "--source", &s, "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["summary"]["source"], s.as_str(), "{j}");
}

#[test]
fn exports_read_back_and_parquet_keeps_names() {
    let d = tempfile::tempdir().unwrap();
    let (_, ng) = pair(d.path());
    let el = d.path().join("back.el");
    let o = grotto(&["export", p(&ng), "-o", p(&el)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let first = std::fs::read_to_string(&el).unwrap();
    assert!(first.starts_with("# vertex ids are names"), "{first}");
    let g2 = d.path().join("back.grotto");
    let o = grotto(&[
        "convert",
        p(&el),
        p(&g2),
        "--ids",
        "string",
        "--undirected",
        "--weighted",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let el2 = d.path().join("back2.el");
    assert!(grotto(&["export", p(&g2), "-o", p(&el2)]).status.success());
    assert_eq!(first, std::fs::read_to_string(&el2).unwrap());

    let pq = d.path().join("e.parquet");
    assert!(
        grotto(&["export", p(&ng), "--format", "parquet", "-o", p(&pq)])
            .status
            .success()
    );
    let g3 = d.path().join("pq.grotto");
    let o = grotto(&["convert", p(&pq), p(&g3), "--undirected", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let el3 = d.path().join("back3.el");
    assert!(grotto(&["export", p(&g3), "-o", p(&el3)]).status.success());
    assert_eq!(first, std::fs::read_to_string(&el3).unwrap());
}

#[test]
fn what_names_cannot_do_is_refused_before_any_work() {
    let d = tempfile::tempdir().unwrap();
    let (_, ng) = pair(d.path());
    // A result format without strings: refused before the run, no file.
    let npy = d.path().join("r.npy");
    let o = grotto(&["run", "wcc", p(&ng), "--out", p(&npy), "--format", "npy"]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("csv or parquet"),
        "{}",
        text(&o.stderr)
    );
    assert!(!npy.exists());
    // An unknown name.
    let o = grotto(&["run", "bfs", p(&ng), "--source", "nobody"]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("no vertex with that name"),
        "{}",
        text(&o.stderr)
    );
    // A name on a graph with integer ids.
    let (ig, _) = pair(d.path());
    let o = grotto(&["run", "bfs", p(&ig), "--source", "alice"]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("no vertex names"),
        "{}",
        text(&o.stderr)
    );
    // Matrix Market entries are numbers; a vertex count contradicts names.
    let mtx = d.path().join("m.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
    )
    .unwrap();
    let out = d.path().join("m.grotto");
    let o = grotto(&["convert", p(&mtx), p(&out), "--ids", "string"]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("Matrix Market"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.exists());
    let el = d.path().join("names.el");
    let o = grotto(&[
        "convert",
        p(&el),
        p(&out),
        "--ids",
        "string",
        "--vertices",
        "9",
    ]);
    assert!(!o.status.success());
    assert!(!out.exists());
    // A malformed line is still named with its line and column.
    let bad = d.path().join("bad.el");
    std::fs::write(&bad, "alice bob 1\ncarol dave x\n").unwrap();
    let o = grotto(&["convert", p(&bad), p(&out), "--ids", "string", "--weighted"]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains(":2:"), "{}", text(&o.stderr));
    assert!(!out.exists());
}

/// `--vertex-file` with `--ids string` lists names: each is a vertex,
/// isolated or not; a bad line is named with its place, and an integer
/// vertex file cannot list names.
#[test]
fn a_vertex_file_of_names_adds_isolated_vertices() {
    let d = tempfile::tempdir().unwrap();
    let el = d.path().join("e.el");
    std::fs::write(&el, "ann bob\nbob cy\n").unwrap();
    let v = d.path().join("e.v");
    std::fs::write(&v, "# more\nzed\nann\n al \n").unwrap();
    let g = d.path().join("g.grotto");
    let convert = |extra: &[&str]| {
        let mut a = vec![
            "convert",
            p(&el),
            p(&g),
            "--undirected",
            "--vertex-file",
            p(&v),
            "-q",
        ];
        a.extend_from_slice(extra);
        grotto(&a)
    };
    let o = convert(&["--ids", "string"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let comp = run(&g, "wcc", &[]);
    let mut names: Vec<&String> = comp.keys().collect();
    names.sort();
    assert_eq!(names, ["al", "ann", "bob", "cy", "zed"]);
    assert_eq!(comp["zed"], ["zed"]);
    assert_eq!(comp["cy"], ["ann"]);
    // A name with a space, and names given as integer ids.
    std::fs::write(&v, "zed\nal bo\n").unwrap();
    let o = convert(&["--ids", "string"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("e.v:2:3: expected one vertex name"),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(&v, "zed\n").unwrap();
    let o = convert(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("e.v:1:1"), "{}", text(&o.stderr));
}
