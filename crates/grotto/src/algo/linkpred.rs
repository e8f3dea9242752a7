//! Link prediction from one vertex: for each candidate `x`, the scores
//! networkx's link-prediction functions give the pair `(u, x)` on an
//! undirected simple graph (`common_neighbors`, `jaccard_coefficient`,
//! `adamic_adar_index`, `resource_allocation_index`,
//! `preferential_attachment`).
//!
//! With `N(v)` the set of `v`'s neighbours (`v` itself when it has a
//! loop) and `d(v)` networkx's degree (a loop counts twice), the pair's
//! common neighbours are `C = N(u) ∩ N(x) − {u, x}`; Jaccard is
//! `|C| / |N(u) ∪ N(x)|` (0 for an empty union), Adamic-Adar
//! `Σ_{w ∈ C} 1 / ln d(w)`, resource allocation `Σ_{w ∈ C} 1 / d(w)` and
//! preferential attachment `d(u) d(x)`.
//!
//! One step reads `u`'s list, a second the lists of its neighbours: every
//! `x` in the list of a neighbour `w ∉ {u, x}` has `w` in common with `u`,
//! so those lists give `|C|` and the two sums for every candidate at once
//! (the two-hop counting of triangle listing, from one corner). Without
//! targets, the candidates are the vertices at two hops that are not `u`'s
//! neighbours (the pairs that networkx's default, all non-edges, scores
//! above zero but for preferential attachment). A file that keeps self
//! loops has its candidates' lists read too, to find their loops;
//! otherwise their degrees come from the index. Memory: the candidates'
//! counts (a map, about 40 bytes a candidate), nothing per vertex.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{fail, Verdict};
use crate::engine::{Frontier, Run};
use crate::error::{Error, Result};
use crate::store::format::{FLAG_MULTI, FLAG_SELF_LOOPS};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// Settings of a link prediction.
#[derive(Clone, Debug)]
pub struct LinkConfig {
    /// The vertex whose pairs are scored (internal id).
    pub source: VertexId,
    /// The other ends to score; empty: the vertices two hops away that
    /// are not neighbours.
    pub targets: Vec<VertexId>,
}

/// The scores of one pair.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairScores {
    /// `|C|`, the common neighbours.
    pub common: u64,
    /// Jaccard coefficient.
    pub jaccard: f64,
    /// Adamic-Adar index.
    pub adamic_adar: f64,
    /// Resource allocation index.
    pub resource_allocation: f64,
    /// Preferential attachment.
    pub preferential_attachment: u64,
}

/// The scores from one source.
#[derive(Clone, Debug)]
pub struct LinkResult {
    /// The source.
    pub source: VertexId,
    /// The candidates in the order asked (targets) or by id, with their
    /// scores.
    pub pairs: Vec<(VertexId, PairScores)>,
}

/// What the two-hop step gathers for a candidate: common neighbours and
/// the two sums over them.
#[derive(Clone, Copy, Default)]
struct Gathered {
    common: u64,
    adamic_adar: f64,
    resource_allocation: f64,
}

/// Refuses what networkx refuses: directed graphs and multigraphs.
fn check(g: &Graph) -> Result<()> {
    if g.directed() {
        return Err(Error::Invalid(format!(
            "{}: link prediction is defined on undirected graphs (networkx's \
             not_implemented_for(\"directed\")); convert the edge list with --undirected",
            g.path().display()
        )));
    }
    if g.header().flags & FLAG_MULTI != 0 {
        return Err(Error::Invalid(format!(
            "{}: link prediction is defined on simple graphs and this file keeps parallel \
             edges (--keep-duplicates); convert it again without",
            g.path().display()
        )));
    }
    Ok(())
}

/// Whole lists of `vertices`, gathered from their pieces (each visited
/// once, complete): calls `f(v, list)`.
fn whole_lists(
    r: &mut Run<'_>,
    vertices: Vec<VertexId>,
    f: &(dyn Fn(VertexId, &[VertexId]) + Sync),
) -> Result<()> {
    let pieces: Mutex<HashMap<VertexId, (Vec<VertexId>, u64)>> = Mutex::new(HashMap::new());
    r.step(
        &Frontier::from_vertices(vertices),
        Direction::Out,
        |v, e, _| {
            if e.is_whole() {
                return f(v, e.ids);
            }
            let mut m = pieces.lock().unwrap_or_else(|p| p.into_inner());
            let p = m
                .entry(v)
                .or_insert_with(|| (vec![0; e.degree as usize], 0));
            let at = e.first as usize;
            p.0[at..at + e.ids.len()].copy_from_slice(e.ids);
            p.1 += e.ids.len() as u64;
            if p.1 == e.degree {
                if let Some((list, _)) = m.remove(&v) {
                    drop(m);
                    f(v, &list);
                }
            }
        },
    )?;
    Ok(())
}

/// networkx's degree of a vertex from its list: a loop counts twice.
fn nx_degree(v: VertexId, list: &[VertexId]) -> u64 {
    list.len() as u64 + list.contains(&v) as u64
}

/// Scores the pairs (see the module comment).
pub fn run(r: &mut Run<'_>, cfg: &LinkConfig) -> Result<LinkResult> {
    check(r.graph())?;
    let u = cfg.source;
    let loops_kept = r.graph().header().flags & FLAG_SELF_LOOPS != 0;
    let own: Mutex<Vec<VertexId>> = Mutex::new(Vec::new());
    whole_lists(r, vec![u], &|_, list| {
        *own.lock().unwrap_or_else(|p| p.into_inner()) = list.to_vec();
    })?;
    let nu = own.into_inner().unwrap_or_else(|p| p.into_inner());
    let wanted: Option<HashSet<VertexId>> =
        (!cfg.targets.is_empty()).then(|| cfg.targets.iter().copied().collect());
    // The two-hop step: per candidate, the common neighbours and sums.
    let shards: Vec<Mutex<HashMap<VertexId, Gathered>>> =
        (0..64).map(|_| Mutex::new(HashMap::new())).collect();
    let middles: Vec<VertexId> = nu.iter().copied().filter(|&w| w != u).collect();
    whole_lists(r, middles, &|w, list| {
        let d = nx_degree(w, list) as f64;
        for &x in list {
            if x == w || (x == u && wanted.is_none()) {
                continue;
            }
            if wanted.as_ref().is_some_and(|t| !t.contains(&x)) {
                continue;
            }
            let mut s = shards[x as usize % shards.len()]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let e = s.entry(x).or_default();
            e.common += 1;
            e.adamic_adar += 1.0 / d.ln();
            e.resource_allocation += 1.0 / d;
        }
    })?;
    let mut found: HashMap<VertexId, Gathered> = HashMap::new();
    for s in shards {
        found.extend(s.into_inner().unwrap_or_else(|p| p.into_inner()));
    }
    let neighbours: HashSet<VertexId> = nu.iter().copied().collect();
    let candidates: Vec<VertexId> = match &wanted {
        Some(_) => cfg.targets.clone(),
        None => {
            let mut c: Vec<VertexId> = found
                .keys()
                .copied()
                .filter(|x| !neighbours.contains(x))
                .collect();
            c.sort_unstable();
            c
        }
    };
    // The candidates' degrees (a loop twice) and loops.
    let out = r.graph().out();
    let mut loops: HashSet<VertexId> = HashSet::new();
    if loops_kept {
        let seen: Mutex<HashSet<VertexId>> = Mutex::new(HashSet::new());
        let mut ends = candidates.clone();
        ends.sort_unstable();
        ends.dedup();
        whole_lists(r, ends, &|x, list| {
            if list.contains(&x) {
                seen.lock().unwrap_or_else(|p| p.into_inner()).insert(x);
            }
        })?;
        loops = seen.into_inner().unwrap_or_else(|p| p.into_inner());
        if neighbours.contains(&u) {
            loops.insert(u);
        }
    }
    let loop_of = |v: VertexId| loops.contains(&v) as u64;
    let du = nu.len() as u64 + loop_of(u);
    let pairs = candidates
        .iter()
        .map(|&x| {
            let g = found.get(&x).copied().unwrap_or_default();
            let dx = out.degree(x) + loop_of(x);
            // |N(u) ∩ N(x)|: the common neighbours, and u or x themselves
            // where the pair is an edge and one of them has a loop.
            let (union, common) = if x == u {
                (nu.len() as u64, g.common)
            } else {
                let adjacent = neighbours.contains(&x) as u64;
                let both = g.common + adjacent * (loop_of(u) + loop_of(x));
                (nu.len() as u64 + out.degree(x) - both, g.common)
            };
            let scores = PairScores {
                common,
                jaccard: if union == 0 {
                    0.0
                } else {
                    common as f64 / union as f64
                },
                adamic_adar: g.adamic_adar,
                resource_allocation: g.resource_allocation,
                preferential_attachment: du * dx,
            };
            (x, scores)
        })
        .collect();
    Ok(LinkResult { source: u, pairs })
}

/// The scores by the definitions, on the lists in memory.
pub fn serial(g: &Csr, u: VertexId, x: VertexId) -> PairScores {
    let set = |v: VertexId| -> HashSet<VertexId> { g.neighbors(v).iter().copied().collect() };
    let (nu, nx) = (set(u), set(x));
    let deg = |v: VertexId| nx_degree(v, g.neighbors(v));
    let common: Vec<VertexId> = nu
        .intersection(&nx)
        .copied()
        .filter(|&w| w != u && w != x)
        .collect();
    let union = nu.union(&nx).count();
    PairScores {
        common: common.len() as u64,
        jaccard: if union == 0 {
            0.0
        } else {
            common.len() as f64 / union as f64
        },
        adamic_adar: common.iter().map(|&w| 1.0 / (deg(w) as f64).ln()).sum(),
        resource_allocation: common.iter().map(|&w| 1.0 / deg(w) as f64).sum(),
        preferential_attachment: deg(u) * deg(x),
    }
}

/// Checks every pair against [`serial`] and, without targets, that the
/// candidates are exactly the non-neighbours two hops away.
pub fn verify(g: &Csr, cfg: &LinkConfig, res: &LinkResult) -> Verdict {
    let u = cfg.source;
    if cfg.targets.is_empty() {
        let own: HashSet<VertexId> = g.neighbors(u).iter().copied().collect();
        let mut want: Vec<VertexId> = own
            .iter()
            .filter(|&&w| w != u)
            .flat_map(|&w| g.neighbors(w).iter().copied().filter(move |&x| x != w))
            .filter(|x| *x != u && !own.contains(x))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        want.sort_unstable();
        let got: Vec<VertexId> = res.pairs.iter().map(|p| p.0).collect();
        if got != want {
            fail!(
                "{} candidates, a serial two-hop search finds {}",
                got.len(),
                want.len()
            );
        }
    }
    for &(x, got) in &res.pairs {
        let want = serial(g, u, x);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(1.0) || a == b;
        if got.common != want.common
            || got.preferential_attachment != want.preferential_attachment
            || !close(got.jaccard, want.jaccard)
            || !close(got.adamic_adar, want.adamic_adar)
            || !close(got.resource_allocation, want.resource_allocation)
        {
            fail!("pair ({u}, {x}): {got:?}, by the definitions {want:?}");
        }
    }
    Ok(())
}

/// Link prediction as a registered algorithm (`grotto run linkpred`).
pub struct LinkPrediction;

impl Algorithm for LinkPrediction {
    const NAME: &'static str = "linkpred";
    const ABOUT: &'static str =
        "Link prediction from --source: common neighbours, Jaccard, Adamic-Adar, resource \
         allocation and preferential attachment of each pair (networkx's definitions; \
         undirected simple graphs), for --targets or every non-neighbour two hops away.";
    const PARAMS: &'static [Param] = &[
        Param::required(
            "source",
            Kind::Vertex,
            "One end of every pair, in your ids.",
        ),
        Param::optional(
            "targets",
            Kind::Vertices,
            "The other ends, in your ids, separated by commas (default: every vertex two hops \
             away that is not a neighbour).",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = LinkConfig;
    type Output = LinkResult;

    /// Two steps over a few lists.
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<LinkConfig> {
        check(g)?;
        Ok(LinkConfig {
            source: p
                .vertex(g, "source")?
                .ok_or_else(|| Error::Invalid("--source is required".into()))?,
            targets: p.vertices(g, "targets")?,
        })
    }
    fn config_json(g: &Graph, _: &Params, c: &LinkConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({"source": g.label(c.source), "targets": c.targets.len()}))
    }
    fn run_sync(r: &mut Run<'_>, c: &LinkConfig) -> Result<LinkResult> {
        run(r, c)
    }
    fn verify(_: &Graph, csr: &Csr, c: &LinkConfig, out: &LinkResult) -> Verdict {
        verify(csr, c, out)
    }
    /// A row a pair: `vertex` (the other end), `common`, `jaccard`,
    /// `adamic_adar`, `resource_allocation`, `preferential_attachment`.
    fn table(g: &Arc<Graph>, out: LinkResult) -> Table {
        let mut t = Table::rows_of(g.clone());
        let col = |f: &dyn Fn(&PairScores) -> f64| -> Vec<f64> {
            out.pairs.iter().map(|p| f(&p.1)).collect()
        };
        let common = out.pairs.iter().map(|p| p.1.common).collect();
        let pa = out
            .pairs
            .iter()
            .map(|p| p.1.preferential_attachment)
            .collect();
        let jaccard = col(&|s| s.jaccard);
        let aa = col(&|s| s.adamic_adar);
        let ra = col(&|s| s.resource_allocation);
        t.push(
            "vertex",
            Values::Vertex(out.pairs.iter().map(|p| p.0).collect()),
        );
        t.push("common", Values::U64(common));
        t.push("jaccard", Values::F64(jaccard));
        t.push("adamic_adar", Values::F64(aa));
        t.push("resource_allocation", Values::F64(ra));
        t.push("preferential_attachment", Values::U64(pa));
        t
    }
    fn summary(g: &Graph, out: &LinkResult) -> serde_json::Value {
        let mut best: Vec<&(VertexId, PairScores)> = out.pairs.iter().collect();
        best.sort_by(|a, b| {
            b.1.adamic_adar
                .total_cmp(&a.1.adamic_adar)
                .then(a.0.cmp(&b.0))
        });
        serde_json::json!({
            "source": g.label(out.source),
            "pairs": out.pairs.len(),
            "top_adamic_adar": best.iter().take(5)
                .map(|p| serde_json::json!([g.label(p.0), p.1.adamic_adar])).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SyncEngine;
    use crate::testkit;

    fn predict(tg: &testkit::TestGraph, source: u64, targets: &[u64]) -> LinkResult {
        let cfg = LinkConfig {
            source: tg.graph.vertex_of(source).unwrap(),
            targets: targets
                .iter()
                .map(|&t| tg.graph.vertex_of(t).unwrap())
                .collect(),
        };
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let mut last = None;
        for ec in testkit::configs() {
            let e = SyncEngine::open(tg.graph.clone(), ec).unwrap();
            let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
            verify(&csr, &cfg, &res).unwrap();
            last = Some(res);
        }
        last.unwrap()
    }

    /// networkx's docstring example: complete_graph(5), pairs (0, 1) and
    /// (2, 3): Jaccard 0.6, Adamic-Adar 3 / ln 4, resource allocation
    /// 0.75, preferential attachment 16.
    #[test]
    fn complete_graph_pairs_have_networkx_values() {
        let mut e = Vec::new();
        for a in 0..5u64 {
            for b in a + 1..5 {
                e.push((a, b));
            }
        }
        let tg = testkit::from_edges(&e, true, false);
        let res = predict(&tg, 0, &[1, 2]);
        for (_, s) in &res.pairs {
            assert_eq!(s.common, 3);
            assert!((s.jaccard - 0.6).abs() < 1e-15);
            assert!((s.adamic_adar - 3.0 / 4f64.ln()).abs() < 1e-12);
            assert!((s.resource_allocation - 0.75).abs() < 1e-15);
            assert_eq!(s.preferential_attachment, 16);
        }
    }

    #[test]
    fn rmat_candidates_and_scores_match_the_definitions() {
        let tg = testkit::rmat(9, 8, 5, true);
        for s in [0u64, 3, 77] {
            if tg.graph.vertex_of(s).is_ok() {
                predict(&tg, s, &[]);
            }
        }
        let hub = predict(&tg, 0, &[]);
        assert!(!hub.pairs.is_empty());
    }

    /// Loops count in N(v) and twice in degrees; a pair of a vertex with
    /// itself and a far vertex are scored too.
    #[test]
    fn loops_self_pairs_and_far_pairs() {
        let opts = crate::ingest::ConvertOptions {
            undirected: true,
            keep_self_loops: true,
            ..crate::ingest::ConvertOptions::default()
        };
        let tg = testkit::from_edges_with(&[(0, 0), (0, 1), (1, 2), (2, 2), (0, 2), (3, 4)], &opts);
        predict(&tg, 0, &[1, 2, 0, 3]);
        predict(&tg, 2, &[]);
    }

    #[test]
    fn directed_graphs_are_refused() {
        let tg = testkit::from_edges(&[(0, 1)], false, false);
        let e = SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let cfg = LinkConfig {
            source: 0,
            targets: vec![],
        };
        assert!(e.run(|r| run(r, &cfg)).is_err());
    }
}
