//! From normalized free-form text to lowered units: the unit splitter finds program
//! units cheaply, each unit's own text is parsed by tree-sitter-fortran, and the tree
//! is lowered into the IR.

pub mod cst;
mod statements;
mod units;

pub use statements::{LogicalStmt, logical_statements};
pub use units::{UnitChunk, split_units};
