//! `convert --order degree` as a user meets it: the renumbered file answers
//! every algorithm in the user's ids and the user's row order, equal to
//! the file without an order wherever the answer is unique; both build
//! paths write the same bytes; exports read back; a damaged order section
//! is named.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn grotto(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grotto"))
        .args(args)
        .output()
        .expect("run grotto")
}

fn ok(args: &[&str]) -> String {
    let o = grotto(args);
    assert!(
        o.status.success(),
        "grotto {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn p(x: &Path) -> &str {
    x.to_str().unwrap()
}

/// Rows of a CSV result, header dropped.
fn rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// Converts `input` to `name` in `d` with `flags`.
fn convert(d: &Path, input: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let out = d.join(name);
    let mut args = vec!["convert", p(input), p(&out), "-q"];
    args.extend_from_slice(flags);
    ok(&args);
    out
}

/// Runs `alg` on `g` (verified) into a CSV named after both; returns its rows.
fn run(d: &Path, g: &Path, alg: &str, extra: &[&str]) -> Vec<Vec<String>> {
    let tag = format!(
        "{}-{alg}-{}.csv",
        g.file_stem().unwrap().to_str().unwrap(),
        extra.join("").replace(['-', ' '], "")
    );
    let out = d.join(tag);
    let mut args = vec!["run", alg, p(g), "--verify", "-q", "-o", p(&out)];
    args.extend_from_slice(extra);
    ok(&args);
    rows(&out)
}

/// Columns `cols` of every row.
fn cols(r: &[Vec<String>], cols: &[usize]) -> Vec<Vec<String>> {
    r.iter()
        .map(|row| cols.iter().map(|&c| row[c].clone()).collect())
        .collect()
}

/// Float columns agree within `tol` and every other field is equal.
fn close(a: &[Vec<String>], b: &[Vec<String>], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x[0], y[0], "rows in the same user order");
        for (f, g) in x.iter().zip(y).skip(1) {
            match (f.parse::<f64>(), g.parse::<f64>()) {
                (Ok(f), Ok(g)) => assert!((f - g).abs() <= tol, "{x:?} against {y:?}"),
                _ => assert_eq!(f, g),
            }
        }
    }
}

fn sorted_lines(path: &Path) -> Vec<String> {
    let mut l: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('%'))
        .map(str::to_string)
        .collect();
    l.sort();
    l
}

#[test]
fn a_degree_ordered_file_answers_in_the_users_ids_and_order() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let el = d.join("r.el");
    ok(&[
        "generate",
        "rmat",
        "--scale",
        "11",
        "--edge-factor",
        "8",
        "-o",
        p(&el),
        "-q",
    ]);
    let plain = convert(d, &el, "plain.grotto", &["--undirected", "--order", "none"]);
    let ordered = convert(
        d,
        &el,
        "ordered.grotto",
        &["--undirected", "--order", "degree"],
    );
    let external = convert(
        d,
        &el,
        "external.grotto",
        &[
            "--undirected",
            "--order",
            "degree",
            "--force-external",
            "--memory",
            "64MiB",
        ],
    );
    assert_eq!(
        std::fs::read(&ordered).unwrap(),
        std::fs::read(&external).unwrap(),
        "both build paths write the same ordered file"
    );
    assert!(ok(&["info", p(&ordered)]).contains("renumbered inside"));
    // The default, auto, orders a skewed graph and leaves a grid alone.
    let auto = convert(d, &el, "auto.grotto", &["--undirected"]);
    assert_eq!(
        std::fs::read(&auto).unwrap(),
        std::fs::read(&ordered).unwrap()
    );
    let gel = d.join("grid.el");
    ok(&[
        "generate",
        "grid",
        "--rows",
        "30",
        "--cols",
        "40",
        "-o",
        p(&gel),
        "-q",
    ]);
    let grid = convert(d, &gel, "grid.grotto", &["--undirected"]);
    assert!(ok(&["info", p(&grid)]).contains("vertex order     yours"));
    let grid_ext = convert(
        d,
        &gel,
        "gridx.grotto",
        &["--undirected", "--force-external"],
    );
    assert_eq!(
        std::fs::read(&grid).unwrap(),
        std::fs::read(&grid_ext).unwrap()
    );
    assert!(ok(&["info", p(&plain)]).contains("vertex order     yours"));
    ok(&["check", p(&ordered)]);
    // Smaller gaps pack tighter: fewer edge blocks (the whole file also
    // holds the order section, 4 bytes per vertex).
    let blocks = |f: &Path| -> u64 {
        let j = ok(&["info", p(f), "--json"]);
        let at = j.find("\"blocks\":").expect("blocks in info") + 9;
        j[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(
        blocks(&ordered) < blocks(&plain),
        "{} >= {}",
        blocks(&ordered),
        blocks(&plain)
    );

    for engine in ["sync", "async"] {
        let e = ["--engine", engine];
        // Unique answers: equal, row for row, in the user's order.
        let (a, b) = (run(d, &plain, "bfs", &e), run(d, &ordered, "bfs", &e));
        assert_eq!(cols(&a, &[0, 1]), cols(&b, &[0, 1]), "{engine} bfs depths");
        assert_eq!(run(d, &plain, "wcc", &e), run(d, &ordered, "wcc", &e));
        let k = ["--engine", engine, "--k", "4"];
        assert_eq!(run(d, &plain, "kcore", &k), run(d, &ordered, "kcore", &k));
        let (a, b) = (
            run(d, &plain, "pagerank", &e),
            run(d, &ordered, "pagerank", &e),
        );
        close(&a, &b, 1e-6);
    }
    let e = ["--engine", "async"];
    assert_eq!(
        run(d, &plain, "coreness", &e),
        run(d, &ordered, "coreness", &e)
    );
    // Labels are ranks in the user's order: the same labels.
    assert_eq!(run(d, &plain, "cdlp", &[]), run(d, &ordered, "cdlp", &[]));
    // Triangles and clustering: the same counts, within the list budget
    // or cut into ranges.
    for mem in [&["--per-vertex"][..], &["--per-vertex", "--memory", "4KiB"]] {
        assert_eq!(run(d, &plain, "tc", mem), run(d, &ordered, "tc", mem));
    }
    close(
        &run(d, &plain, "lcc", &[]),
        &run(d, &ordered, "lcc", &["--memory", "4KiB"]),
        1e-12,
    );
    // Sampled sources are drawn in the user's order: the same scores.
    let k = ["--sources", "5"];
    close(&run(d, &plain, "bc", &k), &run(d, &ordered, "bc", &k), 1e-9);
    // MIS ranks hash the user's order: the same set for the same seed.
    assert_eq!(run(d, &plain, "mis", &e), run(d, &ordered, "mis", &e));
    // A seeded source is drawn in the user's order: the same source.
    let a = run(d, &plain, "ppr", &[]);
    let b = run(d, &ordered, "ppr", &[]);
    close(&a, &b, 1e-6);
    // Neighbour order differs, so these are checked by their verifiers.
    run(d, &ordered, "dfs", &[]);
    run(d, &ordered, "randomwalk", &[]);
    run(d, &ordered, "eccentricity", &[]);

    // The exported edges are the same edges, in the user's ids.
    for (f, fmt) in [("edgelist", "el"), ("mtx", "mtx")] {
        let (ea, eb) = (d.join(format!("a.{fmt}")), d.join(format!("b.{fmt}")));
        ok(&["export", p(&plain), "-o", p(&ea), "--format", f, "-q"]);
        ok(&["export", p(&ordered), "-o", p(&eb), "--format", f, "-q"]);
        assert_eq!(sorted_lines(&ea), sorted_lines(&eb), "{f} export");
    }
}

#[test]
fn order_works_with_an_id_map_names_weights_and_reverse_edges() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // Sparse ids beyond u32 (compacted), weights, directed.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut ints, mut names) = (String::new(), String::new());
    for i in 0..3000u64 {
        // A few hubs, so the order moves vertices.
        let u = if i % 3 == 0 { rnd() % 5 } else { rnd() % 400 };
        let v = rnd() % 400;
        let w = 1 + rnd() % 9;
        ints += &format!(
            "{} {} {w}\n",
            5_000_000_000 + u * 977,
            5_000_000_000 + v * 977
        );
        names += &format!("v{u} v{v}\n");
    }
    let wel = d.join("w.el");
    std::fs::write(&wel, ints).unwrap();
    let flags = ["--weighted", "--reverse"];
    let plain = convert(
        d,
        &wel,
        "wplain.grotto",
        &[&flags[..], &["--order", "none"]].concat(),
    );
    let ordered = convert(
        d,
        &wel,
        "wordered.grotto",
        &[&flags[..], &["--order", "degree"]].concat(),
    );
    let external = convert(
        d,
        &wel,
        "wexternal.grotto",
        &[&flags[..], &["--order", "degree", "--force-external"]].concat(),
    );
    assert_eq!(
        std::fs::read(&ordered).unwrap(),
        std::fs::read(&external).unwrap()
    );
    let info = ok(&["info", p(&ordered)]);
    assert!(
        info.contains("ids compacted") && info.contains("renumbered"),
        "{info}"
    );
    let src = ["--source", "5000000977"];
    // Distances are unique; a parent among equally near ones is not.
    let (a, b) = (run(d, &plain, "sssp", &src), run(d, &ordered, "sssp", &src));
    assert_eq!(cols(&a, &[0, 1]), cols(&b, &[0, 1]));
    let (a, b) = (run(d, &plain, "bfs", &src), run(d, &ordered, "bfs", &src));
    assert_eq!(cols(&a, &[0, 1]), cols(&b, &[0, 1]));
    let (a, b) = (
        run(d, &plain, "pagerank", &[]),
        run(d, &ordered, "pagerank", &[]),
    );
    close(&a, &b, 1e-6);
    // Directed: in- and out-neighbours, an id map, ties to the smallest id.
    let it = ["--iterations", "4"];
    assert_eq!(run(d, &plain, "cdlp", &it), run(d, &ordered, "cdlp", &it));
    assert_eq!(run(d, &plain, "scc", &[]), run(d, &ordered, "scc", &[]));
    close(
        &run(d, &plain, "lcc", &[]),
        &run(d, &ordered, "lcc", &[]),
        1e-12,
    );
    let (ea, eb) = (d.join("wa.el"), d.join("wb.el"));
    ok(&["export", p(&plain), "-o", p(&ea), "-q"]);
    ok(&["export", p(&ordered), "-o", p(&eb), "-q"]);
    assert_eq!(sorted_lines(&ea), sorted_lines(&eb));

    // Names, undirected.
    let nel = d.join("n.el");
    std::fs::write(&nel, names).unwrap();
    let f = ["--ids", "string", "--undirected"];
    let plain = convert(
        d,
        &nel,
        "nplain.grotto",
        &[&f[..], &["--order", "none"]].concat(),
    );
    let ordered = convert(
        d,
        &nel,
        "nordered.grotto",
        &[&f[..], &["--order", "degree"]].concat(),
    );
    let src = ["--source", "v7"];
    let (a, b) = (run(d, &plain, "bfs", &src), run(d, &ordered, "bfs", &src));
    assert_eq!(cols(&a, &[0, 1]), cols(&b, &[0, 1]));
    assert_eq!(run(d, &plain, "wcc", &[]), run(d, &ordered, "wcc", &[]));
    let (ea, eb) = (d.join("na.el"), d.join("nb.el"));
    ok(&["export", p(&plain), "-o", p(&ea), "-q"]);
    ok(&["export", p(&ordered), "-o", p(&eb), "-q"]);
    assert_eq!(sorted_lines(&ea), sorted_lines(&eb));
}

#[test]
fn a_damaged_order_section_is_named() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let el = d.join("r.el");
    ok(&["generate", "rmat", "--scale", "9", "-o", p(&el), "-q"]);
    let g = convert(d, &el, "g.grotto", &["--undirected", "--order", "degree"]);
    // The order section is the last one written: its bytes end the file
    // (before padding to 4 KiB). Change one rank.
    let mut b = std::fs::read(&g).unwrap();
    let n = 1usize << 9;
    let end = b.len();
    let start = (0..end - n * 4)
        .rev()
        .step_by(4096)
        .map(|s| s - s % 4096)
        .find(|&s| {
            let ranks: Vec<u32> = b[s..s + n * 4]
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let mut seen = ranks.clone();
            seen.sort_unstable();
            seen == (0..n as u32).collect::<Vec<_>>()
        })
        .expect("the order section");
    b[start] ^= 1;
    std::fs::write(&g, b).unwrap();
    for args in [
        vec!["check", p(&g)],
        vec!["run", "bfs", p(&g), "-q", "-o", "-"],
    ] {
        let o = grotto(&args);
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains("g.grotto") && e.contains("order"),
            "{args:?}: {e}"
        );
    }
}

/// Generates a 40 x 50 road-like grid (15% of edges dropped) into `d`,
/// shuffled or in row order, with `extra` arguments.
fn road(d: &Path, name: &str, shuffle: bool, extra: &[&str]) -> PathBuf {
    let el = d.join(name);
    let mut args = vec![
        "generate",
        "grid",
        "--rows",
        "40",
        "--cols",
        "50",
        "--drop",
        "0.15",
        "-o",
        p(&el),
        "-q",
    ];
    if shuffle {
        args.push("--shuffle");
    }
    args.extend_from_slice(extra);
    ok(&args);
    el
}

/// Converts `input` to `name` in `d` undirected with the default order;
/// returns the order the report says was taken.
fn order_taken(d: &Path, input: &Path, name: &str) -> String {
    let j = ok(&[
        "convert",
        p(input),
        p(&d.join(name)),
        "--undirected",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&j).expect("a JSON report");
    v["order"]
        .as_str()
        .expect("an order in the report")
        .to_string()
}

#[test]
fn a_shuffled_road_is_numbered_breadth_first_and_answers_in_the_users_ids() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let shuffled = road(d, "shuffled.el", true, &[]);
    let rows_el = road(d, "rows.el", false, &[]);
    // The same edges whatever the thread count.
    let one = road(d, "one.el", true, &["--threads", "1"]);
    assert_eq!(
        std::fs::read(&one).unwrap(),
        std::fs::read(&shuffled).unwrap()
    );
    // As many edges as the header says, about 85% of the grid's 3,910.
    let text = std::fs::read_to_string(&shuffled).unwrap();
    let lines = text.lines().filter(|l| !l.starts_with('#')).count();
    assert!(text.contains(&format!("edges {lines}")), "{lines} lines");
    assert!((3200..3450).contains(&lines), "{lines} edges kept of 3910");
    // The default (auto) finds the shuffled ids far apart and orders them.
    assert_eq!(order_taken(d, &shuffled, "auto.grotto"), "bfs");
    let bfs = convert(
        d,
        &shuffled,
        "bfs.grotto",
        &["--undirected", "--order", "bfs"],
    );
    let one = convert(
        d,
        &shuffled,
        "one.grotto",
        &["--undirected", "--order", "bfs", "--threads", "1"],
    );
    let bytes = |f: &Path| std::fs::read(f).unwrap();
    assert_eq!(bytes(&d.join("auto.grotto")), bytes(&bfs));
    assert_eq!(
        bytes(&one),
        bytes(&bfs),
        "the order does not depend on threads"
    );
    assert!(ok(&["info", p(&bfs)]).contains("renumbered inside"));
    ok(&["check", p(&bfs)]);
    // The same ids in row order are near already: auto leaves them.
    assert_eq!(order_taken(d, &rows_el, "rows.grotto"), "none");
    // Every answer in the user's ids, as without an order.
    let none = convert(
        d,
        &shuffled,
        "none.grotto",
        &["--undirected", "--order", "none"],
    );
    for (alg, extra) in [
        ("bfs", &["--source", "7"][..]),
        ("wcc", &[][..]),
        ("kcore", &["--k", "2"][..]),
    ] {
        assert_eq!(
            cols(&run(d, &none, alg, extra), &[0, 1]),
            cols(&run(d, &bfs, alg, extra), &[0, 1]),
            "{alg}"
        );
    }
    close(
        &run(d, &none, "pagerank", &[]),
        &run(d, &bfs, "pagerank", &[]),
        1e-6,
    );
    // A build that spills cannot make the order: said, and nothing written.
    let out = d.join("spilled.grotto");
    let o = grotto(&[
        "convert",
        p(&shuffled),
        p(&out),
        "--undirected",
        "--order",
        "bfs",
        "--force-external",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--order bfs needs the graph's records in memory"),
        "{err}"
    );
    assert!(!out.exists());
}
