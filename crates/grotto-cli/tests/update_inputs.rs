//! Inputs that once started harm without a word (issue 51, parts 4 and
//! 6): update batches that `convert` would refuse or that the user did
//! not mean, and sizes typed on the command line that start work that
//! never ends. Each refusal comes before anything is written, with exit
//! status 2 and a message naming the file or flag and what to do, and
//! leaves the graph file byte for byte as it was.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A directed R-MAT graph of 4,096 vertices with dense ids (ordered by
/// degree inside, as `convert` picks for it), `dir/NAME.grotto`.
fn rmat12(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let g = dir.join(format!("{name}.grotto"));
    let mut a = vec!["generate", "rmat", "--scale", "12", "--edge-factor", "4"];
    a.extend_from_slice(&["--seed", "1", "-o", p(&g), "-q"]);
    a.extend_from_slice(extra);
    ok(&grotto(&a));
    g
}

/// `body` written to `dir/name`.
fn file(dir: &Path, name: &str, body: &str) -> PathBuf {
    let f = dir.join(name);
    std::fs::write(&f, body).unwrap();
    f
}

/// Checks that `o` exited with status 2 saying `want`, and that `g`
/// still holds `before`; returns the message.
fn refused_with(o: &Output, want: &str, g: &Path, before: &[u8]) -> String {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(want), "expected {want:?} in: {err}");
    assert!(
        std::fs::read(g).unwrap() == before,
        "{} changed though the update was refused",
        g.display()
    );
    err
}

/// Runs grotto with `args`, expecting a refusal saying `want` that
/// leaves `g` byte for byte as it was.
fn refused(g: &Path, args: &[&str], want: &str) -> String {
    let before = std::fs::read(g).unwrap();
    refused_with(&grotto(args), want, g, &before)
}

/// Runs grotto with `args` and the environment variables `env`.
fn grotto_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_grotto"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run grotto")
}

// Part 4: update batches.

/// (a) A Matrix Market batch is held to its size line as `convert`
/// holds it: entries missing, an absurd entry count (both once
/// committed what was read), an entry past the declared rows.
#[test]
fn matrix_market_batches_are_held_to_their_size_line() {
    let d = tempfile::tempdir().unwrap();
    let g = rmat12(d.path(), "g", &[]);
    let banner = "%%MatrixMarket matrix coordinate pattern general\n";
    let cases = [
        (
            "few.mtx",
            format!("{banner}4096 4096 5\n1 2\n3 4\n"),
            "few.mtx: line 2: the size line declares 5 entries but the file holds 2",
        ),
        (
            "absurd.mtx",
            format!("{banner}4096 4096 999999999999999\n1 2\n3 4\n"),
            "absurd.mtx: line 2: the size line declares 999999999999999 entries but the file holds 2",
        ),
        (
            "past.mtx",
            format!("{banner}10 10 2\n1 2\n3 11\n"),
            "past.mtx:4:3: expected a column index between 1 and the size line's column count",
        ),
    ];
    for (name, body, want) in cases {
        let f = file(d.path(), name, &body);
        // `convert` refuses the first two the same way.
        if name != "past.mtx" {
            let o = grotto(&["convert", p(&f), p(&d.path().join("x.grotto"))]);
            assert!(text(&o.stderr).contains(want), "{}", text(&o.stderr));
        }
        refused(&g, &["update", p(&g), "--insert", p(&f)], want);
        refused(&g, &["update", p(&g), "--delete", p(&f)], want);
    }
}

/// (b) `--format parquet` is honoured: a text file given as Parquet is
/// refused as `convert` refuses it, not read as text.
#[test]
fn format_parquet_reads_parquet_or_refuses() {
    let d = tempfile::tempdir().unwrap();
    let g = rmat12(d.path(), "g", &[]);
    let el = file(d.path(), "good.el", "1 2\n");
    let want = "good.el: not a readable Parquet file";
    let o = grotto(&[
        "convert",
        p(&el),
        p(&d.path().join("x.grotto")),
        "--format",
        "parquet",
    ]);
    assert!(text(&o.stderr).contains(want), "{}", text(&o.stderr));
    let args = ["update", p(&g), "--insert", p(&el), "--format", "parquet"];
    refused(&g, &args, want);
}

/// (c) One far id on a graph with dense ids adds that one vertex, where
/// it once grew the graph to it (1e9 on 4,096 dense vertices, once
/// committed, left a graph that `grotto check` could not open); the
/// graph stays small enough to open on a small machine (`ulimit -v`).
#[test]
fn a_far_id_adds_one_vertex() {
    let d = tempfile::tempdir().unwrap();
    let g = rmat12(d.path(), "g", &[]);
    let el = file(d.path(), "big.el", "5 1000000000\n");
    let small = |args: &[&str]| {
        Command::new("sh")
            .args(["-c", "ulimit -v 4194304 && exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_grotto"))
            .args(args)
            .output()
            .unwrap()
    };
    let before = report(&["info", p(&g)])["vertices"].as_u64().unwrap();
    let out = ok(&small(&["update", p(&g), "--insert", p(&el), "--json"]));
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["new_vertices"], 1, "{r}");
    ok(&small(&["check", p(&g), "-q"]));
    let i = report(&["info", p(&g)]);
    assert_eq!(i["vertices"].as_u64(), Some(before + 1), "{i}");
    assert_eq!(i["vertex_set"], "ids", "{i}");
}

/// (d) A directory of Parquet files is a batch, as it is an input of
/// `convert`, with `--format parquet` or detected.
#[test]
fn a_parquet_directory_is_a_batch() {
    let d = tempfile::tempdir().unwrap();
    let g = rmat12(d.path(), "g", &[]);
    let small = text_graph(d.path(), "small", "0 1\n1 4095\n", &[]);
    let pq = d.path().join("parts");
    std::fs::create_dir(&pq).unwrap();
    let part = pq.join("part-0.parquet");
    ok(&grotto(&[
        "export",
        p(&small),
        "--format",
        "parquet",
        "-o",
        p(&part),
    ]));
    let before = report(&["info", p(&g)])["edges"].as_u64().unwrap();
    let r = report(&["update", p(&g), "--insert", p(&pq), "--format", "parquet"]);
    assert_eq!(r["insert_lines"], 2, "{r}");
    let present = r["inserted"].as_u64().unwrap() + r["already_present"].as_u64().unwrap();
    assert_eq!(present, 2, "{r}");
    assert_eq!(r["edges"], before + r["inserted"].as_u64().unwrap(), "{r}");
    // Detected without --format too; now both edges are there.
    let r = report(&["update", p(&g), "--insert", p(&pq)]);
    assert_eq!(r["already_present"], 2, "{r}");
}

/// (e) The room checked before a merge counts the vertices a batch adds
/// (1.8M new vertices: 20.6 MiB of index and order, where the estimate
/// once said 3.1 MiB; here with the 0.9M edges that name them):
/// `--merge auto` without that room appends a delta run
/// and says so, `--merge always` is refused. The free space is
/// simulated (GROTTO_SIMULATE_FREE_BYTES), so no disk is filled.
#[test]
fn a_merge_without_room_for_new_vertices_appends_a_run_or_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let g = rmat12(d.path(), "g", &[]);
    // 1.8M new vertices: ids that continue the dense range, two an edge.
    let mut body: String = (4096..1_800_000u64)
        .step_by(2)
        .map(|i| format!("{i} {}\n", i + 1))
        .collect();
    body.push_str("5 1800000\n");
    let el = file(d.path(), "grow.el", &body);
    let free = [("GROTTO_SIMULATE_FREE_BYTES", "10485760")];
    let before = std::fs::read(&g).unwrap();
    let always = ["update", p(&g), "--insert", p(&el), "--merge", "always"];
    let err = refused_with(
        &grotto_env(&always, &free),
        "a merge writes a new copy of",
        &g,
        &before,
    );
    assert!(
        err.contains("about 26.1 MiB, and 10.0 MiB are free there"),
        "{err}"
    );
    assert!(err.contains("leave out --merge always"), "{err}");
    let auto = [
        "update",
        p(&g),
        "--insert",
        p(&el),
        "--merge-above",
        "0",
        "--json",
    ];
    let o = grotto_env(&auto, &free);
    let r: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(r["merged"], false, "{r}");
    let note = r["note"].as_str().unwrap();
    assert!(
        note.starts_with("appended as a delta run instead of merged"),
        "{note}"
    );
    assert_eq!(r["vertices"], 1_800_001, "{r}");
    ok(&grotto(&["check", p(&g), "-q"]));
}

/// (g) Negative (or NaN) weights are committed, as `convert` writes
/// them, and the update says what they will break: `run sssp`.
#[test]
fn negative_weights_are_committed_with_a_warning() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(d.path(), "w", "0 1 2.5\n1 2 1\n", &[]);
    let ins = file(d.path(), "neg.el", "2 3 -1\n3 4 -2\n");
    let o = grotto(&["update", p(&g), "--insert", p(&ins)]);
    ok(&o);
    let err = text(&o.stderr);
    assert!(
        err.contains(
            "warning: 2 inserted edges have negative or NaN weights (the first: 2 -> 3, \
             weight -1); `grotto run sssp` will refuse this graph"
        ),
        "{err}"
    );
    let set = file(d.path(), "set.el", "0 1 -7\n");
    let r = report(&["update", p(&g), "--set-weight", p(&set)]);
    let w = r["warnings"][0].as_str().unwrap();
    assert!(
        w.starts_with("1 new weight is negative or NaN (the first: 0 -> 1, weight -7)"),
        "{w}"
    );
    let o = grotto(&["run", "sssp", p(&g), "--source", "0", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("non-negative weights"));
}

// Part 6: sizes that start work that never ends.

/// `generate` into a .grotto file checks the disk as the text output
/// does: 4 trillion edges spill far more than any disk holds.
#[test]
fn generate_checks_the_disk_for_either_output() {
    let d = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    for (out, want) in [
        ("x.el", "4096000000000 edges take about"),
        (
            "x.grotto",
            "about 4096000000000 edges do not fit the memory budget",
        ),
    ] {
        let o = d.path().join(out);
        let args = [
            "generate",
            "rmat",
            "--scale",
            "12",
            "--edge-factor",
            "1000000000",
        ];
        let r = grotto(&[&args[..], &["-o", p(&o)]].concat());
        let err = text(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{err}");
        assert!(err.contains(want), "{err}");
        assert!(!o.exists());
    }
    assert!(t0.elapsed() < Duration::from_secs(5));
}

/// `run ppr --epsilon` below f64's resolution on the graph is refused
/// (5e-324 never finished); the smallest accepted one finishes.
#[test]
fn ppr_refuses_an_epsilon_finer_than_f64() {
    let d = tempfile::tempdir().unwrap();
    let g = rmat12(d.path(), "g", &[]);
    let o = grotto(&["run", "ppr", p(&g), "--epsilon", "5e-324", "-q"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--epsilon 5e-324 is finer than f64 can resolve on this graph"),
        "{err}"
    );
    let least = err
        .split("give at least ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .unwrap();
    let t0 = Instant::now();
    ok(&grotto(&["run", "ppr", p(&g), "--epsilon", least, "-q"]));
    assert!(t0.elapsed() < Duration::from_secs(10));
}

/// `run eccentricity --sweeps` past the vertex count is refused; as many
/// sweeps as vertices finish at once (a start that comes round again
/// repeats earlier sweeps, which are copied).
#[test]
fn eccentricity_sweeps_are_bounded_by_the_vertices() {
    let d = tempfile::tempdir().unwrap();
    let g = rmat12(d.path(), "g", &[]);
    let o = grotto(&["run", "eccentricity", p(&g), "--sweeps", "1000000000", "-q"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--sweeps 1000000000 is more than the graph's 4096 vertices"),
        "{err}"
    );
    let t0 = Instant::now();
    let r = report(&["run", "eccentricity", p(&g), "--sweeps", "4096", "--verify"]);
    assert_eq!(r["verified"], true, "{r}");
    assert!(t0.elapsed() < Duration::from_secs(10));
}

/// A long random walk shows its steps of all on a terminal, and Ctrl-C
/// ends it at once (status 130). The terminal is `script`'s, where the
/// machine has it.
#[test]
fn a_long_random_walk_shows_progress_and_stops_on_ctrl_c() {
    let d = tempfile::tempdir().unwrap();
    let g = rmat12(d.path(), "g", &["--undirected"]);
    let bin = env!("CARGO_BIN_EXE_grotto");
    let args = ["run", "randomwalk", p(&g), "--steps", "4294967295"];
    let mut child = Command::new(bin)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the walk ended by itself"
    );
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "Ctrl-C did not stop the walk"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    // Progress, on a terminal.
    let has_script = Command::new("sh")
        .args(["-c", "command -v script"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        return;
    }
    let line = format!("timeout -s INT 1.5 {bin} {}", args.join(" "));
    let o = Command::new("script")
        .args(["-qc", &line, "/dev/null"])
        .output()
        .unwrap();
    let shown = text(&o.stdout);
    assert!(shown.contains("/4,294,967,295"), "{shown}");
    assert!(shown.contains("randomwalk: "), "{shown}");
}

#[test]
fn a_header_row_is_not_inserted_into_a_graph_of_names() {
    let d = tempfile::tempdir().unwrap();
    let g = text_graph(
        d.path(),
        "f",
        "ann bob\nbob cy\n",
        &["--undirected", "--ids", "string"],
    );
    // A header naming other columns: refused as convert refuses it, with
    // the flags that read it.
    let day2 = file(d.path(), "day2.csv", "follower,followee\ncy,dee\n");
    let err = refused(
        &g,
        &["update", p(&g), "--insert", p(&day2)],
        "--format csv --columns follower,followee",
    );
    assert!(err.contains("day2.csv:1:1"), "{err}");
    let r = report(&[
        "update",
        p(&g),
        "--insert",
        p(&day2),
        "--format",
        "csv",
        "--columns",
        "follower,followee",
    ]);
    assert_eq!(r["inserted"], 1, "{r}");
    // A header naming the default columns: read as CSV.
    let day3 = file(d.path(), "day3.csv", "src,dst\ndee,eve\n");
    let r = report(&["update", p(&g), "--insert", p(&day3)]);
    assert_eq!(r["inserted"], 1, "{r}");
    // Said to be an edge list, the first line is an edge between two new
    // vertices.
    let new = file(d.path(), "new.el", "fay gus\n");
    let r = report(&["update", p(&g), "--insert", p(&new), "--format", "edgelist"]);
    assert_eq!(r["inserted"], 1, "{r}");
    let info = report(&["info", p(&g)]);
    assert_eq!(info["vertices"], 7, "{info}");
}
