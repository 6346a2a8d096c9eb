//! Latency-load curves: one or more `sweep --loads` outputs on one figure, each with its mean
//! latency (a band of its 95% confidence interval when the sweep ran several seeds) and its
//! 99th percentile dashed; saturated points are left off the curves and marked on the axis.

use crate::input::CurvePoint;
use crate::render::{draw_legend, series_colour, DrawResult, Figure};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One sweep: its name in the legend and its points.
#[derive(Debug, Clone)]
pub struct Curve {
    pub name: String,
    pub points: Vec<CurvePoint>,
}

/// The figure.
#[derive(Debug, Clone)]
pub struct SweepPlot {
    pub title: String,
    pub curves: Vec<Curve>,
}

impl Figure for SweepPlot {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let ok = |p: &&CurvePoint| !p.saturated;
        let all = || self.curves.iter().flat_map(|c| c.points.iter());
        let x_max = all().map(|p| p.offered_load).fold(0.0, f64::max).max(0.01) * 1.05;
        let y_max = all().filter(ok).map(|p| p.latency_p99_ns.max(p.latency_mean_ns + p.latency_mean_ci95_ns.unwrap_or(0.0))).fold(0.0, f64::max);
        let y_max = if y_max > 0.0 { y_max * 1.15 } else { all().map(|p| p.latency_mean_ns).fold(1.0, f64::max) };
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
        chart
            .configure_mesh()
            .x_desc("offered load (fraction of injection bandwidth)")
            .y_desc("message latency (ns)")
            .y_label_formatter(&|y| format!("{y:.0}"))
            .axis_desc_style(("sans-serif", 15))
            .label_style(("sans-serif", 13))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (i, c) in self.curves.iter().enumerate() {
            let col = series_colour(i);
            let pts: Vec<&CurvePoint> = c.points.iter().filter(ok).collect();
            let band: Vec<(f64, f64)> = pts
                .iter()
                .map(|p| (p.offered_load, p.latency_mean_ns + p.latency_mean_ci95_ns.unwrap_or(0.0)))
                .chain(pts.iter().rev().map(|p| (p.offered_load, p.latency_mean_ns - p.latency_mean_ci95_ns.unwrap_or(0.0))))
                .collect();
            if pts.iter().any(|p| p.latency_mean_ci95_ns.is_some()) {
                chart.draw_series(std::iter::once(Polygon::new(band, col.mix(0.18).filled())))?;
            }
            let mean: Vec<(f64, f64)> = pts.iter().map(|p| (p.offered_load, p.latency_mean_ns)).collect();
            chart
                .draw_series(LineSeries::new(mean.clone(), col.stroke_width(2)))?
                .label(format!("{} mean", c.name))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], col.stroke_width(2)));
            chart.draw_series(mean.iter().map(|&p| Circle::new(p, 3, col.filled())))?;
            let p99: Vec<(f64, f64)> = pts.iter().map(|p| (p.offered_load, p.latency_p99_ns)).collect();
            chart
                .draw_series(DashedLineSeries::new(p99, 6, 4, col.stroke_width(1)))?
                .label(format!("{} p99", c.name))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 8, y), (x + 12, y), (x + 22, y)], col.stroke_width(1)));
            // Saturated loads: a cross on the top edge (their latencies grow with the window).
            let sat: Vec<(f64, f64)> = c.points.iter().filter(|p| p.saturated).map(|p| (p.offered_load, y_max * 0.98)).collect();
            if !sat.is_empty() {
                chart
                    .draw_series(sat.into_iter().map(|p| Cross::new(p, 5, col.stroke_width(2))))?
                    .label(format!("{} saturated", c.name))
                    .legend(move |(x, y)| Cross::new((x + 11, y), 5, col.stroke_width(2)));
            }
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)
    }
}
