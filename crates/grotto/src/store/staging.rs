//! Staging a batch: the user's ids (or names) of inserted, deleted and
//! re-weighted edges turned into internal vertices, new vertices added
//! where the graph allows, and the batch as sorted arc keys for a commit
//! ([`super::update`]) or a merge ([`crate::ingest::merge`]).

use super::delta::key;
use super::format::*;
use super::update::GraphUpdate;
use crate::error::{Error, Result};
use crate::VertexId;
use rayon::prelude::*;

impl GraphUpdate {
    /// The internal vertex of the user's integer id `id`; when `create`,
    /// an id the graph lacks adds a vertex (that id alone: see
    /// [`GraphUpdate::vertex_not_in_graph`]). `None`: not a vertex (and
    /// not made).
    fn vertex_for(&mut self, id: u64, create: bool) -> Result<Option<VertexId>> {
        let g = &self.graph;
        if g.names().is_some() {
            return Err(Error::Invalid(
                "this graph's vertices have names; stage edges by name".into(),
            ));
        }
        if let Ok(v) = g.vertex_of(id) {
            return Ok(Some(v));
        }
        self.vertex_not_in_graph(id, create)
    }

    /// [`GraphUpdate::vertex_for`] of an id the graph (before the batch)
    /// does not have. Ids new to the graph take the next internal ids in
    /// the order they first appear, and only they become vertices (an id
    /// between them and the graph's is none); the commit carries them (a
    /// delta run) or writes them (a merge). On a graph with dense ids, a
    /// batch whose new ids continue the range without a gap keeps it
    /// dense ([`GraphUpdate::settle_new_ids`]).
    fn vertex_not_in_graph(&mut self, id: u64, create: bool) -> Result<Option<VertexId>> {
        if let Some(&v) = self.new_id_of.get(&id) {
            return Ok(Some(v));
        }
        if !create {
            return Ok(None);
        }
        let v = self.add_vertex(id)?;
        self.new_ids.push(id);
        self.new_id_of.insert(id, v);
        Ok(Some(v))
    }

    /// Settles the ids a batch adds to a graph with dense ids (once
    /// staging is over; commits and merges call it): ids that continue
    /// the dense range without a gap grow it (each is internal id `id -
    /// base`, and the graph stays dense), any others make the graph one
    /// with an id map (the commit carries them as keys).
    pub(crate) fn settle_new_ids(&mut self) {
        let g = &self.graph;
        if g.id_map().is_some() || g.names().is_some() || self.new_ids.is_empty() {
            return;
        }
        let (n0, base) = (g.vertex_count(), g.header().id_base);
        let k = self.new_ids.len() as u64;
        let (lo, hi) = self
            .new_ids
            .iter()
            .fold((u64::MAX, 0), |(a, b), &x| (a.min(x), b.max(x)));
        // Distinct ids (each was new once) between `base + n0` and
        // `base + n0 + k - 1` are exactly that range.
        if base.checked_add(n0) != Some(lo) || hi - lo + 1 != k {
            return;
        }
        let to: Vec<VertexId> = self
            .new_ids
            .iter()
            .map(|&id| (id - base) as VertexId)
            .collect();
        let fix = |v: &mut VertexId| {
            if *v != VertexId::MAX && *v as u64 >= n0 {
                *v = to[(*v as u64 - n0) as usize];
            }
        };
        for e in self
            .ins
            .iter_mut()
            .chain(&mut self.del)
            .chain(&mut self.set)
        {
            fix(&mut e.0);
            fix(&mut e.1);
        }
        self.widest_id = Some(hi);
        self.new_ids.clear();
        self.new_id_of.clear();
    }

    /// Whether the settled batch gives ids past a graph with dense ids,
    /// which then takes an id map.
    pub(crate) fn keys_dense_ids(&self) -> bool {
        let g = &self.graph;
        g.id_map().is_none() && g.names().is_none() && !self.new_ids.is_empty()
    }

    /// The internal vertex of the name `name`; when `create`, a name the
    /// graph lacks adds a vertex (the commit adds the name to the table).
    /// `None`: not a vertex (and not made).
    fn vertex_named(&mut self, name: &str, create: bool) -> Result<Option<VertexId>> {
        match self.graph.vertex_named(name) {
            Ok(v) => return Ok(Some(v)),
            Err(Error::NoSuchVertex { .. }) => {}
            Err(e) => return Err(e),
        }
        if let Some(&v) = self.new_name_of.get(name) {
            return Ok(Some(v));
        }
        if !create {
            return Ok(None);
        }
        if name.is_empty() {
            return Err(Error::Invalid("an empty vertex name".into()));
        }
        let v = self.add_vertex(name)?;
        self.new_names.push(name.to_string());
        self.new_name_of.insert(name.to_string(), v);
        Ok(Some(v))
    }

    /// The next internal id, for a vertex new to a graph with an id map
    /// or names (`what` names it in an error).
    fn add_vertex(&mut self, what: impl std::fmt::Display) -> Result<VertexId> {
        if self.vertices >= MAX_VERTICES {
            return Err(Error::Limit {
                what: format!(
                    "vertex {what} would make {} vertices, past the format's limit of {MAX_VERTICES}",
                    self.vertices + 1
                ),
            });
        }
        let v = self.vertices as VertexId;
        self.vertices += 1;
        Ok(v)
    }

    /// Stages the edge `u -> v` (user ids) for insertion (an unweighted
    /// graph; a weighted one takes [`GraphUpdate::insert_weighted`]).
    pub fn insert(&mut self, u: u64, v: u64) -> Result<()> {
        self.unweighted_inserts()?;
        let a = self.vertex_for(u, true)?;
        let b = self.vertex_for(v, true)?;
        if let (Some(a), Some(b)) = (a, b) {
            self.ins.push((a, b));
        }
        Ok(())
    }

    /// Stages the edge `u -> v` of weight `w` (user ids) for insertion
    /// into a weighted graph. An edge already there keeps its weight (and
    /// is counted): [`GraphUpdate::set_weight`] changes weights.
    pub fn insert_weighted(&mut self, u: u64, v: u64, w: f32) -> Result<()> {
        self.weighted_only("inserted edges carry no weight")?;
        self.note_weights(0, &[w], |_| (u.to_string(), v.to_string()));
        let a = self.vertex_for(u, true)?;
        let b = self.vertex_for(v, true)?;
        if let (Some(a), Some(b)) = (a, b) {
            self.ins.push((a, b));
            self.ins_w.push(w);
        }
        Ok(())
    }

    /// Stages a new weight `w` for the edge `u -> v` (user ids) of a
    /// weighted graph. Weights are set after deletes and inserts; an edge
    /// that is not there then is counted, not an error.
    pub fn set_weight(&mut self, u: u64, v: u64, w: f32) -> Result<()> {
        self.weighted_only("there are no weights to set")?;
        self.note_weights(1, &[w], |_| (u.to_string(), v.to_string()));
        match (self.vertex_for(u, false)?, self.vertex_for(v, false)?) {
            (Some(a), Some(b)) => self.set.push((a, b)),
            _ => self.set.push((VertexId::MAX, VertexId::MAX)),
        }
        self.set_w.push(w);
        Ok(())
    }

    /// Counts the weights of `ws` that shortest paths refuse (negative or
    /// NaN) under `kind` (0: inserted edges, 1: new weights), keeping the
    /// first with its ends as the user named them (`ends(i)`).
    fn note_weights(&mut self, kind: usize, ws: &[f32], ends: impl Fn(usize) -> (String, String)) {
        let bad = |w: &f32| w.is_nan() || *w < 0.0;
        let count = ws.par_iter().filter(|w| bad(w)).count() as u64;
        if count == 0 {
            return;
        }
        let slot = &mut self.bad_weights[kind];
        if slot.1.is_none() {
            if let Some(i) = ws.iter().position(bad) {
                let (u, v) = ends(i);
                slot.1 = Some((u, v, ws[i]));
            }
        }
        slot.0 += count;
    }

    /// Refuses weighted staging on an unweighted graph.
    fn weighted_only(&self, what: &str) -> Result<()> {
        if self.graph.weighted() {
            return Ok(());
        }
        Err(Error::Invalid(format!(
            "{} is unweighted: {what} (leave the weights out, or pass --ignore-weights to \
             read a file's edges without them)",
            self.graph.path().display()
        )))
    }

    /// Refuses a weighted batch for an unweighted graph, inserts without
    /// weights, and weight columns whose length differs from their edges'.
    fn check_weighted_batch(
        &self,
        ins: (&[(u64, u64)], &[f32]),
        set: (&[(u64, u64)], &[f32]),
    ) -> Result<()> {
        self.weighted_only("weights are given")?;
        if ins.1.is_empty() && !ins.0.is_empty() {
            self.unweighted_inserts()?;
        }
        check_weights(ins, set)
    }

    /// Refuses inserts without weights into a weighted graph.
    fn unweighted_inserts(&self) -> Result<()> {
        if !self.graph.weighted() {
            return Ok(());
        }
        Err(Error::Invalid(format!(
            "{} is weighted: give each inserted edge a weight (a third column)",
            self.graph.path().display()
        )))
    }

    /// Stages the edge `u -> v` (user ids) for deletion; an edge that is
    /// not there is counted when the batch commits.
    pub fn delete(&mut self, u: u64, v: u64) -> Result<()> {
        match (self.vertex_for(u, false)?, self.vertex_for(v, false)?) {
            (Some(a), Some(b)) => self.del.push((a, b)),
            _ => self.del.push((VertexId::MAX, VertexId::MAX)),
        }
        Ok(())
    }

    /// Stages the edge `u -> v` between named vertices for insertion.
    pub fn insert_named(&mut self, u: &str, v: &str) -> Result<()> {
        self.unweighted_inserts()?;
        let a = self.vertex_named(u, true)?;
        let b = self.vertex_named(v, true)?;
        if let (Some(a), Some(b)) = (a, b) {
            self.ins.push((a, b));
        }
        Ok(())
    }

    /// Stages the edge `u -> v` between named vertices for deletion.
    pub fn delete_named(&mut self, u: &str, v: &str) -> Result<()> {
        match (self.vertex_named(u, false)?, self.vertex_named(v, false)?) {
            (Some(a), Some(b)) => self.del.push((a, b)),
            _ => self.del.push((VertexId::MAX, VertexId::MAX)),
        }
        Ok(())
    }

    /// Stages many edges in the user's integer ids at once: deletes, then
    /// inserts, as [`GraphUpdate::delete`] and [`GraphUpdate::insert`]
    /// would, with the ids of existing vertices looked up in parallel.
    pub fn stage_ids(&mut self, ins: &[(u64, u64)], del: &[(u64, u64)]) -> Result<()> {
        if !ins.is_empty() {
            self.unweighted_inserts()?;
        }
        let d = self.lookup_ids(del, false)?;
        append(&mut self.del, d);
        let i = self.lookup_ids(ins, true)?;
        append(&mut self.ins, i);
        Ok(())
    }

    /// [`GraphUpdate::stage_ids`] for a weighted graph: inserts with their
    /// weights `ins_w`, and weight changes `set` to `set_w` (see
    /// [`GraphUpdate::set_weight`]).
    pub fn stage_ids_weighted(
        &mut self,
        ins: (&[(u64, u64)], &[f32]),
        del: &[(u64, u64)],
        set: (&[(u64, u64)], &[f32]),
    ) -> Result<()> {
        self.check_weighted_batch(ins, set)?;
        let id = |e: (u64, u64)| (e.0.to_string(), e.1.to_string());
        self.note_weights(0, ins.1, |i| id(ins.0[i]));
        self.note_weights(1, set.1, |i| id(set.0[i]));
        let d = self.lookup_ids(del, false)?;
        append(&mut self.del, d);
        let i = self.lookup_ids(ins.0, true)?;
        append(&mut self.ins, i);
        self.ins_w.extend_from_slice(ins.1);
        let s = self.lookup_ids(set.0, false)?;
        self.set.extend(s);
        self.set_w.extend_from_slice(set.1);
        Ok(())
    }

    /// The internal vertices of `pairs` of user ids, looked up in
    /// parallel; new ids add vertices when `create`, else a pair with an
    /// unknown id comes back as `VertexId::MAX` twice.
    fn lookup_ids(
        &mut self,
        pairs: &[(u64, u64)],
        create: bool,
    ) -> Result<Vec<(VertexId, VertexId)>> {
        let g = &self.graph;
        if g.names().is_some() {
            return Err(Error::Invalid(
                "this graph's vertices have names; stage edges by name".into(),
            ));
        }
        if g.vertex_count() > 0 {
            // Builds the rank table once, before the threads look it up.
            g.vertex_at_rank(0);
        }
        // Ids the graph has are looked up in parallel, a piece at a time;
        // pairs with any other come back as `VertexId::MAX` twice (no
        // vertex has that id) and are settled one by one, in order, since
        // new ids take vertices in the order they first appear.
        const UNKNOWN: VertexId = VertexId::MAX;
        const PIECE: usize = 4096;
        // Every pair is written below: zeroed pages (mapped as they are
        // first written, by the threads that write them) rather than a
        // fill on one thread.
        let mut out = vec![(0, 0); pairs.len()];
        crate::io::huge::advise(&out);
        // An id map is walked once for all the ids, sorted; dense ids are
        // looked up a piece at a time on all threads.
        let piece = if g.id_map().is_some() {
            pairs.len().max(1)
        } else {
            PIECE
        };
        out.par_chunks_mut(piece)
            .zip(pairs.par_chunks(piece))
            .try_for_each(|(o, p)| -> Result<()> {
                let ids: Vec<u64> = p.iter().flat_map(|e| [e.0, e.1]).collect();
                let mut vs = vec![0; ids.len()];
                g.vertices_of_ids(&ids, &mut vs)?;
                for (x, v) in o.iter_mut().zip(vs.chunks_exact(2)) {
                    *x = (v[0], v[1]);
                }
                Ok(())
            })?;
        let unknown: Vec<usize> = out
            .par_iter()
            .enumerate()
            .filter(|(_, p)| p.0 == UNKNOWN || p.1 == UNKNOWN)
            .map(|(i, _)| i)
            .collect();
        // Each end the graph lacks is settled once: an id new to the
        // batch, or one an earlier pair added.
        for i in unknown {
            let (a, b) = out[i];
            let a = match a {
                UNKNOWN => self.vertex_not_in_graph(pairs[i].0, create)?,
                a => Some(a),
            };
            let b = match b {
                UNKNOWN => self.vertex_not_in_graph(pairs[i].1, create)?,
                b => Some(b),
            };
            out[i] = match (a, b) {
                (Some(a), Some(b)) => (a, b),
                _ => (UNKNOWN, UNKNOWN),
            };
        }
        Ok(out)
    }

    /// Stages edges between vertices given by the ranks of their names
    /// (a graph with names; [`crate::ingest::batch`] reads them so).
    pub fn stage_ranks(&mut self, ins: &[(u64, u64)], del: &[(u64, u64)]) -> Result<()> {
        let (ins, del) = (Ranked::of(ins), Ranked::of(del));
        self.stage_ranked(ins, del, Ranked::default())
    }

    /// Stages the edges of a graph with names given by name ranks, each
    /// file with the names it adds ([`Ranked`]): inserts (new names add
    /// vertices), deletes, and weight changes; weights as in
    /// [`GraphUpdate::stage_ids_weighted`].
    pub fn stage_ranked(
        &mut self,
        ins: Ranked<'_>,
        del: Ranked<'_>,
        set: Ranked<'_>,
    ) -> Result<()> {
        if self.graph.weighted() {
            self.check_weighted_batch((ins.edges, ins.weights), (set.edges, set.weights))?;
        } else {
            if !ins.edges.is_empty() {
                self.unweighted_inserts()?;
            }
            if !(ins.weights.is_empty() && set.edges.is_empty()) {
                self.weighted_only("weights are given")?;
            }
        }
        let n = self.graph.vertex_count();
        for r in [&ins, &del, &set] {
            let top = n + r.new_names.len() as u64;
            if let Some(&(a, b)) = r.edges.iter().find(|e| e.0 >= top || e.1 >= top) {
                return Err(Error::Invalid(format!(
                    "ranks {a} and {b}: the graph has {n} named vertices, and the batch names \
                     {} more",
                    r.new_names.len()
                )));
            }
        }
        if let Some(t) = self.graph.names().cloned() {
            for (k, r) in [(0, &ins), (1, &set)] {
                let name = |x: u64| match x.checked_sub(n) {
                    Some(i) => r.new_names[i as usize].clone(),
                    None if x < t.len() => t.get(x as VertexId).to_string(),
                    None => format!("the vertex of rank {x}"),
                };
                let (edges, ws) = (r.edges, r.weights);
                self.note_weights(k, ws, |i| (name(edges[i].0), name(edges[i].1)));
            }
        }
        if self.graph.vertex_count() > 0 {
            // Builds the rank table once, before the threads look it up.
            self.graph.vertex_at_rank(0);
        }
        for (k, r) in [ins, del, set].into_iter().enumerate() {
            // New names: vertices for inserts, unknown for the others
            // (unless an insert of this batch added them).
            let mut added = Vec::with_capacity(r.new_names.len());
            for name in r.new_names {
                added.push(self.vertex_named(name, k == 0)?.unwrap_or(VertexId::MAX));
            }
            let g = &self.graph;
            let at = |x: u64| {
                if x < n {
                    g.vertex_at_rank(x as u32)
                } else {
                    added[(x - n) as usize]
                }
            };
            let pairs = r.edges.par_iter().map(|&(a, b)| {
                let (a, b) = (at(a), at(b));
                if a == VertexId::MAX || b == VertexId::MAX {
                    (VertexId::MAX, VertexId::MAX)
                } else {
                    (a, b)
                }
            });
            match k {
                0 => {
                    self.ins.par_extend(pairs);
                    self.ins_w.extend_from_slice(r.weights);
                }
                1 => self.del.par_extend(pairs),
                _ => {
                    self.set.par_extend(pairs);
                    self.set_w.extend_from_slice(r.weights);
                }
            }
        }
        Ok(())
    }

    /// Edges staged so far (inserts, deletes; weight changes are
    /// [`GraphUpdate::staged_weights`]).
    pub fn staged(&self) -> (u64, u64) {
        (self.ins.len() as u64, self.del.len() as u64)
    }

    /// Weight changes staged so far.
    pub fn staged_weights(&self) -> u64 {
        self.set.len() as u64
    }

    /// The staged batch as sorted arc keys of the out-adjacency (an
    /// undirected edge is two arcs), self loops dropped unless the graph
    /// keeps them. The keys are distinct unless the graph keeps duplicate
    /// edges: then an edge staged twice is inserted (or deleted) twice.
    pub(crate) fn batch(&self) -> Batch {
        let g = &self.graph;
        let loops_kept = g.header().flags & FLAG_SELF_LOOPS != 0;
        let multi = g.header().flags & FLAG_MULTI != 0;
        let undirected = !g.directed();
        // The keys one staged edge gives: none for an unknown id or a
        // dropped loop, both directions of an undirected edge.
        let arity = |a: VertexId, b: VertexId| -> usize {
            if a == VertexId::MAX || (a == b && !loops_kept) {
                0
            } else if undirected && a != b {
                2
            } else {
                1
            }
        };
        let arcs = |edges: &[(VertexId, VertexId)], loops: &mut u64| -> Vec<u64> {
            // Pieces of edges on all threads: first how many keys each
            // gives, then each writes its keys into its own slice (a
            // batch of millions of edges is hundreds of MB of keys, and
            // most of their cost is fresh pages, which the threads take
            // side by side).
            const PIECE: usize = 1 << 16;
            let sizes: Vec<(usize, u64)> = edges
                .par_chunks(PIECE)
                .map(|c| {
                    c.iter().fold((0, 0), |(n, l), &(a, b)| {
                        let dropped = a != VertexId::MAX && a == b && !loops_kept;
                        (n + arity(a, b), l + dropped as u64)
                    })
                })
                .collect();
            *loops += sizes.iter().map(|s| s.1).sum::<u64>();
            let mut k = vec![0u64; sizes.iter().map(|s| s.0).sum()];
            crate::io::huge::advise(&k);
            let mut rest = &mut k[..];
            let mut outs = Vec::with_capacity(sizes.len());
            for &(n, _) in &sizes {
                let (here, after) = rest.split_at_mut(n);
                outs.push(here);
                rest = after;
            }
            edges
                .par_chunks(PIECE)
                .zip(outs.into_par_iter())
                .for_each(|(c, out)| {
                    let mut i = 0;
                    for &(a, b) in c {
                        let m = arity(a, b);
                        if m > 0 {
                            out[i] = key(a, b);
                        }
                        if m > 1 {
                            out[i + 1] = key(b, a);
                        }
                        i += m;
                    }
                });
            k.par_sort_unstable();
            if !multi {
                k.dedup();
            }
            k
        };
        // Arcs with weights: the last weight staged for an arc wins.
        let weighted_arcs = |edges: &[(VertexId, VertexId)], ws: &[f32], loops: &mut u64| {
            let mut k: Vec<(u64, u32)> = Vec::with_capacity(edges.len() * 2);
            for (i, &(a, b)) in edges.iter().enumerate() {
                if a == VertexId::MAX {
                    continue;
                }
                if a == b && !loops_kept {
                    *loops += 1;
                    continue;
                }
                k.push((key(a, b), i as u32));
                if undirected && a != b {
                    k.push((key(b, a), i as u32));
                }
            }
            k.par_sort_unstable();
            let mut keys = Vec::with_capacity(k.len());
            let mut w = Vec::with_capacity(k.len());
            for (j, &(kk, i)) in k.iter().enumerate() {
                if k.get(j + 1).is_none_or(|n| n.0 != kk) {
                    keys.push(kk);
                    w.push(ws[i as usize]);
                }
            }
            (keys, w)
        };
        let mut loops_dropped = 0;
        let (ins, ins_w) = if g.weighted() {
            weighted_arcs(&self.ins, &self.ins_w, &mut loops_dropped)
        } else {
            (arcs(&self.ins, &mut loops_dropped), Vec::new())
        };
        let mut missing_loops = 0;
        let del = arcs(&self.del, &mut missing_loops);
        let missing_unknown = self.del.iter().filter(|e| e.0 == VertexId::MAX).count() as u64;
        let mut set_missing = self.set.iter().filter(|e| e.0 == VertexId::MAX).count() as u64;
        let (set, set_w) = weighted_arcs(&self.set, &self.set_w, &mut set_missing);
        Batch {
            ins,
            del,
            loops_dropped,
            missing_loops,
            missing_unknown,
            ins_w,
            set,
            set_w,
            set_missing,
        }
    }
}

/// Appends `more` to `to`, moving it when `to` is empty (a whole batch
/// staged at once: hundreds of MB not copied again).
fn append<T>(to: &mut Vec<T>, more: Vec<T>) {
    if to.is_empty() {
        *to = more;
    } else {
        to.extend(more);
    }
}

/// Refuses weight columns whose length differs from their edges'.
fn check_weights(ins: (&[(u64, u64)], &[f32]), set: (&[(u64, u64)], &[f32])) -> Result<()> {
    for (what, (e, w)) in [("inserted", ins), ("weight-change", set)] {
        if e.len() != w.len() {
            return Err(Error::Invalid(format!(
                "{} {what} edges but {} weights",
                e.len(),
                w.len()
            )));
        }
    }
    Ok(())
}

/// A staged batch as arc keys ([`GraphUpdate::batch`]).
pub(crate) struct Batch {
    /// Inserted arcs, sorted and distinct.
    pub ins: Vec<u64>,
    /// Deleted arcs, sorted and distinct.
    pub del: Vec<u64>,
    /// Inserted self loops dropped (the graph keeps none).
    pub loops_dropped: u64,
    /// Deleted self loops, which cannot be present.
    pub missing_loops: u64,
    /// Deletes naming a vertex the graph does not have.
    pub missing_unknown: u64,
    /// The weight of each of `ins` (weighted graphs; the last one staged
    /// for an arc staged twice).
    pub ins_w: Vec<f32>,
    /// Weight changes: arcs, sorted and distinct, and their new weights.
    pub set: Vec<u64>,
    /// See `set`.
    pub set_w: Vec<f32>,
    /// Weight changes naming a vertex the graph does not have, or a self
    /// loop the graph does not keep.
    pub set_missing: u64,
}

/// One file's edges given by name ranks ([`crate::ingest::batch`] reads
/// them so): ranks from the graph's name count on stand for `new_names`,
/// names the graph lacks.
#[derive(Clone, Copy, Default)]
pub struct Ranked<'a> {
    /// `(u, v)` name ranks.
    pub edges: &'a [(u64, u64)],
    /// The names of ranks from the graph's name count on, in order.
    pub new_names: &'a [String],
    /// A weight per edge (inserts and weight changes of a weighted graph).
    pub weights: &'a [f32],
}

impl<'a> Ranked<'a> {
    /// Edges between names the graph has, without weights.
    pub fn of(edges: &'a [(u64, u64)]) -> Ranked<'a> {
        Ranked {
            edges,
            ..Ranked::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::delta::key;
    use crate::testkit;

    /// The batch's arc keys come out as a plain loop makes them, over
    /// several pieces of staged edges (loops dropped, unknown ids
    /// skipped, both directions of undirected edges).
    #[test]
    fn batch_keys_over_many_pieces() {
        for undirected in [true, false] {
            let t = testkit::rmat(10, 4, 3, undirected);
            let path = t.graph.path().to_path_buf();
            let n = t.graph.vertex_count();
            // The graph's own ids (R-MAT leaves gaps: an id map), and ids
            // it lacks past them.
            let ids: Vec<u64> = (0..n as u32)
                .map(|r| t.graph.original_id_of_rank(r))
                .collect();
            let id = |k: u64| ids.get(k as usize).copied().unwrap_or(1 << 40 | k);
            let mut up = GraphUpdate::open(&path).unwrap();
            let mut x = 0x2545_f491_4f6c_dd1du64;
            let mut next = |m: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % m
            };
            // Three pieces and a bit; every 50th a loop, deletes of ids
            // the graph lacks.
            let ins: Vec<(u64, u64)> = (0..200_000)
                .map(|i| {
                    let a = id(next(n));
                    (a, if i % 50 == 0 { a } else { id(next(n)) })
                })
                .collect();
            let del: Vec<(u64, u64)> = (0..140_000)
                .map(|_| (id(next(n + 40)), id(next(n))))
                .collect();
            up.stage_ids(&ins, &del).unwrap();
            let b = up.batch();
            let g = up.graph();
            let plain = |edges: &[(u64, u64)]| {
                let (mut k, mut loops) = (Vec::new(), 0);
                for &(a, c) in edges {
                    let (Ok(a), Ok(c)) = (g.vertex_of(a), g.vertex_of(c)) else {
                        continue;
                    };
                    if a == c {
                        loops += 1;
                        continue;
                    }
                    k.push(key(a, c));
                    if undirected {
                        k.push(key(c, a));
                    }
                }
                k.sort_unstable();
                k.dedup();
                (k, loops)
            };
            let (want_ins, loops) = plain(&ins);
            assert_eq!(b.ins, want_ins);
            assert_eq!(b.loops_dropped, loops);
            assert_eq!(b.del, plain(&del).0);
            assert!(b.missing_unknown > 0);
        }
    }
}
