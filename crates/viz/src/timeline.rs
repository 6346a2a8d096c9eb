//! Utilisation over time of the busiest links: from a per-port series, the `top` network ports
//! with the most busy time over the whole series, one line each.

use crate::input::Series;
use crate::render::{draw_legend, series_colour, DrawResult, Figure};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The figure.
#[derive(Debug, Clone)]
pub struct Timeline {
    pub title: String,
    pub interval_ns: f64,
    /// Name and utilisation per interval of each line, busiest first.
    pub lines: Vec<(String, Vec<f64>)>,
}

impl Timeline {
    /// The `top` busiest network ports of `series` (ties: lower router, then port, first);
    /// `coords` names a router's coordinates where the run report gives them.
    pub fn busiest(title: &str, series: &Series, top: usize, coords: &dyn Fn(u32) -> Option<Vec<u32>>) -> Timeline {
        let mut order: Vec<usize> = (0..series.ports.len()).filter(|&p| series.ports[p].kind == "network").collect();
        let total = |p: usize| series.utilization[p].iter().sum::<f64>();
        order.sort_by(|&x, &y| total(y).total_cmp(&total(x)).then(x.cmp(&y)));
        let lines = order
            .into_iter()
            .take(top)
            .map(|p| {
                let sp = &series.ports[p];
                let at = match coords(sp.router) {
                    Some(c) => format!("({})", c.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
                    None => format!("router {}", sp.router),
                };
                (format!("{at} {}", sp.label), series.utilization[p].clone())
            })
            .collect();
        Timeline { title: title.to_string(), interval_ns: series.interval_ns, lines }
    }
}

impl Figure for Timeline {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let n = self.lines.iter().map(|l| l.1.len()).max().unwrap_or(1).max(1);
        let us = |i: usize| i as f64 * self.interval_ns / 1e3;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..us(n), 0.0..1.05)?;
        chart
            .configure_mesh()
            .x_desc("simulated time (us)")
            .y_desc("link utilisation")
            .axis_desc_style(("sans-serif", 15))
            .label_style(("sans-serif", 13))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (k, (name, u)) in self.lines.iter().enumerate() {
            let col = series_colour(k);
            // Each interval's value holds over the interval: a step line.
            let steps = u.iter().enumerate().flat_map(|(i, v)| [(us(i), *v), (us(i + 1), *v)]);
            chart
                .draw_series(LineSeries::new(steps, col.stroke_width(2)))?
                .label(name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], col.stroke_width(2)));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
    }
}
