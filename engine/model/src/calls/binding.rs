//! What a call passes and binds: each actual argument as its caller knows it (integer
//! values, the actual arrays' extents and mappings, valued under the caller's
//! constants), and what the actuals bind a procedure's dummies to.

use crate::distribution::{Layout, UnitMappings, exact_int};
use crate::freq::convert::{Names, Scope, size_key};
use costline_symbolic::{Env, Sym};
use costline_syntax::ir::{ArrayRef, Bound, Expr, StmtId, Subscript, Symbol, Unit};
use costline_syntax::span::Span;

/// The mapping of an actual array argument in its caller.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ActualMapping {
    /// Not mapped: every processor holds all of it.
    Replicated,
    Mapped(Layout),
    /// Mapped, but a size or bound has no value under the caller's bindings.
    Unknown,
}

/// One actual argument as its caller knows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Actual {
    /// An integer expression with a value under the caller's constants.
    Integer(i64),
    /// A whole array: its extents (when valued) and its mapping.
    Array {
        name: String,
        extents: Option<Vec<i64>>,
        mapping: ActualMapping,
    },
    /// A section of an array, as written, with its extents (when valued; an element
    /// subscript drops its dimension). Whether the array is mapped at the call: the
    /// section's mapping is not followed into the callee.
    Section {
        name: String,
        text: String,
        extents: Option<Vec<i64>>,
        mapped: bool,
    },
    /// Anything else, as written: a section of an unmapped array, a real or an unvalued
    /// expression.
    Other(String),
}

/// An actual argument with its keyword, if any.
pub type KeyedActual = (Option<String>, Actual);

/// A CALL statement of a unit with its actuals.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    pub stmt: StmtId,
    /// The statement, unit-relative.
    pub span: Span,
    pub callee: String,
    /// How often it runs per run of the caller.
    pub count: Option<f64>,
    /// Each actual with its keyword, if any.
    pub actuals: Vec<KeyedActual>,
    /// The integer COMMON values known at the call.
    pub globals: Vec<super::Global>,
    /// The actuals at each combination of the enclosing loops' values where they
    /// change with them ([`super::loop_values`]), each running an equal share of the
    /// call's executions; empty when the call binds as one.
    pub per_value: Vec<Vec<KeyedActual>>,
}

impl Site {
    /// The actuals of the call's sub-sites with the share of its executions each runs:
    /// the call's own actuals, whole, when it has no sub-sites.
    pub fn shares(&self) -> Vec<(f64, &[KeyedActual])> {
        if self.per_value.is_empty() {
            return vec![(1.0, &self.actuals)];
        }
        let share = 1.0 / self.per_value.len() as f64;
        self.per_value
            .iter()
            .map(|a| (share, a.as_slice()))
            .collect()
    }
}

/// What a call binds a procedure's dummies to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Binding {
    /// Integer scalar dummies with a value, and the integer COMMON variables and
    /// elements the call passes a value in.
    pub values: Vec<(String, i64)>,
    /// Array dummies associated with a whole actual array: its extents and mapping.
    pub arrays: Vec<(String, Option<Vec<i64>>, ActualMapping)>,
}

impl Binding {
    /// The mapping the actual associated with dummy `name` has, if any.
    pub fn mapping(&self, name: &str) -> Option<&ActualMapping> {
        self.arrays.iter().find(|a| a.0 == name).map(|a| &a.2)
    }
}

/// An actual argument of the call `stmt` valued under `env` where names mean `names`
/// (the values assignments reaching the call gave), with the mapping in force at the
/// call (a REDISTRIBUTE or REALIGN before it counts).
pub fn actual(
    ir: &Unit,
    maps: &UnitMappings,
    stmt: StmtId,
    e: &Expr,
    names: &Names,
    env: Env,
) -> Actual {
    let whole = match e {
        Expr::Array(r) if r.subscripts.is_empty() => Some(r.name.as_str()),
        Expr::Name(n) if ir.symbols.get(n).is_some_and(|s| s.is_array()) => Some(n.as_str()),
        _ => None,
    };
    if let Some(name) = whole {
        let shape = declared_shape(ir, name, env);
        let mapping = match maps.at(stmt, name) {
            None => ActualMapping::Replicated,
            Some(m) => match shape.as_ref().and_then(|s| {
                let lowers: Vec<Sym> = s.iter().map(|(l, _)| Sym::int(*l as i128)).collect();
                Layout::of(m, &lowers, env)
            }) {
                Some(l) => ActualMapping::Mapped(l),
                None => ActualMapping::Unknown,
            },
        };
        return Actual::Array {
            name: name.to_string(),
            extents: shape.map(|s| s.into_iter().map(|(_, n)| n).collect()),
            mapping,
        };
    }
    let scope = Scope {
        unit: ir,
        names,
        integers: false,
    };
    if let Expr::Array(r) = e
        && r.subscripts
            .iter()
            .any(|s| matches!(s, Subscript::Range(_)))
    {
        return Actual::Section {
            name: r.name.clone(),
            text: e.to_string(),
            extents: section_extents(ir, r, &scope, env),
            mapped: maps.at(stmt, &r.name).is_some(),
        };
    }
    match scope.sym(e).ok().and_then(|s| exact_int(&s, env)) {
        Some(v) => Actual::Integer(v),
        None => Actual::Other(e.to_string()),
    }
}

/// The extents of section `r` under `env`: a triplet `l:u:s` has `max(0, (u - l + s) / s)`
/// elements, a missing bound being the declared one (an assumed-shape dimension's upper
/// `lbound + size(x,k) - 1`); an element subscript drops its dimension. `None` when a
/// bound has no value.
fn section_extents(ir: &Unit, r: &ArrayRef, scope: &Scope, env: Env) -> Option<Vec<i64>> {
    let dims = ir.symbols.get(&r.name)?.dims.as_ref()?;
    if dims.len() != r.subscripts.len() {
        return None;
    }
    let value = |e: &Expr| -> Option<i64> {
        let s = scope.sym(e).ok()?;
        exact_int(&scope.names.resolved(&s)?, env)
    };
    let mut out = Vec::new();
    for (k, (sub, d)) in r.subscripts.iter().zip(dims).enumerate() {
        let Subscript::Range(t) = sub else {
            continue;
        };
        let declared_lower = || d.lower.as_ref().map_or(Some(1), value);
        let lower = match &t.lower {
            Some(l) => value(l)?,
            None => declared_lower()?,
        };
        let upper = match (&t.upper, &d.upper) {
            (Some(u), _) => value(u)?,
            (None, Bound::Explicit(u)) => value(u)?,
            (None, Bound::Deferred) => {
                let size = exact_int(&Sym::var(&size_key(&r.name, k)), env)?;
                declared_lower()?.checked_add(size)?.checked_sub(1)?
            }
            (None, Bound::Assumed) => return None,
        };
        let stride = t.stride.as_ref().map_or(Some(1), value)?;
        // max(0, (u - l + s) / s); a zero stride or huge bounds have no extent.
        let n = upper
            .checked_sub(lower)?
            .checked_add(stride)?
            .checked_div(stride)?;
        out.push(n.max(0));
    }
    Some(out)
}

/// The (lower bound, extent) of each dimension of array `name` under `env`; `None`
/// when a bound is assumed or has no value.
pub fn declared_shape(ir: &Unit, name: &str, env: Env) -> Option<Vec<(i64, i64)>> {
    declared_dims(ir, name)?
        .iter()
        .map(|(l, e)| Some((exact_int(l, env)?, exact_int(e, env)?)))
        .collect()
}

/// The declared (lower bound, extent) of each dimension of array `name`, as formulas in
/// the unit's unknowns, when every bound is explicit.
pub fn declared_dims(ir: &Unit, name: &str) -> Option<Vec<(Sym, Sym)>> {
    let scope = Scope {
        unit: ir,
        names: &Names::default(),
        integers: true,
    };
    ir.symbols
        .get(name)?
        .dims
        .as_ref()?
        .iter()
        .map(|d| {
            let lower = d
                .lower
                .as_ref()
                .map_or(Ok(Sym::one()), |e| scope.sym(e))
                .ok()?;
            let Bound::Explicit(u) = &d.upper else {
                return None;
            };
            let extent = scope.sym(u).ok()?.sub(&lower).ok()?.add_int(1).ok()?;
            Some((lower, extent))
        })
        .collect()
}

/// The declared lower bounds of array `name` (1 where not given or not valued).
pub fn declared_lowers(ir: &Unit, name: &str, env: Env) -> Vec<i64> {
    let scope = Scope {
        unit: ir,
        names: &Names::default(),
        integers: true,
    };
    ir.symbols
        .get(name)
        .and_then(|s| s.dims.as_ref())
        .map(|dims| {
            dims.iter()
                .map(|d| {
                    d.lower
                        .as_ref()
                        .and_then(|l| scope.sym(l).ok())
                        .and_then(|s| exact_int(&s, env))
                        .unwrap_or(1)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What `actuals` bind `callee`'s dummies to: by position up to the first keyword,
/// then by keyword.
pub fn bind(callee: &Unit, actuals: &[(Option<String>, Actual)]) -> Binding {
    let mut out = Binding::default();
    let mut positional = true;
    for (k, (keyword, a)) in actuals.iter().enumerate() {
        positional &= keyword.is_none();
        let dummy = match keyword {
            Some(kw) => kw.as_str(),
            None if positional => match callee.dummies.get(k) {
                Some(d) => d.as_str(),
                None => continue,
            },
            None => continue,
        };
        let Some(sym) = callee.symbols.get(dummy) else {
            continue;
        };
        let integer = Scope {
            unit: callee,
            names: &Names::default(),
            integers: false,
        }
        .is_integer(dummy);
        match a {
            Actual::Integer(v) if !sym.is_array() && integer => {
                out.values.push((dummy.to_string(), *v))
            }
            Actual::Array {
                extents, mapping, ..
            } if sym.is_array() => {
                assumed_extents(&mut out, dummy, sym, extents.as_deref());
                out.arrays
                    .push((dummy.to_string(), extents.clone(), mapping.clone()))
            }
            Actual::Section { extents, .. } if sym.is_array() => {
                assumed_extents(&mut out, dummy, sym, extents.as_deref());
            }
            _ => {}
        }
    }
    out.values.sort();
    out.arrays.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// An assumed-shape dimension of array dummy `dummy` takes the extent of its actual's
/// (`size(dummy,k)`), when the ranks agree.
fn assumed_extents(out: &mut Binding, dummy: &str, sym: &Symbol, extents: Option<&[i64]>) {
    let dims = sym.dims.as_deref().unwrap_or_default();
    let Some(extents) = extents.filter(|e| e.len() == dims.len()) else {
        return;
    };
    for (k, (d, n)) in dims.iter().zip(extents).enumerate() {
        if d.upper == Bound::Deferred && sym.attrs.dummy {
            out.values.push((size_key(dummy, k), *n));
        }
    }
}
