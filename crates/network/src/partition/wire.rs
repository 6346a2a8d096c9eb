//! Plain byte encodings of what blocks in different processes send each other: a window's
//! outboxes (packets, credits, freed message handles) and, once, a process's part of the
//! outcome. Little-endian, fixed-width fields, in declaration order; every struct is taken
//! apart field by field, so adding a field to one fails to compile here until it is sent too.
//! Only runs whose blocks are in several processes (MPI) encode anything.

use super::cut::{CutCredit, CutPacket, Outbox};
use crate::fabric::records::InputVcId;
use crate::meter::outcome::Outcome;
use crate::packet::{Message, Packet, PacketId};
use fabricsim_core::Time;
use fabricsim_stats::{LatencyHistogram, PortCounters};

/// Appends fields to a byte buffer.
#[derive(Debug, Default)]
pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub(crate) fn bool(&mut self, v: bool) {
        self.0.push(v as u8);
    }
}

/// Takes fields off a byte buffer, in the order a [`Writer`] put them.
#[derive(Debug)]
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().expect("N bytes")
    }
    pub(crate) fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    pub(crate) fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    pub(crate) fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    pub(crate) fn bool(&mut self) -> bool {
        self.u8() != 0
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn put_packet(w: &mut Writer, p: &Packet) {
    let Packet { seq, src, msg, dst, wire_bytes, payload, ready_at, tail, next, q, out, out_vc, prio, armed, hint, uncached, zone, escaped, agent } =
        *p;
    [seq, src, msg, dst, wire_bytes, payload, next.0, q.0, out].into_iter().for_each(|v| w.u32(v));
    [ready_at, tail].into_iter().for_each(|v| w.u64(v));
    [out_vc, prio, hint, zone].into_iter().for_each(|v| w.u8(v));
    [armed, uncached, escaped, agent].into_iter().for_each(|v| w.bool(v));
}

fn get_packet(r: &mut Reader) -> Packet {
    let [seq, src, msg, dst, wire_bytes, payload, next, q, out] = std::array::from_fn(|_| r.u32());
    let [ready_at, tail] = std::array::from_fn(|_| r.u64());
    let [out_vc, prio, hint, zone] = std::array::from_fn(|_| r.u8());
    let [armed, uncached, escaped, agent] = std::array::from_fn(|_| r.bool());
    let (next, q) = (PacketId(next), InputVcId(q));
    Packet { seq, src, msg, dst, wire_bytes, payload, ready_at, tail, next, q, out, out_vc, prio, armed, hint, uncached, zone, escaped, agent }
}

fn put_message(w: &mut Writer, m: &Message) {
    let Message { src, dst, bytes, packetized, delivered, created, tag, next, prio, measured, hint, uncached, op, engine, pace, route } = *m;
    [src, dst, next, pace].into_iter().for_each(|v| w.u32(v));
    [bytes, packetized, delivered, created, tag].into_iter().for_each(|v| w.u64(v));
    [prio, hint, op, engine, route].into_iter().for_each(|v| w.u8(v));
    [measured, uncached].into_iter().for_each(|v| w.bool(v));
}

fn get_message(r: &mut Reader) -> Message {
    let [src, dst, next, pace] = std::array::from_fn(|_| r.u32());
    let [bytes, packetized, delivered, created, tag] = std::array::from_fn(|_| r.u64());
    let [prio, hint, op, engine, route] = std::array::from_fn(|_| r.u8());
    let [measured, uncached] = std::array::from_fn(|_| r.bool());
    Message { src, dst, bytes, packetized, delivered, created, tag, next, prio, measured, hint, uncached, op, engine, pace, route }
}

/// Append outbox `o`, sent from block `from` to block `to`.
pub(crate) fn put_outbox(w: &mut Writer, from: u32, to: u32, o: &Outbox) {
    let Outbox { packets, credits, frees } = o;
    [from, to, packets.len() as u32, credits.len() as u32, frees.len() as u32].into_iter().for_each(|v| w.u32(v));
    for cp in packets {
        let CutPacket { p, m, origin_msg, ds_q, tail, ready, back_to_back } = cp;
        put_packet(w, p);
        put_message(w, m);
        w.u32(*origin_msg);
        w.u32(ds_q.0);
        w.u64(*tail);
        w.u64(*ready);
        w.bool(*back_to_back);
    }
    for c in credits {
        let CutCredit { q, bytes, at, silent } = c;
        w.u32(q.0);
        w.u32(*bytes);
        w.u64(*at);
        w.bool(*silent);
    }
    frees.iter().for_each(|&h| w.u32(h));
}

/// The next outbox in `r`: (sending block, receiving block, outbox).
pub(crate) fn get_outbox(r: &mut Reader) -> (u32, u32, Outbox) {
    let [from, to, packets, credits, frees] = std::array::from_fn(|_| r.u32());
    let packets = (0..packets)
        .map(|_| {
            let (p, m) = (get_packet(r), get_message(r));
            let (origin_msg, ds_q) = (r.u32(), InputVcId(r.u32()));
            let (tail, ready, back_to_back) = (r.u64(), r.u64(), r.bool());
            CutPacket { p, m, origin_msg, ds_q, tail, ready, back_to_back }
        })
        .collect();
    let credits = (0..credits).map(|_| CutCredit { q: InputVcId(r.u32()), bytes: r.u32(), at: r.u64(), silent: r.bool() }).collect();
    let frees = (0..frees).map(|_| r.u32()).collect();
    (from, to, Outbox { packets, credits, frees })
}

fn put_histogram(w: &mut Writer, h: &LatencyHistogram) {
    let (buckets, sum) = h.parts();
    w.u64(buckets.len() as u64);
    buckets.iter().for_each(|&(v, n)| {
        w.u64(v);
        w.u64(n);
    });
    w.u64(sum as u64);
    w.u64((sum >> 64) as u64);
}

fn get_histogram(r: &mut Reader) -> LatencyHistogram {
    let n = r.u64();
    let buckets: Vec<(u64, u64)> = (0..n).map(|_| (r.u64(), r.u64())).collect();
    let sum = r.u64() as u128 | (r.u64() as u128) << 64;
    LatencyHistogram::from_parts(&buckets, sum)
}

/// Append a process's part of a run's outcome (its blocks' merged, see `merge.rs`).
pub(crate) fn put_outcome(w: &mut Writer, o: &Outcome) {
    let Outcome {
        sim_time,
        events,
        packets_injected,
        packets_delivered,
        bytes_delivered,
        messages_delivered,
        packet_hops,
        message_latency,
        packet_latency,
        window_bytes,
        window_bytes_first_half,
        window,
        drained,
        peak_packets,
        peak_messages,
        packets_escaped,
        packets_lost,
    } = o;
    let (peak_packets, peak_messages) = (*peak_packets as u64, *peak_messages as u64);
    [sim_time.ps(), *events, *packets_injected, *packets_delivered, *bytes_delivered, *messages_delivered, *packet_hops]
        .into_iter()
        .for_each(|v| w.u64(v));
    [*window_bytes, *window_bytes_first_half, window.ps(), peak_packets, peak_messages, *packets_escaped, *packets_lost]
        .into_iter()
        .for_each(|v| w.u64(v));
    w.bool(*drained);
    put_histogram(w, message_latency);
    put_histogram(w, packet_latency);
}

/// The outcome part [`put_outcome`] appended.
pub(crate) fn get_outcome(r: &mut Reader) -> Outcome {
    let [sim_time, events, packets_injected, packets_delivered, bytes_delivered, messages_delivered, packet_hops] = std::array::from_fn(|_| r.u64());
    let [window_bytes, window_bytes_first_half, window, peak_packets, peak_messages, packets_escaped, packets_lost] =
        std::array::from_fn(|_| r.u64());
    let drained = r.bool();
    let (message_latency, packet_latency) = (get_histogram(r), get_histogram(r));
    Outcome {
        sim_time: Time(sim_time),
        events,
        packets_injected,
        packets_delivered,
        bytes_delivered,
        messages_delivered,
        packet_hops,
        message_latency,
        packet_latency,
        window_bytes,
        window_bytes_first_half,
        window: Time(window),
        drained,
        peak_packets: peak_packets as usize,
        peak_messages: peak_messages as usize,
        packets_escaped,
        packets_lost,
    }
}

/// Append per-port counters.
pub(crate) fn put_ports(w: &mut Writer, ports: &[PortCounters]) {
    w.u64(ports.len() as u64);
    for p in ports {
        let PortCounters { bytes, packets, busy_ps, stall_ps } = *p;
        [bytes, packets, busy_ps, stall_ps].into_iter().for_each(|v| w.u64(v));
    }
}

/// The per-port counters [`put_ports`] appended.
pub(crate) fn get_ports(r: &mut Reader) -> Vec<PortCounters> {
    let n = r.u64();
    (0..n).map(|_| PortCounters { bytes: r.u64(), packets: r.u64(), busy_ps: r.u64(), stall_ps: r.u64() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outbox_comes_back_as_it_was_sent() {
        let p = Packet {
            seq: 7,
            src: 3,
            msg: 11,
            dst: 9,
            wire_bytes: 272,
            payload: 256,
            ready_at: 1234,
            tail: 5678,
            next: PacketId(4),
            q: InputVcId(21),
            out: 5,
            out_vc: 1,
            prio: 2,
            armed: true,
            hint: 3,
            uncached: true,
            zone: 4,
            escaped: true,
            agent: false,
        };
        let m = Message {
            src: 3,
            dst: 9,
            bytes: 4096,
            packetized: 512,
            delivered: 256,
            created: 99,
            tag: 42,
            next: 17,
            prio: 2,
            measured: true,
            hint: 3,
            uncached: false,
            op: 1,
            engine: 2,
            pace: 800,
            route: 1,
        };
        let cp = CutPacket { p, m, origin_msg: 13, ds_q: InputVcId(33), tail: 777, ready: 888, back_to_back: true };
        let o =
            Outbox { packets: vec![cp, cp], credits: vec![CutCredit { q: InputVcId(8), bytes: 272, at: 999, silent: true }], frees: vec![5, 6, 7] };
        let mut w = Writer::default();
        put_outbox(&mut w, 1, 2, &o);
        put_outbox(&mut w, 3, 0, &Outbox::default());
        let mut r = Reader(&w.0);
        let (from, to, back) = get_outbox(&mut r);
        assert_eq!((from, to), (1, 2));
        assert_eq!(format!("{back:?}"), format!("{o:?}"));
        let (from, to, empty) = get_outbox(&mut r);
        assert!((from, to) == (3, 0) && empty.is_empty() && r.is_empty());
    }

    #[test]
    fn an_outcome_comes_back_with_its_histograms() {
        let mut o = Outcome::empty();
        (o.events, o.packets_injected, o.packets_delivered, o.window, o.peak_packets) = (10, 20, 19, Time(5000), 6);
        for t in [1, 999, 1_000_001, 123_456_789, 0] {
            o.message_latency.record(Time(t));
            o.packet_latency.record(Time(t / 2));
        }
        let mut w = Writer::default();
        put_outcome(&mut w, &o);
        let mut back = get_outcome(&mut Reader(&w.0));
        for (a, b) in [(&back.message_latency, &o.message_latency), (&back.packet_latency, &o.packet_latency)] {
            assert_eq!(a.parts(), b.parts());
            assert_eq!(a.summary(), b.summary());
        }
        (back.message_latency, back.packet_latency) = (o.message_latency.clone(), o.packet_latency.clone());
        assert_eq!(format!("{back:?}"), format!("{o:?}"));
    }
}
