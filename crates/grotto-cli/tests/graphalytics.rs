//! LDBC Graphalytics' validation graphs (`../shared/graphalytics/`), run
//! as a user would: the runner on the example datasets with `--validate`,
//! and each per-kernel graph through `convert` and `run --format
//! graphalytics`, compared with the reference outputs by Graphalytics'
//! rules (BFS and CDLP exact, PageRank and SSSP within 1e-4 relative,
//! WCC equal up to a relabelling). Skipped, saying so, where `../shared`
//! is absent.

mod common;

use common::{grotto, p, text};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

fn data() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/graphalytics/validation-graphs");
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!(
            "SKIPPED: {} is absent (the Graphalytics validation graphs live in ../shared)",
            d.display()
        );
        None
    }
}

fn read(path: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            (
                it.next().unwrap().to_string(),
                it.next().unwrap().to_string(),
            )
        })
        .collect()
}

fn num(s: &str) -> f64 {
    if s == "Infinity" {
        f64::INFINITY
    } else {
        s.parse().unwrap()
    }
}

#[derive(Clone, Copy)]
enum Rule {
    Exact,
    Relative,
    Relabelled,
}

fn same(rule: Rule, got: &Path, want: &Path) {
    let (g, w) = (read(got), read(want));
    assert_eq!(
        g.keys().collect::<Vec<_>>(),
        w.keys().collect::<Vec<_>>(),
        "{}: other vertices than {}",
        got.display(),
        want.display()
    );
    let (mut fwd, mut back) = (HashMap::new(), HashMap::new());
    for (id, wv) in &w {
        let gv = &g[id];
        let ok = match rule {
            Rule::Exact => num(gv) == num(wv),
            Rule::Relative => {
                let (a, b) = (num(gv), num(wv));
                a == b || (a - b).abs() <= 1e-4 * b.abs()
            }
            Rule::Relabelled => {
                fwd.entry(gv.clone()).or_insert(wv.clone()) == wv
                    && back.entry(wv.clone()).or_insert(gv.clone()) == gv
            }
        };
        assert!(
            ok,
            "{}: vertex {id} is {gv}, the reference says {wv}",
            got.display()
        );
    }
}

/// `grotto graphalytics PROPS --out OUT --validate REF --algorithms ALGOS`.
fn runner(props: &Path, out: &Path, reference: &Path, algos: &str) -> std::process::Output {
    grotto(&[
        "graphalytics",
        p(props),
        "--out",
        p(out),
        "--validate",
        p(reference),
        "--algorithms",
        algos,
    ])
}

#[test]
fn the_runner_validates_the_example_datasets() {
    let Some(v) = data() else { return };
    let d = tempfile::tempdir().unwrap();
    let ex = v.join("example");
    for ds in ["example-directed", "example-undirected"] {
        let props = ex.join(format!("{ds}.properties"));
        let o = runner(&props, d.path(), &ex, "bfs,cdlp,lcc,pr,sssp,wcc");
        let out = text(&o.stdout);
        assert!(o.status.success(), "{ds}: {out}{}", text(&o.stderr));
        for k in ["bfs", "cdlp", "lcc", "pr", "sssp", "wcc"] {
            assert!(
                out.lines()
                    .any(|l| l.trim_start().starts_with(k) && l.ends_with("pass")),
                "{ds} {k}: {out}"
            );
        }
        // The outputs are Graphalytics' files, named as it names them.
        same(
            Rule::Exact,
            &d.path().join(format!("{ds}-BFS")),
            &ex.join(format!("{ds}-BFS")),
        );
        same(
            Rule::Relative,
            &d.path().join(format!("{ds}-LCC")),
            &ex.join(format!("{ds}-LCC")),
        );
    }
    // A reference that differs fails the validation.
    let bad = d.path().join("ref");
    std::fs::create_dir_all(&bad).unwrap();
    let ds = "example-directed";
    let wrong = std::fs::read_to_string(ex.join(format!("{ds}-BFS")))
        .unwrap()
        .replace("3 1", "3 2");
    std::fs::write(bad.join(format!("{ds}-BFS")), wrong).unwrap();
    let o = runner(&ex.join(format!("{ds}.properties")), d.path(), &bad, "bfs");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).contains("vertex 3: 1, the reference says 2"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn every_per_kernel_validation_graph_passes_through_run() {
    let Some(v) = data() else { return };
    let d = tempfile::tempdir().unwrap();
    let dp = d.path();
    for dir in ["dir", "undir"] {
        let shape = if dir == "dir" {
            "--reverse"
        } else {
            "--undirected"
        };
        let iterations = if dir == "dir" { "14" } else { "26" };
        let kernels: [(&str, &str, Vec<&str>, Rule); 5] = [
            ("lcc", "lcc", vec![], Rule::Relative),
            ("bfs", "bfs", vec!["--source", "1"], Rule::Exact),
            ("cdlp", "cdlp", vec!["--iterations", "5"], Rule::Exact),
            ("wcc", "wcc", vec![], Rule::Relabelled),
            (
                "pr",
                "pagerank",
                vec![
                    "--max-iterations",
                    iterations,
                    "--tolerance",
                    "1e-300",
                    "--method",
                    "jacobi",
                ],
                Rule::Relative,
            ),
        ];
        for (k, algo, args, rule) in kernels {
            let g = dp.join(format!("{k}-{dir}.grotto"));
            let input = v.join(k).join(format!("{dir}-input"));
            common::ok(&grotto(&[
                "convert",
                p(&input),
                p(&g),
                "--format",
                "adjacency",
                shape,
                "-q",
            ]));
            for engine in ["sync", "async"] {
                let out = dp.join(format!("{k}-{dir}-{engine}.out"));
                let mut a = vec!["run", algo, p(&g), "--engine", engine, "-q"];
                a.extend(&args);
                a.extend(["--out", p(&out), "--format", "graphalytics"]);
                let o = grotto(&a);
                // WCC on the asynchronous engine needs an undirected graph;
                // CDLP and LCC run on the synchronous engine only.
                if (k, dir, engine) == ("wcc", "dir", "async")
                    || (engine == "async" && (k == "cdlp" || k == "lcc"))
                {
                    assert!(
                        !o.status.success() && text(&o.stderr).contains("sync"),
                        "{}",
                        text(&o.stderr)
                    );
                    continue;
                }
                assert!(
                    o.status.success(),
                    "{k} {dir} {engine}: {}",
                    text(&o.stderr)
                );
                same(rule, &out, &v.join(k).join(format!("{dir}-output")));
            }
        }
        // SSSP: weighted `.e` with a `.v` vertex file.
        let g = dp.join(format!("sssp-{dir}.grotto"));
        common::ok(&grotto(&[
            "convert",
            p(&v.join("sssp").join(format!("{dir}-input.e"))),
            p(&g),
            "--vertex-file",
            p(&v.join("sssp").join(format!("{dir}-input.v"))),
            "--weighted",
            shape,
            "-q",
        ]));
        let out = dp.join(format!("sssp-{dir}.out"));
        common::ok(&grotto(&[
            "run",
            "sssp",
            p(&g),
            "--source",
            "1",
            "--out",
            p(&out),
            "--format",
            "graphalytics",
            "-q",
        ]));
        same(
            Rule::Relative,
            &out,
            &v.join("sssp").join(format!("{dir}-output")),
        );
    }
}
