//! Where the private (NEW) variables of an INDEPENDENT loop are computed. HPF runs each
//! iteration of an INDEPENDENT loop on one processor, and its NEW variables are private
//! to that iteration (the SP/BT/LU solver idiom: `!hpf$ independent, new(lhs, ...)`
//! over the planes of distributed fields). An assignment to a NEW variable therefore
//! runs where its iteration runs, the home of the iteration: the owner of the element
//! the iteration's first assignment to a distributed array writes. Not every processor
//! (replicated work and an all-gather of what it reads, P times too much).

use crate::distribution::{Mapping, Ownership, UnitMappings};
use crate::freq::convert::Scope;
use costline_symbolic::Sym;
use costline_syntax::ir::{
    ArrayRef, Expr, StmtId, StmtKind, Subscript, Unit, enclosing_loops, walk,
};

/// The home of the iteration executing NEW-variable assignment `id` (whose left-hand
/// side is `lhs`), in the statement's scope: the home element's mapping and its owner
/// constraints; `None` when `lhs` is not NEW in an enclosing INDEPENDENT loop, or no
/// assignment of that loop names a home in the statement's variables.
pub fn iteration_home(
    unit: &Unit,
    maps: &UnitMappings,
    scope: &Scope,
    id: StmtId,
    lhs: &Expr,
) -> Option<(String, Mapping, Ownership)> {
    let var = match lhs {
        Expr::Name(n) => n,
        Expr::Array(r) => &r.name,
        _ => return None,
    };
    let enclosing = enclosing_loops(&unit.body, id)?;
    let at = enclosing.iter().rposition(|l| {
        l.independent
            .as_ref()
            .is_some_and(|i| i.new.iter().any(|n| n == var))
    })?;
    let independent = enclosing[at];
    // Loop variables of the INDEPENDENT loop's body that do not enclose the statement
    // mean nothing at it: a subscript using one is any value.
    let in_scope: Vec<&str> = enclosing.iter().filter_map(|l| l.var()).collect();
    let mut other_vars: Vec<&str> = Vec::new();
    walk(&independent.body, &mut |s, _| {
        if let StmtKind::Loop(l) = &s.kind
            && let Some(v) = l.var()
            && !in_scope.contains(&v)
        {
            other_vars.push(v);
        }
    });
    let mut home = None;
    walk(&independent.body, &mut |s, _| {
        if home.is_some() {
            return;
        }
        let StmtKind::Assign {
            lhs: Expr::Array(r),
            ..
        } = &s.kind
        else {
            return;
        };
        let Some(mapping) = maps.at(s.id, &r.name) else {
            return;
        };
        home =
            owner(scope, mapping, r, &other_vars).map(|own| (r.name.clone(), mapping.clone(), own));
    });
    home
}

/// The owner constraints of `r` in `scope`, its subscripts that use `other_vars` (or
/// have no value here) taken as any value; `None` when the owner depends on one.
fn owner(scope: &Scope, mapping: &Mapping, r: &ArrayRef, other_vars: &[&str]) -> Option<Ownership> {
    let mut placeholders = Vec::new();
    let mut subscripts = Vec::with_capacity(r.subscripts.len());
    for (k, s) in r.subscripts.iter().enumerate() {
        let Subscript::Index(e) = s else { return None };
        let other = other_vars.iter().any(|v| e.mentions(v));
        match scope.sym(e) {
            Ok(v) if !other => subscripts.push(v),
            _ => {
                let name = format!("any#{k}");
                subscripts.push(Sym::var(&name));
                placeholders.push(name);
            }
        }
    }
    let own = mapping.ownership(&subscripts).ok()?;
    let free = own
        .constraints
        .iter()
        .any(|c| placeholders.iter().any(|p| c.mentions(p)));
    (!free).then_some(own)
}
