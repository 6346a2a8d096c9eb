//! One outcome from the blocks' outcomes: counts add up, latency histograms merge (integer
//! counts, so the order of merging changes nothing), and the conservation check runs over the
//! whole network.

use crate::meter::outcome::Outcome;
use fabricsim_core::{SimError, Time};

/// The run's outcome from the blocks' (`outs`, in block order; each closed at `end`), with
/// `in_flight` packets still alive in all blocks; `drained`: every measured message arrived.
pub(crate) fn outcome(outs: Vec<Outcome>, end: u64, in_flight: u64, drained: bool) -> Result<Outcome, SimError> {
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
    (total.sim_time, total.drained) = (Time(end), drained);
    if total.packets_injected != total.packets_delivered + total.packets_lost + in_flight {
        return Err(SimError::Conservation { injected: total.packets_injected, delivered: total.packets_delivered, in_flight });
    }
    Ok(total)
}
