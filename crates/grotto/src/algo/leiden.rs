//! Leiden community detection (Traag, Waltman and van Eck 2019), by
//! modularity with resolution: Louvain's moves, then a refinement inside
//! each community (vertices start alone and merge, greedily as
//! GVE-Leiden does, into a neighbouring refined community of the same
//! community they are well connected to), the graph of the refined
//! communities as the next level, starting from the unrefined partition.
//! Every community returned is connected: refined communities grow only
//! along edges, and a partition reported before the algorithm converged
//! (`max_level`, `threshold`) is split into its connected pieces, which
//! never lowers modularity. networkx 3.6's `leiden_communities` has the
//! same parameters and leaves the work to a backend.
//!
//! Memory on the first level is Louvain's (`louvain.rs`) and, during the
//! refinement, 16 bytes a vertex more. The verifier checks what Louvain's
//! does and that every community is connected (a serial search inside
//! each community on the lists in memory).

use super::community::{self, CommunityConfig, CommunityResult};
use super::reference::Csr;
use super::{fail, Verdict};
use crate::engine::Run;
use crate::error::Result;
use crate::store::Graph;
use crate::VertexId;

/// Runs Leiden on the synchronous engine; communities numbered in the
/// user's order.
pub fn run(r: &mut Run<'_>, cfg: &CommunityConfig) -> Result<CommunityResult> {
    let cfg = CommunityConfig {
        refine: true,
        ..cfg.clone()
    };
    let mut res = community::run(r, &cfg)?;
    community::number_by_user_order(r.graph(), &mut res)?;
    Ok(res)
}

/// Louvain's checks, and every community (of every level kept)
/// connected: a breadth-first search from each community's first vertex
/// through its own members reaches all of them.
pub fn verify(g: &Graph, csr: &Csr, cfg: &CommunityConfig, res: &CommunityResult) -> Verdict {
    community::verify_partition(g, csr, cfg, res)?;
    for (name, col) in std::iter::once(("the answer", &res.community))
        .chain(res.per_level.iter().map(|c| ("a level", c)))
    {
        let n = col.len();
        let mut seen = vec![false; n];
        let mut started = vec![false; res.communities.max(1) as usize + n];
        for s in 0..n {
            if seen[s] {
                continue;
            }
            let c = col[s] as usize;
            if started[c] {
                fail!(
                    "{name}: community {c} is disconnected (vertex {} is not reached from its first member)",
                    g.original_id(s as VertexId)
                );
            }
            started[c] = true;
            seen[s] = true;
            let mut stack = vec![s as VertexId];
            while let Some(v) = stack.pop() {
                for &u in csr.neighbors(v) {
                    if !seen[u as usize] && col[u as usize] as usize == c {
                        seen[u as usize] = true;
                        stack.push(u);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Leiden as a registered algorithm (`grotto run leiden`).
pub struct Leiden;

super::community::registered!(
    Leiden,
    "leiden",
    community::LEIDEN_PARAMS,
    true,
    "leiden (networkx's modularity on an undirected graph)",
    "Communities by modularity (Leiden, networkx's leiden_communities): \
         every community connected; undirected graphs, weighted or not."
);
