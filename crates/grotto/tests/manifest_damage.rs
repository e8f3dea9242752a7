//! A damaged manifest slot never silently shows an older commit. Every
//! byte of both slots is flipped, on graphs with one and with several
//! commits: the graph opens as its latest commit (the slots are mirrored,
//! so the other slot names it) and the damage is reported. On a file
//! whose slots hold different commits, as builds before the mirrored
//! slots left them, a damaged newer slot is reported as one that may
//! hide a commit; both slots damaged is an error.

mod common;

use common::{convert_edges, read_arcs, xorshift};
use grotto::store::format::{SectionKind, BLOCK_BYTES};
use grotto::store::update::GraphUpdate;
use grotto::store::Graph;
use std::path::Path;

/// Where the manifest section starts.
fn manifest_at(path: &Path) -> u64 {
    let g = Graph::open(path).expect("open");
    g.header()
        .sections
        .iter()
        .find(|s| s.kind == SectionKind::Manifest)
        .expect("a manifest section")
        .offset
}

fn commit_batch(path: &Path, seed: u64) {
    let mut up = GraphUpdate::open(path).expect("open for update");
    let mut x = seed;
    for _ in 0..30 {
        up.insert(xorshift(&mut x) % 300, xorshift(&mut x) % 300)
            .expect("insert");
        up.delete(xorshift(&mut x) % 300, xorshift(&mut x) % 300)
            .expect("delete");
    }
    up.commit().expect("commit");
}

fn flip(path: &Path, at: u64) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("open");
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, at).expect("read");
    b[0] ^= 0xA5;
    f.write_all_at(&b, at).expect("write");
}

fn random_edges(m: usize, seed: u64) -> Vec<(u64, u64)> {
    let mut x = seed;
    (0..m)
        .map(|_| (xorshift(&mut x) % 300, xorshift(&mut x) % 300))
        .collect()
}

#[test]
fn every_flipped_byte_of_either_slot_opens_the_latest_commit_and_is_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let edges = random_edges(2000, 3);
    for commits in [1u64, 3] {
        let path = convert_edges(dir.path(), &format!("g{commits}"), &edges, true, true);
        for c in 0..commits {
            commit_batch(&path, 11 + c);
        }
        let latest = read_arcs(&path).expect("arcs");
        let at = manifest_at(&path);
        let pristine = std::fs::read(&path).expect("read");
        let work = dir.path().join("work.grotto");
        std::fs::write(&work, &pristine).expect("copy");
        for slot in 0..2u64 {
            for byte in 0..BLOCK_BYTES as u64 {
                let pos = at + slot * BLOCK_BYTES as u64 + byte;
                flip(&work, pos);
                let g = Graph::open(&work).expect("one damaged slot still opens");
                assert_eq!(
                    g.updates().map(|u| u.commits),
                    Some(commits),
                    "slot {slot} byte {byte}: an older commit"
                );
                let f = g.slot_findings();
                assert_eq!(f.len(), 1, "slot {slot} byte {byte}: not reported");
                assert_eq!(f[0].slot as u64, slot);
                assert!(!f[0].may_hide_a_commit, "{}", f[0].text);
                assert!(f[0].text.contains("nothing is lost"), "{}", f[0].text);
                if byte % 512 == 0 {
                    assert_eq!(read_arcs(&work).expect("arcs"), latest);
                }
                flip(&work, pos);
            }
        }
        assert_eq!(std::fs::read(&work).expect("read"), pristine);

        // Both slots damaged: an error that names the manifest.
        flip(&work, at + 100);
        flip(&work, at + BLOCK_BYTES as u64 + 100);
        let e = Graph::open(&work).expect_err("both slots damaged");
        assert!(e.to_string().contains("both manifest slots"), "{e}");
    }
}

#[test]
fn a_damaged_newer_slot_of_unmirrored_slots_is_reported_as_hiding_a_commit() {
    use std::os::unix::fs::FileExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let edges = random_edges(2000, 5);
    let path = convert_edges(dir.path(), "legacy", &edges, true, true);
    commit_batch(&path, 21);
    let at = manifest_at(&path);
    let mut first = vec![0u8; BLOCK_BYTES];
    std::fs::File::open(&path)
        .expect("open")
        .read_exact_at(&mut first, at)
        .expect("read slot");
    commit_batch(&path, 22);
    // Slot 1 takes commit 1 back: slots that alternate, as older builds
    // wrote them (commit 2 in slot 0 only).
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("open")
        .write_all_at(&first, at + BLOCK_BYTES as u64)
        .expect("write slot");
    assert_eq!(
        Graph::open(&path)
            .expect("open")
            .updates()
            .map(|u| u.commits),
        Some(2)
    );
    for byte in (0..BLOCK_BYTES as u64).step_by(7) {
        flip(&path, at + byte);
        let g = Graph::open(&path).expect("opens");
        assert_eq!(g.updates().map(|u| u.commits), Some(1));
        let f = g.slot_findings();
        assert_eq!(f.len(), 1, "byte {byte}: not reported");
        assert!(f[0].may_hide_a_commit, "byte {byte}: {}", f[0].text);
        assert_eq!(g.warnings().len(), 1);
        flip(&path, at + byte);
    }
}
