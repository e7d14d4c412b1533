//! The kinetic hash grid (Phantom §4, after Teschner et al. 2003): space is cut into cubic cells,
//! only occupied cells are stored, in a hash map. An item (a contact primitive) is listed in every
//! cell of the box of cells its region touches, so items whose regions overlap share a cell and
//! find each other by lookup. What the regions are, their certificates and what sharing a cell
//! means are the broad phase's business (`avi/broad_phase.rs`).
//!
//! The map is only ever looked up, never iterated, so its hashing order cannot leak into the
//! simulation; its hasher is fixed, so its capacity is the same on every run (law 6).

use crate::math::{Real, Vec3};
use std::collections::HashMap;

/// A hash map with a fixed hasher: its layout, and so its capacity, is the same on every run
/// (law 6 covers the memory figures in `summary.json` too). The hasher is rustc's FxHash: the
/// keys are a few integers, where it costs a fraction of std's SipHash, whose guard against
/// keys chosen to collide is not needed for a simulation's own cell and pair indices.
pub type FixedHashMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;

/// Integer coordinates of a cell: the cell `[i·c, (i + 1)·c)` on each axis for cell size c (its
/// bounds up to the round-off of x·(1/c): see [`HashGrid::cover`]).
pub type Cell = [i32; 3];

/// An inclusive box of cells, `lo ..= hi` on each axis.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellBox {
    /// Lowest cell.
    pub lo: Cell,
    /// Highest cell.
    pub hi: Cell,
}

impl CellBox {
    /// True if the two boxes share a cell.
    pub fn overlaps(&self, other: &CellBox) -> bool {
        (0..3).all(|i| self.lo[i] <= other.hi[i] && other.lo[i] <= self.hi[i])
    }

    /// True if `cell` is in the box.
    pub fn contains(&self, cell: &Cell) -> bool {
        (0..3).all(|i| self.lo[i] <= cell[i] && cell[i] <= self.hi[i])
    }

    /// Number of cells.
    pub fn len(&self) -> u64 {
        (0..3).map(|i| (self.hi[i] as i64 - self.lo[i] as i64 + 1) as u64).product()
    }

    /// False: a box always holds at least one cell.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Every cell, in lexicographic order.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (self.lo[0]..=self.hi[0]).flat_map(move |i| {
            (self.lo[1]..=self.hi[1]).flat_map(move |j| (self.lo[2]..=self.hi[2]).map(move |k| [i, j, k]))
        })
    }
}

/// The occupied cells of a uniform grid and which items cover each.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub struct HashGrid {
    cell_size: Real,
    cells: FixedHashMap<Cell, Vec<u32>>,
}

impl HashGrid {
    /// An empty grid of cubic cells of side `cell_size` (> 0), m.
    pub fn new(cell_size: Real) -> Self {
        assert!(cell_size.is_finite() && cell_size > 0.0, "cell size must be finite and positive, got {cell_size}");
        HashGrid { cell_size, cells: FixedHashMap::default() }
    }

    /// The cell side, m.
    pub fn cell_size(&self) -> Real {
        self.cell_size
    }

    /// Number of occupied cells.
    pub fn occupied_cells(&self) -> usize {
        self.cells.len()
    }

    /// The cell holding coordinate `x` on one axis, given `inverse` = 1/c (clamped to the
    /// representable range): the floor of x·(1/c), taken by truncating and stepping down where
    /// truncation rounded up (the same integer as `floor`, which the baseline x86-64 target calls
    /// out to libm for).
    fn index(x: Real, inverse: Real) -> i32 {
        let q = (x * inverse).clamp(i32::MIN as Real + 1.0, i32::MAX as Real - 1.0);
        let truncated = q as i32;
        truncated - i32::from(Real::from(truncated) > q)
    }

    /// The box of cells that covers the axis-aligned box `lo ..= hi`: each coordinate is
    /// multiplied by one reciprocal of the cell size rather than divided six times. The map from
    /// coordinate to cell is monotone, so two boxes that overlap still share a cell.
    pub fn cover(&self, lo: &Vec3, hi: &Vec3) -> CellBox {
        let inverse = 1.0 / self.cell_size;
        let index = |x| Self::index(x, inverse);
        CellBox { lo: [index(lo.x), index(lo.y), index(lo.z)], hi: [index(hi.x), index(hi.y), index(hi.z)] }
    }

    /// The region of space a cell box covers: `(lo, hi)` corners, m.
    pub fn bounds(&self, cells: &CellBox) -> (Vec3, Vec3) {
        let c = self.cell_size;
        let lo = Vec3::new(cells.lo[0] as Real, cells.lo[1] as Real, cells.lo[2] as Real) * c;
        let hi = Vec3::new(cells.hi[0] as Real + 1.0, cells.hi[1] as Real + 1.0, cells.hi[2] as Real + 1.0) * c;
        (lo, hi)
    }

    /// Records that `item` covers every cell of `cells`.
    pub fn insert(&mut self, item: u32, cells: &CellBox) {
        for cell in cells.cells() {
            self.cells.entry(cell).or_default().push(item);
        }
    }

    /// Removes `item` from every cell of `cells` (dropping cells left empty).
    pub fn remove(&mut self, item: u32, cells: &CellBox) {
        for cell in cells.cells() {
            if let Some(items) = self.cells.get_mut(&cell) {
                if let Some(at) = items.iter().position(|&i| i == item) {
                    items.swap_remove(at);
                }
                if items.is_empty() {
                    self.cells.remove(&cell);
                }
            }
        }
    }

    /// Heap bytes held, estimated from capacities (each map entry: its key and list header plus a
    /// control byte, at the map's capacity; each list: its items' capacity).
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<Cell>() + std::mem::size_of::<Vec<u32>>() + 1;
        self.cells.capacity() * entry + self.cells.values().map(|v| v.capacity() * 4).sum::<usize>()
    }

    /// The items covering `cell` (in no particular order).
    pub fn occupants(&self, cell: &Cell) -> &[u32] {
        self.cells.get(cell).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_covers_the_cells_its_corners_fall_in() {
        let grid = HashGrid::new(0.5);
        let cells = grid.cover(&Vec3::new(-0.1, 0.0, 0.49), &Vec3::new(0.6, 0.2, 0.51));
        assert_eq!(cells, CellBox { lo: [-1, 0, 0], hi: [1, 0, 1] });
        assert_eq!(cells.len(), 6);
        assert_eq!(cells.cells().count(), 6);
        let (lo, hi) = grid.bounds(&cells);
        assert_eq!((lo, hi), (Vec3::new(-0.5, 0.0, 0.0), Vec3::new(1.0, 0.5, 1.0)));
    }

    #[test]
    fn a_cell_index_is_the_floor_of_the_coordinate_times_the_inverse_cell_size() {
        let inverse = 1.0 / 0.3;
        let by_floor = |x: Real| (x * inverse).floor().clamp(i32::MIN as Real + 1.0, i32::MAX as Real - 1.0) as i32;
        let mut xs = vec![0.0, -0.0, 0.25, -0.25, 0.2499999999999, -0.2500000001, 1e-300, -1e-300, 1e12, -1e12, 1e300];
        xs.extend([-1e300, Real::INFINITY, Real::NEG_INFINITY, Real::NAN, 536870911.75, -536870912.0]);
        xs.extend((-2000..2000).map(|k| k as Real * 0.0371));
        for x in xs {
            assert_eq!(HashGrid::index(x, inverse), by_floor(x), "x = {x}");
        }
    }

    #[test]
    fn removing_the_last_item_frees_the_cell() {
        let mut grid = HashGrid::new(1.0);
        let cells = CellBox { lo: [0, 0, 0], hi: [1, 0, 0] };
        grid.insert(7, &cells);
        grid.insert(8, &CellBox { lo: [1, 0, 0], hi: [1, 0, 0] });
        assert_eq!(grid.occupied_cells(), 2);
        grid.remove(7, &cells);
        assert_eq!(grid.occupied_cells(), 1);
        assert_eq!(grid.occupants(&[1, 0, 0]), &[8]);
        assert!(grid.occupants(&[0, 0, 0]).is_empty());
    }
}
