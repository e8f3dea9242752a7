//! Structured fuzzing of `.grotto` files.
//!
//! A few small graphs are built with grotto's own `convert` (directed with
//! reverse edges, undirected with self loops and duplicates kept,
//! weighted, compacted sparse ids (these two renumbered in degree
//! order), a Matrix Market file with id base 1
//! and no inline or short lists, and a hub whose list needs the huge
//! table), then mutated copies go through what a user would run:
//! [`Graph::open`], [`Graph::verify_all_blocks`] (what `grotto check`
//! does), a digest of every adjacency list read back in user ids, and a
//! BFS from a fixed user id on the synchronous engine (block or vertex
//! mode) and on the asynchronous engine, all under `catch_unwind`.
//!
//! Mutations, one class each:
//!
//! * **bit flips**: 1 to 8 random bits anywhere in the file, no checksum
//!   fixed;
//! * **truncation**: the file cut at a random length or at a section edge;
//! * **header field**: one fixed field or section-table field (or a
//!   reserved word) set to a boundary value (0, 1, 2^32 - 1, 2^32,
//!   u64::MAX - 10, u64::MAX, the value +- 1, one bit flipped, another
//!   field's value, a random value), or any header byte's bit flipped,
//!   with the header CRC recomputed;
//! * **metadata**: bytes of the crc table, the tags, the huge table or a
//!   block map changed (bits, words set to boundary values), with that
//!   section's CRC in the header and the header CRC recomputed;
//! * **index**, **id map** and **order**: the same for the vertex index
//!   (entries rewritten as crafted inline, disk and huge entries, copied,
//!   swapped), for the id map and for the vertex order;
//! * **edge block** and **weight block**: slots of one block rewritten
//!   (other ids, boundary ids, swaps, bits; NaN, infinities and other
//!   bits for weights), with the block's CRC in the crc table, that
//!   table's CRC in the header and the header CRC recomputed;
//! * **id base**: the header's id base on a file without an id map,
//!   shifted (**IdBase**) or pushed so far that base + vertex count
//!   leaves u64 (**IdBaseOverflow**; header-field forgeries of the id
//!   base are classed the same way).
//!
//! # The rule
//!
//! No mutant may panic (or abort: that ends the test process) in any
//! step. Beyond that, the classes split in two:
//!
//! * **must be rejected or equal** (bit flips, truncation, header fields,
//!   crc table, tags, huge table, block maps, an id base that overflows):
//!   some step returns `Err`, or everything the pipeline sees (vertex and
//!   edge counts, every list and weight in user ids, both BFS depths per
//!   user id) equals the original's. Checksums catch the unforged ones; the opening checks
//!   (`docs/format.md`, "What opening checks") catch the forged ones,
//!   and a forgery that changes nothing grotto reads (a dropped-edge
//!   counter, an optional block map left out) must leave the result
//!   unchanged.
//! * **semantic** (index, id map, edge and weight blocks, the id base
//!   without an id map): these may describe a *different valid graph*
//!   that no check can tell from a real one (a list's ids replaced by
//!   other sorted ids with every CRC recomputed; user ids shifted by one).
//!   Each step must still end with `Ok` or `Err`; how many were rejected,
//!   equal or different is printed.
//!
//! The list digest and both BFS runs go ahead even when the check has
//! failed (users run algorithms without `grotto check`), so the engines
//! meet corrupt blocks too; they too must not panic.
//!
//! # Running it longer
//!
//! `GROTTO_FUZZ_CASES` sets the cases per class and graph (default 200;
//! the huge-list graph runs a tenth of them), `GROTTO_FUZZ_SEED` the seed
//! (default fixed, so CI is reproducible):
//!
//! ```text
//! GROTTO_FUZZ_CASES=5000 GROTTO_FUZZ_SEED=$RANDOM \
//!     cargo test --release -p grotto --test fuzz_graph -- --nocapture
//! ```
//!
//! A failure prints the seed, the graph and the mutation;
//! `GROTTO_FUZZ_VERBOSE=1` also prints every semantic mutant that was
//! accepted with a different result, `=2` every mutant accepted with an
//! equal one.

#[path = "fuzz_graph/mutations.rs"]
mod mutations;

use mutations::{mutate, Class};

use grotto::algo::bfs::{self, BfsConfig, BfsResult};
use grotto::cache::CacheSize;
use grotto::engine::{AsyncEngine, EngineConfig, Mode, SyncEngine};
use grotto::ingest::{convert, ConvertOptions, IdMode, Input, VertexOrder};
use grotto::io::IoOptions;
use grotto::rng::Rng;
use grotto::store::format::{Header, BLOCK_BYTES};
use grotto::store::layout::LayoutConfig;
use grotto::store::{BlockReader, Direction, Graph};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

const DEFAULT_CASES: u64 = 200;
const DEFAULT_SEED: u64 = 0x6772_6f74_746f;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(s) => s
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={s:?} is not a number")),
        Err(_) => default,
    }
}

// ---------------------------------------------------------------------
// The graphs.

/// One original graph file and what the pipeline gives for it.
struct Base {
    name: &'static str,
    bytes: Vec<u8>,
    header: Header,
    /// The BFS source, as a user id and as an internal id.
    source: u64,
    internal: u32,
    expect: Outcome,
    /// Cases per class are divided by this (the huge graph is slow).
    slow: u64,
}

fn write_text(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write input text");
    p
}

fn build(dir: &Path, name: &'static str, text: &str, opts: ConvertOptions, source: u64) -> Base {
    build_slow(dir, name, text, opts, source, 1)
}

fn build_slow(
    dir: &Path,
    name: &'static str,
    text: &str,
    opts: ConvertOptions,
    source: u64,
    slow: u64,
) -> Base {
    let input = write_text(dir, &format!("{name}.txt"), text);
    let out = dir.join(format!("{name}.grotto"));
    convert(&Input::path(&input), &out, &opts).expect("convert");
    std::fs::remove_file(&input).ok();
    let bytes = std::fs::read(&out).expect("read graph");
    let header = Graph::open(&out).expect("original opens").header().clone();
    let internal = Graph::open(&out)
        .and_then(|g| g.vertex_of(source))
        .expect("source");
    let expect = pipeline(&out, source, internal, Mode::Block, true)
        .unwrap_or_else(|e| panic!("{name}: the original fails: {e}"));
    // Both sync modes agree on the original.
    assert_eq!(
        pipeline(&out, source, internal, Mode::Vertex, false).expect("vertex mode"),
        expect
    );
    assert!(
        expect.bfs_sync.iter().filter(|x| x.1 != u32::MAX).count() > 1,
        "{name}: the source reaches nothing"
    );
    Base {
        name,
        bytes,
        header,
        source,
        internal,
        expect,
        slow,
    }
}

fn graphs(dir: &Path) -> Vec<Base> {
    let mut rng = Rng::new(17, 0);
    let mut out = Vec::new();

    // Directed with reverse edges: a hub whose out-list spans two blocks,
    // a vertex whose in-list does, random edges (inline, short and long
    // lists).
    let n = 3000;
    let mut t = String::new();
    for v in 1..=1500 {
        writeln!(t, "0 {v}").unwrap();
    }
    for u in 1..=1100 {
        writeln!(t, "{u} 2999").unwrap();
    }
    for _ in 0..4000 {
        writeln!(t, "{} {}", rng.below(n), rng.below(n)).unwrap();
    }
    let opts = ConvertOptions {
        reverse: true,
        order: VertexOrder::Degree,
        ..ConvertOptions::default()
    };
    out.push(build(dir, "directed-reverse-ordered", &t, opts, 0));

    // Undirected, self loops and duplicates kept.
    let n = 2000;
    let mut t = String::new();
    for v in 0..n - 1 {
        if v % 3 != 0 {
            writeln!(t, "{v} {}", v + 1).unwrap();
        }
    }
    for _ in 0..2500 {
        let u = rng.below(n);
        writeln!(t, "{u} {}", rng.below(n)).unwrap();
        if u.is_multiple_of(5) {
            writeln!(t, "{u} {u}").unwrap();
        }
        if u.is_multiple_of(7) {
            writeln!(t, "{u} {}", (u + 1) % n).unwrap();
        }
    }
    for v in 1..=1030 {
        writeln!(t, "5 {v}").unwrap();
    }
    let opts = ConvertOptions {
        undirected: true,
        keep_self_loops: true,
        keep_duplicates: true,
        ..ConvertOptions::default()
    };
    out.push(build(dir, "undirected-loops-multi", &t, opts, 5));

    // Weighted, directed, reverse edges.
    let n = 700;
    let mut t = String::new();
    for v in 2..=1101 {
        writeln!(t, "1 {} {}", v % n, 0.25 * (v % 13) as f32).unwrap();
    }
    for _ in 0..2500 {
        let w = 0.5 * rng.below(40) as f32 - 3.0;
        writeln!(t, "{} {} {w}", rng.below(n), rng.below(n)).unwrap();
    }
    let opts = ConvertOptions {
        weighted: Some(true),
        reverse: true,
        ..ConvertOptions::default()
    };
    out.push(build(dir, "weighted-reverse", &t, opts, 1));

    // Sparse ids beyond u32: compacted, with an id map; undirected.
    let id = |i: u64| 10_000_000_000 + i * 7919;
    let n = 1500;
    let mut t = String::new();
    for i in 0..n - 1 {
        writeln!(t, "{} {}", id(i), id(i + 1 + rng.below(3).min(n - 2 - i))).unwrap();
    }
    for _ in 0..2000 {
        writeln!(t, "{} {}", id(rng.below(n)), id(rng.below(n))).unwrap();
    }
    let opts = ConvertOptions {
        undirected: true,
        ids: IdMode::Auto,
        order: VertexOrder::Degree,
        ..ConvertOptions::default()
    };
    out.push(build(dir, "sparse-ids-ordered", &t, opts, id(0)));

    // Matrix Market (id base 1), directed, no inline lists, no short region.
    let n = 1200u64;
    let mut edges = Vec::new();
    for v in 2..=n {
        edges.push((1 + rng.below(v - 1), v));
    }
    for _ in 0..1500 {
        edges.push((1 + rng.below(n), 1 + rng.below(n)));
    }
    let mut t = String::from("%%MatrixMarket matrix coordinate pattern general\n");
    writeln!(t, "{n} {n} {}", edges.len()).unwrap();
    for (u, v) in &edges {
        writeln!(t, "{u} {v}").unwrap();
    }
    let opts = ConvertOptions {
        layout: LayoutConfig {
            inline_small: false,
            short_max: 0,
            ..LayoutConfig::default()
        },
        ..ConvertOptions::default()
    };
    out.push(build(dir, "mtx-base1", &t, opts, 1));

    // A hub with 2^22 + 5 out-entries (a huge-table row) over 1000
    // neighbours: duplicates kept, so the vertex count stays small.
    let entries = (1u64 << 22) + 5;
    let mut t = String::with_capacity(entries as usize * 7);
    for i in 0..entries {
        writeln!(t, "0 {}", 1 + i % 1000).unwrap();
    }
    for v in 1..40 {
        writeln!(t, "{v} {}", v + 1).unwrap();
    }
    let opts = ConvertOptions {
        keep_duplicates: true,
        ..ConvertOptions::default()
    };
    out.push(build_slow(dir, "huge-list", &t, opts, 0, 10));
    out
}

// ---------------------------------------------------------------------
// The pipeline.

/// Everything the pipeline sees of a graph, in user ids.
#[derive(Debug, PartialEq)]
struct Outcome {
    vertices: u64,
    edges: u64,
    directed: bool,
    weighted: bool,
    /// A hash of every list (and its weights) of every adjacency.
    lists: u64,
    bfs_sync: Vec<(u64, u32)>,
    bfs_async: Vec<(u64, u32)>,
}

fn mix(h: u64, x: u64) -> u64 {
    let mut s = h ^ x;
    grotto::rng::splitmix64(&mut s)
}

fn digest(g: &Graph) -> grotto::Result<u64> {
    let mut h = 0u64;
    let mut dirs = vec![Direction::Out];
    if g.inn().is_some() {
        dirs.push(Direction::In);
    }
    let (mut ids, mut ws) = (Vec::new(), Vec::new());
    for d in dirs {
        let mut r = BlockReader::new(g, d)?;
        h = mix(h, 0xd1);
        for v in 0..g.vertex_count() as u32 {
            r.neighbors(v, &mut ids, Some(&mut ws))?;
            h = mix(h, g.original_id(v));
            h = mix(h, ids.len() as u64);
            for &x in &ids {
                h = mix(h, g.original_id(x));
            }
            for &w in &ws {
                h = mix(h, w.to_bits() as u64);
            }
        }
    }
    Ok(h)
}

fn in_user_ids(g: &Graph, r: &BfsResult) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> = r
        .depth
        .iter()
        .enumerate()
        .map(|(i, d)| (g.original_id(i as u32), d))
        .collect();
    v.sort_unstable();
    v
}

/// Opens `path`, checks it, reads every list and runs BFS from user id
/// `source` (internal id `fallback` when no vertex has that id) on both
/// engines, `mode` for the synchronous one, with O_DIRECT or buffered
/// reads. The lists and the BFS are run even when the
/// check fails (a user may run an algorithm without `grotto check`); the
/// first error is the result.
fn pipeline(
    path: &Path,
    source: u64,
    fallback: u32,
    mode: Mode,
    direct: bool,
) -> Result<Outcome, String> {
    let g = Graph::open(path).map_err(|e| format!("open: {e}"))?;
    let checked = g.verify_all_blocks().map_err(|e| format!("check: {e}"));
    let lists = digest(&g).map_err(|e| format!("read: {e}"));
    let g = Arc::new(g);
    // A mutant whose ids moved still runs from the same internal vertex,
    // so that a wrong id is seen in the result, not hidden by the lookup.
    let s = g.vertex_of(source).unwrap_or(fallback);
    let cfg = EngineConfig {
        mode,
        cache: CacheSize::Bytes(16 * BLOCK_BYTES as u64),
        threads: 2,
        concurrency: 4,
        merge_bytes: 32 << 10,
        io: IoOptions {
            direct,
            ..IoOptions::default()
        },
    };
    let bc = BfsConfig {
        source: s,
        first_parents: false,
        direction: bfs::BfsDirection::Auto,
    };
    let sync = SyncEngine::open(Arc::clone(&g), cfg.clone())
        .and_then(|e| e.run(|r| bfs::run(r, &bc)))
        .map_err(|e| format!("sync bfs: {e}"));
    let asy = AsyncEngine::open(Arc::clone(&g), cfg)
        .and_then(|e| e.run(|r| bfs::run_async(r, &bc)))
        .map_err(|e| format!("async bfs: {e}"));
    checked?;
    Ok(Outcome {
        vertices: g.vertex_count(),
        edges: g.edge_count(),
        directed: g.directed(),
        weighted: g.weighted(),
        lists: lists?,
        bfs_sync: in_user_ids(&g, &sync?.0),
        bfs_async: in_user_ids(&g, &asy?.0),
    })
}

// ---------------------------------------------------------------------
// The run.

/// The file a graph's mutants are written to: only the bytes that differ
/// from the original are written, and put back after the case, so a
/// large graph costs little I/O per case.
struct Work {
    path: PathBuf,
    file: std::fs::File,
    /// Bytes of the original written over, from `dirty.0` to `dirty.1`,
    /// and whether the length changed.
    dirty: Option<(usize, usize)>,
}

impl Work {
    fn new(path: &Path, base: &Base) -> Work {
        std::fs::write(path, &base.bytes).expect("write work file");
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .expect("open work file");
        Work {
            path: path.to_path_buf(),
            file,
            dirty: None,
        }
    }

    /// Makes the file hold `bytes`.
    fn set(&mut self, base: &Base, bytes: &[u8]) {
        use std::os::unix::fs::FileExt;
        let orig = &base.bytes;
        // Put the last mutant's bytes back.
        if let Some((a, b)) = self.dirty.take() {
            self.file.set_len(orig.len() as u64).expect("set_len");
            self.file
                .write_all_at(&orig[a..b], a as u64)
                .expect("restore");
        }
        let common = orig.len().min(bytes.len());
        let end = orig.len().max(bytes.len());
        // First and last differing bytes (page by page, then byte by byte).
        let page = BLOCK_BYTES;
        let first = (0..common.div_ceil(page)).find(|&p| {
            let r = p * page..((p + 1) * page).min(common);
            orig[r.clone()] != bytes[r]
        });
        let a = match first {
            Some(p) => (p * page..)
                .find(|&i| orig[i] != bytes[i])
                .unwrap_or(common),
            None => common,
        };
        if a == end {
            return;
        }
        let b = if orig.len() != bytes.len() {
            end
        } else {
            let last = (0..common.div_ceil(page)).rev().find(|&p| {
                let r = p * page..((p + 1) * page).min(common);
                orig[r.clone()] != bytes[r]
            });
            last.map_or(a, |p| {
                let hi = ((p + 1) * page).min(common);
                (p * page..hi)
                    .rev()
                    .find(|&i| orig[i] != bytes[i])
                    .map_or(a, |i| i + 1)
            })
        };
        if bytes.len() < orig.len() {
            self.file.set_len(bytes.len() as u64).expect("truncate");
        }
        let stop = b.min(bytes.len());
        if a < stop {
            self.file
                .write_all_at(&bytes[a..stop], a as u64)
                .expect("write mutant");
        }
        self.dirty = Some((a, b.min(orig.len())));
    }
}

#[derive(Default)]
struct Counts {
    cases: u64,
    rejected: u64,
    equal: u64,
    different: u64,
    panicked: u64,
}

#[test]
fn mutated_graph_files_are_rejected_or_unchanged() {
    let cases = env_u64("GROTTO_FUZZ_CASES", DEFAULT_CASES);
    let seed = env_u64("GROTTO_FUZZ_SEED", DEFAULT_SEED);
    let verbose = env_u64("GROTTO_FUZZ_VERBOSE", 0);
    let t0 = Instant::now();
    let dir = tempfile::tempdir().expect("tempdir");
    let bases = graphs(dir.path());
    let built_s = t0.elapsed().as_secs_f64();
    let classes = [
        Class::BitFlip,
        Class::Truncate,
        Class::HeaderField,
        Class::Metadata,
        Class::Index,
        Class::IdMap,
        Class::Order,
        Class::EdgeBlock,
        Class::WeightBlock,
        Class::IdBase,
    ];
    let must_run = [Class::IdBaseOverflow];
    let mut counts: BTreeMap<Class, Counts> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut per_graph = String::new();
    for (gi, base) in bases.iter().enumerate() {
        let tg = Instant::now();
        let per_class = (cases / base.slow).max(2);
        let mut work = Work::new(
            &dir.path().join(format!("{}-mutant.grotto", base.name)),
            base,
        );
        for (ci, &class) in classes.iter().enumerate() {
            let mut rng = Rng::new(seed, (gi * 100 + ci) as u64);
            for case in 0..per_class {
                let Some(m) = mutate(base, class, &mut rng) else {
                    break;
                };
                work.set(base, &m.bytes);
                let mode = if rng.below(2) == 0 {
                    Mode::Block
                } else {
                    Mode::Vertex
                };
                // O_DIRECT reads flush the mutant's dirty pages first:
                // half the cases, and never on the slow graph.
                let direct = base.slow == 1 && rng.below(2) == 0;
                let r = catch_unwind(AssertUnwindSafe(|| {
                    pipeline(&work.path, base.source, base.internal, mode, direct)
                }));
                let c = counts.entry(m.class).or_default();
                c.cases += 1;
                let tag = || {
                    format!(
                        "seed {seed} graph {} class {:?} case {case}: {}",
                        base.name, m.class, m.what
                    )
                };
                match r {
                    Err(_) => {
                        c.panicked += 1;
                        failures.push(format!("PANIC {}", tag()));
                    }
                    Ok(Err(_)) => c.rejected += 1,
                    Ok(Ok(o)) if o == base.expect => {
                        c.equal += 1;
                        if verbose > 1 {
                            println!("accepted, equal: {}", tag());
                        }
                    }
                    Ok(Ok(o)) => {
                        c.different += 1;
                        if verbose > 0 {
                            println!("accepted, different: {}", tag());
                        }
                        if !m.class.semantic() {
                            failures.push(format!(
                                "ACCEPTED, DIFFERENT {} (vertices {} edges {} vs {} {})",
                                tag(),
                                o.vertices,
                                o.edges,
                                base.expect.vertices,
                                base.expect.edges
                            ));
                        }
                    }
                }
            }
        }
        write!(
            per_graph,
            " {} {:.1} s,",
            base.name,
            tg.elapsed().as_secs_f64()
        )
        .unwrap();
    }
    per_graph.pop();
    let mut report = format!(
        "graph-file fuzzer: seed {seed}, {cases} cases per class and graph, {} graphs \
         (built in {built_s:.1} s), {:.1} s in all:{per_graph}\n\
         {:<14} {:>9} {:>7} {:>8} {:>6} {:>10} {:>8}\n",
        bases.len(),
        t0.elapsed().as_secs_f64(),
        "class",
        "rule",
        "cases",
        "rejected",
        "equal",
        "different",
        "panicked"
    );
    for (class, c) in &counts {
        writeln!(
            report,
            "{:<14} {:>9} {:>7} {:>8} {:>6} {:>10} {:>8}",
            format!("{class:?}"),
            if class.semantic() {
                "semantic"
            } else {
                "rej/equal"
            },
            c.cases,
            c.rejected,
            c.equal,
            c.different,
            c.panicked
        )
        .unwrap();
    }
    println!("{report}");
    assert!(
        failures.is_empty(),
        "{} mutants broke the rule:\n{}\n{report}",
        failures.len(),
        failures.join("\n")
    );
    for class in classes.into_iter().chain(must_run) {
        assert!(
            counts.get(&class).is_some_and(|c| c.cases > 0),
            "class {class:?} never ran"
        );
    }
}
