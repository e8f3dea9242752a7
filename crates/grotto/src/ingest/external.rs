//! The external path: pass 1 collects ids, pass 2 counts records per
//! cell, cells are grouped into partitions sized to the budget above the
//! memory floor, pass 3 scatters records to one spill file per partition,
//! and partitions are built and appended one at a time.

use super::*;
use records::PerVertex;

impl BuildCtx<'_> {
    /// The external path (also used whenever ids must be compacted before
    /// records are stored).
    pub(super) fn external_or_compact(
        &mut self,
        record_budget: i64,
        reason: &str,
    ) -> Result<ConvertReport> {
        let rules = self.plan.rules;
        // Pass 1: ids.
        let t = Instant::now();
        let make = || StatsSink::new(rules, None);
        let (sinks, counts) = self.plan.pass(&make, self.progress, "scan ids")?;
        self.mtx_check(&counts)?;
        let mut seen = SeenIds::default();
        for s in &sinks {
            seen.union(&s.seen);
        }
        drop(sinks);
        let (n, compact) = self.decide_ids(&mut seen)?;
        drop(seen);
        let mapper = match &compact {
            Some(m) => IdMapper::Compact(m.clone()),
            None => IdMapper::Dense { limit: n },
        };
        self.parse_s += t.elapsed().as_secs_f64();
        let fits = {
            let rec = if rules.weighted { 12 } else { 8 };
            let dirs = if rules.undirected || rules.reverse {
                2
            } else {
                1
            };
            (counts.data_lines.saturating_mul(rec * dirs) as i64) <= record_budget
        };
        if fits
            && !self.opts.force_external
            && !reason.starts_with("records outgrew")
            && !reason.starts_with("estimated records")
        {
            // Compaction was the only reason to leave the memory path.
            if let MemoryOutcome::Done(r) = self.memory_pass(mapper.clone(), record_budget)? {
                return Ok(*r);
            }
        }
        // Pass 2: records per cell in internal ids (with a vertex order,
        // records per vertex, which give the order and then the cells).
        let t = Instant::now();
        // Each worker counts into its own counters when they all fit in a
        // quarter of the budget; else into shared atomic ones (slower:
        // hubs' counters bounce between cores).
        let ordered = self.opts.order != VertexOrder::None;
        let dirs_counted = if rules.reverse { 2 } else { 1 };
        let local = n * 4 * dirs_counted * self.plan.threads as u64 <= self.budget / 4;
        let shared = (ordered && !local).then(|| {
            Arc::new([
                order::counters(n),
                order::counters(if rules.reverse { n } else { 0 }),
            ])
        });
        let make = || {
            let mut s = StatsSink::new(rules, Some(mapper.clone()));
            s.per_vertex = match (&shared, ordered) {
                (Some(c), _) => Some(PerVertex::Shared(c.clone())),
                (None, true) => Some(PerVertex::Local(
                    vec![0; n as usize],
                    vec![0; if rules.reverse { n as usize } else { 0 }],
                )),
                (None, false) => None,
            };
            s
        };
        let (mut sinks, _) = self.plan.pass(&make, self.progress, "count")?;
        for s in sinks.iter_mut() {
            s.flush();
        }
        let degrees = ordered.then(|| match &shared {
            Some(c) => (order::loads(&c[0]), order::loads(&c[1])),
            None => {
                let mut locals: Vec<(Vec<u32>, Vec<u32>)> = sinks
                    .iter_mut()
                    .filter_map(|s| match s.per_vertex.take() {
                        Some(PerVertex::Local(o, i)) => Some((o, i)),
                        _ => None,
                    })
                    .collect();
                let mut total = locals.pop().unwrap_or_default();
                for (o, i) in locals {
                    order::add_into(&mut total.0, &o);
                    order::add_into(&mut total.1, &i);
                }
                total
            }
        });
        drop(shared);
        let mut out_cells: Vec<u64> = Vec::new();
        let mut in_cells: Vec<u64> = Vec::new();
        for s in &sinks {
            for (acc, c) in [(&mut out_cells, &s.out_cells), (&mut in_cells, &s.in_cells)] {
                if acc.len() < c.len() {
                    acc.resize(c.len(), 0);
                }
                for (a, b) in acc.iter_mut().zip(c) {
                    *a += b;
                }
            }
        }
        drop(sinks);
        let ncells = ((n.max(1) - 1) >> CELL_SHIFT) as usize + 1;
        out_cells.resize(ncells, 0);
        in_cells.resize(ncells, 0);
        let (mapper, order, starts) = match degrees {
            Some((deg, deg_in))
                if self.opts.order == VertexOrder::Auto
                    && !order::skewed(&order::degree_order(&deg), &deg) =>
            {
                // Not worth an order: cells by the user's order.
                for (v, &d) in deg.iter().enumerate() {
                    out_cells[v >> CELL_SHIFT] += d as u64;
                    if let Some(&i) = deg_in.get(v) {
                        in_cells[v >> CELL_SHIFT] += i as u64;
                    }
                }
                (mapper, None, None)
            }
            Some((deg, deg_in)) => {
                let order = order::degree_order(&deg);
                let records: u64 = deg.iter().map(|&d| d as u64).sum();
                let cap = (records / (self.plan.threads as u64 * 16).max(1)).max(1 << 16);
                let starts = order::unit_starts(&order, &deg, cap);
                for (v, &r) in order.iter().enumerate() {
                    let c = v >> CELL_SHIFT;
                    out_cells[c] += deg[r as usize] as u64;
                    if let Some(&d) = deg_in.get(r as usize) {
                        in_cells[c] += d as u64;
                    }
                }
                let new_of = Arc::new(crate::store::names::invert(&order));
                let m = IdMapper::Ordered {
                    compact: compact.clone(),
                    limit: n,
                    new_of,
                };
                (m, Some(order), Some(starts))
            }
            None => (mapper, None, None),
        };
        // A partition's records, its lists and its blocks must fit the
        // budget above the floor: 8 bytes of record and about as much of
        // sorted list and block staging each (17 to 19 measured on rmat22),
        // about twice that with a weight.
        let per_record = if rules.weighted { 40 } else { 22 };
        // What the build holds whatever the budget (a partition holds at
        // least one cell, so the largest cell counts); partitions get the rest.
        let dirs = if rules.reverse { 2 } else { 1 };
        let largest_cell = out_cells
            .iter()
            .chain(&in_cells)
            .copied()
            .max()
            .unwrap_or(0);
        // A vertex order keeps both directions of its permutation (8 bytes
        // per vertex) through the scatter and the build.
        let order_bytes = if order.is_some() { n * 8 } else { 0 };
        let base =
            memory_floor_bytes(n, dirs, self.plan.threads, 0) - MIN_PARTITION_BYTES + order_bytes;
        self.floor =
            memory_floor_bytes(n, dirs, self.plan.threads, largest_cell * per_record) + order_bytes;
        let cap_records =
            (self.budget.saturating_sub(base).max(MIN_PARTITION_BYTES) / per_record).max(1);
        let split = |cells: &[u64]| -> (Vec<u32>, Vec<(usize, usize)>) {
            let mut part = vec![0u32; cells.len()];
            let mut ranges = Vec::new();
            let (mut start, mut acc) = (0usize, 0u64);
            for (c, &k) in cells.iter().enumerate() {
                if acc + k > cap_records && c > start {
                    ranges.push((start, c));
                    start = c;
                    acc = 0;
                }
                acc += k;
                part[c] = ranges.len() as u32;
            }
            ranges.push((start, cells.len()));
            (part, ranges)
        };
        let (out_part, out_ranges) = split(&out_cells);
        let out_set = Arc::new(SpillSet::new(&self.temp_dir, out_part, out_ranges.len())?);
        let (in_set, in_ranges) = if rules.reverse {
            let (p, r) = split(&in_cells);
            (
                Some(Arc::new(SpillSet::new(&self.temp_dir, p, r.len())?)),
                r,
            )
        } else {
            (None, Vec::new())
        };
        // Pass 3: scatter records to partition files.
        let dest = Destination::Spill(out_set.clone(), in_set.clone());
        let make = || CellSink::new(rules, mapper.clone(), dest.clone());
        let (mut sinks, counts) = self.plan.pass(&make, self.progress, "scatter")?;
        for s in sinks.iter_mut() {
            s.drain();
        }
        if sinks.iter().any(|s| s.needs_compaction) {
            // Pass 1 saw every id, so this cannot happen unless the input
            // changed between passes.
            return Err(Error::Invalid(
                "an id appeared that the first pass did not see (did the input change while it was read?)".into(),
            ));
        }
        let mut loops = 0;
        for s in sinks.iter_mut() {
            s.finish()?;
            loops += s.self_loops;
        }
        drop(sinks);
        self.parse_s += t.elapsed().as_secs_f64();

        let tb = Instant::now();
        let mut w = self.writer()?;
        self.progress.stage(
            "build",
            Some(out_ranges.len() as u64 + in_ranges.len() as u64),
        );
        let weighted = rules.weighted;
        let load = |set: &SpillSet, p: usize, range: (usize, usize)| -> Result<Vec<Unit>> {
            let (keys, ws) = set.take(p, weighted)?;
            Ok(match &starts {
                Some(st) => split_into_units(keys, ws, range, st, weighted),
                None => group_into_units(keys, ws, range, n, weighted),
            })
        };
        // Partitions are loaded lazily, one at a time.
        struct Lazy<'s, F: FnMut(usize) -> Result<Vec<Unit>>> {
            n: usize,
            i: usize,
            f: F,
            err: &'s mut Option<Error>,
        }
        impl<F: FnMut(usize) -> Result<Vec<Unit>>> Iterator for Lazy<'_, F> {
            type Item = Vec<Unit>;
            fn next(&mut self) -> Option<Vec<Unit>> {
                if self.i >= self.n || self.err.is_some() {
                    return None;
                }
                self.i += 1;
                match (self.f)(self.i - 1) {
                    Ok(u) => Some(u),
                    Err(e) => {
                        *self.err = Some(e);
                        None
                    }
                }
            }
        }
        let progress = self.progress;
        let mut err = None;
        let out = {
            let it = Lazy {
                n: out_ranges.len(),
                i: 0,
                f: |p| {
                    progress.set(p as u64);
                    load(&out_set, p, out_ranges[p])
                },
                err: &mut err,
            };
            self.build_units(&mut w, n, false, it)?
        };
        if let Some(e) = err.take() {
            return Err(e);
        }
        let inn = match &in_set {
            Some(set) => {
                let it = Lazy {
                    n: in_ranges.len(),
                    i: 0,
                    f: |p| load(set, p, in_ranges[p]),
                    err: &mut err,
                };
                let s = self.build_units(&mut w, n, true, it)?;
                if let Some(e) = err.take() {
                    return Err(e);
                }
                Some(s)
            }
            None => None,
        };
        let build_s = tb.elapsed().as_secs_f64();
        self.finish(
            w,
            n,
            compact,
            order,
            out,
            inn,
            loops,
            counts,
            BuildPath::External,
            out_ranges.len() + in_ranges.len(),
            build_s,
        )
    }
}

/// Splits a partition's records into units of one cell each.
fn group_into_units(
    keys: Vec<u64>,
    ws: Vec<f32>,
    (c0, c1): (usize, usize),
    n: u64,
    weighted: bool,
) -> Vec<Unit> {
    let cells = c1 - c0;
    let mut counts = vec![0usize; cells];
    for &k in &keys {
        counts[((k >> 32) >> CELL_SHIFT) as usize - c0] += 1;
    }
    let mut units: Vec<Unit> = (0..cells)
        .map(|i| {
            let c = (c0 + i) as u64;
            let mut p = Page {
                owner: c as u32,
                keys: Vec::with_capacity(counts[i]),
                weights: Vec::new(),
            };
            if weighted {
                p.weights.reserve_exact(counts[i]);
            }
            Unit {
                lo: (c << CELL_SHIFT).min(n),
                hi: ((c + 1) << CELL_SHIFT).min(n),
                pages: vec![p],
            }
        })
        .collect();
    for (i, &k) in keys.iter().enumerate() {
        let u = &mut units[((k >> 32) >> CELL_SHIFT) as usize - c0].pages[0];
        u.keys.push(k);
        if weighted {
            u.weights.push(ws[i]);
        }
    }
    units
}

/// Splits a partition's records (cells `c0..c1` of an ordered build) into
/// the build units of `starts` that lie in those cells.
fn split_into_units(
    keys: Vec<u64>,
    ws: Vec<f32>,
    (c0, c1): (usize, usize),
    starts: &[u32],
    weighted: bool,
) -> Vec<Unit> {
    let n = *starts.last().unwrap_or(&0) as u64;
    let (lo, hi) = (
        ((c0 as u64) << CELL_SHIFT).min(n) as u32,
        ((c1 as u64) << CELL_SHIFT).min(n) as u32,
    );
    // Units nest in cells, so the partition's units are a run of them.
    let (u0, u1) = (
        starts.partition_point(|&s| s < lo),
        starts.partition_point(|&s| s < hi),
    );
    let unit_of = order::UnitOf::new(starts);
    let mut units: Vec<Unit> = (u0..u1.max(u0))
        .map(|u| Unit {
            lo: starts[u] as u64,
            hi: starts[u + 1] as u64,
            pages: vec![Page {
                owner: u as u32,
                keys: Vec::new(),
                weights: Vec::new(),
            }],
        })
        .collect();
    for (i, &k) in keys.iter().enumerate() {
        let p = &mut units[unit_of.of((k >> 32) as u32) - u0].pages[0];
        p.keys.push(k);
        if weighted {
            p.weights.push(ws[i]);
        }
    }
    units
}
