//! `grotto extract`: the subgraph a set of vertices induces, written as
//! a grotto file, an edge list or a Parquet edge table.

use crate::{Ctx, SCHEMA_VERSION};
use clap::{Args, ValueEnum};
use grotto::algo::ego::Towards;
use grotto::algo::user_vertex;
use grotto::engine::EngineConfig;
use grotto::extract::{select, write, Filter, PieceFormat, Selection};
use grotto::ingest::vertices::{read_vertex_file, read_vertex_names};
use grotto::ingest::ConvertOptions;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Args)]
#[command(group = clap::ArgGroup::new("which").required(true).multiple(false))]
pub(crate) struct ExtractArgs {
    /// The graph file.
    graph: PathBuf,
    /// Where the piece goes: a .grotto file, a .parquet edge table, or an edge list (any other name; - for standard output).
    output: PathBuf,
    /// Keep the vertices listed in FILE (one id, or for a graph of names one name, a line).
    #[arg(long, value_name = "FILE", group = "which")]
    vertices: Option<PathBuf>,
    /// Keep the ego network of vertex V: every vertex within --radius hops of it.
    #[arg(long, value_name = "V", group = "which")]
    ego: Option<String>,
    /// The ego network's radius in hops.
    #[arg(long, default_value_t = 1, requires = "ego")]
    radius: u32,
    /// Which edges the ego network follows: out-edges (networkx's default), in-edges (a directed graph's reverse edges) or both (networkx's undirected=True).
    #[arg(long, value_enum, default_value_t = DirArg::Out, requires = "ego")]
    direction: DirArg,
    /// Keep the K-core: the largest subgraph where every vertex has at least K neighbours (undirected graphs).
    #[arg(long, value_name = "K", group = "which")]
    kcore: Option<u32>,
    /// Keep the weakly connected component of vertex V, or the largest one (`largest`).
    #[arg(long, value_name = "V|largest", group = "which")]
    component: Option<String>,
    /// Keep one community of a result (grotto run louvain|leiden|cdlp -o FILE): FILE:LABEL.
    #[arg(long, value_name = "FILE:LABEL", group = "which")]
    community: Option<String>,
    /// Keep the vertices whose row of a result passes a test: RESULT:COLUMN OP VALUE, OP one of < <= > >= = !=, as ranks.parquet:rank>0.001.
    #[arg(long, value_name = "RESULT:COLUMN>VALUE", group = "which")]
    filter: Option<String>,
    /// Output format (default: by the output's extension).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Memory budget of a grotto file's build, e.g. 4GiB (default: half the available memory).
    #[arg(long, value_parser = crate::parse_size)]
    memory: Option<u64>,
}

#[derive(Clone, Copy, ValueEnum)]
enum DirArg {
    Out,
    In,
    Both,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Grotto,
    Edgelist,
    Parquet,
}

/// The selection the flags ask for, in `g`'s internal ids.
fn selection(g: &grotto::store::Graph, a: &ExtractArgs) -> anyhow::Result<Selection> {
    if let Some(f) = &a.vertices {
        let tokens: Vec<String> = if g.names().is_some() {
            read_vertex_names(f)?
        } else {
            read_vertex_file(f)?
                .into_iter()
                .map(|x| x.to_string())
                .collect()
        };
        let flag = format!("--vertices {}:", f.display());
        let vs = tokens
            .iter()
            .map(|t| user_vertex(g, t, &flag))
            .collect::<grotto::Result<Vec<_>>>()?;
        return Ok(Selection::Vertices(vs));
    }
    if let Some(v) = &a.ego {
        return Ok(Selection::Ego {
            source: user_vertex(g, v, "--ego")?,
            radius: a.radius,
            towards: match a.direction {
                DirArg::Out => Towards::Out,
                DirArg::In => Towards::In,
                DirArg::Both => Towards::Both,
            },
        });
    }
    if let Some(k) = a.kcore {
        return Ok(Selection::Kcore(k));
    }
    if let Some(c) = &a.component {
        return Ok(Selection::Component(match c.as_str() {
            "largest" => None,
            v => Some(user_vertex(g, v, "--component")?),
        }));
    }
    if let Some(c) = &a.community {
        return Ok(Selection::Filter(Filter::community(c)?));
    }
    if let Some(f) = &a.filter {
        return Ok(Selection::Filter(Filter::parse(f)?));
    }
    anyhow::bail!("give one of --vertices, --ego, --kcore, --component, --community, --filter")
}

pub(crate) fn extract_cmd(ctx: &Ctx, a: ExtractArgs) -> anyhow::Result<()> {
    let g = Arc::new(crate::open_graph(&a.graph)?);
    let sel = selection(&g, &a)?;
    let cfg = EngineConfig {
        threads: ctx.threads,
        ..EngineConfig::default()
    };
    let keep = select(&g, &sel, &cfg)?;
    let format = match a.format {
        Some(FormatArg::Grotto) => PieceFormat::Grotto,
        Some(FormatArg::Edgelist) => PieceFormat::EdgeList,
        Some(FormatArg::Parquet) => PieceFormat::Parquet,
        None => PieceFormat::for_path(&a.output),
    };
    let extra: Vec<&Path> = match &sel {
        Selection::Filter(f) => vec![f.path.as_path()],
        _ => Vec::new(),
    };
    let opts = ConvertOptions {
        threads: ctx.threads,
        memory_bytes: a.memory,
        ..ConvertOptions::default()
    };
    let bar = ctx.bar();
    let piece = write(&g, &keep, &a.output, format, &extra, &opts, &bar)?;
    bar.done();
    let to_stdout = a.output == Path::new("-");
    if ctx.json {
        let mut v = serde_json::to_value(&piece)?;
        v["schema_version"] = json!(SCHEMA_VERSION);
        v["command"] = json!("extract");
        let line = v.to_string();
        if to_stdout {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    } else if !ctx.quiet {
        eprintln!(
            "wrote {} vertices and {} edges to {}",
            piece.vertices,
            piece.edges,
            piece.output.display()
        );
    }
    Ok(())
}
