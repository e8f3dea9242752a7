//! Locality order at convert (`--order bfs`, and `--order auto` on graphs
//! whose ids are scattered): internal ids handed out breadth-first from a
//! peripheral vertex of each component, as Cuthill-McKee does, but in
//! balls of about a block's worth of vertices (see `number_balls_from`),
//! so that neighbours get near ids and the vertices of a block are linked
//! to each other, not only to the blocks before and after.
//!
//! Why: road networks and meshes often come with ids in no useful order
//! (renumbered, hashed, merged from tiles). Out of core, a breadth-first
//! search over such a file touches a random block for most vertices it
//! reaches; over the same graph in this order it sweeps the file. On a
//! shuffled 1000x1000 road grid (15% of edges dropped), BFS from vertex 0,
//! 3% cache, medians of 3: plain breadth-first levels 0.27 s (1 thread)
//! and 0.21-0.26 s (2 threads), 1,211 blocks; balls of 1,024 vertices
//! 0.21 s and 0.16-0.19 s, 888 blocks (smaller gaps inside a ball pack
//! tighter); the user's shuffled order 4.6 s.
//!
//! The order is made from the memory build's lists in the user's order
//! (ranks), before they are renumbered (see `gather`). It depends only on
//! the graph, not on the order records arrived in: each vertex's newly
//! found neighbours are numbered in rank order.

use super::cell::LocalCsr;
use rayon::prelude::*;
use std::collections::VecDeque;

/// Mark of a vertex not reached yet.
const UNSEEN: u32 = u32::MAX;
/// Mark of a vertex given its new id.
const PLACED: u32 = u32::MAX - 1;
/// The lists of each rank, found through the cells that hold them.
struct Lists<'a> {
    cells: &'a [LocalCsr],
}

impl Lists<'_> {
    #[inline]
    fn of(&self, r: u32) -> &[u32] {
        let r = r as u64;
        match self.cells.partition_point(|c| c.lo <= r).checked_sub(1) {
            Some(i) if r < self.cells[i].hi => self.cells[i].list(r).0,
            _ => &[],
        }
    }
}

/// Out-lists, and in-lists when the build has them.
struct Adjacency<'a> {
    out: Lists<'a>,
    inn: Option<Lists<'a>>,
}

impl Adjacency<'_> {
    /// Calls `f` with every neighbour of `v`, repeats included.
    #[inline]
    fn neighbours(&self, v: u32, mut f: impl FnMut(u32)) {
        for &w in self.out.of(v) {
            f(w);
        }
        if let Some(inn) = &self.inn {
            for &w in inn.of(v) {
                f(w);
            }
        }
    }
}

/// Finds the order; see the module's doc.
struct Search<'a> {
    adj: Adjacency<'a>,
    deg: &'a [u32],
    /// UNSEEN, PLACED, or a level during a trial search.
    mark: Vec<u32>,
    queue: Vec<u32>,
}

impl Search<'_> {
    /// A trial search from `root` over unseen vertices: the vertex of its
    /// last level with the fewest records (smallest rank on ties). Leaves
    /// every mark as it found it.
    fn trial(&mut self, root: u32) -> u32 {
        let mut q = std::mem::take(&mut self.queue);
        q.clear();
        q.push(root);
        self.mark[root as usize] = 0;
        let mut head = 0;
        while head < q.len() {
            let u = q[head];
            head += 1;
            let next = self.mark[u as usize] + 1;
            let mark = &mut self.mark;
            self.adj.neighbours(u, |w| {
                if mark[w as usize] == UNSEEN {
                    mark[w as usize] = next;
                    q.push(w);
                }
            });
        }
        let depth = q.last().map_or(0, |&v| self.mark[v as usize]);
        let far = q
            .iter()
            .rev()
            .take_while(|&&v| self.mark[v as usize] == depth)
            .min_by_key(|&&v| (self.deg[v as usize], v))
            .copied()
            .unwrap_or(root);
        for &v in &q {
            self.mark[v as usize] = UNSEEN;
        }
        self.queue = q;
        far
    }

    /// A starting vertex for the component of `start`: the end of a
    /// search from it, as far from it as any vertex (the fewest records
    /// on ties). George and Liu search again from that end while the depth
    /// grows; the first search is most of the gain, and on a shuffled road
    /// grid each search costs as much as the rest of the order's work (it
    /// misses the cache at nearly every vertex), so one is made.
    fn peripheral(&mut self, start: u32) -> u32 {
        self.trial(start)
    }
}

/// The breadth-first order of `n` ranks: entry `i` is the rank of new
/// vertex `i`. `out` (and `inn`, a directed build's in-lists) are the
/// memory build's cells in rank order; `deg` the records of each rank.
/// Components are numbered one after another, each from a peripheral
/// vertex, in the order of their smallest rank.
pub fn bfs_order(out: &[LocalCsr], inn: Option<&[LocalCsr]>, deg: &[u32], n: u64) -> Vec<u32> {
    let mut s = Search {
        adj: Adjacency {
            out: Lists { cells: out },
            inn: inn.map(|cells| Lists { cells }),
        },
        deg,
        mark: vec![UNSEEN; n as usize],
        queue: Vec::new(),
    };
    let mut order: Vec<u32> = Vec::with_capacity(n as usize);
    let mut fresh = Vec::new();
    let mut boundary = VecDeque::new();
    let records: u64 = deg.iter().map(|&d| d as u64).sum();
    let ball = ball_size(records, n);
    for start in 0..n as u32 {
        // Until `start` is numbered: a directed build without in-lists may
        // not reach it back from the end of its search (each round numbers
        // at least that end).
        while s.mark[start as usize] == UNSEEN {
            number_balls_from(&mut s, &mut order, &mut fresh, &mut boundary, start, ball);
        }
    }
    order
}

/// Vertices per ball: about what a 4 KiB block holds of lists with the
/// graph's mean length (1.5 bytes an entry packed, as on road grids), at
/// least 64 and at most 4096.
fn ball_size(records: u64, n: u64) -> usize {
    let mean = records as f64 / n.max(1) as f64;
    (4096.0 / (1.5 * mean).max(1.0)).clamp(64.0, 4096.0) as usize
}

/// Numbers the unseen vertices reachable from a peripheral vertex of
/// `start`'s component, in balls of at most `k` vertices: each ball is a
/// breadth-first search from its seed over unnumbered vertices that stops
/// numbering at `k`; the vertices it saw but could not take join a queue
/// of seeds (`boundary`), and the next ball grows from the first of them
/// still unnumbered. Balls follow one another outward from the start as
/// a breadth-first search's levels do, and each is a compact patch: a
/// block holds a patch whose vertices are linked inside it, so a wave
/// entering it crosses it in one scan (plain breadth-first numbering puts
/// a level in a block, whose vertices are linked only to other blocks).
fn number_balls_from(
    s: &mut Search<'_>,
    order: &mut Vec<u32>,
    fresh: &mut Vec<u32>,
    boundary: &mut VecDeque<u32>,
    start: u32,
    k: usize,
) {
    let root = s.peripheral(start);
    boundary.clear();
    boundary.push_back(root);
    while let Some(seed) = boundary.pop_front() {
        if s.mark[seed as usize] != UNSEEN {
            continue;
        }
        let ball = order.len();
        order.push(seed);
        s.mark[seed as usize] = PLACED;
        let mut head = ball;
        while head < order.len() {
            let u = order[head];
            head += 1;
            fresh.clear();
            let mark = &s.mark;
            s.adj.neighbours(u, |w| {
                if mark[w as usize] == UNSEEN {
                    fresh.push(w);
                }
            });
            fresh.sort_unstable();
            fresh.dedup();
            for &w in fresh.iter() {
                if order.len() - ball < k {
                    s.mark[w as usize] = PLACED;
                    order.push(w);
                } else {
                    boundary.push_back(w);
                }
            }
        }
    }
}

/// How far apart the ends of a record lie: the mean over records of the
/// bit length of `|new(source) - new(target)|` (0 for a self loop, 1 for
/// neighbours, 10 for ids 1,000 apart). `new_of` maps rank to new id
/// (identity when `None`).
pub fn mean_gap_bits(cells: &[LocalCsr], new_of: Option<&[u32]>) -> f64 {
    let (bits, records) = cells
        .par_iter()
        .map(|c| {
            let (mut bits, mut records) = (0u64, 0u64);
            for r in c.lo..c.hi {
                let list = c.list(r).0;
                let a = new_of.map_or(r as u32, |m| m[r as usize]) as i64;
                for &t in list {
                    let b = new_of.map_or(t, |m| m[t as usize]) as i64;
                    bits += 64 - (a - b).unsigned_abs().leading_zeros() as u64;
                }
                records += list.len() as u64;
            }
            (bits, records)
        })
        .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1 + y.1));
    if records == 0 {
        0.0
    } else {
        bits as f64 / records as f64
    }
}

/// `--order auto` on graphs whose degrees are not skewed: whether the
/// user's ids already keep neighbours near (the mean gap is at most this
/// many bits: about 256 apart), so that no order is searched for.
pub const NEAR_BITS: f64 = 8.0;
/// `--order auto`: the breadth-first order is taken when it brings the
/// ends of records at least this many bits nearer on average (4x).
pub const GAIN_BITS: f64 = 2.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::cell::build_cell;

    /// One cell holding every rank's list of an undirected edge list.
    fn cells(n: u64, edges: &[(u64, u64)]) -> Vec<LocalCsr> {
        let keys: Vec<u64> = edges
            .iter()
            .flat_map(|&(a, b)| [a << 32 | b, b << 32 | a])
            .collect();
        vec![build_cell(0, n, &[(&keys, &[])], false, false)]
    }

    /// The edges of a rows x cols grid, ids shuffled with `seed`.
    fn shuffled_grid(rows: u64, cols: u64, seed: u64) -> Vec<(u64, u64)> {
        let g = crate::gen::grid::Grid::with(crate::gen::grid::GridConfig {
            rows,
            cols,
            shuffle: true,
            seed,
            ..Default::default()
        })
        .expect("a valid grid");
        let mut edges = Vec::new();
        for c in 0..crate::gen::Generator::chunks(&g) {
            crate::gen::Generator::chunk_edges(&g, c, &mut edges);
        }
        edges
    }

    fn degrees(c: &[LocalCsr], n: u64) -> Vec<u32> {
        crate::ingest::gather::degrees(c, n)
    }

    #[test]
    fn a_path_in_any_ids_is_numbered_from_one_end() {
        // The path 5-2-7-0-3 with isolated 1, 4, 6.
        let n = 8;
        let c = cells(n, &[(5, 2), (2, 7), (7, 0), (0, 3)]);
        let order = bfs_order(&c, None, &degrees(&c, n), n);
        // From vertex 0's component: its peripheral end is 5 or 3; the
        // search from 0 ends at 5 (depth 3 beats 3's depth 1 at level 1).
        assert_eq!(&order[..5], &[5, 2, 7, 0, 3]);
        // Isolated vertices follow in rank order.
        assert_eq!(&order[5..], &[1, 4, 6]);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n as u32).collect::<Vec<_>>());
    }

    #[test]
    fn a_shuffled_grid_gets_its_locality_back() {
        let n = 40 * 50;
        let edges = shuffled_grid(40, 50, 3);
        let c = cells(n, &edges);
        let user = mean_gap_bits(&c, None);
        let order = bfs_order(&c, None, &degrees(&c, n), n);
        let new_of = crate::store::names::invert(&order);
        let bfs = mean_gap_bits(&c, Some(&new_of));
        // Shuffled: gaps of about n/3 (10 bits); breadth-first: within two
        // anti-diagonals of at most 40 vertices (6 bits or fewer).
        assert!(user > 9.0, "user {user}");
        assert!(bfs < 6.0, "bfs {bfs}");
        assert!(bfs + GAIN_BITS <= user);
        // The start is a corner (degree 2).
        assert_eq!(degrees(&c, n)[order[0] as usize], 2);
    }

    #[test]
    fn balls_keep_most_links_inside_a_blocks_worth_of_ids() {
        // Wide enough that a breadth-first level (a diagonal, up to 1,200
        // vertices) holds more than a ball.
        let n = 1200 * 1200;
        let edges = shuffled_grid(1200, 1200, 5);
        let c = cells(n, &edges);
        let deg = degrees(&c, n);
        let k = ball_size(deg.iter().map(|&d| d as u64).sum(), n) as u32;
        assert_eq!(k, 683, "4096 / (1.5 x 3.997)");
        let order = bfs_order(&c, None, &deg, n);
        // The same start numbered by plain levels, for contrast.
        let lists = Lists { cells: &c };
        let mut levels = vec![order[0]];
        let mut seen = vec![false; n as usize];
        seen[order[0] as usize] = true;
        let mut head = 0;
        while head < levels.len() {
            let u = levels[head];
            head += 1;
            for &w in lists.of(u) {
                if !std::mem::replace(&mut seen[w as usize], true) {
                    levels.push(w);
                }
            }
        }
        let inside = |order: &[u32]| {
            let new_of = crate::store::names::invert(order);
            let k = edges
                .iter()
                .filter(|&&(a, b)| new_of[a as usize] / k == new_of[b as usize] / k)
                .count();
            k * 100 / edges.len()
        };
        // A diamond of 683 grid vertices has about 75 of its 1,370 links on
        // its rim; a chunk of one long level has none inside it.
        let (balls, plain) = (inside(&order), inside(&levels));
        assert!(balls >= 80, "balls keep {balls}% of links inside 683 ids");
        assert!(plain <= 40, "plain levels keep {plain}%");
    }

    #[test]
    fn the_order_does_not_depend_on_the_order_of_records() {
        let n = 300u64;
        let mut edges: Vec<(u64, u64)> = (0..n).map(|v| (v, (v * 7 + 3) % n)).collect();
        edges.extend((0..n).map(|v| (v, (v * 13 + 1) % n)));
        let c = cells(n, &edges);
        let a = bfs_order(&c, None, &degrees(&c, n), n);
        edges.reverse();
        // Lists scattered in another order: same order.
        let mut c2 = cells(n, &edges);
        for cell in &mut c2 {
            for r in cell.lo..cell.hi {
                let (s, e) = (
                    cell.offsets[(r - cell.lo) as usize] as usize,
                    cell.offsets[(r - cell.lo) as usize + 1] as usize,
                );
                cell.targets[s..e].reverse();
            }
        }
        assert_eq!(bfs_order(&c2, None, &degrees(&c2, n), n), a);
    }

    #[test]
    fn every_vertex_is_numbered_once_in_any_directed_graph() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for n in [1u64, 2, 7, 64, 500] {
            for m in [0, n / 2, n * 3] {
                let recs: Vec<(u64, u64)> = (0..m)
                    .map(|_| {
                        let r = crate::rng::splitmix64(&mut x);
                        (r % n, (r >> 32) % n)
                    })
                    .collect();
                let out_keys: Vec<u64> = recs.iter().map(|&(a, b)| a << 32 | b).collect();
                let in_keys: Vec<u64> = recs.iter().map(|&(a, b)| b << 32 | a).collect();
                let out = vec![build_cell(0, n, &[(&out_keys, &[])], false, false)];
                let inn = vec![build_cell(0, n, &[(&in_keys, &[])], false, false)];
                let deg = degrees(&out, n);
                for order in [
                    bfs_order(&out, None, &deg, n),
                    bfs_order(&out, Some(&inn), &deg, n),
                ] {
                    let mut sorted = order.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, (0..n as u32).collect::<Vec<_>>(), "n {n} m {m}");
                }
            }
        }
    }

    #[test]
    fn directed_lists_reach_through_in_lists() {
        // 0 -> 1 <- 2: from 0, out-lists alone never reach 2; with the
        // in-lists, the search from 0 ends at 2, where numbering starts.
        let n = 3;
        let out = vec![build_cell(
            0,
            n,
            &[(&[1, 2 << 32 | 1][..], &[][..])],
            false,
            false,
        )];
        let inn = vec![build_cell(
            0,
            n,
            &[(&[1 << 32, 1 << 32 | 2][..], &[][..])],
            false,
            false,
        )];
        let deg = degrees(&out, n);
        let with_in = bfs_order(&out, Some(&inn), &deg, n);
        assert_eq!(with_in, vec![2, 1, 0]);
        // Without them: 0's search ends at 1, which reaches nothing; 0
        // is then numbered from itself, and 2 on its own.
        assert_eq!(bfs_order(&out, None, &deg, n), vec![1, 0, 2]);
    }
}
