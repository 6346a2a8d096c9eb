//! Drawing a figure to PNG or SVG bytes.

use crate::{bad, Error};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// The font every figure's text is drawn with (see `fonts/LICENSE`).
pub const FONT: &[u8] = include_bytes!("../fonts/DejaVuSans-ascii.ttf");

/// What drawing returns: a backend's error, boxed.
pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draw the legend of `chart`'s labelled series at `position`, in the style every figure
/// shares (a translucent white box with a grey border).
pub fn draw_legend<'a, DB, CT>(chart: &mut ChartContext<'a, DB, CT>, position: SeriesLabelPosition) -> DrawResult
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: plotters::coord::CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .label_font(("sans-serif", 13))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .draw()?;
    Ok(())
}

/// A figure that can draw itself on any plotters backend.
pub trait Figure {
    /// Draw on `root` (already filled white).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

/// The picture formats written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Portable Network Graphics (RGB).
    Png,
    /// Scalable Vector Graphics.
    Svg,
}

impl Format {
    /// The format a file's extension names (`.png` or `.svg`); `option` names the option in the
    /// error.
    pub fn of(path: &Path, option: &str) -> Result<Format, Error> {
        match path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).as_deref() {
            Some("png") => Ok(Format::Png),
            Some("svg") => Ok(Format::Svg),
            _ => Err(bad(option, format!("'{}': the file name must end in .png or .svg", path.display()))),
        }
    }
}

/// Register the built-in font once per process (plotters keeps its fonts in a table of its
/// own; this is the only entry written to it).
fn font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is part of the crate and parsed by a test: it cannot fail here.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Draw `fig` at `size` pixels (width, height) in `format`: the file's bytes.
pub fn render(fig: &impl Figure, format: Format, size: (u32, u32)) -> Result<Vec<u8>, Error> {
    font();
    let (w, h) = size;
    if !(100..=8000).contains(&w) || !(100..=8000).contains(&h) {
        return Err(bad("--size", format!("{w}x{h}: width and height must be 100 to 8000 pixels")));
    }
    let failed = |e: Box<dyn std::error::Error>| Error::Io(format!("drawing failed: {e}"));
    match format {
        Format::Png => {
            let mut buf = vec![255u8; (w * h * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
                root.fill(&WHITE).map_err(|e| failed(e.into()))?;
                fig.draw(&root).map_err(failed)?;
                root.present().map_err(|e| failed(e.into()))?;
            }
            encode_png(&buf, w, h)
        }
        Format::Svg => {
            let mut s = String::new();
            {
                let root = SVGBackend::with_string(&mut s, (w, h)).into_drawing_area();
                root.fill(&WHITE).map_err(|e| failed(e.into()))?;
                fig.draw(&root).map_err(failed)?;
                root.present().map_err(|e| failed(e.into()))?;
            }
            Ok(s.into_bytes())
        }
    }
}

/// Draw `fig` into the file `path` (PNG or SVG by its extension); `option` names the option
/// that gave the path.
pub fn write(fig: &impl Figure, path: &Path, option: &str, size: (u32, u32)) -> Result<(), Error> {
    let bytes = render(fig, Format::of(path, option)?, size)?;
    std::fs::write(path, bytes).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
}

fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Best);
    let io = |e: png::EncodingError| Error::Io(format!("PNG encoding: {e}"));
    let mut writer = enc.write_header().map_err(io)?;
    writer.write_image_data(rgb).map_err(io)?;
    writer.finish().map_err(io)?;
    Ok(out)
}

/// A colour of the utilisation scale as a plotters colour.
pub(crate) fn rgb(c: (u8, u8, u8)) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// The n-th colour of a palette that tells lines apart (colour-blind friendly first eight).
pub(crate) fn series_colour(i: usize) -> RGBColor {
    const P: [(u8, u8, u8); 8] =
        [(0, 114, 178), (213, 94, 0), (0, 158, 115), (204, 121, 167), (86, 180, 233), (230, 159, 0), (0, 0, 0), (120, 120, 120)];
    let c = P[i % P.len()];
    RGBColor(c.0, c.1, c.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_font_parses() {
        assert!(plotters::style::register_font("test-font", FontStyle::Normal, FONT).is_ok());
    }

    #[test]
    fn the_format_follows_the_extension() {
        assert_eq!(Format::of(Path::new("a.PNG"), "--out").unwrap(), Format::Png);
        assert_eq!(Format::of(Path::new("a.svg"), "--out").unwrap(), Format::Svg);
        let e = Format::of(Path::new("a.pdf"), "--out").unwrap_err().to_string();
        assert!(e.contains("--out") && e.contains("a.pdf"), "{e}");
    }
}
