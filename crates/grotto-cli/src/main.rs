//! The `grotto` command line: generate, convert, run, update, info,
//! export, check, demo, profile, doctor, bench.

mod bench;
mod bench_ace;
mod convert;
mod device;
mod extract;
mod graphalytics;
mod plot;
mod progress;
mod run;
mod update;
mod words;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use convert::{generate, mib, BuildArgs, ConvertArgs, GenCommon, GenKind, GenerateArgs};
use grotto::export::{export, export_parquet, ExportFormat};
use grotto::io::output::{Output, Streams};
use grotto::store::stats::{graph_info, GraphInfo};
use grotto::store::Graph;
use progress::Bar;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Schema version of every `--json` object.
pub(crate) const SCHEMA_VERSION: u32 = 1;

#[derive(Parser)]
#[command(name = "grotto", version, about = "Out-of-core graph analytics: turn edge lists into block-aligned graph files and run BFS, WCC, PageRank, k-core and more on them with the edges on disk", long_about = None)]
struct Cli {
    /// Print nothing but errors (export still writes the graph to standard output when asked to).
    #[arg(long, short, global = true)]
    quiet: bool,
    /// Print one JSON object (schema_version 1) instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// Worker threads (default: one per core).
    #[arg(long, global = true, default_value_t = 0)]
    threads: usize,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Generate a graph: as a text edge list, or straight into a .grotto file.
    Generate(GenerateArgs),
    /// Convert an edge list, adjacency list, Matrix Market, CSV or Parquet file (text optionally gzip/zstd) into a .grotto file.
    Convert(ConvertArgs),
    /// Run an algorithm on a .grotto file (`grotto run --help` lists them).
    Run(run::RunArgs),
    /// Run an LDBC Graphalytics dataset (NAME.properties): convert it, run its kernels with Graphalytics' semantics, write NAME-ALGO outputs, optionally validate them against reference outputs.
    Graphalytics(graphalytics::GraphalyticsArgs),
    /// Change a .grotto file in place: insert and delete edges given in files, without a rebuild.
    Update(update::UpdateArgs),
    /// Rewrite a .grotto file with its committed updates folded into fresh blocks (also brings older files to the current format).
    Compact(update::CompactArgs),
    /// Describe a .grotto file.
    Info {
        /// The graph file.
        file: PathBuf,
    },
    /// Write the subgraph a set of vertices induces (a list, an ego network, a k-core, a component, a community or a filter on a result) as a .grotto file, an edge list or Parquet, in your ids or names.
    Extract(extract::ExtractArgs),
    /// Write a .grotto file back as text or Parquet, in the original vertex ids.
    Export {
        /// The graph file.
        file: PathBuf,
        /// Output format: a text edge list, Matrix Market, or Parquet.
        #[arg(long, value_enum, default_value_t = ExportFmt::Edgelist)]
        format: ExportFmt,
        /// Output file (default and -: standard output; a FIFO or device is written through).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Read every block of a .grotto file and verify checksums and contents.
    Check {
        /// The graph file.
        file: PathBuf,
    },
    /// Measure the device under a directory (IOPS, bandwidth, latency against queue depth and request size) and store k_r, k_w, alpha and the merge size.
    Profile(device::ProfileArgs),
    /// Report what this machine allows: kernel, io_uring and why not, O_DIRECT, alignment, memlock, stored profile.
    Doctor(device::DoctorArgs),
    /// Benchmarks of grotto's layers: `bench io` (reader against the device), `bench pool` (cache hit path), `bench decode` (block decoder), `bench ace` (buffer-pool policies of the PIO/ACE thesis).
    Bench(bench::BenchArgs),
    /// Run grotto's main job on a small built-in graph: generate, convert, info, check, then BFS, WCC and PageRank (verified); with --json, one JSON object per step.
    Demo {
        /// Directory to work in (default: a temporary one, removed afterwards).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFmt {
    Edgelist,
    Mtx,
    /// Parquet with GraphFrames' columns src, dst[, weight].
    Parquet,
}

/// Parses sizes like `4GiB`, `512MiB`, `1.5G`, `1000000`.
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    grotto::cache::parse_bytes(s)
}

pub(crate) struct Ctx {
    pub(crate) quiet: bool,
    pub(crate) json: bool,
    pub(crate) threads: usize,
}

impl Ctx {
    pub(crate) fn bar(&self) -> Bar {
        Bar::new(!self.quiet && !self.json)
    }
}

/// The most worker threads a command may start: 8 per core, at least 64
/// (I/O-bound runs gain from a few per core; thousands only exhaust the
/// machine, and each engine thread holds buffers of its own).
fn max_threads(cores: usize) -> usize {
    (cores * 8).max(64)
}

/// SIGINT, SIGTERM and SIGHUP remove the temporary files of outputs
/// being written and end the process with 128 + the signal's number.
fn install_signal_cleanup() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("grotto-signals".into())
        .spawn(move || {
            // During a commit the signal waits: the command finishes and
            // says so (see `grotto::interrupt`).
            for sig in signals.forever() {
                grotto::interrupt::on_signal(128 + sig, |code| {
                    grotto::io::output::exit_removing_temporaries(code)
                });
            }
        });
}

/// Opens a graph for a command, warning on standard error of anything
/// found on the way that the user should know (a damaged manifest slot
/// that may hide a commit).
pub(crate) fn open_graph(file: &Path) -> grotto::Result<Graph> {
    let g = Graph::open(file)?;
    for w in g.warnings() {
        eprintln!("warning: {w} (`grotto check` says more)");
    }
    Ok(g)
}

/// The command line, parsed. An error's usage line is the command's own
/// (`grotto run pagerank [OPTIONS] <GRAPH>`), not clap's default, which
/// lists the options typed as if they were required.
fn parse_args() -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let mut cmd = plain_usage(generated_weights_help(Cli::command()));
    let parsed = cmd
        .try_get_matches_from_mut(std::env::args_os())
        .and_then(|m| Cli::from_arg_matches(&m));
    parsed.unwrap_or_else(|e| e.format(&mut cmd).exit())
}

/// `generate`'s subcommands share the build flags of `convert`, where
/// `--weighted` reads a third column; a generator has none, and draws the
/// weights itself.
fn generated_weights_help(cmd: clap::Command) -> clap::Command {
    cmd.mut_subcommand("generate", |g| {
        let kinds: Vec<String> = g
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        kinds.into_iter().fold(g, |g, kind| {
            g.mut_subcommand(kind, |k| {
                k.mut_arg("weighted", |a| {
                    a.help(
                        "Give each edge a weight in (0, 1], drawn from --seed and its two ends \
                         (both directions of an undirected edge, and a duplicate, get the same)",
                    )
                })
            })
        })
    })
}

/// `cmd` and its subcommands, each with its plain usage as the one shown.
fn plain_usage(mut cmd: clap::Command) -> clap::Command {
    cmd.build();
    plain_usage_built(cmd)
}

fn plain_usage_built(mut cmd: clap::Command) -> clap::Command {
    let usage = cmd.render_usage().to_string();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage).to_string();
    let subs: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subs {
        cmd = cmd.mut_subcommand(name, plain_usage_built);
    }
    cmd.override_usage(usage)
}

fn main() {
    grotto::io::system::restore_default_sigpipe();
    grotto::io::system::return_large_frees_to_the_kernel();
    install_signal_cleanup();
    let cli = parse_args();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let threads = if cli.threads == 0 { cores } else { cli.threads };
    let most = max_threads(cores);
    if threads > most {
        eprintln!("error: --threads {threads}: at most {most} on this machine ({cores} cores; more threads only wait on each other)");
        std::process::exit(2);
    }
    // The global pool serves parallel build steps; a failure means it was
    // already set up, which is harmless.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    let ctx = Ctx {
        quiet: cli.quiet,
        json: cli.json,
        threads,
    };
    let result = match cli.cmd {
        Cmd::Generate(a) => generate(&ctx, a),
        Cmd::Convert(a) => convert::convert(&ctx, a),
        Cmd::Update(a) => update::update_cmd(&ctx, a),
        Cmd::Compact(a) => update::compact_cmd(&ctx, a),
        Cmd::Info { file } => info(&ctx, &file),
        Cmd::Export {
            file,
            format,
            output,
        } => export_cmd(&ctx, &file, format, output),
        Cmd::Extract(a) => extract::extract_cmd(&ctx, a),
        Cmd::Check { file } => check(&ctx, &file),
        Cmd::Demo { dir } => demo(&ctx, dir),
        Cmd::Profile(a) => device::profile_cmd(&ctx, a),
        Cmd::Doctor(a) => device::doctor(&ctx, a),
        Cmd::Bench(a) => bench::bench(&ctx, a),
        Cmd::Run(a) => run::run_cmd(&ctx, a),
        Cmd::Graphalytics(a) => graphalytics::graphalytics_cmd(&ctx, a),
    };
    if let Some(sig) = grotto::interrupt::deferred() {
        if result.is_ok() {
            eprintln!(
                "grotto: the interrupt (signal {}) came after the point of no return; the command finished and its result stands",
                sig - 128
            );
        }
    }
    if let Err(e) = result {
        let code = match e.downcast_ref::<grotto::Error>() {
            Some(g) if !g.is_input_error() => 1,
            Some(_) => 2,
            None if e.downcast_ref::<run::VerifyFailed>().is_some() => 3,
            None => 1,
        };
        // grotto's errors already name their cause; other errors show their chain.
        let msg = match e.downcast_ref::<grotto::Error>() {
            Some(g) => g.to_string(),
            None => format!("{e:#}"),
        };
        eprintln!("error: {msg}");
        std::process::exit(code);
    }
}

/// Where a command's own messages go: standard output, unless its
/// output proper is being streamed there.
pub(crate) fn say_to(out: &Output) -> Box<dyn Write> {
    if out.is_stdout() {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    }
}

fn info(ctx: &Ctx, file: &Path) -> anyhow::Result<()> {
    let g = open_graph(file)?;
    let i = graph_info(&g);
    if ctx.json {
        let mut v = serde_json::to_value(&i)?;
        v["schema_version"] = json!(SCHEMA_VERSION);
        v["command"] = json!("info");
        v["file"] = json!(file);
        println!("{v}");
    } else if !ctx.quiet {
        print_info(file, &i);
    }
    Ok(())
}

fn print_info(file: &Path, i: &GraphInfo) {
    println!("{}", file.display());
    println!("  format version   {}", i.format_version);
    println!("  vertices         {}", i.vertices);
    println!(
        "  edges            {} ({})",
        i.edges,
        if i.directed { "directed" } else { "undirected" }
    );
    println!(
        "  weighted         {}",
        if i.weighted { "yes" } else { "no" }
    );
    println!(
        "  reverse edges    {}",
        if i.reverse { "yes" } else { "no" }
    );
    println!(
        "  id map           {}",
        if i.id_map {
            "yes (ids compacted)"
        } else {
            "no"
        }
    );
    println!(
        "  vertex set       {}",
        match i.vertex_set {
            "names" => "the names in the file".to_string(),
            "ids" =>
                "the ids in the id map (those that occur in an edge or were listed)".to_string(),
            _ => format!("every id in 0..{} (dense)", i.vertices),
        }
    );
    println!(
        "  vertex order     {}",
        if i.ordered {
            "renumbered inside; ids shown are yours"
        } else {
            "yours"
        }
    );
    if let Some(b) = i.names_bytes {
        println!("  vertex names     yes ({:.1} MiB)", mib(b));
    }
    println!("  file size        {:.1} MiB", mib(i.file_bytes));
    println!(
        "  index            {:.2} bytes/vertex in memory",
        i.index_bytes_per_vertex
    );
    println!(
        "  block map        {}",
        if i.block_map_stored {
            "stored"
        } else {
            "not stored: built by each block-mode run (convert the graph again to store it)"
        }
    );
    println!(
        "  dropped          {}, {}, {}",
        words::count(i.self_loops_dropped, "self loop"),
        words::count(i.duplicates_dropped, "duplicate"),
        words::count(i.lines_skipped, "malformed line")
    );
    if let Some(u) = &i.updates {
        println!(
            "  updates          {} commits since conversion (base: {} vertices, {} edges)",
            u.commits, u.base_vertices, u.base_edges
        );
        println!(
            "    pending delta  {} arcs inserted, {} deleted, {} lists changed; {} runs, {:.2} MiB on disk, {:.2} MiB in memory",
            u.inserted,
            u.deleted,
            u.changed_lists,
            u.runs,
            mib(u.run_bytes),
            mib(i.delta_memory_bytes)
        );
        if u.dead_bytes > 0 || u.unreferenced_tail > 0 {
            println!(
                "    slack          {:.2} MiB of folded runs, {:.2} MiB after the last run (a commit cut short)",
                mib(u.dead_bytes),
                mib(u.unreferenced_tail)
            );
        }
        println!(
            "    (`grotto update {} --merge always` folds the delta into fresh blocks; an update that takes it past 5% of the entries merges by itself)",
            file.display()
        );
    }
    for (name, a) in [("out", Some(&i.out)), ("in", i.r#in.as_ref())] {
        let Some(a) = a else { continue };
        let label = if i.directed { name } else { "adjacency" };
        let layout = if a.encoding == "packed" {
            format!(
                "packed ({} of whole lists, {} of long-list pieces)",
                a.packed_blocks, a.span_blocks
            )
        } else {
            format!("raw u32, fill ratio {:.3}", a.fill_ratio)
        };
        println!(
            "  {label}: {} ({} inline), {} {layout}, {:.2} bytes/entry on disk",
            words::count(a.entries, "entry"),
            a.inline_entries,
            words::count(a.blocks, "block"),
            a.bytes_per_entry
        );
        let d = &a.degrees;
        println!(
            "    degree min {} max {} mean {:.2}, {} vertices of degree 0",
            d.min, d.max, d.mean, d.zero
        );
        let hist: Vec<String> = d
            .log2_histogram
            .iter()
            .enumerate()
            .map(|(b, c)| format!("[{}..{}):{}", 1u64 << b, 1u64 << (b + 1), c))
            .collect();
        println!("    log2 histogram {}", hist.join(" "));
    }
}

fn export_cmd(
    ctx: &Ctx,
    file: &Path,
    format: ExportFmt,
    output: Option<PathBuf>,
) -> anyhow::Result<()> {
    let g = open_graph(file)?;
    let f = match format {
        ExportFmt::Edgelist => Some(ExportFormat::EdgeList),
        ExportFmt::Mtx => Some(ExportFormat::MatrixMarket),
        ExportFmt::Parquet => None,
    };
    // Without -o the text goes to standard output.
    let out = Output::create(
        output.as_deref().unwrap_or(Path::new("-")),
        &[file],
        Streams::Allowed,
    )?;
    let shown = out.path().to_path_buf();
    let mut say = say_to(&out);
    let to_stdout = out.is_stdout();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, out.file());
    let n = match f {
        Some(f) => export(&g, f, &mut w, &shown)?,
        None => export_parquet(&g, &mut w, &shown)?,
    };
    w.flush()
        .map_err(|e| grotto::Error::io(&shown, "write", e))?;
    drop(w);
    out.commit()?;
    if ctx.json {
        writeln!(
            say,
            "{}",
            json!({"schema_version": SCHEMA_VERSION, "command": "export", "output": shown, "edges": n})
        )?;
    } else if !ctx.quiet && !to_stdout {
        eprintln!("wrote {n} edges to {}", shown.display());
    }
    Ok(())
}

fn check(ctx: &Ctx, file: &Path) -> anyhow::Result<()> {
    let g = Graph::open(file)?;
    let n = g.verify_all_blocks()?;
    let findings = g.slot_findings();
    // A slot that may hide a commit fails the check; one whose partner
    // provably holds the latest commit is reported and passes.
    let ok = !findings.iter().any(|f| f.may_hide_a_commit);
    if ctx.json {
        let manifest: Vec<_> = findings
            .iter()
            .map(|f| json!({"slot": f.slot, "may_hide_a_commit": f.may_hide_a_commit, "finding": f.text}))
            .collect();
        println!(
            "{}",
            json!({"schema_version": SCHEMA_VERSION, "command": "check", "file": file, "ok": ok, "blocks": n, "manifest": manifest})
        );
    } else {
        for f in findings {
            eprintln!(
                "{}: {}: {}",
                if f.may_hide_a_commit { "error" } else { "note" },
                file.display(),
                f.text
            );
        }
        if ok && !ctx.quiet {
            println!(
                "{}: ok ({} checked)",
                file.display(),
                words::count(n, "block")
            );
        }
    }
    if !ok {
        if !ctx.json {
            eprintln!(
                "{}: every block is sound, but a commit may be missing. If the last update finished (exit 0), restore the file from a copy or convert the edge list again and apply the batches since; if it was interrupted, the graph is as it was before it and the next update makes this go away.",
                file.display()
            );
        }
        std::process::exit(1);
    }
    Ok(())
}

fn demo(ctx: &Ctx, dir: Option<PathBuf>) -> anyhow::Result<()> {
    let tmp;
    let dir = match dir {
        Some(d) => {
            std::fs::create_dir_all(&d)
                .with_context(|| format!("cannot create {}", d.display()))?;
            d
        }
        None => {
            tmp = tempfile::tempdir()?;
            tmp.path().to_path_buf()
        }
    };
    let el = dir.join("rmat16.el");
    let gf = dir.join("rmat16.grotto");
    // Each step prints what it prints alone: text, or with --json one
    // JSON object per step (JSON Lines).
    let quiet = Ctx {
        quiet: ctx.quiet,
        json: ctx.json,
        threads: ctx.threads,
    };
    let say = !ctx.quiet && !ctx.json;
    if say {
        println!(
            "$ grotto generate rmat --scale 16 --edge-factor 16 --seed 1 -o {}",
            el.display()
        );
    }
    generate(
        &quiet,
        GenerateArgs {
            kind: GenKind::Rmat {
                scale: 16,
                edge_factor: 16,
                seed: 1,
                common: GenCommon {
                    output: el.clone(),
                    build: BuildArgs::parse_default(),
                },
            },
        },
    )?;
    if say {
        println!(
            "\n$ grotto convert {} {} --undirected",
            el.display(),
            gf.display()
        );
    }
    let mut build = BuildArgs::parse_default();
    build.undirected = true;
    convert::convert(
        &quiet,
        ConvertArgs {
            input: el,
            output: gf.clone(),
            format: None,
            vertices: None,
            vertex_file: None,
            skip_invalid: false,
            columns: None,
            build,
        },
    )?;
    if say {
        println!("\n$ grotto info {}", gf.display());
    }
    info(ctx, &gf)?;
    check(&quiet, &gf)?;
    let g = gf.to_string_lossy().into_owned();
    for algo in ["bfs", "wcc", "pagerank"] {
        if say {
            println!("\n$ grotto run {algo} {g} --verify");
        }
        run::run_cmd(&quiet, run::args_for(&[algo, &g, "--verify"])?)?;
    }
    Ok(())
}
