//! `fabricsim view`: the HTML page that plays runs' link utilisation (`fabricsim-viz::view`).

use clap::Args;
use fabricsim::Error;
use fabricsim_viz::input::read_json;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct ViewArgs {
    /// A run report with its series (`fabricsim run --json RUN.json --embed-series`).
    run: PathBuf,
    /// A second run of the same network, shown beside the first on the same clock.
    other: Option<PathBuf>,
    /// The page to write: one self-contained HTML file (data embedded, nothing fetched).
    #[arg(long, value_name = "FILE")]
    html: PathBuf,
    /// The torus plane the page opens on, across and down: names (X,Y) or indices (0,1).
    #[arg(long, value_delimiter = ',', num_args = 1)]
    axes: Vec<String>,
    /// Most links drawn per run: a larger network is drawn in blocks of neighbouring routers
    /// (switches of a fat-tree's row), each link the mean of its block's links.
    #[arg(long, value_name = "N", default_value_t = fabricsim_viz::view::MAX_LINKS)]
    max_links: usize,
}

pub(crate) fn run(a: ViewArgs) -> Result<(), Error> {
    let viz = |e: fabricsim_viz::Error| match e {
        fabricsim_viz::Error::Config(c) => Error::Config(c),
        fabricsim_viz::Error::Io(m) => Error::Io(m),
    };
    let axes = match &a.axes[..] {
        [] => None,
        [x, y] => Some([x.clone(), y.clone()]),
        _ => return Err(fabricsim::ConfigError::new("--axes", format!("'{}': name two axes, e.g. X,Y", a.axes.join(","))).into()),
    };
    let mut files = vec![a.run.clone()];
    files.extend(a.other.clone());
    let values = files.iter().map(|f| read_json(f)).collect::<Result<Vec<_>, _>>().map_err(viz)?;
    let pairs: Vec<_> = files.iter().map(PathBuf::as_path).zip(values.iter()).collect();
    let page = fabricsim_viz::view::page(&pairs, axes, a.max_links).map_err(viz)?;
    std::fs::write(&a.html, page).map_err(|e| Error::Io(format!("{}: {e}", a.html.display())))?;
    eprintln!("wrote {}", a.html.display());
    Ok(())
}
