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
            VertexOrder::Bfs => {
                return Err(Error::Limit {
                    what: format!(
                        "--order bfs needs the graph's records in memory, and this build spills \
                         them ({reason}): raise --memory, or use --order degree or none"
                    ),
                })
            }
            VertexOrder::Auto => {
                let o = order::degree_order(&deg);
                order::skewed(&o, &deg).then_some(o)
            }
        };
        self.order_kind = if order.is_some() {
            VertexOrder::Degree
        } else {
            VertexOrder::None
        };
        // A partition's records, its lists and its blocks must fit the
        // budget above the floor: 8 bytes of record and about as much of
        // sorted list and block staging each (17 to 19 measured on rmat22),
        // about twice that with a weight; a replayed partition holds its
        // records twice while its workers' pages are joined.
        let rec_bytes: u64 = if rules.weighted { 12 } else { 8 };
        let dirs = if rules.reverse { 2 } else { 1 };
        let [buffers, per_vertex, _] =
            memory_floor_parts(n, dirs, self.plan.threads, self.budget, 0);
        // Later passes over the input map ids through the order's inverse
        // and a table of each id's partition: 6 bytes a vertex more.
        let later = if matches!(self.spill, Spill::Whole) || order.is_none() {
            0
        } else {
            6 * n
        };
        let base = buffers + per_vertex + later;
        let room = self.budget.saturating_sub(base).max(MIN_PARTITION_BYTES);
        let records: u64 = deg.iter().map(|&d| d as u64).sum();
        let max_list = deg.iter().chain(&deg_in).copied().max().unwrap_or(0) as u64;
        let unit_cap = (records / (self.plan.threads as u64 * 16).max(1)).max(1 << 16);
        let cut = |replay: bool| {
            let per_record =
                if rules.weighted { 40 } else { 22 } + if replay { rec_bytes } else { 0 };
            let part_cap = (room / per_record)
                .min(self.opts.partition_records.unwrap_or(u64::MAX))
                .max(1);
            let out_cuts = order::cuts(order.as_deref(), &deg, unit_cap, part_cap);
            let in_cuts = rules
                .reverse
                .then(|| order::cuts(order.as_deref(), &deg_in, unit_cap, part_cap));
            (out_cuts, in_cuts, per_record)
        };
        let (mut out_cuts, mut in_cuts, mut per_record) = cut(matches!(self.spill, Spill::Replay));
        // Spilling in groups: when not even the largest partition fits the
        // temporary directory, a generator replays each partition and
        // anything else is refused.
        if let Spill::Groups { replayable, .. } = self.spill {
            let largest = out_cuts
                .largest()
                .max(in_cuts.as_ref().map_or(0, |c| c.largest()));
            let room = self.group_room();
            if spill_bytes(largest, rec_bytes) > room {
                if replayable {
                    self.spill = Spill::Replay;
                    (out_cuts, in_cuts, per_record) = cut(true);
                } else {
                    let Spill::Groups { refusal, .. } =
                        std::mem::replace(&mut self.spill, Spill::Whole)
                    else {
                        unreachable!("matched above")
                    };
                    return Err(refusal.unwrap_or_else(|| {
                        Error::Limit {
                            what: format!(
                                "{}: the build spills records to {}, and not even one partition of them ({}) fits the {} free there beside the output; give --temp-dir on a disk with more room",
                                self.output.display(),
                                self.temp_dir.display(),
                                crate::metrics::human(spill_bytes(largest, rec_bytes)),
                                crate::metrics::human(room)
                            ),
                        }
                    }));
                }
            }
        }
        drop(deg);
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
        self.floor_parts[1] += later;
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
        let page_records = ((room / 8)
            / (parts_total as u64 * self.plan.threads as u64 * rec_bytes).max(1))
        .clamp(512, records::SPILL_PAGE_RECORDS as u64) as usize;
        // Pass 3: scatter records to one spill file per partition; or,
        // spilling in groups or replaying, nothing until each group's or
        // partition's own pass.
        let spill = if let Spill::Whole = self.spill {
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
        } else {
            None
        };
        let mut tally = None;
        if let Some((out_set, in_set)) = &spill {
            let dest = Destination::Spill(out_set.clone(), in_set.clone());
            let make = || CellSink::new(rules, mapper.clone(), dest.clone());
            tally = Some(self.scatter(&make, self.progress)?);
        }
        // Spilled records are in new ids: the order's inverse (4 bytes a
        // vertex) is needed no more, unless later passes map ids again.
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
        // Later passes: each user id's partition, so that a pass drops the
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
        // What later passes map ids with (the order's inverse and the
        // partition tables, 6 bytes a vertex), dropped as soon as the last
        // partition's records are loaded: before the last partition is
        // built and the finish builds the block map beside the index.
        let later = std::sync::Mutex::new(mapper.map(|m| Later {
            mapper: m,
            out_table,
            in_table,
        }));
        let last_adjacency_inn = in_cuts.is_some();
        // The first later pass's counts stand for the input's.
        let replayed = std::sync::Mutex::new(None);
        // The spill group loaded: adjacency, partitions, their spill set.
        let group: std::sync::Mutex<Option<LoadedGroup>> = std::sync::Mutex::new(None);
        let lock_err = || Error::Invalid("a spill group's lock was poisoned".into());
        let load = |inn: bool, cuts: &order::Cuts, p: usize| -> Result<Group> {
            let units = &cuts.units[cuts.parts[p]..=cuts.parts[p + 1]];
            // Cheap clones (shared arrays), so that the lock is not held
            // through a pass.
            let (mapper, table) = match &*later.lock().map_err(|_| lock_err())? {
                Some(l) => {
                    let t = if inn { &l.in_table } else { &l.out_table };
                    (Some(l.mapper.clone()), t.clone())
                }
                None => (None, None),
            };
            if inn == last_adjacency_inn && p + 2 == cuts.parts.len() {
                *later.lock().map_err(|_| lock_err())? = None;
            }
            let (keys, ws) = match (&spill, &mapper, &self.spill) {
                (Some((out_set, in_set)), _, _) => {
                    let set = if inn {
                        in_set.as_ref().unwrap_or(out_set)
                    } else {
                        out_set
                    };
                    set.take(p, weighted)?
                }
                (None, Some(m), Spill::Groups { .. }) => {
                    let mut g = group.lock().map_err(|_| lock_err())?;
                    let loaded = match &*g {
                        Some(l) if l.inn == inn && l.parts.contains(&p) => {
                            Some((l.parts.start, l.set.clone()))
                        }
                        _ => None,
                    };
                    let (lo, set) = match loaded {
                        Some(l) => l,
                        None => {
                            // Free the last group's files before the next.
                            *g = None;
                            let pass = GroupPass {
                                mapper: m,
                                table: table.as_ref(),
                                page_records,
                                rec_bytes,
                            };
                            let (l, r) = self.spill_group(&pass, inn, cuts, p)?;
                            if let Ok(mut first) = replayed.lock() {
                                first.get_or_insert(r);
                            }
                            let set = l.set.clone();
                            *g = Some(l);
                            (p, set)
                        }
                    };
                    set.take(p - lo, weighted)?
                }
                (None, Some(m), _) => {
                    let pre = table.map(|t| (t, p as u32, p as u32 + 1));
                    let (keys, ws, counts, loops) =
                        self.replay_partition(m, cuts.vertices(p), inn, pre)?;
                    if let Ok(mut r) = replayed.lock() {
                        r.get_or_insert((counts, loops));
                    }
                    (keys, ws)
                }
                (None, None, _) => (Vec::new(), Vec::new()),
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
        drop((later, group));
        crate::io::system::release_free_memory();
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

    /// One scatter pass of records to spill files: the pass's counts and
    /// the self loops dropped.
    fn scatter(
        &self,
        make: &(dyn Fn() -> CellSink + Sync),
        progress: &dyn Progress,
    ) -> Result<(ParseCounts, u64)> {
        let (mut sinks, counts) = self.plan.pass(make, progress, "scatter")?;
        for s in sinks.iter_mut() {
            s.drain();
        }
        if sinks.iter().any(|s| s.needs_compaction) {
            // The counting pass saw every id, so this cannot happen unless
            // the input changed between passes.
            return Err(Error::Invalid(
                "an id appeared that the first pass did not see (did the input change while it was read?)".into(),
            ));
        }
        let mut loops = 0;
        for s in sinks.iter_mut() {
            s.finish()?;
            loops += s.self_loops;
        }
        Ok((counts, loops))
    }

    /// Spills the group of partitions that begins at partition `p` of
    /// `cuts` (in-edges when `inn`): as many as fit [`Self::group_room`]
    /// (at least one, at most `spill_group_records` records), in one pass
    /// over the input that keeps only their records. Returns the group and
    /// the pass's counts and self loops.
    fn spill_group(
        &self,
        pass: &GroupPass,
        inn: bool,
        cuts: &order::Cuts,
        p: usize,
    ) -> Result<(LoadedGroup, (ParseCounts, u64))> {
        let room = self.group_room();
        let cap = self.opts.spill_group_records.unwrap_or(u64::MAX);
        let mut hi = p + 1;
        let mut held = cuts.records[p];
        while hi < cuts.records.len() {
            let more = held + cuts.records[hi];
            if more > cap || spill_bytes(more, pass.rec_bytes) > room {
                break;
            }
            held = more;
            hi += 1;
        }
        let starts = cuts.part_starts()[p..=hi].to_vec();
        let (vlo, vhi) = (starts[0], starts[hi - p]);
        let set = Arc::new(SpillSet::new(&self.temp_dir, starts, pass.page_records)?);
        let dest = Destination::Spill(set.clone(), None);
        let pre = pass.table.map(|t| (t.clone(), p as u32, hi as u32));
        let make = || {
            let mut s = CellSink::new(self.plan.rules, pass.mapper.clone(), dest.clone());
            s.keep = Some((inn, vlo, vhi));
            s.prefilter = pre.clone();
            s
        };
        let r = self.scatter(&make, &NoProgress)?;
        let group = LoadedGroup {
            inn,
            parts: p..hi,
            set,
        };
        Ok((group, r))
    }

    /// Bytes one spill group may take in the temporary directory now: its
    /// free space less a thirty-second. The output needs no share of it:
    /// a partition's spill file is emptied before its lists are written,
    /// and they take fewer bytes than its records (at most 4 and 8 a
    /// record against 8 and 12), so a group's peak is its spill; what has
    /// been written by then is out of the free space already.
    fn group_room(&self) -> u64 {
        match crate::io::system::free_disk_bytes(&self.temp_dir) {
            Some(free) => free - free / 32,
            None => u64::MAX,
        }
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
        prefilter: Option<(Arc<Vec<u16>>, u32, u32)>,
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

/// Bytes of spill file for `records` records of `rec_bytes` each (with
/// each page's 4-byte head, at least 512 records a page).
fn spill_bytes(records: u64, rec_bytes: u64) -> u64 {
    records.saturating_mul(rec_bytes) + records / 128
}

/// What every group's pass needs: the id mapper, the table of each user
/// id's partition (if any), the spill's page size and record size.
struct GroupPass<'a> {
    mapper: &'a IdMapper,
    table: Option<&'a Arc<Vec<u16>>>,
    page_records: usize,
    rec_bytes: u64,
}

/// What passes after the first map ids with: the order's inverse (in the
/// mapper) and each adjacency's table of each id's partition.
struct Later {
    mapper: IdMapper,
    out_table: Option<Arc<Vec<u16>>>,
    in_table: Option<Arc<Vec<u16>>>,
}

/// The spill group loaded: its adjacency, its partitions and their files.
struct LoadedGroup {
    inn: bool,
    parts: std::ops::Range<usize>,
    set: Arc<SpillSet>,
}

/// How an external build gets each partition's records.
pub(super) enum Spill {
    /// One pass scatters every record to the temporary directory.
    Whole,
    /// Partitions in groups whose records fit the temporary directory's
    /// free space, one pass over the input per group (when the whole
    /// spill would not fit, or groups are capped).
    Groups {
        /// The whole spill's refusal, returned if not even the largest
        /// partition fits and the source cannot replay.
        refusal: Option<Error>,
        /// The source is a generator that gives the same edges each pass.
        replayable: bool,
    },
    /// Each partition from its own pass over a replayable source, its
    /// records kept in memory.
    Replay,
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
