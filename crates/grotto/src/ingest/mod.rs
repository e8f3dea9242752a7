//! Turning text edge lists (or generated edges) into a grotto file.
//!
//! [`convert`] picks one of two build paths from the memory budget:
//! - **memory**: one parse straight into per-cell record pages, then cells
//!   become sorted lists in parallel and are packed and written;
//! - **external**: when the records would not fit, a first pass collects
//!   ids, a second counts records per vertex (which give the vertex
//!   order), the vertices are cut into build units and partitions of
//!   whole units that fit the budget, a third pass scatters records into
//!   one spill file per partition, and partitions are then built and
//!   appended one at a time. Peak memory is the budget, or the floor
//!   (buffers, 16 bytes a vertex and the longest list) when that is more.
//!
//! The user never picks: the memory path is tried when the estimated
//! records fit and abandons itself for the external path if they do not.
//!
//! Where things are: [`options`] (what a conversion is asked and reports),
//! this module (the plan, [`convert_from`], and the steps both paths
//! share: id decisions, building an adjacency), `finish.rs` (the final
//! sections and the report), `memory.rs` and `external.rs` (the two paths), [`checks`] (what is
//! refused before work, the memory floor), [`sniff`] (format detection),
//! [`parse`], [`source`], [`records`], [`build`] and [`ids`].

pub mod arrays;
pub mod batch;
pub mod build;
pub mod cell;
pub mod checks;
pub mod compact;
pub mod csv;
mod external;
mod finish;
pub mod gather;
pub mod ids;
pub mod locality;
mod memory;
pub mod merge;
pub mod names;
pub mod options;
pub mod order;
pub mod parquet;
pub mod parse;
mod plan;
mod radix;
pub mod records;
pub mod sniff;
pub mod source;
pub mod subgraph;
pub mod vertices;

pub use options::*;
pub use parse::Format;
pub use source::{Compression, Input};

use crate::error::{Error, Result};
use crate::io::output::{Output, Streams};
use crate::store::format::*;
use crate::store::writer::GraphWriter;
use build::{AdjBuilder, AdjSummary};
use cell::{build_cell, LocalCsr};
use checks::{
    check_input, check_vertex_memory, memory_floor_parts, with_detection, write_buffer_bytes,
    MIN_PARTITION_BYTES,
};
use external::Spill;

use ids::{CompactMap, IdMapper, SeenIds};
use parse::{EdgeSink, ParseCounts, ParseSpec};
use plan::{default_threads, estimate_lines, Plan};
use rayon::prelude::*;
use records::{
    Bucketed, CellSink, Destination, Group, Page, RecordRules, SpillSet, StatsSink, Unit,
    CELL_SHIFT,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicI64;
use std::sync::Arc;
use std::time::Instant;

/// How a text input is parsed: its format sniffed (or forced), the parse
/// spec, what the sniffer saw (skip lines corrected for a CSV header),
/// and why that format, in words.
pub(crate) fn text_spec(
    path: &Path,
    opts: &ConvertOptions,
) -> Result<(ParseSpec, sniff::Sniffed, String)> {
    let weights_said = opts.weighted == Some(true) || opts.ignore_weights;
    let sn = sniff::sniff(path, opts.format, weights_said)?;
    let mut evidence = sn.evidence.clone();
    if sn.format == Format::AdjList && opts.weighted == Some(true) {
        return Err(Error::Invalid(
            "weighted adjacency lists are not supported; use an edge list with a weight column"
                .into(),
        ));
    }
    let has_w = sn.has_weights && sn.format != Format::AdjList;
    let weighted = !opts.ignore_weights && opts.weighted.unwrap_or(has_w);
    let spec = ParseSpec {
        format: sn.format,
        weighted,
        ignore_weights: sn.format == Format::EdgeList
            && !weighted
            && has_w
            && opts.weighted.is_none()
            || (opts.ignore_weights && has_w),
        mtx: sn.mtx,
        skip_invalid: opts.skip_invalid,
        csv: None,
    };
    let mut spec = spec;
    let mut sn = sn;
    if sn.format == Format::Csv {
        let (text, _) = sniff::sample(path)?;
        let weights = if opts.ignore_weights {
            Some(false)
        } else {
            opts.weighted
        };
        let columns = opts.columns.clone().unwrap_or_default();
        let h = csv::header(path, &text, &columns, weights)?;
        spec.csv = Some(h.columns);
        spec.weighted = h.columns.weight.is_some();
        spec.ignore_weights = false;
        sn.skip_lines = h.skip_lines;
        evidence = h.evidence;
    } else if opts.columns.is_some() {
        return Err(Error::Invalid(format!(
            "column names are given, and {} reads as {} (no header): column names apply to \
             Parquet and to CSV with a header (--format csv)",
            path.display(),
            sn.format.name()
        )));
    }
    Ok((spec, sn, evidence))
}

/// Converts `input` into the graph file `output`: a Parquet file or a
/// directory of them (edge columns named by `columns`), or else a text
/// file in any format [`convert`] reads.
pub fn convert_path(
    input: &Path,
    output: &Path,
    opts: &ConvertOptions,
    columns: &parquet::EdgeColumns,
    progress: &dyn Progress,
) -> Result<ConvertReport> {
    if parquet::is_parquet(input) {
        let edges = parquet::ParquetEdges::for_options(input, columns, opts)?;
        convert_from(&Source::Generated(&edges), output, opts, progress)
    } else if opts.format == Some(Format::Csv) {
        let opts = ConvertOptions {
            columns: Some(columns.clone()),
            ..opts.clone()
        };
        convert_from(&Source::File(&Input::path(input)), output, &opts, progress)
    } else {
        convert_from(&Source::File(&Input::path(input)), output, opts, progress)
    }
}

/// Converts the text file `input` into the graph file `output`.
pub fn convert(input: &Input, output: &Path, opts: &ConvertOptions) -> Result<ConvertReport> {
    convert_from(&Source::File(input), output, opts, &NoProgress)
}

/// Converts edges from `source` into `output`, reporting progress.
pub fn convert_from(
    source: &Source,
    output: &Path,
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertReport> {
    let t0 = Instant::now();
    let threads = default_threads(opts.threads);
    // The destination is checked (and its temporary made) before any work.
    let inputs: Vec<PathBuf> = match source {
        Source::File(input) => {
            check_input(&input.path)?;
            vec![input.path.clone()]
        }
        Source::Generated(g) => g.inputs(),
    };
    let inputs: Vec<&Path> = inputs.iter().map(|p| p.as_path()).collect();
    let out = Output::create(output, &inputs, Streams::Refused)?;
    if let Some(v) = opts.vertices {
        if v > MAX_VERTICES {
            return Err(Error::Limit {
                what: format!(
                    "--vertices {v} exceeds the format's limit of {MAX_VERTICES} vertices"
                ),
            });
        }
    }
    let mut evidence = None;
    let mut fixed_from = String::from("the generator");
    let (spec, skip_lines, fixed_n, id_base, format, compression, mut undirected, est_edges) =
        match source {
            Source::File(input) => {
                let compression = source::detect_compression(&input.path)?;
                let (spec, sn, ev) = text_spec(&input.path, opts)?;
                evidence = Some(ev);
                let (fixed, base, und) = match (sn.mtx, opts.vertices, sn.declared_vertices) {
                    (Some(h), Some(v), _) if v != h.n => {
                        return Err(Error::Invalid(format!(
                            "--vertices {v} contradicts the Matrix Market size line ({} rows)",
                            h.n
                        )))
                    }
                    (Some(h), _, _) => {
                        fixed_from = format!("the size line (line {})", h.size_line);
                        (Some(h.n), 1, h.symmetric)
                    }
                    (None, Some(v), _) => {
                        fixed_from = "--vertices".into();
                        (Some(v), 0, false)
                    }
                    (None, None, Some((v, line))) => {
                        fixed_from = format!("the \"# vertices {v}\" comment on line {line}; --vertices overrides it");
                        (Some(v), 0, false)
                    }
                    (None, None, None) => (None, 0, false),
                };
                (
                    spec,
                    sn.skip_lines,
                    fixed,
                    base,
                    Some(sn.format),
                    Some(compression),
                    und,
                    estimate_lines(&input.path, compression)?,
                )
            }
            Source::Generated(g) => {
                let weighted = !opts.ignore_weights && opts.weighted.unwrap_or(g.weighted());
                if weighted && !g.weighted() {
                    return Err(Error::Invalid(format!(
                        "weighted output was asked for, and {} has no weights",
                        g.describe()
                    )));
                }
                let spec = ParseSpec {
                    format: Format::EdgeList,
                    weighted,
                    ignore_weights: false,
                    mtx: None,
                    skip_invalid: false,
                    csv: None,
                };
                let fixed = match opts.vertices {
                    Some(v) => {
                        fixed_from = "the vertex count given".into();
                        Some(v)
                    }
                    None => g.vertex_count(),
                };
                (spec, 0, fixed, g.id_base(), None, None, false, g.edges())
            }
        };
    undirected |= opts.undirected;
    let reverse = opts.reverse && !undirected;
    if let Some(n) = fixed_n {
        check_vertex_memory(n, reverse, &format!("{n} vertices (given by {fixed_from})"))?;
    }
    let rules = RecordRules {
        undirected,
        reverse,
        weighted: spec.weighted,
        keep_self_loops: opts.keep_self_loops,
    };
    let mut plan = Plan {
        source,
        spec,
        skip_lines,
        threads,
        rules,
        id_base,
        fixed_n,
        fixed_from,
        format,
        evidence,
        compression,
        names: None,
        passes: Default::default(),
    };
    if let Source::Generated(g) = source {
        plan.names = g.names();
        if plan.names.is_none() && opts.ids == IdMode::String {
            return Err(Error::Invalid(format!(
                "--ids string: {} gives integer ids, not names",
                g.describe()
            )));
        }
    }
    if opts.vertex_ids.is_some() && (opts.ids == IdMode::String || plan.names.is_some()) {
        return Err(Error::Invalid(
            "the listed vertices are integer ids, and this graph's vertices are names: list \
             names instead (--vertex-file with --ids string reads one name a line; Python's \
             vertices= takes a list of str)"
                .into(),
        ));
    }
    // Listed names join the names of the edges: those a text input read
    // with --ids string collects below, or a table's string id columns
    // (whose source learnt them, the listed ones included, when opened).
    let names_in_edges = match source {
        Source::Generated(_) => plan.names.is_some(),
        _ => opts.ids == IdMode::String,
    };
    if opts.vertex_names.is_some() && !names_in_edges {
        return Err(Error::Invalid(
            "listed vertex names need names in the edges: a text input read with --ids string, \
             or a table whose id columns hold strings"
                .into(),
        ));
    }
    // A table learns the listed names with its own; a source that did not
    // would drop them silently, so every one must be among its names.
    if let (Source::Generated(g), Some(listed), Some(names)) =
        (source, opts.vertex_names.as_deref(), plan.names.as_deref())
    {
        if let Some(missing) = listed.iter().find(|n| names.find(n.as_bytes()).is_none()) {
            return Err(Error::Invalid(format!(
                "{} does not take listed vertex names ({missing:?} is not among its names): \
                 give them as vertices of the edges instead",
                g.describe()
            )));
        }
    }
    if !matches!(source, Source::Generated(_)) && opts.ids == IdMode::String {
        if format == Some(Format::MatrixMarket) {
            return Err(Error::Invalid(
                "--ids string: Matrix Market entries are row and column numbers, not names".into(),
            ));
        }
        if opts.vertices.is_some() || plan.fixed_n.is_some() {
            return Err(Error::Invalid(format!(
                "--ids string takes the vertices from the names read; a vertex count was given by {}",
                plan.fixed_from
            )));
        }
        let names = plan
            .collect_names(progress, opts.vertex_names.as_deref().map(|v| &v[..]))
            .map_err(|e| with_detection(e, opts, plan.format, plan.evidence.as_deref()))?;
        check_vertex_memory(
            names.len(),
            reverse,
            &format!("{} distinct vertex names", names.len()),
        )?;
        plan.fixed_n = Some(names.len());
        plan.fixed_from = "the names read".into();
        plan.names = Some(Arc::new(names));
    }
    let plan = plan;
    let fixed_n = plan.fixed_n;

    let budget = opts
        .memory_bytes
        .unwrap_or_else(|| crate::metrics::available_memory_bytes().unwrap_or(8 << 30) / 2);
    let rec_bytes = if spec.weighted { 12 } else { 8 };
    let dirs = if undirected || reverse { 2 } else { 1 };
    // Records may take 40% of what the budget leaves above the buffers and
    // the vertices (when their count is known): the memory build holds
    // them, their sorted lists and blocks, about 2.5 times their bytes.
    let [buffers, per_vertex, _] = memory_floor_parts(
        fixed_n.unwrap_or(0),
        if reverse { 2 } else { 1 },
        threads,
        budget,
        0,
    );
    let record_budget = (budget.saturating_sub(buffers + per_vertex) as f64 * 0.4) as i64;
    let est = est_edges.saturating_mul(dirs * rec_bytes);
    let temp_dir = opts
        .temp_dir
        .clone()
        .unwrap_or_else(|| match output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        });

    let mut ctx = BuildCtx {
        plan: &plan,
        spill: Spill::Whole,
        opts,
        output,
        out: Some(out),
        floor_parts: [0; 3],
        progress,
        budget,
        temp_dir,
        t0,
        parse_s: 0.0,
        order_s: 0.0,
        order_kind: VertexOrder::None,
    };
    let mut reason;
    if opts.force_external {
        reason = "external path forced".to_string();
    } else if opts.ids == IdMode::Compact && plan.names.is_none() {
        reason = "ids compacted on request".to_string();
    } else if (est as i64) <= record_budget {
        reason = format!(
            "estimated records ({} MiB) fit the memory budget ({} MiB)",
            est >> 20,
            budget >> 20
        );
        let limit = fixed_n.unwrap_or(MAX_VERTICES);
        let detected = |e| with_detection(e, opts, plan.format, plan.evidence.as_deref());
        match ctx
            .memory_pass(IdMapper::Dense { limit }, record_budget)
            .map_err(detected)?
        {
            MemoryOutcome::Done(r) => return Ok(finish_report(*r, reason)),
            MemoryOutcome::OverBudget => {
                reason = format!("records outgrew the memory budget ({} MiB)", budget >> 20)
            }
            MemoryOutcome::NeedsCompaction => {
                if opts.ids == IdMode::Dense || fixed_n.is_some() {
                    return Err(Error::Invalid(match fixed_n {
                        Some(n) => format!(
                            "a vertex id is outside 0..{n}, the vertex count given by {}",
                            plan.fixed_from
                        ),
                        None => {
                            "a vertex id is 4294967295 or larger, which needs --ids auto or compact"
                                .into()
                        }
                    }));
                }
                reason = "ids exceed the u32 range and were compacted".into();
            }
        }
    } else {
        reason = format!(
            "estimated records ({} MiB) exceed the memory budget ({} MiB)",
            est >> 20,
            budget >> 20
        );
    }
    // The bounded build spills every record to the temporary directory
    // before it writes a block: when that does not fit (a generator's
    // count is exact, a text file's estimated), partitions are spilled in
    // groups that do, one pass over the input each; when not even one
    // partition's records would fit, a replayable source (a generator)
    // builds each partition from its own pass, kept in memory, and any
    // other input is refused now, not when the disk is full.
    let given = opts.temp_dir.is_some();
    let room = checks::check_spill_room(output, est_edges, est, &ctx.temp_dir, given);
    // Without a whole spill the output must still fit: at least a byte a
    // record (packed lists take 1.6 to 2.4), else the spill's refusal
    // stands.
    let replayable = matches!(source, Source::Generated(g) if g.replayable());
    let out_dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let output_fits =
        crate::io::system::free_disk_bytes(out_dir).is_none_or(|free| est / rec_bytes <= free);
    ctx.spill = match room {
        _ if replayable && opts.replay_partitions => Spill::Replay,
        Ok(()) if opts.spill_group_records.is_none() => Spill::Whole,
        Ok(()) => Spill::Groups {
            refusal: None,
            replayable,
        },
        Err(e) if output_fits => Spill::Groups {
            refusal: Some(e),
            replayable,
        },
        Err(e) => return Err(e),
    };
    let r = ctx
        .external_or_compact(record_budget, &reason)
        .map_err(|e| with_detection(e, opts, plan.format, plan.evidence.as_deref()))?;
    match &ctx.spill {
        Spill::Whole => {}
        Spill::Groups { refusal, .. } => reason.push_str(if refusal.is_some() {
            "; the spill would not fit the temporary directory at once, so partitions were spilled in groups that do, one pass over the input each"
        } else {
            "; partitions spilled in groups of at most the records asked, one pass over the input each"
        }),
        Spill::Replay => reason.push_str(if opts.replay_partitions {
            "; each partition built from its own pass over the generator"
        } else {
            "; each partition built from its own pass over the generator (not even one partition's spill would fit)"
        }),
    }
    Ok(finish_report(r, reason))
}

fn finish_report(mut r: ConvertReport, reason: String) -> ConvertReport {
    r.path_reason = reason;
    r
}

enum MemoryOutcome {
    Done(Box<ConvertReport>),
    OverBudget,
    NeedsCompaction,
}

struct BuildCtx<'a> {
    plan: &'a Plan<'a>,
    /// How the external build gets each partition's records.
    spill: Spill,
    opts: &'a ConvertOptions,
    output: &'a Path,
    /// The output opened up front; taken by the writer.
    out: Option<Output>,
    /// The external build's memory floor, once the vertex count is known:
    /// buffers, bytes for the vertices, the partition (see
    /// [`memory_floor_parts`]).
    floor_parts: [u64; 3],
    progress: &'a dyn Progress,
    budget: u64,
    temp_dir: PathBuf,
    t0: Instant,
    parse_s: f64,
    order_s: f64,
    /// The vertex order taken (`auto` resolved), for the report.
    order_kind: VertexOrder,
}

/// Whether a build's vertex order section was written (before the
/// blocks, so that its 4 bytes a vertex are not held through them).
#[derive(Clone, Copy, PartialEq)]
enum OrderSection {
    None,
    Written,
}

impl BuildCtx<'_> {
    /// The graph writer over the output opened at the start.
    fn writer(&mut self) -> Result<GraphWriter> {
        match self.out.take() {
            Some(o) => GraphWriter::new(o),
            None => Err(Error::Invalid("the output was already written".into())),
        }
    }

    /// Writes the vertex order's section, the first after the header
    /// (both build paths, so that they write the same bytes).
    fn order_first(&self, w: &mut GraphWriter, order: Option<Vec<u32>>) -> Result<OrderSection> {
        Ok(match order {
            Some(o) => {
                w.section(SectionKind::Order, bytemuck::cast_slice(&o), o.len() as u64)?;
                OrderSection::Written
            }
            None => OrderSection::None,
        })
    }

    fn mtx_check(&self, counts: &ParseCounts) -> Result<()> {
        if let (Some(h), Source::File(input)) = (&self.plan.spec.mtx, self.plan.source) {
            checks::check_mtx_entries(&input.path, h, counts)?;
        }
        Ok(())
    }

    /// Vertex count and optional compaction from the ids seen (and those
    /// of a vertex file, which join them here).
    fn decide_ids(&self, seen: &mut SeenIds) -> Result<(u64, Option<Arc<CompactMap>>)> {
        if let Some(ids) = &self.opts.vertex_ids {
            for &id in ids.iter() {
                seen.insert(id);
            }
        }
        let distinct = seen.count();
        let range = match self.plan.fixed_n {
            Some(n) => {
                if let Some(m) = seen.max().filter(|&m| m >= n) {
                    return Err(Error::Invalid(format!(
                        "vertex id {} is outside 0..{n}, the vertex count given by {}",
                        m + self.plan.id_base,
                        self.plan.fixed_from
                    )));
                }
                n
            }
            None => seen.max().map_or(0, |m| m.saturating_add(1)),
        };
        // Names are ranks in their table: dense by construction.
        let compact = match self.opts.ids {
            IdMode::Compact => self.plan.names.is_none(),
            IdMode::Dense | IdMode::String => false,
            // An id that never occurs is no vertex: any gap compacts.
            IdMode::Auto => self.plan.fixed_n.is_none() && range > distinct,
        };
        if compact {
            check_vertex_memory(
                distinct,
                self.plan.rules.reverse,
                &format!("{distinct} distinct vertex ids"),
            )?;
            let m = CompactMap::new(seen);
            if m.len() > MAX_VERTICES {
                return Err(Error::Limit {
                    what: format!(
                        "{} distinct vertices exceed the format's limit of {MAX_VERTICES}",
                        m.len()
                    ),
                });
            }
            Ok((m.len(), Some(Arc::new(m))))
        } else {
            if range > MAX_VERTICES {
                return Err(Error::Limit {
                    what: format!(
                        "vertex ids up to {} exceed the dense limit; use --ids compact",
                        range - 1
                    ),
                });
            }
            if self.plan.fixed_n.is_none() {
                check_vertex_memory(
                    range,
                    self.plan.rules.reverse,
                    &format!(
                        "dense vertex ids up to {} ({} distinct)",
                        range.saturating_sub(1),
                        distinct
                    ),
                )?;
            }
            Ok((range, None))
        }
    }

    /// Builds one adjacency from groups of units (one group per partition).
    fn build_units<I>(
        &self,
        w: &mut GraphWriter,
        n: u64,
        inn: bool,
        groups: I,
    ) -> Result<AdjSummary>
    where
        I: IntoIterator<Item = Group>,
    {
        let [kb, kw, ki, kc, kt, kh, _] = SectionKind::adjacency(inn);
        let kinds = [kb, kw, ki, kc, kt, kh];
        let weighted = self.plan.rules.weighted;
        let keep = self.opts.keep_duplicates;
        let mut b = AdjBuilder::new(w, n, &self.opts.layout, weighted, kinds, &self.temp_dir)?;
        for group in groups {
            let cells: Vec<LocalCsr> = match group {
                Group::Pages(units) => units
                    .into_par_iter()
                    .filter(|u| u.hi > u.lo || !u.pages.is_empty())
                    .map(|u| {
                        let parts: Vec<(&[u64], &[f32])> = u
                            .pages
                            .iter()
                            .map(|p| (&p.keys[..], &p.weights[..]))
                            .collect();
                        build_cell(u.lo, u.hi, &parts, weighted, keep)
                    })
                    .collect(),
                Group::Bucketed(g) => (0..g.units.len().saturating_sub(1))
                    .into_par_iter()
                    .map(|i| {
                        let r = g.bounds[i]..g.bounds[i + 1];
                        let ws: &[f32] = if weighted { &g.weights[r.clone()] } else { &[] };
                        let parts = [(&g.keys[r], ws)];
                        build_cell(
                            g.units[i] as u64,
                            g.units[i + 1] as u64,
                            &parts,
                            weighted,
                            keep,
                        )
                    })
                    .collect(),
                Group::Built(cells) => cells,
            };
            b.add(w, &cells)?;
        }
        b.finish(w)
    }
}
