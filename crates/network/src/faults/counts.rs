//! What the faults and the protections did in a run: the report's `faults` object.

use serde::Serialize;

/// Counts over the whole run (warm-up included).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct FaultCounts {
    /// The protection scheme of the links.
    pub protection: &'static str,
    /// Lanes per link direction.
    pub lanes: u32,
    /// Corrupted lane slices of frames, by cause: random bit errors, bursts, a dark lane, a
    /// link that was down.
    pub errors_random: u64,
    /// Slices corrupted by a burst.
    pub errors_burst: u64,
    /// Slices sent on a dark lane.
    pub errors_dark_lane: u64,
    /// Attempts on a link direction that was down.
    pub errors_link_down: u64,
    /// Frame transmissions on faulty-capable links (first attempts and retransmissions).
    pub frames_sent: u64,
    /// Frames sent again: after a NAK, a timeout, or a lost acknowledgement.
    pub frames_retransmitted: u64,
    /// Negative acknowledgements the senders received.
    pub naks: u64,
    /// Retransmissions started by the timeout (NAK or ACK lost on the way back).
    pub timeouts: u64,
    /// Copies a receiver discarded by their sequence number (a resend after a lost ACK).
    pub duplicates_discarded: u64,
    /// Time frames waited for room in the retransmission buffer, summed over links, ns.
    pub retry_buffer_wait_ns: f64,
    /// Slicing: switches to duplicate mode and back to split mode, and frames sent duplicated.
    pub switches_to_duplicate: u64,
    /// Slicing: switches back to split mode.
    pub switches_to_split: u64,
    /// Slicing: frames sent in duplicate mode.
    pub frames_duplicated: u64,
    /// Degrade: lanes dropped for good, and link directions running on fewer lanes.
    pub lanes_dropped: u64,
    /// Degrade: link directions running on fewer lanes.
    pub degraded_links: u64,
    /// Packets lost (only with protection `none`) and the messages they belonged to (never
    /// completed to the workload).
    pub packets_lost: u64,
    /// Messages that lost a packet.
    pub messages_lost: u64,
    /// Packets delivered twice: always 0 (a duplicate delivery stops the run with an error).
    pub packets_duplicated: u64,
    /// Corrupted frames that passed the CRC check (delivered, counted here).
    pub undetected: u64,
    /// Hops at which a packet went around a link the routers knew was down (its candidates
    /// differed from the routing's without failures; a packet may count at several hops).
    pub reroutes: u64,
    /// Packets stopped where the routing found no live way on to their destination (the
    /// failures the routers knew of cut their pair off), and the messages they belonged to
    /// (never completed to the workload).
    pub packets_cut: u64,
    /// Messages that had a packet stopped.
    pub messages_cut: u64,
    /// Source-destination pairs (nodes) that had a packet stopped.
    pub pairs_cut: u64,
    /// Those pairs, by source then destination.
    pub cut: Vec<CutPair>,
    /// Per scheduled event: when it happened and how long until the link it struck carried a
    /// frame cleanly (first attempt) again (`null`: it never did).
    pub recovery: Vec<Recovery>,
}

/// A source-destination pair the failures cut off.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CutPair {
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Its packets that were stopped.
    pub packets: u64,
    /// When the first was stopped, ns.
    pub first_ns: f64,
}

/// Recovery after one scheduled event.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Recovery {
    /// Index in `faults.events`.
    pub event: u32,
    /// Its kind.
    pub kind: &'static str,
    /// When it happened, ns.
    pub at_ns: f64,
    /// Time from it to the first clean frame on its link, ns.
    pub recovered_after_ns: Option<f64>,
}

impl FaultCounts {
    /// Every lane error injected.
    pub fn errors(&self) -> u64 {
        self.errors_random + self.errors_burst + self.errors_dark_lane + self.errors_link_down
    }

    /// The first `n` cut pairs as `: a->b, c->d, ...` (empty when none).
    pub fn cut_list(&self, n: usize) -> String {
        if self.cut.is_empty() {
            return String::new();
        }
        let mut s: Vec<String> = self.cut.iter().take(n).map(|c| format!("{}->{}", c.src, c.dst)).collect();
        if self.cut.len() > n {
            s.push(format!("... {} more", self.cut.len() - n));
        }
        format!(": {}", s.join(", "))
    }

    /// Summary lines for a terminal.
    pub fn summary(&self) -> Vec<String> {
        let mut v = vec![
            format!(
                "faults: {} lane errors ({} random, {} burst, {} dark lane, {} link down); protection {} on {} lane(s)",
                self.errors(),
                self.errors_random,
                self.errors_burst,
                self.errors_dark_lane,
                self.errors_link_down,
                self.protection,
                self.lanes
            ),
            format!(
                "  frames {} sent, {} retransmitted ({} NAKs, {} timeouts, {} duplicates discarded), {:.0} ns waiting for retry buffer",
                self.frames_sent, self.frames_retransmitted, self.naks, self.timeouts, self.duplicates_discarded, self.retry_buffer_wait_ns
            ),
            format!(
                "  packets lost {}, messages lost {}, duplicated {}, undetected corruptions {}",
                self.packets_lost, self.messages_lost, self.packets_duplicated, self.undetected
            ),
        ];
        if self.packets_cut > 0 || self.reroutes > 0 {
            v.push(format!(
                "  reroutes {}, packets cut off {} ({} messages, {} source-destination pairs{})",
                self.reroutes,
                self.packets_cut,
                self.messages_cut,
                self.pairs_cut,
                self.cut_list(5)
            ));
        }
        if self.protection == "slicing" {
            v.push(format!(
                "  slicing: {} switches to duplicate, {} back to split, {} frames duplicated",
                self.switches_to_duplicate, self.switches_to_split, self.frames_duplicated
            ));
        }
        if self.protection == "degrade" {
            v.push(format!("  degrade: {} lanes dropped, {} links degraded", self.lanes_dropped, self.degraded_links));
        }
        for r in &self.recovery {
            let after = r.recovered_after_ns.map_or("never".to_string(), |x| format!("{x:.0} ns"));
            v.push(format!("  event {} ({} at {:.0} ns): recovered after {after}", r.event, r.kind, r.at_ns));
        }
        v
    }
}
