//! Symbolic expressions, constraint sets and the symbolic sum of P^3T+ (section 4.1,
//! Figure 2): execution counts as formulas in the program's unknowns, so that changing
//! N or P re-evaluates a formula instead of re-running the analysis.

mod cases;
mod compiled;
mod constraint;
mod display;
mod eval;
mod faulhaber;
mod feasible;
mod integer;
pub mod interrupt;
mod interval;
pub mod memo;
mod piecewise;
mod rational;
mod residue;
mod sum;
mod sym;
mod word;

pub use cases::{Case, Cases, MAX_CELLS};
pub use compiled::Compiled;
pub use constraint::{Constraint, Rel};
pub use display::{Notation, compact};
pub use eval::{Env, EvalError, Num};
pub use faulhaber::sum_over;
pub use integer::{gcd, lcm};
pub use interval::{AtomBounds, Ext, Interval};
pub use piecewise::{CompiledPiecewise, Piece, Piecewise};
pub use rational::{Overflow, Rational};
pub use sum::{Budget, SumError, symbolic_sum, symbolic_sum_shared};
pub use sym::{Atom, Monomial, Name, Sym, SymError, SymResult, Term};
pub use word::Word;

#[cfg(test)]
mod tests;
