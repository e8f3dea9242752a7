//! CSV with a header (`convert --format csv`): columns picked by name,
//! other columns skipped, quoted fields, and errors with their place.

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

/// Converts and exports back as an edge list.
fn round_trip(d: &Path, input: &Path, extra: &[&str]) -> String {
    let g = d.join("g.grotto");
    let _ = std::fs::remove_file(&g);
    let mut args = vec!["convert", p(input), p(&g), "-q"];
    args.extend(extra);
    let o = grotto(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let el = d.join("back.el");
    let _ = std::fs::remove_file(&el);
    assert!(grotto(&["export", p(&g), "-o", p(&el)]).status.success());
    std::fs::read_to_string(&el).unwrap()
}

#[test]
fn csv_columns_are_picked_by_name_and_match_the_edge_list() {
    let d = tempfile::tempdir().unwrap();
    let mut csv = String::from("# from a spreadsheet\nkind,to,cost,from,comment\n");
    let mut el = String::new();
    let mut x = 12345u64;
    for i in 0..2000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (u, v, w) = ((x >> 33) % 500, (x >> 13) % 500, 1 + (x >> 50) % 7);
        csv += &format!("e{i}, {v} ,{w},{u},\"note, with \"\"quotes\"\"\"\r\n");
        el += &format!("{u} {v} {w}\n");
    }
    let (c, e) = (d.path().join("e.csv"), d.path().join("e.el"));
    std::fs::write(&c, csv).unwrap();
    std::fs::write(&e, el).unwrap();
    let from_csv = round_trip(
        d.path(),
        &c,
        &["--format", "csv", "--columns", "from,to,cost"],
    );
    let from_el = round_trip(d.path(), &e, &["--weighted"]);
    assert_eq!(from_csv, from_el);
    // Without the weight column named (no "weight" header): unweighted.
    let unweighted = round_trip(d.path(), &c, &["--format", "csv", "--columns", "from,to"]);
    assert!(unweighted.lines().nth(1).unwrap().split(' ').count() == 2);
}

#[test]
fn bad_csv_is_refused_with_its_place_and_nothing_written() {
    let d = tempfile::tempdir().unwrap();
    let g = d.path().join("g.grotto");
    for (body, args, want) in [
        ("src,dst\n1,2\n3\n", vec![], ":3:2: expected a comma"),
        (
            "src,dst\n1,2\n3,4,5\n",
            vec![],
            ":3:4: expected end of line",
        ),
        ("src,dst\n1,\"2\n", vec![], ":2:3: expected a closing quote"),
        ("a,b\n1,2\n", vec![], "no column \"src\""),
        ("src,dst\n1,2\n", vec!["--weighted"], "no column \"weight\""),
        ("", vec![], "header"),
        ("src,dst\n1,-2\n", vec![], ":2:3: expected a vertex id"),
    ] {
        let c = d.path().join("bad.csv");
        std::fs::write(&c, body).unwrap();
        let mut a = vec!["convert", p(&c), p(&g), "--format", "csv"];
        a.extend(args);
        let o = grotto(&a);
        assert_eq!(o.status.code(), Some(2), "{body:?}");
        assert!(
            text(&o.stderr).contains(want),
            "{body:?}: {}",
            text(&o.stderr)
        );
        assert!(!g.exists());
    }
    // --columns on text without a header is refused.
    let el = d.path().join("e.el");
    std::fs::write(&el, "1 2\n").unwrap();
    let o = grotto(&["convert", p(&el), p(&g), "--columns", "a,b"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!g.exists());
}
