//! Edges held in memory as columns (a source id array, a destination id
//! array and optionally a weight array), for front ends that already have
//! them: NumPy arrays, Arrow columns, a pandas DataFrame. They go through
//! the same pipeline as a text edge list, ids included: the edges alone
//! decide the vertex count and whether ids are compacted ([`IdMode`]).
//!
//! [`IdMode`]: super::IdMode

use super::{EdgeGenerator, EdgeSink};
use crate::error::{Error, Result};
use crate::store::names::Names;
use std::sync::Arc;

/// Rows per chunk the pipeline's threads take at a time.
const CHUNK_ROWS: usize = 1 << 20;

/// Borrowed edge columns: row `i` is the edge `src[i] -> dst[i]` with
/// weight `weights[i]` (1 when there are no weights).
pub struct EdgeArrays<'a> {
    src: &'a [u64],
    dst: &'a [u64],
    weights: Option<&'a [f32]>,
    what: String,
    names: Option<Arc<Names>>,
}

impl<'a> EdgeArrays<'a> {
    /// Columns of equal length; `what` names them in reports and errors
    /// (for example "a pandas DataFrame (src, dst)").
    pub fn new(
        src: &'a [u64],
        dst: &'a [u64],
        weights: Option<&'a [f32]>,
        what: &str,
    ) -> Result<EdgeArrays<'a>> {
        if src.len() != dst.len() || weights.is_some_and(|w| w.len() != src.len()) {
            return Err(Error::Invalid(format!(
                "{what}: the columns differ in length ({} sources, {} destinations{})",
                src.len(),
                dst.len(),
                weights.map_or(String::new(), |w| format!(", {} weights", w.len()))
            )));
        }
        if let Some(w) = weights {
            if let Some(i) = w.iter().position(|x| !x.is_finite()) {
                return Err(Error::Invalid(format!(
                    "{what}: row {i} has weight {}; weights must be finite numbers",
                    w[i]
                )));
            }
        }
        Ok(EdgeArrays {
            src,
            dst,
            weights,
            what: what.to_string(),
            names: None,
        })
    }

    /// The same columns holding ranks in `names` (sorted, distinct vertex
    /// names) instead of integer ids: the graph gets the names, and every
    /// result speaks them. An id past the table is refused.
    pub fn with_names(mut self, names: Names) -> Result<EdgeArrays<'a>> {
        let n = names.len();
        for (col, ids) in [("source", self.src), ("destination", self.dst)] {
            if let Some(i) = ids.iter().position(|&x| x >= n) {
                return Err(Error::Invalid(format!(
                    "{}: row {i} has {col} {}, and there are {n} names",
                    self.what, ids[i]
                )));
            }
        }
        self.names = Some(Arc::new(names));
        Ok(self)
    }
}

impl EdgeGenerator for EdgeArrays<'_> {
    fn chunks(&self) -> usize {
        self.src.len().div_ceil(CHUNK_ROWS)
    }

    fn emit(&self, chunk: usize, sink: &mut dyn EdgeSink) -> Result<bool> {
        let lo = chunk * CHUNK_ROWS;
        let hi = (lo + CHUNK_ROWS).min(self.src.len());
        Ok(sink.edges(
            &self.src[lo..hi],
            &self.dst[lo..hi],
            self.weights.map(|w| &w[lo..hi]),
        ))
    }

    fn edges(&self) -> u64 {
        self.src.len() as u64
    }

    fn vertex_count(&self) -> Option<u64> {
        self.names.as_ref().map(|n| n.len())
    }

    fn names(&self) -> Option<Arc<Names>> {
        self.names.clone()
    }

    fn weighted(&self) -> bool {
        self.weights.is_some()
    }

    fn describe(&self) -> String {
        self.what.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{convert, convert_from, ConvertOptions, Input, NoProgress, Source};
    use crate::store::{Direction, Graph};

    /// Every list, in user ids, with weights.
    fn lists(path: &std::path::Path) -> Vec<(u64, Vec<(u64, f32)>)> {
        let g = Graph::open(path).unwrap();
        let mut r = crate::store::BlockReader::new(&g, Direction::Out).unwrap();
        let (mut ids, mut ws) = (Vec::new(), Vec::new());
        let mut out = Vec::new();
        for v in 0..g.vertex_count() as u32 {
            r.neighbors(v, &mut ids, Some(&mut ws)).unwrap();
            if !g.weighted() {
                ws = vec![1.0; ids.len()];
            }
            let mut l: Vec<(u64, f32)> = ids
                .iter()
                .zip(&ws)
                .map(|(&u, &w)| (g.original_id(u), w))
                .collect();
            l.sort_by(|a, b| a.partial_cmp(b).unwrap());
            out.push((g.original_id(v), l));
        }
        out.sort_by_key(|a| a.0);
        out
    }

    /// Arrays and the same edges as text give the same graph: sparse ids
    /// (compacted), weights, undirected.
    #[test]
    fn arrays_and_text_give_the_same_graph() {
        let dir = tempfile::tempdir().unwrap();
        let src: Vec<u64> = vec![10, 7_000_000_000, 10, 42, 42];
        let dst: Vec<u64> = vec![42, 10, 99, 7_000_000_000, 10];
        let w: Vec<f32> = vec![0.5, 2.0, 1.5, 3.0, 0.25];
        let text: String = (0..src.len())
            .map(|i| format!("{} {} {}\n", src[i], dst[i], w[i]))
            .collect();
        let tp = dir.path().join("e.txt");
        std::fs::write(&tp, text).unwrap();
        let opts = ConvertOptions {
            undirected: true,
            ..Default::default()
        };
        let (a, b) = (dir.path().join("a.grotto"), dir.path().join("b.grotto"));
        convert(&Input::path(&tp), &a, &opts).unwrap();
        let arrays = EdgeArrays::new(&src, &dst, Some(&w), "test arrays").unwrap();
        let r = convert_from(&Source::Generated(&arrays), &b, &opts, &NoProgress).unwrap();
        assert!(r.ids_compacted);
        assert_eq!(lists(&a), lists(&b));
    }

    /// A given vertex count keeps trailing isolated vertices, as
    /// `--vertices` does for text.
    #[test]
    fn a_vertex_count_keeps_isolated_vertices() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("v.grotto");
        let opts = ConvertOptions {
            vertices: Some(10),
            ..Default::default()
        };
        let arrays = EdgeArrays::new(&[0, 1], &[1, 2], None, "test arrays").unwrap();
        convert_from(&Source::Generated(&arrays), &p, &opts, &NoProgress).unwrap();
        assert_eq!(Graph::open(&p).unwrap().vertex_count(), 10);
        let beyond = EdgeArrays::new(&[0, 11], &[1, 2], None, "test arrays").unwrap();
        let q = dir.path().join("w.grotto");
        let e = convert_from(&Source::Generated(&beyond), &q, &opts, &NoProgress);
        assert!(e.is_err() && !q.exists());
    }

    /// Names are ranks in their table: asking for compacted ids changes
    /// nothing (it once wrote a file with both, which no open accepted).
    #[test]
    fn names_with_compacted_ids_make_a_graph_with_names() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("n.grotto");
        let opts = ConvertOptions {
            ids: crate::ingest::IdMode::Compact,
            ..Default::default()
        };
        let names = Names::from_unsorted(vec!["a", "b", "c", "lonely"]).unwrap();
        let arrays = EdgeArrays::new(&[0, 1], &[1, 2], None, "test arrays")
            .unwrap()
            .with_names(names)
            .unwrap();
        convert_from(&Source::Generated(&arrays), &p, &opts, &NoProgress).unwrap();
        let g = Graph::open(&p).unwrap();
        assert_eq!(g.vertex_count(), 4);
        assert_eq!(g.label_text(g.vertex_named("lonely").unwrap()), "lonely");
        assert!(g.id_map().is_none());
    }

    #[test]
    fn unequal_columns_and_bad_weights_are_refused() {
        assert!(EdgeArrays::new(&[1, 2], &[3], None, "t").is_err());
        assert!(EdgeArrays::new(&[1], &[3], Some(&[f32::NAN]), "t").is_err());
        let e = EdgeArrays::new(&[1], &[3], Some(&[1.0, 2.0]), "t");
        assert!(e.err().unwrap().to_string().contains("2 weights"));
    }
}
