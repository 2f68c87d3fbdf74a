//! Where a statement's communication is placed in the loosely synchronous model
//! (DESIGN.md section 3): the non-local elements a reference reads are fetched before
//! the loop nest, vectorized and hoisted out of every enclosing loop, from the inside
//! out, until a loop that carries a dependence on them — a DO loop whose body writes
//! elements the reference reads after them (dependence.rs), or passes the array to a
//! procedure, which may write it — as a time-step loop does. FORALL, WHERE and array
//! syntax read every right-hand side before any assignment, and an INDEPENDENT loop
//! asserts that no iteration reads what another writes: neither carries a dependence.

use super::dependence;
use costline_syntax::ir::{Loop, Stmt, StmtId, Subscript};
use costline_syntax::span::Span;

/// The enclosing loops of a statement, outermost first.
pub type Enclosing<'a> = Vec<(&'a Stmt, &'a Loop)>;

/// Where the fetch of one reference's elements goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// How many enclosing loops (the outermost ones) the fetch stays inside: it runs
    /// once per iteration of the innermost of them, or once per run of the unit when 0.
    pub kept: usize,
    /// How many enclosing loops it is hoisted out of (vectorized over).
    pub hoisted: usize,
    /// The loop that stopped the hoisting (the innermost kept loop).
    pub blocked_by: Option<Blocker>,
}

/// The loop a fetch stays inside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocker {
    pub stmt: StmtId,
    /// Its header, unit-relative.
    pub header: Span,
    /// Its variable (none for DO WHILE and DO without control).
    pub var: Option<String>,
}

impl Placement {
    /// Element-wise: the fetch stays inside every enclosing loop, one element at a time.
    pub fn element_wise(&self) -> bool {
        self.hoisted == 0 && self.kept > 0
    }
}

/// The placement of the fetch of `array` read by a statement inside `loops`: the
/// element `read` names in its statement, or (None) elements read as a whole.
pub fn place(loops: &Enclosing, array: &str, read: Option<(StmtId, &[Subscript])>) -> Placement {
    let bare: Vec<&Loop> = loops.iter().map(|(_, l)| *l).collect();
    let mut kept = loops.len();
    while kept > 0 && !dependence::carries_flow(&bare, kept - 1, array, read) {
        kept -= 1;
    }
    Placement {
        kept,
        hoisted: loops.len() - kept,
        blocked_by: kept.checked_sub(1).map(|k| Blocker {
            stmt: loops[k].0.id,
            header: loops[k].1.header,
            var: loops[k].1.var().map(str::to_string),
        }),
    }
}
