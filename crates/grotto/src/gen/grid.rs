//! A 2D grid: vertex `r * cols + c` links to its right and lower
//! neighbours. Diameter rows + cols - 2: a stand-in for road networks.

use super::Generator;

/// A rows x cols grid.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Rows.
    pub rows: u64,
    /// Columns.
    pub cols: u64,
}

/// Vertices per chunk: a chunk's edges take at most 32 MiB whatever the
/// shape (a chunk of whole rows of a very wide grid would not).
const VERTICES_PER_CHUNK: u64 = 1 << 20;

impl Grid {
    /// A grid of `rows` x `cols`, checked: both at least 1, and the vertex
    /// and edge counts within u64.
    pub fn new(rows: u64, cols: u64) -> crate::Result<Grid> {
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
        Ok(Grid { rows, cols })
    }
}

impl Generator for Grid {
    fn chunks(&self) -> usize {
        (self.rows * self.cols).div_ceil(VERTICES_PER_CHUNK) as usize
    }
    fn chunk_edges(&self, chunk: usize, out: &mut Vec<(u64, u64)>) {
        let lo = chunk as u64 * VERTICES_PER_CHUNK;
        let hi = (lo + VERTICES_PER_CHUNK).min(self.rows * self.cols);
        for v in lo..hi {
            let (r, c) = (v / self.cols, v % self.cols);
            if c + 1 < self.cols {
                out.push((v, v + 1));
            }
            if r + 1 < self.rows {
                out.push((v, v + self.cols));
            }
        }
    }
    fn edges(&self) -> u64 {
        self.rows * self.cols.saturating_sub(1) + self.rows.saturating_sub(1) * self.cols
    }
    fn vertices(&self) -> u64 {
        self.rows * self.cols
    }
    fn describe(&self) -> String {
        format!("grid {} x {}", self.rows, self.cols)
    }
}
