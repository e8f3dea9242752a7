//! Tests of the in-memory delta: folding runs, patching pieces (with
//! weights) and lookups.

use super::*;
use proptest::prelude::*;

/// The merged list and its weights, by a map (deletes first).
fn naive(base: &[(u32, f32)], ins: &[(u32, f32)], del: &[u32]) -> Vec<(u32, f32)> {
    let mut s: std::collections::BTreeMap<u32, f32> = base.iter().copied().collect();
    for d in del {
        assert!(s.remove(d).is_some());
    }
    for &(i, w) in ins {
        assert!(s.insert(i, w).is_none());
    }
    s.into_iter().collect()
}

proptest! {
    #[test]
    fn pieces_partition_the_merged_list(
        set in proptest::collection::btree_set(0u32..2000, 1..300),
        pieces in 1usize..6,
        ops in proptest::collection::vec((0u32..2100, 0u8..3), 0..200),
        at in 0usize..9,
    ) {
        let base: Vec<(u32, f32)> = set.iter().map(|&x| (x, x as f32 * 0.5)).collect();
        // Split the base into `pieces` runs; fences are their first ids.
        let step = base.len().div_ceil(pieces).max(1);
        let runs: Vec<&[(u32, f32)]> = base.chunks(step).collect();
        let fences: Vec<u32> = runs[1..].iter().map(|r| r[0].0).collect();
        // Inserts of absent ids, deletes of present ones, and present
        // ones deleted and inserted again (a new weight).
        let mut ins = Vec::new();
        let mut del = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (x, op) in ops {
            if !seen.insert(x) || op == 0 { continue; }
            if !set.contains(&x) {
                ins.push((x, x as f32 + 1000.0));
                continue;
            }
            del.push(x);
            if op == 2 {
                ins.push((x, -(x as f32)));
            }
        }
        ins.sort_unstable_by_key(|p| p.0);
        del.sort_unstable();
        let want = naive(&base, &ins, &del);
        let (ins_ids, ins_w): (Vec<u32>, Vec<f32>) = ins.iter().copied().unzip();
        let (mut got, mut got_w) = (Vec::new(), Vec::new());
        let mut first = 0u64;
        for (k, r) in runs.iter().enumerate() {
            // The piece lies `at` ids into the buffer, after other ids
            // that must be left alone, and is followed by more; the
            // same piece is patched with and without its weights.
            let mut buf = vec![u32::MAX; at];
            buf.extend(r.iter().map(|p| p.0));
            buf.extend_from_slice(&[7, 7, 7]);
            let mut plain = buf.clone();
            let mut wbuf: Vec<f32> = r.iter().map(|p| p.1).collect();
            wbuf.push(f32::NAN);
            let weights = PieceWeights { buf: &mut wbuf, ins: &ins_w };
            let pos = patch_piece(
                &mut buf, at, r.len(), first, k, &fences, &ins_ids, &del, Some(weights),
            ).unwrap();
            let pos2 = patch_piece(
                &mut plain, at, r.len(), first, k, &fences, &ins_ids, &del, None,
            ).unwrap();
            prop_assert_eq!(pos, got.len() as u64);
            prop_assert_eq!(pos2, pos);
            prop_assert_eq!(&plain, &buf);
            prop_assert!(buf[..at].iter().all(|&x| x == u32::MAX));
            prop_assert_eq!(wbuf.len(), buf.len() - at);
            got.extend_from_slice(&buf[at..]);
            got_w.extend_from_slice(&wbuf);
            first += r.len() as u64;
        }
        let want_ids: Vec<u32> = want.iter().map(|p| p.0).collect();
        let want_w: Vec<f32> = want.iter().map(|p| p.1).collect();
        prop_assert_eq!(got, want_ids);
        prop_assert_eq!(got_w, want_w);
    }

    #[test]
    fn folding_nets_out(ops in proptest::collection::vec((0u64..40, any::<bool>()), 0..200)) {
        // Apply ops one batch at a time to a set, folding effective ops.
        let base: std::collections::BTreeSet<u64> = (0..40).filter(|k| k % 3 == 0).collect();
        let mut now = base.clone();
        let mut net = NetOps::default();
        for chunk in ops.chunks(7) {
            let mut b = NetOps::default();
            let mut seen = std::collections::BTreeSet::new();
            for &(k, ins) in chunk {
                if !seen.insert(k) { continue; }
                if ins && !now.contains(&k) { b.ins.push(k) }
                if !ins && now.contains(&k) { b.del.push(k) }
            }
            b.ins.sort_unstable();
            b.del.sort_unstable();
            for k in &b.ins { now.insert(*k); }
            for k in &b.del { now.remove(k); }
            net = net.fold(&b).unwrap();
        }
        let want_ins: Vec<u64> = now.difference(&base).copied().collect();
        let want_del: Vec<u64> = base.difference(&now).copied().collect();
        prop_assert_eq!(net.ins, want_ins);
        prop_assert_eq!(net.del, want_del);
    }

    #[test]
    fn folding_keeps_the_last_weight(
        ops in proptest::collection::vec((0u64..40, 0u8..3, 0u8..8), 0..200),
    ) {
        // Inserts (with a weight), deletes and new weights, one batch
        // at a time, against a weighted base.
        let base: std::collections::BTreeMap<u64, f32> =
            (0..40).filter(|k| k % 3 == 0).map(|k| (k, k as f32)).collect();
        let mut now = base.clone();
        let mut deleted = std::collections::BTreeSet::new();
        let mut net = NetOps::default();
        for chunk in ops.chunks(7) {
            let mut ins = Vec::new();
            let mut del = Vec::new();
            let mut seen = std::collections::BTreeSet::new();
            for &(k, op, w) in chunk {
                if !seen.insert(k) { continue; }
                let w = w as f32 + 0.5;
                match (op, now.contains_key(&k)) {
                    (0, false) => ins.push((k, w)),
                    (1, true) => del.push(k),
                    (2, true) => {
                        del.push(k);
                        ins.push((k, w));
                    }
                    _ => {}
                }
            }
            ins.sort_unstable_by_key(|p| p.0);
            del.sort_unstable();
            for k in &del {
                now.remove(k);
                deleted.insert(*k);
            }
            for &(k, w) in &ins {
                now.insert(k, w);
            }
            let (ins, ins_w) = ins.into_iter().unzip();
            net = net.fold(&NetOps { ins, del, ins_w }).unwrap();
        }
        // A base arc ever deleted and there now was given a new weight.
        let renewed = |k: &u64| base.contains_key(k) && deleted.contains(k);
        let want_ins: Vec<(u64, f32)> = now
            .iter()
            .filter(|(k, _)| !base.contains_key(k) || renewed(k))
            .map(|(&k, &w)| (k, w))
            .collect();
        let want_del: Vec<u64> = base
            .keys()
            .filter(|k| !now.contains_key(k) || renewed(k))
            .copied()
            .collect();
        let got: Vec<(u64, f32)> = net.ins.iter().copied().zip(net.ins_w.iter().copied()).collect();
        prop_assert_eq!(net.ins.len(), net.ins_w.len());
        prop_assert_eq!(got, want_ins);
        prop_assert_eq!(net.del, want_del);
    }
}

#[test]
fn patch_detects_contradictions() {
    let mut b = vec![1, 5, 9];
    assert!(patch_piece(&mut b, 0, 3, 0, 0, &[], &[5], &[], None).is_err());
    let mut b = vec![1, 5, 9];
    assert!(patch_piece(&mut b, 0, 3, 0, 0, &[], &[], &[4], None).is_err());
    let mut b = vec![1, 5, 9];
    assert!(patch_piece(&mut b, 0, 3, 0, 0, &[], &[], &[10], None).is_err());
    let mut b = vec![1, 5, 9];
    assert_eq!(
        patch_piece(&mut b, 0, 3, 0, 0, &[], &[0, 6], &[5], None),
        Ok(0)
    );
    assert_eq!(b, vec![0, 1, 6, 9]);
    // An insert without its weight is refused.
    let (mut b, mut w) = (vec![1, 5, 9], vec![1.0, 5.0, 9.0]);
    let weights = PieceWeights {
        buf: &mut w,
        ins: &[],
    };
    assert!(patch_piece(&mut b, 0, 3, 0, 0, &[], &[6], &[], Some(weights)).is_err());
    // A deleted and inserted id takes its new weight.
    let (mut b, mut w) = (vec![1, 5, 9], vec![1.0, 5.0, 9.0]);
    let weights = PieceWeights {
        buf: &mut w,
        ins: &[0.5, 2.5],
    };
    assert_eq!(
        patch_piece(&mut b, 0, 3, 0, 0, &[], &[0, 5], &[5], Some(weights)),
        Ok(0)
    );
    assert_eq!((b, w), (vec![0, 1, 5, 9], vec![0.5, 1.0, 2.5, 9.0]));
}

#[test]
fn lookups_across_parts() {
    // Vertices over four parts; changes everywhere, the part edges
    // included; even vertices' lists are on disk (those divisible by
    // 6 span three blocks), odd ones empty.
    let n = 3 * PART_WORDS as u64 * 64 + 70;
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let edges = [
        0,
        63,
        64,
        PART_WORDS as u64 * 64 - 1,
        PART_WORDS as u64 * 64,
        n - 1,
    ];
    let mut touched: Vec<u64> = (0..20_000).map(|_| next() % n).chain(edges).collect();
    touched.sort_unstable();
    touched.dedup();
    let (mut ins, mut del) = (Vec::new(), Vec::new());
    for &v in &touched {
        ins.push(key(v as u32, 7));
        ins.push(key(v as u32, 9));
        if v % 2 == 0 {
            del.push(key(v as u32, 3));
        }
    }
    let fences: Vec<(u32, Vec<u32>)> = touched
        .iter()
        .filter(|&&v| v % 6 == 0)
        .map(|&v| (v as u32, vec![v as u32, v as u32 + 1]))
        .collect();
    let on_disk = |v: u32| {
        v.is_multiple_of(2)
            .then_some((if v.is_multiple_of(6) { 3 } else { 1 }, 10))
    };
    let d = Delta::build(n, &ins, &del, &[], on_disk, |_| ([0, 0], 0), &fences).unwrap();
    assert_eq!(d.changed(), touched.len() as u64);
    let mut t = touched.iter().peekable();
    for v in 0..n as u32 {
        let hit = t.next_if(|&&x| x == v as u64).is_some();
        match (hit, d.get(v)) {
            (false, None) => {}
            (true, Some(Change::Patch { ins, del, .. })) if v % 2 == 0 => {
                assert_eq!((ins, del), (&[7, 9][..], &[3][..]), "{v}");
                let f = if v % 6 == 0 { vec![v, v + 1] } else { vec![] };
                assert_eq!(d.fences(v), &f[..], "{v}");
            }
            (true, Some(Change::Replace(l, _))) if v % 2 == 1 => assert_eq!(l, &[7, 9], "{v}"),
            (h, c) => panic!("vertex {v}: touched {h}, {c:?}"),
        }
    }
    // A key past the last vertex is refused, in any part.
    let bad = vec![key(n as u32, 1)];
    assert!(Delta::build(n, &bad, &[], &[], on_disk, |_| ([0, 0], 0), &[]).is_err());
}

#[test]
fn lookups_and_replacements() {
    let ops = NetOps {
        ins: vec![key(1, 7), key(3, 2), key(3, 4), key(70, 1)],
        del: vec![key(1, 2), key(3, 9)],
        ins_w: vec![],
    };
    let d = Delta::build(
        100,
        &ops.ins,
        &ops.del,
        &[],
        |v| (v == 1).then_some((1, 5)),
        |v| if v == 3 { ([9, 0], 1) } else { ([0, 0], 0) },
        &[],
    )
    .unwrap();
    assert_eq!(d.changed(), 3);
    assert!(d.get(0).is_none() && d.get(2).is_none() && d.get(99).is_none());
    match d.get(1) {
        Some(Change::Patch { ins, del, .. }) => assert_eq!((ins, del), (&[7][..], &[2][..])),
        c => panic!("{c:?}"),
    }
    match d.get(3) {
        Some(Change::Replace(l, _)) => assert_eq!(l, &[2, 4]),
        c => panic!("{c:?}"),
    }
    match d.get(70) {
        Some(Change::Replace(l, _)) => assert_eq!(l, &[1]),
        c => panic!("{c:?}"),
    }
    // A delete of an id a small list lacks is refused.
    let bad = NetOps {
        ins: vec![],
        del: vec![key(3, 8)],
        ins_w: vec![],
    };
    assert!(Delta::build(10, &bad.ins, &bad.del, &[], |_| None, |_| ([9, 0], 1), &[]).is_err());
    // Weighted: a patch carries its inserts' weights (a new weight is
    // a delete and an insert of one id), a replacement its list's.
    let (ins, del) = (vec![key(1, 2), key(1, 7), key(4, 3)], vec![key(1, 2)]);
    let d = Delta::build(
        9,
        &ins,
        &del,
        &[0.5, 7.5, 3.5],
        |v| (v == 1).then_some((1, 5)),
        |_| ([0, 0], 0),
        &[],
    )
    .unwrap();
    match d.get(1) {
        Some(Change::Patch { ins, del, ins_w }) => {
            assert_eq!((ins, del, ins_w), (&[2, 7][..], &[2][..], &[0.5, 7.5][..]))
        }
        c => panic!("{c:?}"),
    }
    match d.get(4) {
        Some(Change::Replace(l, w)) => assert_eq!((l, w), (&[3][..], &[3.5][..])),
        c => panic!("{c:?}"),
    }
}

#[test]
fn folding_refuses_inserts_without_weights() {
    // A run without weights after one with them (a forged file) would
    // otherwise hand one arc another's weight.
    let plain = NetOps {
        ins: vec![key(1, 2)],
        del: vec![],
        ins_w: vec![],
    };
    let weighted = NetOps {
        ins: vec![key(1, 3)],
        del: vec![],
        ins_w: vec![7.0],
    };
    assert!(plain.fold(&weighted).is_err());
    assert!(weighted.fold(&plain).is_err());
    let short = NetOps {
        ins: vec![key(1, 3), key(1, 4)],
        del: vec![],
        ins_w: vec![7.0],
    };
    assert!(NetOps::default().fold(&short).is_err());
    assert!(weighted.fold(&NetOps::default()).is_ok());
}
