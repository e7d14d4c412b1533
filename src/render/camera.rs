//! The camera of `avicontact render`: an orthographic view from a direction given by azimuth and
//! elevation, z up (the built-in scenes pull gravity along −z), fitted to everything a run shows.

use crate::math::{Real, Vec3};

/// Where the camera looks from: a direction on the unit sphere around the scene, z up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Degrees about +z from +x (counter-clockwise seen from above): 0 looks from +x towards −x.
    pub azimuth_deg: Real,
    /// Degrees above the xy plane, in [−90, 90]: 90 looks straight down.
    pub elevation_deg: Real,
}

impl Default for View {
    /// A three-quarter view: azimuth −60°, elevation 25° (from +x, −y and above).
    fn default() -> Self {
        View { azimuth_deg: -60.0, elevation_deg: 25.0 }
    }
}

impl View {
    /// The camera's frame: `right` and `up` span the image (x right, y up), `toward` points from the
    /// scene to the camera. Orthonormal and right-handed (`right × up = toward`) for every view,
    /// straight up and down included (there `up` is the azimuth's horizontal direction).
    pub fn basis(&self) -> Basis {
        let (az, el) = (self.azimuth_deg.to_radians(), self.elevation_deg.clamp(-90.0, 90.0).to_radians());
        let toward = Vec3::new(el.cos() * az.cos(), el.cos() * az.sin(), el.sin());
        let right = Vec3::new(-az.sin(), az.cos(), 0.0);
        let up = toward.cross(&right);
        Basis { right, up, toward }
    }
}

/// An orthonormal camera frame (see [`View::basis`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Basis {
    /// Image x, in world coordinates.
    pub right: Vec3,
    /// Image y (upwards on the image), in world coordinates.
    pub up: Vec3,
    /// From the scene towards the camera: larger `p · toward` is nearer.
    pub toward: Vec3,
}

impl Basis {
    /// `p` in camera coordinates: (along `right`, along `up`, along `toward`).
    pub fn coordinates(&self, p: &Vec3) -> Vec3 {
        Vec3::new(p.dot(&self.right), p.dot(&self.up), p.dot(&self.toward))
    }
}

/// The box, in camera coordinates, that holds everything to be drawn: grown point by point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extent {
    /// Smallest camera coordinates seen.
    pub min: Vec3,
    /// Largest camera coordinates seen.
    pub max: Vec3,
}

impl Default for Extent {
    /// Empty: any point grows it to itself.
    fn default() -> Self {
        Extent { min: Vec3::repeat(Real::INFINITY), max: Vec3::repeat(Real::NEG_INFINITY) }
    }
}

impl Extent {
    /// Grows the extent to hold a ball of `radius` about the camera coordinates `c` (0 for a point).
    pub fn grow(&mut self, c: &Vec3, radius: Real) {
        self.min = self.min.inf(&c.add_scalar(-radius));
        self.max = self.max.sup(&c.add_scalar(radius));
    }

    /// The smallest extent that holds both.
    pub fn union(&self, other: &Extent) -> Extent {
        Extent { min: self.min.inf(&other.min), max: self.max.sup(&other.max) }
    }

    /// The part of `self` inside `other` (empty if they do not meet).
    pub fn clipped(&self, other: &Extent) -> Extent {
        let (min, max) = (self.min.sup(&other.min), self.max.inf(&other.max));
        if (0..3).all(|k| min[k] <= max[k]) {
            Extent { min, max }
        } else {
            Extent::default()
        }
    }

    /// The extent grown on every side by `fraction` of its largest side across the image (x or y).
    pub fn widened(&self, fraction: Real) -> Extent {
        if self.is_empty() {
            return *self;
        }
        let side = (self.max.x - self.min.x).max(self.max.y - self.min.y);
        Extent { min: self.min.add_scalar(-fraction * side), max: self.max.add_scalar(fraction * side) }
    }

    /// Whether no point was added.
    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x
    }
}

/// A point on the image: pixel coordinates (x right, y down, the image's top left corner at 0, 0)
/// and depth (larger is nearer the camera).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projected {
    /// Pixels from the left edge.
    pub x: Real,
    /// Pixels from the top edge.
    pub y: Real,
    /// Camera coordinate along `toward`, m.
    pub depth: Real,
}

/// An orthographic camera fitted to an [`Extent`]: the extent's image-plane rectangle is centred
/// and fills the image but for a margin, with the same scale on both axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// The camera frame.
    pub basis: Basis,
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// Pixels per metre.
    pub scale: Real,
    /// Camera coordinates (right, up) drawn at the image's centre.
    centre: (Real, Real),
    /// The depth range of the extent, (farthest, nearest), for depth cueing.
    pub depth_range: (Real, Real),
}

/// The fraction of the image left free at each side.
const MARGIN: Real = 0.06;

impl Camera {
    /// The camera looking along `view` whose image of `width` × `height` pixels holds `extent`
    /// (camera coordinates of that view's basis). An empty or zero-sized extent is shown as a
    /// 1 m square about its centre (or the origin).
    pub fn fit(view: &View, extent: &Extent, width: u32, height: u32) -> Camera {
        let basis = view.basis();
        let (min, max) =
            if extent.is_empty() { (Vec3::repeat(-0.5), Vec3::repeat(0.5)) } else { (extent.min, extent.max) };
        let span = |k: usize| {
            let s = max[k] - min[k];
            if s.is_finite() && s > 1e-12 {
                s
            } else {
                1.0
            }
        };
        let usable = 1.0 - 2.0 * MARGIN;
        let scale = (width as Real * usable / span(0)).min(height as Real * usable / span(1));
        Camera {
            basis,
            width,
            height,
            scale,
            centre: (0.5 * (min.x + max.x), 0.5 * (min.y + max.y)),
            depth_range: (min.z, max.z),
        }
    }

    /// Where the world point `p` falls on the image.
    pub fn project(&self, p: &Vec3) -> Projected {
        let c = self.basis.coordinates(p);
        Projected {
            x: 0.5 * self.width as Real + (c.x - self.centre.0) * self.scale,
            y: 0.5 * self.height as Real - (c.y - self.centre.1) * self.scale,
            depth: c.z,
        }
    }

    /// How far `depth` lies towards the back of the scene: 0 at the nearest depth of the fitted
    /// extent, 1 at the farthest (clamped).
    pub fn farness(&self, depth: Real) -> Real {
        let (far, near) = self.depth_range;
        if near - far > 1e-12 {
            ((near - depth) / (near - far)).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_basis_is_orthonormal_and_right_handed_for_every_view() {
        for (az, el) in [(0.0, 0.0), (-60.0, 25.0), (45.0, 90.0), (200.0, -90.0), (10.0, -30.0)] {
            let b = View { azimuth_deg: az, elevation_deg: el }.basis();
            for (u, v) in [(b.right, b.up), (b.up, b.toward), (b.toward, b.right)] {
                assert!(u.dot(&v).abs() < 1e-12 && (u.norm() - 1.0).abs() < 1e-12);
            }
            assert!((b.right.cross(&b.up) - b.toward).norm() < 1e-12, "{az} {el}");
            if el.abs() < 90.0 {
                assert!(b.up.z > 0.0, "z is up on the image");
            }
        }
    }

    #[test]
    fn a_fitted_camera_projects_the_bounding_box_inside_the_image() {
        let view = View::default();
        let corners: Vec<Vec3> = (0..8)
            .map(|k| Vec3::new([-1.0, 3.0][k & 1], [0.5, 0.7][(k >> 1) & 1], [-2.0, 10.0][(k >> 2) & 1]))
            .collect();
        let mut extent = Extent::default();
        for p in &corners {
            extent.grow(&view.basis().coordinates(p), 0.0);
        }
        let camera = Camera::fit(&view, &extent, 320, 240);
        let (mut lo, mut hi) = ((f64::INFINITY, f64::INFINITY), (f64::NEG_INFINITY, f64::NEG_INFINITY));
        for p in &corners {
            let q = camera.project(p);
            assert!(q.x >= 0.0 && q.x <= 320.0 && q.y >= 0.0 && q.y <= 240.0, "{q:?}");
            lo = (lo.0.min(q.x), lo.1.min(q.y));
            hi = (hi.0.max(q.x), hi.1.max(q.y));
        }
        // fills the image on its tighter axis, but for the margin, and is centred on both
        let margin = MARGIN * 240.0;
        assert!((lo.1 - margin).abs() < 1e-9 && (hi.1 - (240.0 - margin)).abs() < 1e-9, "{lo:?} {hi:?}");
        assert!(((lo.0 + hi.0) / 2.0 - 160.0).abs() < 1e-9);
        // the nearest corner is at farness 0, the farthest at 1
        let depths: Vec<f64> = corners.iter().map(|p| camera.project(p).depth).collect();
        let nearest = depths.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(camera.farness(nearest), 0.0);
        assert_eq!(camera.farness(depths.iter().cloned().fold(f64::INFINITY, f64::min)), 1.0);
    }

    #[test]
    fn extents_unite_clip_and_widen() {
        let mut a = Extent::default();
        a.grow(&Vec3::zeros(), 1.0);
        let mut b = Extent::default();
        b.grow(&Vec3::new(10.0, 0.0, 0.0), 1.0);
        assert_eq!(a.union(&b), Extent { min: Vec3::repeat(-1.0), max: Vec3::new(11.0, 1.0, 1.0) });
        assert!(a.clipped(&b).is_empty());
        assert_eq!(a.union(&b).clipped(&a), a);
        assert_eq!(a.widened(0.5), Extent { min: Vec3::repeat(-2.0), max: Vec3::repeat(2.0) });
        assert!(Extent::default().union(&Extent::default()).is_empty());
    }

    #[test]
    fn an_empty_or_flat_extent_still_gives_a_finite_camera() {
        let mut flat = Extent::default();
        flat.grow(&Vec3::new(1.0, 2.0, 3.0), 0.0);
        for extent in [Extent::default(), flat] {
            let camera = Camera::fit(&View::default(), &extent, 100, 100);
            assert!(camera.scale.is_finite() && camera.scale > 0.0);
            assert!(camera.project(&Vec3::new(1.0, 2.0, 3.0)).x.is_finite());
        }
    }
}
