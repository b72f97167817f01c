//! [`text_passes`]: the checks of [`super::shape`] and [`super::ranges`] walked straight over the
//! document's text, without building its tree (issue 13: the tree of 15,000 connections was
//! 1.5 KB per VC plus the allocator's overhead of its ~30 small blocks per VC, the peak memory of
//! the process). A child of `check_shape`, so that both walks share the schema's helpers and the
//! number rules ([`super::number`]) rather than copies of them.

use super::{number, property, root, Memo, Pass, MAX_DEPTH};
use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};
use std::borrow::Cow;

/// Whether the document text passes both [`super::shape`] and [`super::ranges`]: the same schema,
/// the same rules for the same values, the same depth limit.
///
/// Only a yes or no: a document that fails here (its syntax, its shape, a range) goes through
/// the tree path of [`super::super::parse`], which names the error as it always has. Never more
/// lenient than the tree walks: they see the values the tree keeps, and this walk sees every
/// value of the text (a key written twice is checked twice, where the tree keeps the last).
pub(crate) fn text_passes(json: &str) -> bool {
    let memo = Memo::default();
    let mut de = serde_json::Deserializer::from_str(json);
    let walked = Text {
        schema: Some(root()),
        depth: 0,
        memo: &memo,
    }
    .deserialize(&mut de);
    walked.is_ok() && de.end().is_ok()
}

/// The walk at one value: its schema node (the tree walk's memo of nodes shared), its depth.
struct Text<'m> {
    schema: Option<&'static Value>,
    depth: usize,
    memo: &'m Memo,
}

impl Text<'_> {
    fn child(&self, schema: Option<&'static Value>) -> Self {
        Text {
            schema,
            depth: self.depth + 1,
            memo: self.memo,
        }
    }

    /// The number as the tree holds it (`serde_json::Value`'s own visitor: `Number::from` for
    /// integers, `Number::from_f64` for floats, a float it cannot hold becoming null), under
    /// both passes' rules.
    fn number<E: Error>(self, n: Option<Number>) -> Result<(), E> {
        let Some(n) = n else { return Ok(()) };
        let node = self.memo.node(self.schema);
        let Some(rule) = &node.number else {
            return Ok(());
        };
        number(&n, rule, "", Pass::Shape)
            .and_then(|()| number(&n, rule, "", Pass::Ranges))
            .map_err(|_| E::custom("out of shape or range"))
    }
}

impl<'de> DeserializeSeed<'de> for Text<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.depth > MAX_DEPTH {
            return Err(D::Error::custom("nested too deeply"));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Text<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a scenario document")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<(), E> {
        self.number(Some(Number::from(n)))
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<(), E> {
        self.number(Some(Number::from(n)))
    }

    fn visit_f64<E: Error>(self, x: f64) -> Result<(), E> {
        self.number(Number::from_f64(x))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let node = self.memo.node(self.schema);
        if node.tables_only {
            return Err(A::Error::custom("an array where a table is meant"));
        }
        while seq.next_element_seed(self.child(node.item))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let node = self.memo.node(self.schema);
        while let Some(key) = map.next_key_seed(Key)? {
            map.next_value_seed(self.child(property(&node.alts, &key)))?;
        }
        Ok(())
    }
}

/// A key of the text, borrowed where it has no escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::text_passes;
    use crate::scenario::tests::base_json;

    /// What the tree walks refuse, this walk refuses (the tree path then names the error).
    #[test]
    fn refuses_what_the_tree_walks_refuse() {
        assert!(text_passes(&base_json().to_string()));
        let bad: Vec<(&str, serde_json::Value)> = vec![
            ("/run", serde_json::json!([1, 2])),
            ("/run/seed", serde_json::json!(1.5)),
            ("/run/seed", serde_json::json!(1e20)),
            ("/run/duration_s", serde_json::json!(1e9)),
            ("/nodes/1/buffer_cells", serde_json::json!(0.5)),
            ("/connections/0/source/rate_mbps", serde_json::json!(1e-300)),
        ];
        for (at, v) in bad {
            let mut doc = base_json();
            let (parent, key) = at.rsplit_once('/').unwrap();
            doc.pointer_mut(parent).unwrap()[key] = v.clone();
            let text = doc.to_string();
            assert!(!text_passes(&text), "{at} = {v}");
            assert!(crate::scenario::parse(&text).is_err(), "{at} = {v}");
        }
        let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
        assert!(!text_passes(&format!(r#"{{"description": {deep}}}"#)));
        assert!(!text_passes("{"));
        assert!(!text_passes(&format!("{} x", base_json())));
    }
}
