//! One vertex's list in a merge: its current ids changed by the batch's
//! inserts, deletes and weight changes, and the tally of what changed
//! (the counts a delta commit would report, and the arcs a reverse
//! adjacency must follow).

use crate::store::delta::{key, unkey};
use crate::VertexId;
use rayon::prelude::*;

/// How a merge counts the out-adjacency's changes.
#[derive(Clone, Copy)]
pub(super) struct Counts<'a> {
    /// Whether the arc `(v, u)` counts (an undirected edge counts once).
    pub(super) once: &'a (dyn Fn(VertexId, VertexId) -> bool + Sync),
    /// Whether the real changes are kept (for the in-adjacency).
    pub(super) record: bool,
}

/// Counts of one merge, as the update report wants them.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) inserted: u64,
    pub(super) deleted: u64,
    pub(super) present: u64,
    pub(super) absent: u64,
    pub(super) weights_set: u64,
    pub(super) weights_absent: u64,
}

impl Tally {
    pub(super) fn add(&mut self, o: &Tally) {
        self.inserted += o.inserted;
        self.deleted += o.deleted;
        self.present += o.present;
        self.absent += o.absent;
        self.weights_set += o.weights_set;
        self.weights_absent += o.weights_absent;
    }
}

/// One adjacency's changes as sorted arc keys (distinct unless the graph
/// keeps duplicate edges): deletes, then
/// inserts, then weight changes (weights only in weighted graphs).
#[derive(Clone, Copy, Default)]
pub(super) struct Ops<'a> {
    pub(super) ins: &'a [u64],
    pub(super) ins_w: &'a [f32],
    pub(super) del: &'a [u64],
    pub(super) set: &'a [u64],
    pub(super) set_w: &'a [f32],
}

/// The batch's real changes, as arc keys, for the in-adjacency: arcs
/// added, arcs removed, and arcs whose weight changed (a set weight, or a
/// delete and insert of the same arc).
#[derive(Default)]
pub(super) struct Changes {
    pub(super) ins: Vec<(u64, f32)>,
    pub(super) del: Vec<u64>,
    pub(super) set: Vec<(u64, f32)>,
}

impl Changes {
    /// The same changes seen from the other end of each arc, sorted.
    pub(super) fn flipped(self) -> OwnedOps {
        let flip = |k: u64| {
            let (a, b) = unkey(k);
            key(b, a)
        };
        let split = |mut xs: Vec<(u64, f32)>| {
            xs.iter_mut().for_each(|x| x.0 = flip(x.0));
            xs.par_sort_unstable_by_key(|x| x.0);
            xs.into_iter().unzip::<u64, f32, Vec<u64>, Vec<f32>>()
        };
        let mut del: Vec<u64> = self.del.into_iter().map(flip).collect();
        del.par_sort_unstable();
        let (ins, ins_w) = split(self.ins);
        let (set, set_w) = split(self.set);
        OwnedOps {
            ins,
            ins_w,
            del,
            set,
            set_w,
        }
    }
}

/// [`Ops`] that own their keys.
pub(super) struct OwnedOps {
    pub(super) ins: Vec<u64>,
    pub(super) ins_w: Vec<f32>,
    pub(super) del: Vec<u64>,
    pub(super) set: Vec<u64>,
    pub(super) set_w: Vec<f32>,
}

impl OwnedOps {
    pub(super) fn ops(&self) -> Ops<'_> {
        Ops {
            ins: &self.ins,
            ins_w: &self.ins_w,
            del: &self.del,
            set: &self.set,
            set_w: &self.set_w,
        }
    }
}

/// Where one id a change names was found: in the list, the inserts, the
/// deletes, the weight changes.
#[derive(Clone, Copy)]
struct Seen {
    in_l: bool,
    in_i: bool,
    in_d: bool,
    in_s: bool,
}

/// Counts the change of arc `v -> x` as a delta commit's resolve would,
/// and records it when asked. `keep`: the arc is in the merged list, with
/// weight `w` in a weighted graph.
#[allow(clippy::too_many_arguments)]
#[inline]
fn tally_change(
    f: &Counts<'_>,
    t: &mut Tally,
    ch: &mut Changes,
    v: VertexId,
    x: VertexId,
    s: Seen,
    keep: bool,
    w: Option<f32>,
) {
    let counted = (f.once)(v, x) as u64;
    match (s.in_l, s.in_i, s.in_d) {
        (true, true, false) => t.present += counted,
        (true, false, true) => t.deleted += counted,
        (false, true, _) => {
            t.inserted += counted;
            t.absent += s.in_d as u64 * counted;
        }
        (false, false, true) => t.absent += counted,
        _ => {}
    }
    if s.in_s {
        if keep {
            t.weights_set += counted;
        } else {
            t.weights_absent += counted;
        }
    }
    let k = key(v, x);
    if f.record {
        let w0 = w.unwrap_or(0.0);
        if !keep && s.in_l {
            ch.del.push(k);
        } else if keep && !s.in_l {
            ch.ins.push((k, w0));
        } else if keep && w.is_some() && (s.in_s || (s.in_i && s.in_d)) {
            ch.set.push((k, w0));
        }
    }
}

/// [`merge_list`] for a list without weights and a batch without weight
/// changes (most merges): the same result, with the next change found by
/// one comparison of two keys.
pub(super) fn merge_plain(
    v: VertexId,
    l: &[VertexId],
    ins: &[u64],
    del: &[u64],
    out: &mut Vec<VertexId>,
    mut count: Option<(Counts<'_>, &mut Tally, &mut Changes)>,
) {
    // Past every id: a side with no changes left.
    const END: u64 = 1 << 32;
    let next = |ks: &[u64], at: usize| ks.get(at).map_or(END, |&k| unkey(k).1 as u64);
    let (mut i, mut a, mut d) = (0, 0, 0);
    loop {
        let (xi, xd) = (next(ins, a), next(del, d));
        let x = xi.min(xd);
        if x == END {
            break;
        }
        let x = x as VertexId;
        let k = i + l[i..].partition_point(|&y| y < x);
        out.extend_from_slice(&l[i..k]);
        i = k;
        let in_l = l.get(i) == Some(&x);
        let (in_i, in_d) = (xi == x as u64, xd == x as u64);
        let keep = in_i || (in_l && !in_d);
        if keep {
            out.push(x);
        }
        if let Some((f, t, ch)) = count.as_mut() {
            let seen = Seen {
                in_l,
                in_i,
                in_d,
                in_s: false,
            };
            tally_change(f, t, ch, v, x, seen, keep, None);
        }
        i += in_l as usize;
        a += in_i as usize;
        d += in_d as usize;
    }
    out.extend_from_slice(&l[i..]);
}

/// [`merge_plain`] for a graph that keeps duplicate edges: the list, the
/// inserts and the deletes are multisets. For each id the batch names,
/// its deletes remove as many of its copies in `l` as there are (the
/// rest count as not present), then its inserts each add a copy (an
/// insert is never already present).
pub(super) fn merge_multi(
    v: VertexId,
    l: &[VertexId],
    ins: &[u64],
    del: &[u64],
    out: &mut Vec<VertexId>,
    mut count: Option<(Counts<'_>, &mut Tally, &mut Changes)>,
) {
    let tgt = |ks: &[u64], at: usize| ks.get(at).map(|&k| unkey(k).1);
    let copies = |ks: &[u64], at: usize, x: VertexId| {
        ks[at..].iter().take_while(|&&k| unkey(k).1 == x).count()
    };
    let (mut i, mut a, mut d) = (0, 0, 0);
    while let Some(x) = [tgt(ins, a), tgt(del, d)].into_iter().flatten().min() {
        let k = i + l[i..].partition_point(|&y| y < x);
        out.extend_from_slice(&l[i..k]);
        i = k;
        let in_l = l[i..].iter().take_while(|&&y| y == x).count();
        let (in_i, in_d) = (copies(ins, a, x), copies(del, d, x));
        let gone = in_d.min(in_l);
        out.extend(std::iter::repeat_n(x, in_l - gone + in_i));
        if let Some((f, t, ch)) = count.as_mut() {
            let c = (f.once)(v, x) as u64;
            t.inserted += in_i as u64 * c;
            t.deleted += gone as u64 * c;
            t.absent += (in_d - gone) as u64 * c;
            if f.record {
                let k = key(v, x);
                ch.del.extend(std::iter::repeat_n(k, gone));
                ch.ins.extend(std::iter::repeat_n((k, 0.0), in_i));
            }
        }
        i += in_l;
        a += in_i;
        d += in_d;
    }
    out.extend_from_slice(&l[i..]);
}

/// Appends to `out` the sorted list `l` of `v` (with its weights, in a
/// weighted graph) changed by `ops` (keys of `v`'s arcs): deletes, then
/// inserts, then weight changes. An arc deleted and inserted again takes
/// the insert's weight; an insert of an arc already there keeps the old
/// weight. With `count`, tallies what changed as a delta commit's
/// resolve would, and records the real changes.
pub(super) fn merge_list(
    v: VertexId,
    (l, lw): (&[VertexId], &[f32]),
    ops: Ops<'_>,
    (out, out_w): (&mut Vec<VertexId>, &mut Vec<f32>),
    mut count: Option<(Counts<'_>, &mut Tally, &mut Changes)>,
) {
    let weighted = !lw.is_empty() || !ops.ins_w.is_empty();
    let tgt = |ks: &[u64], at: usize| ks.get(at).map(|&k| unkey(k).1);
    let (mut i, mut a, mut d, mut e) = (0, 0, 0, 0);
    // The next id a change names; the ids of `l` before it are copied as
    // they are.
    while let Some(x) = [tgt(ops.ins, a), tgt(ops.del, d), tgt(ops.set, e)]
        .into_iter()
        .flatten()
        .min()
    {
        let k = i + l[i..].partition_point(|&y| y < x);
        out.extend_from_slice(&l[i..k]);
        if weighted {
            out_w.extend_from_slice(&lw[i..k]);
        }
        i = k;
        let in_l = l.get(i) == Some(&x);
        let in_i = tgt(ops.ins, a) == Some(x);
        let in_d = tgt(ops.del, d) == Some(x);
        let in_s = tgt(ops.set, e) == Some(x);
        let keep = in_i || (in_l && !in_d);
        let mut w = 0.0;
        if keep {
            out.push(x);
            if weighted {
                w = if in_s {
                    ops.set_w[e]
                } else if in_i && (!in_l || in_d) {
                    ops.ins_w[a]
                } else {
                    lw[i]
                };
                out_w.push(w);
            }
        }
        if let Some((f, t, ch)) = count.as_mut() {
            let seen = Seen {
                in_l,
                in_i,
                in_d,
                in_s,
            };
            tally_change(f, t, ch, v, x, seen, keep, weighted.then_some(w));
        }
        i += in_l as usize;
        a += in_i as usize;
        d += in_d as usize;
        e += in_s as usize;
    }
    out.extend_from_slice(&l[i..]);
    if weighted {
        out_w.extend_from_slice(&lw[i..]);
    }
}
