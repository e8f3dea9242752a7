//! Drives the `grotto` binary as a user would: round trips and every
//! bad-input case, checking messages and exit codes.

use std::io::Write;
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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Converting `text` must fail with exit 2, a message containing each of
/// `needles`, and no output file.
fn bad_input(name: &str, text: &[u8], extra: &[&str], needles: &[&str]) {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join(name);
    std::fs::write(&input, text).unwrap();
    let out = d.path().join("g.grotto");
    let mut args = vec!["convert", p(&input), p(&out)];
    args.extend_from_slice(extra);
    let o = grotto(&args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{name}: {err}");
    assert!(err.starts_with("error: "), "{name}: {err}");
    for n in needles {
        assert!(err.contains(n), "{name}: expected {n:?} in {err:?}");
    }
    assert!(!out.exists(), "{name}: output file left behind");
    let leftovers: Vec<PathBuf> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|x| x != &input)
        .collect();
    assert!(leftovers.is_empty(), "{name}: left {leftovers:?}");
    assert!(!err.contains("panicked"), "{name}: {err}");
}

#[test]
fn malformed_lines_name_file_line_column_and_text() {
    bad_input(
        "a.el",
        b"# ok\n1 2\n3 x7\n",
        &[],
        &["a.el:3:3: expected a vertex id (an integer; vertex names need --ids string), found \"x7\""],
    );
    bad_input(
        "neg.el",
        b"1 2\n-4 5\n",
        &[],
        &["neg.el:2:1:", "non-negative", "\"-4\""],
    );
    bad_input(
        "big.el",
        b"1 2\n1 99999999999999999999999\n",
        &[],
        &["big.el:2:3:", "at most 18446744073709551615"],
    );
    bad_input("w.el", b"1 2 0.5\n2 3\n", &[], &["w.el:2:4:", "weight"]);
    bad_input(
        "w2.el",
        b"1 2 0.5\n2 3 abc\n",
        &[],
        &["w2.el:2:5:", "number for the weight", "\"abc\""],
    );
    bad_input(
        "extra.el",
        b"1 2\n2 3 4\n",
        &["--format", "edgelist"],
        &["extra.el:2:5:", "--weighted"],
    );
    bad_input(
        "one.el",
        b"1 2\n3\n",
        &["--format", "edgelist"],
        &["one.el:2:2:", "end of line"],
    );
}

#[test]
fn matrix_market_headers_that_lie_or_are_not_square() {
    bad_input(
        "count.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n2 3\n",
        &[],
        &["line 2", "declares 4 entries", "holds 2"],
    );
    bad_input(
        "more.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n",
        &[],
        &["declares 1 entries", "holds 2"],
    );
    bad_input(
        "rect.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n",
        &[],
        &["3 x 4", "square"],
    );
    bad_input(
        "range.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 4\n",
        &[],
        &["range.mtx:3:3:", "column index"],
    );
    bad_input(
        "field.mtx",
        b"%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 2 1 1\n",
        &[],
        &["complex", "not supported"],
    );
}

#[test]
fn truncated_compressed_streams() {
    let mut text = Vec::new();
    for i in 0..20000u32 {
        writeln!(text, "{} {}", i, i + 1).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gz = gz.finish().unwrap();
    bad_input("t.gz", &gz[..gz.len() / 2], &[], &["gzip", "truncated"]);
    let zs = zstd::encode_all(&text[..], 3).unwrap();
    bad_input("t.zst", &zs[..zs.len() / 2], &[], &["zstd", "truncated"]);
}

#[test]
fn missing_input_and_unwritable_output() {
    let d = tempfile::tempdir().unwrap();
    let o = grotto(&[
        "convert",
        p(&d.path().join("nope.el")),
        p(&d.path().join("g.grotto")),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("nope.el") && stderr(&o).contains("No such file"));
    let input = d.path().join("ok.el");
    std::fs::write(&input, "1 2\n").unwrap();
    let o = grotto(&["convert", p(&input), "/nonexistent-dir/g.grotto"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/nonexistent-dir/g.grotto"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn empty_input_is_refused_unless_allowed() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("empty.el");
    std::fs::write(&input, "").unwrap();
    let out = d.path().join("e.grotto");
    let o = grotto(&["convert", p(&input), p(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no edges read"), "{}", stderr(&o));
    assert!(!out.exists());
    let o = grotto(&["convert", p(&input), p(&out), "--json", "--allow-empty"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = grotto(&["info", p(&out), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["vertices"], 0);
    assert_eq!(v["edges"], 0);
    let o = grotto(&["export", p(&out)]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout)
        .lines()
        .all(|l| l.starts_with('#')));
}

#[test]
fn skip_invalid_counts_and_warns() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("s.el");
    std::fs::write(&input, "1 2\nfoo bar\n2 3\n").unwrap();
    let out = d.path().join("s.grotto");
    let o = grotto(&["convert", p(&input), p(&out), "--skip-invalid"]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("skipped 1 malformed line") && stderr(&o).contains("s.el:2:1"),
        "{}",
        stderr(&o)
    );
    let o = grotto(&["info", p(&out), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["lines_skipped"], 1);
    assert_eq!(v["edges"], 2);
}

fn make_graph(dir: &Path) -> PathBuf {
    let input = dir.join("g.el");
    let mut t = String::new();
    for i in 0..5000u64 {
        t.push_str(&format!("{} {}\n{} {}\n", i, (i * 7 + 1) % 5000, 0, i));
    }
    std::fs::write(&input, t).unwrap();
    let out = dir.join("g.grotto");
    let o = grotto(&["convert", p(&input), p(&out), "--undirected", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

#[test]
fn damaged_graph_files_are_detected_and_named() {
    let d = tempfile::tempdir().unwrap();
    let g = make_graph(d.path());
    let bytes = std::fs::read(&g).unwrap();
    let o = grotto(&["check", p(&g)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A flipped byte anywhere in the header or a section is caught by
    // opening (metadata) or by check/export (edge blocks).
    let info = grotto(&["info", p(&g), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let blocks = v["out"]["blocks"].as_u64().unwrap() as usize;
    let positions = [
        8usize,
        100,
        4096 + 10,
        4096 + blocks * 4096 - 1,
        4096 + blocks * 4096 + 3,
        // The last sections before the manifest (two 4 KiB slots at the end).
        bytes.len() - 8192 - 4096 - 1,
        bytes.len() - 8192 - 1,
    ];
    for &at in &positions {
        let mut b = bytes.clone();
        b[at] ^= 0x20;
        let bad = d.path().join(format!("bad{at}.grotto"));
        std::fs::write(&bad, &b).unwrap();
        let o = grotto(&["check", p(&bad)]);
        let e = stderr(&o);
        assert_ne!(o.status.code(), Some(0), "flip at {at} not detected");
        assert!(
            e.contains(&format!("bad{at}.grotto"))
                && (e.contains("corrupt") || e.contains("checksum") || e.contains("not a grotto")),
            "flip at {at}: {e}"
        );
    }
    // An unused manifest slot may hold anything (a commit cut short
    // leaves a torn one): the graph reads as before.
    let mut b = bytes.clone();
    let last = b.len() - 1;
    b[last] ^= 0x20;
    let slot = d.path().join("slot.grotto");
    std::fs::write(&slot, &b).unwrap();
    let o = grotto(&["check", p(&slot)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Truncated.
    let t = d.path().join("trunc.grotto");
    std::fs::write(&t, &bytes[..bytes.len() / 2]).unwrap();
    let o = grotto(&["info", p(&t)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("truncated"), "{}", stderr(&o));
    // Newer version: bump the version and fix the header checksum.
    let mut b = bytes.clone();
    let newer = grotto::store::format::FORMAT_VERSION + 1;
    b[8..12].copy_from_slice(&newer.to_le_bytes());
    let crc = crc32c(&b[..4092]);
    b[4092..4096].copy_from_slice(&crc.to_le_bytes());
    let nv = d.path().join("newer.grotto");
    std::fs::write(&nv, &b).unwrap();
    let o = grotto(&["info", p(&nv)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("format version {newer}")) && stderr(&o).contains("upgrade"),
        "{}",
        stderr(&o)
    );
    // Not a graph at all.
    let o = grotto(&["info", p(&d.path().join("g.el"))]);
    assert!(stderr(&o).contains("not a grotto graph file"));
}

/// CRC-32C (Castagnoli), bitwise; independent of the crate grotto uses.
fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn generate_convert_export_round_trip_in_original_ids() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("sparse.el");
    std::fs::write(
        &input,
        "# ids far apart\n10000000000 7\n7 42\r\n42\t10000000000\n",
    )
    .unwrap();
    let out = d.path().join("s.grotto");
    assert!(grotto(&["convert", p(&input), p(&out), "-q"])
        .status
        .success());
    let o = grotto(&["export", p(&out)]);
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    assert_eq!(lines, vec!["10000000000 7", "42 10000000000", "7 42"]);
    // Generators are reproducible.
    let a = d.path().join("a.el");
    let b = d.path().join("b.el");
    assert!(grotto(&[
        "generate",
        "rmat",
        "--scale",
        "8",
        "--seed",
        "3",
        "-o",
        p(&a),
        "--threads",
        "1"
    ])
    .status
    .success());
    assert!(grotto(&[
        "generate",
        "rmat",
        "--scale",
        "8",
        "--seed",
        "3",
        "-o",
        p(&b),
        "--threads",
        "2"
    ])
    .status
    .success());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let g = d.path().join("grid.grotto");
    let o = grotto(&[
        "generate",
        "grid",
        "--rows",
        "30",
        "--cols",
        "40",
        "-o",
        p(&g),
        "--undirected",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["vertices"], 1200);
    assert_eq!(v["edges"], 30 * 39 + 29 * 40);
    assert!(grotto(&[
        "generate",
        "ba",
        "--n",
        "500",
        "--m",
        "3",
        "-o",
        p(&d.path().join("ba.grotto"))
    ])
    .status
    .success());
}

#[test]
fn generators_give_the_same_graph_whatever_the_threads() {
    // 2^14 vertices x 64 = 1M edges: four chunks of the R-MAT generator,
    // so 1, 2 and 3 threads split them differently.
    let d = tempfile::tempdir().unwrap();
    let mut texts = Vec::new();
    let mut graphs = Vec::new();
    for threads in ["1", "2", "3"] {
        let el = d.path().join(format!("r{threads}.el"));
        let g = d.path().join(format!("r{threads}.grotto"));
        let args = [
            "rmat",
            "--scale",
            "14",
            "--edge-factor",
            "64",
            "--seed",
            "9",
        ];
        for out in [&el, &g] {
            let mut a = vec!["generate"];
            a.extend(args);
            a.extend(["-o", p(out), "--threads", threads, "-q"]);
            let o = grotto(&a);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        texts.push(std::fs::read(&el).unwrap());
        graphs.push(arcs(&grotto(&["export", p(&g)]).stdout));
    }
    assert!(texts.windows(2).all(|w| w[0] == w[1]));
    assert!(graphs.windows(2).all(|w| w[0] == w[1]));
    // The text and the straight build hold the same edges (the build
    // drops self loops and duplicates).
    let text = texts.pop().unwrap();
    assert_eq!(arcs(&text).len() as u64, 64 << 14);
    let mut from_text = arcs(&text);
    from_text.retain(|(u, v)| u != v);
    from_text.sort_unstable();
    from_text.dedup();
    let mut built = graphs.pop().unwrap();
    built.sort_unstable();
    assert_eq!(built, from_text);
}

/// The `u v` lines of an edge list, in order.
fn arcs(text: &[u8]) -> Vec<(u64, u64)> {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut it = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            (it.next().unwrap(), it.next().unwrap())
        })
        .collect()
}

#[test]
fn quiet_and_non_terminal_stderr_stay_silent() {
    let d = tempfile::tempdir().unwrap();
    let o = grotto(&[
        "generate",
        "grid",
        "--rows",
        "10",
        "--cols",
        "10",
        "-o",
        p(&d.path().join("x.el")),
    ]);
    assert!(o.status.success() && o.stderr.is_empty());
    let o = grotto(&[
        "convert",
        p(&d.path().join("x.el")),
        p(&d.path().join("x.grotto")),
        "-q",
    ]);
    assert!(o.status.success() && o.stderr.is_empty() && o.stdout.is_empty());
}
