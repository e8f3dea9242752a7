//! Louvain community detection (Blondel et al. 2008), by modularity with
//! resolution, as networkx's `louvain_communities` defines it: vertices
//! move to the neighbouring community of largest modularity gain until
//! no move gains, the graph of the communities becomes the next level,
//! and levels repeat until one raises modularity by `threshold` or less.
//!
//! The first level reads the graph file through the synchronous engine
//! (one block-mode step a chunk of each sweep, only the blocks of active
//! vertices: those a move activated); later levels are the communities'
//! graphs held in memory (`engine::multilevel`). The shared core, its
//! parallel and thread-independent moves and its stopping rules are in
//! [`super::community`]. Memory on the first level: 8 bytes a vertex for
//! its degree, 8 for its community's degree sum, 4 for its community, 4
//! for the community's size and 4 for the level map, plus the pass that
//! builds the next level (16 bytes a record: a vertex and a distinct
//! neighbouring community).
//!
//! The verifier checks that every vertex has one community, numbered in
//! the order of each community's first member, and recomputes the
//! modularity serially from the lists in memory.

use super::community::{self, CommunityConfig, CommunityResult};
use super::reference::Csr;
use super::Verdict;
use crate::engine::Run;
use crate::error::Result;
use crate::store::Graph;

/// Runs Louvain on the synchronous engine; communities numbered in the
/// user's order.
pub fn run(r: &mut Run<'_>, cfg: &CommunityConfig) -> Result<CommunityResult> {
    let mut res = community::run(r, cfg)?;
    community::number_by_user_order(r.graph(), &mut res)?;
    Ok(res)
}

/// Checks one community per vertex, their numbering, and the modularity.
pub fn verify(g: &Graph, csr: &Csr, cfg: &CommunityConfig, res: &CommunityResult) -> Verdict {
    community::verify_partition(g, csr, cfg, res)
}

/// Louvain as a registered algorithm (`grotto run louvain`).
pub struct Louvain;

super::community::registered!(
    Louvain,
    "louvain",
    community::LOUVAIN_PARAMS,
    false,
    "louvain (networkx's modularity on an undirected graph)",
    "Communities by modularity (Louvain, networkx's louvain_communities): \
         undirected graphs, weighted or not; the same answer on any thread count."
);
