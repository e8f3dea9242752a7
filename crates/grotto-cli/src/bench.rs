//! `grotto bench`: measurements of grotto's own layers, to compare against
//! fio and against the device profile in the same run.

use crate::{parse_size, Ctx, SCHEMA_VERSION};
use clap::{Args, Subcommand, ValueEnum};
use grotto::cache::{BlockCache, Lookup};
use grotto::io::profile::measure_range;
use grotto::io::{BackendChoice, IoFile, IoOptions};
use grotto::setup::profile_for;
use grotto::store::codec::{TAG_PACKED, TAG_SPAN};
use grotto::store::{Direction, Graph};
use grotto::BlockId;
use serde::Serialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// `grotto bench` subcommands.
#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchKind,
}

#[derive(Subcommand)]
enum BenchKind {
    /// Random and sequential block reads through grotto's reader (O_DIRECT).
    Io(IoBenchArgs),
    /// Pinned lookups per second on a fully cached graph (the pool's hit path).
    Pool(PoolBenchArgs),
    /// Neighbour ids per second out of blocks in memory, through the decoder the engines use (one thread; the AVX2 kernel where the CPU has it, GROTTO_SIMD=off for the portable one).
    Decode(DecodeBenchArgs),
    /// The PIO/ACE thesis's buffer-pool experiment on a weighted graph: replacement policies plain, with ACE (dirty pages written k_w at once) and with ACE and prefetching, on the thesis's workloads (a scratch copy is written, never the graph).
    Ace(crate::bench_ace::AceBenchArgs),
}

#[derive(Args)]
struct DecodeBenchArgs {
    /// A .grotto file (its out-edge blocks are read into memory first).
    file: PathBuf,
    /// Seconds to measure (at most 3600).
    #[arg(long, default_value_t = 2.0, value_parser = seconds)]
    seconds: f64,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Pattern {
    Random,
    Seq,
    Both,
}

#[derive(Args)]
struct IoBenchArgs {
    /// A .grotto file (its out-edge block section is read) or any file (read whole).
    file: PathBuf,
    /// Requests in flight (1 to 4096).
    #[arg(long, default_value_t = 32, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))]
    qd: usize,
    /// Request size: a size like 4KiB, or "merge" for the device profile's merge size.
    #[arg(long, default_value = "4KiB")]
    size: String,
    /// Access pattern.
    #[arg(long, value_enum, default_value_t = Pattern::Both)]
    pattern: Pattern,
    /// Seconds per measurement (at most 3600).
    #[arg(long, default_value_t = 3.0, value_parser = seconds)]
    seconds: f64,
    /// I/O backend: auto, uring, pread, or memory (copies from RAM: what the code costs without the device).
    #[arg(long, default_value = "auto")]
    io: BackendChoice,
}

#[derive(Args)]
struct PoolBenchArgs {
    /// A .grotto file.
    file: PathBuf,
    /// Seconds to measure (at most 3600).
    #[arg(long, default_value_t = 2.0, value_parser = seconds)]
    seconds: f64,
    /// Order of the looked-up blocks: random, or sequential (each thread
    /// walking the blocks from its own starting point).
    #[arg(long, value_enum, default_value_t = KeyOrder::Random)]
    order: KeyOrder,
    /// Also read one byte of every pinned block (adds the memory access the
    /// algorithm would make).
    #[arg(long)]
    touch: bool,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
enum KeyOrder {
    Random,
    Seq,
}

pub fn bench(ctx: &Ctx, a: BenchArgs) -> anyhow::Result<()> {
    match a.what {
        BenchKind::Io(x) => bench_io(ctx, x),
        BenchKind::Pool(x) => bench_pool(ctx, x),
        BenchKind::Decode(x) => bench_decode(ctx, x),
        BenchKind::Ace(x) => crate::bench_ace::bench_ace(ctx, x),
    }
}

#[derive(Serialize)]
struct IoResult {
    pattern: &'static str,
    qd: usize,
    size: usize,
    iops: f64,
    bandwidth: f64,
    mean_us: f64,
    p99_us: f64,
    requests: u64,
    mean_in_flight: f64,
}

/// The byte range a benchmark reads: a graph's out-edge blocks, or the
/// whole file rounded down to 4 KiB.
fn bench_range(file: &Path) -> anyhow::Result<(std::ops::Range<u64>, &'static str)> {
    match Graph::open(file) {
        Ok(g) => {
            let start = g.block_offset(Direction::Out, false, BlockId(0))?;
            Ok((
                start..start + g.out().block_count() * 4096,
                "out-edge block section",
            ))
        }
        Err(grotto::Error::NotAGraph { .. }) => {
            let len = std::fs::metadata(file)?.len() / 4096 * 4096;
            Ok((0..len, "whole file"))
        }
        Err(e) => Err(e.into()),
    }
}

fn bench_io(ctx: &Ctx, a: IoBenchArgs) -> anyhow::Result<()> {
    let (profile, profile_msg) = profile_for(&a.file);
    let size = if a.size == "merge" {
        profile.as_ref().map_or(128 << 10, |p| p.merge_bytes)
    } else {
        parse_size(&a.size).map_err(anyhow::Error::msg)? as usize
    };
    if size == 0 || size % 4096 != 0 {
        anyhow::bail!(
            "--size {}: requests must be a positive multiple of 4 KiB",
            a.size
        );
    }
    let (range, what) = bench_range(&a.file)?;
    if range.end - range.start < size as u64 {
        anyhow::bail!(
            "{}: the {what} ({} bytes) is smaller than one request",
            a.file.display(),
            range.end - range.start
        );
    }
    let io = IoFile::open(
        &a.file,
        &IoOptions {
            backend: a.io,
            ..IoOptions::default()
        },
    )?;
    if !ctx.quiet && !ctx.json {
        for n in io.notes() {
            eprintln!("note: {n}");
        }
    }
    let backend = io.backend().name();
    let qd = a.qd;
    let mut results = Vec::new();
    for (pattern, sequential) in [("random", false), ("seq", true)] {
        if (sequential && a.pattern == Pattern::Random)
            || (!sequential && a.pattern == Pattern::Seq)
        {
            continue;
        }
        let p = measure_range(
            &io,
            range.clone(),
            sequential,
            false,
            qd,
            size,
            a.seconds,
            1,
        )?;
        results.push(IoResult {
            pattern,
            qd,
            size,
            iops: p.iops,
            bandwidth: p.bandwidth,
            mean_us: p.mean_us,
            p99_us: p.p99_us,
            requests: (p.iops * a.seconds) as u64,
            mean_in_flight: p.iops * p.mean_us / 1e6,
        });
    }
    let expected = profile
        .as_ref()
        .and_then(|p| p.expected_read_bandwidth(qd, size));
    if ctx.json {
        println!(
            "{}",
            json!({
                "schema_version": SCHEMA_VERSION, "command": "bench io", "file": a.file,
                "range_offset": range.start, "range_bytes": range.end - range.start, "range": what,
                "backend": backend, "direct": io.direct(), "profile": profile_msg,
                "profile_expected_bandwidth": expected,
                "results": results.iter().map(|r| json!({
                    "pattern": r.pattern, "qd": r.qd, "size": r.size, "iops": r.iops,
                    "bandwidth": r.bandwidth, "mean_us": r.mean_us,
                    "p99_us": if r.p99_us.is_finite() { json!(r.p99_us) } else { json!(null) },
                    "requests": r.requests, "mean_in_flight": r.mean_in_flight,
                })).collect::<Vec<_>>(),
            })
        );
    } else if !ctx.quiet {
        println!(
            "{}: {what}, bytes {}..{} ({} MiB), backend {backend}{}",
            a.file.display(),
            range.start,
            range.end,
            (range.end - range.start) >> 20,
            if io.direct() {
                ", O_DIRECT"
            } else {
                ", buffered"
            }
        );
        println!("{profile_msg}");
        println!(
            "  {:<7} {:>5} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9}",
            "pattern", "qd", "size", "IOPS", "MB/s", "mean us", "p99 us", "inflight"
        );
        for r in &results {
            println!(
                "  {:<7} {:>5} {:>6}K {:>10.0} {:>9.0} {:>9.0} {:>9} {:>9.1}",
                r.pattern,
                r.qd,
                r.size / 1024,
                r.iops,
                r.bandwidth / 1e6,
                r.mean_us,
                if r.p99_us.is_finite() {
                    format!("{:.0}", r.p99_us)
                } else {
                    "-".into()
                },
                r.mean_in_flight
            );
        }
        if let Some(e) = expected {
            println!(
                "  profile expects {:.0} MB/s for random {}K reads at depth {qd}",
                e / 1e6,
                size / 1024
            );
        }
    }
    Ok(())
}

fn bench_pool(ctx: &Ctx, a: PoolBenchArgs) -> anyhow::Result<()> {
    let g = Arc::new(Graph::open(&a.file)?);
    let io = IoFile::open(&a.file, &IoOptions::default())?;
    let nblocks = g.out().block_count();
    if nblocks == 0 {
        anyhow::bail!("{}: the graph has no edge blocks", a.file.display());
    }
    let cache = BlockCache::new(Arc::clone(&g), io, (nblocks + 1) * 4096, 128 << 10)?;
    let keys: Vec<_> = (0..nblocks)
        .map(|b| cache.key(Direction::Out, false, BlockId(b)))
        .collect::<grotto::Result<_>>()?;
    let t_warm = Instant::now();
    cache.reader(32)?.fetch(&keys, |_| Ok(()))?;
    let warm_s = t_warm.elapsed().as_secs_f64();
    let before = cache.pool().stats();
    let threads = ctx.threads.max(1);
    let per_thread: Vec<(u64, f64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let (cache, keys) = (&cache, &keys);
                let (secs, order, touch) = (a.seconds, a.order, a.touch);
                s.spawn(move || -> anyhow::Result<(u64, f64)> {
                    let pool = cache.pool();
                    let mut rng = grotto::rng::Rng::new(5, t);
                    let mut n = 0u64;
                    let mut sink = 0u8;
                    let mut at = (t as usize * keys.len()) / threads;
                    let t0 = Instant::now();
                    loop {
                        for _ in 0..4096 {
                            let k = if order == KeyOrder::Random {
                                keys[rng.below(keys.len() as u64) as usize]
                            } else {
                                at = if at + 1 == keys.len() { 0 } else { at + 1 };
                                keys[at]
                            };
                            match pool.lookup(k.0)? {
                                Lookup::Hit(p) => {
                                    if touch {
                                        sink ^= p.bytes()[(n & 4095) as usize];
                                    }
                                }
                                _ => anyhow::bail!("block {} was not cached", k.0),
                            }
                            n += 1;
                        }
                        let e = t0.elapsed().as_secs_f64();
                        if e >= secs {
                            std::hint::black_box(sink);
                            return Ok((n, e));
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| anyhow::anyhow!("benchmark thread panicked"))?
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let after = cache.pool().stats();
    let total: u64 = per_thread.iter().map(|p| p.0).sum();
    let secs = per_thread.iter().map(|p| p.1).fold(0.0, f64::max);
    let rates: Vec<f64> = per_thread.iter().map(|p| p.0 as f64 / p.1).collect();
    let per_core = rates.iter().sum::<f64>() / rates.len() as f64;
    if ctx.json {
        println!(
            "{}",
            json!({
                "schema_version": SCHEMA_VERSION, "command": "bench pool", "file": a.file,
                "blocks": nblocks, "threads": threads, "seconds": secs,
                "lookups": total, "lookups_per_second": total as f64 / secs,
                "lookups_per_second_per_thread": per_core, "warm_seconds": warm_s,
                "misses_during_run": after.misses - before.misses,
                "order": a.order, "touch": a.touch,
            })
        );
    } else if !ctx.quiet {
        println!(
            "{}: {nblocks} blocks cached ({} MiB) in {warm_s:.2} s",
            a.file.display(),
            (nblocks * 4096) >> 20
        );
        println!(
            "{threads} threads, {} keys{}: {:.1} M pinned lookups/s in all, {:.1} M/s per thread",
            if a.order == KeyOrder::Random {
                "random"
            } else {
                "sequential"
            },
            if a.touch {
                ", one byte read per block"
            } else {
                ""
            },
            total as f64 / secs / 1e6,
            per_core / 1e6
        );
    }
    Ok(())
}

/// Ids decoded per second, and passes made, over the blocks `pick`
/// selects, for `seconds`.
struct DecodeRate {
    ids_per_s: f64,
    ids_per_pass: u64,
    /// List pieces handed out per pass.
    pieces_per_pass: u64,
    passes: u64,
    seconds: f64,
}

/// Hands every list piece of the chosen in-memory blocks to an opaque
/// consumer (`black_box`, so the decoding is what is timed) through `Adjacency::list_in_block`, block after
/// block, for `seconds`.
fn decode_rate(
    g: &Graph,
    blocks: &[u8],
    pick: &dyn Fn(usize) -> bool,
    seconds: f64,
) -> anyhow::Result<Option<DecodeRate>> {
    let adj = g.out();
    let map = adj.block_map()?;
    let chosen: Vec<(usize, &[u8])> = blocks
        .chunks(4096)
        .enumerate()
        .filter(|&(b, _)| pick(b))
        .collect();
    if chosen.is_empty() {
        return Ok(None);
    }
    let mut scratch = Vec::new();
    let (mut ids, mut pieces, mut passes) = (0u64, 0u64, 0u64);
    let t0 = Instant::now();
    let secs = loop {
        for &(b, buf) in &chosen {
            for v in map.vertices(b as u64) {
                if let Some(p) = adj.list_in_block(v, b as u64, buf, &mut scratch)? {
                    ids += p.ids.len() as u64;
                    pieces += 1;
                    std::hint::black_box(p.ids);
                }
            }
        }
        passes += 1;
        let e = t0.elapsed().as_secs_f64();
        if e >= seconds {
            break e;
        }
    };
    Ok(Some(DecodeRate {
        ids_per_s: ids as f64 / secs,
        ids_per_pass: ids / passes,
        pieces_per_pass: pieces / passes,
        passes,
        seconds: secs,
    }))
}

/// Reads every out-edge block into memory, then measures the decoder the
/// engines use over all of them and, for a packed file, over the blocks
/// of short lists and of long-list pieces apart (their costs differ: per
/// list set-up against per id work).
fn bench_decode(ctx: &Ctx, a: DecodeBenchArgs) -> anyhow::Result<()> {
    let g = Graph::open(&a.file)?;
    let adj = g.out();
    let nblocks = adj.block_count();
    if nblocks == 0 {
        anyhow::bail!("{}: the graph has no edge blocks", a.file.display());
    }
    let mut blocks = vec![0u8; nblocks as usize * 4096];
    for (b, buf) in blocks.chunks_mut(4096).enumerate() {
        g.read_block(Direction::Out, BlockId(b as u64), buf)?;
    }
    let tags = adj.tags();
    let all = decode_rate(&g, &blocks, &|_| true, a.seconds)?;
    let Some(all) = all else {
        anyhow::bail!("{}: no block holds a list", a.file.display());
    };
    let (short, long) = if adj.packed() {
        let tag = |b: usize| tags.get(b).copied();
        (
            decode_rate(&g, &blocks, &|b| tag(b) == Some(TAG_PACKED), a.seconds)?,
            decode_rate(&g, &blocks, &|b| tag(b) == Some(TAG_SPAN), a.seconds)?,
        )
    } else {
        (None, None)
    };
    let encoding = if adj.packed() { "packed" } else { "raw" };
    let bytes_per_id = (nblocks * 4096) as f64 / all.ids_per_pass.max(1) as f64;
    if ctx.json {
        let part = |r: &Option<DecodeRate>| {
            r.as_ref().map(|r| {
                json!({"ids_per_second": r.ids_per_s, "ids_per_pass": r.ids_per_pass,
                    "pieces_per_pass": r.pieces_per_pass})
            })
        };
        println!(
            "{}",
            json!({
                "schema_version": SCHEMA_VERSION, "command": "bench decode", "file": a.file,
                "encoding": encoding, "kernel": grotto::store::codec::kernel(),
                "blocks": nblocks, "passes": all.passes,
                "seconds": all.seconds, "ids": all.ids_per_pass * all.passes,
                "ids_per_second": all.ids_per_s, "bytes_per_id": bytes_per_id,
                "short_list_blocks": part(&short), "long_list_blocks": part(&long),
            })
        );
    } else if !ctx.quiet {
        println!(
            "{}: {encoding} blocks, {nblocks} in memory; {} passes in {:.2} s: \
             {:.2} G ids/s on one thread ({bytes_per_id:.2} bytes per id; {} kernel)",
            a.file.display(),
            all.passes,
            all.seconds,
            all.ids_per_s / 1e9,
            grotto::store::codec::kernel(),
        );
        for (what, r) in [("short lists", &short), ("long-list pieces", &long)] {
            if let Some(r) = r {
                println!(
                    "  blocks of {what}: {:.2} G ids/s ({} M ids per pass, {:.1} per list piece)",
                    r.ids_per_s / 1e9,
                    r.ids_per_pass / 1_000_000,
                    r.ids_per_pass as f64 / r.pieces_per_pass.max(1) as f64
                );
            }
        }
    }
    Ok(())
}

/// A measurement time: more than 0 and at most an hour.
fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 3600.0 => Ok(x),
        _ => Err(format!("\"{s}\": seconds between 0 and 3600")),
    }
}
