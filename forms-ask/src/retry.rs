//! Retry-key input hashes: the same input has the same hash in every build.
//!
//! A write records, with its retry key, the SHA-256 of the operation's name and the
//! canonical JSON of its input: object keys sorted by their UTF-8 bytes at every depth, no
//! whitespace. That text does not depend on serde_json's `preserve_order` feature (which
//! any crate in a build may turn on, as `forms-mcp` does), nor on the order in which the
//! keys of a bound action's `arguments` arrived. It is byte for byte what serde_json prints
//! without `preserve_order`, so keys recorded by such builds keep their hash unchanged.
//!
//! Builds with `preserve_order` (the `forms` and `forms-mcp` programs up to 0.1) recorded
//! the input in field order instead. For this release a recorded hash of that form is
//! accepted too ([`InputHash::matches`]), so a retry of a write recorded before the upgrade
//! still replays; new records always hold the canonical hash.

use crate::error::AskError;
use crate::error::StoreError;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The hashes of one write's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InputHash {
    /// What a new record holds: the hash of the canonical (sorted-key) JSON.
    pub(crate) canonical: String,
    /// The hash builds with `preserve_order` recorded: the input in field order.
    field_order: String,
}

impl InputHash {
    /// The hashes of `operation` on `input`.
    pub(crate) fn of<T: Serialize>(operation: &str, input: &T) -> Result<InputHash, AskError> {
        let unreadable = |e: serde_json::Error| {
            AskError::Store(StoreError::Other(format!(
                "the input of {operation} cannot be written as JSON: {e}"
            )))
        };
        let value = serde_json::to_value(input).map_err(unreadable)?;
        let field_order = serde_json::to_string(input).map_err(unreadable)?;
        Ok(InputHash {
            canonical: sha256_hex(&[operation, &canonical_json(&value)]),
            field_order: sha256_hex(&[operation, &field_order]),
        })
    }

    /// Whether a recorded hash is this input's: the canonical hash, or (for records made
    /// before this release by a build with `preserve_order`) the field-order one.
    pub(crate) fn matches(&self, recorded: &str) -> bool {
        recorded == self.canonical || recorded == self.field_order
    }
}

/// The canonical JSON text of `value`: object keys sorted by their UTF-8 bytes at every
/// depth, no whitespace, scalars as serde_json prints them.
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// SHA-256 over the parts, each followed by a NUL byte, in hex.
pub(crate) fn sha256_hex(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    hex(&h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    /// The same object built with its keys inserted in two orders (at two depths). With
    /// `preserve_order` on (any build that contains `forms-mcp`) the two values print
    /// differently; without it they print alike. The hash is the same either way.
    fn both_orders() -> (Value, Value) {
        let mut inner_ab = Map::new();
        inner_ab.insert("release".into(), json!("1.4"));
        inner_ab.insert("env".into(), json!("staging"));
        let mut inner_ba = Map::new();
        inner_ba.insert("env".into(), json!("staging"));
        inner_ba.insert("release".into(), json!("1.4"));
        let mut ab = Map::new();
        ab.insert("id".into(), json!("req_1"));
        ab.insert("arguments".into(), Value::Object(inner_ab));
        ab.insert("version".into(), json!(3));
        let mut ba = Map::new();
        ba.insert("version".into(), json!(3));
        ba.insert("arguments".into(), Value::Object(inner_ba));
        ba.insert("id".into(), json!("req_1"));
        (Value::Object(ab), Value::Object(ba))
    }

    const CANONICAL: &str =
        r#"{"arguments":{"env":"staging","release":"1.4"},"id":"req_1","version":3}"#;

    #[test]
    fn retry_key_hash_is_the_same_for_both_key_orders_in_every_build() {
        let (ab, ba) = both_orders();
        // What the hash used to read: equal texts without `preserve_order`, different ones
        // with it (`cargo test -p forms-ask --features serde_json/preserve_order`).
        let (printed_ab, printed_ba) = (ab.to_string(), ba.to_string());
        eprintln!(
            "serde_json preserve_order in this build: {}",
            printed_ab != printed_ba
        );
        assert_eq!(canonical_json(&ab), CANONICAL);
        assert_eq!(canonical_json(&ba), CANONICAL);
        let (h1, h2) = (
            InputHash::of("redeem", &ab).unwrap(),
            InputHash::of("redeem", &ba).unwrap(),
        );
        assert_eq!(h1.canonical, h2.canonical);
        // Pinned (checked with `printf 'redeem\0…\0' | sha256sum`): the hash of the
        // sorted text, whatever serde_json's features.
        assert_eq!(h1.canonical, sha256_hex(&["redeem", CANONICAL]));
        assert_eq!(
            h1.canonical,
            "90b4e1e579451931260ce8242bd8106cc594c84b1c33e0d8de26b2b1958ad307"
        );
        assert!(h2.matches(&h1.canonical));
    }

    #[test]
    fn canonical_json_is_what_serde_json_prints_without_preserve_order() {
        let v = json!({"b": [1, {"d": null, "c": true}], "a": "x\"y\u{e9}", "é": 1.5, "Z": -2});
        let text = canonical_json(&v);
        assert_eq!(
            text,
            r#"{"Z":-2,"a":"x\"yé","b":[1,{"c":true,"d":null}],"é":1.5}"#
        );
        // Reading the text back and printing it canonically again gives the same text.
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(canonical_json(&back), text);
    }

    #[test]
    fn a_field_order_hash_of_an_older_build_is_accepted_for_the_same_input_only() {
        #[derive(Serialize)]
        struct Input<'a> {
            id: &'a str,
            version: u64,
        }
        let h = InputHash::of(
            "cancel",
            &Input {
                id: "req_1",
                version: 2,
            },
        )
        .unwrap();
        // What a build with `preserve_order` recorded, and what one without it recorded.
        assert!(h.matches(&sha256_hex(&["cancel", r#"{"id":"req_1","version":2}"#])));
        let other = InputHash::of(
            "cancel",
            &Input {
                id: "req_1",
                version: 3,
            },
        )
        .unwrap();
        assert!(!other.matches(&h.canonical));
        assert!(!h.matches(&sha256_hex(&["cancel", r#"{"version":2,"id":"req_1"}"#])));
    }
}
