//! The hardening suite: every class of bad input, hostile argument and
//! interruption the campaign of issue 18 found, driven through the binary
//! as a user would. Each case checks the exit status, the message, that
//! no file was left or replaced, and that nothing panicked.

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn grotto(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grotto"))
        .args(args)
        .output()
        .expect("run grotto")
}

fn p(x: &Path) -> &str {
    x.to_str().expect("utf-8 path")
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every name in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The command fails with `code`, says each of `needles`, panics not,
/// and leaves `dir` as it was.
fn refused(dir: &Path, args: &[&str], code: i32, needles: &[&str]) {
    let before = names(dir);
    let o = grotto(args);
    let e = err(&o);
    assert_eq!(o.status.code(), Some(code), "{args:?}: {e}");
    assert!(
        e.starts_with("error: ") || e.contains("\nerror: "),
        "{args:?}: {e}"
    );
    assert!(!e.contains("panicked"), "{args:?}: {e}");
    for n in needles {
        assert!(e.contains(n), "{args:?}: expected {n:?} in {e:?}");
    }
    assert_eq!(names(dir), before, "{args:?}: files changed");
}

/// A small graph and its edge list in `dir`.
fn fixture(dir: &Path) -> (PathBuf, PathBuf) {
    let el = dir.join("s.el");
    std::fs::write(&el, "0 1\n1 2\n2 3\n3 0\n").expect("write");
    let g = dir.join("s.grotto");
    let o = grotto(&["convert", p(&el), p(&g), "-q"]);
    assert!(o.status.success(), "{}", err(&o));
    (el, g)
}

#[test]
fn outputs_that_are_not_regular_files_are_written_through_or_refused() {
    let d = tempfile::tempdir().expect("tempdir");
    let (el, g) = fixture(d.path());
    let fifo = d.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo")
        .success());
    let sub = d.path().join("sub");
    std::fs::create_dir(&sub).expect("mkdir");
    // A graph file needs a regular file: devices, FIFOs, directories and
    // standard output are refused, and nothing is replaced.
    for target in ["/dev/null", p(&fifo), p(&sub), "-", "/dev/stdout"] {
        refused(d.path(), &["convert", p(&el), target], 2, &[]);
    }
    assert!(std::fs::metadata("/dev/null")
        .expect("stat")
        .file_type()
        .is_char_device());
    assert!(std::fs::metadata(&fifo)
        .expect("stat")
        .file_type()
        .is_fifo());
    // Text streams are written through: export and run results to
    // /dev/null and to standard output.
    let o = grotto(&["export", p(&g), "-o", "/dev/null", "-q"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::metadata("/dev/null")
        .expect("stat")
        .file_type()
        .is_char_device());
    let o = grotto(&["export", p(&g), "-o", "-"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 1\n"));
    let o = grotto(&["run", "bfs", p(&g), "--source", "0", "--out", "-", "--json"]);
    assert!(o.status.success(), "{}", err(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("id,depth,parent\n"), "{out}");
    // The summary went to stderr, out of the results' way.
    assert!(err(&o).contains("\"command\":\"run\""), "{}", err(&o));
    // A symlink is followed: the file it names is replaced, the link stays.
    let real = d.path().join("real.csv");
    std::fs::write(&real, "old").expect("write");
    let link = d.path().join("link.csv");
    std::os::unix::fs::symlink("real.csv", &link).expect("symlink");
    let o = grotto(&[
        "run",
        "bfs",
        p(&g),
        "--source",
        "0",
        "--out",
        p(&link),
        "-q",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&link)
        .expect("lstat")
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real)
        .expect("read")
        .starts_with("id,"));
}

#[test]
fn an_output_that_is_an_input_is_refused_before_any_work() {
    let d = tempfile::tempdir().expect("tempdir");
    let (el, g) = fixture(d.path());
    let hard = d.path().join("hard.grotto");
    std::fs::hard_link(&g, &hard).expect("link");
    let soft = d.path().join("soft.el");
    std::os::unix::fs::symlink("s.el", &soft).expect("symlink");
    let el_bytes = std::fs::read(&el).expect("read");
    let g_bytes = std::fs::read(&g).expect("read");
    for args in [
        vec!["convert", p(&el), p(&el)],
        vec!["convert", p(&el), p(&soft)],
        vec!["export", p(&g), "-o", p(&g)],
        vec!["export", p(&g), "-o", p(&hard)],
        vec!["run", "bfs", p(&g), "--out", p(&g)],
        vec!["run", "wcc", p(&g), "--out", p(&hard)],
    ] {
        refused(d.path(), &args, 2, &["is the input"]);
    }
    assert_eq!(std::fs::read(&el).expect("read"), el_bytes);
    assert_eq!(std::fs::read(&g).expect("read"), g_bytes);
}

#[test]
fn formats_are_detected_on_evidence_or_refused() {
    let d = tempfile::tempdir().expect("tempdir");
    let put = |name: &str, text: &[u8]| {
        let f = d.path().join(name);
        std::fs::write(&f, text).expect("write");
        f
    };
    let out = d.path().join("o.grotto");
    let csv4 = put("t.csv", b"0,1,5,1289241911\n1,2,5,1289241912\n");
    refused(
        d.path(),
        &["convert", p(&csv4), p(&out)],
        2,
        &["4 columns", "--format"],
    );
    let three = put("t3.el", b"0 1 2\n1 0 2\n2 0 1\n");
    refused(d.path(), &["convert", p(&three), p(&out)], 2, &["--format"]);
    // Said either way, it converts, and the report says why.
    let o = grotto(&["convert", p(&three), p(&out), "--format", "adjacency"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("given with --format"));
    std::fs::remove_file(&out).expect("rm");
    // A stray line is an error at its place, at line 5 as at line 1501.
    for at in [5usize, 1501] {
        let mut t = String::new();
        for i in 0..2000 {
            if i + 1 == at {
                t.push_str("7\n");
            } else {
                t.push_str(&format!("{i} {}\n", i + 1));
            }
        }
        let f = put("stray.el", t.as_bytes());
        refused(
            d.path(),
            &["convert", p(&f), p(&out)],
            2,
            &[&format!("stray.el:{at}:2:"), "--format"],
        );
    }
    // The banner in lower case is still Matrix Market (1-based, 3 vertices).
    let mtx = put(
        "l.mtx",
        b"%%matrixmarket matrix coordinate pattern symmetric\n3 3 2\n1 2\n2 3\n",
    );
    let o = grotto(&["convert", p(&mtx), p(&out), "--json"]);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["format"], "matrixmarket");
    assert_eq!(v["directed"], false);
    assert_eq!(v["vertices"], 3);
}

#[test]
fn a_text_round_trip_keeps_trailing_isolated_vertices() {
    let d = tempfile::tempdir().expect("tempdir");
    let el = d.path().join("r.el");
    let o = grotto(&["generate", "rmat", "--scale", "10", "-o", p(&el), "-q"]);
    assert!(o.status.success(), "{}", err(&o));
    let g = d.path().join("r.grotto");
    let o = grotto(&["convert", p(&el), p(&g), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["vertices"], 1024, "the '# vertices 1024' line counts");
    // Through export and back.
    let back = d.path().join("back.el");
    assert!(grotto(&["export", p(&g), "-o", p(&back)]).status.success());
    let g2 = d.path().join("r2.grotto");
    let o = grotto(&["convert", p(&back), p(&g2), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["vertices"], 1024);
    // --vertices says it for text without the comment, and ids beyond it
    // are errors.
    let small = d.path().join("small.el");
    std::fs::write(&small, "0 1\n").expect("write");
    let o = grotto(&["convert", p(&small), p(&g2), "--vertices", "10", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["vertices"], 10);
    // Both paths refuse them; the external one, which skips its id pass
    // when the count is given, catches them in its counting pass and
    // names the id.
    let x = d.path().join("x.grotto");
    for (path, needle) in [
        (None, "outside 0..1"),
        (Some("--force-external"), "vertex id 1 is outside 0..1"),
    ] {
        let mut args = vec!["convert", p(&small), p(&x), "--vertices", "1"];
        args.extend(path);
        refused(d.path(), &args, 2, &[needle, "--vertices"]);
    }
}

#[test]
fn sizes_are_checked_before_they_are_allocated() {
    let d = tempfile::tempdir().expect("tempdir");
    let (_, g) = fixture(d.path());
    let mtx = d.path().join("big.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate pattern general\n4000000000 4000000000 1\n1 2\n",
    )
    .expect("write");
    let huge = d.path().join("huge.el");
    std::fs::write(&huge, "0 3000000000\n").expect("write");
    let out = d.path().join("o.grotto");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["convert", p(&mtx), p(&out)], "4000000000 vertices"),
        (
            vec!["convert", p(&huge), p(&out), "--ids", "dense"],
            "dense vertex ids",
        ),
        (
            vec![
                "generate",
                "grid",
                "--rows",
                "70000",
                "--cols",
                "70000",
                "-o",
                p(&out),
            ],
            "limit",
        ),
        (
            vec![
                "generate",
                "grid",
                "--rows",
                "4294967296",
                "--cols",
                "4294967296",
                "-o",
                p(&out),
            ],
            "overflows",
        ),
        (
            vec!["run", "randomwalk", p(&g), "--walkers", "10000000000000"],
            "--walkers",
        ),
        (vec!["--threads", "100000", "info", p(&g)], "--threads"),
        (vec!["run", "bfs", p(&g), "--cache", "0"], "at least one"),
        (vec!["run", "bfs", p(&g), "--cache", "0%"], "positive"),
    ];
    for (args, needle) in cases {
        let t = Instant::now();
        refused(d.path(), &args, 2, &[needle]);
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{args:?} took {:?}",
            t.elapsed()
        );
    }
    // Sparse huge ids are compacted without a bitmap up to the largest.
    let sparse = d.path().join("sparse.el");
    std::fs::write(&sparse, "0 4000000000\n").expect("write");
    let o = grotto(&["convert", p(&sparse), p(&out), "--json"]);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["vertices"], 2);
    assert!(
        v["peak_rss_bytes"].as_u64().expect("rss") < 200 << 20,
        "{v}"
    );
    // A cache larger than the graph is capped, and the run says so.
    let o = grotto(&["run", "bfs", p(&g), "--cache", "20GiB", "--source", "0"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("more than the whole graph file"),
        "{}",
        err(&o)
    );
}

#[test]
fn text_without_line_ends_is_linear_or_refused() {
    let d = tempfile::tempdir().expect("tempdir");
    let out = d.path().join("o.grotto");
    // One 40 MB line: an error at once, not minutes of rescanning.
    let one = d.path().join("one.el");
    std::fs::write(&one, vec![b'1'; 40 << 20]).expect("write");
    let t = Instant::now();
    refused(
        d.path(),
        &["convert", p(&one), p(&out)],
        2,
        &["one.el:1:1:"],
    );
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    std::fs::remove_file(&one).expect("rm");
    // Carriage returns alone: refused at once.
    let cr = d.path().join("cr.el");
    let text: String = (0..2_000_000).map(|i| format!("{i} {}\r", i + 1)).collect();
    std::fs::write(&cr, text).expect("write");
    let t = Instant::now();
    refused(
        d.path(),
        &["convert", p(&cr), p(&out)],
        2,
        &["carriage return"],
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    std::fs::remove_file(&cr).expect("rm");
    // A NUL byte is an error at its position, even with --skip-invalid.
    let nul = d.path().join("nul.el");
    std::fs::write(&nul, b"0 1\n1 2\n2 \x003\n").expect("write");
    refused(
        d.path(),
        &["convert", p(&nul), p(&out), "--skip-invalid"],
        2,
        &["nul.el:3:3:", "NUL"],
    );
    // /dev/zero, a FIFO, a directory and '-' need a regular file.
    for input in ["/dev/zero", p(d.path()), "-"] {
        refused(d.path(), &["convert", input, p(&out)], 2, &[]);
    }
    // A hub's adjacency list of 5 million ids on one line still works.
    let hub = d.path().join("hub.adj");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&hub).expect("create"));
    write!(f, "0").expect("write");
    for i in 1..5_000_000u32 {
        write!(f, " {i}").expect("write");
    }
    writeln!(f).expect("write");
    drop(f);
    let o = grotto(&["convert", p(&hub), p(&out), "--json"]);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["edges"], 4_999_999);
}

#[test]
fn conventions() {
    let d = tempfile::tempdir().expect("tempdir");
    let (el, g) = fixture(d.path());
    // Missing input: exit 2 naming it. Empty input: refused unless allowed.
    refused(
        d.path(),
        &[
            "convert",
            p(&d.path().join("nope.el")),
            p(&d.path().join("o.grotto")),
        ],
        2,
        &["nope.el"],
    );
    let empty = d.path().join("empty.el");
    std::fs::write(&empty, "# nothing\n").expect("write");
    refused(
        d.path(),
        &["convert", p(&empty), p(&d.path().join("o.grotto"))],
        2,
        &["no edges read", "--allow-empty"],
    );
    let junk = d.path().join("junk.el");
    std::fs::write(&junk, "a b\nc d\n").expect("write");
    refused(
        d.path(),
        &[
            "convert",
            p(&junk),
            p(&d.path().join("o.grotto")),
            "--skip-invalid",
        ],
        2,
        &["no edges read", "skipped"],
    );
    // A closed stdout ends quietly.
    let mut child = Command::new(env!("CARGO_BIN_EXE_grotto"))
        .args(["export", p(&g)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("wait");
    assert!(err(&o).is_empty(), "{}", err(&o));
    // Results are 0666 less the umask (0644 under the usual 022), like graphs.
    let csv = d.path().join("r.csv");
    let o = grotto(&["run", "bfs", p(&g), "--source", "0", "--out", p(&csv), "-q"]);
    assert!(o.status.success(), "{}", err(&o));
    let mode = std::fs::metadata(&csv).expect("stat").permissions().mode() & 0o777;
    let gmode = std::fs::metadata(&g).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode, gmode);
    assert_ne!(mode, 0o600);
    // An unwritable destination fails before the run.
    refused(
        d.path(),
        &["run", "bfs", p(&g), "--out", "/nonexistent-dir/r.csv"],
        2,
        &["/nonexistent-dir/r.csv"],
    );
    // Control bytes of the input are escaped; a byte-order mark is fine.
    let esc = d.path().join("esc.el");
    std::fs::write(&esc, b"0 1\n1 \x1b[31mred\n").expect("write");
    let o = grotto(&["convert", p(&esc), p(&d.path().join("o.grotto"))]);
    assert!(
        !err(&o).contains('\x1b') && err(&o).contains("\\x1b[31mred"),
        "{}",
        err(&o)
    );
    let bom = d.path().join("bom.el");
    std::fs::write(&bom, b"\xEF\xBB\xBF0 1\n1 2\n").expect("write");
    let o = grotto(&["convert", p(&bom), p(&d.path().join("bom.grotto")), "-q"]);
    assert!(o.status.success(), "{}", err(&o));
    // Flags that would do nothing are refused.
    refused(
        d.path(),
        &["run", "bfs", p(&g), "--engine", "async", "--mode", "vertex"],
        2,
        &["--mode"],
    );
    refused(
        d.path(),
        &["run", "bfs", p(&g), "--format", "npy"],
        2,
        &["--out"],
    );
    refused(
        d.path(),
        &[
            "convert",
            p(&el),
            p(&d.path().join("x.grotto")),
            "--undirected",
            "--reverse",
        ],
        2,
        &["--reverse"],
    );
    // demo --json is JSON Lines.
    let o = grotto(&["demo", "--json"]);
    assert!(o.status.success(), "{}", err(&o));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 7);
}

/// Starts a conversion of `input` into `out`, waits `after`, sends
/// `signal`, and returns the exit status.
fn interrupt(input: &Path, out: &Path, after: Duration, signal: &str, named: bool) -> Option<i32> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_grotto"))
        .args([
            "convert",
            p(input),
            p(out),
            "-q",
            "--force-external",
            "--memory",
            "16MiB",
        ])
        .env("GROTTO_TEMP_NAMED", if named { "1" } else { "0" })
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(after);
    let _ = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status();
    let st = child.wait().expect("wait");
    st.code()
        .or_else(|| std::os::unix::process::ExitStatusExt::signal(&st).map(|s| 128 + s))
}

#[test]
fn interruptions_leave_the_old_file_and_no_litter() {
    let d = tempfile::tempdir().expect("tempdir");
    let el = d.path().join("r.el");
    let o = grotto(&["generate", "rmat", "--scale", "18", "-o", p(&el), "-q"]);
    assert!(o.status.success(), "{}", err(&o));
    let out = d.path().join("r.grotto");
    std::fs::write(&out, b"the old file").expect("write");
    let mut interrupted = 0;
    for named in [false, true] {
        for (signal, code) in [("INT", 130), ("TERM", 143), ("KILL", 137)] {
            for ms in [30u64, 150, 400] {
                let st = interrupt(&el, &out, Duration::from_millis(ms), signal, named);
                if st == Some(0) {
                    // Finished first: the new graph is whole.
                    assert!(grotto(&["check", p(&out)]).status.success());
                    std::fs::write(&out, b"the old file").expect("write");
                    continue;
                }
                interrupted += 1;
                assert_eq!(st, Some(code), "{signal} after {ms} ms");
                // The old file, or (a signal that came after the rename)
                // the whole new one: never anything in between.
                if std::fs::read(&out).expect("read") != b"the old file" {
                    let o = grotto(&["check", p(&out)]);
                    assert!(o.status.success(), "{signal} after {ms} ms: {}", err(&o));
                    std::fs::write(&out, b"the old file").expect("write");
                }
                let left: Vec<String> = names(d.path())
                    .into_iter()
                    .filter(|n| n != "r.el" && n != "r.grotto")
                    .collect();
                if signal == "KILL" && named {
                    // A named temporary survives kill -9; the next command
                    // writing here removes it once its lock is free (and
                    // it is a few seconds old).
                    for n in &left {
                        let f = d.path().join(n);
                        let old = std::time::SystemTime::now() - Duration::from_secs(60);
                        std::fs::File::options()
                            .write(true)
                            .open(&f)
                            .expect("open")
                            .set_modified(old)
                            .expect("touch");
                    }
                    let o = grotto(&[
                        "export",
                        p(&d.path().join("nope")),
                        "-o",
                        p(&d.path().join("x.el")),
                    ]);
                    assert_eq!(o.status.code(), Some(2));
                    let o = grotto(&["run", "bfs", "/nonexistent.grotto"]);
                    assert_eq!(o.status.code(), Some(2));
                    let sweep = d.path().join("sweep.el");
                    let o = grotto(&[
                        "generate",
                        "grid",
                        "--rows",
                        "2",
                        "--cols",
                        "2",
                        "-o",
                        p(&sweep),
                        "-q",
                    ]);
                    assert!(o.status.success(), "{}", err(&o));
                    std::fs::remove_file(&sweep).expect("rm");
                    let left: Vec<String> = names(d.path())
                        .into_iter()
                        .filter(|n| n != "r.el" && n != "r.grotto")
                        .collect();
                    assert!(left.is_empty(), "stale temporaries stayed: {left:?}");
                } else {
                    assert!(left.is_empty(), "{signal} after {ms} ms left {left:?}");
                }
            }
        }
    }
    assert!(interrupted >= 6, "only {interrupted} runs were interrupted");
}

#[test]
fn typed_sizes_and_counts_are_ranged_not_clamped() {
    let d = tempfile::tempdir().expect("tempdir");
    let (el, g) = fixture(d.path());
    let out = d.path().join("x.grotto");
    for (args, needle) in [
        (vec!["bench", "io", p(&g), "--qd", "100000"], "--qd"),
        (vec!["bench", "io", p(&g), "--seconds", "1e12"], "--seconds"),
        (
            vec!["convert", p(&el), p(&out), "--window", "0"],
            "--window",
        ),
        (
            vec![
                "profile",
                "--path",
                p(d.path()),
                "--size",
                "1000TiB",
                "--quick",
            ],
            "does not fit",
        ),
        (
            vec!["profile", "--path", p(d.path()), "--seconds", "100"],
            "--seconds",
        ),
        (vec!["export", p(&g), "-o", "sub/"], "ends in /"),
        (vec!["convert", p(&el), "nodir/"], "ends in /"),
        (
            vec![
                "generate",
                "rmat",
                "--scale",
                "31",
                "-o",
                p(&d.path().join("big.el")),
            ],
            "free there",
        ),
    ] {
        refused(d.path(), &args, 2, &[needle]);
    }
}

#[test]
fn a_memory_budget_holds_down_to_its_stated_floor() {
    // The kernel's high-water mark (getrusage's ru_maxrss, the VmHWM of
    // /proc) of bounded builds at three budgets, from text and straight
    // from the generator: never above the budget or the floor the report
    // states, and the floor within 64 MiB + 16 B a vertex.
    let d = tempfile::tempdir().expect("tempdir");
    let el = d.path().join("r.el");
    let o = grotto(&["generate", "rmat", "--scale", "17", "-o", p(&el), "-q"]);
    assert!(o.status.success(), "{}", err(&o));
    let out = d.path().join("r.grotto");
    for budget in ["1MiB", "36MiB", "48MiB"] {
        for source in ["text", "generator"] {
            let _ = std::fs::remove_file(&out);
            let common = [
                "--memory",
                budget,
                "--json",
                "--threads",
                "2",
                "--undirected",
            ];
            let mut args = match source {
                "text" => vec!["convert", p(&el), p(&out)],
                _ => vec!["generate", "rmat", "--scale", "17", "-o", p(&out)],
            };
            args.extend(common);
            let o = grotto(&args);
            assert!(o.status.success(), "{}", err(&o));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
            let floor = v["memory_floor_bytes"].as_u64().expect("floor");
            let asked = v["memory_budget_bytes"].as_u64().expect("budget");
            let peak = v["peak_rss_bytes"].as_u64().expect("rss");
            let n = v["vertices"].as_u64().expect("vertices");
            let parts: Vec<u64> = v["memory_floor_parts"]
                .as_array()
                .expect("parts")
                .iter()
                .map(|x| x.as_u64().expect("part"))
                .collect();
            assert_eq!(v["path"], "external", "{v}");
            assert_eq!(parts.iter().sum::<u64>(), floor);
            assert_eq!(parts[1], 16 * n, "{parts:?}");
            assert!(
                floor <= (64 << 20) + 16 * n,
                "floor {floor} for {n} vertices"
            );
            assert!(
                peak <= floor.max(asked),
                "{source} at {budget}: peak {peak} over floor {floor} and budget {asked}"
            );
            if floor > asked {
                assert!(
                    err(&o).contains("is below what this build needs")
                        && err(&o).contains("B x 131072 vertices"),
                    "{}",
                    err(&o)
                );
            }
        }
    }
}

#[test]
fn a_spill_that_does_not_fit_is_made_in_groups_or_refused() {
    // A bounded build of 4M records (32 MiB of spill) with 24 MiB free
    // (simulated): partitions are spilled in groups that fit beside the
    // output, one pass over the text each, and the file is the same as
    // with room for the whole spill. With 2 MiB free it is refused,
    // leaving nothing behind.
    let d = tempfile::tempdir().expect("tempdir");
    let el = d.path().join("r.el");
    let o = grotto(&["generate", "rmat", "--scale", "17", "-o", p(&el), "-q"]);
    assert!(o.status.success(), "{}", err(&o));
    let convert = |out: &Path, free: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_grotto"));
        c.args([
            "convert",
            p(&el),
            p(out),
            "--memory",
            "1MiB",
            "--undirected",
            "--json",
        ]);
        if let Some(f) = free {
            c.env("GROTTO_SIMULATE_FREE_BYTES", f);
        }
        c.output().expect("run grotto")
    };
    let whole = d.path().join("whole.grotto");
    let o = convert(&whole, None);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["input_passes"], 2, "{v}");
    let parts = v["partitions"].as_u64().expect("partitions");
    assert!(parts >= 8, "{v}");
    let grouped = d.path().join("grouped.grotto");
    let o = convert(&grouped, Some(&(24u64 << 20).to_string()));
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let passes = v["input_passes"].as_u64().expect("passes");
    assert!((3..=parts).contains(&passes), "{v}");
    let why = v["path_reason"].as_str().expect("reason");
    assert!(why.contains("spilled in groups"), "{why}");
    // Later passes' tables are in the floor, and the finish stays in it.
    let floor = v["memory_floor_bytes"].as_u64().expect("floor");
    let peak = v["peak_rss_bytes"].as_u64().expect("rss");
    assert!(peak <= floor, "groups: peak {peak} over the floor {floor}");
    assert!(
        std::fs::read(&whole).expect("whole") == std::fs::read(&grouped).expect("grouped"),
        "grouped and whole spills built different files"
    );
    let refused = d.path().join("refused.grotto");
    let o = convert(&refused, Some(&(2u64 << 20).to_string()));
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("are free there"), "{}", err(&o));
    assert!(!refused.exists());
    let mut left = names(d.path());
    left.sort();
    assert_eq!(left, ["grouped.grotto", "r.el", "whole.grotto"]);
}
