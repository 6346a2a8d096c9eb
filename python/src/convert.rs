//! Scenario tables between the TOML the library reads and the JSON the Python layer writes.
//! A value TOML cannot hold (`None`) is an error naming its key path.

use fabricsim::{ConfigError, Error};

/// TOML text as JSON text (tables, arrays, strings, numbers, booleans; a date is refused).
pub(crate) fn toml_to_json(text: &str) -> Result<String, Error> {
    let value: toml::Value =
        toml::from_str(text).map_err(|e| ConfigError::new("scenario", e.message().lines().next().unwrap_or("malformed TOML")))?;
    let v = to_json(&value, "")?;
    Ok(serde_json::to_string(&v).expect("JSON values serialise"))
}

fn to_json(v: &toml::Value, path: &str) -> Result<serde_json::Value, Error> {
    use serde_json::Value as J;
    Ok(match v {
        toml::Value::String(s) => J::String(s.clone()),
        toml::Value::Integer(i) => J::from(*i),
        toml::Value::Float(f) => {
            serde_json::Number::from_f64(*f).map(J::Number).ok_or_else(|| ConfigError::new(path, format!("{f} is not a finite number")))?
        }
        toml::Value::Boolean(b) => J::Bool(*b),
        toml::Value::Datetime(d) => return Err(ConfigError::new(path, format!("{d}: a date is not a scenario value")).into()),
        toml::Value::Array(a) => J::Array(a.iter().enumerate().map(|(i, x)| to_json(x, &format!("{path}[{i}]"))).collect::<Result<_, _>>()?),
        toml::Value::Table(t) => J::Object(t.iter().map(|(k, x)| Ok((k.clone(), to_json(x, &join(path, k))?))).collect::<Result<_, Error>>()?),
    })
}

/// JSON text of a table as TOML text.
pub(crate) fn json_to_toml(text: &str) -> Result<String, Error> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| ConfigError::new("scenario", format!("not a table: {e}")))?;
    let t = to_toml(&v, "")?;
    if !t.is_table() {
        return Err(ConfigError::new("scenario", "is not a table of sections").into());
    }
    Ok(toml::to_string(&t).map_err(|e| ConfigError::new("scenario", e.to_string()))?)
}

fn to_toml(v: &serde_json::Value, path: &str) -> Result<toml::Value, Error> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => return Err(ConfigError::new(path, "None is not a value: leave the key out for its default").into()),
        J::Bool(b) => toml::Value::Boolean(*b),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => toml::Value::Integer(i),
            (None, Some(_)) if n.is_u64() => toml::Value::String(n.to_string()),
            (None, Some(f)) => toml::Value::Float(f),
            (None, None) => return Err(ConfigError::new(path, format!("{n} is not a number TOML holds")).into()),
        },
        J::String(s) => toml::Value::String(s.clone()),
        J::Array(a) => toml::Value::Array(a.iter().enumerate().map(|(i, x)| to_toml(x, &format!("{path}[{i}]"))).collect::<Result<_, _>>()?),
        J::Object(o) => toml::Value::Table(o.iter().map(|(k, x)| Ok((k.clone(), to_toml(x, &join(path, k))?))).collect::<Result<_, Error>>()?),
    })
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}
