//! The external path: pass 1 collects ids, pass 2 counts records per
//! vertex, which give the vertex order, the build units (at most 2^16
//! vertices) and the partitions, runs of whole units cut at vertex
//! boundaries by record count to fit the budget above the memory floor;
//! pass 3 scatters records to one spill file per partition (routed by new
//! id), and partitions are read back, grouped by unit in place, built and
//! appended one at a time.

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
        // Pass 1: ids, unless the vertex count is given (a generator, a
        // size line, --vertices) and nothing is to be compacted: then ids
        // outside it are caught by the counting pass.
        let t = Instant::now();
        let given = match self.plan.fixed_n {
            Some(n) if self.opts.ids != IdMode::Compact && self.opts.vertex_ids.is_none() => {
                Some(n)
            }
            _ => None,
        };
        let (n, compact, counts) = match given {
            Some(n) => (n, None, None),
            None => {
                let make = || StatsSink::new(rules, None);
                let (sinks, counts) = self.plan.pass(&make, self.progress, "scan ids")?;
                self.mtx_check(&counts)?;
                let mut seen = SeenIds::default();
                for s in &sinks {
                    seen.union(&s.seen);
                }
                drop(sinks);
                let (n, compact) = self.decide_ids(&mut seen)?;
                (n, compact, Some(counts))
            }
        };
        let mapper = match &compact {
            Some(m) => IdMapper::Compact(m.clone()),
            None => IdMapper::Dense { limit: n },
        };
        self.parse_s += t.elapsed().as_secs_f64();
        let fits = counts.as_ref().is_some_and(|counts| {
            let rec = if rules.weighted { 12 } else { 8 };
            let dirs = if rules.undirected || rules.reverse {
                2
            } else {
                1
            };
            (counts.data_lines.saturating_mul(rec * dirs) as i64) <= record_budget
        });
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
        // Pass 2: records per vertex in internal ids, which give the
        // vertex order (if any), then the build units and partitions.
        let t = Instant::now();
        // Each worker counts into its own counters when they all fit in a
        // quarter of the budget; else into shared atomic ones (slower:
        // hubs' counters bounce between cores).
        let dirs_counted = if rules.reverse { 2 } else { 1 };
        let local = n * 4 * dirs_counted * self.plan.threads as u64 <= self.budget / 4;
        let shared = (!local).then(|| {
            Arc::new([
                order::counters(n),
                order::counters(if rules.reverse { n } else { 0 }),
            ])
        });
        let make = || {
            let mut s = StatsSink::new(rules, Some(mapper.clone()));
            s.per_vertex = Some(match &shared {
                Some(c) => PerVertex::Shared(c.clone()),
                None => PerVertex::Local(
                    vec![0; n as usize],
                    vec![0; if rules.reverse { n as usize } else { 0 }],
                ),
            });
            s
        };
        let (mut sinks, count_counts) = self.plan.pass(&make, self.progress, "count")?;
        for s in sinks.iter_mut() {
            s.flush();
        }
        if counts.is_none() {
            self.mtx_check(&count_counts)?;
            if let Some(m) = sinks.iter().filter_map(|s| s.outside).max() {
                return Err(Error::Invalid(format!(
                    "vertex id {} is outside 0..{n}, the vertex count given by {}",
                    m + self.plan.id_base,
                    self.plan.fixed_from
                )));
            }
        }
        let (deg, deg_in) = match &shared {
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
        };
        drop(sinks);
        drop(shared);
        let order = match self.opts.order {
            VertexOrder::None => None,
            VertexOrder::Degree => Some(order::degree_order(&deg)),
            VertexOrder::Auto => {
                let o = order::degree_order(&deg);
                order::skewed(&o, &deg).then_some(o)
            }
        };
        // A partition's records, its lists and its blocks must fit the
        // budget above the floor: 8 bytes of record and about as much of
        // sorted list and block staging each (17 to 19 measured on rmat22),
        // about twice that with a weight.
        let per_record = if rules.weighted { 40 } else { 22 };
        let dirs = if rules.reverse { 2 } else { 1 };
        let [buffers, per_vertex, _] =
            memory_floor_parts(n, dirs, self.plan.threads, self.budget, 0);
        let base = buffers + per_vertex;
        let room = self.budget.saturating_sub(base).max(MIN_PARTITION_BYTES);
        let part_cap = (room / per_record)
            .min(self.opts.partition_records.unwrap_or(u64::MAX))
            .max(1);
        let records: u64 = deg.iter().map(|&d| d as u64).sum();
        let max_list = deg.iter().chain(&deg_in).copied().max().unwrap_or(0) as u64;
        let unit_cap = (records / (self.plan.threads as u64 * 16).max(1)).max(1 << 16);
        let out_cuts = order::cuts(order.as_deref(), &deg, unit_cap, part_cap);
        drop(deg);
        let in_cuts = rules
            .reverse
            .then(|| order::cuts(order.as_deref(), &deg_in, unit_cap, part_cap));
        drop(deg_in);
        // The floor: what any budget must hold, and one partition, which
        // cannot be smaller than the longest list.
        self.floor_parts = memory_floor_parts(
            n,
            dirs,
            self.plan.threads,
            self.budget,
            max_list * per_record,
        );
        let mapper = match order.as_ref() {
            Some(o) => IdMapper::Ordered {
                compact: compact.clone(),
                limit: n,
                new_of: Arc::new(crate::store::names::invert(o)),
            },
            None => mapper,
        };
        // Open spill pages (one per partition and worker) take at most an
        // eighth of the room, in pages of 512 to 128 Ki records.
        let parts_total =
            out_cuts.parts.len() - 1 + in_cuts.as_ref().map_or(0, |c| c.parts.len() - 1);
        let rec_bytes = if rules.weighted { 12 } else { 8 };
        let page_records = ((room / 8)
            / (parts_total as u64 * self.plan.threads as u64 * rec_bytes).max(1))
        .clamp(512, records::SPILL_PAGE_RECORDS as u64) as usize;
        // Pass 3: scatter records to one spill file per partition; or,
        // replaying the source, nothing until each partition's own pass.
        let spill = if self.replay {
            None
        } else {
            let set = |c: &order::Cuts| -> Result<Arc<SpillSet>> {
                Ok(Arc::new(SpillSet::new(
                    &self.temp_dir,
                    c.part_starts(),
                    page_records,
                )?))
            };
            let out_set = set(&out_cuts)?;
            let in_set = in_cuts.as_ref().map(set).transpose()?;
            Some((out_set, in_set))
        };
        let mut tally = None;
        if let Some((out_set, in_set)) = &spill {
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
            tally = Some((counts, loops));
        }
        // Spilled records are in new ids: the order's inverse (4 bytes a
        // vertex) is needed no more, unless partitions replay the source.
        let mapper = if spill.is_some() {
            drop(mapper);
            None
        } else {
            Some(mapper)
        };
        crate::io::system::release_free_memory();
        self.parse_s += t.elapsed().as_secs_f64();

        let tb = Instant::now();
        let mut w = self.writer()?;
        w.limit_buffers(write_buffer_bytes(self.budget) as usize);
        let order = self.order_first(&mut w, order)?;
        self.progress.stage("build", Some(parts_total as u64));
        let weighted = rules.weighted;
        // Replaying: each user id's partition, so that a pass drops the
        // edges of other partitions before mapping their ids (with dense
        // ids and at most 65536 partitions; 2 bytes a vertex).
        let table = |cuts: &order::Cuts| -> Option<Arc<Vec<u16>>> {
            let Some(IdMapper::Ordered {
                compact: None,
                new_of,
                ..
            }) = &mapper
            else {
                return None;
            };
            (cuts.parts.len() - 1 <= 1 << 16).then(|| {
                let starts = cuts.part_starts();
                Arc::new(
                    new_of
                        .par_iter()
                        .map(|&v| (starts.partition_point(|&s| s <= v) - 1) as u16)
                        .collect(),
                )
            })
        };
        let out_table = table(&out_cuts);
        let in_table = in_cuts.as_ref().and_then(table);
        // The first replay pass's counts stand for the input's.
        let replayed = std::sync::Mutex::new(None);
        let load = |inn: bool, cuts: &order::Cuts, p: usize| -> Result<Group> {
            let units = &cuts.units[cuts.parts[p]..=cuts.parts[p + 1]];
            let (keys, ws) = match (&spill, &mapper) {
                (Some((out_set, in_set)), _) => {
                    let set = if inn {
                        in_set.as_ref().unwrap_or(out_set)
                    } else {
                        out_set
                    };
                    set.take(p, weighted)?
                }
                (None, Some(m)) => {
                    let table = if inn { &in_table } else { &out_table };
                    let pre = table.as_ref().map(|t| (t.clone(), p as u16));
                    let (keys, ws, counts, loops) =
                        self.replay_partition(m, cuts.vertices(p), inn, pre)?;
                    if let Ok(mut r) = replayed.lock() {
                        r.get_or_insert((counts, loops));
                    }
                    (keys, ws)
                }
                (None, None) => (Vec::new(), Vec::new()),
            };
            Ok(Group::Bucketed(bucket_by_unit(keys, ws, units, weighted)))
        };
        // Partitions are loaded lazily, one at a time.
        struct Lazy<'s, F: FnMut(usize) -> Result<Group>> {
            n: usize,
            i: usize,
            f: F,
            err: &'s mut Option<Error>,
        }
        impl<F: FnMut(usize) -> Result<Group>> Iterator for Lazy<'_, F> {
            type Item = Group;
            fn next(&mut self) -> Option<Group> {
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
                n: out_cuts.parts.len() - 1,
                i: 0,
                f: |p| {
                    progress.set(p as u64);
                    load(false, &out_cuts, p)
                },
                err: &mut err,
            };
            self.build_units(&mut w, n, false, it)?
        };
        if let Some(e) = err.take() {
            return Err(e);
        }
        let inn = match &in_cuts {
            Some(cuts) => {
                let it = Lazy {
                    n: cuts.parts.len() - 1,
                    i: 0,
                    f: |p| load(true, cuts, p),
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
        let replayed = replayed.into_inner().ok().flatten();
        let (counts, loops) = tally.or(replayed).unwrap_or_default();
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
            parts_total,
            build_s,
        )
    }

    /// One pass over a replayable source keeping the records of one
    /// partition, the sources `lo..hi` of the out-edges (in-edges when
    /// `inn`): its keys and weights, the pass's counts and self loops.
    #[allow(clippy::type_complexity)]
    fn replay_partition(
        &self,
        mapper: &IdMapper,
        (lo, hi): (u32, u32),
        inn: bool,
        prefilter: Option<(Arc<Vec<u16>>, u16)>,
    ) -> Result<(Vec<u64>, Vec<f32>, ParseCounts, u64)> {
        let rules = self.plan.rules;
        let unlimited = Arc::new(AtomicI64::new(i64::MAX));
        let make = || {
            let mut s = CellSink::new(
                rules,
                mapper.clone(),
                Destination::Memory(unlimited.clone()),
            );
            s.track_seen = false;
            s.keep = Some((inn, lo, hi));
            s.prefilter = prefilter.clone();
            s
        };
        let (mut sinks, counts) = self.plan.pass(&make, &NoProgress, "replay")?;
        let mut loops = 0;
        let mut pages = Vec::new();
        for s in sinks.iter_mut() {
            if !s.drain() && s.needs_compaction {
                return Err(Error::Invalid(
                    "a generated id changed between passes (the generator is not replayable)"
                        .into(),
                ));
            }
            s.finish()?;
            loops += s.self_loops;
            pages.append(if inn { &mut s.full_in } else { &mut s.full_out });
        }
        drop(sinks);
        let total: usize = pages.iter().map(|p| p.keys.len()).sum();
        let weighted = rules.weighted;
        let mut keys = Vec::with_capacity(total);
        let mut ws = Vec::with_capacity(if weighted { total } else { 0 });
        for page in pages {
            keys.extend_from_slice(&page.keys);
            ws.extend_from_slice(&page.weights);
        }
        Ok((keys, ws, counts, loops))
    }
}

/// Groups a partition's records by build unit, in place (one pass of
/// swaps, no second array): `units` are the first sources of the
/// partition's units, then the end of its last.
fn bucket_by_unit(mut keys: Vec<u64>, mut ws: Vec<f32>, units: &[u32], weighted: bool) -> Bucketed {
    let lo = units[0];
    let local: Vec<u32> = units.iter().map(|&s| s - lo).collect();
    let unit_of = order::UnitOf::new(&local);
    let of = |k: u64| unit_of.of(((k >> 32) as u32).wrapping_sub(lo));
    let nb = local.len() - 1;
    let mut bounds = vec![0usize; nb + 1];
    for &k in &keys {
        bounds[of(k) + 1] += 1;
    }
    for b in 0..nb {
        bounds[b + 1] += bounds[b];
    }
    let mut next = bounds[..nb].to_vec();
    for b in 0..nb {
        while next[b] < bounds[b + 1] {
            let i = next[b];
            let t = of(keys[i]);
            if t == b {
                next[b] += 1;
            } else {
                let j = next[t];
                keys.swap(i, j);
                if weighted {
                    ws.swap(i, j);
                }
                next[t] += 1;
            }
        }
    }
    Bucketed {
        keys,
        weights: ws,
        units: units.to_vec(),
        bounds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_bucketed_by_unit_in_place_with_their_weights() {
        let units = [100u32, 103, 110, 200];
        let mut keys = Vec::new();
        let mut ws = Vec::new();
        for i in 0..1000u64 {
            let src = 100 + (i * 37) % 100;
            keys.push(src << 32 | i);
            ws.push(i as f32);
        }
        let b = bucket_by_unit(keys.clone(), ws, &units, true);
        assert_eq!(b.bounds.len(), 4);
        assert_eq!(*b.bounds.last().unwrap(), 1000);
        for u in 0..3 {
            for i in b.bounds[u]..b.bounds[u + 1] {
                let src = (b.keys[i] >> 32) as u32;
                assert!(units[u] <= src && src < units[u + 1]);
                assert_eq!(b.weights[i], (b.keys[i] & 0xFFFF_FFFF) as f32);
            }
        }
        let mut sorted = b.keys.clone();
        sorted.sort_unstable();
        keys.sort_unstable();
        assert_eq!(sorted, keys);
    }
}
