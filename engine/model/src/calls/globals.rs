//! The COMMON values a call passes: an integer COMMON variable (or an element of an
//! integer COMMON array at constant subscripts) that has a value where the call is made
//! has it on entry to the callee, where the callee declares the same member of the same
//! block under the same name (storage association pairs members by position; a member
//! renamed is not followed). Values flow down the call graph this way, so the extents a
//! main program computes (`nx2 = grid_points(1) - 2`) reach the procedures that loop
//! over them, however many calls deep. A procedure that does not declare the block
//! passes them on unseen (a COMMON block keeps its values while the main program
//! declares it): it holds them under [`passed_key`]s, which are no names of its own.

use crate::distribution::exact_int;
use crate::freq::convert::{Names, Scope, array_key};
use costline_syntax::ir::{ArrayRef, Expr, StmtKind, Subscript, Unit, Written};
use std::collections::{BTreeMap, BTreeSet};

/// A COMMON block member: the block's name and the member's position in it.
pub type Member = (String, usize);

/// An integer COMMON variable or element with its value at a call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Global {
    /// The name (`nx2`) or element key (`grid_points(1)`) in the caller.
    pub key: String,
    pub member: Member,
    pub value: i64,
}

/// The integer COMMON values of `ir` at a point where names mean `names` (`None`: the
/// values the unit was entered with), under the unit's constants `known` (its callers'
/// values included). What the unit's calls set is in `names` for the blocks it
/// declares; values of blocks it only passes on are left out where they are in
/// `changed` (which a call of the unit that may run before may set).
pub fn globals_at(
    ir: &Unit,
    names: Option<&Names>,
    known: &BTreeMap<String, i64>,
    changed: &BTreeSet<Member>,
) -> Vec<Global> {
    let empty = Names::default();
    let names = names.unwrap_or(&empty);
    let scope = Scope {
        unit: ir,
        names,
        integers: false,
    };
    let env = |n: &str| known.get(n).map(|v| *v as i128);
    let mut out = Vec::new();
    for sym in ir.symbols.values() {
        let Some(member) = &sym.common else { continue };
        if !scope.is_integer(&sym.name) {
            continue;
        }
        let mut add = |key: &str, value: Option<i64>| {
            if let Some(value) = value {
                out.push(Global {
                    key: key.to_string(),
                    member: member.clone(),
                    value,
                });
            }
        };
        if !sym.is_array() {
            let value = match names.get(&sym.name) {
                Some(v) => v.as_ref().ok().and_then(|s| exact_int(s, &env)),
                None => known.get(&sym.name).copied(),
            };
            add(&sym.name, value);
            continue;
        }
        let prefix = format!("{}(", sym.name);
        let whole = array_key(&sym.name);
        let unfollowed = names.get(&whole).is_some();
        // The elements the names give (a value or not), then those only `known` gives.
        let mut elements: BTreeMap<&str, Option<i64>> = names
            .entries()
            .filter(|(k, _)| k.starts_with(&prefix) && *k != whole)
            .map(|(k, v)| (k, v.as_ref().ok().and_then(|s| exact_int(s, &env))))
            .collect();
        if !unfollowed {
            for (k, v) in known.iter().filter(|(k, _)| k.starts_with(&prefix)) {
                elements.entry(k.as_str()).or_insert(Some(*v));
            }
        }
        for (key, value) in elements {
            add(key, value);
        }
    }
    // Values of blocks the unit does not declare, passed on unseen.
    for (passed, value) in known {
        let Some((member, key)) = parse_passed(passed) else {
            continue;
        };
        if !changed.contains(&member) && !declares(ir, &member.0) {
            out.push(Global {
                key: key.to_string(),
                member,
                value: *value,
            });
        }
    }
    out.sort_by(|a, b| a.key.cmp(&b.key));
    out
}

/// The key under which a unit that does not declare COMMON block `member.0` holds the
/// value of `key` (a caller's name or element key of the member), to pass it on:
/// `/block/position/key`, which no Fortran name can be.
pub fn passed_key(member: &Member, key: &str) -> String {
    format!("/{}/{}/{key}", member.0, member.1)
}

/// Whether `key` is a [`passed_key`]: a value the unit holds for its callees only.
pub fn is_passed_key(key: &str) -> bool {
    key.starts_with('/')
}

fn parse_passed(passed: &str) -> Option<(Member, &str)> {
    let rest = passed.strip_prefix('/')?;
    let (block, rest) = rest.split_once('/')?;
    let (position, key) = rest.split_once('/')?;
    Some(((block.to_string(), position.parse().ok()?), key))
}

fn declares(ir: &Unit, block: &str) -> bool {
    ir.symbols
        .values()
        .any(|s| s.common.as_ref().is_some_and(|c| c.0 == block))
}

/// The values among `globals` (a caller's, at a call) that `callee` receives: those of
/// members that it or a procedure it calls uses (`needed`), keyed by the callee's
/// names where it declares the member under the same name, by [`passed_key`] where it
/// does not declare the block.
pub fn received(
    callee: &Unit,
    globals: &[Global],
    needed: &BTreeSet<Member>,
) -> Vec<(String, i64)> {
    globals
        .iter()
        .filter(|g| needed.contains(&g.member))
        .filter_map(|g| {
            let name = g.key.split('(').next().unwrap_or(&g.key);
            let same = callee
                .symbols
                .get(name)
                .is_some_and(|s| s.common.as_ref() == Some(&g.member));
            if same {
                Some((g.key.clone(), g.value))
            } else if !declares(callee, &g.member.0) {
                Some((passed_key(&g.member, &g.key), g.value))
            } else {
                None
            }
        })
        .collect()
}

/// The COMMON members a unit's statements use and may set (assignments, loop
/// variables, input items), the members it passes to calls (set there if the callee
/// sets its dummy), and which of its own dummies it may set.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CommonUse {
    pub used: BTreeSet<Member>,
    pub set: BTreeSet<Member>,
    /// (callee, argument position, member) of each member passed by position.
    pub passed: BTreeSet<(String, usize, Member)>,
    /// The positions of the dummies the unit sets or passes on to a call.
    pub dummies_set: BTreeSet<usize>,
    /// The array members whose elements the unit assigns one at a time
    /// (`grid_points(1) = problem_size`, `m1(k) = m1(k+1)/2` in a set-up loop) or reads
    /// at literal subscripts (`read (2,*) grid_points(1)`): sizes and tables, which may
    /// reach other units as values.
    pub elements_set: BTreeSet<Member>,
}

impl CommonUse {
    pub fn of(ir: &Unit) -> CommonUse {
        let member = |n: &str| ir.symbols.get(n).and_then(|s| s.common.clone());
        let dummy = |n: &str| ir.dummies.iter().position(|d| d == n);
        let mut out = CommonUse::default();
        let used = |e: &Expr, out: &mut CommonUse| {
            e.visit(&mut |e| {
                if let Expr::Name(n) | Expr::Array(ArrayRef { name: n, .. }) = e
                    && let Some(m) = member(n)
                {
                    out.used.insert(m);
                }
            })
        };
        let variable = |e: &Expr| match e {
            Expr::Name(n) | Expr::Array(ArrayRef { name: n, .. }) => Some(n.clone()),
            _ => None,
        };
        let sets = |n: &str, out: &mut CommonUse| {
            out.set.extend(member(n));
            out.dummies_set.extend(dummy(n));
        };
        ir.walk(&mut |s, _| match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                used(lhs, &mut out);
                used(rhs, &mut out);
                if let Some(n) = variable(lhs) {
                    sets(&n, &mut out);
                }
                if let Expr::Array(r) = lhs
                    && r.subscripts
                        .iter()
                        .all(|s| matches!(s, Subscript::Index(_)))
                {
                    out.elements_set.extend(member(&r.name));
                }
            }
            StmtKind::Call(c) => {
                let mut positional = true;
                for (k, a) in c.args.iter().enumerate() {
                    used(&a.value, &mut out);
                    positional &= a.keyword.is_none();
                    let Some(n) = variable(&a.value) else {
                        continue;
                    };
                    out.dummies_set.extend(dummy(&n));
                    match member(&n) {
                        Some(m) if positional => {
                            out.passed.insert((c.name.clone(), k, m));
                        }
                        Some(m) => {
                            out.set.insert(m);
                        }
                        None => {}
                    }
                }
            }
            StmtKind::Loop(l) => {
                if let Some(var) = l.var() {
                    sets(var, &mut out);
                }
                for e in l.control.exprs() {
                    used(e, &mut out);
                }
            }
            StmtKind::If(i) => {
                for c in i.branches.iter().filter_map(|b| b.cond.as_ref()) {
                    used(c, &mut out);
                }
            }
            StmtKind::Select(sel) => used(&sel.selector, &mut out),
            StmtKind::ArithmeticIf { expr, .. } => used(expr, &mut out),
            StmtKind::Other { writes, .. } => {
                for w in writes {
                    sets(w.name(), &mut out);
                    if let Written::Element(a, _) = w {
                        out.elements_set.extend(member(a));
                    }
                }
            }
            _ => {}
        });
        out
    }

    /// Adds what `other` uses and sets (its passed members as they are).
    pub fn extend(&mut self, other: &CommonUse) {
        self.used.extend(other.used.iter().cloned());
        self.set.extend(other.set.iter().cloned());
        self.passed.extend(other.passed.iter().cloned());
        self.elements_set.extend(other.elements_set.iter().cloned());
    }
}
