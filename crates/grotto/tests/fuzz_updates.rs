//! Damaged and forged updates: byte flips in the manifest and the delta
//! runs of an updated file, and forgeries with every checksum recomputed.
//! Opening and reading never panic; a flip is refused or falls back to
//! an earlier committed version (a torn slot is indistinguishable from a
//! flipped one), and a forgery is refused or reads as some graph. The
//! files include graphs with an id map and with names whose runs carry
//! new ids and names.
//! `GROTTO_FUZZ_CASES` sets the cases per class (default 150).

mod common;

use common::{convert_keyed, convert_kind, read_arcs, xorshift, Keys, KINDS};
use grotto::store::update::GraphUpdate;

fn cases() -> u64 {
    std::env::var("GROTTO_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Where the manifest section starts.
fn manifest_at(b: &[u8]) -> usize {
    let n = u32_at(b, 80) as usize;
    (0..n)
        .find(|&i| u32_at(b, 96 + 40 * i) == 30)
        .map(|i| u64_at(b, 96 + 40 * i + 8) as usize)
        .expect("a manifest section")
}

/// Recomputes the CRC of slot `s` (after its fields were changed).
fn reseal_slot(b: &mut [u8], at: usize) {
    let crc = crc32c::crc32c(&b[at..at + 4092]);
    b[at + 4092..at + 4096].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn damaged_and_forged_updates_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut x = 3u64;
    let mut edges: Vec<(u64, u64)> = (0..3000)
        .map(|_| (xorshift(&mut x) % 400, xorshift(&mut x) % 400))
        .collect();
    edges.extend((1..1500).map(|i| (0, i * 2)));
    let n = cases();
    let keyed = [(KINDS[0], Keys::Compact), (KINDS[1], Keys::Names)];
    for (kind, keys) in KINDS.map(|k| (k, Keys::Dense)).into_iter().chain(keyed) {
        // A weighted graph's runs end with their inserts' weights.
        let weighted = kind.2;
        // Keyed graphs: ids in an id map (the base's even, so that new
        // ones fall between them), or names; their runs carry new keys.
        let base: Vec<(u64, u64)> = match keys {
            Keys::Compact => edges.iter().map(|&(a, b)| (2 * a, 2 * b)).collect(),
            _ => edges.clone(),
        };
        let g = if keys == Keys::Dense {
            convert_kind(dir.path(), "g", &base, kind)
        } else {
            convert_keyed(dir.path(), "g", &base, kind, keys)
        };
        let mut versions = Vec::new();
        for batch in 0..2 {
            let mut up = GraphUpdate::open(&g).unwrap();
            for _ in 0..300 {
                let e = base[(xorshift(&mut x) % base.len() as u64) as usize];
                let (a, b) = (xorshift(&mut x) % 3100, xorshift(&mut x) % 410 + batch);
                if keys == Keys::Names {
                    up.delete_named(&format!("v{}", e.0), &format!("v{}", e.1))
                        .unwrap();
                    up.insert_named(&format!("v{a}"), &format!("v{b}")).unwrap();
                    continue;
                }
                up.delete(e.0, e.1).unwrap();
                if weighted {
                    up.insert_weighted(a, b, (x % 50) as f32).unwrap();
                    let e = edges[(xorshift(&mut x) % edges.len() as u64) as usize];
                    up.set_weight(e.0, e.1, 0.5).unwrap();
                } else {
                    up.insert(a, b).unwrap();
                }
            }
            up.commit().unwrap();
            versions.push(read_arcs(&g).unwrap());
        }
        let good = std::fs::read(&g).unwrap();
        let m = manifest_at(&good);
        let bad = dir.path().join("bad.grotto");
        // The slot in force has the higher sequence number.
        let (cur, old) = if u64_at(&good, m + 8) > u64_at(&good, m + 4096 + 8) {
            (m, m + 4096)
        } else {
            (m + 4096, m)
        };
        let runs = u32_at(&good, cur + 20) as usize;
        assert_eq!(runs, 2);
        for case in 0..n {
            // Class 1: a flipped bit anywhere after the base.
            let mut b = good.clone();
            let at = m + (xorshift(&mut x) as usize % (b.len() - m));
            b[at] ^= 1 << (xorshift(&mut x) % 8);
            std::fs::write(&bad, &b).unwrap();
            match read_arcs(&bad) {
                Err(_) => {}
                Ok(s) => assert!(
                    versions.contains(&s),
                    "case {case}: a flip at byte {at} read as a third graph"
                ),
            }

            // Class 2: a forged run: bytes changed, its checksum and the
            // slot's recomputed.
            let mut b = good.clone();
            let r = (xorshift(&mut x) % runs as u64) as usize;
            let row = cur + 64 + 24 * r;
            let (off, len) = (u64_at(&b, row) as usize, u64_at(&b, row + 8) as usize);
            for _ in 0..1 + xorshift(&mut x) % 3 {
                let at = off + (xorshift(&mut x) as usize % len);
                b[at] = xorshift(&mut x) as u8;
            }
            let crc = crc32c::crc32c(&b[off..off + len]);
            b[row + 16..row + 20].copy_from_slice(&crc.to_le_bytes());
            reseal_slot(&mut b, cur);
            std::fs::write(&bad, &b).unwrap();
            let _ = read_arcs(&bad);

            // Class 3: a forged slot field (counts, run rows), resealed.
            let mut b = good.clone();
            let fields = [24usize, 32, 40, 20, 64, 72, 88, 96];
            let at = cur + fields[(xorshift(&mut x) % fields.len() as u64) as usize];
            let v = match xorshift(&mut x) % 3 {
                0 => xorshift(&mut x),
                1 => u64_at(&b, at).wrapping_add(1),
                _ => u64_at(&b, at).wrapping_sub(4096),
            };
            let w = if at == cur + 20 { 4 } else { 8 };
            b[at..at + w].copy_from_slice(&v.to_le_bytes()[..w]);
            reseal_slot(&mut b, cur);
            // Sometimes the older slot is gone too.
            if case % 2 == 0 {
                b[old..old + 4096].fill(0);
            }
            std::fs::write(&bad, &b).unwrap();
            let _ = read_arcs(&bad);
        }
    }
}
