//! NIC engines and their queues: back-pressure on saturated sources, rails chosen per message or
//! per pair, messages interleaved packet by packet.

use super::*;

#[test]
fn saturated_sources_are_back_pressured_by_a_bounded_nic_queue() {
    // Far beyond saturation: with a queue of 8 messages per NIC the sources are refused and the
    // backlog stays bounded; without a bound every message waits at the NIC. The network carries
    // the same traffic either way.
    let run = |limit: &str| {
        let limit = format!("nic.queue_limit={limit}");
        let s = with(&["topology.shape=[6,6]", "workload.load=1.0", "sim.duration=5us", "workload.type=transpose", &limit]);
        Plan::new(&s).unwrap().run().unwrap()
    };
    let bounded = run("8");
    let open = run("0");
    assert!(bounded.workload.refused.unwrap() > 0);
    assert_eq!(open.workload.refused, Some(0));
    assert!(open.workload.messages > bounded.workload.messages + bounded.workload.refused.unwrap() / 2);
    let (a, b) = (bounded.accepted_throughput.fraction_of_injection, open.accepted_throughput.fraction_of_injection);
    assert!((a - b).abs() < 0.1 * b, "{a} vs {b}");
    assert!(bounded.summary().contains("refused"));
    // Known saturated, the bounded run stops at the end of its window instead of draining.
    assert!(!bounded.drained);
    assert!(bounded.sim_time_ns <= bounded.warmup_ns + bounded.window_ns + 100.0, "{}", bounded.sim_time_ns);
    assert!(open.sim_time_ns > open.warmup_ns + open.window_ns + 100.0);
}

#[test]
fn rail_choice_stripes_a_stream_or_keeps_it_on_one_rail() {
    // Two rails of 5 GB/s: one stream of messages between a pair runs on both when messages
    // are dealt round-robin or to the shorter queue, on one when rails are chosen per pair.
    let throughput = |choice: &str| {
        let s = with(&[
            "topology.type=fat_tree",
            "topology.radix=4",
            "topology.levels=2",
            "topology.rails=2",
            &format!("nic.engine_choice={choice}"),
            "workload.type=throughput",
            "workload.src=[0]",
            "workload.dst=[3]",
            "workload.message_size=64KB",
            "workload.messages=16",
        ]);
        Plan::new(&s).unwrap().run().unwrap().workload.throughput_gb_per_s.unwrap()
    };
    let (rr, pair, short) = (throughput("round_robin"), throughput("pair"), throughput("shortest_queue"));
    assert!(pair < 5.01 && pair > 4.5, "{pair}");
    assert!(rr > 1.9 * pair && short > 1.9 * pair, "round robin {rr}, shortest queue {short}, pair {pair}");
}

#[test]
fn an_engine_interleaving_messages_sends_their_packets_in_turn() {
    // A 3-ring, one engine per node, every node posting its two 2 KB messages (four 512 B
    // packets each) at once, one hop each way round: no link carries two messages. One at a
    // time, the first message ends after 4 packets and the second after 8. Taking turns: the
    // first packet leaves as the first message is posted, before the second is; then they
    // alternate (A A B A B A B B), so the first ends after 6 and the second still after 8.
    // The exchange ends at the same time.
    let run = |interleave: u32| {
        let s = with(&[
            "topology.shape=[3]",
            "workload.type=all_to_all",
            "workload.schedule=all_at_once",
            "workload.message_size=2KB",
            "packet.max_payload=512B",
            &format!("nic.interleave={interleave}"),
        ]);
        let r = Plan::new(&s).unwrap().run().unwrap();
        (r.latency_ns.mean, r.workload.completion_ns.unwrap())
    };
    let (one, two) = (run(1), run(2));
    assert!((one.1 - two.1).abs() < 1e-6, "completion {} vs {}", one.1, two.1);
    // The mean message latency grows by (6 - 4) / 2 packet times: one 512 B packet at 5 GB/s.
    let packet = 512.0 / 5.0;
    assert!((two.0 - one.0 - packet).abs() < 1e-6, "mean latency {} -> {}", one.0, two.0);
    // More than the queue holds changes nothing more; 0 is refused by name.
    assert_eq!(run(8), two);
    let e = Plan::new(&with(&["nic.interleave=0"])).err().unwrap().to_string();
    assert!(e.starts_with("nic.interleave"), "{e}");
}
