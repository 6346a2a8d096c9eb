//! A heat map of link utilisation on a plane of a torus (or mesh): two chosen axes across and
//! down, every other axis fixed at a coordinate or aggregated (mean or max over its values).
//! Each router is a dark square; each of its outgoing links on the plane is a bar towards the
//! neighbour, coloured by utilisation: `+` links above (across) or right (down) of the line
//! between two routers, `-` links below or left, wrap-around links as stubs at the edges.

use crate::colour::colour;
use crate::input::{torus_axes, Port};
use crate::render::{rgb, DrawResult, Figure};
use crate::{bad, Error};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::HashMap;

/// How axes off the plane are reduced when not fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    Mean,
    Max,
}

impl Aggregate {
    /// `mean` or `max`.
    pub fn parse(s: &str) -> Result<Aggregate, Error> {
        match s {
            "mean" => Ok(Aggregate::Mean),
            "max" => Ok(Aggregate::Max),
            _ => Err(bad("--aggregate", format!("'{s}': must be mean or max"))),
        }
    }
}

/// Which plane to draw.
#[derive(Debug, Clone)]
pub struct Plane {
    /// The axes across and down: names (`X`) or indices (`0`).
    pub axes: [String; 2],
    /// Axes fixed at a coordinate: `("Z", 0)`.
    pub fix: Vec<(String, u32)>,
    /// How the other axes are reduced.
    pub aggregate: Aggregate,
    /// The utilisation drawn darkest (default: the highest on the plane).
    pub max: Option<f64>,
}

/// Which link of a router on the plane: across (the first axis) or down, and its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Link {
    pub across: bool,
    pub plus: bool,
}

/// The heat map, ready to draw.
#[derive(Debug, Clone)]
pub struct Heatmap {
    pub title: String,
    pub names: Vec<String>,
    /// Routers along the axes across and down.
    pub size: (u32, u32),
    /// Utilisation per (across coordinate, down coordinate, link).
    pub values: HashMap<(u32, u32, Link), f64>,
    /// The utilisation drawn darkest.
    pub vmax: f64,
    /// What the plane shows of the other axes, e.g. `Z=0` or `mean over Z`.
    pub reduction: String,
}

/// Where the plane's cells lie in a picture of `size` pixels.
#[derive(Debug, Clone, Copy)]
struct Layout {
    x0: f64,
    y0: f64,
    cell: f64,
}

const LEFT: f64 = 55.0;
const TOP: f64 = 45.0;
const RIGHT: f64 = 120.0;
const BOTTOM: f64 = 45.0;

fn axis_index(names: &[String], shape: &[u32], s: &str, option: &str) -> Result<usize, Error> {
    if let Some(i) = names.iter().position(|n| n == s).or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(s))) {
        return Ok(i);
    }
    match s.parse::<usize>() {
        Ok(i) if i < shape.len() => Ok(i),
        _ => Err(bad(option, format!("'{s}' is not an axis of this network (its axes: {})", names.join(", ")))),
    }
}

impl Heatmap {
    /// The plane `plane` of a run's ports (`title` heads the figure).
    pub fn new(title: &str, ports: &[Port], plane: &Plane) -> Result<Heatmap, Error> {
        let (names, shape) = torus_axes(ports)
            .ok_or_else(|| bad("heatmap", "the run's ports have no coordinates (a fat-tree?): heat maps draw planes of tori and meshes"))?;
        let a = axis_index(&names, &shape, &plane.axes[0], "--axes")?;
        let b = axis_index(&names, &shape, &plane.axes[1], "--axes")?;
        if a == b {
            return Err(bad("--axes", format!("{},{}: two different axes are needed", plane.axes[0], plane.axes[1])));
        }
        let mut fixed: Vec<Option<u32>> = vec![None; shape.len()];
        for (name, c) in &plane.fix {
            let i = axis_index(&names, &shape, name, "--fix")?;
            if i == a || i == b {
                return Err(bad("--fix", format!("{name}={c}: {name} is an axis of the plane")));
            }
            if *c >= shape[i] {
                return Err(bad("--fix", format!("{name}={c}: {name} has coordinates 0 to {}", shape[i] - 1)));
            }
            fixed[i] = Some(*c);
        }
        let mut sums: HashMap<(u32, u32, Link), (f64, f64, u32)> = HashMap::new();
        for p in ports.iter().filter(|p| p.kind == "network") {
            let Some(c) = &p.coords else { continue };
            if fixed.iter().zip(c).any(|(f, c)| f.is_some_and(|f| f != *c)) {
                continue;
            }
            let Some(stem) = p.label.strip_suffix(['+', '-']) else { continue };
            let axis = names.iter().position(|n| n == stem);
            let across = match axis {
                Some(x) if x == a => true,
                Some(x) if x == b => false,
                _ => continue,
            };
            let link = Link { across, plus: p.label.ends_with('+') };
            let e = sums.entry((c[a], c[b], link)).or_insert((0.0, 0.0, 0));
            e.0 += p.utilization;
            e.1 = e.1.max(p.utilization);
            e.2 += 1;
        }
        let values: HashMap<_, _> =
            sums.into_iter().map(|(k, (sum, max, n))| (k, if plane.aggregate == Aggregate::Max { max } else { sum / n as f64 })).collect();
        let highest = values.values().copied().fold(0.0, f64::max);
        let vmax = match plane.max {
            Some(m) if m > 0.0 => m,
            Some(m) => return Err(bad("--max", format!("{m}: must be positive"))),
            None if highest > 0.0 => highest,
            None => 1.0,
        };
        let others: Vec<String> = (0..shape.len())
            .filter(|&i| i != a && i != b)
            .map(|i| match fixed[i] {
                Some(c) => format!("{}={c}", names[i]),
                None if shape[i] > 1 => format!("{} over {}", if plane.aggregate == Aggregate::Max { "max" } else { "mean" }, names[i]),
                None => format!("{}=0", names[i]),
            })
            .collect();
        Ok(Heatmap {
            title: title.to_string(),
            names: vec![names[a].clone(), names[b].clone()],
            size: (shape[a], shape[b]),
            values,
            vmax,
            reduction: others.join(", "),
        })
    }

    fn layout(&self, size: (u32, u32)) -> Layout {
        let (w, h) = (size.0 as f64, size.1 as f64);
        let cell = ((w - LEFT - RIGHT) / self.size.0 as f64).min((h - TOP - BOTTOM) / self.size.1 as f64).max(2.0);
        Layout { x0: LEFT, y0: TOP, cell }
    }

    /// The pixels (left, top, right, bottom) of the bar of `link` from router (`i`, `j`) in a
    /// picture of `size` pixels.
    pub fn link_rect(&self, size: (u32, u32), i: u32, j: u32, link: Link) -> (i32, i32, i32, i32) {
        let l = self.layout(size);
        let c = l.cell;
        let (s, t, g) = (c * 0.34, c * 0.14, c * 0.04);
        let (ci, cj) = (l.x0 + c * (i as f64 + 0.5), l.y0 + c * (j as f64 + 0.5));
        let (x_end, y_end) = (l.x0 + c * self.size.0 as f64, l.y0 + c * self.size.1 as f64);
        let (x0, y0, x1, y1) = match (link.across, link.plus) {
            (true, true) => (ci + s / 2.0, cj - g - t, (ci + c - s / 2.0).min(x_end), cj - g),
            (true, false) => ((ci - c + s / 2.0).max(l.x0), cj + g, ci - s / 2.0, cj + g + t),
            (false, true) => (ci + g, cj + s / 2.0, ci + g + t, (cj + c - s / 2.0).min(y_end)),
            (false, false) => (ci - g - t, (cj - c + s / 2.0).max(l.y0), ci - g, cj - s / 2.0),
        };
        (x0.round() as i32, y0.round() as i32, x1.round() as i32, y1.round() as i32)
    }

    /// The colour a utilisation is drawn in.
    pub fn colour_of(&self, u: f64) -> (u8, u8, u8) {
        colour(u / self.vmax)
    }
}

impl Figure for Heatmap {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let size = root.dim_in_pixel();
        let l = self.layout(size);
        let c = l.cell;
        let font = |px: f64| ("sans-serif", px).into_font();
        let heading = if self.reduction.is_empty() { self.title.clone() } else { format!("{}  ({})", self.title, self.reduction) };
        root.draw(&Text::new(heading, (10, 12), font(18.0)))?;
        for i in 0..self.size.0 {
            for j in 0..self.size.1 {
                for link in [
                    Link { across: true, plus: true },
                    Link { across: true, plus: false },
                    Link { across: false, plus: true },
                    Link { across: false, plus: false },
                ] {
                    if let Some(u) = self.values.get(&(i, j, link)) {
                        let (x0, y0, x1, y1) = self.link_rect(size, i, j, link);
                        root.draw(&Rectangle::new([(x0, y0), (x1, y1)], rgb(self.colour_of(*u)).filled()))?;
                    }
                }
                let (ci, cj) = (l.x0 + c * (i as f64 + 0.5), l.y0 + c * (j as f64 + 0.5));
                let s = c * 0.17;
                root.draw(&Rectangle::new([((ci - s) as i32, (cj - s) as i32), ((ci + s) as i32, (cj + s) as i32)], RGBColor(60, 60, 70).filled()))?;
            }
        }
        // Coordinates along both axes (every k-th when cells are small).
        let every = (22.0 / c).ceil().max(1.0) as u32;
        let small = font(12.0);
        for i in (0..self.size.0).step_by(every as usize) {
            let x = (l.x0 + c * (i as f64 + 0.5)) as i32 - 4;
            root.draw(&Text::new(i.to_string(), (x, (l.y0 + c * self.size.1 as f64) as i32 + 4), small.clone()))?;
        }
        for j in (0..self.size.1).step_by(every as usize) {
            let y = (l.y0 + c * (j as f64 + 0.5)) as i32 - 6;
            root.draw(&Text::new(j.to_string(), (l.x0 as i32 - 22, y), small.clone()))?;
        }
        let grid_bottom = (l.y0 + c * self.size.1 as f64) as i32;
        root.draw(&Text::new(format!("{} (across) by {} (down)", self.names[0], self.names[1]), (l.x0 as i32, grid_bottom + 22), font(14.0)))?;
        // The colour bar.
        let bx = (l.x0 + c * self.size.0 as f64) as i32 + 30;
        let (by0, by1) = (TOP as i32, (TOP as i32 + 240).min(size.1 as i32 - 20));
        let steps = 60;
        for k in 0..steps {
            let f = k as f64 / (steps - 1) as f64;
            let y = by1 - ((by1 - by0) as f64 * (k + 1) as f64 / steps as f64) as i32;
            let y_next = by1 - ((by1 - by0) as f64 * k as f64 / steps as f64) as i32;
            root.draw(&Rectangle::new([(bx, y), (bx + 18, y_next)], rgb(colour(f)).filled()))?;
        }
        for (f, y) in [(0.0, by1), (0.5, (by0 + by1) / 2), (1.0, by0)] {
            root.draw(&Text::new(format!("{:.2}", f * self.vmax), (bx + 24, y - 6), small.clone()))?;
        }
        root.draw(&Text::new("utilisation", (bx - 6, by1 + 8), small))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::tests::torus;

    #[test]
    fn a_torus_with_an_axis_of_length_one_gets_a_heat_map() {
        // Regression: a 4x1x3 torus was refused as "a fat-tree".
        let ports = torus(&[4, 1, 3], &["X", "Z"]);
        let plane = |a: &str, b: &str| Plane { axes: [a.into(), b.into()], fix: Vec::new(), aggregate: Aggregate::Mean, max: None };
        let h = Heatmap::new("t", &ports, &plane("X", "Z")).expect("a heat map of the X-Z plane");
        assert_eq!((h.size, h.names.clone()), ((4, 3), vec!["X".to_string(), "Z".into()]));
        // Every router has its X and Z links drawn, with the utilisation of its ports.
        assert_eq!(h.values.len(), 4 * 3 * 4);
        let v = h.values[&(1, 2, Link { across: true, plus: true })];
        assert!((v - (0.1 + 0.01 * (1 + 4 * 2) as f64)).abs() < 1e-12, "{v}");
        // The axis of length 1 is an axis too, by its index or its name.
        let h = Heatmap::new("t", &ports, &plane("0", "1")).expect("a heat map of the X-d1 plane");
        assert_eq!((h.size, h.names), ((4, 1), vec!["X".to_string(), "d1".into()]));
    }
}
