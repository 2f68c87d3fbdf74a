//! The values the count walk computes rather than counts: user functions evaluated at
//! constant arguments (`ilog2(64)` runs the function's body, [`execute`]) for the
//! walk and for the calls its formulas name ([`function_values`]), and the PARAMETER
//! values the walk may use as numbers ([`parameters`]).

use super::analysis::{freqs, lower};
use super::call_effects::callee_run;
use super::calls::procedure_named;
use super::inputs::Settings;
use super::units::{UnitText, base};
use costline_model::freq::CalleeRun;
use costline_model::freq::convert::{Names, Scope};
use costline_model::freq::execute::{self, FunctionValues};
use costline_symbolic::Sym;
use costline_syntax::ir::consteval::fold_constants;
use costline_syntax::ir::{Call, Unit, UnitKind};
use std::collections::BTreeMap;
use std::sync::Arc;

/// User functions as the database finds them.
pub struct Functions<'db> {
    pub db: &'db dyn salsa::Database,
}

impl FunctionValues for Functions<'_> {
    fn value(&self, name: &str, args: &[i64], depth: usize) -> Option<i64> {
        let db = self.db;
        let unit = procedure_named(db, name).filter(|u| u.kind(db) == UnitKind::Function)?;
        let ir = lower(db, unit);
        let integer = |n: &str| {
            let names = Names::default();
            Scope {
                unit: &ir,
                names: &names,
                integers: false,
            }
            .is_integer(n)
        };
        let scalar = |n: &str| ir.symbols.get(n).is_none_or(|s| !s.is_array());
        if ir.dummies.len() != args.len()
            || !integer(&ir.name)
            || !ir.dummies.iter().all(|d| integer(d) && scalar(d))
        {
            return None;
        }
        let mut names = Names::default().with_constants(parameters(db, unit));
        for (d, v) in ir.dummies.iter().zip(args) {
            names = names.with(d, Ok(Sym::int(*v as i128)));
        }
        let out = execute::evaluate(&ir, self, depth, &names)?;
        let value = out.get(&ir.name)?.as_ref().ok()?;
        i64::try_from(out.resolved(value)?.as_int()?).ok()
    }

    fn is_function(&self, name: &str) -> bool {
        procedure_named(self.db, name).is_some_and(|u| u.kind(self.db) == UnitKind::Function)
    }

    fn subroutine(&self, caller: &Unit, call: &Call) -> Option<Arc<CalleeRun>> {
        let db = self.db;
        let callee =
            procedure_named(db, &call.name).filter(|u| u.kind(db) == UnitKind::Subroutine)?;
        callee_run(db, caller, callee, call)
    }
}

/// The values of the unit's own PARAMETERs, the user's bindings overriding them: the
/// numbers its count walk may use (in set-up code it runs, in subscripts). Unchanged by
/// a binding of any other name, so such a change recounts nothing.
#[salsa::tracked(returns(clone))]
pub fn parameters<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
) -> Arc<BTreeMap<String, i64>> {
    let ir = lower(db, unit);
    let bindings = Settings::get(db).bindings(db);
    let mut values = fold_constants(&ir, &|_| None, bindings);
    values.retain(|n, _| ir.symbols.get(n).is_some_and(|s| s.attrs.parameter));
    Arc::new(values)
}

/// `values` (a unit's constants) with the values of the function calls its counts
/// name (`ilog2(n2)` where the bindings give `n2`), each evaluated once its arguments
/// are numbers.
pub fn function_values<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
    values: &mut BTreeMap<String, i64>,
) {
    let f = freqs(db, base(db, unit));
    let functions = Functions { db };
    for call in f.functions() {
        let args: Option<Vec<i64>> = call
            .args
            .iter()
            .map(|a| {
                let mut a = a.clone();
                for var in a.vars() {
                    if let Some(v) = values.get(&*var) {
                        a = a.subst(&var, &Sym::int(*v as i128)).ok()?;
                    }
                }
                i64::try_from(a.as_int()?).ok()
            })
            .collect();
        if let Some(v) = args.and_then(|args| functions.value(&call.function, &args, 1)) {
            values.insert(call.key.clone(), v);
        }
    }
}
