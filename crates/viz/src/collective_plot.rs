//! Algorithm comparison bars from `collective --json`: the time of each algorithm at each
//! buffer size, sizes side by side, on a logarithmic time axis (sizes span decades).

use crate::input::CollectivePoint;
use crate::render::{draw_legend, series_colour, DrawResult, Figure};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The figure.
#[derive(Debug, Clone)]
pub struct CollectivePlot {
    pub title: String,
    pub points: Vec<CollectivePoint>,
}

impl CollectivePlot {
    /// The buffer sizes, smallest first, and the algorithms, in their first appearance's order.
    pub fn groups(&self) -> (Vec<u64>, Vec<String>) {
        let mut sizes: Vec<u64> = self.points.iter().map(|p| p.bytes).collect();
        sizes.sort_unstable();
        sizes.dedup();
        let mut algs: Vec<String> = Vec::new();
        for p in &self.points {
            if !algs.contains(&p.algorithm) {
                algs.push(p.algorithm.clone());
            }
        }
        (sizes, algs)
    }
}

/// A size as people write it: 8 B, 64 KiB, 1 MiB.
pub fn size_label(b: u64) -> String {
    match b {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

impl Figure for CollectivePlot {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let (sizes, algs) = self.groups();
        let us: Vec<f64> = self.points.iter().map(|p| p.time_ns / 1e3).filter(|t| *t > 0.0).collect();
        let lo = us.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = us.iter().copied().fold(0.0, f64::max);
        let (lo, hi) = if lo.is_finite() { (lo / 2.0, hi * 2.0) } else { (0.001, 1.0) };
        let labels = sizes.clone();
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..sizes.len() as f64, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(sizes.len() * 2 + 1)
            .x_label_formatter(&|x| {
                let i = (x - 0.5).round();
                if (x - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                    size_label(labels[i as usize])
                } else {
                    String::new()
                }
            })
            .x_desc("buffer size per rank")
            .y_desc("time (us)")
            .axis_desc_style(("sans-serif", 15))
            .label_style(("sans-serif", 13))
            .draw()?;
        let width = 0.8 / algs.len() as f64;
        for (a, alg) in algs.iter().enumerate() {
            let col = series_colour(a);
            let bars = self.points.iter().filter(|p| &p.algorithm == alg && p.time_ns > 0.0).map(|p| {
                let g = sizes.iter().position(|s| *s == p.bytes).unwrap_or(0) as f64;
                let x0 = g + 0.1 + a as f64 * width;
                Rectangle::new([(x0, lo), (x0 + width * 0.92, p.time_ns / 1e3)], col.filled())
            });
            chart.draw_series(bars)?.label(alg.clone()).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], col.filled()));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)
    }
}
