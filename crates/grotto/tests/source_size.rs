//! No Rust source file in the workspace grows past 800 lines: a file that
//! long is split along a seam a reader would name (STYLE.md). The same
//! check by hand: `find crates -name '*.rs' | xargs wc -l | sort -n | tail`.

use std::path::{Path, PathBuf};

/// The most lines a source file may have.
const MAX_LINES: usize = 800;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_source_file_is_over_800_lines() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    rust_files(&crates, &mut files);
    assert!(
        files.len() > 50,
        "found only {} .rs files under {}",
        files.len(),
        crates.display()
    );
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).ok()?.lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "split these along a seam a reader would name: {long:?}"
    );
}
