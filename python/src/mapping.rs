//! `fabricsim.map`: the mapping methods of `fabricsim map` run from Python (glue over
//! `fabricsim::map`).

use crate::errors::{guard, PyResultExt};
use crate::{json, scenario};
use fabricsim::map::{self, AnnealOptions, Format, HostPattern, Method, Objective};
use fabricsim::{ConfigError, Plan, Time};
use pyo3::prelude::*;

/// Run the mapping `methods` (none: all) for a pattern (CSV text `src,dst,bytes`, or a
/// generator spec) on the scenario's network, as `fabricsim map` does. Returns (the rows' JSON,
/// the node of every rank under each row's map, the index of the best row by `objective`, the
/// best map written in `format` or None).
#[pyfunction]
#[pyo3(signature = (text, csv=None, generate=None, methods=vec![], objective="hop-bytes", ranks_per_node=1, iterations=0, seed=1, budget=None, simulate=false, format=None, hosts="nid{:05}", base_dir=None))]
#[allow(clippy::too_many_arguments)]
fn map_methods(
    py: Python<'_>,
    text: &str,
    csv: Option<&str>,
    generate: Option<&str>,
    methods: Vec<String>,
    objective: &str,
    ranks_per_node: u32,
    iterations: u64,
    seed: u64,
    budget: Option<&str>,
    simulate: bool,
    format: Option<&str>,
    hosts: &str,
    base_dir: Option<&str>,
) -> PyResult<(String, Vec<Vec<u32>>, usize, Option<String>)> {
    py.allow_threads(|| {
        guard(|| {
            let plan = Plan::new(&scenario(text, base_dir)?)?;
            let pattern = map::pattern_of(csv, generate, "pattern")?;
            let methods = if methods.is_empty() {
                Method::ALL.to_vec()
            } else {
                methods.iter().map(|m| Method::parse(m, "methods")).collect::<Result<_, _>>()?
            };
            let objective = Objective::parse(objective, "objective")?;
            let format = format.map(|f| Format::parse(f, "format")).transpose()?;
            let hosts = HostPattern::parse(hosts).map_err(|m| ConfigError::new("hosts", m))?;
            let budget = budget.map(|b| Time::parse(b).map_err(|m| ConfigError::new("budget", m))).transpose()?;
            let opts = AnnealOptions {
                seed,
                iterations,
                budget: budget.map(|b| std::time::Duration::from_secs_f64(b.as_secs_f64())),
                per_node: ranks_per_node,
                ..Default::default()
            };
            let mut rows = map::compare(&plan, &pattern, &methods, &opts, objective, |_| {})
                .map_err(|e| rename(rename(e, "--pattern", "pattern"), "--ranks-per-node", "ranks_per_node"))?;
            if simulate {
                map::simulate_rows(&plan, &pattern, &mut rows, |_| {})?;
            }
            let best = map::best(&rows, objective).map(|b| rows.iter().position(|r| std::ptr::eq(r, b)).unwrap_or(0)).unwrap_or(0);
            let text = match (format, rows.get(best)) {
                (Some(f), Some(b)) => Some(map::map_text(&plan, &b.map, f, &hosts, ranks_per_node)?),
                _ => None,
            };
            let maps = rows.iter().map(|r| r.map.iter().map(|n| n.0).collect()).collect();
            Ok((json(&rows), maps, best, text))
        })
    })
    .py()
}

/// `e` with a CLI option's name replaced by the Python argument's.
fn rename(e: fabricsim::Error, from: &str, to: &str) -> fabricsim::Error {
    match e {
        fabricsim::Error::Config(mut c) if c.field == from => {
            c.field = to.to_string();
            fabricsim::Error::Config(c)
        }
        other => other,
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(map_methods, m)?)?;
    Ok(())
}
