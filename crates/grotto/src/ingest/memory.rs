//! The memory path: one parse straight into per-cell record pages kept
//! in memory, then cells become sorted lists in parallel and are packed
//! and written. It gives up (for the external path) when the records
//! outgrow their share of the budget or ids need compacting.

use super::*;

impl BuildCtx<'_> {
    pub(super) fn memory_pass(
        &mut self,
        mapper: IdMapper,
        record_budget: i64,
    ) -> Result<MemoryOutcome> {
        let t = Instant::now();
        let budget = Arc::new(AtomicI64::new(record_budget));
        let rules = self.plan.rules;
        // With a given vertex count, the mapper's limit catches ids beyond
        // it: the ids seen are not needed.
        let track_seen = self.plan.fixed_n.is_none();
        let make = || {
            let mut s = CellSink::new(rules, mapper.clone(), Destination::Memory(budget.clone()));
            s.track_seen = track_seen;
            s
        };
        let (mut sinks, counts) = self.plan.pass(&make, self.progress, "parse")?;
        if sinks.iter().any(|s| s.over_budget) {
            return Ok(MemoryOutcome::OverBudget);
        }
        if sinks.iter().any(|s| s.needs_compaction) {
            return Ok(MemoryOutcome::NeedsCompaction);
        }
        for s in sinks.iter_mut() {
            s.finish()?;
        }
        self.mtx_check(&counts)?;
        self.parse_s += t.elapsed().as_secs_f64();
        let mut seen = SeenIds::default();
        let mut loops = 0;
        for s in &sinks {
            seen.union(&s.seen);
            loops += s.self_loops;
        }
        let (n, compact) = match &mapper {
            IdMapper::Compact(m) => (m.len(), Some(m.clone())),
            IdMapper::Dense { .. } => self.decide_ids(&mut seen)?,
            IdMapper::Ordered { .. } => {
                return Err(Error::Invalid(
                    "the memory build takes ids in the user's order and orders them itself".into(),
                ))
            }
        };
        let mut out_pages = Vec::new();
        let mut in_pages = Vec::new();
        for s in sinks {
            out_pages.extend(s.full_out);
            in_pages.extend(s.full_in);
        }
        // Compacting after a dense parse: remap in place; a cell of user
        // ids keeps its pages and covers the ranks of its id range.
        let remap = matches!(mapper, IdMapper::Dense { .. }) && compact.is_some();
        if let (Some(m), true) = (&compact, remap) {
            out_pages
                .par_iter_mut()
                .chain(in_pages.par_iter_mut())
                .for_each(|p| {
                    for k in p.keys.iter_mut() {
                        *k = (m.map(*k >> 32) << 32) | m.map(*k & 0xFFFF_FFFF);
                    }
                });
        }
        let range_of = |cell: u64| -> (u64, u64) {
            let (a, b) = (cell << CELL_SHIFT, (cell + 1) << CELL_SHIFT);
            match (&compact, remap) {
                (Some(m), true) => (m.map(a), m.map(b)),
                _ => (a.min(n), b.min(n)),
            }
        };
        // Under a vertex order, records become lists in the user's order
        // (ranks now), the order is made from their lengths, and each
        // unit's lists are gathered in the new order (see `gather`).
        let to = Instant::now();
        let weighted = self.plan.rules.weighted;
        let keep = self.opts.keep_duplicates;
        let mut built: Option<(Vec<LocalCsr>, Option<Vec<LocalCsr>>)> = None;
        let order = match self.opts.order {
            VertexOrder::None => None,
            VertexOrder::Degree | VertexOrder::Auto | VertexOrder::Bfs => {
                let mut out_cells =
                    gather::scatter_pages(std::mem::take(&mut out_pages), n, range_of, weighted);
                let mut in_cells = self.plan.rules.reverse.then(|| {
                    gather::scatter_pages(std::mem::take(&mut in_pages), n, range_of, weighted)
                });
                let deg = gather::degrees(&out_cells, n);
                let order = self.choose_order(&out_cells, in_cells.as_deref(), &deg, n);
                if let Some((order, new_of)) = order {
                    let records: u64 = deg.iter().map(|&d| d as u64).sum();
                    let cap = (records / (self.plan.threads as u64 * 16).max(1)).max(1 << 16);
                    let starts = order::unit_starts(&order, &deg, cap);
                    drop(deg);
                    gather::renumber_and_sort(&mut out_cells, Some(&new_of), keep);
                    let out_units = gather::gather(&out_cells, &order, &starts);
                    drop(out_cells);
                    let in_units = in_cells.as_mut().map(|cells| {
                        gather::renumber_and_sort(cells, Some(&new_of), keep);
                        gather::gather(cells, &order, &starts)
                    });
                    built = Some((out_units, in_units));
                    Some(order)
                } else {
                    // No order after all: the cells are the units.
                    let finish = |mut cells: Vec<LocalCsr>| {
                        gather::renumber_and_sort(&mut cells, None, keep);
                        gather::fill_gaps(cells, n)
                    };
                    built = Some((finish(out_cells), in_cells.map(finish)));
                    None
                }
            }
        };
        self.order_s += to.elapsed().as_secs_f64();
        let units = |pages: Vec<Page>| -> Vec<Unit> {
            let cells = (n.max(1) - 1) >> CELL_SHIFT;
            let cells = if remap {
                pages
                    .iter()
                    .map(|p| p.owner as u64)
                    .max()
                    .unwrap_or(0)
                    .max(cells)
            } else {
                cells
            };
            let mut units: Vec<Unit> = (0..=cells)
                .map(|c| {
                    let (lo, hi) = range_of(c);
                    Unit {
                        lo,
                        hi,
                        pages: Vec::new(),
                    }
                })
                .collect();
            for p in pages {
                units[p.owner as usize].pages.push(p);
            }
            units
        };
        crate::interrupt::check()?;
        let mut w = self.writer()?;
        let order = self.order_first(&mut w, order)?;
        let tb = Instant::now();
        self.progress.stage("build", None);
        let (out_group, in_group) = match built {
            Some((out, inn)) => (Group::Built(out), inn.map(Group::Built)),
            None => (
                Group::Pages(units(out_pages)),
                self.plan
                    .rules
                    .reverse
                    .then(|| Group::Pages(units(in_pages))),
            ),
        };
        let out = self.build_units(&mut w, n, false, vec![out_group])?;
        let inn = match in_group {
            Some(g) => Some(self.build_units(&mut w, n, true, vec![g])?),
            None => None,
        };
        let build_s = tb.elapsed().as_secs_f64();
        let r = self.finish(
            w,
            n,
            compact,
            order,
            out,
            inn,
            loops,
            counts,
            BuildPath::Memory,
            0,
            build_s,
        )?;
        Ok(MemoryOutcome::Done(Box::new(r)))
    }

    /// The vertex order the options ask for, made from the lists in rank
    /// order: degree order (`--order degree`, or `auto` on skewed degrees),
    /// breadth-first order (`--order bfs`, or `auto` when the user's ids
    /// lie far apart and breadth-first brings them near), else none; with
    /// its inverse (rank to new id). Records which was taken for the report.
    fn choose_order(
        &mut self,
        out: &[LocalCsr],
        inn: Option<&[LocalCsr]>,
        deg: &[u32],
        n: u64,
    ) -> Option<(Vec<u32>, Vec<u32>)> {
        let with_inverse = |order: Vec<u32>| {
            let new_of = crate::store::names::invert(&order);
            (order, new_of)
        };
        let (order, kind) = match self.opts.order {
            VertexOrder::None => (None, VertexOrder::None),
            VertexOrder::Degree => (
                Some(with_inverse(order::degree_order(deg))),
                VertexOrder::Degree,
            ),
            VertexOrder::Bfs => (
                Some(with_inverse(locality::bfs_order(out, inn, deg, n))),
                VertexOrder::Bfs,
            ),
            VertexOrder::Auto => {
                let by_degree = order::degree_order(deg);
                if order::skewed(&by_degree, deg) {
                    (Some(with_inverse(by_degree)), VertexOrder::Degree)
                } else {
                    drop(by_degree);
                    let user = locality::mean_gap_bits(out, None);
                    // The inverse that measures the gain is the one kept.
                    let bfs = (user > locality::NEAR_BITS)
                        .then(|| with_inverse(locality::bfs_order(out, inn, deg, n)))
                        .filter(|(_, new_of)| {
                            locality::mean_gap_bits(out, Some(new_of)) + locality::GAIN_BITS <= user
                        });
                    match bfs {
                        Some(o) => (Some(o), VertexOrder::Bfs),
                        None => (None, VertexOrder::None),
                    }
                }
            }
        };
        self.order_kind = kind;
        order
    }
}
