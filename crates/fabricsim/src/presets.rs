//! Built-in machine presets. A preset is a scenario fragment (TOML, embedded at build time from
//! `crates/fabricsim/presets/`), with a comment on every value saying where it comes from. A
//! scenario names one with `[machine] preset = "..."`; its own keys override the preset's, key
//! by key (tables merge, other values replace).

use crate::Error;
use fabricsim_core::ConfigError;

/// (name, one-line description, TOML text).
pub const PRESETS: &[(&str, &str, &str)] = &[
    ("tofu-k", "K computer: Tofu, 24x18x16x2x3x2, X/Z/B torus, 4 TNIs, 5 GB/s links", include_str!("../presets/tofu-k.toml")),
    ("tofu-fx10", "PRIMEHPC FX10: Tofu (as K), shape of a few racks", include_str!("../presets/tofu-fx10.toml")),
    ("tofu2-fx100", "PRIMEHPC FX100: Tofu2, 12.5 GB/s links, optical outside a 2U chassis", include_str!("../presets/tofu2-fx100.toml")),
    ("tofud", "post-K / Fugaku: TofuD, 6 TNIs, 6.8 GB/s links, packet slicing, a few racks", include_str!("../presets/tofud.toml")),
    ("bgq", "Blue Gene/Q midplane: 4x4x4x4x2 5D torus, 2 GB/s links", include_str!("../presets/bgq.toml")),
    ("bgq-sequoia", "Blue Gene/Q Sequoia: 16x16x16x12x2", include_str!("../presets/bgq-sequoia.toml")),
    ("dawning5000", "Dawning 5000 prototype: 1024 nodes, 4 rails of 16-port 3-level fat-trees", include_str!("../presets/dawning5000.toml")),
    ("apenet-quong", "APEnet+ on QUonG: 3D torus of PCIe NICs, 13 Gb/s links (benchmark rate)", include_str!("../presets/apenet-quong.toml")),
];

/// The TOML text of a preset.
pub fn text(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|p| p.0 == name).map(|p| p.2)
}

/// If `value` names a preset, merge it under `value`.
pub fn apply(value: toml::Value) -> Result<toml::Value, Error> {
    let name = match value.get("machine").and_then(|m| m.get("preset")) {
        None => return Ok(value),
        Some(toml::Value::String(s)) => s.clone(),
        Some(other) => return Err(ConfigError::new("machine.preset", format!("{other} is not a preset name")).into()),
    };
    let text = text(&name).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
        ConfigError::new("machine.preset", format!("'{name}' is not one of {}", names.join(", ")))
    })?;
    let mut base: toml::Value = toml::from_str(text).map_err(|e| ConfigError::new("machine.preset", format!("preset '{name}' is malformed: {e}")))?;
    // A section chosen by `type` keeps the preset's keys only where the scenario keeps the
    // preset's type. Choosing another workload or routing type drops the preset's section;
    // another topology type keeps the keys that type takes too (a torus preset's shape and
    // links for a mesh, but not its wrap-around; only the links for a fat-tree).
    for section in ["workload", "topology", "routing", "hardware"] {
        let wanted = value.get(section).and_then(|w| w.get("type")).cloned();
        let preset_type = base.get(section).and_then(|w| w.get("type")).cloned();
        if wanted.is_none() || wanted == preset_type {
            continue;
        }
        let Some(t) = base.as_table_mut() else { continue };
        match (section, wanted.as_ref().and_then(|w| w.as_str())) {
            ("topology", Some(ty)) => {
                let keep = crate::scenario::TopologySpec::keys_of(ty);
                if let Some(toml::Value::Table(topo)) = t.get_mut("topology") {
                    topo.retain(|k: &str, _| keep.contains(&k));
                }
            }
            _ => {
                t.remove(section);
            }
        }
    }
    let explicit = value.clone();
    let mut merged = merge(base, value);
    crate::partition::fit(&mut merged, &explicit);
    Ok(merged)
}

fn merge(base: toml::Value, over: toml::Value) -> toml::Value {
    match (base, over) {
        (toml::Value::Table(mut b), toml::Value::Table(o)) => {
            for (k, v) in o {
                let merged = match b.remove(&k) {
                    Some(bv) => merge(bv, v),
                    None => v,
                };
                b.insert(k, merged);
            }
            toml::Value::Table(b)
        }
        (_, o) => o,
    }
}
