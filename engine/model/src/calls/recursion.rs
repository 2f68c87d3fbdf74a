//! The call graph by name and its recursive cycles, and the warning at a call that
//! closes one.

use crate::freq::calls::called;
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::Unit;
use std::collections::{BTreeMap, HashMap};

/// The call graph of the workspace by name: who calls whom, and the recursive cycles.
/// Built from the units' lowered statements (nothing that depends on values, so the
/// bindings of dummies can read it).
#[derive(Debug, Default, PartialEq)]
pub struct CallGraph {
    /// The units that call each procedure, each once, in workspace order.
    pub callers: HashMap<String, Vec<String>>,
    /// The members of each recursive cycle (a procedure calling itself, or several
    /// calling each other), by member.
    pub cycles: BTreeMap<String, Vec<String>>,
}

impl CallGraph {
    /// Whether a call from `caller` to `callee` closes a recursive cycle.
    pub fn recursive(&self, caller: &str, callee: &str) -> bool {
        self.cycles
            .get(callee)
            .is_some_and(|c| c.iter().any(|m| m == caller))
    }
}

/// A warning at each call of the procedure `ir` (named `name`) that closes a recursive
/// cycle of `graph`, naming it: the recursion is bounded at one level (the recursive
/// call adds its callee's own costs once per call, not the callee's further calls) and
/// the cycle's procedures count their runs per call.
pub fn recursion_warnings(ir: &Unit, name: &str, graph: &CallGraph) -> Vec<Diagnostic> {
    let Some(cycle) = graph.cycles.get(name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    ir.walk(&mut |s, _| {
        for callee in called(&s.kind) {
            if callee != name && !graph.recursive(name, &callee) {
                continue;
            }
            out.push(Diagnostic::warning(
                s.span,
                "recursion",
                format!(
                    "recursive call of `{callee}` (cycle: {}): counted one level deep — the \
                     call adds `{callee}`'s own costs once per call, not its further calls — \
                     and the procedures of the cycle count their runs per call",
                    cycle.join(" → ")
                ),
            ));
        }
    });
    out
}
