//! Bare words in `--set` values: `routing.order=[X,Y,Z]` reads as `["X","Y","Z"]`, as a bare
//! word on its own (`workload.type=tornado`) reads as a string.

/// `value` with every bare word (letters, digits, `_`, `-`, `.`, `/` not read as a number or a
/// boolean) put in quotes: `[X, [A,B]]` becomes `["X", ["A","B"]]`.
pub(crate) fn quote_bare_words(value: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            let literal = word == "true" || word == "false" || word.parse::<f64>().is_ok() || word.parse::<i64>().is_ok();
            if literal {
                out.push_str(word);
            } else {
                out.push_str(&format!("\"{word}\""));
            }
            word.clear();
        }
    };
    let mut quoted = false;
    for c in value.chars() {
        if c == '"' {
            quoted = !quoted;
        }
        if !quoted && (c.is_alphanumeric() || "_-./".contains(c)) {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    #[test]
    fn bare_words_in_set_arrays_are_strings() {
        let mut s = Scenario::default();
        s.set("topology.axes", "[X,Y,Z]").unwrap();
        s.set("routing.order", "[Z, \"Y\", X]").unwrap();
        let text = s.to_toml_string();
        assert!(text.contains("axes = [\"X\", \"Y\", \"Z\"]") && text.contains("order = [\"Z\", \"Y\", \"X\"]"), "{text}");
        s.set("topology.shape", "[4,4,2]").unwrap();
        assert!(s.to_toml_string().contains("shape = [4, 4, 2]"));
    }
}
