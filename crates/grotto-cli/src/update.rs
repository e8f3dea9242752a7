//! `grotto update`: change a graph file in place with batches of edge
//! inserts and deletes; `grotto compact`: fold the updates into fresh
//! blocks (docs/updates.md).

use crate::convert::{mib, FormatArg};
use crate::{words, Ctx, SCHEMA_VERSION};
use clap::Args;
use grotto::ingest::batch::{read_batch, BatchEdges};
use grotto::ingest::parquet::EdgeColumns;
use grotto::ingest::{ConvertOptions, Format};
use grotto::store::update::{GraphUpdate, Ranked};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub(crate) struct UpdateArgs {
    /// The .grotto file to change in place.
    graph: PathBuf,
    /// Edges to insert, in your ids: a file in any format `convert` reads (text, gzip or zstd, Parquet). A new id or name adds a vertex (an id past the last of dense ids adds those between too); an edge already there is counted, not an error.
    #[arg(long, value_name = "FILE")]
    insert: Option<PathBuf>,
    /// Edges to delete (same formats). An edge that is not there is counted, not an error. Deletes apply before inserts: an edge in both files ends up present. Weights in this file are ignored.
    #[arg(long, value_name = "FILE")]
    delete: Option<PathBuf>,
    /// New weights of existing edges of a weighted graph: `SRC DST WEIGHT` lines (same formats). Applied after the deletes and inserts; an edge that is not there is counted, not an error. (In a weighted graph, --insert lines carry weights too; inserting an edge already there keeps its weight.)
    #[arg(long, value_name = "FILE")]
    set_weight: Option<PathBuf>,
    /// Vertices to remove, each with every edge at it (both directions), as networkx's remove_node: one id, or for a graph of names one name, a line. A vertex the graph lacks is counted, not an error; the other vertices keep their ids. Vertex ids are positions in the file, so this rewrites it (one pass over the edges, as `compact`; a crash leaves the old file); give it alone, not with edge changes.
    #[arg(long, value_name = "FILE")]
    delete_vertices: Option<PathBuf>,
    /// Format of the edge files (default: detected, as `convert` does).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Parquet or CSV (--format csv) files: the source and destination columns [default: src,dst].
    #[arg(long, value_name = "SRC,DST")]
    columns: Option<EdgeColumns>,
    /// Read files with a weight column, ignoring the weights (the graph is unweighted).
    #[arg(long)]
    ignore_weights: bool,
    /// How the batch is committed: `auto` merges it and the pending delta into fresh blocks (one pass over the edges, a new file renamed over the old) when the delta would change more than --merge-above of the edges, else appends a delta run; `always` merges; `never` appends a run (`grotto compact` folds runs later). A graph converted --keep-duplicates always merges: each inserted line adds a copy of its edge, each deleted line removes one.
    #[arg(long, value_enum, default_value = "auto")]
    merge: MergeArg,
    /// Percentage of the adjacency entries the delta may change before `--merge auto` merges.
    #[arg(long, value_name = "PERCENT", default_value_t = 100.0 * grotto::ingest::merge::DEFAULT_MERGE_ABOVE, value_parser = parse_percent)]
    merge_above: f64,
    /// Writes a delta commit keeps in flight (n_w), 1 to 256, in requests of 128 KiB: `auto` takes the device profile's write concurrency k_w (32 without a stored profile).
    #[arg(long, value_name = "N|auto", default_value = "auto", value_parser = parse_write_depth)]
    write_depth: WriteDepth,
}

/// `--write-depth`.
#[derive(Clone, Copy)]
pub(crate) enum WriteDepth {
    /// The profile's k_w.
    Auto,
    /// Given.
    Fixed(usize),
}

fn parse_write_depth(s: &str) -> Result<WriteDepth, String> {
    use grotto::io::inplace::MAX_WRITE_DEPTH;
    if s == "auto" {
        return Ok(WriteDepth::Auto);
    }
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_WRITE_DEPTH).contains(&n) => Ok(WriteDepth::Fixed(n)),
        _ => Err(format!(
            "{s:?}: give a number of writes from 1 to {MAX_WRITE_DEPTH}, or auto"
        )),
    }
}

/// `--merge`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum MergeArg {
    /// Merge when the delta would pass --merge-above.
    Auto,
    /// Always merge.
    Always,
    /// Never merge.
    Never,
}

/// A percentage from 0 to 100.
fn parse_percent(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("{s:?} is not a percentage"))?;
    if !(0.0..=100.0).contains(&v) {
        return Err(format!("{s} is not between 0 and 100"));
    }
    Ok(v)
}

#[derive(Args)]
pub(crate) struct CompactArgs {
    /// The .grotto file to rewrite in place.
    graph: PathBuf,
    /// Memory budget, e.g. 4GiB (default: half the available memory). Above it, the rewrite spills to disk.
    #[arg(long, value_parser = crate::parse_size)]
    memory: Option<u64>,
    /// Directory for spill files (default: the graph's directory).
    #[arg(long)]
    temp_dir: Option<PathBuf>,
}

pub(crate) fn compact_cmd(ctx: &Ctx, a: CompactArgs) -> anyhow::Result<()> {
    let opts = ConvertOptions {
        threads: ctx.threads,
        memory_bytes: a.memory,
        temp_dir: a.temp_dir,
        ..ConvertOptions::default()
    };
    let bar = ctx.bar();
    let r = grotto::ingest::compact::compact(&a.graph, &opts, &bar)?;
    bar.done();
    crate::convert::print_convert(ctx, &r, "compact")
}

pub(crate) fn update_cmd(ctx: &Ctx, a: UpdateArgs) -> anyhow::Result<()> {
    let t0 = Instant::now();
    if let Some(f) = &a.delete_vertices {
        return delete_vertices_cmd(ctx, &a, f, t0);
    }
    if a.insert.is_none()
        && a.delete.is_none()
        && a.set_weight.is_none()
        && !matches!(a.merge, MergeArg::Always)
    {
        return Err(grotto::Error::Invalid(
            "nothing to do: give --insert FILE, --delete FILE or both (or --merge always to fold the pending updates into fresh blocks)".into(),
        )
        .into());
    }
    for f in a.insert.iter().chain(&a.delete).chain(&a.set_weight) {
        if f == &a.graph {
            return Err(grotto::Error::Invalid(format!(
                "{} is the graph itself, not an edge file",
                f.display()
            ))
            .into());
        }
    }
    // The lock is taken before the graph is read, so the batch is checked
    // against the version it will change.
    let mut up = GraphUpdate::open(&a.graph)?;
    for w in up.graph().warnings() {
        eprintln!("warning: {w}; this update commits on top of the commit in force (`grotto check` says more)");
    }
    let write_depth = match a.write_depth {
        WriteDepth::Fixed(n) => n,
        WriteDepth::Auto => grotto::setup::profile_for(&a.graph)
            .0
            .map_or(grotto::io::inplace::DEFAULT_WRITE_DEPTH, |p| {
                p.k_w.clamp(1, grotto::io::inplace::MAX_WRITE_DEPTH)
            }),
    };
    up.set_write_depth(write_depth)?;
    let open_s = t0.elapsed().as_secs_f64();
    let opts = ConvertOptions {
        threads: ctx.threads,
        ignore_weights: a.ignore_weights,
        format: a.format.and_then(|f| match f {
            FormatArg::Edgelist => Some(Format::EdgeList),
            FormatArg::Adjacency => Some(Format::AdjList),
            FormatArg::Mtx => Some(Format::MatrixMarket),
            FormatArg::Csv => Some(Format::Csv),
            FormatArg::Parquet => None,
        }),
        columns: a.columns.clone(),
        ..ConvertOptions::default()
    };
    // Parquet as `convert` decides it: --format parquet reads Parquet
    // whatever the name, another --format reads text, and without one a
    // .parquet file or a directory of them is Parquet.
    let parquet = a.format.map(|f| matches!(f, FormatArg::Parquet));
    let columns = a.columns.clone().unwrap_or_default();
    let names = up.graph().names().cloned();
    let weighted = up.graph().weighted();
    if a.set_weight.is_some() && !weighted {
        return Err(grotto::Error::Invalid(format!(
            "{} is unweighted: there are no weights to set",
            a.graph.display()
        ))
        .into());
    }
    // Inserts and weight changes of a weighted graph carry weights;
    // deletes never need them.
    let with_weights = ConvertOptions {
        weighted: Some(true),
        ..opts.clone()
    };
    let no_weights = ConvertOptions {
        ignore_weights: true,
        ..opts.clone()
    };
    let read = |f: &Option<PathBuf>, o: &ConvertOptions| -> anyhow::Result<BatchEdges> {
        match f {
            Some(p) => Ok(read_batch(p, o, &columns, names.as_deref(), parquet)?),
            None => Ok(BatchEdges::default()),
        }
    };
    // Every file is read in full before anything is staged: a bad line
    // in any changes nothing.
    let ins = read(&a.insert, if weighted { &with_weights } else { &opts })?;
    let del = read(&a.delete, if weighted { &no_weights } else { &opts })?;
    let set = read(&a.set_weight, &with_weights)?;
    let read_s = t0.elapsed().as_secs_f64() - open_s;
    let ins_w = (&ins.edges[..], &ins.weights[..]);
    let set_w = (&set.edges[..], &set.weights[..]);
    fn ranked(b: &BatchEdges) -> Ranked<'_> {
        Ranked {
            edges: &b.edges,
            new_names: &b.new_names,
            weights: &b.weights,
        }
    }
    match (names.is_some(), weighted) {
        (true, _) => up.stage_ranked(ranked(&ins), ranked(&del), ranked(&set))?,
        (false, false) => up.stage_ids(&ins.edges, &del.edges)?,
        (false, true) => up.stage_ids_weighted(ins_w, &del.edges, set_w)?,
    }
    let stage_s = t0.elapsed().as_secs_f64() - open_s - read_s;
    use grotto::ingest::merge::MergePolicy;
    let policy = match a.merge {
        MergeArg::Auto => MergePolicy::Above(a.merge_above / 100.0),
        MergeArg::Always => MergePolicy::Always,
        MergeArg::Never => MergePolicy::Never,
    };
    let r = grotto::ingest::merge::commit(up, policy)?;
    let total_s = t0.elapsed().as_secs_f64();
    if !ctx.quiet {
        for w in &r.warnings {
            eprintln!("warning: {w}");
        }
    }
    if ctx.json {
        let mut v = serde_json::to_value(&r)?;
        v["schema_version"] = json!(SCHEMA_VERSION);
        v["command"] = json!("update");
        v["insert_lines"] = json!(ins.edges.len());
        v["delete_lines"] = json!(del.edges.len());
        v["set_weight_lines"] = json!(set.edges.len());
        v["open_s"] = json!(open_s);
        v["read_s"] = json!(read_s);
        v["stage_s"] = json!(stage_s);
        v["write_depth"] = json!(write_depth);
        v["total_s"] = json!(total_s);
        println!("{v}");
    } else if !ctx.quiet {
        if !r.written {
            println!(
                "{}: nothing changed (commit {} stays in force)",
                a.graph.display(),
                r.commit
            );
        } else if r.merged {
            println!(
                "updated {} (merged into fresh blocks, no delta left)",
                a.graph.display()
            );
        } else {
            println!("updated {} (commit {})", a.graph.display(), r.commit);
        }
        if !r.note.is_empty() {
            println!("  note       {}", r.note);
        }
        println!(
            "  inserted   {} edges ({} already present{})",
            r.inserted,
            r.already_present,
            if r.self_loops_dropped > 0 {
                format!(
                    ", {} dropped",
                    words::count(r.self_loops_dropped, "self loop")
                )
            } else {
                String::new()
            }
        );
        println!(
            "  deleted    {} edges ({} not present)",
            r.deleted, r.not_present
        );
        if weighted {
            println!(
                "  weights    {} set ({} edges not present)",
                r.weights_set, r.weights_not_present
            );
        }
        println!(
            "  now        {} vertices ({} new), {} edges",
            r.vertices, r.new_vertices, r.edges
        );
        if r.merged {
            println!(
                "  written    {:.2} MiB: the whole graph, renamed over the old file",
                mib(r.bytes_written)
            );
        } else if r.written {
            println!(
                "  written    {:.2} MiB: one delta run{}, {write_depth} writes in flight; {} runs in force",
                mib(r.bytes_written),
                if r.folded {
                    " holding all earlier runs"
                } else {
                    ""
                },
                r.runs
            );
        }
        println!(
            "  time       open {open_s:.3} s, read {read_s:.3} s, stage {stage_s:.3} s, {} {:.3} s, {} {:.3} s, total {total_s:.3} s",
            if r.merged { "sort" } else { "resolve" },
            r.resolve_s,
            if r.merged { "merge" } else { "write" },
            r.write_s
        );
    }
    Ok(())
}

/// `update --delete-vertices FILE`: removes the vertices listed, with
/// their edges, by a rewrite of the file.
fn delete_vertices_cmd(
    ctx: &Ctx,
    a: &UpdateArgs,
    f: &std::path::Path,
    t0: Instant,
) -> anyhow::Result<()> {
    if a.insert.is_some() || a.delete.is_some() || a.set_weight.is_some() {
        return Err(grotto::Error::Invalid(
            "--delete-vertices rewrites the file and runs alone: give the edge changes \
             (--insert, --delete, --set-weight) in an update of their own"
                .into(),
        )
        .into());
    }
    if f == a.graph {
        return Err(grotto::Error::Invalid(format!(
            "{} is the graph itself, not a vertex file",
            f.display()
        ))
        .into());
    }
    let names = grotto::store::Graph::open(&a.graph)?.names().is_some();
    let tokens: Vec<String> = if names {
        grotto::ingest::vertices::read_vertex_names(f)?
    } else {
        grotto::ingest::vertices::read_vertex_file(f)?
            .into_iter()
            .map(|x| x.to_string())
            .collect()
    };
    let opts = ConvertOptions {
        threads: ctx.threads,
        ..ConvertOptions::default()
    };
    let bar = ctx.bar();
    let r = grotto::ingest::subgraph::delete_vertices(&a.graph, &tokens, &opts, &bar)?;
    bar.done();
    if ctx.json {
        let mut v = serde_json::to_value(&r)?;
        v["schema_version"] = json!(SCHEMA_VERSION);
        v["command"] = json!("update");
        v["seconds"] = json!(t0.elapsed().as_secs_f64());
        println!("{v}");
    } else if !ctx.quiet {
        println!(
            "deleted {} vertices ({} not present) with their edges: {} vertices, {} edges now",
            r.deleted, r.not_present, r.vertices, r.edges
        );
    }
    Ok(())
}
