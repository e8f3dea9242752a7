//! Tests of the text parsers and the parallel driver.
use super::*;

#[derive(Default)]
struct Collect(Vec<(u64, u64, f32)>, Vec<u64>);
impl EdgeSink for Collect {
    fn edge(&mut self, u: u64, v: u64, w: f32) -> bool {
        self.0.push((u, v, w));
        true
    }
    fn vertex(&mut self, u: u64) {
        self.1.push(u);
    }
}

#[test]
fn swar_digits_reads_every_length() {
    for k in 0..=8usize {
        let digits: String = "31415926".chars().take(k).collect();
        let mut bytes = [b' '; 8];
        bytes[..k].copy_from_slice(digits.as_bytes());
        let (n, v) = swar_digits(u64::from_le_bytes(bytes));
        assert_eq!(n, k);
        assert_eq!(v, digits.parse::<u64>().unwrap_or(0));
    }
    // Bytes next to the digit range are not digits.
    for c in [b'/', b':', b'0' + 0x10, b'0' | 0x80] {
        let mut bytes = [b'7'; 8];
        bytes[3] = c;
        assert_eq!(swar_digits(u64::from_le_bytes(bytes)), (3, 777));
    }
}

proptest::proptest! {
    /// The fast path accepts exactly the plain two-column lines and
    /// reads the same ids as the general parser.
    #[test]
    fn fast_path_agrees_with_the_general_parser(
        lines in proptest::collection::vec(
            (0u64..u64::MAX, 0usize..3, 0u32..20, proptest::sample::select(vec![" ", "\t", "  ", ",", " \t"]),
             proptest::sample::select(vec!["\n", "\r\n", " \n", "\t1.5\n"])), 1..40)
    ) {
        let mut text = String::new();
        let mut want = Vec::new();
        for (i, &(x, shift, lead0, sep, eol)) in lines.iter().enumerate() {
            let u = x >> (shift * 24);
            let v = (x.rotate_left(17)) >> (lead0 % 64);
            let zeros = "0".repeat((lead0 % 3) as usize);
            text.push_str(&format!("{zeros}{u}{sep}{v}{}", if eol.starts_with('\t') && i > 0 { "\n" } else { eol }));
            want.push((u, v, 1.0f32));
        }
        let mut sink = Collect::default();
        let stop = AtomicU64::new(u64::MAX);
        let o = parse_chunk(text.as_bytes(), &spec(Format::EdgeList, false), Ids::Integer, &mut sink, &stop);
        if lines[0].4.starts_with('\t') {
            proptest::prop_assert!(o.first_error.is_some());
        } else {
            proptest::prop_assert!(o.first_error.is_none(), "{:?}", o.first_error);
            proptest::prop_assert_eq!(sink.0, want);
            proptest::prop_assert_eq!(o.lines as usize, lines.len());
        }
    }
}

fn spec(format: Format, weighted: bool) -> ParseSpec {
    ParseSpec {
        format,
        weighted,
        ignore_weights: false,
        mtx: None,
        skip_invalid: false,
        csv: None,
    }
}

fn run(text: &str, s: &ParseSpec) -> (Collect, ChunkOutcome) {
    let mut c = Collect::default();
    let stop = AtomicU64::new(u64::MAX);
    let o = parse_chunk(text.as_bytes(), s, Ids::Integer, &mut c, &stop);
    (c, o)
}

#[test]
fn edge_lists_with_comments_tabs_crlf_and_commas() {
    let (c, o) = run(
        "# c\n1 2\r\n\t3\t4  \n\n% x\n5,6\n",
        &spec(Format::EdgeList, false),
    );
    assert!(o.first_error.is_none(), "{:?}", o.first_error);
    assert_eq!(c.0, vec![(1, 2, 1.0), (3, 4, 1.0), (5, 6, 1.0)]);
    assert_eq!(o.lines, 6);
}

#[test]
fn weights_and_their_absence() {
    let (c, o) = run("1 2 0.5\n3 4 -2e3\n", &spec(Format::EdgeList, true));
    assert!(o.first_error.is_none());
    assert_eq!(c.0, vec![(1, 2, 0.5), (3, 4, -2000.0)]);
    let (_, o) = run("1 2 0.5\n3 4\n", &spec(Format::EdgeList, true));
    let e = o.first_error.unwrap();
    assert_eq!((e.line, e.column), (1, 4));
    assert!(e.expected.contains("weight"));
}

#[test]
fn errors_name_column_and_text() {
    for (text, col, found) in [
        ("1 x\n", 3, "x"),
        ("-1 2\n", 1, "-1"),
        ("1 2 3\n", 5, "3"),
        ("1\n", 2, "end of line"),
        ("99999999999999999999 1\n", 1, "99999999999999999999"),
        ("1 2x\n", 3, "2x"),
    ] {
        let (_, o) = run(text, &spec(Format::EdgeList, false));
        let e = o
            .first_error
            .unwrap_or_else(|| panic!("no error for {text:?}"));
        assert_eq!(e.column, col, "{text:?}");
        assert_eq!(e.found, found, "{text:?}");
    }
}

#[test]
fn adjacency_lists() {
    let (c, o) = run("1 2 3 4\n5\n6 7\n", &spec(Format::AdjList, false));
    assert!(o.first_error.is_none());
    assert_eq!(c.0.len(), 4);
    assert_eq!(c.1, vec![1, 5, 6]);
}

#[test]
fn matrix_market_entries() {
    let h = MtxHeader {
        n: 3,
        nnz: 2,
        field: MtxField::Real,
        symmetric: false,
        size_line: 2,
    };
    let s = ParseSpec {
        mtx: Some(h),
        ..spec(Format::MatrixMarket, true)
    };
    let (c, o) = run("1 3 2.5\n3 3 1\n", &s);
    assert!(o.first_error.is_none());
    assert_eq!(c.0, vec![(0, 2, 2.5), (2, 2, 1.0)]);
    let (_, o) = run("4 1 1\n", &s);
    assert!(o.first_error.unwrap().expected.contains("row index"));
    let (_, o) = run("0 1 1\n", &s);
    assert!(o.first_error.is_some());
}
