//! One outcome from the blocks' outcomes: counts add up, latency histograms merge (integer
//! counts, so the order of merging changes nothing), and the conservation check runs over the
//! whole network.

use super::transport::{self, Transport};
use super::wire::{self, Reader, Writer};
use crate::meter::outcome::Outcome;
use fabricsim_core::{SimError, Time};

/// The blocks' outcomes (`outs`, in block order) added up.
pub(crate) fn sum(outs: Vec<Outcome>) -> Outcome {
    let mut it = outs.into_iter();
    let mut total = it.next().expect("a run has a block");
    for o in it {
        total.events += o.events;
        total.packets_injected += o.packets_injected;
        total.packets_delivered += o.packets_delivered;
        total.bytes_delivered += o.bytes_delivered;
        total.messages_delivered += o.messages_delivered;
        total.packet_hops += o.packet_hops;
        total.message_latency.merge(&o.message_latency);
        total.packet_latency.merge(&o.packet_latency);
        total.window_bytes += o.window_bytes;
        total.window_bytes_first_half += o.window_bytes_first_half;
        total.peak_packets += o.peak_packets;
        total.peak_messages += o.peak_messages;
        total.packets_escaped += o.packets_escaped;
        total.packets_lost += o.packets_lost;
    }
    total
}

/// This process's summed outcome `mine` (or its error), with `in_flight` packets alive in its
/// blocks and `crossed` packets taken in, added up over the processes of `net` (in process
/// order); any process's error is every process's.
pub(crate) fn over(net: &mut dyn Transport, mine: Result<Outcome, SimError>, in_flight: u64, crossed: u64) -> Result<(Outcome, u64, u64), SimError> {
    if net.ranks() == 1 {
        return Ok((mine?, in_flight, crossed));
    }
    let mut w = Writer::default();
    w.bool(mine.is_ok());
    if let Ok(o) = &mine {
        wire::put_outcome(&mut w, o);
        w.u64(in_flight);
        w.u64(crossed);
    }
    let all = net.all_gather(&w.0);
    let ok = all.iter().all(|b| b[0] == 1);
    if !ok || mine.is_err() {
        return Err(transport::first_error(net, mine.err()));
    }
    let (mut outs, mut in_flight, mut crossed) = (Vec::new(), 0, 0);
    for b in &all {
        let mut r = Reader(&b[1..]);
        outs.push(wire::get_outcome(&mut r));
        in_flight += r.u64();
        crossed += r.u64();
    }
    Ok((sum(outs), in_flight, crossed))
}

/// The run's outcome from all blocks' `total`, closed at `end`, with `in_flight` packets still
/// alive in all blocks; `drained`: every measured message arrived.
pub(crate) fn checked(mut total: Outcome, end: u64, in_flight: u64, drained: bool) -> Result<Outcome, SimError> {
    (total.sim_time, total.drained) = (Time(end), drained);
    if total.packets_injected != total.packets_delivered + total.packets_lost + in_flight {
        return Err(SimError::Conservation { injected: total.packets_injected, delivered: total.packets_delivered, in_flight });
    }
    Ok(total)
}
