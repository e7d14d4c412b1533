//! Colours of `avicontact render`: a fixed palette for bodies, muted grey for obstacles, Lambert
//! shading under a light fixed to the camera, and depth cueing (farther is paler).

use super::camera::Basis;
use crate::math::{Real, Vec3};

/// An opaque colour, each channel in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rgb(pub [Real; 3]);

impl Rgb {
    /// From 8-bit channels.
    pub const fn from_u8(r: u8, g: u8, b: u8) -> Rgb {
        Rgb([r as Real / 255.0, g as Real / 255.0, b as Real / 255.0])
    }

    /// Each channel times `k`.
    pub fn scaled(self, k: Real) -> Rgb {
        Rgb(self.0.map(|c| (c * k).clamp(0.0, 1.0)))
    }

    /// `self` moved the fraction `t` of the way to `other`.
    pub fn mix(self, other: Rgb, t: Real) -> Rgb {
        Rgb(std::array::from_fn(|k| (self.0[k] + (other.0[k] - self.0[k]) * t).clamp(0.0, 1.0)))
    }

    /// 8-bit channels, rounded.
    pub fn to_u8(self) -> [u8; 3] {
        self.0.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)
    }
}

/// The image's background.
pub const BACKGROUND: Rgb = Rgb::from_u8(247, 247, 244);

/// Obstacles: a light neutral grey, so the bodies stand out against them.
pub const OBSTACLE: Rgb = Rgb::from_u8(176, 176, 172);

/// Body colours in body order (Tableau 10, without its grey), repeated past the tenth body.
pub const PALETTE: [Rgb; 9] = [
    Rgb::from_u8(78, 121, 167),  // blue
    Rgb::from_u8(242, 142, 43),  // orange
    Rgb::from_u8(89, 161, 79),   // green
    Rgb::from_u8(225, 87, 89),   // red
    Rgb::from_u8(176, 122, 161), // purple
    Rgb::from_u8(118, 183, 178), // teal
    Rgb::from_u8(237, 201, 72),  // yellow
    Rgb::from_u8(156, 117, 95),  // brown
    Rgb::from_u8(255, 157, 167), // pink
];

/// The colour of the `k`-th body that moves (obstacles take [`OBSTACLE`]).
pub fn body_colour(k: usize) -> Rgb {
    PALETTE[k % PALETTE.len()]
}

/// Light that does not depend on the surface's orientation.
const AMBIENT: Real = 0.45;
/// The brightness of a surface facing the light: a little over 1, so the palette's mid-tones
/// reach their light shades there (channels saturate at 1).
const FULL: Real = 1.15;
/// How much paler the farthest part of the scene is than the nearest (mixed towards the background).
const DEPTH_CUE: Real = 0.3;

/// The direction light comes from, fixed to the camera: from the upper left, in front.
pub fn light(basis: &Basis) -> Vec3 {
    (-0.35 * basis.right + 0.6 * basis.up + 0.72 * basis.toward).normalize()
}

/// The Lambert brightness, in [`AMBIENT`, `FULL`], of a surface with normal `normal` (either side: it
/// is turned towards the camera first) under `light`; 1 for a zero normal (a degenerate triangle).
pub fn lambert(normal: &Vec3, basis: &Basis, light: &Vec3) -> Real {
    let n = normal.try_normalize(0.0).unwrap_or(Vec3::zeros());
    if n == Vec3::zeros() {
        return 1.0;
    }
    let facing = if n.dot(&basis.toward) < 0.0 { -n } else { n };
    AMBIENT + (FULL - AMBIENT) * facing.dot(light).max(0.0)
}

/// `colour` paled towards the background by `farness` (0 nearest, 1 farthest).
pub fn depth_cued(colour: Rgb, farness: Real) -> Rgb {
    colour.mix(BACKGROUND, DEPTH_CUE * farness)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::camera::View;

    #[test]
    fn a_surface_facing_the_light_is_brighter_than_one_edge_on_and_either_side_is_lit_alike() {
        let basis = View::default().basis();
        let l = light(&basis);
        let facing = lambert(&basis.toward, &basis, &l);
        assert!(facing > lambert(&basis.right, &basis, &l));
        assert_eq!(facing, lambert(&-basis.toward, &basis, &l));
        assert!((lambert(&l, &basis, &l) - FULL).abs() < 1e-12);
        assert_eq!(lambert(&Vec3::zeros(), &basis, &l), 1.0);
    }

    #[test]
    fn depth_cueing_pales_towards_the_background() {
        let c = body_colour(0);
        assert_eq!(depth_cued(c, 0.0), c);
        assert_eq!(depth_cued(c, 1.0), c.mix(BACKGROUND, DEPTH_CUE));
    }
}
