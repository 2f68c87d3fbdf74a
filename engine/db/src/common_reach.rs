//! The COMMON members a procedure and everything it calls use and may set, for the
//! COMMON values a call passes ([`costline_model::calls::globals`]): a value is passed
//! only to a callee whose calls reach a use of it, and not passed at all by a caller
//! that calls a procedure which may set it.

use super::analysis::lower;
use super::calls::{procedure_named, procedures};
use super::units::{UnitText, base};
use costline_model::calls::{CommonUse, Member};
use costline_model::freq::calls::callee_names;
use costline_syntax::ir::Intent;
use std::collections::HashSet;
use std::sync::Arc;

/// The COMMON members `unit`'s own statements use and set.
#[salsa::tracked(returns(ref))]
pub fn common_use<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> CommonUse {
    CommonUse::of(&lower(db, base(db, unit)))
}

/// The COMMON members `unit` and the procedures it calls, at any depth, use and set
/// (recursive calls included: the walk visits each procedure once). A member passed
/// to a call counts as set where the callee may set that dummy (it sets it, or passes
/// it on, and it is not INTENT(IN)) or is not a procedure of the workspace.
#[salsa::tracked(returns(clone))]
pub fn common_reach<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Arc<CommonUse> {
    let mut out = CommonUse::default();
    let mut seen = HashSet::new();
    let mut queue = vec![base(db, unit)];
    while let Some(u) = queue.pop() {
        if !seen.insert(u) {
            continue;
        }
        out.extend(common_use(db, u));
        for name in callee_names(&lower(db, u)) {
            if let Some(callee) = procedure_named(db, &name) {
                queue.push(callee);
            }
        }
    }
    for (callee, position, member) in std::mem::take(&mut out.passed) {
        if sets_dummy(db, &callee, position) {
            out.set.insert(member);
        }
    }
    Arc::new(out)
}

/// Whether the procedure `name` may set its dummy at `position`.
fn sets_dummy(db: &dyn salsa::Database, name: &str, position: usize) -> bool {
    let Some(callee) = procedure_named(db, name) else {
        return true;
    };
    let ir = lower(db, callee);
    let intent_in = ir
        .dummies
        .get(position)
        .and_then(|d| ir.symbols.get(d))
        .is_some_and(|s| s.attrs.intent == Some(Intent::In));
    !intent_in && common_use(db, callee).dummies_set.contains(&position)
}

/// The COMMON arrays some procedure of the workspace sets an element of at literal
/// subscripts: their elements may carry values across calls; the others' elements
/// (flags, tables filled in loops) enter every unit as data.
#[salsa::tracked(returns(ref))]
pub fn valued_arrays(db: &dyn salsa::Database) -> std::collections::BTreeSet<Member> {
    let mut out = std::collections::BTreeSet::new();
    for &u in procedures(db).values() {
        out.extend(common_use(db, u).elements_set.iter().cloned());
    }
    out
}
