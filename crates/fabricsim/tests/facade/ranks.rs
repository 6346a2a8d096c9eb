//! A run spread over processes (`parallel::run_ranks`, what `mpirun` runs with the `mpi`
//! feature) reports what the sequential run reports. The processes are threads here, joined by
//! channels through the same `Transport` seam MPI implements, so the encodings, the exchange's
//! order and the window ends' sums are all exercised without MPI.

use fabricsim::parallel::{run_ranks, Transport};
use fabricsim::{Error, Plan, RunReport, Scenario};
use serde_json::Value;
use std::sync::mpsc::{channel, Receiver, Sender};

/// One of `ranks` processes: a channel to and from each (itself included).
struct Pipes {
    rank: usize,
    to: Vec<Sender<Vec<u8>>>,
    from: Vec<Receiver<Vec<u8>>>,
}

impl Transport for Pipes {
    fn rank(&self) -> usize {
        self.rank
    }
    fn ranks(&self) -> usize {
        self.to.len()
    }
    fn all_to_all(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        out.into_iter().zip(&self.to).for_each(|(b, t)| t.send(b).unwrap());
        self.from.iter().map(|r| r.recv().unwrap()).collect()
    }
    fn all_gather(&mut self, mine: &[u8]) -> Vec<Vec<u8>> {
        self.to.iter().for_each(|t| t.send(mine.to_vec()).unwrap());
        self.from.iter().map(|r| r.recv().unwrap()).collect()
    }
}

/// `ranks` connected processes.
fn pipes(ranks: usize) -> Vec<Pipes> {
    let mut to: Vec<Vec<Sender<Vec<u8>>>> = (0..ranks).map(|_| Vec::new()).collect();
    let mut from: Vec<Vec<Receiver<Vec<u8>>>> = (0..ranks).map(|_| Vec::new()).collect();
    for sends in &mut to {
        for receiver in &mut from {
            let (t, r) = channel();
            sends.push(t);
            receiver.push(r);
        }
    }
    // from[receiver] was filled in sender order.
    to.into_iter().zip(from).enumerate().map(|(rank, (to, from))| Pipes { rank, to, from }).collect()
}

/// Every process's result of running `s` over `ranks` processes.
fn over_ranks(s: &Scenario, ranks: usize) -> Vec<Result<RunReport, Error>> {
    std::thread::scope(|scope| {
        let runs: Vec<_> = pipes(ranks)
            .into_iter()
            .map(|p| {
                scope.spawn(move || {
                    let plan = Plan::new(s)?;
                    run_ranks(&plan, Box::new(p), |_| ())
                })
            })
            .collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// A report's results: without the engine's own work (as the CLI's threads test).
fn results(r: &RunReport) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| {
                    !(k.contains("wall")
                        || k.contains("per_second")
                        || k == "events"
                        || k.starts_with("peak_")
                        || k == "provenance"
                        || k == "parallel")
                });
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(r).unwrap();
    strip(&mut v);
    v
}

fn example(name: &str, sets: &[&str]) -> Scenario {
    let mut s = Scenario::from_file(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{name}.toml"))).unwrap();
    s.apply_overrides(&sets.iter().map(|x| x.to_string()).collect::<Vec<_>>()).unwrap();
    s
}

#[test]
fn two_and_three_processes_report_what_one_does() {
    for (name, ranks, threads) in
        [("torus-uniform", 2, "1"), ("torus-uniform", 3, "1"), ("fat-tree-hot-region", 2, "2"), ("torus6d-locality", 2, "1")]
    {
        let s = example(name, &["sim.duration=1us", &format!("sim.threads={threads}")]);
        let one = Plan::new(&example(name, &["sim.duration=1us"])).unwrap().run().unwrap();
        assert!(one.packets_delivered > 0, "{name} moves traffic");
        for (rank, r) in over_ranks(&s, ranks).into_iter().enumerate() {
            let r = r.unwrap();
            assert!(results(&r) == results(&one), "{name}: rank {rank} of {ranks} ({threads} threads each) differs from the sequential run");
            let p = r.parallel.as_ref().unwrap();
            assert_eq!((p.ranks, p.blocks as usize, p.busy_s.len()), (Some(ranks as u32), ranks * p.threads as usize, p.blocks as usize));
            assert!(p.packets_crossed > 0, "{name}: packets crossed between processes");
        }
    }
}

#[test]
fn what_cannot_be_spread_is_refused_by_every_process_naming_the_key() {
    let refused = |s: Scenario, ranks: usize, key: &str| {
        for r in over_ranks(&s, ranks) {
            match r {
                Err(Error::Config(e)) => assert_eq!(e.field, key, "{e}"),
                Err(e) => panic!("{key}: {e}"),
                Ok(_) => panic!("{key}: not refused"),
            }
        }
    };
    refused(example("torus-uniform", &["topology.shape=[2,1,1]"]), 3, "mpirun -n");
    refused(example("all-to-all", &[]), 2, "workload.type");
}
