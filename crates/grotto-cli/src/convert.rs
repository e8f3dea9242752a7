//! `grotto convert` and `grotto generate`: the build options both share,
//! the sources (text, Parquet, generators) and the conversion report.

use crate::{parse_size, say_to, words, Ctx, SCHEMA_VERSION};
use clap::{Args, Parser, Subcommand, ValueEnum};
use grotto::gen::{
    ba::Ba, grid::Grid, grid::GridConfig, rmat::Rmat, rmat::RmatConfig, AsSource, Generator,
    WeightedSource,
};
use grotto::ingest::parquet::{EdgeColumns, ParquetEdges};
use grotto::ingest::{
    convert_from, ConvertOptions, ConvertReport, Format, IdMode, Input, Source, VertexOrder,
};
use grotto::io::output::{Output, Streams};
use grotto::store::layout::LayoutConfig;
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum FormatArg {
    /// `u v` or `u v w` per line.
    Edgelist,
    /// `u v1 v2 ...` per line.
    #[value(alias = "adjlist")]
    Adjacency,
    /// Matrix Market coordinate.
    Mtx,
    /// Comma-separated values with a header line; --columns names the edge columns (default src,dst[,weight]).
    Csv,
    /// An edge table in Parquet: a file or a directory of files (detected from the .parquet extension).
    Parquet,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum IdsArg {
    /// Integers; compacted when they exceed u32 or most of the range is unused.
    Auto,
    /// Integers stored as they are (internal id = your id).
    Dense,
    /// Integers, always compacted with an id map.
    Compact,
    /// Names: any token; stored in the file, and results use them.
    String,
}

/// How edge blocks store their lists.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Compress {
    /// Raw u32 ids, 1024 a block (the layout of format versions 1 to 3).
    None,
    /// Gaps bit-packed in runs of 32 (format version 4): about half the bytes on disk and read.
    Packed,
}

/// How vertices are numbered inside the file (your ids never change).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OrderArg {
    /// In the order of your ids.
    None,
    /// By out-degree, largest first: smaller gaps to pack, and lists of similar length in the same blocks.
    Degree,
    /// Breadth-first from a peripheral vertex of each component (Cuthill-McKee): neighbours get near ids, for road networks and meshes whose ids come in no useful order; needs the edges to fit --memory.
    Bfs,
    /// Degree when degrees are skewed (the top 1% of vertices hold a tenth of the edges: social, web, R-MAT graphs); else bfs when your ids put neighbours far apart and bfs brings them 4x nearer; else none (grids and meshes in row order keep their locality).
    Auto,
}

#[derive(Args, Clone)]
pub(crate) struct BuildArgs {
    /// Treat edges as undirected (each stored in both lists).
    #[arg(long)]
    pub(crate) undirected: bool,
    /// Read the third column as f32 weights (default: detected from the first data line).
    #[arg(long, conflicts_with = "ignore_weights")]
    pub(crate) weighted: bool,
    /// Read a third column but drop it.
    #[arg(long)]
    pub(crate) ignore_weights: bool,
    /// Also store in-edges, for pull-style algorithms on directed graphs.
    #[arg(long, conflicts_with = "undirected")]
    pub(crate) reverse: bool,
    /// Keep self loops (default: drop and count them).
    #[arg(long)]
    pub(crate) keep_self_loops: bool,
    /// Keep duplicate edges (default: drop and count them; weighted duplicates keep the smallest weight).
    #[arg(long)]
    pub(crate) keep_duplicates: bool,
    /// Memory budget, e.g. 4GiB or 512MiB (default: half the available memory). Above it, the build spills to disk.
    #[arg(long, value_parser = parse_size)]
    pub(crate) memory: Option<u64>,
    /// Vertex ids: integers (auto, dense, compact), or names (string: any token, kept in the file; Parquet string columns need no flag).
    #[arg(long, value_enum, default_value_t = IdsArg::Auto)]
    pub(crate) ids: IdsArg,
    /// Blocks a list may be packed back into (ACGraph's last-fit window; 1 to 4096).
    #[arg(long, default_value_t = LayoutConfig::default().window, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))]
    pub(crate) window: usize,
    /// Store all lists in edge blocks, even those of degree 1 and 2.
    #[arg(long)]
    pub(crate) no_inline: bool,
    /// Lists of at most this many ids are packed apart, after the long ones, so that algorithms needing only low-degree vertices (k-core) read a dense region (0: no short region; at most 1024; unweighted graphs only).
    #[arg(long, default_value_t = LayoutConfig::default().short_max, value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub(crate) short_max: u32,
    /// How edge blocks store lists: packed (delta and bit-packed; weighted graphs are always stored raw) or none.
    #[arg(long, value_enum, default_value_t = Compress::Packed)]
    pub(crate) compress: Compress,
    /// Vertex numbering inside the file; ids in every result and argument stay yours (degree measured 2x faster than none on rmat22 BFS, WCC and PageRank, 3x slower on a grid's BFS: docs/format.md).
    #[arg(long, value_enum, default_value_t = OrderArg::Auto)]
    pub(crate) order: OrderArg,
    /// Directory for spill files (default: the output's directory).
    #[arg(long)]
    pub(crate) temp_dir: Option<PathBuf>,
    /// Use the external (spilling) build even when the edges fit in memory.
    #[arg(long, hide = true)]
    pub(crate) force_external: bool,
    /// External build of a generator: build each partition from its own
    /// pass over the generator instead of spilling (chosen by itself when
    /// the spill would not fit the temporary directory).
    #[arg(long, hide = true)]
    pub(crate) replay: bool,
    /// Write an empty graph when the input holds no edges (default: refuse with exit 2).
    #[arg(long)]
    pub(crate) allow_empty: bool,
}

#[derive(Args)]
pub(crate) struct ConvertArgs {
    /// Input: a text file (plain, gzip or zstd), or a Parquet file or directory of Parquet files.
    pub(crate) input: PathBuf,
    /// Output .grotto file.
    pub(crate) output: PathBuf,
    /// Input format (default: detected from the first MiB, which the report explains; a file that reads two ways is refused and needs this).
    #[arg(long, value_enum)]
    pub(crate) format: Option<FormatArg>,
    /// The graph has the vertices 0..N, isolated ones included, as GAP and igraph read edge lists (default: a leading "# vertices N" comment, as grotto writes, else the ids that occur: an id in no edge and no --vertex-file is no vertex).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) vertices: Option<u64>,
    /// More vertices, isolated ones included: a file of vertex ids, one a line (Graphalytics' NAME.v; # and % comments; gzip or zstd), or of names with --ids string.
    #[arg(long, value_name = "FILE")]
    pub(crate) vertex_file: Option<PathBuf>,
    /// Skip malformed lines with a counted warning instead of failing.
    #[arg(long)]
    pub(crate) skip_invalid: bool,
    /// Parquet or CSV (--format csv) input: the source, destination and (optional) weight columns [default: src,dst,weight].
    #[arg(long, value_name = "SRC,DST[,WEIGHT]")]
    pub(crate) columns: Option<EdgeColumns>,
    #[command(flatten)]
    pub(crate) build: BuildArgs,
}

#[derive(Args)]
pub(crate) struct GenerateArgs {
    #[command(subcommand)]
    pub(crate) kind: GenKind,
}

#[derive(Args, Clone)]
pub(crate) struct GenCommon {
    /// Output: a text edge list, or a .grotto file (then the build flags apply).
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    #[command(flatten)]
    pub(crate) build: BuildArgs,
}

#[derive(Subcommand)]
pub(crate) enum GenKind {
    /// Graph500 Kronecker graph (A=0.57, B=0.19, C=0.19), ids scrambled by a seeded bijection (the same edges for a seed whatever --threads).
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
    /// 2D grid, each vertex linked to its right and lower neighbour (road-like, high diameter); --drop and --shuffle make it irregular and out of row order, as road networks and meshes come.
    Grid {
        /// Rows.
        #[arg(long, default_value_t = 1000)]
        rows: u64,
        /// Columns.
        #[arg(long, default_value_t = 1000)]
        cols: u64,
        /// Fraction of edges dropped at random, each on its own (0 <= FRACTION < 1; road-like: 0.1 to 0.2).
        #[arg(long, default_value_t = 0.0, value_name = "FRACTION")]
        drop: f64,
        /// Vertex ids shuffled by a seeded bijection of 0..rows*cols instead of row order (row r, column c is r*cols+c).
        #[arg(long)]
        shuffle: bool,
        /// Random seed of --drop, --shuffle and --weighted's weights.
        #[arg(long, default_value_t = 1)]
        seed: u64,
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
                IdsArg::String => IdMode::String,
            },
            threads,
            order: match self.order {
                OrderArg::None => VertexOrder::None,
                OrderArg::Degree => VertexOrder::Degree,
                OrderArg::Bfs => VertexOrder::Bfs,
                OrderArg::Auto => VertexOrder::Auto,
            },
            layout: LayoutConfig {
                window: self.window,
                inline_small: !self.no_inline,
                short_max: self.short_max,
                packed: self.compress == Compress::Packed,
            },
            temp_dir: self.temp_dir.clone(),
            force_external: self.force_external,
            replay_partitions: self.replay,
            allow_empty: self.allow_empty,
            ..ConvertOptions::default()
        }
    }
}

fn is_grotto_path(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "grotto")
}

pub(crate) fn generate(ctx: &Ctx, a: GenerateArgs) -> anyhow::Result<()> {
    let (g, common, wseed): (Box<dyn Generator>, GenCommon, u64) = match a.kind {
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
            seed,
        ),
        GenKind::Grid {
            rows,
            cols,
            drop,
            shuffle,
            seed,
            common,
        } => (
            Box::new(Grid::with(GridConfig {
                rows,
                cols,
                drop,
                shuffle,
                seed,
            })?),
            common,
            seed,
        ),
        GenKind::Ba { n, m, seed, common } => (Box::new(Ba::new(n, m, seed)?), common, seed),
    };
    // Weights asked for: drawn from the generator's seed (1 for a grid).
    let weights = common.build.weighted.then_some(wseed);
    let out = common.output;
    if is_grotto_path(&out) {
        let opts = common.build.options(ctx.threads);
        let bar = ctx.bar();
        let plain = AsSource(g.as_ref());
        let weighted = weights.map(|seed| WeightedSource {
            g: g.as_ref(),
            seed,
        });
        let src: &dyn grotto::ingest::EdgeGenerator = match &weighted {
            Some(w) => w,
            None => &plain,
        };
        let r = convert_from(&Source::Generated(src), &out, &opts, &bar)?;
        bar.done();
        return print_convert(ctx, &r, "convert");
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
    let bytes = grotto::gen::write_edge_list(g.as_ref(), weights, target, &|c| {
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

pub(crate) fn convert(ctx: &Ctx, a: ConvertArgs) -> anyhow::Result<()> {
    let mut opts = a.build.options(ctx.threads);
    opts.skip_invalid = a.skip_invalid;
    opts.vertices = a.vertices;
    if let Some(v) = &a.vertex_file {
        use std::os::unix::fs::MetadataExt;
        let same = |x: &std::path::Path, y: &std::path::Path| {
            matches!((std::fs::metadata(x), std::fs::metadata(y)),
                (Ok(m), Ok(n)) if (m.dev(), m.ino()) == (n.dev(), n.ino()))
        };
        if same(v, &a.output) {
            return Err(grotto::Error::Invalid(format!(
                "{}: the output is the vertex file, an input; choose another output path",
                a.output.display()
            ))
            .into());
        }
        if matches!(a.build.ids, IdsArg::String) {
            opts.vertex_names = Some(std::sync::Arc::new(
                grotto::ingest::vertices::read_vertex_names(v)?,
            ));
        } else {
            opts.vertex_ids = Some(std::sync::Arc::new(
                grotto::ingest::vertices::read_vertex_file(v)?,
            ));
        }
    }
    let parquet = match a.format {
        Some(FormatArg::Parquet) => true,
        Some(_) => false,
        None => grotto::ingest::parquet::is_parquet(&a.input),
    };
    opts.format = a.format.and_then(|f| match f {
        FormatArg::Edgelist => Some(Format::EdgeList),
        FormatArg::Adjacency => Some(Format::AdjList),
        FormatArg::Mtx => Some(Format::MatrixMarket),
        FormatArg::Csv => Some(Format::Csv),
        FormatArg::Parquet => None,
    });
    if !parquet && a.columns.is_some() && opts.format != Some(Format::Csv) {
        return Err(grotto::Error::Invalid(
            "--columns names the columns of a Parquet input or of CSV with a header (--format csv), and this input is text without one".into(),
        )
        .into());
    }
    opts.columns = a.columns.clone();
    if parquet && (a.skip_invalid || a.vertices.is_some()) {
        return Err(grotto::Error::Invalid(
            "--skip-invalid and --vertices apply to text input, not to Parquet".into(),
        )
        .into());
    }
    let bar = ctx.bar();
    let r = if parquet {
        let cols = a.columns.clone().unwrap_or_default();
        let edges = ParquetEdges::for_options(&a.input, &cols, &opts)?;
        convert_from(&Source::Generated(&edges), &a.output, &opts, &bar)?
    } else {
        let input = Input::path(&a.input);
        convert_from(&Source::File(&input), &a.output, &opts, &bar)?
    };
    bar.done();
    if r.parse.skipped > 0 && !ctx.quiet {
        eprintln!(
            "warning: skipped {} malformed line(s); first: {}",
            r.parse.skipped,
            r.parse.first_skipped.as_deref().unwrap_or("?")
        );
    }
    print_convert(ctx, &r, "convert")
}

pub(crate) fn mib(b: u64) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

pub(crate) fn print_convert(ctx: &Ctx, r: &ConvertReport, command: &str) -> anyhow::Result<()> {
    if r.memory_floor_bytes > r.memory_budget_bytes && !ctx.quiet {
        eprintln!(
            "warning: --memory {} is below what this build needs whatever the budget, {}; it used that instead",
            grotto::metrics::human(r.memory_budget_bytes),
            floor_terms(r)
        );
    }
    let rss = grotto::metrics::peak_rss_bytes();
    if ctx.json {
        let mut v = serde_json::to_value(r)?;
        v["schema_version"] = json!(SCHEMA_VERSION);
        v["command"] = json!(command);
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
            "  {}, {}{}{}",
            words::count(r.vertices, "vertex"),
            words::count(
                r.edges,
                if r.directed {
                    "directed edge"
                } else {
                    "undirected edge"
                }
            ),
            if r.weighted { ", weighted" } else { "" },
            if r.reverse {
                ", with reverse edges"
            } else {
                ""
            }
        );
        println!(
            "  dropped {}, {}; {} read",
            words::count(r.self_loops_dropped, "self loop"),
            words::count(r.duplicates_dropped, "duplicate edge"),
            words::count(r.parse.lines, "line")
        );
        let layout = if r.packed {
            format!("packed, {:.2} bytes/entry", r.bytes_per_entry)
        } else {
            format!("fill ratio {:.3}", r.fill_ratio)
        };
        println!(
            "  {} ({} of short lists), {layout}, index {:.1} bytes/vertex{}",
            words::count(r.blocks, "block"),
            r.short_blocks,
            r.index_bytes_per_vertex,
            if r.ids_compacted {
                ", ids compacted"
            } else if r.names {
                ", vertex names stored"
            } else {
                ""
            }
        );
        match r.order {
            VertexOrder::Degree => println!(
                "  vertices ordered by degree inside (results and arguments use your ids)"
            ),
            VertexOrder::Bfs => println!(
                "  vertices ordered breadth-first inside, neighbours near (results and arguments use your ids)"
            ),
            _ => {}
        }
        println!(
            "  build path: {:?} ({}); budget {:.0} MiB, {}, {} over the input, {}",
            r.path,
            r.path_reason,
            mib(r.memory_budget_bytes),
            words::count(r.partitions as u64, "partition"),
            words::count(r.input_passes as u64, "pass"),
            words::count(r.threads as u64, "thread")
        );
        if r.memory_floor_bytes > 0 {
            println!("  memory floor {}", floor_terms(r));
        }
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

impl BuildArgs {
    pub(crate) fn parse_default() -> BuildArgs {
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            b: BuildArgs,
        }
        Wrap::parse_from(["grotto"]).b
    }
}

/// The memory floor of a bounded build in its terms: buffers, bytes per
/// vertex, and the partition that cannot be split.
fn floor_terms(r: &ConvertReport) -> String {
    let [buffers, vertices, part] = r.memory_floor_parts;
    format!(
        "{:.0} MiB = {:.0} MiB of buffers ({}) + {} B x {} vertices + {:.0} MiB of records (the longest list, at least 8 MiB)",
        mib(r.memory_floor_bytes),
        mib(buffers),
        words::count(r.threads as u64, "thread"),
        vertices / r.vertices.max(1),
        r.vertices,
        mib(part)
    )
}
