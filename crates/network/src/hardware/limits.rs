//! The in-network hardware's limits, each checked in one place; errors name the scenario key
//! (`hardware.*`). [`check`] takes the parameters alone (`NetworkParams::validate`);
//! [`check_on`] the routing they run on (the topology a unit needs, a rail that exists, a
//! packet that fits a class VC), before anything is built.

use super::spec::HardwareSpec;
use fabricsim_core::{ConfigError, Time};
use fabricsim_routing::{Kind, Routing};

/// Refuse parameters no network could run, for NICs with `engines` injection engines.
pub(crate) fn check(spec: &HardwareSpec, engines: u32) -> Result<(), ConfigError> {
    if let Some(g) = spec.gates() {
        if g.tnis == 0 || g.tnis > engines {
            return Err(ConfigError::new("hardware.tnis", format!("{} must be between 1 and the NIC's {engines} engines", g.tnis)));
        }
        if g.channels == 0 || g.gates < g.channels {
            return Err(ConfigError::new(
                "hardware.gates",
                format!("{} channels and {} gates per TNI: a TNI needs at least one channel and a gate per channel", g.channels, g.gates),
            ));
        }
        for (field, v) in [("hardware.int_elements", g.int_elements), ("hardware.float_elements", g.float_elements)] {
            if !(1..=8).contains(&v) {
                return Err(ConfigError::new(field, format!("{v} must be between 1 and 8")));
            }
        }
    }
    if let Some(b) = spec.switch_barrier() {
        if !(0.0..1.0).contains(&b.drop) {
            return Err(ConfigError::new("hardware.barrier.drop", format!("{}: a probability below 1", b.drop)));
        }
        if !(1..=1024).contains(&b.payload.get()) {
            return Err(ConfigError::new("hardware.barrier.payload", format!("{}: 1 to 1024 bytes", b.payload.get())));
        }
        for (field, t) in [("hardware.barrier.retry_timeout", b.retry_timeout), ("hardware.barrier.urge_timeout", b.urge_timeout)] {
            if t == Time::ZERO {
                return Err(ConfigError::new(field, "must be above zero"));
            }
        }
    }
    Ok(())
}

/// Refuse hardware the network built by `routing` cannot hold: class routes off a torus or
/// mesh, switch logic off a fat-tree or on a rail it does not have, a barrier packet larger
/// than `class_payload` (the largest payload of the class VCs, when there are any).
pub(crate) fn check_on(spec: &HardwareSpec, routing: &Routing, class_payload: Option<u32>) -> Result<(), ConfigError> {
    if spec.class_routes().is_some() && routing.torus().is_none() {
        return Err(ConfigError::new("hardware.type", "'bgq_class_routes' are trees in a torus or mesh"));
    }
    if spec.switch_barrier().is_none() && spec.multicast().is_none() {
        return Ok(());
    }
    let Kind::UpDown(u) = routing.kind() else {
        return Err(ConfigError::new("hardware.type", "'dawning_switch' is logic in the switches of a fat-tree (up/down routing)"));
    };
    let rails = u.tree().rails();
    let planes = [("hardware.barrier.rail", spec.switch_barrier().map(|b| b.rail)), ("hardware.multicast.rail", spec.multicast().map(|m| m.rail))];
    for (field, rail) in planes {
        if let Some(rail) = rail.filter(|&r| r >= rails) {
            return Err(ConfigError::new(field, format!("{rail}: the network has {rails} rails")));
        }
    }
    if let (Some(b), Some(max)) = (spec.switch_barrier(), class_payload) {
        if b.payload.get() > max as u64 {
            let msg = format!("{}: a barrier packet must fit the {max}-byte payload the class VC's buffer takes", b.payload);
            return Err(ConfigError::new("hardware.barrier.payload", msg));
        }
    }
    Ok(())
}
