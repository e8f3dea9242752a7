//! The `grotto` command line: generate, convert, info, export, check, demo,
//! profile, doctor, bench.

mod bench;
mod device;
mod plot;
mod progress;
mod run;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use grotto::export::{export, ExportFormat};
use grotto::gen::{ba::Ba, grid::Grid, rmat::Rmat, rmat::RmatConfig, AsSource, Generator};
use grotto::ingest::{convert_from, ConvertOptions, ConvertReport, Format, IdMode, Input, Source};
use grotto::io::output::{Output, Streams};
use grotto::store::layout::LayoutConfig;
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
    /// Print nothing but errors (and the result of export).
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
    /// Convert a text edge list, adjacency list or Matrix Market file (optionally gzip/zstd) into a .grotto file.
    Convert(ConvertArgs),
    /// Run an algorithm on a .grotto file (`grotto run --help` lists them).
    Run(run::RunArgs),
    /// Describe a .grotto file.
    Info {
        /// The graph file.
        file: PathBuf,
    },
    /// Write a .grotto file back as text, in the original vertex ids.
    Export {
        /// The graph file.
        file: PathBuf,
        /// Text format.
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
    /// Benchmarks of grotto's layers: `bench io` (reader against the device), `bench pool` (cache hit path).
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
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    /// `u v` or `u v w` per line.
    Edgelist,
    /// `u v1 v2 ...` per line.
    #[value(alias = "adjlist")]
    Adjacency,
    /// Matrix Market coordinate.
    Mtx,
}

#[derive(Clone, Copy, ValueEnum)]
enum IdsArg {
    Auto,
    Dense,
    Compact,
}

#[derive(Args, Clone)]
struct BuildArgs {
    /// Treat edges as undirected (each stored in both lists).
    #[arg(long)]
    undirected: bool,
    /// Read the third column as f32 weights (default: detected from the first data line).
    #[arg(long, conflicts_with = "ignore_weights")]
    weighted: bool,
    /// Read a third column but drop it.
    #[arg(long)]
    ignore_weights: bool,
    /// Also store in-edges, for pull-style algorithms on directed graphs.
    #[arg(long, conflicts_with = "undirected")]
    reverse: bool,
    /// Keep self loops (default: drop and count them).
    #[arg(long)]
    keep_self_loops: bool,
    /// Keep duplicate edges (default: drop and count them; weighted duplicates keep the smallest weight).
    #[arg(long)]
    keep_duplicates: bool,
    /// Memory budget, e.g. 4GiB or 512MiB (default: half the available memory). Above it, the build spills to disk.
    #[arg(long, value_parser = parse_size)]
    memory: Option<u64>,
    /// Vertex ids: auto compacts when ids exceed u32 or most of the id range is unused.
    #[arg(long, value_enum, default_value_t = IdsArg::Auto)]
    ids: IdsArg,
    /// Blocks a list may be packed back into (ACGraph's last-fit window; 1 to 4096).
    #[arg(long, default_value_t = LayoutConfig::default().window, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))]
    window: usize,
    /// Store all lists in edge blocks, even those of degree 1 and 2.
    #[arg(long)]
    no_inline: bool,
    /// Lists of at most this many ids are packed apart, after the long ones, so that algorithms needing only low-degree vertices (k-core) read a dense region (0: no short region; at most 1024; unweighted graphs only).
    #[arg(long, default_value_t = LayoutConfig::default().short_max, value_parser = clap::value_parser!(u32).range(0..=1024))]
    short_max: u32,
    /// Directory for spill files (default: the output's directory).
    #[arg(long)]
    temp_dir: Option<PathBuf>,
    /// Use the external (spilling) build even when the edges fit in memory.
    #[arg(long, hide = true)]
    force_external: bool,
    /// Write an empty graph when the input holds no edges (default: refuse with exit 2).
    #[arg(long)]
    allow_empty: bool,
}

#[derive(Args)]
struct ConvertArgs {
    /// Input text file (plain, gzip or zstd).
    input: PathBuf,
    /// Output .grotto file.
    output: PathBuf,
    /// Input format (default: detected from the first MiB, which the report explains; a file that reads two ways is refused and needs this).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// The graph has the vertices 0..N, isolated ones included (default: a leading "# vertices N" comment, as grotto writes, else the ids seen).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    vertices: Option<u64>,
    /// Skip malformed lines with a counted warning instead of failing.
    #[arg(long)]
    skip_invalid: bool,
    #[command(flatten)]
    build: BuildArgs,
}

#[derive(Args)]
struct GenerateArgs {
    #[command(subcommand)]
    kind: GenKind,
}

#[derive(Args, Clone)]
struct GenCommon {
    /// Output: a text edge list, or a .grotto file (then the build flags apply).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    build: BuildArgs,
}

#[derive(Subcommand)]
enum GenKind {
    /// Graph500 Kronecker graph (A=0.57, B=0.19, C=0.19), ids randomly permuted.
    Rmat {
        /// log2 of the vertex count.
        #[arg(long, default_value_t = 16)]
        scale: u32,
        /// Edges per vertex.
        #[arg(long, default_value_t = 16)]
        edge_factor: u64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        common: GenCommon,
    },
    /// 2D grid, each vertex linked to its right and lower neighbour (road-like, high diameter).
    Grid {
        /// Rows.
        #[arg(long, default_value_t = 1000)]
        rows: u64,
        /// Columns.
        #[arg(long, default_value_t = 1000)]
        cols: u64,
        #[command(flatten)]
        common: GenCommon,
    },
    /// Barabasi-Albert preferential attachment graph.
    Ba {
        /// Vertices.
        #[arg(long, default_value_t = 100_000)]
        n: u64,
        /// Links per new vertex.
        #[arg(long, default_value_t = 8)]
        m: u64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        common: GenCommon,
    },
}

/// Parses sizes like `4GiB`, `512MiB`, `1.5G`, `1000000`.
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    grotto::cache::parse_bytes(s)
}

impl BuildArgs {
    fn options(&self, threads: usize) -> ConvertOptions {
        ConvertOptions {
            undirected: self.undirected,
            weighted: if self.weighted { Some(true) } else { None },
            ignore_weights: self.ignore_weights,
            reverse: self.reverse,
            keep_self_loops: self.keep_self_loops,
            keep_duplicates: self.keep_duplicates,
            memory_bytes: self.memory,
            ids: match self.ids {
                IdsArg::Auto => IdMode::Auto,
                IdsArg::Dense => IdMode::Dense,
                IdsArg::Compact => IdMode::Compact,
            },
            threads,
            layout: LayoutConfig {
                window: self.window,
                inline_small: !self.no_inline,
                short_max: self.short_max,
            },
            temp_dir: self.temp_dir.clone(),
            force_external: self.force_external,
            allow_empty: self.allow_empty,
            ..ConvertOptions::default()
        }
    }
}

pub(crate) struct Ctx {
    pub(crate) quiet: bool,
    pub(crate) json: bool,
    pub(crate) threads: usize,
}

impl Ctx {
    fn bar(&self) -> Bar {
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
            if let Some(sig) = signals.forever().next() {
                grotto::io::output::exit_removing_temporaries(128 + sig);
            }
        });
}

fn main() {
    grotto::io::system::restore_default_sigpipe();
    install_signal_cleanup();
    let cli = Cli::parse();
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
        Cmd::Convert(a) => convert(&ctx, a),
        Cmd::Info { file } => info(&ctx, &file),
        Cmd::Export {
            file,
            format,
            output,
        } => export_cmd(&ctx, &file, format, output),
        Cmd::Check { file } => check(&ctx, &file),
        Cmd::Demo { dir } => demo(&ctx, dir),
        Cmd::Profile(a) => device::profile_cmd(&ctx, a),
        Cmd::Doctor(a) => device::doctor(&ctx, a),
        Cmd::Bench(a) => bench::bench(&ctx, a),
        Cmd::Run(a) => run::run_cmd(&ctx, a),
    };
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

fn is_grotto_path(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "grotto")
}

fn generate(ctx: &Ctx, a: GenerateArgs) -> anyhow::Result<()> {
    let (g, common): (Box<dyn Generator>, GenCommon) = match a.kind {
        GenKind::Rmat {
            scale,
            edge_factor,
            seed,
            common,
        } => (
            Box::new(Rmat::new(RmatConfig {
                scale,
                edge_factor,
                seed,
                ..Default::default()
            })?),
            common,
        ),
        GenKind::Grid { rows, cols, common } => (Box::new(Grid::new(rows, cols)?), common),
        GenKind::Ba { n, m, seed, common } => (Box::new(Ba::new(n, m, seed)?), common),
    };
    let out = common.output;
    if is_grotto_path(&out) {
        let opts = common.build.options(ctx.threads);
        let bar = ctx.bar();
        let src = AsSource(g.as_ref());
        let r = convert_from(&Source::Generated(&src), &out, &opts, &bar)?;
        bar.done();
        return print_convert(ctx, &r);
    }
    let t = std::time::Instant::now();
    let target = Output::create(&out, &[], Streams::Allowed)?;
    if let grotto::io::output::Target::File(p) = target.target() {
        // About 16 bytes a line ("1234567 7654321\n"); refuse what cannot fit.
        let need = g.edges().saturating_mul(16);
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if let Some(free) = grotto::io::system::free_disk_bytes(dir) {
            if need > free {
                return Err(grotto::Error::Limit {
                    what: format!(
                        "{}: {} edges take about {} as text, more than the {} free there",
                        out.display(),
                        g.edges(),
                        grotto::metrics::human(need),
                        grotto::metrics::human(free)
                    ),
                }
                .into());
            }
        }
    }
    let mut say = say_to(&target);
    let bar = ctx.bar();
    grotto::ingest::Progress::stage(&bar, "generate", Some(g.chunks() as u64));
    let bytes = grotto::gen::write_edge_list(g.as_ref(), target, &|c| {
        grotto::ingest::Progress::set(&bar, c)
    })?;
    bar.done();
    let secs = t.elapsed().as_secs_f64();
    if ctx.json {
        writeln!(
            say,
            "{}",
            json!({"schema_version": SCHEMA_VERSION, "command": "generate", "graph": g.describe(), "output": out, "vertices": g.vertices(), "edges": g.edges(), "bytes": bytes, "seconds": secs, "threads": ctx.threads})
        )?;
    } else if !ctx.quiet {
        writeln!(
            say,
            "generated {} ({} vertices, {} edges, {:.1} MiB) -> {} in {:.2} s with {} threads",
            g.describe(),
            g.vertices(),
            g.edges(),
            bytes as f64 / (1 << 20) as f64,
            out.display(),
            secs,
            ctx.threads
        )?;
    }
    Ok(())
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

fn convert(ctx: &Ctx, a: ConvertArgs) -> anyhow::Result<()> {
    let mut opts = a.build.options(ctx.threads);
    opts.skip_invalid = a.skip_invalid;
    opts.vertices = a.vertices;
    opts.format = a.format.map(|f| match f {
        FormatArg::Edgelist => Format::EdgeList,
        FormatArg::Adjacency => Format::AdjList,
        FormatArg::Mtx => Format::MatrixMarket,
    });
    let bar = ctx.bar();
    let input = Input::path(&a.input);
    let r = convert_from(&Source::File(&input), &a.output, &opts, &bar)?;
    bar.done();
    if r.memory_floor_bytes > r.memory_budget_bytes && !ctx.quiet {
        eprintln!(
            "warning: --memory {} is below what this build needs whatever the budget ({:.0} MiB for {} vertices, {} threads: index, block map, write and parse buffers); it used that instead",
            grotto::metrics::human(r.memory_budget_bytes),
            mib(r.memory_floor_bytes),
            r.vertices,
            r.threads
        );
    }
    if r.parse.skipped > 0 && !ctx.quiet {
        eprintln!(
            "warning: skipped {} malformed line(s); first: {}",
            r.parse.skipped,
            r.parse.first_skipped.as_deref().unwrap_or("?")
        );
    }
    print_convert(ctx, &r)
}

fn mib(b: u64) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

fn print_convert(ctx: &Ctx, r: &ConvertReport) -> anyhow::Result<()> {
    let rss = grotto::metrics::peak_rss_bytes();
    if ctx.json {
        let mut v = serde_json::to_value(r)?;
        v["schema_version"] = json!(SCHEMA_VERSION);
        v["command"] = json!("convert");
        v["peak_rss_bytes"] = json!(rss);
        println!("{v}");
    } else if !ctx.quiet {
        let fmt = r.format.map(|f| f.name()).unwrap_or("generated");
        let comp = match r.compression {
            Some(grotto::ingest::Compression::Gzip) => ", gzip",
            Some(grotto::ingest::Compression::Zstd) => ", zstd",
            _ => "",
        };
        println!(
            "converted {} ({fmt}{comp}) -> {}",
            r.input,
            r.output.display()
        );
        if let Some(e) = &r.format_evidence {
            println!("  format {fmt}: {e}");
        }
        println!(
            "  {} vertices, {} {} edges{}{}",
            r.vertices,
            r.edges,
            if r.directed { "directed" } else { "undirected" },
            if r.weighted { ", weighted" } else { "" },
            if r.reverse {
                ", with reverse edges"
            } else {
                ""
            }
        );
        println!(
            "  dropped {} self loops, {} duplicate edges; {} lines read",
            r.self_loops_dropped, r.duplicates_dropped, r.parse.lines
        );
        println!(
            "  {} blocks ({} of short lists), fill ratio {:.3}, index {:.1} bytes/vertex{}",
            r.blocks,
            r.short_blocks,
            r.fill_ratio,
            r.index_bytes_per_vertex,
            if r.ids_compacted {
                ", ids compacted"
            } else {
                ""
            }
        );
        println!(
            "  build path: {:?} ({}); budget {:.0} MiB, {} partitions, {} threads",
            r.path,
            r.path_reason,
            mib(r.memory_budget_bytes),
            r.partitions,
            r.threads
        );
        println!(
            "  time {:.2} s (parse {:.2} s, build {:.2} s, finish {:.2} s); peak RSS {}",
            r.timings.total_s,
            r.timings.parse_s,
            r.timings.build_s,
            r.timings.finish_s,
            rss.map_or("unknown".into(), |b| format!("{:.0} MiB", mib(b)))
        );
    }
    Ok(())
}

fn info(ctx: &Ctx, file: &Path) -> anyhow::Result<()> {
    let g = Graph::open(file)?;
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
        "  dropped          {} self loops, {} duplicates, {} malformed lines",
        i.self_loops_dropped, i.duplicates_dropped, i.lines_skipped
    );
    for (name, a) in [("out", Some(&i.out)), ("in", i.r#in.as_ref())] {
        let Some(a) = a else { continue };
        let label = if i.directed { name } else { "adjacency" };
        println!(
            "  {label}: {} entries ({} inline), {} blocks, fill ratio {:.3}",
            a.entries, a.inline_entries, a.blocks, a.fill_ratio
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
    let g = Graph::open(file)?;
    let f = match format {
        ExportFmt::Edgelist => ExportFormat::EdgeList,
        ExportFmt::Mtx => ExportFormat::MatrixMarket,
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
    let n = export(&g, f, &mut w, &shown)?;
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
    if ctx.json {
        println!(
            "{}",
            json!({"schema_version": SCHEMA_VERSION, "command": "check", "file": file, "ok": true, "blocks": n})
        );
    } else if !ctx.quiet {
        println!("{}: ok ({} blocks checked)", file.display(), n);
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
    convert(
        &quiet,
        ConvertArgs {
            input: el,
            output: gf.clone(),
            format: None,
            vertices: None,
            skip_invalid: false,
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

impl BuildArgs {
    fn parse_default() -> BuildArgs {
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            b: BuildArgs,
        }
        Wrap::parse_from(["grotto"]).b
    }
}
