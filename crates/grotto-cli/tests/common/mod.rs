//! What the update tests share: running grotto, reading its output and
//! reports, and small graphs made from text.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn grotto(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grotto"))
        .args(args)
        .output()
        .expect("run grotto")
}

pub fn p(x: &Path) -> &str {
    x.to_str().unwrap()
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
}

/// `body` written to `NAME.el` in `dir` and converted (with `extra`
/// arguments) to `NAME.grotto`.
pub fn text_graph(dir: &Path, name: &str, body: &str, extra: &[&str]) -> PathBuf {
    let el = dir.join(format!("{name}.el"));
    std::fs::write(&el, body).unwrap();
    let g = dir.join(format!("{name}.grotto"));
    let mut a = vec!["convert", p(&el), p(&g), "-q"];
    a.extend_from_slice(extra);
    ok(&grotto(&a));
    g
}

/// The `--json` report of a command that must succeed.
pub fn report(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    serde_json::from_str(&ok(&grotto(&a))).unwrap()
}

/// The counts `keys` of a report.
pub fn counts(r: &serde_json::Value, keys: &[&str]) -> Vec<u64> {
    keys.iter()
        .map(|k| r[*k].as_u64().unwrap_or(u64::MAX))
        .collect()
}

/// The edges `grotto export` gives, each undirected edge once.
pub fn exported(g: &Path) -> BTreeSet<(u64, u64)> {
    exported_lines(g).into_iter().collect()
}

/// Every line `grotto export` gives as an edge (smaller end first),
/// sorted: repeated edges (a graph that keeps duplicates) repeat.
pub fn exported_lines(g: &Path) -> Vec<(u64, u64)> {
    let out = ok(&grotto(&["export", p(g)]));
    let mut edges: Vec<(u64, u64)> = out
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut it = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            let (a, b) = (it.next().unwrap(), it.next().unwrap());
            (a.min(b), a.max(b))
        })
        .collect();
    edges.sort_unstable();
    edges
}
