//! The thesis's synthetic workloads (MS, WIS, RIS, MU) on a graph's pages:
//! a read is one vertex's neighbour list, a write changes the weight of
//! one of a vertex's edges. Vertices are drawn through their blocks so that
//! the locality is a locality of pages, as in the thesis ("90/10": 90% of
//! the operations go to 10% of the edge blocks).
//!
//! The pages are the out-lists' edge blocks (keys `0..blocks`) and their
//! weight blocks (keys `blocks..2 * blocks`). The weights written are not
//! covered by the blocks' checksums: run this on a scratch copy
//! ([`crate::io::scratch`]), never on a graph someone will open.

use super::pool::{Section, WritePool, WriteStats};
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::store::format::SLOTS_PER_BLOCK;
use crate::store::{Direction, Graph};
use crate::BlockId;
use std::time::Instant;

/// One of the thesis's four workloads (its Table 1b).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Mixed skewed: 50% reads, 90/10 locality.
    Ms,
    /// Write-intensive skewed: 10% reads, 90/10.
    Wis,
    /// Read-intensive skewed: 90% reads, 90/10.
    Ris,
    /// Mixed uniform: 50% reads, no locality.
    Mu,
}

impl Workload {
    /// All four, in the thesis's order.
    pub const ALL: [Workload; 4] = [Workload::Ms, Workload::Wis, Workload::Ris, Workload::Mu];

    /// Name as `--workload` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Ms => "ms",
            Workload::Wis => "wis",
            Workload::Ris => "ris",
            Workload::Mu => "mu",
        }
    }

    /// Percent of operations that are reads.
    pub fn read_percent(self) -> u64 {
        match self {
            Workload::Ms | Workload::Mu => 50,
            Workload::Wis => 10,
            Workload::Ris => 90,
        }
    }

    /// Whether 90% of operations go to 10% of the pages (else uniform).
    pub fn skewed(self) -> bool {
        self != Workload::Mu
    }
}

impl std::str::FromStr for Workload {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Workload::ALL
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| format!("unknown workload {s:?}: use ms, wis, ris or mu"))
    }
}

/// The pages of a weighted graph's out-lists as pool sections: edge blocks
/// then weight blocks.
pub fn graph_sections(g: &Graph) -> Result<Vec<Section>> {
    if !g.weighted() {
        return Err(Error::Invalid(format!(
            "{}: the workload changes edge weights and this graph has none; convert it with weights, or `grotto generate rmat --weighted`",
            g.path().display()
        )));
    }
    let blocks = g.out().block_count();
    if blocks == 0 {
        return Err(Error::Invalid(format!(
            "{}: no edge blocks on disk (every list is kept in the index)",
            g.path().display()
        )));
    }
    Ok(vec![
        Section {
            first_key: 0,
            offset: g.block_offset(Direction::Out, false, BlockId(0))?,
            pages: blocks,
        },
        Section {
            first_key: blocks,
            offset: g.block_offset(Direction::Out, true, BlockId(0))?,
            pages: blocks,
        },
    ])
}

/// What one workload run did.
#[derive(Clone, Debug)]
pub struct WorkloadReport {
    /// Timed operations.
    pub ops: u64,
    /// Of which reads.
    pub reads: u64,
    /// Seconds for the timed operations.
    pub seconds: f64,
    /// Neighbour ids read (the reads' output, so they cannot be skipped).
    pub ids_read: u64,
    /// The pool's counters over the timed operations.
    pub stats: WriteStats,
    /// Dirty pages left in the pool at the end.
    pub dirty_left: usize,
}

/// Draws vertices through their blocks, with the workload's locality.
struct Picker<'g> {
    map: &'g crate::store::blockmap::BlockMap,
    hot: Vec<u64>,
    cold: Vec<u64>,
    skewed: bool,
}

impl<'g> Picker<'g> {
    fn new(g: &'g Graph, skewed: bool, seed: u64) -> Result<Picker<'g>> {
        let map = g.out().block_map()?;
        let mut blocks: Vec<u64> = (0..map.block_count())
            .filter(|&b| !map.block_is_empty(b))
            .collect();
        if blocks.is_empty() {
            return Err(Error::Invalid(format!(
                "{}: no vertex has its list in an edge block",
                g.path().display()
            )));
        }
        // The hot tenth of the pages: a seeded shuffle, the same for every
        // policy compared.
        let mut rng = Rng::new(seed, 7);
        for i in (1..blocks.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            blocks.swap(i, j);
        }
        let n_hot = (blocks.len() / 10).max(1);
        let cold = blocks.split_off(n_hot);
        Ok(Picker {
            map,
            hot: blocks,
            cold,
            skewed,
        })
    }

    fn vertex(&self, rng: &mut Rng) -> u32 {
        let from = if !self.skewed {
            if rng.below(self.hot.len() as u64 + self.cold.len() as u64) < self.hot.len() as u64 {
                &self.hot
            } else {
                &self.cold
            }
        } else if rng.below(10) < 9 || self.cold.is_empty() {
            &self.hot
        } else {
            &self.cold
        };
        let b = from[rng.below(from.len() as u64) as usize];
        let vs = self.map.vertices(b);
        let k = rng.below(vs.clone().count() as u64) as usize;
        vs.clone().nth(k).unwrap_or_default()
    }
}

/// Runs `warmup` untimed operations, then `ops` timed ones, of `w` on
/// `pool` (made over [`graph_sections`] of `g`); the same `seed` gives the
/// same operations whatever the pool.
pub fn run(
    g: &Graph,
    pool: &mut WritePool,
    w: Workload,
    warmup: u64,
    ops: u64,
    seed: u64,
) -> Result<WorkloadReport> {
    let picker = Picker::new(g, w.skewed(), seed)?;
    let blocks = g.out().block_count();
    let adj = g.out();
    let mut rng = Rng::new(seed, 1);
    let mut scratch = Vec::new();
    let mut ids_read = 0u64;
    let mut reads = 0u64;
    let mut t = Instant::now();
    for i in 0..warmup + ops {
        if i == warmup {
            pool.reset_stats();
            reads = 0;
            ids_read = 0;
            t = Instant::now();
        }
        let v = picker.vertex(&mut rng);
        let Some((first, last)) = adj.block_range(v) else {
            continue;
        };
        if rng.below(100) < w.read_percent() {
            reads += 1;
            for b in first..=last {
                let bytes = pool.read(b)?;
                if let Some(piece) = adj.list_in_block(v, b, bytes, &mut scratch)? {
                    ids_read += piece.ids.len() as u64;
                    std::hint::black_box(piece.ids);
                }
            }
        } else {
            let Some((slot, degree)) = adj.disk_span(v) else {
                continue;
            };
            let e = slot + rng.below(degree);
            let per = SLOTS_PER_BLOCK as u64;
            let page = pool.write(blocks + e / per)?;
            let at = (e % per) as usize * 4;
            let old = f32::from_le_bytes([page[at], page[at + 1], page[at + 2], page[at + 3]]);
            let new = if old.is_finite() {
                old * 0.5 + 1.0
            } else {
                1.0
            };
            page[at..at + 4].copy_from_slice(&new.to_le_bytes());
        }
    }
    let seconds = t.elapsed().as_secs_f64();
    Ok(WorkloadReport {
        ops,
        reads,
        seconds,
        ids_read,
        stats: pool.stats(),
        dirty_left: pool.dirty_pages(),
    })
}
