//! `grotto run path` as a user runs it: the path in the user's ids (and
//! names), hops or weights, the table in every format, both engines, no
//! path, and refusals that name the fix; and the small things a user
//! meets on the way (betweenness's summary in names, `generate`'s help).

mod common;
use common::{grotto, ok, p, report, text, text_graph};

/// A weighted ring of six with a heavy chord: hops take the chord,
/// weights the way round. Ids far apart, so they are compacted.
const RING: &str = "10 20 1\n20 30 1\n30 40 1\n40 50 1\n50 60 1\n60 10 1\n10 40 9\n70 80 1\n";

#[test]
fn the_path_comes_out_in_the_users_ids() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "ring", RING, &["--undirected", "--weighted"]);
    let r = report(&[
        "run",
        "path",
        p(&g),
        "--source",
        "10",
        "--target",
        "40",
        "--verify",
    ]);
    let s = &r["summary"];
    assert_eq!(s["path"], serde_json::json!([10, 40]), "{r}");
    assert_eq!(s["hops"], 1, "{r}");
    assert_eq!(s["length"], 1.0, "{r}");
    assert_eq!(s["search"], "bidirectional", "{r}");
    assert_eq!(r["verified"], true, "{r}");
    let r = report(&[
        "run",
        "path",
        p(&g),
        "--source",
        "10",
        "--target",
        "40",
        "--weighted",
        "--verify",
    ]);
    let s = &r["summary"];
    assert_eq!(s["length"], 3.0, "{r}");
    assert_eq!(s["hops"], 3, "{r}");
    let path = s["path"].as_array().unwrap();
    assert!(
        path == &[10, 20, 30, 40].map(serde_json::Value::from)
            || path == &[10, 60, 50, 40].map(serde_json::Value::from),
        "{r}"
    );
    assert_eq!(r["metrics"]["engine"], "async", "{r}");
    assert_eq!(r["verified"], true, "{r}");
    // The table: a row per step (by weight, the one way: 10-40-30 costs 10).
    let csv = d.path().join("path.csv");
    ok(&grotto(&[
        "run",
        "path",
        p(&g),
        "--source",
        "10",
        "--target",
        "30",
        "--weighted",
        "--out",
        p(&csv),
        "-q",
    ]));
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "step,vertex,distance\n0,10,0.0\n1,20,1.0\n2,30,2.0\n"
    );
    for fmt in ["npy", "parquet"] {
        let out = d.path().join(format!("path.{fmt}"));
        ok(&grotto(&[
            "run",
            "path",
            p(&g),
            "--source",
            "10",
            "--target",
            "30",
            "--out",
            p(&out),
            "--format",
            fmt,
            "-q",
        ]));
        assert!(std::fs::metadata(&out).unwrap().len() > 0);
    }
}

#[test]
fn both_engines_and_every_direction_agree_on_the_length() {
    let d = tempfile::tempdir().unwrap();
    let mut body = String::new();
    // A directed ladder: 0 -> 1 -> ... -> 30, with shortcuts i -> i + 3.
    for i in 0..30u64 {
        body += &format!("{} {}\n", i, i + 1);
        if i % 3 == 0 {
            body += &format!("{} {}\n", i, i + 3);
        }
    }
    for (name, flags) in [
        ("u", &["--undirected"][..]),
        ("r", &["--reverse"][..]),
        ("d", &[][..]),
    ] {
        let g = text_graph(d.path(), name, &body, flags);
        for engine in ["sync", "async"] {
            let r = report(&[
                "run",
                "path",
                p(&g),
                "--source",
                "0",
                "--target",
                "29",
                "--engine",
                engine,
                "--verify",
            ]);
            assert_eq!(r["summary"]["hops"], 11, "{name} {engine}: {r}");
            assert_eq!(r["verified"], true, "{r}");
            let search = &r["summary"]["search"];
            let both = name == "u" || (name == "r" && engine == "sync");
            assert_eq!(
                search,
                if both { "bidirectional" } else { "forward" },
                "{r}"
            );
        }
        if name != "u" {
            // Against the edges' direction: no path.
            let r = report(&["run", "path", p(&g), "--source", "29", "--target", "0"]);
            assert_eq!(r["summary"]["reachable"], false, "{r}");
            assert!(r["summary"]["length"].is_null(), "{r}");
        }
    }
}

#[test]
fn names_no_path_and_refusals() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(
        d.path(),
        "n",
        "ann bob\nbob cy\ncy dee\neve fay\n",
        &["--undirected", "--ids", "string"],
    );
    let r = report(&["run", "path", p(&g), "--source", "ann", "--target", "dee"]);
    assert_eq!(
        r["summary"]["path"],
        serde_json::json!(["ann", "bob", "cy", "dee"]),
        "{r}"
    );
    // Betweenness names its most central vertices as PageRank does.
    let r = report(&["run", "bc", p(&g)]);
    let top = r["summary"]["top"].as_array().unwrap().clone();
    assert_eq!(top[0][0], "bob", "{r}");
    assert!(top.iter().all(|x| x[0].is_string()), "{r}");
    let csv = d.path().join("none.csv");
    let r = report(&[
        "run",
        "path",
        p(&g),
        "--source",
        "ann",
        "--target",
        "fay",
        "--out",
        p(&csv),
    ]);
    assert_eq!(r["summary"]["reachable"], false, "{r}");
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "step,vertex,distance\n"
    );
    let o = grotto(&["run", "path", p(&g), "--source", "ann", "--target", "zed"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--target \"zed\""),
        "{}",
        text(&o.stderr)
    );
    let o = grotto(&["run", "path", p(&g), "--source", "ann"]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--target"), "{}", text(&o.stderr));
    let o = grotto(&[
        "run",
        "path",
        p(&g),
        "--source",
        "ann",
        "--target",
        "cy",
        "--weighted",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--weighted"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn generate_says_what_its_weighted_flag_does() {
    for kind in ["grid", "rmat", "ba"] {
        let help = ok(&grotto(&["generate", kind, "--help"]));
        assert!(
            help.contains("Give each edge a weight in (0, 1]"),
            "{kind}: {help}"
        );
        assert!(!help.contains("third column as f32"), "{kind}: {help}");
    }
    let help = ok(&grotto(&["convert", "--help"]));
    assert!(help.contains("third column as f32"), "{help}");
}
