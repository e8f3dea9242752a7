//! `grotto run ALGO GRAPH`: run an algorithm on the synchronous or the
//! asynchronous engine, print a summary with the run's metrics, write
//! per-vertex results.

use crate::{device, Ctx, SCHEMA_VERSION};
use clap::{Args, Subcommand, ValueEnum};
use grotto::algo::{
    self, bfs, dfs, kcore, mis, output::Format, pagerank, ppr, randomwalk, reference::Csr, sssp,
    wcc,
};
use grotto::cache::CacheSize;
use grotto::engine::{AsyncEngine, EngineConfig, Mode, RunMetrics, SyncEngine};
use grotto::io::output::{Output, Streams};
use grotto::io::{BackendChoice, IoOptions};
use grotto::store::{Direction, Graph};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// A verification that found a wrong result (exit code 3).
#[derive(Debug)]
pub struct VerifyFailed(pub String);

impl std::fmt::Display for VerifyFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "verification failed: {}", self.0)
    }
}
impl std::error::Error for VerifyFailed {}

#[derive(Args)]
pub struct RunArgs {
    #[command(subcommand)]
    algo: Algo,
}

#[derive(Subcommand)]
enum Algo {
    /// Breadth-first search: depth and parent of every vertex reachable from a source.
    Bfs {
        #[command(flatten)]
        common: Common,
        /// Source vertex, in your ids (default: a seeded random vertex with out-edges).
        #[arg(long)]
        source: Option<u64>,
        /// Seed for the default source.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Pseudo depth-first search by stack splitting: visit order and discovering vertex.
    Dfs {
        #[command(flatten)]
        common: Common,
        /// Source vertex, in your ids (default: a seeded random vertex with out-edges).
        #[arg(long)]
        source: Option<u64>,
        /// Stop when this vertex is visited.
        #[arg(long)]
        target: Option<u64>,
        /// Seed for the default source.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Split a stack longer than this in two.
        #[arg(long, default_value_t = 32)]
        split_threshold: usize,
        /// Most stacks explored at once (default: the concurrency).
        #[arg(long)]
        stacks: Option<usize>,
    },
    /// Weakly connected components: label = smallest vertex id in the component.
    Wcc {
        #[command(flatten)]
        common: Common,
    },
    /// PageRank by power iteration (dangling mass spread uniformly; scores sum to 1).
    Pagerank {
        #[command(flatten)]
        common: Common,
        /// Damping factor.
        #[arg(long, default_value_t = 0.85)]
        damping: f64,
        /// Stop when an iteration changes the scores by less than this (L1).
        #[arg(long, default_value_t = 1e-6)]
        tolerance: f64,
        /// Iteration cap.
        #[arg(long, default_value_t = 100)]
        max_iterations: u32,
        /// standard (networkx) or gap (no dangling redistribution).
        #[arg(long, default_value = "standard")]
        semantics: pagerank::Semantics,
    },
    /// K-core: the vertices of the largest subgraph where every vertex has at least K neighbours (undirected graphs).
    Kcore {
        #[command(flatten)]
        common: Common,
        /// The K.
        #[arg(long)]
        k: u32,
    },
    /// Core number of every vertex (undirected graphs).
    Coreness {
        #[command(flatten)]
        common: Common,
    },
    /// Personalized PageRank from one source by forward push (async engine).
    Ppr {
        #[command(flatten)]
        common: Common,
        /// Source vertex, in your ids (default: a seeded random vertex with out-edges).
        #[arg(long)]
        source: Option<u64>,
        /// Seed for the default source.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Restart probability.
        #[arg(long, default_value_t = 0.15)]
        alpha: f64,
        /// Residual threshold per out-edge; the L1 error is the residual left, at most epsilon x sum of degrees.
        #[arg(long, default_value_t = 1e-9)]
        epsilon: f64,
    },
    /// Maximal independent set: the greedy set by seeded random ranks (undirected graphs; async engine, rounds mode).
    Mis {
        #[command(flatten)]
        common: Common,
        /// Seed of the ranks.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Single-source shortest paths on non-negative weights (weighted graphs; async engine).
    Sssp {
        #[command(flatten)]
        common: Common,
        /// Source vertex, in your ids (default: a seeded random vertex with out-edges).
        #[arg(long)]
        source: Option<u64>,
        /// Seed for the default source.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Priority buckets of this width (delta-stepping order; default: exact distances).
        #[arg(long)]
        delta: Option<f32>,
    },
    /// Random walks: per-vertex visit counts of K walkers taking L steps.
    Randomwalk {
        #[command(flatten)]
        common: Common,
        /// Walkers.
        #[arg(long, default_value_t = 10_000)]
        walkers: u64,
        /// Steps per walker.
        #[arg(long, default_value_t = 10)]
        steps: u32,
        /// Seed of every random choice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
enum EngineKind {
    /// Level-synchronous, concurrency-aware (CAVE).
    Sync,
    /// Asynchronous, block-centric with priorities (ACGraph).
    Async,
    /// The engine measured faster for the algorithm (see docs/engine.md).
    Auto,
}

/// The engine `--engine auto` picks for an algorithm, from the
/// measurements in docs/engine.md; and whether each engine runs it.
fn resolve(kind: EngineKind, algo: &str, avg_degree: f64) -> anyhow::Result<EngineKind> {
    let sync_ok = matches!(
        algo,
        "bfs" | "dfs" | "wcc" | "pagerank" | "randomwalk" | "kcore" | "coreness"
    );
    let async_ok = !matches!(algo, "dfs" | "randomwalk");
    let best = match algo {
        "dfs" | "randomwalk" | "wcc" | "pagerank" => EngineKind::Sync,
        // Async wins by far on sparse, high-diameter graphs (grid: 46x)
        // and loses on dense low-diameter ones (R-MAT: about 1.5x slower,
        // CPU-bound on 2 cores); the average degree tells them apart.
        "bfs" if avg_degree >= 8.0 => EngineKind::Sync,
        _ => EngineKind::Async,
    };
    match kind {
        EngineKind::Auto => Ok(best),
        EngineKind::Sync if !sync_ok => Err(grotto::Error::Invalid(format!(
            "{algo} runs on the asynchronous engine only: use --engine async (or auto)"
        ))
        .into()),
        EngineKind::Async if !async_ok => Err(grotto::Error::Invalid(format!(
            "{algo} runs on the synchronous engine only: use --engine sync (or auto)"
        ))
        .into()),
        k => Ok(k),
    }
}

/// The engine a run uses.
enum Eng {
    Sync(SyncEngine),
    Async(AsyncEngine),
}

impl Eng {
    fn cache_bytes(&self) -> u64 {
        match self {
            Eng::Sync(e) => e.cache_bytes(),
            Eng::Async(e) => e.cache_bytes(),
        }
    }
    fn io(&self) -> &Arc<grotto::io::IoFile> {
        match self {
            Eng::Sync(e) => e.io(),
            Eng::Async(e) => e.io(),
        }
    }
}

#[derive(Args)]
struct Common {
    /// The graph file (.grotto).
    graph: PathBuf,
    /// Engine: sync (level by level), async (block-centric, priorities, no barrier) or auto (the faster one for the algorithm).
    #[arg(long, value_enum, default_value_t = EngineKind::Auto)]
    engine: EngineKind,
    /// Sync engine: vertex (each active vertex reads its blocks through the cache) or block (each needed block once per level; default).
    #[arg(long)]
    mode: Option<Mode>,
    /// Reads in flight: a number, or auto for the device profile's k_r (32 without a profile).
    #[arg(long, default_value = "auto")]
    concurrency: String,
    /// Buffer pool: bytes (256MiB) or a share of the graph file (3%).
    #[arg(long, default_value = "3%")]
    cache: CacheSize,
    /// I/O backend: auto, uring, pread, or memory (the file read into RAM first, no I/O while running).
    #[arg(long, default_value = "auto")]
    io: BackendChoice,
    /// Write per-vertex results here, in your vertex ids (checked before the run; - for standard output, which moves the report to stderr).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Format of --out: csv (default), bin (packed little-endian 8-byte fields) or npy.
    #[arg(long)]
    format: Option<Format>,
    /// Check the result with a serial verifier (holds the graph in memory); exit 3 if wrong.
    #[arg(long)]
    verify: bool,
}

/// Parses `grotto run` arguments (without `grotto run`), for the demo.
pub fn args_for(argv: &[&str]) -> anyhow::Result<RunArgs> {
    #[derive(clap::Parser)]
    struct Wrap {
        #[command(subcommand)]
        algo: Algo,
    }
    let mut all = vec!["run"];
    all.extend_from_slice(argv);
    Ok(RunArgs {
        algo: <Wrap as clap::Parser>::try_parse_from(all)?.algo,
    })
}

fn common(a: &Algo) -> &Common {
    match a {
        Algo::Bfs { common, .. }
        | Algo::Dfs { common, .. }
        | Algo::Wcc { common }
        | Algo::Pagerank { common, .. }
        | Algo::Kcore { common, .. }
        | Algo::Coreness { common }
        | Algo::Ppr { common, .. }
        | Algo::Mis { common, .. }
        | Algo::Sssp { common, .. }
        | Algo::Randomwalk { common, .. } => common,
    }
}

pub fn run_cmd(ctx: &Ctx, a: RunArgs) -> anyhow::Result<()> {
    let c = common(&a.algo);
    // Flags that would do nothing are refused, not ignored.
    if c.format.is_some() && c.out.is_none() {
        return Err(grotto::Error::Invalid(
            "--format sets the format of --out, and no --out was given".into(),
        )
        .into());
    }
    let out_format = c.format.unwrap_or(Format::Csv);
    let cfg_mode = c.mode.unwrap_or(Mode::Block);
    let graph = Arc::new(Graph::open(&c.graph)?);
    // The result's destination is checked and opened before the run.
    let out = c
        .out
        .as_deref()
        .map(|p| Output::create(p, &[&c.graph], Streams::Allowed))
        .transpose()?;
    let mut msg = match &out {
        Some(o) => crate::say_to(o),
        None => Box::new(std::io::stdout()),
    };
    let (profile, profile_msg) = device::profile_for(&c.graph);
    let concurrency = match c.concurrency.as_str() {
        "auto" => profile.as_ref().map_or(32, |p| p.k_r),
        s => s.parse::<usize>().map_err(|_| {
            grotto::Error::Invalid(format!(
                "--concurrency {s:?}: expected a number of reads or auto"
            ))
        })?,
    };
    let cfg = EngineConfig {
        mode: c.mode.unwrap_or(Mode::Block),
        concurrency,
        threads: ctx.threads,
        cache: c.cache,
        merge_bytes: profile.as_ref().map_or(128 << 10, |p| p.merge_bytes),
        io: IoOptions {
            backend: c.io,
            ..IoOptions::default()
        },
    };
    let name = match &a.algo {
        Algo::Bfs { .. } => "bfs",
        Algo::Dfs { .. } => "dfs",
        Algo::Wcc { .. } => "wcc",
        Algo::Pagerank { .. } => "pagerank",
        Algo::Kcore { .. } => "kcore",
        Algo::Coreness { .. } => "coreness",
        Algo::Ppr { .. } => "ppr",
        Algo::Mis { .. } => "mis",
        Algo::Sssp { .. } => "sssp",
        Algo::Randomwalk { .. } => "randomwalk",
    };
    let avg_degree = graph.edge_count() as f64 * if graph.directed() { 1.0 } else { 2.0 }
        / graph.vertex_count().max(1) as f64;
    let kind = resolve(c.engine, name, avg_degree)?;
    // k-core and coreness on "sync" run the async engine's rounds mode:
    // the same algorithm with a barrier between rounds.
    let rounds = kind == EngineKind::Sync && matches!(name, "kcore" | "coreness");
    if c.mode.is_some() && (kind == EngineKind::Async || rounds) {
        return Err(grotto::Error::Invalid(format!(
            "--mode chooses how the sync engine reads blocks, and {name} runs on the async engine here{}",
            if c.engine == EngineKind::Auto { " (--engine auto picked it; --engine sync runs the sync engine where the algorithm allows)" } else { "" }
        ))
        .into());
    }
    let engine = if kind == EngineKind::Async || rounds {
        Eng::Async(AsyncEngine::open(Arc::clone(&graph), cfg)?)
    } else {
        Eng::Sync(SyncEngine::open(Arc::clone(&graph), cfg)?)
    };
    let file_bytes = std::fs::metadata(&c.graph).map_or(0, |m| m.len());
    grotto::metrics::check_memory(
        engine.cache_bytes(),
        &format!("the buffer pool (--cache {})", c.cache),
    )?;
    macro_rules! on {
        ($sync:expr, $asyn:expr) => {
            match &engine {
                Eng::Sync(e) => e.run($sync)?,
                Eng::Async(e) => e.run($asyn)?,
            }
        };
    }
    let say = !ctx.quiet && !ctx.json;
    if say {
        eprintln!(
            "grotto run {name}: {} ({} vertices, {} edges), engine {}, concurrency {concurrency}, cache {}, {} threads, io {}",
            c.graph.display(),
            graph.vertex_count(),
            graph.edge_count(),
            match &engine {
                Eng::Sync(_) => format!("sync ({} mode)", format!("{:?}", cfg_mode).to_lowercase()),
                Eng::Async(_) if rounds => "async in rounds mode (the synchronous formulation)".into(),
                Eng::Async(_) => "async".into(),
            },
            human_bytes(engine.cache_bytes()),
            ctx.threads,
            engine.io().backend().name()
        );
        eprintln!("  {profile_msg}");
        if c.cache.is_capped(file_bytes) {
            eprintln!(
                "  note: --cache {} is more than the whole graph file; the pool holds the file ({})",
                c.cache,
                human_bytes(engine.cache_bytes())
            );
        }
        for note in engine.io().notes() {
            eprintln!("  note: {note}");
        }
    }
    let (table, summary, config, verdict, mut metrics) = match &a.algo {
        Algo::Bfs { source, seed, .. } => {
            let s = source_vertex(&graph, *source, *seed)?;
            let bc = bfs::BfsConfig { source: s };
            let (res, m) = on!(|r| bfs::run(r, &bc), |r| bfs::run_async(r, &bc));
            let v = c.verify.then(|| -> anyhow::Result<_> {
                Ok(bfs::verify(&Csr::load(&graph, Direction::Out)?, &res))
            });
            let cfg = serde_json::json!({"source": graph.original_id(s), "seed": seed});
            (res.table(&graph), res.summary(&graph), cfg, v, m)
        }
        Algo::Dfs {
            source,
            target,
            seed,
            split_threshold,
            stacks,
            ..
        } => {
            let s = source_vertex(&graph, *source, *seed)?;
            let t = target
                .map(|id| algo::user_vertex(&graph, id, "--target"))
                .transpose()?;
            let dcfg = dfs::DfsConfig {
                source: s,
                target: t,
                split_threshold: *split_threshold,
                max_stacks: stacks.unwrap_or(concurrency),
            };
            let (res, m) = on!(|r| dfs::run(r, &dcfg), |_| unreachable_engine());
            let v = c.verify.then(|| -> anyhow::Result<_> {
                Ok(dfs::verify(&Csr::load(&graph, Direction::Out)?, &res))
            });
            let cfg = serde_json::json!({"source": graph.original_id(s), "seed": seed,
                "split_threshold": split_threshold, "stacks": dcfg.max_stacks});
            (res.table(&graph), res.summary(&graph), cfg, v, m)
        }
        Algo::Wcc { .. } => {
            let (res, m) = on!(wcc::run, wcc::run_async);
            let v = c.verify.then(|| -> anyhow::Result<_> {
                let g = &graph;
                Ok(wcc::verify(
                    &Csr::load(g, Direction::Out)?,
                    &|v| g.original_id(v),
                    &res,
                ))
            });
            (
                res.table(&graph),
                res.summary(),
                serde_json::json!({}),
                v,
                m,
            )
        }
        Algo::Pagerank {
            damping,
            tolerance,
            max_iterations,
            semantics,
            ..
        } => {
            let pcfg = pagerank::PageRankConfig {
                damping: *damping,
                tolerance: *tolerance,
                max_iterations: *max_iterations,
                semantics: *semantics,
            };
            let (res, m) = on!(|r| pagerank::run(r, &pcfg), |r| pagerank::run_async(
                r, &pcfg
            ));
            let v = c.verify.then(|| -> anyhow::Result<_> {
                Ok(pagerank::verify(
                    &Csr::load(&graph, Direction::Out)?,
                    &pcfg,
                    &res,
                ))
            });
            let cfg = serde_json::json!({"damping": damping, "tolerance": tolerance,
                "max_iterations": max_iterations, "semantics": format!("{semantics:?}").to_lowercase()});
            (res.table(&graph), res.summary(&graph), cfg, v, m)
        }
        Algo::Kcore { k, .. } => {
            let kc = kcore::KcoreConfig { k: *k, rounds };
            let (res, m) = on!(|_| unreachable_engine(), |r| kcore::run_async(r, &kc));
            let v = c.verify.then(|| -> anyhow::Result<_> {
                Ok(kcore::verify(&Csr::load(&graph, Direction::Out)?, &res))
            });
            (
                res.table(&graph),
                res.summary(),
                serde_json::json!({"k": k}),
                v,
                m,
            )
        }
        Algo::Coreness { .. } => {
            let (res, m) = on!(|_| unreachable_engine(), |r| kcore::coreness_async(
                r, rounds
            ));
            let v = c.verify.then(|| -> anyhow::Result<_> {
                Ok(kcore::verify_coreness(
                    &Csr::load(&graph, Direction::Out)?,
                    &res,
                ))
            });
            (
                res.table(&graph),
                res.summary(),
                serde_json::json!({}),
                v,
                m,
            )
        }
        Algo::Ppr {
            source,
            seed,
            alpha,
            epsilon,
            ..
        } => {
            let s = source_vertex(&graph, *source, *seed)?;
            let pc = ppr::PprConfig {
                source: s,
                alpha: *alpha,
                epsilon: *epsilon,
            };
            let (res, m) = on!(|_| unreachable_engine(), |r| ppr::run_async(r, &pc));
            let v = c.verify.then(|| -> anyhow::Result<_> {
                Ok(ppr::verify(
                    &Csr::load(&graph, Direction::Out)?,
                    *alpha,
                    &res,
                ))
            });
            let cfg = serde_json::json!({"source": graph.original_id(s), "seed": seed,
                "alpha": alpha, "epsilon": epsilon});
            (res.table(&graph), res.summary(&graph), cfg, v, m)
        }
        Algo::Mis { seed, .. } => {
            let mc = mis::MisConfig { seed: *seed };
            let (res, m) = on!(|_| unreachable_engine(), |r| mis::run_async(r, &mc));
            let v = c.verify.then(|| -> anyhow::Result<_> {
                Ok(mis::verify(
                    &Csr::load(&graph, Direction::Out)?,
                    *seed,
                    &res,
                ))
            });
            (
                res.table(&graph),
                res.summary(),
                serde_json::json!({"seed": seed}),
                v,
                m,
            )
        }
        Algo::Sssp {
            source,
            seed,
            delta,
            ..
        } => {
            let s = source_vertex(&graph, *source, *seed)?;
            let sc = sssp::SsspConfig {
                source: s,
                delta: *delta,
            };
            let (res, m) = on!(|_| unreachable_engine(), |r| sssp::run_async(r, &sc));
            let v = c.verify.then(|| -> anyhow::Result<_> {
                Ok(sssp::verify(&Csr::load(&graph, Direction::Out)?, &res))
            });
            let cfg =
                serde_json::json!({"source": graph.original_id(s), "seed": seed, "delta": delta});
            (res.table(&graph), res.summary(&graph), cfg, v, m)
        }
        Algo::Randomwalk {
            walkers,
            steps,
            seed,
            ..
        } => {
            let wcfg = randomwalk::WalkConfig {
                walkers: *walkers,
                steps: *steps,
                seed: *seed,
            };
            let (res, m) = on!(|r| randomwalk::run(r, &wcfg), |_| unreachable_engine());
            let v = c.verify.then(|| -> anyhow::Result<_> {
                Ok(randomwalk::verify(
                    &graph,
                    &Csr::load(&graph, Direction::Out)?,
                    &wcfg,
                    &res,
                ))
            });
            let cfg = serde_json::json!({"walkers": walkers, "steps": steps, "seed": seed});
            (res.table(&graph), res.summary(), cfg, v, m)
        }
    };
    let rows = table.rows();
    let layout = table.layout();
    if let Some(o) = out {
        table.write_to(o, out_format)?;
    }
    drop(table);
    // The whole command's high-water mark, results included.
    if let Some(peak) = grotto::metrics::peak_rss_bytes() {
        metrics.peak_rss_bytes = metrics.peak_rss_bytes.max(peak);
    }
    let verified = match verdict {
        None => None,
        Some(v) => Some(v?),
    };
    let mean_request = if metrics.requests > 0 {
        metrics.bytes_read as f64 / metrics.requests as f64
    } else {
        0.0
    };
    // No device, no device fraction.
    let profile = profile
        .as_ref()
        .filter(|_| metrics.requests > 0 && metrics.backend != "memory");
    let expected =
        profile.and_then(|p| p.expected_mix_bandwidth(concurrency, &metrics.request_sizes));
    let device_fraction = expected.map(|e| metrics.read_bytes_per_s / e);
    // The same against reads all of the mean size (the simpler estimate,
    // kept for comparison).
    let device_fraction_mean_size = profile
        .and_then(|p| p.expected_bandwidth(concurrency, mean_request))
        .map(|e| metrics.read_bytes_per_s / e);
    if ctx.json {
        let j = serde_json::json!({
            "schema_version": SCHEMA_VERSION,
            "command": "run",
            "algorithm": name,
            "graph": c.graph,
            "config": config,
            "summary": summary,
            "metrics": metrics,
            "mean_request_bytes": mean_request,
            "profile_bytes_per_s": expected,
            "device_fraction": device_fraction,
            "device_fraction_mean_size": device_fraction_mean_size,
            "verified": verified.as_ref().map(|v| v.is_ok()),
            "output": c.out.as_ref().map(|o| serde_json::json!({"path": o, "format": format!("{:?}", out_format).to_lowercase(), "layout": layout})),
        });
        writeln!(msg, "{j}")?;
    } else if !ctx.quiet {
        print_human(
            &mut msg,
            name,
            &summary,
            &config,
            &metrics,
            mean_request,
            device_fraction,
        )?;
        if let Some(out) = &c.out {
            writeln!(msg, "results     {} ({rows} rows; {layout})", out.display(),)?;
        }
        if let Some(v) = &verified {
            match v {
                Ok(()) => writeln!(msg, "verify      ok")?,
                Err(m) => writeln!(msg, "verify      FAILED: {m}")?,
            }
        }
    }
    if let Some(Err(m)) = verified {
        return Err(VerifyFailed(m.0).into());
    }
    Ok(())
}

fn print_human(
    say: &mut dyn Write,
    name: &str,
    summary: &serde_json::Value,
    config: &serde_json::Value,
    m: &RunMetrics,
    mean_request: f64,
    device_fraction: Option<f64>,
) -> std::io::Result<()> {
    let kv = |v: &serde_json::Value| -> String {
        v.as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    writeln!(say, "{name:<11} {}", kv(summary))?;
    if config.as_object().is_some_and(|o| !o.is_empty()) {
        writeln!(say, "config      {}", kv(config))?;
    }
    writeln!(
        say,
        "time        {:.3} s wall, {:.3} s algorithm, {} levels",
        m.wall_s, m.algo_s, m.steps
    )?;
    writeln!(
        say,
        "edges       {} traversed, {:.2} bytes read per edge",
        m.traversed_edges, m.bytes_per_edge
    )?;
    writeln!(
        say,
        "io          {:.1} MB in {} requests (mean {:.1} KiB), {:.1} in flight on average, {:.0} MB/s over the I/O span{}",
        m.bytes_read as f64 / 1e6,
        m.requests,
        mean_request / 1024.0,
        m.mean_in_flight,
        m.read_bytes_per_s / 1e6,
        device_fraction.map_or(String::new(), |f| format!(" ({:.0}% of the device profile at this concurrency for this mix of request sizes)", f * 100.0))
    )?;
    writeln!(
        say,
        "cache       {}, hit ratio {:.3} of {} lookups, lock wait {:.2}% of thread time",
        human_bytes(m.cache_bytes),
        m.cache_hit_ratio,
        m.cache_lookups,
        m.lock_wait_share * 100.0
    )?;
    writeln!(
        say,
        "engine      {} {} mode, concurrency {}, {} threads, {}{}{}; peak RSS {} MiB",
        m.engine,
        m.mode,
        m.concurrency,
        m.threads,
        m.backend,
        if m.registered_buffers {
            " (registered buffers)"
        } else {
            ""
        },
        if m.engine == "async" {
            format!(
                ", {} block visits ({} reused in memory)",
                m.block_visits, m.block_reuses
            )
        } else {
            String::new()
        },
        m.peak_rss_bytes >> 20
    )?;
    Ok(())
}

/// The internal id of `--source`, or GAP's seeded default.
fn source_vertex(g: &Graph, source: Option<u64>, seed: u64) -> grotto::Result<grotto::VertexId> {
    match source {
        Some(id) => algo::user_vertex(g, id, "--source"),
        None => algo::pick_source(g, seed),
    }
}

/// The closure for an engine `resolve` never opens for the algorithm.
fn unreachable_engine<T>() -> grotto::Result<T> {
    Err(grotto::Error::Invalid(
        "this algorithm does not run on this engine".into(),
    ))
}

fn human_bytes(b: u64) -> String {
    match b {
        b if b >= 10 << 30 => format!("{} GiB", b >> 30),
        b if b >= 10 << 20 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    }
}
