//! Helpers of the crate's unit tests.

use costline_syntax::ir::Unit;
use costline_syntax::lower::{ParsedUnit, Scope, lower};
use costline_syntax::split_units;

/// The first unit of free-form `text`, lowered on its own.
pub fn unit(text: &str) -> Unit {
    let (chunks, _) = split_units(text);
    let chunk = &chunks[0];
    let parsed = ParsedUnit::parse(chunk.kind, chunk.name.to_string(), chunk.text(text));
    lower(&parsed, None, &Scope::default())
}
