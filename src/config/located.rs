//! Where each key stands in the file: the 1-based line of a key and the key
//! an error's span falls in, for errors that name file, line and key.

use crate::model::text::{check_text, ControlChar};
use std::collections::BTreeMap;

/// A configuration error: the file, the 1-based line (when known), the key
/// and what is wrong / allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default(),
    if key.is_empty() { String::new() } else { format!(": key '{key}'") })]
pub struct ConfigFileError {
    /// The file as given.
    pub file: String,
    /// 1-based line.
    pub line: Option<usize>,
    /// Dotted key (`event.delay`).
    pub key: String,
    /// What is wrong, and what is allowed.
    pub message: String,
}

/// 1-based line of byte offset `at`.
pub(super) fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The document as toml itself parses it, with the span of every key and
/// value: where a dotted key stands, and which key an error's span falls in.
pub(super) struct Located<'i> {
    text: &'i str,
    doc: Option<toml::Spanned<toml::de::DeTable<'i>>>,
}

impl<'i> Located<'i> {
    pub(super) fn new(text: &'i str) -> Located<'i> {
        Located {
            text,
            doc: toml::de::DeTable::parse(text).ok(),
        }
    }

    /// Every dotted key of the document with its 1-based line.
    pub(super) fn key_lines(&self) -> BTreeMap<String, usize> {
        fn walk(
            table: &toml::de::DeTable<'_>,
            prefix: &str,
            text: &str,
            out: &mut BTreeMap<String, usize>,
        ) {
            for (k, v) in table {
                let name = if prefix.is_empty() {
                    k.get_ref().to_string()
                } else {
                    format!("{prefix}.{}", k.get_ref())
                };
                out.insert(name.clone(), line_of(text, k.span().start));
                match v.get_ref() {
                    toml::de::DeValue::Table(t) => walk(t, &name, text, out),
                    // `[[x]]` tables: `x.1.key`, numbered from 1.
                    toml::de::DeValue::Array(a) => {
                        for (i, item) in a.iter().enumerate() {
                            if let toml::de::DeValue::Table(t) = item.get_ref() {
                                let n = format!("{name}.{}", i + 1);
                                out.insert(n.clone(), line_of(text, item.span().start));
                                walk(t, &n, text, out);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut out = BTreeMap::new();
        if let Some(doc) = &self.doc {
            walk(doc.get_ref(), "", self.text, &mut out);
        }
        out
    }

    /// The 1-based line of the dotted `key` (`event.delay`), when present.
    pub(super) fn line_of_key(&self, key: &str) -> Option<usize> {
        let mut table = self.doc.as_ref()?.get_ref();
        let mut parts = key.split('.').peekable();
        while let Some(part) = parts.next() {
            let (k, v) = table.iter().find(|(k, _)| k.get_ref().as_ref() == part)?;
            if parts.peek().is_none() {
                return Some(line_of(self.text, k.span().start));
            }
            match v.get_ref() {
                toml::de::DeValue::Table(t) => table = t,
                _ => return None,
            }
        }
        None
    }

    /// The first string value of the document that holds a control
    /// character ([`crate::model::text::is_control`]: a newline, an escape,
    /// a bidirectional override, …): its dotted key (`game.white.name`;
    /// an array's items numbered from 1, `mqtt.command_keys.2`), the
    /// 1-based line of the value and the character. Every value is checked,
    /// so no key of the file takes one (issue 41 §3).
    pub(super) fn control_in_strings(&self) -> Option<(String, usize, ControlChar)> {
        fn value(
            v: &toml::Spanned<toml::de::DeValue<'_>>,
            name: String,
            text: &str,
        ) -> Option<(String, usize, ControlChar)> {
            match v.get_ref() {
                toml::de::DeValue::String(s) => check_text(s)
                    .err()
                    .map(|c| (name, line_of(text, v.span().start), c)),
                toml::de::DeValue::Table(t) => table(t, &name, text),
                toml::de::DeValue::Array(a) => a
                    .iter()
                    .enumerate()
                    .find_map(|(i, item)| value(item, format!("{name}.{}", i + 1), text)),
                _ => None,
            }
        }
        fn table(
            t: &toml::de::DeTable<'_>,
            prefix: &str,
            text: &str,
        ) -> Option<(String, usize, ControlChar)> {
            t.iter().find_map(|(k, v)| {
                let name = if prefix.is_empty() {
                    k.get_ref().to_string()
                } else {
                    format!("{prefix}.{}", k.get_ref())
                };
                value(v, name, text)
            })
        }
        table(self.doc.as_ref()?.get_ref(), "", self.text)
    }

    /// The dotted key whose key or value holds byte offset `at` (the
    /// deepest such key), e.g. `event.rules` for an error in its value.
    pub(super) fn key_at(&self, at: usize) -> Option<String> {
        // A table's own span is its header (`[clock]`), so its keys are
        // searched before the header.
        fn walk(table: &toml::de::DeTable<'_>, at: usize) -> Option<Vec<String>> {
            for (k, v) in table {
                let name = k.get_ref().to_string();
                if let toml::de::DeValue::Table(t) = v.get_ref() {
                    if let Some(mut inner) = walk(t, at) {
                        inner.insert(0, name);
                        return Some(inner);
                    }
                }
                let (ks, vs) = (k.span(), v.span());
                if ks.contains(&at) || vs.contains(&at) {
                    return Some(vec![name]);
                }
            }
            None
        }
        walk(self.doc.as_ref()?.get_ref(), at).map(|p| p.join("."))
    }
}
