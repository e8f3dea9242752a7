//! A structured fuzzer for text inputs: valid edge lists, adjacency lists
//! and Matrix Market files are mutated (bytes inserted, deleted and
//! flipped, NULs, control bytes, carriage returns, byte-order marks, huge
//! numbers, lines duplicated, cut or truncated) and converted on both
//! build paths. Whatever the mutation:
//!
//! - nothing panics;
//! - an error quotes no raw control byte, and a parse error names a line
//!   and a column of at least 1;
//! - a success gives a file that opens and checks, and when the input was
//!   read as a plain edge list its edges are exactly those a reference
//!   reading of the same text finds (so no mutation yields a silently
//!   different graph).
//!
//! CI runs `GROTTO_FUZZ_CASES` cases (default 300, a few seconds); run it
//! longer with `GROTTO_FUZZ_CASES=100000 cargo test --release -p grotto
//! --test fuzz_text`.

use grotto::export::{export, ExportFormat};
use grotto::ingest::{convert, ConvertOptions, Format, Input};
use grotto::store::Graph;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::collections::BTreeSet;

fn cases() -> u32 {
    std::env::var("GROTTO_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// A valid input of one of the three formats.
fn base() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((0u64..60, 0u64..60), 1..80),
        0usize..3,
        any::<bool>(),
    )
        .prop_map(|(edges, kind, crlf)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut s = String::new();
            match kind {
                0 => {
                    s.push_str(&format!("# vertices 60{eol}"));
                    for (u, v) in &edges {
                        s.push_str(&format!("{u} {v}{eol}"));
                    }
                }
                1 => {
                    for (i, (u, v)) in edges.iter().enumerate() {
                        s.push_str(&format!("{u} {v} {}{eol}", (i % 7) + 1));
                    }
                }
                _ => {
                    s.push_str(&format!(
                        "%%MatrixMarket matrix coordinate pattern general{eol}60 60 {}{eol}",
                        edges.len()
                    ));
                    for (u, v) in &edges {
                        s.push_str(&format!("{} {}{eol}", u + 1, v + 1));
                    }
                }
            }
            s.into_bytes()
        })
}

#[derive(Clone, Debug)]
enum Mutation {
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Flip(usize, u8),
    DuplicateLine(usize),
    Truncate(usize),
    Bom,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let bytes = prop::collection::vec(
        prop::sample::select(vec![
            0u8, b'\r', b'\n', 0x1b, b' ', b'\t', b',', b'#', b'%', b'-', b'.', b'e', b'9', b'x',
            0xff, 0xc3,
        ]),
        1..6,
    );
    prop_oneof![
        (any::<usize>(), bytes).prop_map(|(a, b)| Mutation::Insert(a, b)),
        (any::<usize>(), 1usize..20).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::Flip(a, b)),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        any::<usize>().prop_map(Mutation::Truncate),
        Just(Mutation::Bom),
        (
            any::<usize>(),
            prop::sample::select(vec![
                "99999999999999999999".to_string(),
                "4294967295".to_string(),
                "18446744073709551615".to_string(),
                " 1 2 3 4".to_string(),
            ])
        )
            .prop_map(|(a, s)| Mutation::Insert(a, s.into_bytes())),
    ]
}

fn apply(text: &mut Vec<u8>, m: &Mutation) {
    let at = |a: usize, len: usize| if len == 0 { 0 } else { a % (len + 1) };
    match m {
        Mutation::Insert(a, b) => {
            let i = at(*a, text.len());
            text.splice(i..i, b.iter().copied());
        }
        Mutation::Delete(a, n) => {
            let i = at(*a, text.len());
            let j = (i + n).min(text.len());
            text.drain(i..j);
        }
        Mutation::Flip(a, b) => {
            if !text.is_empty() {
                let i = a % text.len();
                text[i] = *b;
            }
        }
        Mutation::DuplicateLine(a) => {
            let lines: Vec<&[u8]> = text.split_inclusive(|&c| c == b'\n').collect();
            if !lines.is_empty() {
                let l = lines[a % lines.len()].to_vec();
                let i = at(*a, text.len());
                let i = text[..i]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |p| p + 1);
                text.splice(i..i, l);
            }
        }
        Mutation::Truncate(a) => {
            let i = at(*a, text.len());
            text.truncate(i);
        }
        Mutation::Bom => {
            text.splice(0..0, [0xEF, 0xBB, 0xBF]);
        }
    }
}

/// The edges a plain reading of an unweighted edge list finds: every
/// line that is not a comment or blank holds two ids.
fn reference_edges(text: &[u8]) -> Option<BTreeSet<(u64, u64)>> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut out = BTreeSet::new();
    for line in text.split(|&c| c == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let s = std::str::from_utf8(line).ok()?;
        let t = s.trim_start_matches([' ', '\t', ',']);
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') {
            continue;
        }
        let toks: Vec<&str> = s
            .split([' ', '\t', ','])
            .filter(|x| !x.is_empty())
            .collect();
        if toks.len() != 2 {
            return None;
        }
        let (u, v): (u64, u64) = (toks[0].parse().ok()?, toks[1].parse().ok()?);
        if u != v {
            out.insert((u, v));
        }
    }
    Some(out)
}

fn exported(g: &Graph) -> BTreeSet<(u64, u64)> {
    let mut out = Vec::new();
    export(
        g,
        ExportFormat::EdgeList,
        &mut out,
        std::path::Path::new("x"),
    )
    .expect("export");
    String::from_utf8(out)
        .expect("utf-8")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut it = l.split(' ').map(|x| x.parse::<u64>().expect("id"));
            (it.next().expect("u"), it.next().expect("v"))
        })
        .collect()
}

#[test]
fn mutated_text_never_panics_nor_converts_to_a_different_graph() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    // Errors, successes, successes checked against the reference.
    let stats: [std::cell::Cell<u32>; 3] = Default::default();
    let bump = |i: usize| stats[i].set(stats[i].get() + 1);
    let strategy = (
        base(),
        prop::collection::vec(mutation(), 1..4),
        any::<bool>(),
    );
    runner
        .run(&strategy, |(mut text, muts, external)| {
            for m in &muts {
                apply(&mut text, m);
            }
            let input = dir.path().join("in.txt");
            let out = dir.path().join("out.grotto");
            let _ = std::fs::remove_file(&out);
            std::fs::write(&input, &text).expect("write");
            let opts = ConvertOptions {
                force_external: external,
                memory_bytes: if external { Some(1 << 20) } else { None },
                allow_empty: true,
                threads: 2,
                ..ConvertOptions::default()
            };
            let r = std::panic::catch_unwind(|| convert(&Input::path(&input), &out, &opts));
            let r = match r {
                Ok(r) => r,
                Err(_) => {
                    return Err(TestCaseError::fail(format!(
                        "panic on {:?}",
                        String::from_utf8_lossy(&text)
                    )))
                }
            };
            match r {
                Err(e) => {
                    bump(0);
                    let msg = e.to_string();
                    prop_assert!(
                        !msg.bytes().any(|c| c < 0x20 && c != b'\n'),
                        "raw control byte in {msg:?}"
                    );
                    if let grotto::Error::Parse { line, column, .. } = e {
                        prop_assert!(line >= 1 && column >= 1, "{msg}");
                    }
                    prop_assert!(!out.exists(), "an error left {out:?}");
                }
                Ok(rep) => {
                    bump(1);
                    let g = Graph::open(&out).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    g.verify_all_blocks()
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                    if rep.format == Some(Format::EdgeList) && !rep.weighted {
                        if let Some(want) = reference_edges(&text) {
                            bump(2);
                            prop_assert_eq!(
                                exported(&g),
                                want,
                                "{:?}",
                                String::from_utf8_lossy(&text)
                            );
                        }
                    }
                }
            }
            Ok(())
        })
        .expect("fuzz");
    let [errors, converted, checked] = stats.map(|c| c.get());
    eprintln!(
        "fuzz_text: {} cases: {errors} refused with an error, {converted} converted, {checked} of those checked edge for edge",
        cases()
    );
    assert!(errors > 0 && converted > 0 && checked > 0);
}
