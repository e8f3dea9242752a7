//! `grotto bench ace` and `generate --weighted` through the binary: the
//! benchmark's JSON, that it writes only its scratch copy (the graph is
//! unchanged and nothing is left in its directory), ACE batching writes
//! without missing more, and refused inputs.

use std::path::Path;
use std::process::{Command, Output};

fn grotto(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_grotto"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run grotto")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn generate(dir: &Path, name: &str, weighted: bool) -> String {
    let out = dir.join(name);
    let mut args = vec![
        "generate",
        "rmat",
        "--scale",
        "13",
        "--edge-factor",
        "8",
        "--undirected",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ];
    if weighted {
        args.push("--weighted");
    }
    let o = grotto(&args, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    out.to_str().unwrap().to_string()
}

#[test]
fn bench_ace_writes_only_its_scratch_copy_and_batches_writes() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = tempfile::tempdir().unwrap();
    let g = generate(dir.path(), "w.grotto", true);
    let before = std::fs::read(&g).unwrap();
    let o = grotto(
        &[
            "bench",
            "ace",
            &g,
            "--json",
            "--ops",
            "3000",
            "--runs",
            "1",
            "--workload",
            "wis",
            "--policy",
            "lru",
            "--nw",
            "8",
            "--pool",
            "5%",
        ],
        &[("GROTTO_PROFILE_DIR", profiles.path().to_str().unwrap())],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "plain, ace, ace-pf");
    let get = |variant: &str| {
        rows.iter()
            .find(|r| r["row"]["variant"] == variant)
            .unwrap_or_else(|| panic!("no {variant} row: {v}"))
    };
    let (plain, ace) = (get("plain"), get("ace"));
    assert_eq!(
        plain["row"]["misses"], ace["row"]["misses"],
        "LRU misses the same pages under ACE"
    );
    let waits = |r: &serde_json::Value| r["row"]["write_waits"].as_u64().unwrap();
    let written = |r: &serde_json::Value| r["row"]["pages_written"].as_u64().unwrap();
    assert!(written(plain) > 100, "{plain}");
    assert!(waits(ace) * 4 < waits(plain), "{ace} vs {plain}");
    assert!(ace["speedup"].as_f64().unwrap() > 0.0);
    // Without a profile, alpha is unknown and no prediction is made.
    assert!(v["alpha"].is_null() && ace["pio_predicted"].is_null());
    // The graph is untouched and the scratch copy is gone.
    assert!(
        std::fs::read(&g).unwrap() == before,
        "the graph file changed"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, vec!["w.grotto".to_string()], "litter: {names:?}");
}

#[test]
fn bench_ace_refuses_what_it_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let g = generate(dir.path(), "u.grotto", false);
    let o = grotto(&["bench", "ace", &g, "--ops", "10"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(e.contains("weights") && e.contains("u.grotto"), "{e}");
    let w = generate(dir.path(), "w.grotto", true);
    for (flag, value, says) in [
        ("--nw", "0", "--nw"),
        ("--workload", "tpcc", "unknown workload"),
        ("--policy", "arc", "unknown policy"),
        ("--pool", "0", "cache size"),
    ] {
        let o = grotto(&["bench", "ace", &w, flag, value, "--ops", "10"], &[]);
        assert!(!o.status.success(), "{flag} {value} accepted");
        assert!(
            text(&o.stderr).contains(says),
            "{flag}: {}",
            text(&o.stderr)
        );
    }
}

#[test]
fn generated_weights_are_in_unit_interval_and_agree_through_convert() {
    let grid = |out: &str| {
        let args = [
            "generate",
            "grid",
            "--rows",
            "20",
            "--cols",
            "20",
            "--weighted",
            "-q",
            "-o",
            out,
        ];
        grotto(&args, &[])
    };
    let o = grid("-");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = text(&o.stdout);
    let mut lines = 0;
    for l in t.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = l.split(' ').collect();
        assert_eq!(f.len(), 3, "{l}");
        let w: f32 = f[2].parse().unwrap();
        assert!(w > 0.0 && w <= 1.0, "{l}");
        lines += 1;
    }
    assert_eq!(lines, 2 * 20 * 19);
    // The same weights through convert and through generate's own build.
    let dir = tempfile::tempdir().unwrap();
    let el = dir.path().join("g.el");
    std::fs::write(&el, &o.stdout).unwrap();
    let a = dir.path().join("a.grotto");
    let b = dir.path().join("b.grotto");
    let c = grotto(
        &["convert", el.to_str().unwrap(), a.to_str().unwrap(), "-q"],
        &[],
    );
    assert!(c.status.success(), "{}", text(&c.stderr));
    let d = grid(b.to_str().unwrap());
    assert!(d.status.success(), "{}", text(&d.stderr));
    let sssp = |p: &Path| {
        let o = grotto(
            &[
                "run",
                "sssp",
                p.to_str().unwrap(),
                "--source",
                "0",
                "-q",
                "-o",
                "-",
            ],
            &[],
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    assert_eq!(sssp(&a), sssp(&b));
}
