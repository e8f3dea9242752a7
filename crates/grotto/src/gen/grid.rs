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

const ROWS_PER_CHUNK: u64 = 256;

impl Generator for Grid {
    fn chunks(&self) -> usize {
        self.rows.div_ceil(ROWS_PER_CHUNK) as usize
    }
    fn chunk_edges(&self, chunk: usize, out: &mut Vec<(u64, u64)>) {
        let r0 = chunk as u64 * ROWS_PER_CHUNK;
        for r in r0..(r0 + ROWS_PER_CHUNK).min(self.rows) {
            for c in 0..self.cols {
                let v = r * self.cols + c;
                if c + 1 < self.cols {
                    out.push((v, v + 1));
                }
                if r + 1 < self.rows {
                    out.push((v, v + self.cols));
                }
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
