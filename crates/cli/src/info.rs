//! `fabricsim info`: the network's analysis as text or JSON.

use fabricsim::{InfoReport, PartitionReport};

/// Print `info` (JSON when `json`).
pub(crate) fn print(info: &InfoReport, json: bool) {
    let a = &info.analysis;
    if json {
        println!("{}", serde_json::to_string_pretty(info).expect("analysis serialises"));
    } else {
        println!("nodes                      {}", a.nodes);
        println!("routers                    {}", a.routers);
        println!("links                      {}", a.links);
        println!("terminal links             {}", a.terminal_links);
        println!("ports per node             {}", a.ports_per_node);
        println!("diameter                   {}", a.diameter);
        println!("average hops               {:.4}", a.average_hops);
        println!("bisection bandwidth        {:.3} GB/s", a.bisection_bandwidth / 1e9);
        println!("total injection bandwidth  {:.3} GB/s", a.total_injection_bandwidth / 1e9);
        println!("packet efficiency          {:.4}", info.packet_efficiency);
        println!("memory to simulate         {:.3} GB (estimate)", info.memory_estimate_bytes as f64 / 1e9);
        if let Some(b) = info.uniform_random_bound {
            println!("uniform random bound       {b:.4} (accepted payload over injection, at most)");
        }
        if let Some(k) = info.link_kinds {
            println!("links electrical           {}", k.links_electrical);
            println!("links optical              {}", k.links_optical);
            if k.links_loopback > 0 {
                println!("links loopback             {}", k.links_loopback);
            }
            println!("optical link fraction      {:.4}", k.optical_link_fraction);
        }
        for l in &info.link_latencies {
            println!("link latency {:>10.1} ns  {} links", l.latency_ns, l.links);
        }
        if let Some(h) = &info.collective_hardware {
            println!("collective hardware        {h}");
        }
        if let Some(p) = &info.partition {
            print_partition(p);
        }
        if let Some(why) = &info.not_built {
            println!("not built: {why}");
            println!("(the figures above come from the shape alone; the rest of the scenario was not checked)");
        }
    }
}

fn print_partition(p: &PartitionReport) {
    let grid = if p.grid.is_empty() { "subtrees".to_string() } else { format!("bricks {:?}", p.grid) };
    println!("partition                  {} blocks ({grid})", p.blocks);
    println!("routers per block          {}..{}", p.routers_per_block_min, p.routers_per_block_max);
    println!("nodes per block            {}..{}", p.nodes_per_block_min, p.nodes_per_block_max);
    println!("cut links                  {} ({:.4} of router links)", p.cut_links, p.cut_link_fraction);
    match p.lookahead_ns {
        Some(l) => println!("lookahead                  {l:.1} ns"),
        None => println!("lookahead                  none (one block: nothing is cut)"),
    }
}
