//! Sections whose `type` key chooses an enum variant: the user's flat form and serde's.
//!
//! A scenario file writes `[workload] type = "pingpong"  src = [0, 0]`; serde's externally
//! tagged form of the same is `[workload.pingpong] src = [0, 0]`, which keeps error paths
//! exact (`workload.pingpong.src`) where an internally tagged enum would lose them. These
//! functions convert between the two, fill in a missing `type` with its default, and map
//! error paths back to the keys the user wrote. A collective's or program's background traffic
//! (`[workload.background]`) is a workload of its own, chosen by its own `type`, and is
//! converted the same way.

use fabricsim_core::ConfigError;
use toml::Value;

/// The sections chosen by a `type` key.
const TAGGED: [&str; 4] = ["topology", "routing", "hardware", "workload"];

/// The type a section gets when it names none: the routing follows the topology.
fn default_type(section: &str, root: &toml::Table) -> &'static str {
    match section {
        "topology" => "torus",
        "workload" => "uniform_random",
        "hardware" => "none",
        _ => match root.get("topology").and_then(|t| t.get("type")).and_then(Value::as_str) {
            Some("fat_tree") => "up_down",
            _ => "dimension_order",
        },
    }
}

/// User form to serde form, in place: `{ type = "x", k = v }` becomes `{ x = { k = v } }`.
/// A missing section stays missing (its default applies), except `routing`, whose default
/// depends on the topology.
pub(crate) fn to_serde_form(root: &mut Value) -> Result<(), ConfigError> {
    let Some(root) = root.as_table_mut() else { return Ok(()) };
    if !root.contains_key("routing") {
        root.insert("routing".into(), Value::Table(Default::default()));
    }
    // Types first (the routing's default reads the topology's type as written).
    let mut types = Vec::new();
    for section in TAGGED {
        let ty = match root.get(section) {
            None => continue,
            Some(Value::Table(t)) => match t.get("type") {
                None => default_type(section, root).to_string(),
                Some(Value::String(s)) => s.clone(),
                Some(other) => return Err(ConfigError::new(format!("{section}.type"), format!("{other} is not a type name"))),
            },
            Some(other) => return Err(ConfigError::new(section, format!("{other} is not a section"))),
        };
        types.push((section, ty));
    }
    for (section, ty) in types {
        let Some(Value::Table(t)) = root.get_mut(section) else { continue };
        t.remove("type");
        let mut keys = std::mem::take(t);
        if section == "workload" {
            background_to_serde_form(&mut keys)?;
        }
        t.insert(ty, Value::Table(keys));
    }
    jobs_to_serde_form(root)
}

/// Each `[[jobs]]` entry's `workload` table to serde form, in place: a workload section of its
/// own, chosen by its own `type`.
fn jobs_to_serde_form(root: &mut toml::Table) -> Result<(), ConfigError> {
    let Some(jobs) = root.get_mut("jobs") else { return Ok(()) };
    let Value::Array(jobs) = jobs else {
        return Err(ConfigError::new("jobs", format!("{jobs} is not a list of jobs (write each as [[jobs]])")));
    };
    for (i, job) in jobs.iter_mut().enumerate() {
        let Value::Table(job) = job else {
            return Err(ConfigError::new(format!("jobs[{i}]"), format!("{job} is not a table of a job's keys")));
        };
        let field = format!("jobs[{i}].workload");
        let Some(w) = job.get_mut("workload") else { continue };
        let Value::Table(t) = w else {
            return Err(ConfigError::new(field, format!("{w} is not a table (write [jobs.workload] type = \"trace\" ...)")));
        };
        let ty = match t.remove("type") {
            None => default_type("workload", &Default::default()).to_string(),
            Some(Value::String(s)) => s,
            Some(other) => return Err(ConfigError::new(format!("{field}.type"), format!("{other} is not a type name"))),
        };
        let mut keys = std::mem::take(t);
        background_to_serde_form(&mut keys)?;
        t.insert(ty, Value::Table(keys));
    }
    Ok(())
}

/// The workload keys' `background` table (if any) to serde form, in place.
fn background_to_serde_form(keys: &mut toml::Table) -> Result<(), ConfigError> {
    let field = "workload.background";
    let Some(b) = keys.get_mut("background") else { return Ok(()) };
    let Value::Table(t) = b else {
        return Err(ConfigError::new(
            field,
            format!("{b} is not a table of open-loop traffic (e.g. [workload.background] type = \"uniform_random\" load = 0.1)"),
        ));
    };
    let ty = match t.remove("type") {
        None => default_type("workload", &Default::default()).to_string(),
        Some(Value::String(s)) => s,
        Some(other) => return Err(ConfigError::new(format!("{field}.type"), format!("{other} is not a type name"))),
    };
    let inner = std::mem::take(t);
    t.insert(ty, Value::Table(inner));
    Ok(())
}

/// Serde form to user form, in place (the inverse of [`to_serde_form`]).
pub(crate) fn to_user_form(root: &mut Value) {
    let Some(root) = root.as_table_mut() else { return };
    for section in TAGGED {
        let Some(Value::Table(t)) = root.get_mut(section) else { continue };
        let Some((ty, Value::Table(keys))) = t.iter().next().map(|(k, v)| (k.clone(), v.clone())) else { continue };
        let mut flat = toml::Table::new();
        flat.insert("type".into(), Value::String(ty));
        flat.extend(keys);
        if let Some(Value::Table(b)) = flat.get_mut("background") {
            if let Some((ty, Value::Table(keys))) = b.iter().next().map(|(k, v)| (k.clone(), v.clone())) {
                let mut inner = toml::Table::new();
                inner.insert("type".into(), Value::String(ty));
                inner.extend(keys);
                *b = inner;
            }
        }
        *t = flat;
    }
    if let Some(Value::Array(jobs)) = root.get_mut("jobs") {
        for job in jobs.iter_mut().filter_map(Value::as_table_mut) {
            let Some(Value::Table(w)) = job.get_mut("workload") else { continue };
            let Some((ty, Value::Table(keys))) = w.iter().next().map(|(k, v)| (k.clone(), v.clone())) else { continue };
            let mut flat = toml::Table::new();
            flat.insert("type".into(), Value::String(ty));
            flat.extend(keys);
            *w = flat;
        }
    }
}

/// The key and message a user should see for a deserialisation error at serde path `path`
/// with message `message`: the variant's segment is dropped (`workload.pingpong.src` is
/// `workload.src`), an unknown variant is the section's `type`, and an unknown key is named.
pub(crate) fn user_error(path: &str, message: &str) -> (String, String) {
    if path == "." {
        return ("scenario".into(), message.into());
    }
    if let Some(rest) = path.strip_prefix("jobs[") {
        // A job's keys: its workload's by the workload's rules, one table down.
        if let Some((i, inner)) = rest.split_once("].") {
            if inner == "workload" || inner.starts_with("workload.") {
                let (field, message) = user_error(inner, message);
                return (format!("jobs[{i}].{field}"), message);
            }
        }
    }
    let parts: Vec<&str> = path.split('.').collect();
    let tagged = TAGGED.contains(&parts[0]);
    if tagged && parts.len() == 1 {
        if let Some(ty) = message.strip_prefix("unknown variant `").and_then(|m| m.split('`').next()) {
            let known = message.split_once("expected ").map(|(_, e)| e.trim_start_matches("one of ").replace('`', "")).unwrap_or_default();
            return (format!("{}.type", parts[0]), format!("'{ty}' is not one of {known}"));
        }
    }
    if parts.len() >= 3 && parts[0] == "workload" && parts[2] == "background" {
        // The background traffic's own keys: the same rules one table down.
        let (field, message) = user_error(&std::iter::once("workload").chain(parts[3..].iter().copied()).collect::<Vec<_>>().join("."), message);
        return (field.replacen("workload", "workload.background", 1), message);
    }
    if tagged && parts.len() >= 2 {
        let (section, ty) = (parts[0], parts[1]);
        let mut field = std::iter::once(section).chain(parts[2..].iter().copied()).collect::<Vec<_>>().join(".");
        if let Some(key) = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next()) {
            let keys =
                message.split_once("expected ").map(|(_, e)| e.trim_start_matches("one of ").replace('`', "")).unwrap_or_else(|| "none".into());
            if parts.len() == 2 {
                field = format!("{section}.{key}");
            }
            if !field.ends_with(&format!(".{key}")) {
                field = format!("{field}.{key}");
            }
            if field.matches('.').count() > 1 {
                // A table inside the type's keys (`[hardware.multicast]`).
                let table = field.rsplit_once('.').map_or(section, |(t, _)| t);
                return (field.clone(), format!("is not a key of [{table}] (its keys: {keys})"));
            }
            return (field, format!("is not a key of {section} type '{ty}' (its keys: {keys})"));
        }
        return (field, message.into());
    }
    (path.into(), message.into())
}
