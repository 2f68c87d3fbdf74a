//! A program unit as the database keys it: kind, name and own text, shared and hashed
//! once. A unit the edit did not touch keeps its source (one allocation, moved from
//! split to split), so keying it again costs a pointer comparison and a hash already
//! known, not a pass over its text.

use crate::ir::UnitKind;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

/// See the module doc. Equal when kind, name and text are equal.
#[derive(Clone, Debug)]
pub struct UnitSource(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    kind: UnitKind,
    name: String,
    text: String,
    hash: u64,
}

impl UnitSource {
    pub fn new(kind: UnitKind, name: &str, text: &str) -> UnitSource {
        let hash = rustc_hash::FxBuildHasher.hash_one((kind, name, text));
        UnitSource(Arc::new(Inner {
            kind,
            name: name.to_string(),
            text: text.to_string(),
            hash,
        }))
    }

    pub fn kind(&self) -> UnitKind {
        self.0.kind
    }

    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The hash of kind, name and text (FxHash).
    pub fn digest(&self) -> u64 {
        self.0.hash
    }
}

/// An empty unit (one allocation for all).
impl Default for UnitSource {
    fn default() -> UnitSource {
        static EMPTY: std::sync::LazyLock<UnitSource> =
            std::sync::LazyLock::new(|| UnitSource::new(UnitKind::Program, "", ""));
        EMPTY.clone()
    }
}

impl std::ops::Deref for UnitSource {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0.text
    }
}

impl PartialEq for UnitSource {
    fn eq(&self, other: &UnitSource) -> bool {
        let (a, b) = (&self.0, &other.0);
        Arc::ptr_eq(&self.0, &other.0)
            || (a.hash == b.hash && a.kind == b.kind && a.name == b.name && a.text == b.text)
    }
}

impl Eq for UnitSource {}

impl Hash for UnitSource {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_units_are_equal_sources_and_hash_alike() {
        let source = |name: &str, text: &str| UnitSource::new(UnitKind::Subroutine, name, text);
        let (a, b) = (source("f", "end\n"), source("f", "end\n"));
        assert_eq!(a, b);
        assert_eq!(
            rustc_hash::FxBuildHasher.hash_one(&a),
            rustc_hash::FxBuildHasher.hash_one(&b)
        );
        assert_ne!(a, source("f", "end \n"));
        assert_ne!(a, source("g", "end\n"));
        assert_eq!(&*a, "end\n");
        assert_eq!(a.name(), "f");
    }
}
