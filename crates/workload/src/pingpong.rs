//! Ping-pong: a message goes from `a` to `b`, and as soon as it has fully arrived `b` sends one
//! back, `iterations` round trips in all. Each leg starts on an idle network, so the mean of the
//! legs is the one-way latency (the usual half round trip).

use crate::WorkloadReport;

use fabricsim_nic::{Api, Delivered, Rank, Workload};

/// A message bouncing between two ranks (see the module docs).
pub struct PingPong {
    a: Rank,
    b: Rank,
    bytes: u64,
    legs_left: u64,
    total_legs: u64,
    sum_ps: u128,
    legs: u64,
}

impl PingPong {
    /// `iterations` round trips (at least 1) of a `bytes`-byte Put between `a` and `b`, the
    /// first leg from `a`.
    pub fn new(a: Rank, b: Rank, bytes: u64, iterations: u64) -> Self {
        let total_legs = 2 * iterations.max(1);
        PingPong { a, b, bytes, legs_left: total_legs, total_legs, sum_ps: 0, legs: 0 }
    }

    /// Mean one-way latency of the legs that arrived (`None` before the first) and their count.
    pub fn report(&self) -> WorkloadReport {
        WorkloadReport {
            one_way_latency_ns: (self.legs > 0).then(|| self.sum_ps as f64 / self.legs as f64 / 1e3),
            messages: self.legs,
            ..Default::default()
        }
    }
}

impl Workload for PingPong {
    fn start(&mut self, api: &mut Api) {
        api.send(self.a, self.b, self.bytes, 0);
        self.legs_left -= 1;
    }

    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.sum_ps += (m.delivered - m.created).ps() as u128;
        self.legs += 1;
        if self.legs_left > 0 {
            self.legs_left -= 1;
            let back = if m.dst == self.b { self.a } else { self.b };
            api.send(m.dst, back, self.bytes, 0);
        }
    }

    /// Every leg has arrived (not only been sent).
    fn finished(&self) -> bool {
        self.legs_left == 0 && self.legs == self.total_legs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricsim_core::Time;
    use fabricsim_nic::mock::MockNic;
    use fabricsim_nic::Message;

    #[test]
    fn each_arrival_sends_the_message_back_until_the_legs_are_done() {
        let (mut nic, mut w) = (MockNic::new(8), PingPong::new(Rank(2), Rank(5), 64, 2));
        nic.start(&mut w);
        assert_eq!(nic.posted[0].1, Message::put(Rank(2), Rank(5), 64));
        for (leg, at) in [(0, 300), (1, 700), (2, 1000)] {
            nic.now = Time::from_ns(at);
            nic.deliver(&mut w, leg);
        }
        // Legs alternate direction: 2 -> 5, 5 -> 2, 2 -> 5, 5 -> 2.
        let dirs: Vec<(u32, u32)> = nic.posted.iter().map(|(_, m)| (m.src.0, m.dst.0)).collect();
        assert_eq!(dirs, vec![(2, 5), (5, 2), (2, 5), (5, 2)]);
        assert!(!w.finished(), "four legs posted, three arrived");
        nic.now = Time::from_ns(1400);
        nic.deliver(&mut w, 3);
        assert!(w.finished());
        // Each leg measured from its posting: 300, 400, 300, 400 ns.
        assert_eq!(w.report().one_way_latency_ns, Some(350.0));
    }
}
