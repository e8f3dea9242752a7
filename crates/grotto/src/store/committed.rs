//! Opening a file with committed updates: the runs in force turned into
//! each adjacency's delta and the counts after them, and the keys of the
//! vertices they add joined to the id map or name table.

use super::format::*;
use super::graph::{Graph, Updates};
use super::load::corrupt;
use crate::error::Result;
use crate::VertexId;

impl Graph {
    /// Turns the committed changes into each adjacency's delta and the
    /// counts after them.
    pub(super) fn apply_committed(
        &mut self,
        c: &mut super::history::Committed,
        len: u64,
    ) -> Result<()> {
        let path = self.path.clone();
        let bad = |what: String| corrupt(&path, what);
        let (n0, n) = (self.header.vertex_count, c.manifest.vertices);
        if n < n0 || n > MAX_VERTICES {
            return Err(bad(format!(
                "the manifest says {n} vertices, the base {n0}"
            )));
        }
        // The history checked each run's keys against what it adds. Ids
        // given past a dense range turn the graph into one with an id map
        // in memory: the base's ids, the ids that grew densely after them
        // (`n0..dense`), then the given ones.
        if self.id_map.is_none() && self.names.is_none() {
            if let super::manifest::NewKeys::Ids(given) = &mut c.keys {
                let k = given.len() as u64;
                let dense = n.checked_sub(k).filter(|&d| d >= n0).ok_or_else(|| {
                    bad(format!("the updates add {} vertices with {k} keys", n - n0))
                })?;
                let base = self.header.id_base;
                let mut ids: Vec<u64> = (n0..dense).map(|r| base + r).collect();
                ids.append(given);
                *given = ids;
                self.id_map = Some((0..n0).map(|r| base + r).collect());
                self.header.flags |= super::format::FLAG_ID_MAP;
                self.header.id_base = 0;
            }
        }
        let keyed = self.id_map.is_some() || self.names.is_some();
        if keyed && c.keys.len() as u64 != n - n0 {
            return Err(bad(format!(
                "the updates add {} vertices with {} keys",
                n - n0,
                c.keys.len()
            )));
        }
        if !c.keys.is_empty() {
            self.grow_keys(std::mem::take(&mut c.keys))?;
        }
        if self.inn.is_none() && !c.inn.is_empty() {
            return Err(bad(
                "the updates change in-lists the graph does not have".into()
            ));
        }
        let mut changed = 0;
        let (ins, del) = (
            (c.out.ins().len() + c.inn.ins().len()) as u64,
            (c.out.del().len() + c.inn.del().len()) as u64,
        );
        // Each adjacency's ops are dropped once its delta holds them.
        let (out_ops, inn_ops) = (std::mem::take(&mut c.out), std::mem::take(&mut c.inn));
        let weighted = self.weighted();
        for (dir, adj, ops) in [
            (0u8, Some(&mut self.out), out_ops),
            (1, self.inn.as_mut(), inn_ops),
        ] {
            let Some(adj) = adj else { continue };
            let ops = &ops;
            adj.index.resize(n as usize, 0);
            let fences: Vec<(VertexId, Vec<VertexId>)> = c
                .fences
                .iter()
                .filter(|f| f.0 == dir)
                .map(|f| (f.1, f.2.clone()))
                .collect();
            // A weighted graph's inserts carry weights; an unweighted one's
            // none.
            let (ins_n, w_n) = (ops.ins().len(), ops.ins_w().len());
            if w_n != if weighted { ins_n } else { 0 } {
                return Err(bad(format!(
                    "the committed updates give {w_n} weights for {ins_n} inserts"
                )));
            }
            let delta = super::delta::Delta::build(
                n,
                ops.ins(),
                ops.del(),
                ops.ins_w(),
                |v| {
                    adj.block_range(v)
                        .map(|(a, b)| (b - a + 1, adj.base_degree(v)))
                },
                |v| {
                    adj.base_inline(v).map_or(([0, 0], 0), |l| {
                        let ids = l.ids();
                        ([ids[0], ids.get(1).copied().unwrap_or(0)], ids.len())
                    })
                },
                &fences,
            )
            .map_err(|why| bad(format!("the committed updates: {why}")))?;
            let entries = adj.entries as i64 + ops.entry_change();
            if entries != c.manifest.out_entries as i64 {
                return Err(bad(format!(
                    "the manifest says {} entries, the base and its runs make {entries}",
                    c.manifest.out_entries
                )));
            }
            adj.entries = entries as u64;
            changed += delta.changed();
            adj.delta = Some(delta);
        }
        if let Some(o) = self.order.as_mut().filter(|_| !keyed) {
            o.grow_to(n as u32);
        }
        let run_bytes: u64 = c.manifest.runs.iter().map(|r| r.length).sum();
        let live: u64 = c.manifest.runs.iter().map(|r| padded(r.length)).sum();
        let first_run = c.manifest_at + super::manifest::MANIFEST_BYTES;
        self.updates = Some(Updates {
            commits: c.manifest.seq,
            runs: c.manifest.runs.len() as u64,
            run_bytes,
            inserted: ins,
            deleted: del,
            changed_lists: changed,
            base_vertices: n0,
            base_edges: self.header.edge_count,
            unreferenced_tail: len.saturating_sub(c.end),
            dead_bytes: c.end.saturating_sub(first_run + live),
        });
        self.header.vertex_count = n;
        self.header.edge_count = c.manifest.edges;
        self.header.out_entries = c.manifest.out_entries;
        Ok(())
    }

    /// Joins the keys of the vertices updates added (internal ids from the
    /// base's vertex count on) to the id map or name table, which stay
    /// sorted, and turns the vertex order into the one of the grown table
    /// (a base without an order gets one: its vertices keep their ids
    /// inside, and the added ones come after them).
    fn grow_keys(&mut self, keys: super::manifest::NewKeys) -> Result<()> {
        use super::manifest::NewKeys;
        let bad = |what: String| corrupt(&self.path, format!("the committed updates: {what}"));
        let (at, ranks) = match (keys, self.id_map.take(), self.names.take()) {
            (NewKeys::Ids(new), Some(old), _) => {
                let (map, at, ranks) = super::names::grown_ids(&old, &new)
                    .map_err(|i| bad(format!("they add id {}, which is there already", new[i])))?;
                self.id_map = Some(map);
                (at, ranks)
            }
            (NewKeys::Names(new), _, Some(old)) => {
                let (t, at, ranks) = old.grown(&new).map_err(|i| {
                    bad(format!(
                        "they add name {:?}, which is there already",
                        new[i]
                    ))
                })?;
                self.names = Some(std::sync::Arc::new(t));
                (at, ranks)
            }
            _ => return Err(bad("their new keys are not of the graph's kind".into())),
        };
        let n0 = self.header.vertex_count as u32;
        let mut o = self
            .order
            .take()
            .unwrap_or_else(|| super::order::Order::identity(&self.path, n0));
        o.grow_keyed(at, ranks);
        self.order = Some(o);
        Ok(())
    }
}
