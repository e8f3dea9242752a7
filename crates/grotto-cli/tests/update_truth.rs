//! What `update` says is what happened: an interrupt's exit status
//! matches the graph's state (SIGINT and SIGTERM at random moments of
//! delta commits and merges, and at the moment a merge's finished file
//! appears), a damaged manifest slot is reported by `check` and by the
//! commands that open the graph, and a merge killed before its rename
//! leaves no temporary behind the next command on the graph.

mod common;

use common::{exported, grotto, ok, p, text};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn write_edges(path: &Path, edges: &BTreeSet<(u64, u64)>) {
    let body: String = edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
    std::fs::write(path, body).unwrap();
}

fn random_edges(n: u64, m: usize, x: &mut u64) -> BTreeSet<(u64, u64)> {
    let mut s = BTreeSet::new();
    while s.len() < m {
        let (u, v) = (xorshift(x) % n, xorshift(x) % n);
        if u != v {
            s.insert((u.min(v), u.max(v)));
        }
    }
    s
}

fn signal(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args(["-s", sig, &pid.to_string()])
        .status();
}

#[test]
fn an_interrupt_s_exit_status_says_whether_the_batch_landed() {
    let d = tempfile::tempdir().unwrap();
    let n = 20_000;
    let mut x = 9u64;
    let base_edges = random_edges(n, 80_000, &mut x);
    let el = d.path().join("base.el");
    write_edges(&el, &base_edges);
    let base = d.path().join("base.grotto");
    ok(&grotto(&[
        "convert",
        p(&el),
        p(&base),
        "--undirected",
        "--vertices",
        &n.to_string(),
        "-q",
    ]));
    let ins: BTreeSet<_> = random_edges(n, 30_000, &mut x)
        .difference(&base_edges)
        .copied()
        .collect();
    let del: BTreeSet<_> = base_edges.iter().step_by(3).copied().collect();
    let (fi, fd) = (d.path().join("ins.el"), d.path().join("del.el"));
    write_edges(&fi, &ins);
    write_edges(&fd, &del);
    let after: BTreeSet<_> = base_edges
        .difference(&del)
        .chain(ins.iter())
        .copied()
        .collect();
    let g = d.path().join("g.grotto");
    let modes = ["never", "always"];
    let update = |mode: &str| {
        Command::new(env!("CARGO_BIN_EXE_grotto"))
            .args([
                "update",
                p(&g),
                "--insert",
                p(&fi),
                "--delete",
                p(&fd),
                "--merge",
                mode,
                "-q",
            ])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut took = Vec::new();
    for mode in modes {
        std::fs::copy(&base, &g).unwrap();
        let t = Instant::now();
        assert!(update(mode).wait().unwrap().success());
        took.push(t.elapsed());
    }
    // Signals at moments spread around when each way's commit lands (the
    // estimate moves towards the switch, as in the kill -9 test), and,
    // for merges, the moment the finished file's name appears.
    let mut seen = [[0u32; 2]; 2];
    let mut switch_at = took.clone();
    let mut trial = 0u64;
    let mut at_rename = 0;
    while trial < 100 || (trial < 160 && seen.iter().any(|o| o[0] == 0 || o[1] == 0)) {
        let m = (trial % 2) as usize;
        let sig = if trial % 4 < 2 { "INT" } else { "TERM" };
        trial += 1;
        std::fs::copy(&base, &g).unwrap();
        let mut child = update(modes[m]);
        if m == 1 && trial % 8 == 2 {
            // Watch for the finished temporary's name, then interrupt.
            let t = Instant::now();
            'watch: while t.elapsed() < Duration::from_secs(10) {
                for e in std::fs::read_dir(d.path()).unwrap().flatten() {
                    if e.file_name().to_string_lossy().contains(".grotto-") {
                        break 'watch;
                    }
                }
                if child.try_wait().unwrap().is_some() {
                    break;
                }
            }
            at_rename += 1;
        } else {
            let wait = switch_at[m].mul_f64(0.5 + (xorshift(&mut x) % 1000) as f64 / 1000.0);
            std::thread::sleep(wait.min(Duration::from_secs(5)));
        }
        signal(child.id(), sig);
        let out = child.wait_with_output().unwrap();
        let code = out.status.code();
        let now = exported(&g);
        let landed = if now == after {
            true
        } else if now == base_edges {
            false
        } else {
            panic!("trial {trial}: a mix of the two versions");
        };
        match code {
            Some(0) => assert!(landed, "trial {trial}: exit 0, batch missing"),
            Some(130) | Some(143) => assert!(
                !landed,
                "trial {trial} ({}, SIG{sig}): exit {code:?} but the batch landed",
                modes[m]
            ),
            c => panic!("trial {trial}: exit {c:?}: {}", text(&out.stderr)),
        }
        if landed {
            seen[m][1] += 1;
            switch_at[m] = switch_at[m].mul_f64(0.77);
        } else {
            seen[m][0] += 1;
            switch_at[m] = switch_at[m].mul_f64(1.3).min(Duration::from_secs(4));
        }
        ok(&grotto(&["check", p(&g), "-q"]));
    }
    assert!(at_rename > 0);
    assert!(
        seen.iter().all(|o| o[0] > 0 && o[1] > 0),
        "{seen:?} over {trial} interrupts; timed {took:?}"
    );
}

/// The manifest section's offset, from the library.
fn manifest_at(g: &Path) -> u64 {
    let graph = grotto::store::Graph::open(g).unwrap();
    graph
        .header()
        .sections
        .iter()
        .find(|s| s.kind == grotto::store::format::SectionKind::Manifest)
        .unwrap()
        .offset
}

fn poke(g: &Path, at: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    std::fs::OpenOptions::new()
        .write(true)
        .open(g)
        .unwrap()
        .write_all_at(bytes, at)
        .unwrap();
}

fn peek(g: &Path, at: u64, len: usize) -> Vec<u8> {
    use std::os::unix::fs::FileExt;
    let mut b = vec![0u8; len];
    std::fs::File::open(g)
        .unwrap()
        .read_exact_at(&mut b, at)
        .unwrap();
    b
}

#[test]
fn check_and_the_commands_that_open_a_graph_report_a_damaged_manifest_slot() {
    let d = tempfile::tempdir().unwrap();
    let g = common::text_graph(d.path(), "m", "0 1\n1 2\n2 3\n", &["--undirected"]);
    let ins = d.path().join("ins.el");
    std::fs::write(&ins, "3 4\n").unwrap();
    let delta = |g: &Path| {
        ok(&grotto(&[
            "update",
            p(g),
            "--insert",
            p(&ins),
            "--merge",
            "never",
            "-q",
        ]))
    };
    delta(&g);
    let at = manifest_at(&g);
    let slot0 = peek(&g, at, 4096);

    // Slots mirrored: one damaged slot loses nothing, and check says so.
    poke(&g, at + 9, &[slot0[9] ^ 0x40]);
    let o = grotto(&["check", p(&g)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("manifest slot 0 fails its checksum") && err.contains("nothing is lost"),
        "{err}"
    );
    assert_eq!(exported(&g).len(), 4, "the commit is in force");
    let o = grotto(&["info", p(&g)]);
    assert!(o.status.success() && !text(&o.stderr).contains("warning"));
    poke(&g, at + 9, &[slot0[9]]);

    // A second commit, then slot 1 set back to the first commit (slots
    // as builds before mirroring left them): damage to the newer slot
    // may hide a commit, and everything that opens the graph says so.
    std::fs::write(&ins, "4 5\n").unwrap();
    delta(&g);
    poke(&g, at + 4096, &slot0);
    let newer = peek(&g, at, 4096);
    poke(&g, at + 200, &[newer[200] ^ 1]);
    let o = grotto(&["check", p(&g)]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("manifest slot 0 fails its checksum (it names commit 2)")
            && err.contains("commit 1")
            && err.contains("restore the file"),
        "{err}"
    );
    let j: serde_json::Value =
        serde_json::from_str(&text(&grotto(&["check", p(&g), "--json"]).stdout)).unwrap();
    assert_eq!(j["ok"], false);
    assert_eq!(j["manifest"][0]["may_hide_a_commit"], true);
    for cmd in [
        vec!["info", p(&g)],
        vec!["export", p(&g)],
        vec!["run", "bfs", p(&g), "-q"],
    ] {
        let o = grotto(&cmd);
        assert!(o.status.success(), "{cmd:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains("warning:") && text(&o.stderr).contains("hides it"),
            "{cmd:?}: {}",
            text(&o.stderr)
        );
    }
    // Both slots damaged: the commands refuse the file and name it.
    poke(&g, at + 4096 + 200, &[slot0[200] ^ 1]);
    let o = grotto(&["info", p(&g)]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("both manifest slots"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn the_next_command_on_a_graph_removes_a_killed_merge_s_temporary() {
    let d = tempfile::tempdir().unwrap();
    let g = common::text_graph(d.path(), "t", "0 1\n1 2\n", &["--undirected"]);
    // What a merge killed between linking and renaming its new file
    // leaves: the graph's bytes under its temporary name, no lock held.
    let stale = d.path().join(".t.grotto.grotto-AbC123.tmp");
    std::fs::copy(&g, &stale).unwrap();
    let other = d.path().join(".u.grotto.grotto-AbC123.tmp");
    std::fs::copy(&g, &other).unwrap();
    for f in [&stale, &other] {
        assert!(Command::new("touch")
            .args(["-d", "1 minute ago"])
            .arg(f)
            .status()
            .unwrap()
            .success());
    }
    let ins = d.path().join("ins.el");
    std::fs::write(&ins, "2 3\n").unwrap();
    ok(&grotto(&[
        "update",
        p(&g),
        "--insert",
        p(&ins),
        "--merge",
        "never",
        "-q",
    ]));
    assert!(!stale.exists(), "a delta update left the stale temporary");
    assert!(
        other.exists(),
        "another file's temporary is not this graph's"
    );
    std::fs::copy(&g, &stale).unwrap();
    assert!(Command::new("touch")
        .args(["-d", "1 minute ago"])
        .arg(&stale)
        .status()
        .unwrap()
        .success());
    ok(&grotto(&["info", p(&g)]));
    assert!(!stale.exists(), "info left the stale temporary");
}
