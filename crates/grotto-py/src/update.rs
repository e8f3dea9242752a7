//! `grotto.update`: a batch of edge changes committed to a graph file in
//! place (docs/updates.md).

use crate::convert::{options, text_format};
use crate::{invalid, off_thread};
use grotto::ingest::Format;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use std::path::PathBuf;

/// Commits a batch of edge changes to the graph file `path`: deletes then
/// inserts, each given as integer id columns, name columns (a graph with
/// names), or an edge file read as `grotto update` reads it. Returns the
/// report as a dict, built without running Python code: an interrupt
/// that arrives after the commit is not raised over a batch that landed.
#[pyfunction]
#[pyo3(signature = (path, ins_src=None, ins_dst=None, del_src=None, del_dst=None, ins_names=None, del_names=None, ins_file=None, del_file=None, format=None, columns=None, threads=None, merge="auto", merge_above=None, ins_w=None, set_src=None, set_dst=None, set_w=None, set_file=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn update(
    py: Python<'_>,
    path: PathBuf,
    ins_src: Option<PyReadonlyArray1<'_, u64>>,
    ins_dst: Option<PyReadonlyArray1<'_, u64>>,
    del_src: Option<PyReadonlyArray1<'_, u64>>,
    del_dst: Option<PyReadonlyArray1<'_, u64>>,
    ins_names: Option<(Vec<String>, Vec<String>)>,
    del_names: Option<(Vec<String>, Vec<String>)>,
    ins_file: Option<PathBuf>,
    del_file: Option<PathBuf>,
    format: Option<&str>,
    columns: Option<(String, String, String)>,
    threads: Option<usize>,
    merge: &str,
    merge_above: Option<f64>,
    ins_w: Option<PyReadonlyArray1<'_, f32>>,
    set_src: Option<PyReadonlyArray1<'_, u64>>,
    set_dst: Option<PyReadonlyArray1<'_, u64>>,
    set_w: Option<PyReadonlyArray1<'_, f32>>,
    set_file: Option<PathBuf>,
) -> PyResult<Py<PyAny>> {
    use grotto::ingest::merge::{MergePolicy, DEFAULT_MERGE_ABOVE};
    let above = merge_above.unwrap_or(100.0 * DEFAULT_MERGE_ABOVE);
    if !(0.0..=100.0).contains(&above) {
        return Err(invalid(format!(
            "merge_above={above}: a percentage from 0 to 100"
        )));
    }
    let policy = match merge {
        "auto" => MergePolicy::Above(above / 100.0),
        "always" => MergePolicy::Always,
        "never" => MergePolicy::Never,
        other => {
            return Err(invalid(format!(
                "merge={other:?}: expected \"auto\", \"always\" or \"never\""
            )))
        }
    };
    use grotto::ingest::batch::read_batch;
    use grotto::store::update::{GraphUpdate, Ranked};
    let pairs = |s: &Option<PyReadonlyArray1<'_, u64>>,
                 d: &Option<PyReadonlyArray1<'_, u64>>|
     -> PyResult<Vec<(u64, u64)>> {
        match (s, d) {
            (Some(s), Some(d)) => {
                let (s, d) = (s.as_slice()?, d.as_slice()?);
                if s.len() != d.len() {
                    return Err(invalid(format!(
                        "{} sources but {} destinations",
                        s.len(),
                        d.len()
                    )));
                }
                Ok(s.iter().copied().zip(d.iter().copied()).collect())
            }
            _ => Ok(Vec::new()),
        }
    };
    let mut ins = pairs(&ins_src, &ins_dst)?;
    let mut del = pairs(&del_src, &del_dst)?;
    let mut set = pairs(&set_src, &set_dst)?;
    let weights = |w: &Option<PyReadonlyArray1<'_, f32>>| -> PyResult<Option<Vec<f32>>> {
        Ok(match w {
            Some(w) => Some(w.as_slice()?.to_vec()),
            None => None,
        })
    };
    let mut ins_w = weights(&ins_w)?;
    let mut set_w = weights(&set_w)?.unwrap_or_default();
    let mut opts = options(
        false, false, None, None, threads, false, false, "auto", None,
    )?;
    opts.format = format.map(text_format).transpose()?;
    let cols =
        columns.map(|(src, dst, weight)| grotto::ingest::parquet::EdgeColumns { src, dst, weight });
    // Text files take column names only as CSV with a header.
    if opts.format == Some(Format::Csv) {
        opts.columns = cols.clone();
    }
    let cols = cols.unwrap_or_default();
    let report = off_thread(py, move || {
        let mut up = GraphUpdate::open(&path)?;
        let names = up.graph().names().cloned();
        let weighted = up.graph().weighted();
        // Inserts and weight changes of a weighted graph carry weights;
        // deletes never need them.
        let with_w = grotto::ingest::ConvertOptions {
            weighted: Some(true),
            ..opts.clone()
        };
        let no_w = grotto::ingest::ConvertOptions {
            ignore_weights: true,
            ..opts.clone()
        };
        // Files of a graph with names come back as name ranks, each with
        // the names it adds.
        let mut ranked: [Option<grotto::ingest::batch::BatchEdges>; 3] = [None, None, None];
        for (k, file) in [&ins_file, &del_file, &set_file].into_iter().enumerate() {
            let Some(f) = file else { continue };
            let o = match (k, weighted) {
                (1, true) => &no_w,
                (2, _) | (0, true) => &with_w,
                _ => &opts,
            };
            // A text format given reads text; else Parquet is detected.
            let parquet = o.format.map(|_| false);
            let b = read_batch(f, o, &cols, names.as_deref(), parquet)?;
            if b.ranks {
                ranked[k] = Some(b);
                continue;
            }
            match k {
                0 => {
                    ins.extend(b.edges);
                    ins_w.get_or_insert_with(Vec::new).extend(b.weights);
                }
                1 => del.extend(b.edges),
                _ => {
                    set.extend(b.edges);
                    set_w.extend(b.weights);
                }
            }
        }
        if ranked.iter().any(|r| r.is_some()) {
            let r = |k: usize| {
                ranked[k].as_ref().map_or(Ranked::default(), |b| Ranked {
                    edges: &b.edges,
                    new_names: &b.new_names,
                    weights: &b.weights,
                })
            };
            up.stage_ranked(r(0), r(1), r(2))?;
        }
        let ins_w = ins_w.unwrap_or_default();
        if weighted {
            if !(ins.is_empty() && del.is_empty() && set.is_empty()) {
                up.stage_ids_weighted((&ins, &ins_w), &del, (&set, &set_w))?;
            }
        } else {
            if !set.is_empty() {
                return Err(grotto::Error::Invalid(format!(
                    "{} is unweighted: there are no weights to set",
                    path.display()
                )));
            }
            if !ins_w.is_empty() {
                return Err(grotto::Error::Invalid(format!(
                    "{} is unweighted, and the inserted edges carry weights; leave them out",
                    path.display()
                )));
            }
            if !(ins.is_empty() && del.is_empty()) {
                up.stage_ids(&ins, &del)?;
            }
        }
        if let Some((s, d)) = &del_names {
            for (a, b) in s.iter().zip(d) {
                up.delete_named(a, b)?;
            }
        }
        if let Some((s, d)) = &ins_names {
            for (a, b) in s.iter().zip(d) {
                up.insert_named(a, b)?;
            }
        }
        grotto::ingest::merge::commit(up, policy)
    })?;
    let v = serde_json::to_value(&report).map_err(|e| invalid(e.to_string()))?;
    crate::json_to_py(py, &v)
}

/// Removes the vertices `vertices` (the user's ids or names, as text)
/// from the graph file `path` with every edge at them, by a rewrite of
/// the file ([`grotto::ingest::subgraph::delete_vertices`]); returns
/// {deleted, not_present, vertices, edges}.
#[pyfunction]
#[pyo3(signature = (path, vertices, threads=None))]
pub(crate) fn delete_vertices(
    py: Python<'_>,
    path: PathBuf,
    vertices: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let opts = grotto::ingest::ConvertOptions {
        threads: threads.unwrap_or(0),
        ..Default::default()
    };
    let r = off_thread(py, move || {
        grotto::ingest::subgraph::delete_vertices(
            &path,
            &vertices,
            &opts,
            &grotto::ingest::NoProgress,
        )
    })?;
    let v = serde_json::to_value(&r).map_err(|e| invalid(e.to_string()))?;
    crate::json_to_py(py, &v)
}
