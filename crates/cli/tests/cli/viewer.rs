//! `fabricsim view`: the page opened in headless Chromium (Debian's `chromium`). Without it
//! these tests print why and pass, except in CI (`CI=true`), where a missing Chromium fails.

use super::fabricsim;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fabricsim-view-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The Chromium command, or None (after saying why) where it is missing outside CI.
fn chromium() -> Option<&'static str> {
    for c in ["chromium", "chromium-browser"] {
        if Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()) {
            return Some(c);
        }
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("chromium is not installed: CI must run the viewer's browser tests (.ci/run installs Debian's chromium)");
    }
    eprintln!("skipped: chromium is not installed (apt-get install chromium); the viewer's page was not opened");
    None
}

/// Run Chromium headless on `url` with `args` (a fresh profile each time, 1200x900).
fn headless(chrome: &str, work: &Path, args: &[&str], url: &str) -> String {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let profile = work.join(format!("profile-{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let out = Command::new(chrome)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,900", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into()
}

/// The page's status line: its state and the canvases' rectangles (x, y, width, height).
fn status(dom: &str) -> (String, Vec<[u32; 4]>) {
    let at = dom.find("id=\"status\"").expect("the page has its status line");
    let tag = &dom[at..at + dom[at..].find('>').unwrap()];
    let attr = |name: &str| {
        let k = tag.find(&format!("{name}=\"")).map(|i| i + name.len() + 2)?;
        Some(tag[k..k + tag[k..].find('"').unwrap()].to_string())
    };
    let text = &dom[at + tag.len() + 1..];
    let text = text[..text.find('<').unwrap()].to_string();
    let state = attr("data-state").unwrap_or_default();
    assert_eq!(state, "ready", "the page reports: {text}");
    let rects = attr("data-canvases")
        .unwrap_or_default()
        .split(';')
        .map(|r| {
            let v: Vec<u32> = r.split(',').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect();
    (text, rects)
}

fn screenshot(chrome: &str, work: &Path, html: &Path, tick: u32, name: &str) -> (u32, u32, Vec<u8>) {
    let png = work.join(name);
    headless(chrome, work, &[&format!("--screenshot={}", png.display())], &format!("file://{}#tick={tick}", html.display()));
    let dec = png::Decoder::new(std::fs::File::open(&png).unwrap());
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    let rgb = buf[..info.buffer_size()].chunks(step).flat_map(|c| [c[0], c[1], c[2]]).collect();
    (info.width, info.height, rgb)
}

/// Pixels that differ between two pictures inside the rows `y0..y1` and columns `x0..x1`.
fn differing(a: &(u32, u32, Vec<u8>), b: &(u32, u32, Vec<u8>), (x0, y0, x1, y1): (u32, u32, u32, u32)) -> usize {
    let mut n = 0;
    for y in y0..y1.min(a.1) {
        for x in x0..x1.min(a.0) {
            let i = ((y * a.0 + x) * 3) as usize;
            if a.2[i..i + 3] != b.2[i..i + 3] {
                n += 1;
            }
        }
    }
    n
}

fn inked(a: &(u32, u32, Vec<u8>), r: [u32; 4]) -> usize {
    let mut n = 0;
    for y in r[1]..(r[1] + r[3]).min(a.1) {
        for x in r[0]..(r[0] + r[2]).min(a.0) {
            let i = ((y * a.0 + x) * 3) as usize;
            if a.2[i..i + 3] != [255, 255, 255] {
                n += 1;
            }
        }
    }
    n
}

fn run_with_series(work: &Path, name: &str, sets: &[&str]) -> PathBuf {
    let f = work.join(name);
    let mut args = vec!["run", "--json", s(&f), "--embed-series", "--interval", "1us", "--set", "sim.duration=8us"];
    for x in sets {
        args.extend(["--set", x]);
    }
    let (code, _, err) = fabricsim(&args);
    assert_eq!(code, 0, "{err}");
    f
}

#[test]
fn the_page_plays_traffic_and_shows_two_runs_side_by_side() {
    let Some(chrome) = chromium() else { return };
    let work = dir("page");
    let a = run_with_series(&work, "uniform.json", &["topology.shape=[4,4,4]", "workload.load=0.3"]);
    let b = run_with_series(&work, "tornado.json", &["topology.shape=[4,4,4]", "workload.type=tornado", "workload.load=0.3"]);
    let one = work.join("one.html");
    let (code, _, err) = fabricsim(&["view", s(&a), "--html", s(&one)]);
    assert_eq!(code, 0, "{err}");
    // The page runs its script to the end, without an error.
    let dom = headless(chrome, &work, &["--dump-dom"], &format!("file://{}#tick=2", one.display()));
    let (text, rects) = status(&dom);
    assert!(text.starts_with("ready: 1 run"), "{text}");
    assert_eq!(rects.len(), 1);
    let c = rects[0];
    // Two moments: the links' colours change inside the canvas, the summary below does not.
    let early = screenshot(chrome, &work, &one, 2, "early.png");
    let late = screenshot(chrome, &work, &one, 7, "late.png");
    assert_eq!((early.0, early.1), (1200, 900));
    let inside = differing(&early, &late, (c[0], c[1], c[0] + c[2], c[1] + c[3]));
    assert!(inside > 100, "traffic moves between the two moments: {inside} pixels differ");
    let below = differing(&early, &late, (0, c[1] + c[3] + 4, early.0, early.1));
    assert_eq!(below, 0, "the notes and summary table below the canvas stay as they were");
    // Side by side: two canvases, each with a network drawn on it, not the same picture.
    let two = work.join("two.html");
    let (code, _, err) = fabricsim(&["view", s(&a), s(&b), "--html", s(&two)]);
    assert_eq!(code, 0, "{err}");
    let dom = headless(chrome, &work, &["--dump-dom"], &format!("file://{}#tick=3", two.display()));
    let (text, rects) = status(&dom);
    assert!(text.starts_with("ready: 2 run"), "{text}");
    assert_eq!(rects.len(), 2);
    assert!(rects[1][0] >= rects[0][0] + rects[0][2], "the second canvas is beside the first: {rects:?}");
    let shot = screenshot(chrome, &work, &two, 3, "two.png");
    for r in &rects {
        assert!(inked(&shot, *r) > 2000, "a network is drawn in {r:?}");
    }
    // Blocked (384 links within 50: blocks of 2x2x2 routers), both runs: the page runs to
    // the end, says what a cell is and draws both networks.
    let blocked = work.join("blocked.html");
    let (code, _, err) = fabricsim(&["view", s(&a), s(&b), "--html", s(&blocked), "--max-links", "50"]);
    assert_eq!(code, 0, "{err}");
    let dom = headless(chrome, &work, &["--dump-dom"], &format!("file://{}#tick=3", blocked.display()));
    let (text, rects) = status(&dom);
    assert!(text.starts_with("ready: 2 run"), "{text}");
    assert_eq!(dom.matches("each cell is a block of 2x2x2 routers (along d0, d1, d2)").count(), 2, "the note of blocks, once per run");
    let shot = screenshot(chrome, &work, &blocked, 3, "blocked.png");
    for r in &rects {
        assert!(inked(&shot, *r) > 2000, "a blocked network is drawn in {r:?}");
    }
}

/// The data the page embeds.
fn page_data(html: &Path) -> serde_json::Value {
    let page = std::fs::read_to_string(html).unwrap();
    let open = "<script id=\"data\" type=\"application/json\">";
    let at = page.find(open).expect("the page embeds its data") + open.len();
    serde_json::from_str(&page[at..at + page[at..].find("</script>").unwrap()]).unwrap()
}

#[test]
fn max_links_draws_a_large_network_in_blocks() {
    let work = dir("blocks");
    let run = run_with_series(&work, "run.json", &["topology.shape=[4,4,4]", "workload.load=0.3"]);
    let html = work.join("page.html");
    // 64 routers x 6 links: drawn as they are by default.
    let (code, _, err) = fabricsim(&["view", s(&run), "--html", s(&html)]);
    assert_eq!(code, 0, "{err}");
    let d = page_data(&html);
    assert!(d["runs"][0].get("block").is_none());
    assert_eq!(d["runs"][0]["links"].as_array().unwrap().len(), 384);
    // Within 100: X then Y halved (4x4x4 -> 2x2x4 blocks, 96 links of 4 each).
    let (code, _, err) = fabricsim(&["view", s(&run), "--html", s(&html), "--max-links", "100"]);
    assert_eq!(code, 0, "{err}");
    let d = page_data(&html);
    let r = &d["runs"][0];
    assert_eq!(
        (&r["shape"], &r["block"]["sizes"], &r["block"]["most"]),
        (&serde_json::json!([2, 2, 4]), &serde_json::json!([2, 2, 1]), &serde_json::json!(4))
    );
    assert_eq!(r["links"].as_array().unwrap().len(), 96);
    let total: u64 = r["links"].as_array().unwrap().iter().map(|l| l["block"]["links"].as_u64().unwrap()).sum();
    assert_eq!(total, 384, "every link is in one block");
    // A budget of nothing, or not a number: exit 2 naming the flag and the value.
    for bad in ["0", "many", "-3"] {
        let _ = std::fs::remove_file(&html);
        let (code, _, err) = fabricsim(&["view", s(&run), "--html", s(&html), &format!("--max-links={bad}")]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("--max-links") && err.contains(bad), "{bad}: {err}");
        assert!(!html.exists(), "nothing is written for --max-links {bad}");
    }
}

#[test]
fn view_refuses_what_it_cannot_show_naming_it() {
    let work = dir("bad");
    let with = run_with_series(&work, "with.json", &["topology.shape=[4,4]"]);
    let other = run_with_series(&work, "other.json", &["topology.shape=[4,4,4]"]);
    let plain = work.join("plain.json");
    let (code, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--set", "sim.duration=1us", "--json", s(&plain)]);
    assert_eq!(code, 0, "{err}");
    let sweep = work.join("sweep.json");
    let (code, _, err) = fabricsim(&["sweep", "--set", "topology.shape=[4,4]", "--set", "sim.duration=1us", "--loads", "0.1", "--json", s(&sweep)]);
    assert_eq!(code, 0, "{err}");
    let html = work.join("x.html");
    for (args, needles) in [
        (vec![s(&plain)], vec!["plain.json", "--embed-series"]),
        (vec![s(&sweep)], vec!["sweep.json", "not a run"]),
        (vec![s(&with), s(&other)], vec!["other.json", "[4, 4, 4]", "[4, 4]"]),
        (vec![s(&with), "--axes", "d0,W"], vec!["'W'"]),
    ] {
        let mut all = vec!["view"];
        all.extend(args.iter().copied());
        all.extend(["--html", s(&html)]);
        let (code, _, err) = fabricsim(&all);
        assert_eq!(code, 2, "{all:?}: {err}");
        for n in needles {
            assert!(err.contains(n) && err.lines().count() == 1, "{all:?} should name {n}: {err}");
        }
    }
    assert!(!html.exists(), "nothing is written for bad input");
}
