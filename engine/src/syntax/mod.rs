//! From normalized free-form text to lowered units: the unit splitter finds program
//! units cheaply, each unit's own text is parsed by tree-sitter-fortran, and the tree
//! is lowered into the IR.

mod blocks;
pub mod cst;
pub mod lower;
pub mod pragma;
mod repair;
mod statements;
mod units;

pub use blocks::check_blocks;
pub use statements::{LogicalStmt, logical_statements, split_label};
pub use units::{UnitChunk, split_units};
