//! profile, doctor and bench through the binary: a quick profile stored
//! and found again, the io_uring fallback (simulated) said once with its
//! reason, benchmarks' JSON, and refused arguments.

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

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

fn small_graph(dir: &Path) -> String {
    let out = dir.join("g.grotto");
    let o = grotto(
        &[
            "generate",
            "rmat",
            // Edge blocks of about 3 MB packed: more than the largest
            // merge size a profile can pick (1 MiB, seen on a noisy disk;
            // scale 15 packed to 0.5 MB, which a 1 MiB merge outgrew).
            "--scale",
            "17",
            "--edge-factor",
            "8",
            "--undirected",
            "-o",
            out.to_str().unwrap(),
            "-q",
        ],
        &[],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    out.to_str().unwrap().to_string()
}

#[test]
fn quick_profile_is_stored_and_used_by_doctor_and_bench() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("profiles");
    let env = [("GROTTO_PROFILE_DIR", store.to_str().unwrap())];
    let d = dir.path().to_str().unwrap();
    let svg = dir.path().join("curves.svg");
    let v = json(&grotto(
        &[
            "profile",
            "--quick",
            "--path",
            d,
            "--size",
            "64MiB",
            "--seconds",
            "0.03",
            "--plot",
            svg.to_str().unwrap(),
            "--json",
        ],
        &env,
    ));
    let k_r = v["k_r"].as_u64().unwrap();
    assert!([1, 2, 4, 8, 16, 32, 64, 128, 256].contains(&k_r), "{v}");
    assert!(v["merge_bytes"].as_u64().unwrap() >= 4096);
    assert!(v["alpha"].as_f64().unwrap() > 0.0);
    let points = v["points"].as_array().unwrap();
    assert!(points.len() >= 26, "{}", points.len());
    assert!(points.iter().all(|p| p["iops"].as_f64().unwrap() > 0.0));
    // Each point measured twice (the quick default), its spread recorded.
    assert!(points.iter().all(
        |p| p["repeats"].as_u64() == Some(2) && p["spread"].as_f64().is_some_and(|s| s >= 0.0)
    ));
    let saved = v["saved_to"].as_str().unwrap();
    assert!(Path::new(saved).starts_with(&store));
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(
        picture.starts_with("<svg")
            && picture.contains("polyline")
            && picture.trim_end().ends_with("</svg>")
    );
    // The scratch file is gone.
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with(".grotto-profile")));

    let doc = json(&grotto(&["doctor", "--path", d, "--json"], &env));
    assert_eq!(doc["profile_file"].as_str().unwrap(), saved);
    assert_eq!(doc["profile"]["k_r"].as_u64().unwrap(), k_r);
    assert!(doc["kernel"].as_str().unwrap().len() > 1);
    let text_doc = grotto(&["doctor", "--path", d], &env);
    assert!(
        text(&text_doc.stdout).contains("k_r"),
        "{}",
        text(&text_doc.stdout)
    );

    let g = small_graph(dir.path());
    let b = json(&grotto(
        &[
            "bench",
            "io",
            &g,
            "--qd",
            "4",
            "--size",
            "merge",
            "--seconds",
            "0.1",
            "--json",
        ],
        &env,
    ));
    assert!(b["profile"].as_str().unwrap().contains(saved), "{b}");
    let res = b["results"].as_array().unwrap();
    assert_eq!(res.len(), 2);
    assert_eq!(
        res[0]["size"].as_u64().unwrap(),
        v["merge_bytes"].as_u64().unwrap()
    );
    assert!(res.iter().all(|r| r["iops"].as_f64().unwrap() > 0.0));

    // A profile that says k_r 8 and 16 KiB merges: runs keep 32 reads in
    // flight and merge up to 128 KiB all the same; an explicit
    // --concurrency is taken as given.
    let mut low: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(saved).unwrap()).unwrap();
    low["k_r"] = serde_json::json!(8);
    low["merge_bytes"] = serde_json::json!(16384);
    std::fs::write(saved, low.to_string()).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "bfs", &g, "--json"];
        args.extend_from_slice(extra);
        json(&grotto(&args, &env))
    };
    assert_eq!(run(&[])["metrics"]["concurrency"].as_u64(), Some(32));
    assert_eq!(
        run(&["--concurrency", "8"])["metrics"]["concurrency"].as_u64(),
        Some(8)
    );
    let said = grotto(&["run", "bfs", &g], &env);
    assert!(
        text(&said.stderr).contains("engines: 32 reads in flight, merges up to 128 KiB"),
        "{}",
        text(&said.stderr)
    );
}

#[test]
fn missing_io_uring_falls_back_once_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let g = small_graph(dir.path());
    let env = [
        ("GROTTO_SIMULATE_NO_URING", "EPERM"),
        ("GROTTO_PROFILE_DIR", dir.path().to_str().unwrap()),
    ];
    let o = grotto(&["bench", "io", &g, "--qd", "8", "--seconds", "0.1"], &env);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert_eq!(err.matches("io_uring unavailable").count(), 1, "{err}");
    assert!(err.contains("kernel.io_uring_disabled"), "{err}");
    assert!(
        text(&o.stdout).contains("backend pread"),
        "{}",
        text(&o.stdout)
    );
    let o = grotto(
        &["bench", "io", &g, "--io", "uring", "--seconds", "0.1"],
        &env,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("io_uring is unavailable"),
        "{}",
        text(&o.stderr)
    );
    let doc = grotto(
        &["doctor", "--path", dir.path().to_str().unwrap()],
        &[("GROTTO_SIMULATE_NO_URING", "ENOSYS")],
    );
    let out = text(&doc.stdout);
    assert!(
        out.contains("UNAVAILABLE") && out.contains("seccomp"),
        "{out}"
    );
    // Quiet means quiet, even for the fallback note.
    let o = grotto(&["bench", "io", &g, "--seconds", "0.05", "-q"], &env);
    assert!(o.status.success() && o.stderr.is_empty() && o.stdout.is_empty());
}

#[test]
fn pool_bench_reports_lookups() {
    let dir = tempfile::tempdir().unwrap();
    let g = small_graph(dir.path());
    for order in ["random", "seq"] {
        let v = json(&grotto(
            &[
                "bench",
                "pool",
                &g,
                "--seconds",
                "0.2",
                "--order",
                order,
                "--threads",
                "2",
                "--json",
            ],
            &[],
        ));
        assert!(
            v["lookups_per_second_per_thread"].as_f64().unwrap() > 1e5,
            "{v}"
        );
        assert_eq!(v["misses_during_run"].as_u64().unwrap(), 0);
    }
}

#[test]
fn refused_arguments_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let g = small_graph(dir.path());
    let o = grotto(&["bench", "io", &g, "--size", "5000"], &[]);
    assert!(
        !o.status.success() && text(&o.stderr).contains("multiple of 4 KiB"),
        "{}",
        text(&o.stderr)
    );
    let o = grotto(&["profile", "--quick", "--repeats", "0"], &[]);
    assert!(
        !o.status.success() && text(&o.stderr).contains("between 1 and 20"),
        "{}",
        text(&o.stderr)
    );
    let o = grotto(&["profile", "--quick", "--plot", "x.png"], &[]);
    assert!(
        !o.status.success() && text(&o.stderr).contains(".svg"),
        "{}",
        text(&o.stderr)
    );
    let o = grotto(&["bench", "io", &g, "--io", "carrier-pigeon"], &[]);
    assert!(
        !o.status.success() && text(&o.stderr).contains("auto, uring, pread or memory"),
        "{}",
        text(&o.stderr)
    );
    let missing = dir.path().join("nope.grotto");
    let o = grotto(&["bench", "pool", missing.to_str().unwrap()], &[]);
    // A missing input is the user's to fix: exit 2.
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("nope.grotto"));
}

#[test]
fn decode_bench_reports_each_block_kind() {
    let dir = tempfile::tempdir().unwrap();
    let g = small_graph(dir.path());
    let v = json(&grotto(
        &["bench", "decode", &g, "--seconds", "0.2", "--json"],
        &[],
    ));
    assert_eq!(v["encoding"], "packed", "{v}");
    let all = v["ids_per_second"].as_f64().unwrap();
    assert!(all > 1e6, "{v}");
    let short = &v["short_list_blocks"];
    assert!(short["ids_per_second"].as_f64().unwrap() > 1e6, "{v}");
    // Every id of a pass is in a block of one kind or the other.
    let per_pass = v["ids"].as_u64().unwrap() / v["passes"].as_u64().unwrap();
    let long = v["long_list_blocks"]["ids_per_pass"].as_u64().unwrap_or(0);
    assert_eq!(
        short["ids_per_pass"].as_u64().unwrap() + long,
        per_pass,
        "{v}"
    );
    // Lists of one or two ids live in the index, so a piece in a block
    // holds at least three.
    let pieces = short["pieces_per_pass"].as_u64().unwrap();
    assert!(
        pieces > 0 && 3 * pieces <= short["ids_per_pass"].as_u64().unwrap(),
        "{v}"
    );
}
