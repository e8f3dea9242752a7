//! The end of every build: the sections after the blocks (names, id map,
//! the update manifest), the header, and the report.

use super::*;

impl BuildCtx<'_> {
    /// Writes what follows the adjacency sections, commits the file and
    /// makes the report.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish(
        &self,
        mut w: GraphWriter,
        n: u64,
        compact: Option<Arc<CompactMap>>,
        order: OrderSection,
        out: AdjSummary,
        inn: Option<AdjSummary>,
        loops_dropped: u64,
        counts: ParseCounts,
        path: BuildPath,
        partitions: usize,
        build_s: f64,
    ) -> Result<ConvertReport> {
        if n == 0 && !self.opts.allow_empty {
            let input = match self.plan.source {
                Source::File(i) => i.path.clone(),
                Source::Generated(_) => PathBuf::from("<generator>"),
            };
            let what = if counts.skipped > 0 {
                format!(
                    "no edges read: all {} data lines were malformed and skipped (pass --allow-empty to write an empty graph anyway)",
                    counts.skipped
                )
            } else {
                "no edges read: the input holds no data lines (pass --allow-empty to write an empty graph anyway)".to_string()
            };
            return Err(Error::BadInput { path: input, what });
        }
        let tf = Instant::now();
        self.progress.stage("finish", None);
        if let Some(i) = &inn {
            debug_assert_eq!(i.entries, out.entries, "in- and out-adjacency disagree");
        }
        if let Some(t) = &self.plan.names {
            w.section(SectionKind::Names, &t.encode(), t.len())?;
        }
        if let Some(m) = &compact {
            // Streamed 64 Ki ids at a time: 8 bytes a vertex never held.
            w.begin(SectionKind::IdMap);
            let mut chunk = Vec::with_capacity(1 << 16);
            for id in m.original_ids_iter() {
                chunk.push(id + self.plan.id_base);
                if chunk.len() == 1 << 16 {
                    w.write(bytemuck::cast_slice(&chunk))?;
                    chunk.clear();
                }
            }
            w.write(bytemuck::cast_slice(&chunk))?;
            w.end(m.len())?;
        }
        let ordered = order == OrderSection::Written;
        // Room for updates: two empty manifest slots (docs/updates.md).
        w.empty_manifest()?;
        let r = self.plan.rules;
        let edges = if r.undirected {
            (out.entries - out.loops) / 2 + out.loops
        } else {
            out.entries
        };
        let dups = if r.undirected {
            out.dup_entries / 2 + out.dup_loops
        } else {
            out.dup_entries + out.dup_loops
        };
        let mut flags = 0;
        if !r.undirected {
            flags |= FLAG_DIRECTED;
        }
        if r.weighted {
            flags |= FLAG_WEIGHTED;
        }
        if r.reverse {
            flags |= FLAG_REVERSE;
        }
        if compact.is_some() {
            flags |= FLAG_ID_MAP;
        }
        if self.plan.names.is_some() {
            flags |= FLAG_NAMES;
        }
        if ordered {
            flags |= FLAG_ORDER;
        }
        if self.opts.layout.inline_small && !r.weighted {
            flags |= FLAG_INLINE_SMALL;
        }
        if out.packed {
            flags |= FLAG_PACKED;
        }
        if self.opts.keep_duplicates {
            flags |= FLAG_MULTI;
        }
        if r.keep_self_loops {
            flags |= FLAG_SELF_LOOPS;
        }
        // Every file has room for updates, which came in version 6.
        flags |= FLAG_DELTA;
        let header = Header {
            version: FORMAT_VERSION,
            flags,
            vertex_count: n,
            edge_count: edges,
            out_entries: out.entries,
            id_base: if compact.is_some() {
                0
            } else {
                self.plan.id_base
            },
            self_loops_dropped: loops_dropped,
            duplicates_dropped: dups,
            lines_skipped: counts.skipped,
            sections: Vec::new(),
        };
        match &self.opts.scratch {
            Some(slot) => {
                let out = w.finish_uncommitted(header)?;
                *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(out);
            }
            None => w.finish(header)?,
        }
        let finish_s = tf.elapsed().as_secs_f64();
        let cap = out.blocks * SLOTS_PER_BLOCK as u64;
        let index_bytes = n * 8 * if r.reverse { 2 } else { 1 };
        Ok(ConvertReport {
            input: match self.plan.source {
                Source::File(i) => i.path.display().to_string(),
                Source::Generated(g) => g.describe(),
            },
            output: self.output.to_path_buf(),
            format: self.plan.format,
            format_evidence: self.plan.evidence.clone(),
            compression: self.plan.compression,
            directed: !r.undirected,
            weighted: r.weighted,
            reverse: r.reverse,
            vertices: n,
            edges,
            out_entries: out.entries,
            blocks: out.blocks,
            short_blocks: out.short_blocks,
            fill_ratio: if cap == 0 {
                1.0
            } else {
                (out.entries - out.inline_entries) as f64 / cap as f64
            },
            packed: out.packed,
            bytes_per_entry: if out.entries == 0 {
                0.0
            } else {
                (out.blocks * BLOCK_BYTES as u64) as f64 / out.entries as f64
            },
            index_bytes_per_vertex: if n == 0 {
                0.0
            } else {
                index_bytes as f64 / n as f64
            },
            self_loops_dropped: loops_dropped,
            duplicates_dropped: dups,
            parse: counts,
            ids_compacted: compact.is_some(),
            order: if ordered {
                self.order_kind
            } else {
                VertexOrder::None
            },
            names: self.plan.names.is_some(),
            path,
            path_reason: String::new(),
            memory_budget_bytes: self.budget,
            memory_floor_bytes: self.floor_parts.iter().sum(),
            memory_floor_parts: self.floor_parts,
            partitions,
            input_passes: self.plan.passes.load(std::sync::atomic::Ordering::Relaxed),
            threads: self.plan.threads,
            input_bytes: match self.plan.source {
                Source::File(i) => source::input_bytes(&i.path).unwrap_or(0),
                Source::Generated(_) => 0,
            },
            output_bytes: std::fs::metadata(self.output).map(|m| m.len()).unwrap_or(0),
            timings: Timings {
                parse_s: self.parse_s,
                order_s: self.order_s,
                build_s,
                finish_s,
                total_s: self.t0.elapsed().as_secs_f64(),
            },
        })
    }
}
