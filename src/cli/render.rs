//! `avicontact render DIR`: a PNG per frame of a run and an animated GIF, in `DIR/render/` or
//! `--out`.

use super::bad_input;
use avicontact::render::{render_run, RenderError, RenderOptions, View, MAX_SIDE, MIN_SIDE};
use std::path::Path;
use std::process::ExitCode;

/// Renders the run in `dir` and prints the directory written and what is in it.
pub fn render(dir: &Path, out: Option<&Path>, options: &RenderOptions) -> ExitCode {
    match render_run(dir, out, options) {
        Ok(report) => {
            println!(
                "{}: {} of {} frames drawn as frame_*.png, and {}",
                report.out.display(),
                report.images.len(),
                report.frames,
                report.animation.display()
            );
            ExitCode::SUCCESS
        }
        // a missing run or an unreadable frame is bad input; failing to write the images is not
        Err(e @ RenderError::Write(_)) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
        Err(e) => bad_input(e),
    }
}

/// `--view AZIMUTH,ELEVATION` in degrees: the azimuth any finite angle, the elevation from −90 to 90.
pub fn parse_view(text: &str) -> Result<View, String> {
    let usage = || format!("expected AZIMUTH,ELEVATION in degrees (e.g. -60,25), got {text:?}");
    let (azimuth, elevation) = text.split_once(',').ok_or_else(usage)?;
    let azimuth_deg: f64 = azimuth.trim().parse().map_err(|_| usage())?;
    let elevation_deg: f64 = elevation.trim().parse().map_err(|_| usage())?;
    if !azimuth_deg.is_finite() || !(-90.0..=90.0).contains(&elevation_deg) {
        return Err(format!("the azimuth must be finite and the elevation from -90 to 90 degrees, got {text:?}"));
    }
    Ok(View { azimuth_deg, elevation_deg })
}

/// `--size WIDTHxHEIGHT` in pixels, each side from [`MIN_SIDE`] to [`MAX_SIDE`].
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let usage = || format!("expected WIDTHxHEIGHT in pixels (e.g. 640x480), got {text:?}");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(usage)?;
    let (w, h): (u32, u32) = (w.trim().parse().map_err(|_| usage())?, h.trim().parse().map_err(|_| usage())?);
    if ![w, h].iter().all(|s| (MIN_SIDE..=MAX_SIDE).contains(s)) {
        return Err(format!("each side must be {MIN_SIDE} to {MAX_SIDE} pixels, got {text:?}"));
    }
    Ok((w, h))
}

/// `--around X,Y,Z,R` in metres: a finite centre and a radius > 0.
pub fn parse_around(text: &str) -> Result<([f64; 3], f64), String> {
    let usage = || format!("expected X,Y,Z,R in metres (e.g. 0,0,0.01,0.02), got {text:?}");
    let values: Vec<f64> = text.split(',').map(|v| v.trim().parse().map_err(|_| usage())).collect::<Result<_, _>>()?;
    let [x, y, z, r] = values[..] else { return Err(usage()) };
    if !([x, y, z].iter().all(|c| c.is_finite()) && r.is_finite() && r > 0.0) {
        return Err(format!("the centre must be finite and the radius a number > 0, got {text:?}"));
    }
    Ok(([x, y, z], r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_and_sizes_parse_and_bad_ones_are_explained() {
        assert_eq!(parse_view("30,-10").unwrap(), View { azimuth_deg: 30.0, elevation_deg: -10.0 });
        assert!(parse_view("30").unwrap_err().contains("AZIMUTH,ELEVATION"));
        assert!(parse_view("30,91").unwrap_err().contains("-90 to 90"));
        assert_eq!(parse_size("320x240").unwrap(), (320, 240));
        assert!(parse_size("320").unwrap_err().contains("WIDTHxHEIGHT"));
        assert!(parse_size("8x8").unwrap_err().contains("16 to 4096"));
        assert_eq!(parse_around("-0.1,0,2e-2,0.05").unwrap(), ([-0.1, 0.0, 0.02], 0.05));
        assert!(parse_around("0,0,0").unwrap_err().contains("X,Y,Z,R"));
        assert!(parse_around("0,0,0,0").unwrap_err().contains("radius a number > 0"));
        assert!(parse_around("0,nan,0,1").unwrap_err().contains("finite"));
    }
}
