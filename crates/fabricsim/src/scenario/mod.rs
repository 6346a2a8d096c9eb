//! The scenario file: plain structs deserialised from TOML, every unknown key rejected with its
//! path. Defaults are listed on each field.
//!
//! Sections whose `type` key chooses a component (`topology`, `routing`, `hardware`, `workload`) are enums
//! with one variant per type, each with its own fields: a key that the chosen type does not
//! take is rejected by the parser. In the file such a section is written flat
//! (`[workload] type = "pingpong"  src = [0, 0]`); [`Scenario::from_toml_str`] turns it into
//! serde's `{ pingpong = { src = ... } }` form before deserialising, and
//! [`Scenario::to_toml_string`] turns it back (see `tagged.rs`).

pub use crate::workloads::WorkloadSpec;
use crate::Error;
use fabricsim_core::ConfigError;
pub use fabricsim_network::faults::{FaultSpec, LinkSpec, Protection};
pub use fabricsim_network::EngineChoice;
pub use fabricsim_network::{DawningSwitchParams, DawningUnit, HardwareSpec};
pub use fabricsim_routing::adaptive::Escape;
pub use fabricsim_routing::{AdaptiveSpec, Blocked, DimensionOrderSpec, RoutingSpec, Selection, Ties, UpDownSpec};
use serde::{Deserialize, Serialize};

mod nic;
mod optional_keys;
mod packaging;
mod packet;
mod router;
mod sim;
mod topology;
pub use nic::{Cmg, DataSource, NicSpec};
pub use optional_keys::OPTIONAL_KEYS;
pub use packaging::PackagingSpec;
pub use packet::PacketSpec;
pub use router::{Crossbar, QueueBuffer, RouterSpec};
pub use sim::{SimSpec, TieOrder};
pub use topology::{FatTreeSpec, TopologySpec, TorusSpec};

/// A whole scenario. Every section may be omitted.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// The keys the user wrote (file plus `set` calls), before presets and defaults fill the
    /// rest. [`Scenario::set`] re-resolves from these, so a preset named later still sits under
    /// everything the user wrote, and defaults never override a preset.
    #[serde(skip)]
    explicit: toml::Table,
    /// The folder of the file the scenario was read from: relative file paths in it (a
    /// program, a rank map) are read from there. `None` (a scenario not read from a file):
    /// the current directory.
    #[serde(skip)]
    base_dir: Option<std::path::PathBuf>,
    /// Deprecation notes from reading it (old section names), for the user to see.
    #[serde(skip)]
    notes: Vec<String>,
    /// A name for reports.
    pub name: Option<String>,
    pub machine: MachineSpec,
    pub topology: TopologySpec,
    pub router: RouterSpec,
    pub nic: NicSpec,
    pub packet: PacketSpec,
    pub packaging: PackagingSpec,
    /// In-network collective hardware, chosen by `type` (see [`HardwareSpec`]); the old
    /// `[barrier]`, `[class_routes]`, `[switch_barrier]` and `[multicast]` sections are read
    /// as aliases of it (see `legacy_hardware.rs`).
    pub hardware: HardwareSpec,
    /// Lanes per link and their protection (see `fabricsim_network::faults`); matters only
    /// with `[faults]`.
    pub link: LinkSpec,
    /// Lane errors and scheduled failures (see `fabricsim_network::faults`); none by default.
    pub faults: FaultSpec,
    pub routing: RoutingSpec,
    pub workload: WorkloadSpec,
    /// Several jobs sharing the network (`[[jobs]]`, see [`crate::jobs::JobSpec`]), each with
    /// its own workload, nodes and start time; `[workload]` then gives only the packet size.
    /// Empty (the default): the scenario's one `[workload]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<crate::jobs::JobSpec>,
    pub sim: SimSpec,
}
/// `[machine] preset = "tofud"`: start from a built-in machine (see `fabricsim presets`);
/// every other key of the file overrides the preset's.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MachineSpec {
    pub preset: Option<String>,
}

impl Scenario {
    /// Parse TOML; errors name the offending key path.
    pub fn from_toml_str(text: &str) -> Result<Scenario, Error> {
        Self::from_named_toml_str(text, "scenario")
    }

    /// [`Scenario::from_toml_str`] of text read from `name` (a file), which a syntax error
    /// names with its line, column and the offending line.
    pub fn from_named_toml_str(text: &str, name: &str) -> Result<Scenario, Error> {
        let value: toml::Value = toml::from_str(text).map_err(|e| Error::Config(toml_error(name, e)))?;
        Self::from_value(value)
    }

    /// Read a scenario file; relative file paths in it are read from its folder.
    pub fn from_file(path: &std::path::Path) -> Result<Scenario, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        let mut s = Self::from_named_toml_str(&text, &path.display().to_string())?;
        s.base_dir = Some(path.parent().map(|p| p.to_path_buf()).unwrap_or_default());
        Ok(s)
    }

    /// A file path the scenario names, as the process can open it: relative to the scenario
    /// file's folder (see [`Scenario::from_file`]), or as it is when the scenario was not read
    /// from a file or the path is absolute.
    pub fn resolve_path(&self, path: &std::path::Path) -> std::path::PathBuf {
        match &self.base_dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        }
    }

    /// Deprecation notes from reading the scenario (old section names, with what to write
    /// instead); empty for a scenario in today's form.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Read relative file paths from `dir` from now on (an empty path: the current directory).
    pub fn set_base_dir(&mut self, dir: std::path::PathBuf) {
        self.base_dir = Some(dir);
    }

    fn from_value(value: toml::Value) -> Result<Scenario, Error> {
        let explicit = value.as_table().cloned().unwrap_or_default();
        let mut value = crate::presets::apply(value)?;
        let notes = match value.as_table_mut() {
            Some(t) => crate::legacy_hardware::translate(t)?,
            None => Vec::new(),
        };
        crate::tagged::to_serde_form(&mut value)?;
        let mut s = serde_path_to_error::deserialize::<_, Scenario>(value).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            // One line: toml appends "in `section`" on a line of its own.
            let inner = inner.lines().next().unwrap_or_default().to_string();
            let (field, message) = crate::tagged::user_error(&path, &inner);
            Error::Config(ConfigError::new(field, message))
        })?;
        s.explicit = explicit;
        s.notes = notes;
        Ok(s)
    }

    /// Override one key: `set("topology.shape", "[4,4]")`, `set("sim.duration", "5us")`.
    /// The value is read as a TOML value, or as a string if it is not one. The scenario is
    /// re-resolved from the keys written so far (file and earlier `set` calls) plus this one;
    /// fields edited directly on the struct are not part of that and are reset.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), Error> {
        let mut root = toml::Value::Table(self.explicit.clone());
        let toml_value = |v: &str| toml::from_str::<toml::Table>(&format!("v = {v}")).ok().and_then(|mut t| t.remove("v"));
        // Bare words inside an array are strings too (`[X,Y,Z]` as `["X","Y","Z"]`), as a bare
        // word on its own is.
        let parsed = toml_value(value)
            .or_else(|| value.trim().starts_with('[').then(|| toml_value(&crate::bare_words::quote_bare_words(value))).flatten())
            .unwrap_or_else(|| toml::Value::String(value.to_string()));
        let parts: Vec<&str> = key.split('.').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(Error::Config(ConfigError::new(key, "is not a key path like section.key")));
        }
        let mut cur = &mut root;
        for (i, part) in parts.iter().enumerate() {
            let table = cur.as_table_mut().ok_or_else(|| Error::Config(ConfigError::new(parts[..i].join("."), "is not a section")))?;
            if i + 1 == parts.len() {
                table.insert(part.to_string(), parsed.clone());
                break;
            }
            cur = table.entry(part.to_string()).or_insert_with(|| toml::Value::Table(Default::default()));
        }
        let base_dir = self.base_dir.clone();
        *self = Self::from_value(root)?;
        self.base_dir = base_dir;
        Ok(())
    }

    /// Apply `key=value` overrides in order.
    pub fn apply_overrides(&mut self, sets: &[String]) -> Result<(), Error> {
        for s in sets {
            let (k, v) = s.split_once('=').ok_or_else(|| Error::Config(ConfigError::new("--set", format!("'{s}' is not key.path=value"))))?;
            self.set(k.trim(), v.trim())?;
        }
        Ok(())
    }

    /// The scenario as TOML text.
    /// The default scenario as TOML, followed by the keys that have no fixed default (their
    /// default depends on other keys, or they are off unless set), commented out with an
    /// example value each: every key a scenario may set outside `[workload]`.
    pub fn default_toml_string() -> String {
        let mut s = Scenario::default().to_toml_string();
        s.push_str("\n# Keys with no fixed default (unset above); each with an example value:\n");
        for (key, example, meaning) in OPTIONAL_KEYS {
            s.push_str(&format!("# {key} = {example}    # {meaning}\n"));
        }
        s.push_str("\n# Keys of the other routing, hardware and workload types; each with its default or an example:\n");
        for (with, key, example, meaning) in crate::type_keys::TYPE_KEYS {
            s.push_str(&format!("# {key} = {example}    # (with {}) {meaning}\n", with.replace(';', ", ")));
        }
        s
    }

    pub fn to_toml_string(&self) -> String {
        self.to_toml_string_without(&[])
    }

    /// The scenario as TOML text without the sections named in `skip`.
    pub fn to_toml_string_without(&self, skip: &[&str]) -> String {
        let mut v = toml::Value::try_from(self).expect("a scenario always serialises");
        if let Some(t) = v.as_table_mut() {
            t.retain(|k: &str, _| !skip.contains(&k));
        }
        crate::tagged::to_user_form(&mut v);
        toml::to_string(&v).expect("a scenario always serialises")
    }
}

/// A TOML syntax error as the `toml` crate reports it: line, column, the offending line with a
/// mark under the place, and what was expected there.
fn toml_error(name: &str, e: toml::de::Error) -> ConfigError {
    ConfigError::new(name, e.to_string().trim_end().to_string())
}

#[cfg(test)]
mod tests;
