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
        // A vertex order renumbers the records (in ranks now) and moves
        // them to pages of build units over the new ids.
        let to = Instant::now();
        let (order, starts) = match self.opts.order {
            VertexOrder::None => (None, None),
            VertexOrder::Degree | VertexOrder::Auto => 'order: {
                let deg = order::count_sources(&mut out_pages, n, range_of);
                let order = order::degree_order(&deg);
                if self.opts.order == VertexOrder::Auto && !order::skewed(&order, &deg) {
                    break 'order (None, None);
                }
                let records: u64 = out_pages.iter().map(|p| p.keys.len() as u64).sum();
                let cap = (records / (self.plan.threads as u64 * 16).max(1)).max(1 << 16);
                let starts = order::unit_starts(&order, &deg, cap);
                drop(deg);
                let new_of = crate::store::names::invert(&order);
                let w = self.plan.rules.weighted;
                out_pages = order::regroup(out_pages, &new_of, &starts, w);
                in_pages = order::regroup(in_pages, &new_of, &starts, w);
                (Some(order), Some(starts))
            }
        };
        self.order_s += to.elapsed().as_secs_f64();
        let units = |pages: Vec<Page>| -> Vec<Unit> {
            let mut units: Vec<Unit> = match &starts {
                Some(starts) => starts
                    .windows(2)
                    .map(|w| Unit {
                        lo: w[0] as u64,
                        hi: w[1] as u64,
                        pages: Vec::new(),
                    })
                    .collect(),
                None => {
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
                    (0..=cells)
                        .map(|c| {
                            let (lo, hi) = range_of(c);
                            Unit {
                                lo,
                                hi,
                                pages: Vec::new(),
                            }
                        })
                        .collect()
                }
            };
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
        let out = self.build_units(&mut w, n, false, vec![Group::Pages(units(out_pages))])?;
        let inn = if self.plan.rules.reverse {
            Some(self.build_units(&mut w, n, true, vec![Group::Pages(units(in_pages))])?)
        } else {
            None
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
}
