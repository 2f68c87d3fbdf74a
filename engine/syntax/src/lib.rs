//! costline's front end: bytes of Fortran/HPF source to the lowered IR every analysis
//! reads, with positioned diagnostics and never a failure. `source` (decoding, fixed
//! and free form, preprocessor lines, INCLUDE) gives the normalized text; the unit
//! splitter finds program units cheaply, each unit's own text is parsed by
//! tree-sitter-fortran, and the tree is lowered into the IR (`ir`), array syntax, FORALL
//! and WHERE normalized into loop nests (`normalize`) and HPF directives parsed by
//! `hpf`. No salsa, no LSP.

pub mod diagnostics;
pub mod hpf;
pub mod ir;
pub mod normalize;
pub mod source;
pub mod span;
pub mod text_edit;
pub mod unit_source;

mod blocks;
pub mod cst;
pub mod lower;
pub mod pragma;
mod repair;
pub mod resplit;
mod statements;
mod units;

pub use blocks::check_blocks;
pub use statements::{LogicalStmt, logical_statements, split_label};
pub use units::{UnitChunk, split_units};
