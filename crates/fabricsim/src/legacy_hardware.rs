//! The sections that named in-network hardware before `[hardware]` existed, read as aliases of
//! it: `[barrier] hardware = "tofu_gates"` is `[hardware] type = "tofu_gates"`,
//! `[class_routes] enabled = true` is `type = "bgq_class_routes"`, and `[switch_barrier]` and
//! `[multicast]` with `enabled = true` are the units of `type = "dawning_switch"` (their keys
//! going to `[hardware.barrier]` and `[hardware.multicast]`). Each old section read gives a
//! deprecation note. Applied to the merged scenario (preset under the user's keys), so an old
//! key set on a preset that uses `[hardware]` (`--set multicast.root=random`) still lands.

use fabricsim_core::ConfigError;
use toml::{Table, Value};

/// An old section: its name, the key that switched it on, the hardware type it is, the unit of
/// `dawning_switch` it is (with its sub-table), and what its switch key says when on.
struct Alias {
    section: &'static str,
    switch: &'static str,
    ty: &'static str,
    unit: Option<&'static str>,
}

const ALIASES: [Alias; 4] = [
    Alias { section: "barrier", switch: "hardware", ty: "tofu_gates", unit: None },
    Alias { section: "class_routes", switch: "enabled", ty: "bgq_class_routes", unit: None },
    Alias { section: "switch_barrier", switch: "enabled", ty: "dawning_switch", unit: Some("barrier") },
    Alias { section: "multicast", switch: "enabled", ty: "dawning_switch", unit: Some("multicast") },
];

/// Rewrite the old sections of `root` as `[hardware]`, in place; one deprecation note per old
/// section found.
pub(crate) fn translate(root: &mut Table) -> Result<Vec<String>, ConfigError> {
    let mut notes = Vec::new();
    for alias in &ALIASES {
        let Some(old) = root.remove(alias.section) else { continue };
        let Value::Table(mut keys) = old else {
            return Err(ConfigError::new(alias.section, format!("{old} is not a section")));
        };
        let hw = root.entry("hardware").or_insert_with(|| Value::Table(Table::new()));
        let Value::Table(hw) = hw else { return Err(ConfigError::new("hardware", "is not a section")) };
        let on = switched(alias, keys.remove(alias.switch))?;
        apply(alias, on, keys, hw)?;
        let to = match alias.unit {
            Some(u) => format!("[hardware] type = \"dawning_switch\" (its keys in [hardware.{u}])"),
            None => format!("[hardware] type = \"{}\"", alias.ty),
        };
        notes.push(format!("[{}] is deprecated: write {to}", alias.section));
    }
    Ok(notes)
}

/// What the old switch key says: on, off, or not given.
fn switched(alias: &Alias, value: Option<Value>) -> Result<Option<bool>, ConfigError> {
    let field = || format!("{}.{}", alias.section, alias.switch);
    match (alias.switch, value) {
        (_, None) => Ok(None),
        ("hardware", Some(Value::String(s))) => match s.as_str() {
            "tofu_gates" => Ok(Some(true)),
            "none" => Ok(Some(false)),
            _ => Err(ConfigError::new(field(), format!("'{s}' is not one of none, tofu_gates"))),
        },
        (_, Some(Value::Boolean(b))) => Ok(Some(b)),
        (_, Some(v)) => Err(ConfigError::new(field(), format!("{v} is not {}", if alias.switch == "hardware" { "a name" } else { "true or false" }))),
    }
}

/// Apply one old section (switch `on`, other keys `keys`) to the hardware table `hw`.
fn apply(alias: &Alias, on: Option<bool>, keys: Table, hw: &mut Table) -> Result<(), ConfigError> {
    let current = hw.get("type").and_then(Value::as_str).unwrap_or("none").to_string();
    match on {
        Some(true) if current != alias.ty && current != "none" => {
            return Err(ConfigError::new(
                format!("{}.{}", alias.section, alias.switch),
                format!("the network's hardware is already '{current}' ([hardware] type): a network has one kind"),
            ));
        }
        Some(true) if current != alias.ty => {
            hw.clear();
            hw.insert("type".into(), Value::String(alias.ty.into()));
            if let Some(u) = alias.unit {
                hw.insert("units".into(), Value::Array(vec![Value::String(u.into())]));
            }
        }
        Some(true) => add_unit(alias, hw),
        Some(false) if current == alias.ty => {
            remove_unit(alias, hw);
            return Ok(());
        }
        Some(false) => return Ok(()),
        None => {}
    }
    if keys.is_empty() {
        return Ok(());
    }
    let now = hw.get("type").and_then(Value::as_str).unwrap_or("none");
    if now != alias.ty {
        let key = keys.keys().next().cloned().unwrap_or_default();
        return Err(ConfigError::new(
            format!("{}.{key}", alias.section),
            format!("applies to [hardware] type = \"{}\"; the network's hardware is '{now}'", alias.ty),
        ));
    }
    let target = match alias.unit {
        Some(u) => match hw.entry(u).or_insert_with(|| Value::Table(Table::new())) {
            Value::Table(t) => t,
            other => return Err(ConfigError::new(format!("hardware.{u}"), format!("{other} is not a section"))),
        },
        None => hw,
    };
    target.extend(keys);
    Ok(())
}

/// The units of a `dawning_switch` table: as listed, or both when unlisted.
fn units(hw: &Table) -> Vec<String> {
    match hw.get("units").and_then(Value::as_array) {
        Some(list) => list.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        None => vec!["barrier".into(), "multicast".into()],
    }
}

fn add_unit(alias: &Alias, hw: &mut Table) {
    let Some(u) = alias.unit else { return };
    let mut list = units(hw);
    if !list.iter().any(|x| x == u) {
        list.push(u.into());
        hw.insert("units".into(), Value::Array(list.into_iter().map(Value::String).collect()));
    }
}

/// Switch one unit off (a unit of `dawning_switch`), or the whole hardware.
fn remove_unit(alias: &Alias, hw: &mut Table) {
    let rest: Vec<String> = match alias.unit {
        Some(u) => units(hw).into_iter().filter(|x| x != u).collect(),
        None => Vec::new(),
    };
    if rest.is_empty() {
        hw.clear();
        hw.insert("type".into(), Value::String("none".into()));
    } else {
        hw.insert("units".into(), Value::Array(rest.into_iter().map(Value::String).collect()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Result<(Table, Vec<String>), ConfigError> {
        let mut t: Table = toml::from_str(text).unwrap();
        let notes = translate(&mut t)?;
        Ok((t, notes))
    }

    #[test]
    fn old_sections_become_the_hardware_section_with_a_note() {
        let (t, notes) = run("[barrier]\nhardware = \"tofu_gates\"\ntnis = 6\n").unwrap();
        assert_eq!(t["hardware"]["type"].as_str(), Some("tofu_gates"));
        assert_eq!(t["hardware"]["tnis"].as_integer(), Some(6));
        assert!(!t.contains_key("barrier"));
        assert!(notes[0].contains("[barrier] is deprecated") && notes[0].contains("tofu_gates"), "{notes:?}");

        let (t, _) = run("[class_routes]\nenabled = true\nroutes = 8\n").unwrap();
        assert_eq!(t["hardware"]["type"].as_str(), Some("bgq_class_routes"));
        assert_eq!(t["hardware"]["routes"].as_integer(), Some(8));

        let (t, notes) = run("[switch_barrier]\nenabled = true\ndrop = 0.1\n[multicast]\nenabled = true\nroot = \"random\"\n").unwrap();
        assert_eq!(t["hardware"]["type"].as_str(), Some("dawning_switch"));
        let units: Vec<&str> = t["hardware"]["units"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
        assert_eq!(units, ["barrier", "multicast"]);
        assert_eq!(t["hardware"]["barrier"]["drop"].as_float(), Some(0.1));
        assert_eq!(t["hardware"]["multicast"]["root"].as_str(), Some("random"));
        assert_eq!(notes.len(), 2);
    }

    #[test]
    fn old_keys_land_on_a_new_hardware_section_and_switch_units_off() {
        let (t, _) = run("[hardware]\ntype = \"dawning_switch\"\n[multicast]\nroot = \"fixed\"\n").unwrap();
        assert_eq!(t["hardware"]["multicast"]["root"].as_str(), Some("fixed"));
        let (t, _) = run("[hardware]\ntype = \"dawning_switch\"\n[multicast]\nenabled = false\n").unwrap();
        let units: Vec<&str> = t["hardware"]["units"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
        assert_eq!(units, ["barrier"]);
        let (t, _) = run("[hardware]\ntype = \"tofu_gates\"\ntnis = 6\n[barrier]\nhardware = \"none\"\n").unwrap();
        assert_eq!(t["hardware"].as_table().unwrap().len(), 1);
        assert_eq!(t["hardware"]["type"].as_str(), Some("none"));
    }

    #[test]
    fn conflicts_and_stray_keys_name_the_old_key() {
        let e = run("[hardware]\ntype = \"tofu_gates\"\n[class_routes]\nenabled = true\n").unwrap_err().to_string();
        assert!(e.starts_with("class_routes.enabled") && e.contains("tofu_gates"), "{e}");
        let e = run("[multicast]\nroot = \"hlse\"\n").unwrap_err().to_string();
        assert!(e.starts_with("multicast.root") && e.contains("dawning_switch"), "{e}");
        let e = run("[barrier]\nhardware = \"gates\"\n").unwrap_err().to_string();
        assert!(e.starts_with("barrier.hardware") && e.contains("'gates'"), "{e}");
        let e = run("[class_routes]\nenabled = 1\n").unwrap_err().to_string();
        assert!(e.starts_with("class_routes.enabled") && e.contains("true or false"), "{e}");
    }
}
