use super::stream::{generate, parse, schedule, StreamJob};
use super::*;

#[test]
fn regions_wrap_round_rings_and_stop_at_lines() {
    let r = Region { origin: vec![3, 0], shape: vec![2, 2] };
    assert_eq!(region_nodes(&[4, 4], &[true, true], &r), Some(vec![3, 0, 7, 4]));
    assert_eq!(region_nodes(&[4, 4], &[false, true], &r), None);
}

#[test]
fn first_fit_takes_the_first_free_place_and_rotation_finds_more() {
    let mut occ = Occupancy::new(&[4, 4], &[false, false]);
    let (r, ids) = occ.find(&[2, 4], Policy::EXACT).unwrap();
    assert_eq!((r.origin.clone(), ids.len()), (vec![0, 0], 8));
    occ.set(&ids, true);
    // A 4x2 box fits only as 2x4 beside the first.
    assert_eq!(occ.find(&[4, 2], Policy::EXACT).map(|(r, _)| r.origin), None);
    let (r, _) = occ.find(&[4, 2], Policy { rotate: true, pad: 1.0 }).unwrap();
    assert_eq!((r.origin, r.shape), (vec![2, 0], vec![2, 4]));
    assert_eq!(occ.free(), 8);
}

#[test]
fn padding_gives_a_larger_box_when_no_order_of_the_shape_fits() {
    let occ = Occupancy::new(&[4, 4], &[false, false]);
    // 1x5 fits no axis of a 4x4; padded to 2x3 (6 nodes) it does.
    assert!(occ.find(&[1, 5], Policy { rotate: true, pad: 1.0 }).is_none());
    let (r, ids) = occ.find(&[1, 5], Policy { rotate: true, pad: 1.25 }).unwrap();
    assert_eq!(ids.len(), 6);
    assert_eq!(r.shape.iter().product::<u32>(), 6);
}

#[test]
fn backfilling_starts_a_short_job_ahead_of_a_blocked_one_without_delaying_it() {
    let occ = Occupancy::new(&[4, 4], &[false, false]);
    let job = |arrival: f64, shape: &[u32], runtime: f64| StreamJob { arrival, shape: shape.to_vec(), runtime };
    // A half-machine job runs for 10 s; a whole-machine job waits for it; a small short job
    // arrives after and fits beside the first, ending before the reservation.
    let jobs = [job(0.0, &[2, 4], 10.0), job(1.0, &[4, 4], 5.0), job(2.0, &[2, 2], 3.0)];
    let (placed, stats) = schedule(occ, &jobs, Policy::EXACT);
    let starts: Vec<f64> = placed.iter().map(|p| p.as_ref().unwrap().start).collect();
    assert_eq!(starts, vec![0.0, 10.0, 2.0]);
    assert_eq!(stats.backfilled, 1);
    assert_eq!(stats.wait_max, 9.0);
    assert!((stats.makespan - 15.0).abs() < 1e-9);
    // Asked: 8*10 + 16*5 + 4*3 node-seconds over 16 nodes x 15 s.
    assert!((stats.utilization - 172.0 / 240.0).abs() < 1e-9);
}

#[test]
fn generated_streams_fit_the_machine_and_come_in_order() {
    let jobs = generate(&[8, 8, 8], 200, 1.0, 20.0, 128, 7);
    assert_eq!(jobs.len(), 200);
    assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    assert!(jobs.iter().all(|j| j.shape.iter().zip([8, 8, 8]).all(|(&s, d)| s >= 1 && s <= d)));
    assert_eq!(jobs, generate(&[8, 8, 8], 200, 1.0, 20.0, 128, 7));
    let occ = Occupancy::new(&[8, 8, 8], &[true, true, true]);
    let (exact, e) = schedule(occ.clone(), &jobs, Policy::EXACT);
    let (_, r) = schedule(occ, &jobs, Policy { rotate: true, pad: 1.0 });
    // Every job fits an empty machine; no two running jobs share a node is checked below.
    assert_eq!(e.refused, 0);
    assert!(r.wait_mean <= e.wait_mean * 1.5, "rotation should not make waiting much worse: {} vs {}", r.wait_mean, e.wait_mean);
    let mut spans: Vec<(f64, f64, Vec<u32>)> = Vec::new();
    let o = Occupancy::new(&[8, 8, 8], &[true, true, true]);
    for (j, p) in jobs.iter().zip(&exact) {
        let p = p.as_ref().unwrap();
        assert!(p.start >= j.arrival);
        spans.push((p.start, p.start + j.runtime, o.nodes_of(&p.region).unwrap()));
    }
    for (a, x) in spans.iter().enumerate() {
        for y in &spans[a + 1..] {
            if x.0 < y.1 && y.0 < x.1 {
                assert!(x.2.iter().all(|n| !y.2.contains(n)), "two running jobs share a node");
            }
        }
    }
}

#[test]
fn stream_files_name_the_bad_line() {
    assert_eq!(parse("arrival,shape,runtime\n0,2x2,5\n1.5,1x4,2\n", 2).unwrap().len(), 2);
    let e = parse("0,2x2,5\n1,2x0,3\n", 2).unwrap_err();
    assert!(e.starts_with("line 2: shape '2x0'"), "{e}");
    let e = parse("0,2x2,5\n1,2x2x2,3\n", 2).unwrap_err();
    assert!(e.contains("3 axes, the machine 2"), "{e}");
    let e = parse("5,2x2,5\n1,2x2,3\n", 2).unwrap_err();
    assert!(e.contains("arrival order"), "{e}");
}
