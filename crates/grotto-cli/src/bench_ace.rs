//! `grotto bench ace`: the PIO/ACE thesis's buffer-pool experiment on a
//! grotto graph file. Every replacement policy, plain, wrapped by ACE and
//! by ACE with prefetching, runs the thesis's workloads on a scratch copy
//! of the graph; runs are interleaved and medians reported, with the PIO
//! model's prediction next to the measured speedup.

use crate::Ctx;
use clap::Args;
use grotto::cache::ace::workload::{self, graph_sections};
use grotto::cache::ace::{pio_speedup, Ace, PolicyKind, PoolConfig, Workload, WritePool};
use grotto::cache::CacheSize;
use grotto::io::scratch::ScratchCopy;
use grotto::io::IoOptions;
use grotto::setup::profile_for;
use grotto::store::Graph;
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct AceBenchArgs {
    /// A weighted .grotto file; it is copied to a scratch file on the same
    /// device (removed afterwards) and only the copy is written.
    file: PathBuf,
    /// Workloads, comma-separated: ms (50% reads, 90/10), wis (10% reads),
    /// ris (90% reads), mu (50% reads, uniform), or all.
    #[arg(long, default_value = "all")]
    workload: String,
    /// Replacement policies, comma-separated: clock, lru, cflru, lru-wsr, or all.
    #[arg(long, default_value = "all")]
    policy: String,
    /// Variants, comma-separated: plain, ace, ace-pf (ACE with prefetching), or all.
    #[arg(long, default_value = "all")]
    variant: String,
    /// Pool sizes, comma-separated: a share of the pages (6%) or bytes (64MiB).
    #[arg(long, default_value = "6%")]
    pool: String,
    /// Dirty pages ACE writes at once, comma-separated (default: k_w of
    /// the device profile, 8 without one, capped at 1/256 of the pool's
    /// slots and at least 4; see docs/ace.md).
    #[arg(long)]
    nw: Option<String>,
    /// Pages ACE evicts when prefetching (default: n_w, as in the thesis).
    #[arg(long)]
    ne: Option<usize>,
    /// Timed operations per run (1 to 10^9).
    #[arg(long, default_value_t = 50_000, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=1_000_000_000))]
    ops: u64,
    /// Untimed operations first (default: a quarter of --ops, at least twice the pool's slots; at most 10^9).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(0..=1_000_000_000))]
    warmup: Option<u64>,
    /// Rounds; every configuration runs once per round, and medians are reported (1 to 100).
    #[arg(long, default_value_t = 3, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100))]
    runs: usize,
    /// Seed of the operations (the same for every configuration).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory for the scratch copy (default: the graph's own).
    #[arg(long)]
    scratch_dir: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Variant {
    Plain,
    Ace,
    AcePf,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Plain => "plain",
            Variant::Ace => "ace",
            Variant::AcePf => "ace-pf",
        }
    }
}

#[derive(Serialize, Clone)]
struct Row {
    workload: &'static str,
    pool_bytes: u64,
    pool_percent: f64,
    n_w: usize,
    n_e: usize,
    policy: &'static str,
    variant: &'static str,
    seconds: Vec<f64>,
    median_seconds: f64,
    hits: u64,
    misses: u64,
    pages_read: u64,
    prefetched: u64,
    prefetch_used: u64,
    pages_written: u64,
    write_waits: u64,
    read_seconds: f64,
    write_seconds: f64,
    dirty_left: usize,
    ids_read: u64,
}

fn list<T>(s: &str, all: &[T], parse: impl Fn(&str) -> Result<T, String>) -> anyhow::Result<Vec<T>>
where
    T: Copy,
{
    if s == "all" {
        return Ok(all.to_vec());
    }
    s.split(',')
        .map(|x| parse(x.trim()).map_err(anyhow::Error::msg))
        .collect()
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len().is_multiple_of(2) {
        (s[m - 1] + s[m]) / 2.0
    } else {
        s[m]
    }
}

pub(crate) fn bench_ace(ctx: &Ctx, a: AceBenchArgs) -> anyhow::Result<()> {
    let workloads = list(&a.workload, &Workload::ALL, |s| s.parse())?;
    let policies = list(&a.policy, &PolicyKind::ALL, |s| s.parse())?;
    let variants = list(
        &a.variant,
        &[Variant::Plain, Variant::Ace, Variant::AcePf],
        |s| match s {
            "plain" => Ok(Variant::Plain),
            "ace" => Ok(Variant::Ace),
            "ace-pf" => Ok(Variant::AcePf),
            _ => Err(format!("unknown variant {s:?}: use plain, ace or ace-pf")),
        },
    )?;
    let g = Graph::open(&a.file)?;
    let sections = graph_sections(&g)?;
    let pages: u64 = sections.iter().map(|s| s.pages).sum();
    let page_bytes = pages * 4096;
    let pools: Vec<u64> = a
        .pool
        .split(',')
        .map(|p| {
            let c: CacheSize = p.trim().parse()?;
            Ok(c.resolve(page_bytes))
        })
        .collect::<Result<_, grotto::Error>>()?;
    let (profile, profile_msg) = profile_for(&a.file);
    let (k_w, alpha) = profile
        .as_ref()
        .map_or((8, None), |p| (p.k_w, Some(p.alpha)));
    let nws: Vec<Option<usize>> = match &a.nw {
        Some(s) => s
            .split(',')
            .map(|x| match x.trim().parse::<usize>() {
                Ok(n) if (1..=1024).contains(&n) => Ok(Some(n)),
                _ => Err(anyhow::anyhow!("--nw {x:?}: give numbers from 1 to 1024")),
            })
            .collect::<anyhow::Result<_>>()?,
        None => vec![None],
    };
    if let Some(ne) = a.ne {
        anyhow::ensure!(
            (1..=1024).contains(&ne),
            "--ne {ne}: give a number from 1 to 1024"
        );
    }
    // The largest pool must fit before the graph is copied.
    let biggest = pools.iter().copied().max().unwrap_or(0);
    grotto::metrics::check_memory(
        WritePool::memory_bytes((biggest / 4096).max(1) as usize, pages, true),
        "the largest write pool asked for",
    )?;
    let scratch = ScratchCopy::new(&a.file, a.scratch_dir.as_deref(), &IoOptions::default())?;
    if !ctx.quiet && !ctx.json {
        eprintln!(
            "{}: {pages} pages ({} edge blocks and their weight blocks), scratch copy on the same device; {profile_msg}",
            a.file.display(),
            pages / 2
        );
        for n in scratch.file().notes() {
            eprintln!("note: {n}");
        }
    }
    // Every configuration, run once per round, rounds interleaved.
    let mut configs = Vec::new();
    for &w in &workloads {
        for &pool in &pools {
            for &n_w in &nws {
                for &p in &policies {
                    for &v in &variants {
                        configs.push((w, pool, n_w, p, v));
                    }
                }
            }
        }
    }
    let mut rows: Vec<Option<Row>> = vec![None; configs.len()];
    // Rows are matched by the n_w they ran with, resolved per pool.
    let total = configs.len() * a.runs;
    let mut done = 0;
    for _round in 0..a.runs {
        for (i, &(w, pool, n_w, p, v)) in configs.iter().enumerate() {
            let slots = (pool / 4096).max(1) as usize;
            let n_w = n_w.unwrap_or_else(|| Ace::default_n_w(k_w, slots));
            let n_e = a.ne.unwrap_or(n_w);
            let ace = match v {
                Variant::Plain => None,
                Variant::Ace => Some(Ace {
                    n_w,
                    n_e,
                    prefetch: false,
                }),
                Variant::AcePf => Some(Ace {
                    n_w,
                    n_e,
                    prefetch: true,
                }),
            };
            let mut wp = WritePool::new(
                scratch.file(),
                sections.clone(),
                PoolConfig {
                    slots,
                    policy: p,
                    ace,
                    flush_depth: n_w,
                },
            )?;
            let warmup = a.warmup.unwrap_or((a.ops / 4).max(2 * slots as u64));
            let r = workload::run(&g, &mut wp, w, warmup, a.ops, a.seed)?;
            // Leave the copy clean for the next configuration (not timed).
            wp.flush()?;
            done += 1;
            if !ctx.quiet && !ctx.json {
                eprint!("\r{done}/{total} runs");
            }
            let s = r.stats;
            let row = rows[i].get_or_insert_with(|| Row {
                workload: w.name(),
                pool_bytes: pool,
                pool_percent: pool as f64 * 100.0 / page_bytes as f64,
                n_w,
                n_e,
                policy: p.name(),
                variant: v.name(),
                seconds: Vec::new(),
                median_seconds: 0.0,
                hits: s.hits,
                misses: s.misses,
                pages_read: s.pages_read,
                prefetched: s.prefetched,
                prefetch_used: s.prefetch_used,
                pages_written: s.pages_written,
                write_waits: s.write_waits,
                read_seconds: 0.0,
                write_seconds: 0.0,
                dirty_left: r.dirty_left,
                ids_read: r.ids_read,
            });
            row.seconds.push(r.seconds);
            row.read_seconds += s.read_seconds / a.runs as f64;
            row.write_seconds += s.write_seconds / a.runs as f64;
        }
    }
    if !ctx.quiet && !ctx.json {
        eprintln!();
    }
    let mut rows: Vec<Row> = rows.into_iter().flatten().collect();
    for r in &mut rows {
        r.median_seconds = median(&r.seconds);
    }
    // Speedup over the same policy plain, and the PIO prediction from the
    // plain run's mix of page reads and writes.
    let plain_of = |r: &Row| {
        rows.iter().find(|x| {
            x.variant == "plain"
                && x.workload == r.workload
                && x.pool_bytes == r.pool_bytes
                && x.n_w == r.n_w
                && x.policy == r.policy
        })
    };
    let mut out = Vec::new();
    for r in &rows {
        let base = plain_of(r);
        let speedup = base.map(|b| b.median_seconds / r.median_seconds);
        let predicted = match (base, alpha) {
            (Some(b), Some(al)) if r.variant != "plain" => {
                let f_w = b.pages_written as f64 / (b.pages_written + b.pages_read).max(1) as f64;
                Some(pio_speedup(f_w, al, r.n_w as f64))
            }
            _ => None,
        };
        let d = |x: u64, y: u64| (x as f64 - y as f64) * 100.0 / y.max(1) as f64;
        out.push((
            r.clone(),
            speedup,
            predicted,
            base.map(|b| d(r.misses, b.misses)),
            // Pages written plus pages left dirty: ACE writes ahead, so at
            // the end of a window it has written pages the plain policy
            // still holds dirty (and will write later).
            base.map(|b| {
                d(
                    r.pages_written + r.dirty_left as u64,
                    b.pages_written + b.dirty_left as u64,
                )
            }),
        ));
    }
    if ctx.json {
        let rows: Vec<_> = out
            .iter()
            .map(|(r, s, p, dm, dw)| {
                json!({"row": r, "speedup": s, "pio_predicted": p,
                       "misses_change_percent": dm, "writes_and_dirty_change_percent": dw})
            })
            .collect();
        println!(
            "{}",
            json!({
                "schema_version": crate::SCHEMA_VERSION,
                "command": "bench ace",
                "file": a.file,
                "pages": pages,
                "k_w": k_w,
                "alpha": alpha,
                "ops": a.ops,
                "runs": a.runs,
                "rows": rows,
            })
        );
        return Ok(());
    }
    if ctx.quiet {
        return Ok(());
    }
    println!(
        "{} ops per run, median of {} interleaved rounds; device k_w {k_w}, alpha {}",
        a.ops,
        a.runs,
        alpha.map_or("unknown (no profile)".into(), |x| format!("{x:.2}"))
    );
    println!(
        "{:<4} {:>6} {:>4} {:<8} {:<7} {:>8} {:>8} {:>9} {:>8} {:>9} {:>8} {:>8} {:>7} {:>7}",
        "load",
        "pool",
        "n_w",
        "policy",
        "variant",
        "seconds",
        "speedup",
        "PIO",
        "misses",
        "written",
        "wr-waits",
        "read s",
        "dmiss%",
        "dwr+d%"
    );
    for (r, s, p, dm, dw) in &out {
        let f = |x: Option<f64>, d: usize| x.map_or("-".to_string(), |v| format!("{v:.d$}"));
        println!(
            "{:<4} {:>5.1}% {:>4} {:<8} {:<7} {:>8.3} {:>8} {:>9} {:>8} {:>9} {:>8} {:>8.3} {:>7} {:>7}",
            r.workload,
            r.pool_percent,
            r.n_w,
            r.policy,
            r.variant,
            r.median_seconds,
            f(*s, 2),
            f(*p, 2),
            r.misses,
            r.pages_written,
            r.write_waits,
            r.read_seconds,
            f(*dm, 2),
            f(*dw, 2)
        );
    }
    Ok(())
}
