//! A 2D grid: the vertex at row `r`, column `c` links to its right and
//! lower neighbours. Diameter rows + cols - 2: a stand-in for road networks
//! and meshes. Two options make it look like the real ones: a fraction of
//! its edges dropped at random (irregular degrees, detours, a few cut-off
//! pieces) and ids shuffled by a seeded bijection (files that do not come
//! in row order). Which edges go and where ids land follow from the seed
//! alone, whatever the thread count.

use super::shuffle::Shuffle;
use super::Generator;
use rayon::prelude::*;

/// What grid to generate; [`GridConfig::default`] is the plain 1000 x 1000
/// grid in row order.
#[derive(Clone, Debug)]
pub struct GridConfig {
    /// Rows (default 1000).
    pub rows: u64,
    /// Columns (default 1000).
    pub cols: u64,
    /// Fraction of edges dropped, each independently, in `[0, 1)` (default 0).
    pub drop: f64,
    /// Ids shuffled by a seeded bijection instead of row order `r * cols + c`
    /// (default false).
    pub shuffle: bool,
    /// Seed of the dropped edges and the shuffle (default 1).
    pub seed: u64,
}

impl Default for GridConfig {
    fn default() -> GridConfig {
        GridConfig {
            rows: 1000,
            cols: 1000,
            drop: 0.0,
            shuffle: false,
            seed: 1,
        }
    }
}

/// A grid ready to generate: its configuration, the drop threshold, the
/// id shuffle and the number of edges kept (counted once, in parallel).
#[derive(Clone, Debug)]
pub struct Grid {
    cfg: GridConfig,
    /// An edge is dropped when its hash is below this.
    drop_below: u64,
    shuffle: Option<Shuffle>,
    edges: u64,
}

/// Vertices per chunk: a chunk's edges take at most 32 MiB whatever the
/// shape (a chunk of whole rows of a very wide grid would not).
const VERTICES_PER_CHUNK: u64 = 1 << 20;

impl Grid {
    /// A plain `rows` x `cols` grid in row order; see [`Grid::with`].
    pub fn new(rows: u64, cols: u64) -> crate::Result<Grid> {
        Grid::with(GridConfig {
            rows,
            cols,
            ..GridConfig::default()
        })
    }

    /// The grid `cfg` describes, checked: at least one row and one column,
    /// vertex and edge counts within u64, a drop fraction in `[0, 1)`.
    pub fn with(cfg: GridConfig) -> crate::Result<Grid> {
        let (rows, cols) = (cfg.rows, cfg.cols);
        if rows == 0 || cols == 0 {
            return Err(crate::Error::Invalid(format!(
                "a grid needs at least one row and one column, got --rows {rows} --cols {cols}"
            )));
        }
        if rows
            .checked_mul(cols)
            .and_then(|n| n.checked_mul(2))
            .is_none()
        {
            return Err(crate::Error::Limit {
                what: format!("--rows {rows} --cols {cols}: the grid's size overflows 64 bits"),
            });
        }
        if !(0.0..1.0).contains(&cfg.drop) {
            return Err(crate::Error::Invalid(format!(
                "--drop {}: the fraction of edges dropped must be at least 0 and below 1",
                cfg.drop
            )));
        }
        // The fraction as a threshold on 64 random bits (exact to 2^-53).
        let drop_below = (cfg.drop * 2f64.powi(64)) as u64;
        let shuffle = cfg.shuffle.then(|| Shuffle::new(rows * cols, cfg.seed));
        let mut g = Grid {
            cfg,
            drop_below,
            shuffle,
            edges: 0,
        };
        g.edges = if drop_below == 0 {
            rows * cols.saturating_sub(1) + rows.saturating_sub(1) * cols
        } else {
            (0..g.chunks())
                .into_par_iter()
                .map(|c| {
                    let mut n = 0u64;
                    g.visit(c, |_, _| n += 1);
                    n
                })
                .sum()
        };
        Ok(g)
    }

    /// The configuration.
    pub fn config(&self) -> &GridConfig {
        &self.cfg
    }

    /// Whether edge `e` (`2 * v` rightwards from `v`, `2 * v + 1`
    /// downwards) is kept.
    #[inline]
    fn kept(&self, e: u64) -> bool {
        if self.drop_below == 0 {
            return true;
        }
        let mut x = self.cfg.seed ^ e.wrapping_mul(0xA24B_AED4_963E_E407);
        crate::rng::splitmix64(&mut x) >= self.drop_below
    }

    /// Calls `f` with the kept edges of `chunk`, in row-order positions.
    #[inline]
    fn visit(&self, chunk: usize, mut f: impl FnMut(u64, u64)) {
        let cols = self.cfg.cols;
        let n = self.cfg.rows * cols;
        let lo = chunk as u64 * VERTICES_PER_CHUNK;
        let hi = (lo + VERTICES_PER_CHUNK).min(n);
        let (mut r, mut c) = (lo / cols, lo % cols);
        for v in lo..hi {
            if c + 1 < cols && self.kept(2 * v) {
                f(v, v + 1);
            }
            if r + 1 < self.cfg.rows && self.kept(2 * v + 1) {
                f(v, v + cols);
            }
            c += 1;
            if c == cols {
                (r, c) = (r + 1, 0);
            }
        }
    }

    /// The id of the vertex at row-order position `v`.
    #[inline]
    pub fn id(&self, v: u64) -> u64 {
        match &self.shuffle {
            Some(s) => s.apply(v),
            None => v,
        }
    }
}

impl Generator for Grid {
    fn chunks(&self) -> usize {
        (self.cfg.rows * self.cfg.cols).div_ceil(VERTICES_PER_CHUNK) as usize
    }
    fn chunk_edges(&self, chunk: usize, out: &mut Vec<(u64, u64)>) {
        self.visit(chunk, |u, v| out.push((self.id(u), self.id(v))));
    }
    fn edges(&self) -> u64 {
        self.edges
    }
    fn vertices(&self) -> u64 {
        self.cfg.rows * self.cfg.cols
    }
    fn describe(&self) -> String {
        let mut s = format!("grid {} x {}", self.cfg.rows, self.cfg.cols);
        if self.cfg.drop > 0.0 {
            s += &format!(", {}% of edges dropped", self.cfg.drop * 100.0);
        }
        if self.cfg.shuffle {
            s += ", ids shuffled";
        }
        if self.cfg.drop > 0.0 || self.cfg.shuffle {
            s += &format!(", seed {}", self.cfg.seed);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(g: &Grid) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for c in 0..g.chunks() {
            g.chunk_edges(c, &mut out);
        }
        out
    }

    #[test]
    fn plain_grid_links_right_and_down() {
        let g = Grid::new(2, 3).unwrap();
        assert_eq!(
            all(&g),
            [(0, 1), (0, 3), (1, 2), (1, 4), (2, 5), (3, 4), (4, 5)]
        );
        assert_eq!(g.edges(), 7);
        assert_eq!(g.describe(), "grid 2 x 3");
    }

    #[test]
    fn dropped_edges_follow_the_fraction_and_the_seed() {
        let cfg = |drop, seed| GridConfig {
            rows: 300,
            cols: 400,
            drop,
            seed,
            ..GridConfig::default()
        };
        let full = Grid::with(cfg(0.0, 1)).unwrap();
        let g = Grid::with(cfg(0.15, 1)).unwrap();
        let e = all(&g);
        assert_eq!(
            e.len() as u64,
            g.edges(),
            "the counted edges are the ones generated"
        );
        let kept = e.len() as f64 / full.edges() as f64;
        assert!((kept - 0.85).abs() < 0.01, "kept {kept}");
        // A subset of the full grid's edges, in the same order.
        let mut it = all(&full).into_iter();
        assert!(e.iter().all(|x| it.any(|y| y == *x)));
        // Same seed, same edges; another seed, other edges.
        assert_eq!(all(&Grid::with(cfg(0.15, 1)).unwrap()), e);
        assert_ne!(all(&Grid::with(cfg(0.15, 2)).unwrap()), e);
    }

    #[test]
    fn shuffled_ids_relabel_the_same_grid() {
        let cfg = GridConfig {
            rows: 50,
            cols: 70,
            drop: 0.1,
            shuffle: true,
            seed: 7,
        };
        let g = Grid::with(cfg.clone()).unwrap();
        let plain = Grid::with(GridConfig {
            shuffle: false,
            ..cfg
        })
        .unwrap();
        let ids: Vec<u64> = (0..g.vertices()).map(|v| g.id(v)).collect();
        let expect: Vec<(u64, u64)> = all(&plain)
            .into_iter()
            .map(|(u, v)| (ids[u as usize], ids[v as usize]))
            .collect();
        assert_eq!(all(&g), expect);
        assert!(
            ids.iter()
                .enumerate()
                .filter(|&(i, &x)| i as u64 == x)
                .count()
                < 10
        );
        assert_eq!(
            g.describe(),
            "grid 50 x 70, 10% of edges dropped, ids shuffled, seed 7"
        );
    }

    #[test]
    fn bad_fractions_and_shapes_are_refused() {
        for drop in [-0.1, 1.0, f64::NAN] {
            let e = Grid::with(GridConfig {
                drop,
                ..GridConfig::default()
            })
            .unwrap_err();
            assert!(e.to_string().contains("--drop"), "{e}");
        }
        assert!(Grid::new(0, 5).is_err());
        assert!(Grid::new(u64::MAX, 2).is_err());
    }
}
