//! `grotto update` on graphs whose vertices have keys: new user ids in
//! an id map and new names in a name table, committed as delta runs that
//! carry them and as merges, then read, run and compacted.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn graphs_with_an_id_map_take_new_ids() {
    let d = tempfile::tempdir().unwrap();
    let conv = |name: &str, body: &str, extra: &[&str]| text_graph(d.path(), name, body, extra);
    // Ids compacted into an id map: new ids join it, as a delta run (the
    // run carries them) or a merge (the new file's map has them).
    for mode in ["never", "always"] {
        let sparse = conv(&format!("s-{mode}"), "1000000000 7\n7 99999999999\n", &[]);
        let known = d.path().join("known.el");
        std::fs::write(&known, "7 1000000000\n99999999999 1000000000\n").unwrap();
        ok(&grotto(&[
            "update",
            p(&sparse),
            "--insert",
            p(&known),
            "-q",
        ]));
        // New ids below, between and above the old ones, and an edge among
        // new vertices only.
        let grow = d.path().join("grow.el");
        std::fs::write(
            &grow,
            "1 7\n500 1000000000\n99999999999 100000000000\n3 4\n",
        )
        .unwrap();
        let o = ok(&grotto(&[
            "update",
            p(&sparse),
            "--insert",
            p(&grow),
            "--merge",
            mode,
            "--json",
        ]));
        let r: serde_json::Value = serde_json::from_str(&o).unwrap();
        assert_eq!(
            (r["merged"].clone(), r["new_vertices"].clone()),
            ((mode == "always").into(), 5.into()),
            "{o}"
        );
        ok(&grotto(&["check", p(&sparse)]));
        let want: BTreeSet<(u64, u64)> = [
            (1_000_000_000, 7),
            (7, 99_999_999_999),
            (7, 1_000_000_000),
            (99_999_999_999, 1_000_000_000),
            (1, 7),
            (500, 1_000_000_000),
            (99_999_999_999, 100_000_000_000),
            (3, 4),
        ]
        .into_iter()
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
        assert_eq!(exported(&sparse), want);
        // The grown map serves the next delta commit (an id new to it
        // again, between two that were new), and BFS from a new id.
        let more = d.path().join("more.el");
        std::fs::write(&more, "4 500\n2 3\n").unwrap();
        let o = ok(&grotto(&[
            "update",
            p(&sparse),
            "--insert",
            p(&more),
            "--merge",
            "never",
            "--json",
        ]));
        assert!(o.contains("\"merged\":false"), "{o}");
        assert!(o.contains("\"new_vertices\":1"), "{o}");
        let out = d.path().join("bfs.csv");
        ok(&grotto(&[
            "run",
            "bfs",
            p(&sparse),
            "--source",
            "2",
            "-o",
            p(&out),
            "--verify",
            "-q",
        ]));
        let bfs = std::fs::read_to_string(&out).unwrap();
        // 2 -> 3 -> 4 -> 500 -> 1000000000 -> 7 (directed), in id order.
        assert!(bfs.lines().any(|l| l.starts_with("7,5")), "{bfs}");
        let firsts: Vec<u64> = bfs
            .lines()
            .filter_map(|l| l.split(',').next()?.parse().ok())
            .collect();
        assert!(firsts.windows(2).all(|w| w[0] < w[1]), "{bfs}");
        assert_eq!(firsts.len(), 9, "{bfs}");
        // Compact folds it into a file equal to a fresh conversion.
        ok(&grotto(&["compact", p(&sparse), "-q"]));
        ok(&grotto(&["check", p(&sparse)]));
        let mut want = want;
        want.extend([(4, 500), (2, 3)]);
        assert_eq!(exported(&sparse), want);
    }
}

#[test]
fn graphs_with_names_take_new_names() {
    let d = tempfile::tempdir().unwrap();
    for mode in ["never", "always"] {
        let g = text_graph(
            d.path(),
            &format!("n-{mode}"),
            "bob carol\ncarol dave\n",
            &["--ids", "string", "--reverse"],
        );
        // Names before, between and after the old ones, in two files read
        // in parallel; a delete naming nobody is counted. As a delta run,
        // the run carries the names; as a merge, the new file's table.
        let ins = d.path().join("ins.el");
        std::fs::write(&ins, "alice bob\ncarol claire\ndave zoe\nzoe alice\n").unwrap();
        let del = d.path().join("del.el");
        std::fs::write(&del, "nobody bob\ncarol dave\n").unwrap();
        let r = report(&[
            "update",
            p(&g),
            "--insert",
            p(&ins),
            "--delete",
            p(&del),
            "--merge",
            mode,
        ]);
        assert_eq!(r["merged"], mode == "always", "{r}");
        let keys = ["inserted", "deleted", "not_present", "new_vertices"];
        assert_eq!(counts(&r, &keys), [4, 1, 1, 3], "{r}");
        ok(&grotto(&["check", p(&g)]));
        let rows = |g: &Path| {
            let out = ok(&grotto(&["export", p(g)]));
            let mut rows: Vec<String> = out
                .lines()
                .filter(|l| !l.starts_with('#'))
                .map(str::to_string)
                .collect();
            rows.sort();
            rows
        };
        assert_eq!(
            rows(&g),
            [
                "alice bob",
                "bob carol",
                "carol claire",
                "dave zoe",
                "zoe alice"
            ]
        );
        // BFS from an old name reaches through old and new ones.
        let csv = d.path().join("bfs.csv");
        let bfs = |g: &Path, from: &str| {
            ok(&grotto(&[
                "run",
                "bfs",
                p(g),
                "--source",
                from,
                "-o",
                p(&csv),
                "--verify",
                "-q",
            ]));
            std::fs::read_to_string(&csv).unwrap()
        };
        let t = bfs(&g, "dave");
        assert!(t.lines().any(|l| l.starts_with("claire,5")), "{t}");
        // Another delta commit: a name between two new ones, from one.
        let more = d.path().join("more.el");
        std::fs::write(&more, "claire bea\n").unwrap();
        let r = report(&["update", p(&g), "--insert", p(&more), "--merge", "never"]);
        assert_eq!(counts(&r, &["inserted", "new_vertices"]), [1, 1], "{r}");
        ok(&grotto(&["check", p(&g)]));
        let t = bfs(&g, "bea");
        // Rows in name order: alice, bea, bob, carol, claire, dave, zoe.
        let names: Vec<&str> = t
            .lines()
            .skip(1)
            .filter_map(|l| l.split(',').next())
            .collect();
        assert_eq!(
            names,
            ["alice", "bea", "bob", "carol", "claire", "dave", "zoe"],
            "{t}"
        );
        ok(&grotto(&["compact", p(&g), "-q"]));
        let mut want = rows(&g);
        want.sort();
        assert!(want.contains(&"claire bea".to_string()), "{want:?}");
        assert_eq!(want.len(), 6);
    }
}

#[test]
fn runs_folded_for_room_keep_their_new_ids() {
    // More commits than a manifest lists runs: the commit past the last
    // folds every run and its keys into one, and nothing is lost.
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "g", "1000 2000\n", &["--ids", "compact"]);
    let mut want: BTreeSet<(u64, u64)> = [(1000, 2000)].into();
    let mut folded = 0;
    let f = d.path().join("one.el");
    for i in 0..172u64 {
        // Ids that fall between earlier ones, each edge to an earlier id.
        let id = (i * 7919) % 1999 + 1;
        let to = if i == 0 {
            1000
        } else {
            ((i - 1) * 7919) % 1999 + 1
        };
        std::fs::write(&f, format!("{id} {to}\n")).unwrap();
        let r = report(&["update", p(&g), "--insert", p(&f), "--merge", "never"]);
        assert_eq!(r["merged"], false, "{r}");
        folded += (r["folded"] == true) as u32;
        want.insert((id.min(to), id.max(to)));
    }
    assert_eq!(folded, 1);
    ok(&grotto(&["check", p(&g)]));
    assert_eq!(exported(&g), want);
    let info = ok(&grotto(&["info", p(&g), "--json"]));
    let v: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(v["vertices"], 174, "{info}");
}

/// A graph with dense ids (here `0..6` from a `# vertices 6` line) takes
/// new ids as networkx does: ids that continue the range keep it dense,
/// an id past a gap adds that one vertex and no other (the graph opens
/// with an id map from then on), as a delta run and as a merge, through
/// later commits and a compaction.
#[test]
fn dense_graphs_take_new_ids_alone() {
    let d = tempfile::tempdir().unwrap();
    for mode in ["never", "always"] {
        let g = text_graph(
            d.path(),
            &format!("dense-{mode}"),
            "# vertices 6\n0 1\n1 2\n3 4\n",
            &["--undirected"],
        );
        let info = |g: &Path| report(&["info", p(g)]);
        let batch = |name: &str, body: &str, merge: &str| {
            let f = d.path().join(name);
            std::fs::write(&f, body).unwrap();
            report(&["update", p(&g), "--insert", p(&f), "--merge", merge])
        };
        assert_eq!(info(&g)["vertex_set"], "dense");
        // 6 and 7 continue the range: it stays dense.
        let r = batch("next.el", "6 7\n", mode);
        assert_eq!(r["new_vertices"], 2, "{r}");
        let i = info(&g);
        assert_eq!(
            (i["vertices"].clone(), i["vertex_set"].clone()),
            (8.into(), "dense".into()),
            "{i}"
        );
        // 1000 is past a gap: one vertex more, not 993.
        let r = batch("far.el", "2 1000\n", mode);
        assert_eq!(
            (r["new_vertices"].clone(), r["vertices"].clone()),
            (1.into(), 9.into()),
            "{r}"
        );
        let i = info(&g);
        assert_eq!(
            (i["vertices"].clone(), i["vertex_set"].clone()),
            (9.into(), "ids".into()),
            "{i}"
        );
        ok(&grotto(&["check", p(&g)]));
        // Results hold exactly the vertices given: 0..8 and 1000.
        let ids = |g: &Path| -> Vec<u64> {
            let out = d.path().join("wcc.csv");
            ok(&grotto(&[
                "run",
                "wcc",
                p(g),
                "-o",
                p(&out),
                "--verify",
                "-q",
            ]));
            std::fs::read_to_string(&out)
                .unwrap()
                .lines()
                .filter_map(|l| l.split(',').next()?.parse().ok())
                .collect()
        };
        assert_eq!(ids(&g), vec![0, 1, 2, 3, 4, 5, 6, 7, 1000]);
        let o = grotto(&["run", "bfs", p(&g), "--source", "999", "-q"]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains("999"), "{}", text(&o.stderr));
        let bfs = d.path().join("bfs.csv");
        ok(&grotto(&[
            "run",
            "bfs",
            p(&g),
            "--source",
            "1000",
            "-o",
            p(&bfs),
            "-q",
        ]));
        let depth: Vec<String> = std::fs::read_to_string(&bfs)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("0,") || l.starts_with("1000,"))
            .map(String::from)
            .collect();
        assert!(depth[0].starts_with("0,3"), "{depth:?}");
        assert!(depth[1].starts_with("1000,0"), "{depth:?}");
        // The next commit adds to the map (a delta run here), and a
        // compaction writes it into the file.
        let r = batch("more.el", "1000 2000\n5 6\n", "never");
        assert_eq!(r["new_vertices"], 1, "{r}");
        ok(&grotto(&["check", p(&g)]));
        let want: BTreeSet<(u64, u64)> = [
            (0, 1),
            (1, 2),
            (3, 4),
            (6, 7),
            (2, 1000),
            (1000, 2000),
            (5, 6),
        ]
        .into_iter()
        .collect();
        assert_eq!(exported(&g), want);
        ok(&grotto(&["compact", p(&g), "-q"]));
        ok(&grotto(&["check", p(&g)]));
        assert_eq!(exported(&g), want);
        let i = info(&g);
        assert_eq!(
            (i["vertices"].clone(), i["vertex_set"].clone()),
            (10.into(), "ids".into()),
            "{i}"
        );
        assert_eq!(ids(&g), vec![0, 1, 2, 3, 4, 5, 6, 7, 1000, 2000]);
    }
}
