//! What a CALL does to the caller's integer values (the database prepares it per call
//! from the callee's summary): the variables the callee may set are forgotten, and
//! those it leaves with a value known from its entry values take that value, the
//! entry values read in the caller just before the call. So `call read_input` (sizes
//! read or defaulted) then `call domain` (`nx = nx0`, `iend = nx - 1`) leave the main
//! program with the sizes every later call passes on.

use super::Assumption;
use costline_symbolic::Sym;
use costline_syntax::ir::{Expr, Unit, Written};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The effect of one CALL on the caller's names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallEffect {
    /// The callee, for the reasons given.
    pub callee: String,
    /// The caller's variables the callee may set (COMMON members, actual arguments).
    pub kills: Vec<Written>,
    /// The caller's variables (names or element keys) the callee leaves with a value,
    /// a formula over the callee's entry values, and what that value rests on.
    pub exits: Vec<(String, Sym, Vec<Assumption>)>,
    /// The callee's entry values the exits use, each as the caller writes it: the
    /// actual argument for a dummy, the caller's name (or element) for a COMMON member.
    pub entry: Vec<(String, Expr)>,
    /// The callee's body, to run with the caller's values where its effect has no
    /// formula (set-up code with loops: [`super::execute`]).
    pub run: Option<Arc<CalleeRun>>,
}

/// What running a callee's body at a call needs: the callee, its PARAMETER values,
/// and how its integer entry values and results correspond to the caller's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalleeRun {
    pub unit: Arc<Unit>,
    pub parameters: Arc<BTreeMap<String, i64>>,
    /// Each integer scalar dummy with the caller's actual argument.
    pub dummies: Vec<(String, Expr)>,
    /// Each integer COMMON member the two share: the caller's name, the callee's.
    pub members: Vec<(String, String)>,
    /// Each scalar dummy of a derived type with the caller's variable passed to it
    /// (caller's, callee's): their components (`lc%first`) correspond.
    pub structures: Vec<(String, String)>,
    /// The caller's integer arrays passed whole or as an element to an array dummy:
    /// the callee may change any of their elements.
    pub arrays: Vec<String>,
}
