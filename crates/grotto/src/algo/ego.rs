//! An ego network's vertices: every vertex within `radius` hops of a
//! source, following out-edges, in-edges (the reverse edges of a directed
//! graph) or both, as `networkx.ego_graph` collects them (`undirected=True`
//! is both). A BFS on the synchronous engine cut off at the radius: each
//! level is one step over the frontier's lists (two on a directed graph
//! walked both ways, one per direction), so only the blocks of vertices
//! inside the ego network are read. Its answer is the vertex set
//! `grotto extract --ego` keeps; `grotto run ego` writes each vertex with
//! its distance.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{atomics_u32, fail, into_values, Verdict, NONE};
use crate::engine::{AtomicBitmap, Frontier, Run};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// Which edges an ego network follows from its centre.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Towards {
    /// Out-edges (successors): networkx's default.
    Out,
    /// In-edges (predecessors): who reaches the centre.
    In,
    /// Both (networkx's `undirected=True`).
    Both,
}

impl Towards {
    /// The word for it on the command line.
    pub fn word(self) -> &'static str {
        match self {
            Towards::Out => "out",
            Towards::In => "in",
            Towards::Both => "both",
        }
    }

    /// Parses `out`, `in` or `both`.
    pub fn parse(s: &str) -> Result<Towards> {
        match s {
            "out" => Ok(Towards::Out),
            "in" => Ok(Towards::In),
            "both" => Ok(Towards::Both),
            _ => Err(Error::Invalid(format!(
                "direction {s:?}: expected out, in or both"
            ))),
        }
    }

    /// The stored directions a step follows on `g` (undirected graphs
    /// store each edge both ways, so one list answers every direction).
    pub fn directions(self, g: &Graph) -> Result<Vec<Direction>> {
        if !g.directed() || self == Towards::Out {
            return Ok(vec![Direction::Out]);
        }
        if g.inn().is_none() {
            return Err(Error::Invalid(format!(
                "{}: in-edges are asked for ({}), and this directed graph has no reverse \
                 edges; convert it again with --reverse",
                g.path().display(),
                self.word()
            )));
        }
        Ok(match self {
            Towards::In => vec![Direction::In],
            _ => vec![Direction::Out, Direction::In],
        })
    }
}

/// Settings of an ego network.
#[derive(Clone, Debug)]
pub struct EgoConfig {
    /// The centre (internal id).
    pub source: VertexId,
    /// The most hops from the centre (default 1, as networkx).
    pub radius: u32,
    /// Which edges are followed (default out).
    pub towards: Towards,
}

/// The vertices of an ego network with their distances.
#[derive(Clone, Debug)]
pub struct EgoResult {
    /// The centre.
    pub source: VertexId,
    /// Hops from the centre per vertex ([`NONE`] outside the network).
    pub depth: Vec<u32>,
    /// The network's vertices in the order they were found (by distance).
    pub members: Vec<VertexId>,
    /// The radius asked for.
    pub radius: u32,
    /// The edges followed.
    pub towards: Towards,
}

impl EgoResult {
    /// Per vertex: whether it is in the network.
    pub fn keep(&self) -> Vec<bool> {
        self.depth.iter().map(|&d| d != NONE).collect()
    }
}

/// The level-by-level search (see the module comment).
pub fn run(r: &mut Run<'_>, cfg: &EgoConfig) -> Result<EgoResult> {
    let n = r.vertex_count();
    let dirs = cfg.towards.directions(r.graph())?;
    let depth = atomics_u32(n, NONE);
    let seen = AtomicBitmap::new(n);
    seen.insert(cfg.source as u64);
    depth[cfg.source as usize].store(0, Relaxed);
    let mut members = vec![cfg.source];
    let mut frontier = Frontier::single(cfg.source);
    for level in 1..=cfg.radius {
        let mut found = Vec::new();
        for &dir in &dirs {
            let next = r.step(&frontier, dir, |_, edges, next| {
                for &u in edges.ids {
                    if !seen.contains(u as u64) && seen.insert(u as u64) {
                        depth[u as usize].store(level, Relaxed);
                        next.activate_new(u);
                    }
                }
            })?;
            found.extend(next.to_vec());
        }
        if found.is_empty() {
            break;
        }
        found.sort_unstable();
        members.extend_from_slice(&found);
        frontier = Frontier::from_vertices(found);
    }
    Ok(EgoResult {
        source: cfg.source,
        depth: into_values(depth),
        members,
        radius: cfg.radius,
        towards: cfg.towards,
    })
}

/// Checks every distance against a serial BFS along the same edges (of
/// `g`, read again for in-edges), cut off at the radius.
pub fn verify(g: &Graph, out_csr: &Csr, cfg: &EgoConfig, res: &EgoResult) -> Verdict {
    let dirs = match cfg.towards.directions(g) {
        Ok(d) => d,
        Err(e) => fail!("{e}"),
    };
    let mut lists = Vec::new();
    for d in dirs {
        if d == Direction::Out {
            lists.push(None);
        } else {
            match Csr::load(g, d) {
                Ok(c) => lists.push(Some(c)),
                Err(e) => fail!("reading the in-edges: {e}"),
            }
        }
    }
    let n = out_csr.vertex_count() as usize;
    let mut want = vec![NONE; n];
    want[cfg.source as usize] = 0;
    let mut queue = std::collections::VecDeque::from([cfg.source]);
    while let Some(v) = queue.pop_front() {
        let d = want[v as usize];
        if d == cfg.radius {
            continue;
        }
        for c in &lists {
            for &u in c.as_ref().unwrap_or(out_csr).neighbors(v) {
                if want[u as usize] == NONE {
                    want[u as usize] = d + 1;
                    queue.push_back(u);
                }
            }
        }
    }
    if let Some(v) = (0..n).find(|&v| want[v] != res.depth[v]) {
        fail!(
            "vertex {v} is at distance {} (NONE: outside), a serial BFS says {}",
            res.depth[v],
            want[v]
        );
    }
    let inside = want.iter().filter(|&&d| d != NONE).count();
    if inside != res.members.len() {
        fail!(
            "{} members listed, {inside} vertices inside",
            res.members.len()
        );
    }
    Ok(())
}

/// The ego network as a registered algorithm (`grotto run ego`).
pub struct Ego;

impl Algorithm for Ego {
    const NAME: &'static str = "ego";
    const ABOUT: &'static str =
        "The vertices within --radius hops of --source (an ego network, as \
         networkx.ego_graph collects it), each with its distance; grotto extract --ego writes its \
         subgraph.";
    const PARAMS: &'static [Param] = &[
        Param::required("source", Kind::Vertex, "The centre, in your ids."),
        Param::with_default("radius", Kind::Int, "1", "The most hops from the centre."),
        Param::with_default(
            "direction",
            Kind::Choice(&["out", "in", "both"]),
            "out",
            "Follow out-edges, in-edges (a directed graph's reverse edges) or both \
             (networkx's undirected=True); one and the same on undirected graphs.",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = EgoConfig;
    type Output = EgoResult;

    /// Level steps read only the blocks of the network's vertices.
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<EgoConfig> {
        let towards = Towards::parse(p.text("direction")?.unwrap_or("out"))?;
        towards.directions(g)?;
        Ok(EgoConfig {
            source: p
                .vertex(g, "source")?
                .ok_or_else(|| Error::Invalid("--source is required".into()))?,
            radius: p.u32("radius")?,
            towards,
        })
    }
    fn config_json(g: &Graph, _: &Params, c: &EgoConfig) -> Result<serde_json::Value> {
        Ok(
            serde_json::json!({"source": g.label(c.source), "radius": c.radius,
            "direction": c.towards.word()}),
        )
    }
    fn run_sync(r: &mut Run<'_>, c: &EgoConfig) -> Result<EgoResult> {
        run(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, c: &EgoConfig, out: &EgoResult) -> Verdict {
        verify(g, csr, c, out)
    }
    /// One row per vertex of the network, by distance: `vertex`, `distance`.
    fn table(g: &Arc<Graph>, out: EgoResult) -> Table {
        let mut t = Table::rows_of(g.clone());
        let dist = out
            .members
            .iter()
            .map(|&v| out.depth[v as usize] as u64)
            .collect();
        t.push("vertex", Values::Vertex(out.members));
        t.push("distance", Values::U64(dist));
        t
    }
    fn summary(g: &Graph, out: &EgoResult) -> serde_json::Value {
        let mut per_level = vec![0u64; out.radius as usize + 1];
        for &v in &out.members {
            per_level[out.depth[v as usize] as usize] += 1;
        }
        while per_level.len() > 1 && per_level.last() == Some(&0) {
            per_level.pop();
        }
        serde_json::json!({
            "source": g.label(out.source),
            "radius": out.radius,
            "direction": out.towards.word(),
            "vertices": out.members.len(),
            "per_distance": per_level,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SyncEngine;
    use crate::testkit;

    fn ego(tg: &testkit::TestGraph, source: u64, radius: u32, towards: Towards) -> EgoResult {
        let cfg = EgoConfig {
            source: tg.graph.vertex_of(source).unwrap(),
            radius,
            towards,
        };
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let mut last = None;
        for ec in testkit::configs() {
            let e = SyncEngine::open(tg.graph.clone(), ec).unwrap();
            let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
            verify(&tg.graph, &csr, &cfg, &res).unwrap();
            last = Some(res);
        }
        last.unwrap()
    }

    fn members(tg: &testkit::TestGraph, res: &EgoResult) -> Vec<u64> {
        let mut m: Vec<u64> = res
            .members
            .iter()
            .map(|&v| tg.graph.original_id(v))
            .collect();
        m.sort_unstable();
        m
    }

    #[test]
    fn directed_out_in_and_both() {
        // 0 -> 1 -> 2 -> 3, 4 -> 1, 2 -> 5
        let tg = testkit::from_edges(&[(0, 1), (1, 2), (2, 3), (4, 1), (2, 5)], false, true);
        assert_eq!(members(&tg, &ego(&tg, 1, 1, Towards::Out)), [1, 2]);
        assert_eq!(members(&tg, &ego(&tg, 1, 1, Towards::In)), [0, 1, 4]);
        assert_eq!(members(&tg, &ego(&tg, 1, 1, Towards::Both)), [0, 1, 2, 4]);
        assert_eq!(members(&tg, &ego(&tg, 1, 2, Towards::Out)), [1, 2, 3, 5]);
        assert_eq!(
            members(&tg, &ego(&tg, 1, 2, Towards::Both)),
            [0, 1, 2, 3, 4, 5]
        );
        assert_eq!(members(&tg, &ego(&tg, 3, 0, Towards::Both)), [3]);
    }

    #[test]
    fn matches_a_serial_bfs_on_a_random_graph() {
        let tg = testkit::rmat(9, 4, 7, true);
        let mut sizes = Vec::new();
        let src = tg.graph.original_id(5);
        for radius in 0..4 {
            sizes.push(ego(&tg, src, radius, Towards::Out).members.len());
        }
        // The network grows with the radius (verify compared every distance).
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "{sizes:?}");
        assert!(sizes[3] > sizes[1], "{sizes:?}");
        let tg = testkit::rmat(9, 4, 7, false);
        let src = tg.graph.original_id(1);
        for t in [Towards::Out, Towards::Both] {
            ego(&tg, src, 2, t);
        }
    }

    #[test]
    fn in_edges_without_reverse_edges_are_refused() {
        let tg = testkit::from_edges(&[(0, 1), (1, 2)], false, false);
        let e = Towards::In.directions(&tg.graph).unwrap_err().to_string();
        assert!(e.contains("--reverse"), "{e}");
    }
}
