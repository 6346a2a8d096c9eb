//! How the blocks of a partitioned run reach each other: the one seam between a run whose
//! blocks all live in this process ([`InProcess`]) and one spread over several processes (MPI
//! ranks, implemented outside this crate). The window loop (`mod.rs`) is the same for both: at
//! each window end it hands this process's blocks what the others sent them, and adds up the
//! global quantities; with one process both are plain local work and nothing is encoded.

use super::wire::{Reader, Writer};
use fabricsim_core::{ConfigError, SimError};

/// Moves bytes between the processes of a partitioned run (collective calls: every process
/// makes the same calls in the same order).
pub trait Transport {
    /// This process's index, from 0.
    fn rank(&self) -> usize;
    /// Processes in the run.
    fn ranks(&self) -> usize;
    /// Send `out[r]` to process `r` (one entry per process, this one's included); returns what
    /// each process sent this one, in process order.
    fn all_to_all(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>>;
    /// Every process's `mine`, in process order.
    fn all_gather(&mut self, mine: &[u8]) -> Vec<Vec<u8>>;
}

/// All blocks in this process (threads): nothing to send.
#[derive(Debug, Clone, Copy, Default)]
pub struct InProcess;

impl Transport for InProcess {
    fn rank(&self) -> usize {
        0
    }
    fn ranks(&self) -> usize {
        1
    }
    fn all_to_all(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        out
    }
    fn all_gather(&mut self, mine: &[u8]) -> Vec<Vec<u8>> {
        vec![mine.to_vec()]
    }
}

/// The quantities judged at a window end, over the blocks of one process or (added up) of all.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Tally {
    /// A block stopped with an error.
    pub(crate) error: bool,
    /// The latest instant a block handled.
    pub(crate) last: u64,
    /// The earliest pending event (`u64::MAX`: none).
    pub(crate) next: u64,
    /// Measured messages outstanding (balances that add up, wrapping).
    pub(crate) outstanding: u64,
    /// Packets in the network, messages not yet complete, completions on their way.
    pub(crate) in_network: u64,
    pub(crate) open: u64,
    pub(crate) notes: u64,
    /// The latest any block made progress until.
    pub(crate) last_progress: u64,
    /// Some block's workload saturated / ended; every block's finished.
    pub(crate) saturated: bool,
    pub(crate) ended: bool,
    pub(crate) finished: bool,
}

impl Tally {
    /// Nothing yet: the starting point of a fold over blocks.
    pub(crate) const NONE: Tally = Tally {
        error: false,
        last: 0,
        next: u64::MAX,
        outstanding: 0,
        in_network: 0,
        open: 0,
        notes: 0,
        last_progress: 0,
        saturated: false,
        ended: false,
        finished: true,
    };

    /// This tally and `o` together.
    pub(crate) fn add(self, o: Tally) -> Tally {
        Tally {
            error: self.error || o.error,
            last: self.last.max(o.last),
            next: self.next.min(o.next),
            outstanding: self.outstanding.wrapping_add(o.outstanding),
            in_network: self.in_network.wrapping_add(o.in_network),
            open: self.open.wrapping_add(o.open),
            notes: self.notes.wrapping_add(o.notes),
            last_progress: self.last_progress.max(o.last_progress),
            saturated: self.saturated || o.saturated,
            ended: self.ended || o.ended,
            finished: self.finished && o.finished,
        }
    }

    fn put(&self, w: &mut Writer) {
        let Tally { error, last, next, outstanding, in_network, open, notes, last_progress, saturated, ended, finished } = *self;
        [last, next, outstanding, in_network, open, notes, last_progress].into_iter().for_each(|v| w.u64(v));
        [error, saturated, ended, finished].into_iter().for_each(|v| w.bool(v));
    }

    fn get(r: &mut Reader) -> Tally {
        let [last, next, outstanding, in_network, open, notes, last_progress] = std::array::from_fn(|_| r.u64());
        let [error, saturated, ended, finished] = std::array::from_fn(|_| r.bool());
        Tally { error, last, next, outstanding, in_network, open, notes, last_progress, saturated, ended, finished }
    }

    /// This process's tally added up over all processes of `net` (as is with one).
    pub(crate) fn over(self, net: &mut dyn Transport) -> Tally {
        if net.ranks() == 1 {
            return self;
        }
        let mut w = Writer::default();
        self.put(&mut w);
        net.all_gather(&w.0).iter().map(|b| Tally::get(&mut Reader(b))).fold(Tally::NONE, Tally::add)
    }
}

/// The first error of any process (this one's `mine`, if it has one): every process of a run
/// whose tally says a block failed returns it.
pub(crate) fn first_error(net: &mut dyn Transport, mine: Option<SimError>) -> SimError {
    if net.ranks() == 1 {
        return mine.unwrap_or(SimError::Usage("a block failed without an error"));
    }
    let mut w = Writer::default();
    put_error(&mut w, mine.as_ref());
    let all = net.all_gather(&w.0);
    if let Some(e) = mine {
        return e;
    }
    all.iter().find_map(|b| get_error(&mut Reader(b))).unwrap_or(SimError::Usage("a block failed without an error"))
}

fn put_str(w: &mut Writer, s: &str) {
    w.u64(s.len() as u64);
    w.0.extend_from_slice(s.as_bytes());
}

fn get_str(r: &mut Reader) -> String {
    let n = r.u64() as usize;
    let (s, rest) = r.0.split_at(n);
    r.0 = rest;
    String::from_utf8_lossy(s).into_owned()
}

fn put_error(w: &mut Writer, e: Option<&SimError>) {
    match e {
        None => w.u8(0),
        Some(SimError::Deadlock { buffered, idle_ns, ports }) => {
            w.u8(1);
            w.u64(*buffered);
            w.u64(*idle_ns);
            put_str(w, ports);
        }
        Some(SimError::Conservation { injected, delivered, in_flight }) => {
            w.u8(2);
            [*injected, *delivered, *in_flight].into_iter().for_each(|v| w.u64(v));
        }
        Some(SimError::DuplicateDelivery { src, packet }) => {
            w.u8(3);
            w.u32(*src);
            w.u32(*packet);
        }
        Some(SimError::LinkFailed(s)) => {
            w.u8(4);
            put_str(w, s);
        }
        Some(SimError::Disconnected(s)) => {
            w.u8(5);
            put_str(w, s);
        }
        Some(SimError::Config(c)) => {
            w.u8(6);
            put_str(w, &c.field);
            put_str(w, &c.message);
        }
        Some(SimError::Usage(s)) => {
            w.u8(7);
            put_str(w, s);
        }
        Some(SimError::Observer(s)) => {
            w.u8(8);
            put_str(w, s);
        }
    }
}

fn get_error(r: &mut Reader) -> Option<SimError> {
    Some(match r.u8() {
        0 => return None,
        1 => SimError::Deadlock { buffered: r.u64(), idle_ns: r.u64(), ports: get_str(r) },
        2 => SimError::Conservation { injected: r.u64(), delivered: r.u64(), in_flight: r.u64() },
        3 => SimError::DuplicateDelivery { src: r.u32(), packet: r.u32() },
        4 => SimError::LinkFailed(get_str(r)),
        5 => SimError::Disconnected(get_str(r)),
        6 => SimError::Config(ConfigError::new(get_str(r), get_str(r))),
        8 => SimError::Observer(get_str(r)),
        // A usage error's text is static: say where it came from instead.
        _ => SimError::Usage("another process's run was stepped out of order"),
    })
}
