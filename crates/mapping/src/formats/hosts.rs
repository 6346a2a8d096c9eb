//! Host names from node ids and back, by a pattern such as `nid{:05}`.

use fabricsim_core::NodeId;

/// A host-name pattern: a prefix, the node id (zero-padded to `width`), a suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    prefix: String,
    width: usize,
    suffix: String,
}

impl Default for HostPattern {
    fn default() -> Self {
        HostPattern { prefix: "nid".into(), width: 5, suffix: String::new() }
    }
}

impl HostPattern {
    /// Parse a pattern with one `{}` or `{:0N}`; the error says what is wrong.
    pub fn parse(s: &str) -> Result<HostPattern, String> {
        let open = s.find('{').ok_or_else(|| format!("'{s}' has no {{}} for the node id"))?;
        let close = s[open..].find('}').map(|c| c + open).ok_or_else(|| format!("'{s}': {{ is not closed"))?;
        let inner = &s[open + 1..close];
        let width = match inner {
            "" => 0,
            w if w.starts_with(":0") => w[2..].parse::<usize>().map_err(|_| format!("'{s}': '{{{inner}}}' is not {{}} or {{:0N}}"))?,
            _ => return Err(format!("'{s}': '{{{inner}}}' is not {{}} or {{:0N}}")),
        };
        let suffix = &s[close + 1..];
        if suffix.contains('{') {
            return Err(format!("'{s}' has more than one {{}}"));
        }
        Ok(HostPattern { prefix: s[..open].into(), width, suffix: suffix.into() })
    }

    /// The host name of `node`.
    pub fn name(&self, node: NodeId) -> String {
        format!("{}{:0w$}{}", self.prefix, node.0, self.suffix, w = self.width)
    }

    /// The node a host name names (below `nodes`), or why not.
    pub fn node(&self, host: &str, nodes: u32) -> Result<NodeId, String> {
        let id = host.strip_prefix(&self.prefix).and_then(|h| h.strip_suffix(&self.suffix)).and_then(|d| d.parse::<u32>().ok());
        match id {
            Some(n) if n < nodes => Ok(NodeId(n)),
            Some(n) => Err(format!("host '{host}' is node {n}, beyond the network's {nodes}")),
            None => Err(format!("host '{host}' does not match the host pattern {}{{}}{}", self.prefix, self.suffix)),
        }
    }
}
