//! `grotto run ALGO GRAPH`: run an algorithm on the synchronous or the
//! asynchronous engine, print a summary with the run's metrics, write
//! per-vertex results.

use crate::{words, Ctx, SCHEMA_VERSION};
use clap::{Args, ValueEnum};
use grotto::algo::output::Format;
use grotto::algo::registry::{self, Kind, Outcome, Param, Params, Registered};
use grotto::algo::ALGORITHMS;
use grotto::cache::CacheSize;
use grotto::engine::{EngineKind, Mode, RunMetrics};
use grotto::io::output::{Output, Streams};
use grotto::io::BackendChoice;
use grotto::setup::{Prepared, RunSettings};
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

/// `grotto run ALGO GRAPH [flags]`: the algorithm, its parameters and the
/// flags every run takes. Its subcommands and their flags are built from
/// the library's registry ([`grotto::algo::ALGORITHMS`]), so a new
/// algorithm appears here without a line of CLI code.
pub struct RunArgs {
    algo: &'static dyn Registered,
    common: Common,
    params: Params,
}

/// The flag of an algorithm's parameter.
fn flag(p: &'static Param) -> clap::Arg {
    let mut a = clap::Arg::new(p.name)
        .long(p.name)
        .help(sentence(p.help))
        .value_name(p.name.to_uppercase().replace('-', "_"))
        .required(p.required)
        .action(clap::ArgAction::Set);
    a = match p.kind {
        Kind::Choice(words) => a.value_parser(clap::builder::PossibleValuesParser::new(words)),
        Kind::Flag => {
            return clap::Arg::new(p.name)
                .long(p.name)
                .help(sentence(p.help))
                .action(clap::ArgAction::SetTrue)
        }
        _ => a.value_parser(move |s: &str| p.check(s).map(|()| s.to_string())),
    };
    match p.default {
        Some(d) => a.default_value(d),
        None => a,
    }
}

/// Help text as clap's derive writes it: no full stop after one sentence.
fn sentence(s: &'static str) -> &'static str {
    s.strip_suffix('.').unwrap_or(s)
}

impl clap::Args for RunArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let mut cmd = cmd.subcommand_required(true);
        for algo in ALGORITHMS {
            let sub = clap::Command::new(algo.name()).about(sentence(algo.about()));
            let sub = Common::augment_args(sub).args(algo.params().iter().map(flag));
            cmd = cmd.subcommand(sub);
        }
        cmd
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl clap::FromArgMatches for RunArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<RunArgs, clap::Error> {
        use clap::error::ErrorKind;
        let (name, sub) = m.subcommand().ok_or_else(|| {
            clap::Error::raw(ErrorKind::MissingSubcommand, "name an algorithm to run\n")
        })?;
        let algo = registry::find(name).ok_or_else(|| {
            clap::Error::raw(
                ErrorKind::InvalidSubcommand,
                format!("no algorithm named {name:?}\n"),
            )
        })?;
        let common = Common::from_arg_matches(sub)?;
        let mut params = Params::new(algo.params());
        for p in algo.params() {
            // Only values typed by the user: defaults live in the library.
            if sub.value_source(p.name) == Some(clap::parser::ValueSource::CommandLine) {
                if p.kind == Kind::Flag {
                    params.set(p.name, "true").map_err(|e| {
                        clap::Error::raw(ErrorKind::ValueValidation, format!("{e}\n"))
                    })?;
                } else if let Some(v) = sub.get_one::<String>(p.name) {
                    params.set(p.name, v).map_err(|e| {
                        clap::Error::raw(ErrorKind::ValueValidation, format!("{e}\n"))
                    })?;
                }
            }
        }
        Ok(RunArgs {
            algo,
            common,
            params,
        })
    }
    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = RunArgs::from_arg_matches(m)?;
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
enum EngineChoice {
    /// Level-synchronous, concurrency-aware (CAVE).
    Sync,
    /// Asynchronous, block-centric with priorities (ACGraph).
    Async,
    /// The engine measured faster for the algorithm (see docs/engine.md).
    Auto,
}

#[derive(Args)]
struct Common {
    /// The graph file (.grotto).
    graph: PathBuf,
    /// Engine: sync (level by level), async (block-centric, priorities, no barrier) or auto (the faster one for the algorithm).
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    engine: EngineChoice,
    /// Sync engine: vertex (each active vertex reads its blocks through the cache) or block (each needed block once per level; default).
    #[arg(long)]
    mode: Option<Mode>,
    /// Reads in flight: a number, or auto for the device profile's k_r, at least 32 (32 without a profile).
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
    /// Format of --out: csv (default), bin (packed little-endian 8-byte fields), npy, parquet (the default for a name ending in .parquet; the vertex column is `id`), or graphalytics (`id value` lines as LDBC Graphalytics writes them: unreached 9223372036854775807, infinite distance Infinity).
    #[arg(long)]
    format: Option<Format>,
    /// Check the result with a serial verifier (holds the graph in memory); exit 3 if wrong.
    #[arg(long)]
    verify: bool,
}

/// Parses `grotto run` arguments (without `grotto run`), for the demo.
pub fn args_for(argv: &[&str]) -> anyhow::Result<RunArgs> {
    use clap::{Args as _, FromArgMatches as _};
    let cmd = RunArgs::augment_args(clap::Command::new("run"));
    let m = cmd.try_get_matches_from(std::iter::once("run").chain(argv.iter().copied()))?;
    Ok(RunArgs::from_arg_matches(&m)?)
}

pub fn run_cmd(ctx: &Ctx, a: RunArgs) -> anyhow::Result<()> {
    let c = &a.common;
    let name = a.algo.name();
    // Flags that would do nothing are refused, not ignored.
    if c.format.is_some() && c.out.is_none() {
        return Err(grotto::Error::Invalid(
            "--format sets the format of --out, and no --out was given".into(),
        )
        .into());
    }
    // A .parquet name asks for Parquet; anything else is CSV unless
    // --format says otherwise.
    let out_format = c
        .format
        .unwrap_or_else(|| match c.out.as_deref().map(Format::for_path) {
            Some(Format::Parquet) => Format::Parquet,
            _ => Format::Csv,
        });
    let graph = Arc::new(crate::open_graph(&c.graph)?);
    if graph.names().is_some() && matches!(out_format, Format::Bin | Format::Npy) {
        return Err(grotto::Error::Invalid(format!(
            "{}'s vertices have names, and --format {} holds numbers only; write csv or parquet",
            c.graph.display(),
            if out_format == Format::Npy {
                "npy"
            } else {
                "bin"
            }
        ))
        .into());
    }
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
    let concurrency = match c.concurrency.as_str() {
        "auto" => None,
        s => Some(s.parse::<usize>().map_err(|_| {
            grotto::Error::Invalid(format!(
                "--concurrency {s:?}: expected a number of reads or auto"
            ))
        })?),
    };
    let settings = RunSettings {
        engine: match c.engine {
            EngineChoice::Sync => Some(EngineKind::Sync),
            EngineChoice::Async => Some(EngineKind::Async),
            EngineChoice::Auto => None,
        },
        mode: c.mode,
        concurrency,
        threads: Some(ctx.threads),
        cache: c.cache,
        io: c.io,
    };
    let Prepared {
        engine,
        plan,
        config: cfg,
        profile,
        profile_note: profile_msg,
    } = grotto::setup::prepare(a.algo, &graph, &a.params, &settings)?;
    let concurrency = cfg.concurrency;
    let file_bytes = std::fs::metadata(&c.graph).map_or(0, |m| m.len());
    if !ctx.quiet && !ctx.json {
        eprintln!(
            "grotto run {name}: {} ({} vertices, {} edges), engine {}, concurrency {concurrency}, cache {}, {} threads, io {}",
            c.graph.display(),
            graph.vertex_count(),
            graph.edge_count(),
            match plan.engine {
                EngineKind::Sync => format!("sync ({} mode)", format!("{:?}", cfg.mode).to_lowercase()),
                EngineKind::Async if plan.rounds => "async in rounds mode (the synchronous formulation)".into(),
                EngineKind::Async => "async".into(),
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
    // Progress while it runs (a terminal only): a long run shows how far
    // it is; Ctrl-C ends the command (main's signal handler).
    let bar = crate::progress::RunBar::new(!ctx.quiet && !ctx.json, name, engine.progress());
    let outcome = a.algo.execute(&engine, &plan, &a.params, c.verify);
    drop(bar);
    let Outcome {
        mut table,
        summary,
        config,
        verdict: verified,
        mut metrics,
    } = outcome?;
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
    writeln!(say, "{name:<11} {}", words::entries(summary))?;
    if config.as_object().is_some_and(|o| !o.is_empty()) {
        writeln!(say, "config      {}", words::entries(config))?;
    }
    writeln!(
        say,
        "time        {:.3} s wall, {:.3} s algorithm, {}",
        m.wall_s,
        m.algo_s,
        words::count(m.steps, step_word(name, m.engine))
    )?;
    writeln!(
        say,
        "edges       {} traversed, {:.2} bytes read per edge",
        m.traversed_edges, m.bytes_per_edge
    )?;
    writeln!(
        say,
        "io          {:.1} MB in {} (mean {:.1} KiB), {:.1} in flight on average, {:.0} MB/s over the I/O span{}",
        m.bytes_read as f64 / 1e6,
        words::count(m.requests, "request"),
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

/// What one engine step is to a reader: a pass of the async engine, a
/// level of a traversal, a step (bucket) of delta-stepping, an iteration
/// of anything else.
fn step_word(algorithm: &str, engine: &str) -> &'static str {
    match (engine, algorithm) {
        ("async", _) => "pass",
        (_, "bfs" | "eccentricity" | "bc" | "dfs") => "level",
        (_, "sssp") => "step",
        _ => "iteration",
    }
}

fn human_bytes(b: u64) -> String {
    match b {
        b if b >= 10 << 30 => format!("{} GiB", b >> 30),
        b if b >= 10 << 20 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    }
}
