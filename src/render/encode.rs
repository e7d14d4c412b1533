//! Images to files: PNG by the `png` crate, the animated GIF by the `gif` crate (NeuQuant
//! colour quantisation, a palette per frame). Both are deterministic: the same image gives the
//! same bytes.

use super::raster::Image;
use std::io::{self, Write};

/// `image` as PNG bytes (8-bit RGBA).
pub fn png_bytes(image: &Image) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(io::Error::other)?;
    writer.write_image_data(&image.rgba).map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)?;
    Ok(bytes)
}

/// Decodes PNG bytes as [`png_bytes`] writes them (8-bit RGBA); for tests and tools.
pub fn decode_png(bytes: &[u8]) -> io::Result<Image> {
    let mut reader = png::Decoder::new(bytes).read_info().map_err(io::Error::other)?;
    let mut rgba = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut rgba).map_err(io::Error::other)?;
    if (info.color_type, info.bit_depth) != (png::ColorType::Rgba, png::BitDepth::Eight) {
        return Err(io::Error::other("not an 8-bit RGBA PNG"));
    }
    rgba.truncate(info.buffer_size());
    Ok(Image { width: info.width, height: info.height, rgba })
}

/// NeuQuant's sampling: 1 best and slowest, 30 fastest; 10 is the `gif` crate's recommendation.
const QUANTISATION_SPEED: i32 = 10;

/// An animated GIF being written frame by frame, looping for ever.
pub struct GifWriter<W: Write> {
    encoder: gif::Encoder<W>,
    width: u16,
    height: u16,
    /// Each frame's delay, hundredths of a second.
    delay: u16,
}

impl<W: Write> GifWriter<W> {
    /// Starts a GIF of `width` × `height` pixels (each at most 65 535) on `w`, showing each frame
    /// for `delay` hundredths of a second.
    pub fn new(w: W, width: u32, height: u32, delay: u16) -> io::Result<Self> {
        let too_large =
            || io::Error::other(format!("a GIF is at most 65535 pixels wide and high, not {width} x {height}"));
        let (width, height) =
            (u16::try_from(width).map_err(|_| too_large())?, u16::try_from(height).map_err(|_| too_large())?);
        let mut encoder = gif::Encoder::new(w, width, height, &[]).map_err(io::Error::other)?;
        encoder.set_repeat(gif::Repeat::Infinite).map_err(io::Error::other)?;
        Ok(GifWriter { encoder, width, height, delay })
    }

    /// Adds `image` (of the GIF's size) as the next frame.
    pub fn add(&mut self, image: &Image) -> io::Result<()> {
        if (image.width, image.height) != (u32::from(self.width), u32::from(self.height)) {
            return Err(io::Error::other("a frame of another size than the GIF"));
        }
        let mut rgba = image.rgba.clone();
        let mut frame = gif::Frame::from_rgba_speed(self.width, self.height, &mut rgba, QUANTISATION_SPEED);
        frame.delay = self.delay;
        self.encoder.write_frame(&frame).map_err(io::Error::other)
    }

    /// Ends the GIF and hands back the writer.
    pub fn finish(self) -> io::Result<W> {
        self.encoder.into_inner().map_err(io::Error::other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(shade: u8) -> Image {
        let (width, height) = (8, 6);
        let rgba = (0..width * height).flat_map(|k| [shade, (k * 5) as u8, 100, 255]).collect();
        Image { width, height, rgba }
    }

    #[test]
    fn a_png_decodes_to_the_image() {
        let a = image(40);
        assert_eq!(decode_png(&png_bytes(&a).unwrap()).unwrap(), a);
    }

    #[test]
    fn a_gif_holds_every_frame_with_its_delay_and_the_same_frames_give_the_same_bytes() {
        let write = || {
            let mut gif = GifWriter::new(Vec::new(), 8, 6, 7).unwrap();
            for shade in [0, 120, 240] {
                gif.add(&image(shade)).unwrap();
            }
            gif.finish().unwrap()
        };
        let bytes = write();
        assert_eq!(bytes, write());
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(&bytes[..]).unwrap();
        let mut frames = 0;
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            assert_eq!((frame.width, frame.height, frame.delay), (8, 6, 7));
            frames += 1;
        }
        assert_eq!(frames, 3);
        assert!(GifWriter::new(Vec::new(), 70_000, 6, 7).is_err());
        assert!(GifWriter::new(Vec::new(), 8, 6, 7)
            .unwrap()
            .add(&Image { width: 2, height: 2, rgba: vec![0; 16] })
            .is_err());
    }
}
