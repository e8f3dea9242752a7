//! Tests of vertex names and of the map between user ids and vertices.
use super::*;
use proptest::prelude::*;

#[test]
fn sorted_table_finds_every_name_and_no_other() {
    let t = Names::from_unsorted(vec!["carol", "alice", "bob", "alice", "é", ""]).unwrap();
    assert_eq!(t.len(), 5);
    let all: Vec<&str> = (0..5).map(|v| t.get(v)).collect();
    assert_eq!(all, ["", "alice", "bob", "carol", "é"]);
    for v in 0..5 {
        assert_eq!(t.find(t.get(v).as_bytes()), Some(v));
    }
    assert_eq!(t.find(b"dave"), None);
    assert_eq!(t.find(b"alic"), None);
}

#[test]
fn ids_looked_up_at_once_are_those_looked_up_one_by_one() {
    use crate::testkit;
    // Dense ids in degree order (a vertex order, no id map), and
    // scattered ids (an id map) in degree order too.
    let scattered: Vec<(u64, u64)> = testkit::rmat_edges(8, 4, 3)
        .into_iter()
        .map(|(a, b)| (a * 7919 + 5, b * 7919 + 5))
        .collect();
    let graphs = [
        testkit::rmat_ordered(8, 4, 3),
        testkit::from_edges_with(
            &scattered,
            &crate::ingest::ConvertOptions {
                undirected: true,
                order: crate::ingest::VertexOrder::Degree,
                ..Default::default()
            },
        ),
    ];
    for t in &graphs {
        let g = &t.graph;
        let top = 300 * 7919;
        let ids: Vec<u64> = (0..300)
            .chain((0..300).map(|x| x * 7919 + 5))
            .chain((0..top).step_by(37))
            .chain([u64::MAX, 0, 5])
            .collect();
        let mut got = vec![0; ids.len()];
        g.vertices_of_ids(&ids, &mut got).unwrap();
        // Fewer ids than are sorted take the sampled search.
        let mut few = vec![0; 1000];
        g.vertices_of_ids(&ids[ids.len() - 1000..], &mut few)
            .unwrap();
        assert_eq!(few, got[ids.len() - 1000..]);
        let mut known = 0;
        for (&id, &v) in ids.iter().zip(&got) {
            // The map's rank of an id, as a plain search finds it.
            if let Some(m) = g.id_map() {
                let r = g.vertex_of(id).ok().map(|v| g.rank(v) as usize);
                assert_eq!(r, m.binary_search(&id).ok(), "id {id}");
            }
            match g.vertex_of(id) {
                Ok(want) => {
                    assert_eq!(v, want, "id {id}");
                    known += 1;
                }
                Err(_) => assert_eq!(v, VertexId::MAX, "id {id}"),
            }
        }
        assert!(known > 10 && known < ids.len(), "{known} of {}", ids.len());
    }
}

#[test]
fn non_utf8_names_are_refused() {
    assert!(Names::from_unsorted(vec![&b"ok"[..], &b"\xff"[..]]).is_err());
}

#[test]
fn corrupt_sections_are_named() {
    let t = Names::from_unsorted(vec!["a", "b", "c"]).unwrap();
    let p = Path::new("g.grotto");
    let good = t.encode();
    assert_eq!(Names::decode(&good, 3, p).unwrap(), t);
    // Swap two names: no longer increasing.
    let mut bad = good.clone();
    let at = bad.len() - 3;
    bad.swap(at, at + 1);
    let e = Names::decode(&bad, 3, p).unwrap_err().to_string();
    assert!(e.contains("increasing"), "{e}");
    // An offset past the end.
    let mut bad = good.clone();
    bad[8] = 200;
    assert!(Names::decode(&bad, 3, p).is_err());
    // Too short for the offsets.
    assert!(Names::decode(&good[..20], 3, p).is_err());
    // Not UTF-8.
    let mut bad = good;
    let at = bad.len() - 1;
    bad[at] = 0xff;
    assert!(Names::decode(&bad, 3, p).is_err());
}

proptest! {
    #[test]
    fn encode_decode_round_trip(names in proptest::collection::vec(".{0,12}", 0..60)) {
        let t = Names::from_unsorted(names.clone()).unwrap();
        let back = Names::decode(&t.encode(), t.len(), Path::new("x")).unwrap();
        prop_assert_eq!(&back, &t);
        for n in &names {
            let v = t.find(n.as_bytes()).unwrap();
            prop_assert_eq!(t.get(v), n.as_str());
        }
    }

    /// A table grown by new keys is the sorted union, each added key
    /// sits at its rank, the insertion points count the smaller old
    /// keys, and a key already there (or given twice) is refused.
    #[test]
    fn grown_tables_are_the_sorted_union(
        old in proptest::collection::btree_set("[a-d]{0,3}", 0..30),
        new in proptest::collection::vec("[a-d]{0,3}", 0..12),
    ) {
        let t = Names::from_unsorted(old.iter().cloned().collect()).unwrap();
        let ids: Vec<u64> = old.iter().map(|s| key_of(s)).collect();
        let new_ids: Vec<u64> = new.iter().map(|s| key_of(s)).collect();
        let mut seen = std::collections::BTreeSet::new();
        let fresh = new.iter().all(|s| !old.contains(s) && seen.insert(s.clone()));
        match (t.grown(&new), grown_ids(&ids, &new_ids), fresh) {
            (Ok((g, at, ranks)), Ok((m, at2, ranks2)), true) => {
                let mut all: Vec<String> = old.iter().chain(&new).cloned().collect();
                all.sort();
                prop_assert_eq!(&g, &Names::from_unsorted(all.clone()).unwrap());
                let keys: Vec<u64> = all.iter().map(|s| key_of(s)).collect();
                prop_assert_eq!(&m, &keys);
                prop_assert_eq!(&at, &at2);
                prop_assert_eq!(&ranks, &ranks2);
                prop_assert!(at.windows(2).all(|w| w[0] <= w[1]));
                for (i, s) in new.iter().enumerate() {
                    prop_assert_eq!(g.get(ranks[i]), s.as_str());
                    let below = old.iter().filter(|o| *o < s).count() as u32;
                    prop_assert!(at.contains(&below));
                }
            }
            (Err(i), Err(j), false) => {
                prop_assert_eq!(i, j);
                prop_assert!(old.contains(&new[i]) || new[..i].contains(&new[i]) || new[i + 1..].contains(&new[i]));
            }
            (a, b, f) => prop_assert!(false, "{:?} {:?} {}", a.is_ok(), b.is_ok(), f),
        }
    }
}

/// An integer key ordered as the text `s` is (short texts of a..d).
fn key_of(s: &str) -> u64 {
    s.bytes().fold(0u64, |k, b| k * 8 + (b - b'a' + 1) as u64) << (3 * (4 - s.len()))
}
