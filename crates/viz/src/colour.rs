//! The colour scale of utilisation: pale for an idle link, through yellow and orange to dark
//! red for a busy one. The same stops are used by the HTML viewer.

/// Colour stops: (position in 0..=1, red, green, blue).
pub const STOPS: [(f64, u8, u8, u8); 5] = [(0.0, 235, 237, 242), (0.25, 255, 221, 113), (0.5, 250, 150, 50), (0.75, 215, 48, 31), (1.0, 110, 0, 20)];

/// The colour of a value in 0..=1 (values outside are clamped; NaN is idle).
pub fn colour(v: f64) -> (u8, u8, u8) {
    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    for w in STOPS.windows(2) {
        let (a, b) = (w[0], w[1]);
        if v <= b.0 {
            let f = (v - a.0) / (b.0 - a.0);
            let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * f).round() as u8;
            return (mix(a.1, b.1), mix(a.2, b.2), mix(a.3, b.3));
        }
    }
    let l = STOPS[STOPS.len() - 1];
    (l.1, l.2, l.3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ends_are_the_first_and_last_stops_and_the_scale_darkens() {
        assert_eq!(colour(0.0), (235, 237, 242));
        assert_eq!(colour(1.0), (110, 0, 20));
        assert_eq!(colour(7.0), colour(1.0));
        let lum = |c: (u8, u8, u8)| c.0 as u32 + c.1 as u32 + c.2 as u32;
        let mut last = u32::MAX;
        for i in 0..=20 {
            let l = lum(colour(i as f64 / 20.0));
            assert!(l <= last, "brightness must not rise along the scale");
            last = l;
        }
    }
}
