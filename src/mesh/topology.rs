//! Mesh topology: unique edges and hinges (pairs of triangles sharing an edge).

use std::collections::BTreeMap;

/// The four vertices of a hinge: the shared edge `(e0, e1)`, then the vertex opposite it in the
/// first triangle and in the second. This is the stencil order of the discrete-shells bending
/// potential (Grinspun et al. 2003).
pub type HingeStencil = [u32; 4];

/// Unique undirected edges of `triangles`, each as `[min, max]`, in sorted order.
pub fn edges(triangles: &[[u32; 3]]) -> Vec<[u32; 2]> {
    let mut e: Vec<[u32; 2]> = triangles
        .iter()
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .map(|(a, b)| [a.min(b), a.max(b)])
        .collect();
    e.sort_unstable();
    e.dedup();
    e
}

/// Hinges of a manifold triangle mesh, in sorted order of their shared edge. The shared edge is
/// ordered as it runs in the first triangle, so both triangles keep their orientation. Edges with
/// more than two triangles (non-manifold) get a hinge for each consecutive pair.
pub fn hinges(triangles: &[[u32; 3]]) -> Vec<HingeStencil> {
    // directed edge (a, b) of triangle t with opposite vertex c, grouped by undirected edge
    let mut by_edge: BTreeMap<[u32; 2], Vec<(u32, u32, u32)>> = BTreeMap::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b, c) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
            by_edge.entry([a.min(b), a.max(b)]).or_default().push((a, b, c));
        }
    }
    by_edge.values().flat_map(|sides| sides.windows(2).map(|w| [w[0].0, w[0].1, w[0].2, w[1].2])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_triangles_share_one_hinge() {
        let tris = [[0, 1, 2], [1, 0, 3]];
        assert_eq!(edges(&tris).len(), 5);
        assert_eq!(hinges(&tris), vec![[0, 1, 2, 3]]);
    }
}
