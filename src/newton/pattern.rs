//! The sparsity of a Newton system: a compressed-column pattern of 3 × 3 blocks, one block row and
//! column per free vertex, with a block wherever a stencil couples two free vertices. Built once
//! from a problem's stencils ([`AssemblyCache`] keeps it across iterations and steps), each
//! Hessian is summed into it in place: no triplets to sort, and the same pattern every time, so
//! the sparse Cholesky's symbolic analysis (its fill-reducing ordering and elimination tree) is
//! made once per problem, not once per factorisation (issue 21: "a symbolic factorisation kept
//! across steps", for both backends; A-search §5, Phantom §4).

use super::KeptFactor;
use crate::math::Real;
use nalgebra_sparse::CscMatrix;
use std::sync::Arc;

/// Which 3 × 3 blocks of an n-block symmetric matrix may be nonzero, and where each of their
/// entries sits in the compressed-column arrays. Every block is stored whole (both triangles), so
/// the matrix is the full symmetric one that the linear solvers read.
#[derive(Debug, PartialEq)]
pub struct BlockPattern {
    /// For each block column (and one past the last), where its block rows start in `block_rows`.
    block_offsets: Vec<usize>,
    /// Each block column's block rows, increasing; the diagonal block is always there.
    block_rows: Vec<u32>,
    /// The scalar matrix's column offsets (3 columns per block column).
    column_offsets: Vec<usize>,
    /// The scalar matrix's row indices, increasing within each column.
    row_indices: Vec<usize>,
}

impl BlockPattern {
    /// The pattern of `blocks` free vertices with the diagonal blocks and, for each stencil (the
    /// free-vertex indices of one potential), a block for every pair of its vertices.
    pub fn new<'s>(blocks: usize, stencils: impl IntoIterator<Item = &'s [usize]>) -> Self {
        let diagonal = (0..blocks as u64).map(|k| (k << 32) | k).collect();
        Self::with_keys(blocks, diagonal, stencils)
    }

    /// The pattern of the blocks `keys` ((column << 32) | row, in any order) and of every pair of
    /// each stencil's vertices.
    fn with_keys<'s>(blocks: usize, mut keys: Vec<u64>, stencils: impl IntoIterator<Item = &'s [usize]>) -> Self {
        for stencil in stencils {
            for &column in stencil {
                keys.extend(stencil.iter().map(|&row| ((column as u64) << 32) | row as u64));
            }
        }
        // (column, row) of every block, sorted and without repeats
        keys.sort_unstable();
        keys.dedup();
        let mut block_offsets = vec![0; blocks + 1];
        for &key in &keys {
            block_offsets[(key >> 32) as usize + 1] += 1;
        }
        for k in 0..blocks {
            block_offsets[k + 1] += block_offsets[k];
        }
        let block_rows: Vec<u32> = keys.iter().map(|&key| key as u32).collect();
        let mut column_offsets = Vec::with_capacity(3 * blocks + 1);
        let mut row_indices = Vec::with_capacity(9 * keys.len());
        column_offsets.push(0);
        for column in 0..blocks {
            let rows = &block_rows[block_offsets[column]..block_offsets[column + 1]];
            for _ in 0..3 {
                row_indices.extend(rows.iter().flat_map(|&r| (0..3).map(move |i| 3 * r as usize + i)));
                column_offsets.push(row_indices.len());
            }
        }
        BlockPattern { block_offsets, block_rows, column_offsets, row_indices }
    }

    /// The number of block columns (free vertices).
    pub fn blocks(&self) -> usize {
        self.block_offsets.len() - 1
    }

    /// The number of stored scalar entries.
    pub fn stored(&self) -> usize {
        self.row_indices.len()
    }

    /// Where block (`row`, `column`) starts within each of its scalar columns (its entry (i, j)
    /// is at `column_offsets[3·column + j] + at + i`), if the pattern has it.
    fn block_at(&self, row: usize, column: usize) -> Option<usize> {
        let rows = &self.block_rows[self.block_offsets[column]..self.block_offsets[column + 1]];
        rows.binary_search(&(row as u32)).ok().map(|position| 3 * position)
    }

    /// True if every pair of every stencil's vertices has its block.
    pub fn covers<'s>(&self, stencils: impl IntoIterator<Item = &'s [usize]>) -> bool {
        stencils.into_iter().all(|s| s.iter().all(|&c| s.iter().all(|&r| self.block_at(r, c).is_some())))
    }

    /// This pattern with the blocks of further `stencils` added.
    pub fn with<'s>(&self, stencils: impl IntoIterator<Item = &'s [usize]>) -> Self {
        let mine = (0..self.blocks())
            .flat_map(|c| {
                let rows = &self.block_rows[self.block_offsets[c]..self.block_offsets[c + 1]];
                rows.iter().map(move |&r| ((c as u64) << 32) | r as u64)
            })
            .collect();
        BlockPattern::with_keys(self.blocks(), mine, stencils)
    }

    /// Adds `scale` times the 3 × 3 block `value(i, j)` at block (`row`, `column`) of `values`
    /// (the matrix's stored entries, in this pattern's order).
    ///
    /// # Panics
    /// If the pattern has no such block (a caller's bug: the pattern is built from the stencils
    /// assembled into it).
    pub fn add_block(&self, values: &mut [Real], row: usize, column: usize, value: impl Fn(usize, usize) -> Real) {
        let at = self.block_at(row, column).expect("the pattern holds every stencil's blocks");
        for j in 0..3 {
            let start = self.column_offsets[3 * column + j] + at;
            for (i, entry) in values[start..start + 3].iter_mut().enumerate() {
                *entry += value(i, j);
            }
        }
    }

    /// The matrix with this pattern and the stored entries `values`.
    pub fn matrix(&self, values: Vec<Real>) -> CscMatrix<Real> {
        let n = 3 * self.blocks();
        CscMatrix::try_from_csc_data(n, n, self.column_offsets.clone(), self.row_indices.clone(), values)
            .expect("a block pattern is a valid compressed-column pattern")
    }
}

/// What the Newton solves of one problem keep from one iteration and step to the next: the
/// Hessian's block pattern (for the map of free vertices it was built for) and, for sparse
/// Cholesky, the symbolic analysis of that pattern. The synchronous backend keeps one for its
/// run, each phantom body one of its own. It changes no result's bits: the same entries are summed
/// in the same order, and the analysis is that of the same pattern.
#[derive(Debug, Default)]
pub struct AssemblyCache {
    pattern: Option<(Vec<Option<usize>>, Arc<BlockPattern>)>,
    /// The symbolic analysis, kept by a factor that is itself never kept.
    pub(super) analysis: KeptFactor,
}

impl AssemblyCache {
    /// The block pattern of the stencils `stencils` (each potential's free-vertex indices) for
    /// the free map `free`: the kept one if it was built for the same map, else a new one.
    pub(super) fn pattern(
        &mut self,
        free: &[Option<usize>],
        blocks: usize,
        stencils: impl FnOnce() -> Vec<smallvec::SmallVec<[usize; 4]>>,
    ) -> Arc<BlockPattern> {
        match &self.pattern {
            Some((kept_free, pattern)) if kept_free == free => pattern.clone(),
            _ => {
                let stencils = stencils();
                let pattern = Arc::new(BlockPattern::new(blocks, stencils.iter().map(|s| &s[..])));
                self.pattern = Some((free.to_vec(), pattern.clone()));
                pattern
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_has_the_diagonal_and_each_stencil_s_pairs_and_nothing_else() {
        let pattern = BlockPattern::new(4, [&[0, 2][..], &[2, 3][..]]);
        let dense = pattern.matrix(vec![1.0; pattern.stored()]);
        for r in 0..4 {
            for c in 0..4 {
                let expected = r == c || matches!((r.min(c), r.max(c)), (0, 2) | (2, 3));
                for (i, j) in [(0, 0), (2, 1), (1, 2)] {
                    let stored = dense.get_entry(3 * r + i, 3 * c + j).is_some_and(|e| e.into_value() == 1.0);
                    assert_eq!(stored, expected, "block ({r}, {c})");
                }
            }
        }
        assert!(pattern.covers([&[2, 0][..]]));
        assert!(!pattern.covers([&[0, 3][..]]));
        assert!(pattern.with([&[0, 3][..]]).covers([&[0, 3][..], &[0, 2][..]]));
    }

    #[test]
    fn blocks_land_where_a_dense_sum_puts_them() {
        let pattern = BlockPattern::new(3, [&[0, 1][..], &[1, 2][..]]);
        let mut values = vec![0.0; pattern.stored()];
        let mut dense = nalgebra::DMatrix::<Real>::zeros(9, 9);
        for (n, (r, c)) in [(0, 1), (1, 0), (1, 1), (2, 2), (1, 1), (2, 1)].into_iter().enumerate() {
            let block = |i: usize, j: usize| (n * 9 + i * 3 + j) as Real + 0.5;
            pattern.add_block(&mut values, r, c, block);
            for i in 0..3 {
                for j in 0..3 {
                    dense[(3 * r + i, 3 * c + j)] += block(i, j);
                }
            }
        }
        let sparse = nalgebra::DMatrix::from(&pattern.matrix(values));
        assert_eq!(sparse, dense);
    }
}
