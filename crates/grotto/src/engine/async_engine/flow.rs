//! The types an algorithm on the asynchronous engine sees besides
//! [`super::AsyncRun`]: what `propagate` and `spread` receive ([`Edge`],
//! [`Neighbours`], [`Activate`]), how a pass runs ([`Flow`]) and where it
//! starts ([`Seeds`]).

use super::super::schedule::Priority;
use crate::store::Direction;
use crate::VertexId;

/// One neighbour entry handed to `propagate`.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    /// The vertex being processed.
    pub src: VertexId,
    /// Its neighbour.
    pub dst: VertexId,
    /// The edge's weight (1.0 unless [`Flow::weights`] is set).
    pub weight: f32,
}

/// A run of one vertex's neighbours handed to the `spread` function of
/// [`AsyncRun::flow_runs`](super::AsyncRun::flow_runs): the part of the list held by one block (or
/// the whole list, when it is short).
#[derive(Clone, Copy, Debug)]
pub struct Neighbours<'a> {
    /// The vertex being processed.
    pub src: VertexId,
    /// Its neighbours in this run.
    pub ids: &'a [VertexId],
    /// Their edge weights, when [`Flow::weights`] is set.
    pub weights: Option<&'a [f32]>,
}

/// Where the `spread` function of [`AsyncRun::flow_runs`](super::AsyncRun::flow_runs) activates the
/// neighbours it changed.
pub struct Activate<'a> {
    sink: &'a mut dyn FnMut(VertexId, Priority),
}

impl Activate<'_> {
    /// Activates `v` with priority `p` (as `propagate` returning
    /// `Some(p)` for it would).
    #[inline]
    pub fn activate(&mut self, v: VertexId, p: Priority) {
        (self.sink)(v, p)
    }
}

/// How a message travels along a run of neighbours: edge by edge (the
/// `propagate` of [`AsyncRun::flow`](super::AsyncRun::flow)) or a run at once
/// ([`AsyncRun::flow_runs`](super::AsyncRun::flow_runs)).
pub(super) trait Spread<M>: Sync {
    fn spread(&self, msg: M, run: Neighbours<'_>, activate: &mut impl FnMut(VertexId, Priority));
}

/// [`Spread`] by a function of one edge.
pub(super) struct PerEdge<P>(pub(super) P);

impl<M: Copy, P: Fn(M, Edge) -> Option<Priority> + Sync> Spread<M> for PerEdge<P> {
    #[inline]
    fn spread(&self, msg: M, run: Neighbours<'_>, activate: &mut impl FnMut(VertexId, Priority)) {
        for (k, &u) in run.ids.iter().enumerate() {
            let weight = run.weights.map_or(1.0, |w| w[k]);
            let edge = Edge {
                src: run.src,
                dst: u,
                weight,
            };
            if let Some(p) = (self.0)(msg, edge) {
                activate(u, p);
            }
        }
    }
}

/// [`Spread`] by a function of a whole run.
pub(super) struct PerRun<P>(pub(super) P);

impl<M, P: Fn(M, Neighbours<'_>, &mut Activate<'_>) + Sync> Spread<M> for PerRun<P> {
    #[inline]
    fn spread(&self, msg: M, run: Neighbours<'_>, activate: &mut impl FnMut(VertexId, Priority)) {
        (self.0)(msg, run, &mut Activate { sink: activate })
    }
}

/// How a pass runs.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Which lists a processed vertex sends along (default: out-edges).
    pub dir: Direction,
    /// Read the weight blocks too and pass weights in [`Edge::weight`]
    /// (default: no; an error on an unweighted graph).
    pub weights: bool,
    /// Synchronous mode: vertices activated in a round run in the next
    /// round (default: no, fully asynchronous).
    pub rounds: bool,
    /// Times a block reactivated while in memory is processed again
    /// before it is queued like any other block (default 16; ACGraph's
    /// early stop).
    pub reuse: u32,
    /// Read idle blocks ahead of the furthest block taken, in file order,
    /// whenever the queue is empty and the device has room (default: no).
    /// For passes that sweep most of the graph along its layout, like BFS
    /// on a high-diameter graph, whose wave otherwise waits one read per
    /// step; a block read ahead and never activated is a wasted read, and
    /// at most half the pool (no more than twice the concurrency)
    /// is read ahead and not yet activated at a time. Ignored in rounds.
    pub readahead: bool,
}

impl Default for Flow {
    fn default() -> Flow {
        Flow {
            dir: Direction::Out,
            weights: false,
            rounds: false,
            reuse: 16,
            readahead: false,
        }
    }
}

/// The vertices a pass starts from.
#[derive(Clone, Copy)]
pub enum Seeds<'s> {
    /// Every vertex, with one priority.
    All(Priority),
    /// Every vertex, with the priority the function gives it.
    AllWith(&'s (dyn Fn(VertexId) -> Priority + Sync)),
    /// The vertices the function gives a priority, with that priority
    /// (no list of them is built: the engine asks about every vertex in
    /// parallel).
    Where(&'s (dyn Fn(VertexId) -> Option<Priority> + Sync)),
    /// These vertices and priorities (ids out of range are ignored).
    List(&'s [(VertexId, Priority)]),
}
