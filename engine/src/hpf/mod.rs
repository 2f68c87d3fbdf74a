//! HPF directives: extraction from comment lines and a real grammar for them.

mod ast;

pub use ast::*;
