//! The page's data for blocked and unblocked runs, checked against the input computed anew.

use super::{page, MAX_LINKS};
use crate::input::tests::torus;
use crate::input::Port;
use serde_json::{json, Value};
use std::path::Path;

const INTERVALS: usize = 5;

/// A port's utilisation in interval `t`: spread over 0..=1 so that a wrong member shows.
fn util(router: u32, port: u32, t: usize) -> f64 {
    ((router * 37 + port * 101 + t as u32 * 53) % 256) as f64 / 255.0
}

/// A port's window counters, different per port.
fn window(p: &Port) -> [f64; 6] {
    let k = (p.router * 13 + p.port * 7) as f64;
    [k * 100.0, k, k * 2.5, 1000.0 - k, k % 5.0, util(p.router, p.port, 0)]
}

/// A run report of `ports` with its series embedded, utilisation `util` scaled by `scale`.
fn report(ports: &[Port], scale: f64) -> Value {
    let pj: Vec<Value> = ports
        .iter()
        .map(|p| {
            let w = window(p);
            let mut v = json!({"router": p.router, "port": p.port, "kind": p.kind, "label": p.label, "bytes": w[0] as u64, "packets": w[1] as u64,
                "busy_ns": w[2], "idle_ns": w[3], "credit_stall_ns": w[4], "utilization": w[5]});
            if let Some(c) = &p.coords {
                v["coords"] = json!(c);
            }
            v
        })
        .collect();
    let sp: Vec<Value> = ports.iter().map(|p| json!({"router": p.router, "port": p.port, "kind": p.kind, "label": p.label})).collect();
    let u: Vec<Vec<f64>> = ports.iter().map(|p| (0..INTERVALS).map(|t| util(p.router, p.port, t) * scale).collect()).collect();
    let pk: Vec<Vec<u32>> = ports.iter().map(|_| vec![0; INTERVALS]).collect();
    json!({"ports": pj, "latency_ns": {}, "provenance": {},
        "series": {"interval_ns": 1000.0, "ports": sp, "utilization": u, "packets": pk}})
}

/// The data a page embeds.
fn data(html: &str) -> Value {
    let open = "<script id=\"data\" type=\"application/json\">";
    let at = html.find(open).unwrap() + open.len();
    serde_json::from_str(&html[at..at + html[at..].find("</script>").unwrap()]).unwrap()
}

fn one(v: &Value, max_links: usize) -> Value {
    data(&page(&[(Path::new("run.json"), v)], None, max_links).unwrap())
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Equal but for the last digit JSON's shortest decimal form may change.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

/// Drawn link `l` holds the mean of `members` per interval (rounded to the page's 0..=255)
/// and their window counters' mean and max.
fn check_mean(l: &Value, u: &Value, members: &[&Port]) {
    assert_eq!(l["block"]["links"].as_u64().unwrap() as usize, members.len(), "{l}");
    for t in 0..INTERVALS {
        let mean = members.iter().map(|p| util(p.router, p.port, t)).sum::<f64>() / members.len() as f64;
        let got = f(&u[t]);
        assert!((got - mean * 255.0).abs() <= 0.5 + 1e-9, "{l}: interval {t}: {got} for a mean of {mean}");
    }
    for k in 0..6 {
        let mean = members.iter().map(|p| window(p)[k]).sum::<f64>() / members.len() as f64;
        let max = members.iter().map(|p| window(p)[k]).fold(f64::MIN, f64::max);
        let (w, m) = (f(&l["window"][k]), f(&l["block"]["window_max"][k]));
        assert!(close(w, mean) && close(m, max), "{l}: counter {k}: {w}/{m} for {mean}/{max}");
    }
}

#[test]
fn a_torus_over_the_budget_is_drawn_in_blocks_of_means() {
    let ports = torus(&[4, 4, 2], &["X", "Y", "Z"]);
    let v = report(&ports, 1.0);
    // 32 routers x 6 links = 192; within 48: X and Y halved, 2x2x2 blocks of 2x2x1 routers.
    let d = one(&v, 48);
    let r = &d["runs"][0];
    assert_eq!((&r["shape"], &r["block"]["sizes"], &r["block"]["shape"]), (&json!([2, 2, 2]), &json!([2, 2, 1]), &json!([4, 4, 2])));
    assert_eq!((&r["block"]["links"], &r["block"]["most"]), (&json!(192), &json!(4)));
    let links = r["links"].as_array().unwrap();
    assert_eq!(links.len(), 48);
    let mut seen = std::collections::HashSet::new();
    for (l, u) in links.iter().zip(r["util"].as_array().unwrap()) {
        let ranges: Vec<[u32; 2]> = serde_json::from_value(l["block"]["ranges"].clone()).unwrap();
        let label = l["label"].as_str().unwrap();
        // Blocks of two coordinates along X and Y, one along Z; the block's coordinates.
        let coords: Vec<u32> = serde_json::from_value(l["coords"].clone()).unwrap();
        for (d, (rg, size)) in ranges.iter().zip([2, 2, 1]).enumerate() {
            assert_eq!((rg[1] - rg[0] + 1, rg[0] % size, coords[d]), (size, 0, rg[0] / size), "{l}");
        }
        assert!(seen.insert((coords, label.to_string())), "one drawn link per block and label: {l}");
        let members: Vec<&Port> = ports
            .iter()
            .filter(|p| p.kind == "network" && p.label == label)
            .filter(|p| p.coords.as_ref().unwrap().iter().zip(&ranges).all(|(c, rg)| (rg[0]..=rg[1]).contains(c)))
            .collect();
        check_mean(l, u, &members);
        let lo = members.iter().map(|p| p.router).min().unwrap();
        assert_eq!(l["block"]["routers"][0], json!(lo));
    }
    // Side by side, a second run of the same network gets the same blocks (its own values).
    let w = report(&ports, 0.5);
    let two = data(&page(&[(Path::new("a.json"), &v), (Path::new("b.json"), &w)], None, 48).unwrap());
    let (a, b) = (&two["runs"][0], &two["runs"][1]);
    assert_eq!((&a["block"], &a["shape"]), (&b["block"], &b["shape"]));
    let blocks = |r: &Value| r["links"].as_array().unwrap().iter().map(|l| (l["label"].clone(), l["block"]["ranges"].clone())).collect::<Vec<_>>();
    assert_eq!(blocks(a), blocks(b));
    assert_ne!(a["util"], b["util"]);
}

#[test]
fn under_the_budget_every_link_is_drawn_as_it_is() {
    let ports = torus(&[4, 4, 2], &["X", "Y", "Z"]);
    let v = report(&ports, 1.0);
    let d = one(&v, 192);
    let r = &d["runs"][0];
    assert!(r.get("block").is_none(), "no blocks: {}", r["block"]);
    assert_eq!(r["shape"], json!([4, 4, 2]));
    let net: Vec<&Port> = ports.iter().filter(|p| p.kind == "network").collect();
    let links = r["links"].as_array().unwrap();
    assert_eq!(links.len(), net.len());
    for ((l, u), p) in links.iter().zip(r["util"].as_array().unwrap()).zip(&net) {
        assert!(l.get("block").is_none());
        assert_eq!((&l["router"], &l["port"], &l["coords"]), (&json!(p.router), &json!(p.port), &json!(p.coords)));
        for t in 0..INTERVALS {
            assert_eq!(f(&u[t]), (util(p.router, p.port, t) * 255.0).round(), "{l}");
        }
        let w: Vec<f64> = l["window"].as_array().unwrap().iter().map(f).collect();
        assert!(w.iter().zip(window(p)).all(|(a, b)| close(*a, b)), "{w:?} for {:?}", window(p));
    }
    // The default budget is far above these 192 links: the same page.
    assert_eq!(one(&v, MAX_LINKS), d);
}

/// A one-rail fat-tree: 6 leaf switches (routers 0-5) with 4 nodes and 2 links up each, 3
/// spine switches (routers 6-8) with 4 links down each.
fn fat_tree() -> Vec<Port> {
    let mut ports = Vec::new();
    let mut add = |router: u32, port: u32, kind: &str, label: &str| {
        let p = Port {
            router,
            port,
            kind: kind.into(),
            label: label.into(),
            bytes: 0,
            packets: 0,
            busy_ns: 0.0,
            idle_ns: 0.0,
            credit_stall_ns: 0.0,
            utilization: 0.0,
            coords: None,
        };
        ports.push(p);
    };
    for r in 0..6 {
        (0..4).for_each(|p| add(r, p, "terminal", "rail0-L1-down"));
        (4..6).for_each(|p| add(r, p, "network", "rail0-L1-up"));
    }
    for r in 6..9 {
        (0..4).for_each(|p| add(r, p, "network", "rail0-L2-down"));
    }
    ports
}

#[test]
fn a_fat_tree_over_the_budget_groups_neighbouring_switches_of_a_row() {
    let ports = fat_tree();
    let v = report(&ports, 1.0);
    // 48 links; 15 with one per switch and row, still over 10: blocks of two switches, 3 + 3 + 2.
    let d = one(&v, 10);
    let r = &d["runs"][0];
    assert_eq!((&r["block"]["sizes"], &r["block"]["links"], &r["block"]["most"]), (&json!([2]), &json!(48), &json!(8)));
    let links = r["links"].as_array().unwrap();
    let per_row = |label: &str| links.iter().filter(|l| l["label"] == label).count();
    assert_eq!((links.len(), per_row("rail0-L1-down"), per_row("rail0-L1-up"), per_row("rail0-L2-down")), (8, 3, 3, 2));
    for (l, u) in links.iter().zip(r["util"].as_array().unwrap()) {
        let label = l["label"].as_str().unwrap();
        // The row's switches in order; the block's ranks among them.
        let mut row: Vec<u32> = ports.iter().filter(|p| p.label == label).map(|p| p.router).collect();
        row.dedup();
        let rg: [u32; 2] = serde_json::from_value(l["block"]["ranges"][0].clone()).unwrap();
        let switches = &row[rg[0] as usize..=rg[1] as usize];
        assert!(rg[0].is_multiple_of(2) && switches.len() <= 2, "{l}");
        assert_eq!(l["block"]["routers"], json!([switches[0], switches[switches.len() - 1]]));
        let members: Vec<&Port> = ports.iter().filter(|p| p.label == label && switches.contains(&p.router)).collect();
        assert!(members.iter().all(|p| p.kind == members[0].kind));
        check_mean(l, u, &members);
    }
    // Under the budget, every port is its own bar.
    let d = one(&v, 48);
    assert!(d["runs"][0].get("block").is_none());
    assert_eq!(d["runs"][0]["links"].as_array().unwrap().len(), 48);
}

#[test]
fn a_budget_of_no_links_is_refused_naming_the_flag() {
    let v = report(&torus(&[2, 2], &["X", "Y"]), 1.0);
    let e = page(&[(Path::new("run.json"), &v)], None, 0).unwrap_err().to_string();
    assert!(e.contains("--max-links") && e.contains('0'), "{e}");
}
