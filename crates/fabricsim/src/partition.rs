//! A preset shrunk to a partition: when a scenario gives a machine preset its own
//! `topology.shape` but not its own packaging, the preset's packaging follows the partition
//! instead of refusing it. Along each axis:
//!
//! * a block (`packaging.block`, links inside one electrical) longer than the partition shrinks
//!   to the partition: a partition smaller than a block sits inside one, with no optical link
//!   along that axis; a partition that is not a whole number of blocks takes the largest length
//!   dividing both (an approximation: the real cut may fall inside blocks);
//! * a rack (`packaging.rack`) longer than the partition shrinks to it (the partition sits in
//!   one rack, so no cable runs along that axis), else to the largest multiple of the block it
//!   holds;
//! * a ring closes through a loopback (`packaging.loopback_axes`) only along axes where the
//!   partition spans the preset's whole block (a Blue Gene/Q partition of 4 along A loops back
//!   in the midplane's link chips; one of 2 lies inside the midplane, its ring on the board).
//!
//! Keys the scenario writes itself are never changed.

/// Fit the preset's packaging in `merged` (preset and scenario merged) to its shape, unless
/// `explicit` (what the scenario wrote) gives no shape of its own or gives the key.
pub fn fit(merged: &mut toml::Value, explicit: &toml::Value) {
    let own = |section: &str, key: &str| explicit.get(section).and_then(|s| s.get(key)).is_some();
    if !own("topology", "shape") {
        return;
    }
    let Some(shape) = ints(merged.get("topology").and_then(|t| t.get("shape"))) else { return };
    // Axis names (the topology's, or its default ones), for the loopback axes.
    let names = strings(merged.get("topology").and_then(|t| t.get("axes")))
        .filter(|v| v.len() == shape.len())
        .unwrap_or_else(|| fabricsim_topology::Torus::default_names(shape.len()));
    let Some(packaging) = merged.get_mut("packaging").and_then(|p| p.as_table_mut()) else { return };
    let preset_block = ints(packaging.get("block")).filter(|b| b.len() == shape.len());
    let block = match (&preset_block, own("packaging", "block")) {
        (Some(b), false) => {
            let fitted: Vec<i64> = b.iter().zip(&shape).map(|(&b, &k)| if b >= k { k } else { gcd(b, k) }).collect();
            packaging.insert("block".into(), toml::Value::Array(fitted.iter().map(|&x| toml::Value::Integer(x)).collect()));
            if !own("packaging", "loopback_axes") {
                shrink_loopbacks(packaging, b, &fitted, &names);
            }
            Some(fitted)
        }
        _ => ints(packaging.get("block")),
    };
    if own("packaging", "rack") {
        return;
    }
    let Some(rack) = ints(packaging.get("rack")).filter(|r| r.len() == shape.len()) else { return };
    let fitted: Vec<i64> = rack
        .iter()
        .zip(&shape)
        .enumerate()
        .map(|(a, (&r, &k))| {
            let b = block.as_ref().and_then(|b| b.get(a).copied()).unwrap_or(1).max(1);
            if r >= k {
                k
            } else {
                (r / b * b).max(b)
            }
        })
        .collect();
    packaging.insert("rack".into(), toml::Value::Array(fitted.iter().map(|&x| toml::Value::Integer(x)).collect()));
}

/// Drop from the preset's `loopback_axes` the axes along which its block shrank to the
/// partition (`names`: the axis names; a preset that names no loopback axes means every axis).
fn shrink_loopbacks(packaging: &mut toml::map::Map<String, toml::Value>, block: &[i64], fitted: &[i64], names: &[String]) {
    if packaging.get("loopback_latency").is_none() {
        return;
    }
    let listed = strings(packaging.get("loopback_axes"));
    let kept: Vec<toml::Value> = names
        .iter()
        .enumerate()
        .filter(|(a, n)| fitted[*a] == block[*a] && listed.as_ref().is_none_or(|l| l.contains(n)))
        .map(|(_, n)| toml::Value::String(n.clone()))
        .collect();
    packaging.insert("loopback_axes".into(), toml::Value::Array(kept));
}

/// An array of strings (others left out), if `v` is an array.
fn strings(v: Option<&toml::Value>) -> Option<Vec<String>> {
    Some(v?.as_array()?.iter().filter_map(|x| x.as_str().map(String::from)).collect())
}

/// An array of positive integers, if `v` is one.
fn ints(v: Option<&toml::Value>) -> Option<Vec<i64>> {
    v?.as_array()?.iter().map(|x| x.as_integer().filter(|&i| i > 0)).collect()
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn packaging(sets: &[&str]) -> (Option<Vec<u32>>, Option<Vec<u32>>) {
        let mut s = Scenario::default();
        s.apply_overrides(&sets.iter().map(|x| x.to_string()).collect::<Vec<_>>()).unwrap();
        (s.packaging.block.clone(), s.packaging.rack.clone())
    }

    #[test]
    fn the_preset_packaging_follows_the_partition_and_written_keys_stay() {
        // TofuD: blocks (2,2,4,2,3,2), racks of two blocks along Z.
        let half = packaging(&["machine.preset=tofud", "topology.shape=[2,2,4,2,3,2]"]);
        assert_eq!(half, (Some(vec![2, 2, 4, 2, 3, 2]), Some(vec![2, 2, 4, 2, 3, 2])));
        let small = packaging(&["machine.preset=tofud", "topology.shape=[1,1,2,2,3,2]"]);
        assert_eq!(small, (Some(vec![1, 1, 2, 2, 3, 2]), Some(vec![1, 1, 2, 2, 3, 2])));
        let two_racks = packaging(&["machine.preset=tofud", "topology.shape=[2,2,16,2,3,2]"]);
        assert_eq!(two_racks, (Some(vec![2, 2, 4, 2, 3, 2]), Some(vec![2, 2, 8, 2, 3, 2])));
        // Not a whole number of blocks along Z: the largest length dividing both.
        let odd = packaging(&["machine.preset=tofud", "topology.shape=[2,2,6,2,3,2]"]);
        assert_eq!(odd.0, Some(vec![2, 2, 2, 2, 3, 2]));
        // Written keys are kept (and checked as written); the full preset is unchanged.
        let own = packaging(&["machine.preset=tofud", "topology.shape=[2,2,4,2,3,2]", "packaging.block=[1,1,1,1,1,1]"]);
        assert_eq!(own.0, Some(vec![1, 1, 1, 1, 1, 1]));
        assert_eq!(packaging(&["machine.preset=tofud"]), (Some(vec![2, 2, 4, 2, 3, 2]), Some(vec![2, 2, 8, 2, 3, 2])));
    }

    #[test]
    fn rings_loop_back_only_along_axes_the_partition_spans_a_whole_block_of() {
        let axes = |sets: &[&str]| {
            let mut s = Scenario::default();
            s.apply_overrides(&sets.iter().map(|x| x.to_string()).collect::<Vec<_>>()).unwrap();
            s.packaging.loopback_axes.clone()
        };
        let all = ["A", "B", "C", "D"].map(String::from).to_vec();
        assert_eq!(axes(&["machine.preset=bgq"]), Some(all.clone()));
        assert_eq!(axes(&["machine.preset=bgq", "topology.shape=[4,4,4,4,2]"]), Some(all));
        // A 4x4x2x2x2 partition: A and B span the midplane (link-chip loopbacks), C and D do not.
        assert_eq!(axes(&["machine.preset=bgq", "topology.shape=[4,4,2,2,2]"]), Some(["A", "B"].map(String::from).to_vec()));
        // Written axes stay.
        let own = axes(&["machine.preset=bgq", "topology.shape=[4,4,2,2,2]", "packaging.loopback_axes=[\"C\"]"]);
        assert_eq!(own, Some(vec!["C".to_string()]));
    }
}
