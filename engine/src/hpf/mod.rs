//! HPF directives: extraction from comment lines and a real grammar for them.

mod ast;

pub use ast::*;

// TEMPORARY until the directive parser lands from its branch.
pub fn parse_directives(_text: &str) -> (Vec<Directive>, Vec<crate::diagnostics::Diagnostic>) {
    (Vec::new(), Vec::new())
}
