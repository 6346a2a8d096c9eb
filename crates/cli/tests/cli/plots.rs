//! `fabricsim plot`: pictures decoded back and checked pixel by pixel.

use super::{example, fabricsim};
use fabricsim_viz::heatmap::{Aggregate, Heatmap, Link, Plane};
use fabricsim_viz::input;
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fabricsim-plots-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Width, height and RGB pixels of a PNG file.
fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

fn pixel(img: &(u32, u32, Vec<u8>), x: i32, y: i32) -> (u8, u8, u8) {
    let i = ((y as u32 * img.0 + x as u32) * 3) as usize;
    (img.2[i], img.2[i + 1], img.2[i + 2])
}

/// Distinct colours and the share of pixels that are not white.
fn ink(img: &(u32, u32, Vec<u8>)) -> (usize, f64) {
    let px: Vec<(u8, u8, u8)> = img.2.chunks(3).map(|c| (c[0], c[1], c[2])).collect();
    let mut distinct = px.clone();
    distinct.sort_unstable();
    distinct.dedup();
    (distinct.len(), px.iter().filter(|p| **p != (255, 255, 255)).count() as f64 / px.len() as f64)
}

#[test]
fn a_sweep_plot_is_a_png_of_the_size_asked_with_curves_on_it() {
    let d = dir("sweep");
    let (a, b, out) = (d.join("a.json"), d.join("b.json"), d.join("curves.png"));
    for (f, shape) in [(&a, "[4,4]"), (&b, "[4,4,4]")] {
        let (code, _, err) = fabricsim(&[
            "sweep",
            "--set",
            &format!("topology.shape={shape}"),
            "--set",
            "sim.duration=2us",
            "--loads",
            "0.1,0.3",
            "--seeds",
            "2",
            "--json",
            s(f),
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, _, err) = fabricsim(&["plot", "sweep", s(&a), s(&b), "-o", s(&out), "--size", "640x400"]);
    assert_eq!(code, 0, "{err}");
    let img = decode(&out);
    assert_eq!((img.0, img.1), (640, 400));
    let (colours, share) = ink(&img);
    assert!(colours > 20, "text, axes, two curves and their bands: {colours} colours");
    assert!(share > 0.02 && share < 0.6, "ink on {share} of the picture");
    // The first curve's colour is on the picture (its line and points).
    assert!(img.2.chunks(3).any(|c| (c[0], c[1], c[2]) == (0, 114, 178)));
}

#[test]
fn a_heat_map_shows_the_links_a_stream_crosses_hot_and_the_others_idle() {
    // One stream from (0,0) to (2,0): the X+ links out of (0,0) and (1,0) carry it, no other.
    let d = dir("heat");
    let (run, out) = (d.join("run.json"), d.join("heat.png"));
    let (code, _, err) = fabricsim(&[
        "run",
        "--set",
        "topology.shape=[4,4]",
        "--set",
        "workload.type=throughput",
        "--set",
        "workload.src=[0,0]",
        "--set",
        "workload.dst=[2,0]",
        "--json",
        s(&run),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = fabricsim(&["plot", "heatmap", s(&run), "--axes", "d0,d1", "-o", s(&out)]);
    assert_eq!(code, 0, "{err}");
    let img = decode(&out);
    assert_eq!((img.0, img.1), (900, 560));
    let ports = input::run_ports(&run, &input::read_json(&run).unwrap()).unwrap();
    let plane = Plane { axes: ["d0".into(), "d1".into()], fix: vec![], aggregate: Aggregate::Mean, max: None };
    let map = Heatmap::new("", &ports, &plane).unwrap();
    let centre = |i, j, link| {
        let (x0, y0, x1, y1) = map.link_rect((900, 560), i, j, link);
        pixel(&img, (x0 + x1) / 2, (y0 + y1) / 2)
    };
    let east = Link { across: true, plus: true };
    let hot = map.colour_of(map.vmax);
    assert_eq!(centre(0, 0, east), hot);
    assert_eq!(centre(1, 0, east), hot);
    let idle = map.colour_of(0.0);
    assert_ne!(hot, idle);
    for (i, j, link) in [(2, 0, east), (0, 1, east), (3, 3, Link { across: false, plus: false }), (1, 0, Link { across: true, plus: false })] {
        assert_eq!(centre(i, j, link), idle, "link of ({i},{j}) {link:?}");
    }
}

#[test]
fn collective_bars_and_a_timeline_are_drawn_and_svg_is_svg() {
    let d = dir("bars");
    let (coll, bars) = (d.join("c.json"), d.join("bars.png"));
    let (code, _, err) = fabricsim(&[
        "collective",
        "--set",
        "topology.shape=[4,4]",
        "--op",
        "broadcast",
        "--algorithm",
        "binomial,chain",
        "--sizes",
        "1KiB,16KiB",
        "--json",
        s(&coll),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = fabricsim(&["plot", "collective", s(&coll), "-o", s(&bars)]);
    assert_eq!(code, 0, "{err}");
    let img = decode(&bars);
    // Both algorithms' bar colours are there.
    for c in [(0u8, 114u8, 178u8), (213, 94, 0)] {
        assert!(img.2.chunks(3).filter(|p| (p[0], p[1], p[2]) == c).count() > 500, "bars of colour {c:?}");
    }
    let (run, line) = (d.join("r.json"), d.join("t.svg"));
    let (code, _, err) = fabricsim(&["run", &example("torus-tornado.toml"), "--json", s(&run), "--embed-series", "--interval", "2us"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = fabricsim(&["plot", "timeline", s(&run), "--top", "3", "-o", s(&line)]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&line).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("simulated time") && svg.matches("<polyline").count() >= 3, "{}", &svg[..200]);
}

#[test]
fn plot_refuses_files_of_the_wrong_kind_and_bad_options_naming_them() {
    let d = dir("bad");
    let run = d.join("run.json");
    let (code, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--set", "sim.duration=1us", "--json", s(&run)]);
    assert_eq!(code, 0, "{err}");
    let out = d.join("x.png");
    for (args, needle) in [
        (vec!["plot", "sweep", s(&run)], "run.json"),
        (vec!["plot", "collective", s(&run)], "run.json"),
        (vec!["plot", "timeline", s(&run)], "--embed-series"),
        (vec!["plot", "heatmap", s(&run), "--axes", "d0,Q"], "'Q'"),
        (vec!["plot", "heatmap", s(&run), "--axes", "d0,d0"], "d0,d0"),
        (vec!["plot", "heatmap", s(&run), "--fix", "d0=1"], "d0=1"),
        (vec!["plot", "heatmap", s(&run), "--aggregate", "median"], "median"),
        (vec!["plot", "heatmap", s(&run), "--size", "9x9"], "9x9"),
        (vec!["plot", "heatmap", s(&run), "-o", "x.pdf"], "x.pdf"),
    ] {
        let mut args = args;
        if !args.contains(&"-o") {
            args.extend(["-o", s(&out)]);
        }
        let (code, _, err) = fabricsim(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle) && err.lines().count() == 1, "{args:?}: {err}");
    }
    let ft = d.join("ft.json");
    let (code, _, err) = fabricsim(&["run", &example("fat-tree-hot-region.toml"), "--json", s(&ft)]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = fabricsim(&["plot", "heatmap", s(&ft), "-o", s(&out)]);
    assert_eq!(code, 2);
    assert!(err.contains("ft.json") && err.contains("fat-tree"), "{err}");
}
