//! Triangles in pixel coordinates onto an image, by euc's rasteriser with a depth buffer (the
//! nearest surface wins at every sample, however triangles overlap), each triangle in one flat
//! colour, on a supersampled canvas that is then averaged down, so edges are smooth.

use crate::math::Real;
use euc::buffer::Buffer2d;
use euc::rasterizer::{BackfaceCullingDisabled, Triangles};
use euc::{Pipeline, Target};

/// A triangle to draw: its corners in pixels (x right, y down) with their depth (larger is nearer
/// the camera), and its (shaded) colour.
#[derive(Clone, Debug, PartialEq)]
pub struct Triangle {
    /// (x, y, depth) of each corner.
    pub corners: [(Real, Real, Real); 3],
    /// 8-bit RGB.
    pub colour: [u8; 3],
}

/// An opaque 8-bit RGBA image, row by row from the top left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// `4 · width · height` bytes: red, green, blue, alpha (always 255).
    pub rgba: Vec<u8>,
}

impl Image {
    /// The RGB of pixel (x, y), if inside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let k = 4 * (y as usize * self.width as usize + x as usize);
        Some([self.rgba[k], self.rgba[k + 1], self.rgba[k + 2]])
    }
}

/// Coordinates beyond this many pixels from the image are clamped (a blown-up run stays drawable).
const FAR_OFF: Real = 1e6;

/// Samples per pixel along each axis: 3 (9 per pixel) up to a megapixel, 2 above.
fn supersampling(width: u32, height: u32) -> u32 {
    if u64::from(width) * u64::from(height) <= 1 << 20 {
        3
    } else {
        2
    }
}

/// One flat-coloured triangle through euc: its vertices are (x, y) on the canvas and the depth
/// buffer's value (smaller is nearer), mapped to euc's normalised device coordinates.
struct Flat {
    colour: [u8; 3],
    /// 2 / canvas width and 2 / canvas height.
    to_ndc: (f32, f32),
}

impl Pipeline for Flat {
    type Vertex = [f32; 3];
    type VsOut = ();
    type Pixel = [u8; 3];

    fn vert(&self, v: &[f32; 3]) -> ([f32; 4], ()) {
        ([v[0] * self.to_ndc.0 - 1.0, 1.0 - v[1] * self.to_ndc.1, v[2], 1.0], ())
    }

    fn frag(&self, _: &()) -> [u8; 3] {
        self.colour
    }
}

/// Draws `triangles` on `background` into a `width` × `height` image, the nearest surface in
/// front at every sample (equal depths: the later triangle). `None` if the canvas cannot be
/// allocated (a zero or huge size).
pub fn draw(triangles: &[Triangle], background: [u8; 3], width: u32, height: u32) -> Option<Image> {
    if width == 0 || height == 0 {
        return None;
    }
    let s = supersampling(width, height);
    let (w, h) = (width.checked_mul(s)? as usize, height.checked_mul(s)? as usize);
    w.checked_mul(h)?.checked_mul(16)?; // colour and depth bytes fit in memory's address space
    let mut colour = Buffer2d::new([w, h], background);
    let mut depth = Buffer2d::new([w, h], f32::INFINITY);
    let k = s as Real;
    let to_ndc = (2.0 / w as f32, 2.0 / h as f32);
    for t in triangles {
        let v = t.corners.map(|(x, y, d)| {
            let at = |c: Real| (c * k).clamp(-FAR_OFF, FAR_OFF) as f32;
            [at(x), at(y), (-d) as f32]
        });
        // euc divides by the projected area: leave out triangles seen exactly edge-on
        let area = (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[1][1] - v[0][1]) * (v[2][0] - v[0][0]);
        if area.abs() <= 1e-6 || !area.is_finite() || v.iter().flatten().any(|c| !c.is_finite()) {
            continue;
        }
        Flat { colour: t.colour, to_ndc }.draw::<Triangles<'_, Buffer2d<f32>, BackfaceCullingDisabled>, _>(
            &v,
            &mut colour,
            Some(&mut depth),
        );
    }
    Some(average_down(colour.as_ref(), colour.size(), s))
}

/// The canvas reduced by `s` on each axis, each pixel the mean of its `s × s` samples.
fn average_down(canvas: &[[u8; 3]], [w, h]: [usize; 2], s: u32) -> Image {
    let s = s as usize;
    let (width, height) = (w / s, h / s);
    let n = (s * s) as u32;
    let mut rgba = Vec::with_capacity(4 * width * height);
    for y in 0..height {
        for x in 0..width {
            let mut sum = [0u32; 3];
            for dy in 0..s {
                let start = (y * s + dy) * w + x * s;
                for px in &canvas[start..start + s] {
                    for c in 0..3 {
                        sum[c] += u32::from(px[c]);
                    }
                }
            }
            rgba.extend(sum.map(|v| ((v + n / 2) / n) as u8));
            rgba.push(255);
        }
    }
    Image { width: width as u32, height: height as u32, rgba }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BG: [u8; 3] = [250, 250, 250];
    const RED: [u8; 3] = [200, 30, 30];
    const BLUE: [u8; 3] = [30, 30, 200];

    /// Signed distance, pixels, of (x, y) inside the triangle's edges (positive inside).
    fn inside_by(corners: &[(f64, f64); 3], x: f64, y: f64) -> f64 {
        let orientation = {
            let [a, b, c] = corners;
            ((b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)).signum()
        };
        (0..3)
            .map(|i| {
                let (a, b) = (corners[i], corners[(i + 1) % 3]);
                orientation * ((b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0)) / (b.0 - a.0).hypot(b.1 - a.1)
            })
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn a_triangle_covers_the_pixels_inside_its_outline_and_none_outside() {
        let corners = [(10.0, 10.0), (90.0, 20.0), (30.0, 70.0)];
        let t = Triangle { corners: corners.map(|(x, y)| (x, y, 0.0)), colour: RED };
        let image = draw(&[t], BG, 100, 80).unwrap();
        let (mut seen_in, mut seen_out) = (0, 0);
        for y in 0..80 {
            for x in 0..100 {
                let d = inside_by(&corners, x as f64 + 0.5, y as f64 + 0.5);
                let p = image.pixel(x, y).unwrap();
                if d > 1.0 {
                    assert_eq!(p, RED, "({x}, {y}) inside");
                    seen_in += 1;
                } else if d < -1.0 {
                    assert_eq!(p, BG, "({x}, {y}) outside");
                    seen_out += 1;
                }
            }
        }
        assert!(seen_in > 1000 && seen_out > 4000, "{seen_in} {seen_out}");
    }

    #[test]
    fn the_nearer_surface_is_in_front_whatever_the_order_and_however_the_triangles_cross() {
        let square = |colour, depth: [f64; 4]| {
            [
                Triangle { corners: [(0.0, 0.0, depth[0]), (20.0, 0.0, depth[1]), (0.0, 20.0, depth[2])], colour },
                Triangle { corners: [(20.0, 0.0, depth[1]), (20.0, 20.0, depth[3]), (0.0, 20.0, depth[2])], colour },
            ]
        };
        for near_first in [false, true] {
            let (near, far) = (square(RED, [1.0; 4]), square(BLUE, [-1.0; 4]));
            let all = if near_first { [near, far].concat() } else { [far, near].concat() };
            let image = draw(&all, BG, 20, 20).unwrap();
            // the nearer square everywhere: no seam of background or blue along its diagonal
            assert!((0..20).all(|y| (0..20).all(|x| image.pixel(x, y) == Some(RED))));
        }
        // two squares that cross: red in front on the left (x < 10), blue on the right
        let crossing = [square(RED, [1.0, -1.0, 1.0, -1.0]), square(BLUE, [-1.0, 1.0, -1.0, 1.0])].concat();
        let image = draw(&crossing, BG, 20, 20).unwrap();
        assert_eq!(image.pixel(3, 10), Some(RED));
        assert_eq!(image.pixel(16, 10), Some(BLUE));
    }

    #[test]
    fn drawing_is_deterministic_and_edge_on_or_far_off_triangles_are_harmless() {
        let triangles = [
            Triangle { corners: [(0.0, 0.0, 0.0), (10.0, 10.0, 0.0), (20.0, 20.0, 0.0)], colour: RED },
            Triangle { corners: [(-1e30, 0.0, 0.0), (1e30, 5.0, 0.0), (0.0, 1e30, 0.0)], colour: BLUE },
            Triangle { corners: [(2.0, 2.0, 5.0), (30.0, 4.0, 5.0), (6.0, 30.0, 5.0)], colour: RED },
        ];
        let a = draw(&triangles, BG, 40, 40).unwrap();
        assert_eq!(a, draw(&triangles, BG, 40, 40).unwrap());
        assert_eq!(a.pixel(8, 8), Some(RED));
        assert!(draw(&triangles, BG, 0, 40).is_none());
    }
}
