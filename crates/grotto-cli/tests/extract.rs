//! `grotto extract` as a user runs it: each way of choosing vertices, each
//! output format, names kept, and refusals that leave nothing behind.

mod common;
use common::{grotto, ok, p, text, text_graph};
use std::collections::BTreeSet;

/// A triangle 10-20-30 with a tail 30-40-50, a separate edge 70-80 and a
/// directed twin of it all.
const EDGES: &str = "10 20\n20 30\n30 10\n30 40\n40 50\n70 80\n";

fn lines(path: &std::path::Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.to_string())
        .collect()
}

fn set(xs: &[&str]) -> BTreeSet<String> {
    xs.iter().map(|x| x.to_string()).collect()
}

#[test]
fn each_choice_keeps_its_vertices() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "g", EDGES, &["--undirected"]);
    let out = d.path().join("out.el");
    let run = |extra: &[&str]| {
        let mut a = vec!["extract", p(&g), p(&out), "-q"];
        a.extend_from_slice(extra);
        ok(&grotto(&a));
        lines(&out)
    };
    assert_eq!(
        run(&["--ego", "30"]),
        set(&["10 20", "10 30", "20 30", "30 40"])
    );
    assert_eq!(
        run(&["--ego", "50", "--radius", "2"]),
        set(&["30 40", "40 50"])
    );
    assert_eq!(run(&["--kcore", "2"]), set(&["10 20", "10 30", "20 30"]));
    assert_eq!(run(&["--component", "80"]), set(&["70 80"]));
    assert_eq!(run(&["--component", "largest"]).len(), 5);
    let vs = d.path().join("v.txt");
    std::fs::write(&vs, "# wanted\n10\n40\n50\n").unwrap();
    assert_eq!(run(&["--vertices", p(&vs)]), set(&["40 50"]));
    // A result's rows: one community, or a test on a column.
    let res = d.path().join("r.csv");
    std::fs::write(
        &res,
        "id,community,score\n10,1,0.5\n20,1,0.1\n30,1,0.9\n40,2,0.2\n50,2,0.3\n70,3,0\n80,3,0\n",
    )
    .unwrap();
    assert_eq!(
        run(&["--community", &format!("{}:2", p(&res))]),
        set(&["40 50"])
    );
    // score >= 0.3: 10, 30 and 50, of whose edges only 10-30 remains.
    assert_eq!(
        run(&["--filter", &format!("{}:score>=0.3", p(&res))]),
        set(&["10 30"])
    );
}

#[test]
fn a_grotto_piece_keeps_isolated_vertices_direction_and_names() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(
        d.path(),
        "n",
        "ann bob\nbob cy\ncy ann\ncy dee\n",
        &["--ids", "string", "--reverse"],
    );
    let vs = d.path().join("v.txt");
    std::fs::write(&vs, "ann\nbob\ndee\n").unwrap();
    let piece = d.path().join("piece.grotto");
    let o = grotto(&["extract", p(&g), p(&piece), "--vertices", p(&vs), "--json"]);
    let r: serde_json::Value = serde_json::from_str(ok(&o).trim()).unwrap();
    assert_eq!(
        (r["vertices"].as_u64(), r["edges"].as_u64()),
        (Some(3), Some(1))
    );
    let info: serde_json::Value =
        serde_json::from_str(&ok(&grotto(&["info", p(&piece), "--json"]))).unwrap();
    assert_eq!(info["directed"], true, "{info}");
    assert_eq!(info["reverse"], true, "{info}");
    let back = d.path().join("back.el");
    ok(&grotto(&["export", p(&piece), "-o", p(&back)]));
    assert_eq!(lines(&back), set(&["ann bob"]));
    // Along in-edges: bob reaches cy, and ann reaches bob; dee is only
    // reached from cy.
    let ego = d.path().join("ego.el");
    let run = |r: &str| {
        ok(&grotto(&[
            "extract",
            p(&g),
            p(&ego),
            "--ego",
            "cy",
            "--direction",
            "in",
            "--radius",
            r,
            "-q",
        ]));
        lines(&ego)
    };
    assert_eq!(run("1"), set(&["bob cy"]));
    assert_eq!(run("2"), set(&["ann bob", "bob cy", "cy ann"]));
}

#[test]
fn refusals_name_the_fix_and_write_nothing() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "g", EDGES, &[]);
    let out = d.path().join("out.el");
    let fail = |extra: &[&str]| {
        let mut a = vec!["extract", p(&g), p(&out)];
        a.extend_from_slice(extra);
        let o = grotto(&a);
        assert!(!o.status.success());
        assert!(!out.exists());
        text(&o.stderr)
    };
    assert!(fail(&["--ego", "99"]).contains("--ego 99"));
    assert!(fail(&["--ego", "10", "--direction", "in"]).contains("--reverse"));
    assert!(fail(&["--filter", "r.csv:rank"]).contains("RESULT:COLUMN OP VALUE"));
    assert!(fail(&[]).contains("--vertices"));
    // The graph itself is never the output.
    let o = grotto(&["extract", p(&g), p(&g), "--ego", "10"]);
    assert!(!o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("input"), "{}", text(&o.stderr));
}

#[test]
fn update_delete_vertices_removes_them_with_their_edges() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "g", EDGES, &["--reverse"]);
    let vs = d.path().join("gone.txt");
    std::fs::write(&vs, "30\n99\n").unwrap();
    let o = grotto(&["update", p(&g), "--delete-vertices", p(&vs), "--json"]);
    let r: serde_json::Value = serde_json::from_str(ok(&o).trim()).unwrap();
    assert_eq!(
        (r["deleted"].as_u64(), r["not_present"].as_u64()),
        (Some(1), Some(1))
    );
    let back = d.path().join("back.el");
    ok(&grotto(&["export", p(&g), "-o", p(&back)]));
    // 30's edges both ways are gone; every other id stays.
    assert_eq!(lines(&back), set(&["10 20", "40 50", "70 80"]));
    let o = grotto(&[
        "update",
        p(&g),
        "--delete-vertices",
        p(&vs),
        "--insert",
        p(&vs),
    ]);
    assert!(!o.status.success() && text(&o.stderr).contains("alone"));
    let listed: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(listed.len(), 4, "no litter: {listed:?}");
}
