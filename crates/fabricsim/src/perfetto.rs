//! A run as a trace that Perfetto's UI (and chrome://tracing) opens: the JSON trace event
//! format, written while the run goes (`run --perfetto FILE`, `sweep`/`collective --perfetto
//! DIR`).
//!
//! Each router is a process whose counter tracks are its links' utilisation per interval: a `C`
//! event when a link's value changes, written as soon as the interval is complete
//! ([`TraceCounters`], a series writer), so memory holds one value per kept port whatever the
//! run's length. What is known only when the run ends comes after, in [`write_tail`]: the run's
//! phases (warm-up, measurement window, drain) as slices on a "run" track, and for a collective
//! or program each rank's time from the start until it finished, with its operations (sends,
//! receives, computes, in-network collectives) as slices nested in it. The trace format lets
//! events come in any order; the viewer sorts them.

use crate::report::RunReport;
use crate::row_text::{PortTexts, Rows};
use crate::series_filter::SeriesPortInfo;
use crate::series_stream::RowWriter;
use fabricsim_program::{OpKind, OpSlice};
use fabricsim_topology::{Topology, Torus};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::Write;

/// Microseconds, the trace format's unit, from nanoseconds.
fn us(ns: f64) -> f64 {
    ns / 1e3
}

/// The process of router `r`'s counter tracks (pid 1 is the run's own).
fn router_pid(r: u32) -> u64 {
    100 + r as u64
}

/// The track of `rank`'s lane `lane` among `ranks` ranks (lane 0: the rank's own track).
pub fn op_track(rank: u32, lane: u32, ranks: usize) -> u64 {
    10 + rank as u64 + lane as u64 * ranks as u64
}

/// One counter event.
#[derive(Serialize)]
struct Counter<'a> {
    name: &'a str,
    ph: &'static str,
    pid: u64,
    ts: f64,
    args: Utilization,
}

#[derive(Serialize)]
struct Utilization {
    utilization: f64,
}

/// A series writer that writes the trace's head and its counter events (see the module docs).
pub struct TraceCounters<W: Write> {
    out: W,
    interval_ns: f64,
    topology: Topology,
    /// Per kept port: its router, its track's name and the value it last wrote (NaN: none).
    tracks: Vec<(u32, String, f64)>,
    /// Per kept port: its counter event's text up to the time stamp's value.
    heads: PortTexts,
    events: Rows,
    /// End of the last interval written, ns.
    end_ns: f64,
    started: bool,
}

impl<W: Write> TraceCounters<W> {
    /// Counters of intervals of `interval_ns`, router processes named by their coordinates on
    /// `topology`'s torus.
    pub fn new(out: W, interval_ns: f64, topology: Topology) -> Self {
        TraceCounters {
            out,
            interval_ns,
            topology,
            tracks: Vec::new(),
            heads: PortTexts::default(),
            events: Rows::default(),
            end_ns: 0.0,
            started: false,
        }
    }

    /// The writer, to add [`write_tail`] after [`RowWriter::finish`].
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The array's opening and one first event, so that every later event follows a comma.
    fn start(&mut self) -> std::io::Result<()> {
        if !self.started {
            self.started = true;
            self.out.write_all(br#"{"displayTimeUnit":"ns","traceEvents":["#)?;
            let ev = json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "run phases"}});
            serde_json::to_writer(&mut self.out, &ev)?;
        }
        Ok(())
    }

    fn event(&mut self, ev: &impl Serialize) -> std::io::Result<()> {
        self.out.write_all(b",")?;
        serde_json::to_writer(&mut self.out, ev).map_err(std::io::Error::from)
    }

    /// The kept ports' tracks, named "LABEL util" under their router's process; ports of one
    /// router that share a label (a fat-tree switch's up or down ports) add their port number.
    /// Their events' heads are made once.
    fn name_tracks(&mut self, ports: &[SeriesPortInfo]) -> std::io::Result<()> {
        let mut seen = std::collections::HashMap::new();
        for p in ports {
            *seen.entry((p.router, p.label.as_str())).or_insert(0u32) += 1;
        }
        self.tracks = ports
            .iter()
            .map(|p| {
                let name =
                    if seen[&(p.router, p.label.as_str())] > 1 { format!("{} port {} util", p.label, p.local) } else { format!("{} util", p.label) };
                (p.router, name, f64::NAN)
            })
            .collect();
        let tracks = &self.tracks;
        let mut names = tracks.iter();
        self.heads.make(ports, |head, _| {
            let (router, name, _) = names.next().expect("a track per port");
            head.extend_from_slice(b",{\"name\":");
            serde_json::to_writer(&mut *head, name)?;
            write!(head, r#","ph":"C","pid":{},"ts":"#, router_pid(*router))
        })
    }

    /// Router `r`'s process name: its id and, on a torus, its coordinates.
    fn router_name(&self, r: u32) -> String {
        match &self.topology {
            Topology::Torus(t) => {
                let c = t.coords(Torus::node_on(fabricsim_core::RouterId(r)));
                format!("router {r} ({})", c.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
            }
            _ => format!("router {r}"),
        }
    }
}

impl<W: Write> RowWriter for TraceCounters<W> {
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, _packets: &[u32]) -> std::io::Result<()> {
        self.start()?;
        if self.tracks.is_empty() {
            self.name_tracks(ports)?;
        }
        // The text of what serde writes for a [`Counter`], made from its parts: the track's
        // head, the interval's time stamp (once), the value.
        let mut ts = Vec::with_capacity(24);
        serde_json::to_writer(&mut ts, &us(t_ns))?;
        for ((track, head), u) in self.tracks.iter_mut().zip(self.heads.iter()).zip(utilization) {
            // NaN never equals itself: a track's first value is always written.
            if u != track.2 {
                let ev = &mut self.events.buf;
                ev.extend_from_slice(head);
                ev.extend_from_slice(&ts);
                ev.extend_from_slice(br#","args":{"utilization":"#);
                serde_json::to_writer(&mut *ev, &u)?;
                ev.extend_from_slice(b"}}");
                track.2 = u;
                self.events.row_done(&mut self.out)?;
            }
        }
        self.events.flush(&mut self.out)?;
        self.end_ns = t_ns + self.interval_ns;
        Ok(())
    }

    /// Each track's last value again at the series' end (so the viewer draws the last
    /// interval), and the routers' process names; the array stays open for [`write_tail`].
    fn finish(&mut self, _truncated_at_ns: Option<f64>) -> std::io::Result<()> {
        self.start()?;
        let tracks = std::mem::take(&mut self.tracks);
        for (router, name, last) in &tracks {
            let ev = Counter { name, ph: "C", pid: router_pid(*router), ts: us(self.end_ns), args: Utilization { utilization: *last } };
            self.event(&ev)?;
        }
        let mut named: Vec<u32> = tracks.iter().map(|t| t.0).collect();
        named.dedup(); // kept ports come in port order, so a router's ports are together
        for r in named {
            let ev = json!({"name": "process_name", "ph": "M", "pid": router_pid(r), "args": {"name": self.router_name(r)}});
            self.event(&ev)?;
        }
        self.out.flush()
    }
}

/// The trace's end: the run's phases, a collective's or program's ranks and operations, the
/// process and thread names, and the closing of what [`TraceCounters`] opened.
pub fn write_tail(out: &mut impl Write, report: &RunReport) -> std::io::Result<()> {
    let mut ev: Vec<Value> = Vec::new();
    let name = report.name.as_deref().unwrap_or("run");
    ev.push(json!({"name": "process_name", "ph": "M", "pid": 1, "args": {"name": format!("fabricsim: {name}")}}));
    let mut slice = |tid: u64, label: &str, from: f64, to: f64, args: Value| {
        if to > from {
            ev.push(json!({"name": label, "ph": "X", "pid": 1, "tid": tid, "ts": us(from), "dur": us(to - from), "args": args}));
        }
    };
    let (warmup, window, end) = (report.warmup_ns, report.window_ns, report.sim_time_ns);
    slice(1, "warm-up", 0.0, warmup, json!({}));
    slice(1, "measurement window", warmup, warmup + window, json!({}));
    slice(1, "drain", warmup + window, end, json!({}));
    let (ranks, ops): (&[f64], &[OpSlice]) = match &report.collective {
        Some(c) => {
            let what = format!("{} ({})", c.op, c.algorithm);
            // The collective starts after the warm-up of its background traffic (0 without one).
            let start = warmup;
            slice(2, &what, start, start + c.time_ns, json!({"bytes": c.bytes, "ranks": c.ranks}));
            for (rank, done) in c.rank_done_ns.iter().enumerate() {
                slice(10 + rank as u64, &what, start, start + done, json!({"rank": rank}));
            }
            // The operations nest in their rank's slice: they run between its start and its end.
            for o in &c.ops {
                let (from, to) = (start + o.start.as_ns_f64(), start + o.end.as_ns_f64());
                let tid = op_track(o.rank, o.lane, c.rank_done_ns.len());
                ev.push(json!({"name": op_name(o), "ph": "X", "pid": 1, "tid": tid, "ts": us(from), "dur": us(to - from), "args": op_args(o)}));
            }
            (&c.rank_done_ns, &c.ops)
        }
        None => (&[], &[]),
    };
    ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "collective"}}));
    for rank in 0..ranks.len() {
        ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 10 + rank, "args": {"name": format!("rank {rank}")}}));
    }
    let mut lanes: Vec<(u32, u32)> = ops.iter().filter(|o| o.lane > 0).map(|o| (o.rank, o.lane)).collect();
    lanes.sort_unstable();
    lanes.dedup();
    for (rank, lane) in lanes {
        let tid = op_track(rank, lane, ranks.len());
        ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": format!("rank {rank} lane {lane}")}}));
    }
    for e in &ev {
        out.write_all(b",")?;
        serde_json::to_writer(&mut *out, e)?;
    }
    out.write_all(b"]}")?;
    out.flush()
}

/// A program operation as the trace names it: what it did and with whom.
fn op_name(o: &OpSlice) -> String {
    match (o.kind, o.peer) {
        (OpKind::Send, Some(p)) => format!("send to {p}"),
        (OpKind::Get, Some(p)) => format!("get from {p}"),
        (OpKind::Recv, Some(p)) => format!("recv from {p}"),
        (k, _) => k.name().to_string(),
    }
}

/// What an operation's slice shows when clicked.
fn op_args(o: &OpSlice) -> Value {
    json!({"op": o.kind.name(), "peer": o.peer, "bytes": o.bytes, "tag": o.tag, "index": o.index})
}
