//! From IR expressions to symbolic ones, for counting: integer expressions over the
//! program's unknowns become [`Sym`]s, logical conditions become disjoint alternatives of
//! constraint sets with a probability. Anything that depends on data (an array element,
//! a real variable, a function result) is not converted; the caller treats it as data.

use super::Assumption;
use costline_symbolic::{Constraint, Rational, Rel, Sym};
use costline_syntax::ir::{ArrayRef, BaseType, BinaryOp, Bound, Expr, Subscript, UnaryOp, Unit};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why an expression has no symbolic form: it depends on data.
pub type DataDependent = String;

/// One alternative of a condition: the constraints that select it and the probability
/// of its data-dependent part. Alternatives of one condition are disjoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Alt {
    pub cons: Vec<Constraint>,
    pub prob: Rational,
    /// The condition was too complex to keep exact: this alternative replaces it with
    /// a probability (an estimate to report).
    pub degraded: bool,
}

/// A condition as disjoint alternatives; empty means never.
pub type Cond = Vec<Alt>;

/// More alternatives than this and a condition is treated as data-dependent.
const MAX_ALTERNATIVES: usize = 64;

/// A conjunction of conditions examining more pairs of alternatives, or comparing more
/// pairs of constraints for contradictions, than this is estimated instead (long GO TO
/// chains narrow a block again and again).
const MAX_PAIRS: usize = 1024;
const MAX_COMPARISONS: usize = 16_384;

pub fn always() -> Cond {
    vec![Alt {
        cons: Vec::new(),
        prob: Rational::ONE,
        degraded: false,
    }]
}

/// What names mean at a point of the unit: loop variables in scope and the values the
/// assignments reaching it gave to integer scalars. A persistent list, latest first,
/// each name at most once: frames share their tails, and the list is never longer than
/// the unit's integer names (a straight program of 50,000 loops over `i` keeps one
/// entry for `i`, so looking a name up does not grow with the program).
///
/// It also carries the unit's constants (PARAMETERs, the user's bindings): a name
/// stays a symbol in the formulas (so a binding can change it later), but where a
/// value must be a number here — an element's subscripts, the bounds and conditions
/// of code run by [`super::execute`] — the constant is used.
///
/// And it carries the tables the program fills once ([`super::table`]): an integer
/// array's formula in its subscripts, by the unit's name for the array.
#[derive(Clone, Default)]
pub struct Names(
    Option<Arc<NameNode>>,
    Option<Arc<BTreeMap<String, i64>>>,
    Option<Arc<BTreeMap<String, Sym>>>,
);

struct NameNode {
    name: String,
    value: Result<Sym, DataDependent>,
    /// The value was read from input at run time (a READ's item).
    input: bool,
    /// What the value rests on besides the program text: a count that uses it does.
    assumed: Vec<Assumption>,
    next: Names,
}

/// Adds to `into` each of `new` it does not hold yet.
pub fn add_assumptions(into: &mut Vec<Assumption>, new: Vec<Assumption>) {
    for a in new {
        if !into.contains(&a) {
            into.push(a);
        }
    }
}

/// The key an integer array's element at constant subscripts goes by among the names
/// (and as an unknown of the unit): `grid_points(1)`, `m(2,3)`.
pub fn element_key(array: &str, subscripts: &[i64]) -> String {
    let subs: Vec<String> = subscripts.iter().map(i64::to_string).collect();
    format!("{array}({})", subs.join(","))
}

/// The unknown an assumed-shape (`:`) dimension's extent goes by: `size(x,k)` for the
/// 0-based dimension `dim` of array `x` (what a call binds to its actual's extent).
pub fn size_key(array: &str, dim: usize) -> String {
    format!("size({array},{})", dim + 1)
}

/// The key that says an array's elements changed in ways not followed (a variable
/// subscript, a READ into an implied DO): later elements of it have no value.
pub fn array_key(array: &str) -> String {
    format!("{array}(*)")
}

impl Names {
    /// This list with the unit's constants.
    pub fn with_constants(&self, constants: Arc<BTreeMap<String, i64>>) -> Names {
        Names(self.0.clone(), Some(constants), self.2.clone())
    }

    /// This list with the formulas of the tables the program fills once, by array.
    pub fn with_tables(&self, tables: Arc<BTreeMap<String, Sym>>) -> Names {
        Names(self.0.clone(), self.1.clone(), Some(tables))
    }

    /// The formula of table `array` in its [`super::table::subscript_var`]s.
    pub fn table(&self, array: &str) -> Option<&Sym> {
        self.2.as_deref()?.get(array)
    }

    /// This list with `more` added to its constants (over those of the same name).
    pub fn with_more_constants(&self, more: &BTreeMap<String, i64>) -> Names {
        let mut all = self.1.as_deref().cloned().unwrap_or_default();
        all.extend(more.iter().map(|(k, v)| (k.clone(), *v)));
        self.with_constants(Arc::new(all))
    }

    /// The name a user function's value at arguments `args` goes by: `f(3)` where they
    /// are numbers here ([`element_key`]), else `f(n2)` as the formulas write them.
    pub fn call_key(&self, function: &str, args: &[Sym]) -> String {
        let numbers: Option<Vec<i64>> = args
            .iter()
            .map(|a| i64::try_from(self.resolved(a)?.as_int()?).ok())
            .collect();
        match numbers {
            Some(n) => element_key(function, &n),
            None => {
                let args: Vec<String> = args.iter().map(Sym::to_string).collect();
                format!("{function}({})", args.join(","))
            }
        }
    }

    /// `s` with the unit's constants substituted.
    pub fn resolved(&self, s: &Sym) -> Option<Sym> {
        let Some(constants) = &self.1 else {
            return Some(s.clone());
        };
        let mut out = s.clone();
        for var in s.vars() {
            if let Some(v) = constants.get(&*var) {
                out = out.subst(&var, &Sym::int(*v as i128)).ok()?;
            }
        }
        Some(out)
    }

    /// This list with `name` meaning `value` from now on: its earlier entry, if any, is
    /// dropped (the entries before it are copied; the tail after it is shared).
    pub fn with(&self, name: &str, value: Result<Sym, DataDependent>) -> Names {
        self.with_entry(name, value, false, Vec::new())
    }

    /// This list with `name` meaning `value`, which rests on `assumed`.
    pub fn with_assumed(
        &self,
        name: &str,
        value: Result<Sym, DataDependent>,
        assumed: Vec<Assumption>,
    ) -> Names {
        self.with_entry(name, value, false, assumed)
    }

    /// This list with `name` read from input at run time (`why` says where).
    pub fn with_input(&self, name: &str, why: String) -> Names {
        self.with_entry(name, Err(why), true, Vec::new())
    }

    /// This list with every element of `array` changed in ways not followed.
    pub fn without_elements(&self, array: &str, why: &str) -> Names {
        let prefix = format!("{array}(");
        let mut out = self.clone();
        for (key, _) in self.entries().filter(|(k, _)| k.starts_with(&prefix)) {
            out = out.with(key, Err(why.to_string()));
        }
        out.with(&array_key(array), Err(why.to_string()))
    }

    /// The names bound and what each means, latest first (each name once), borrowed:
    /// a caller looking at every entry needs no lookup per name.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &Result<Sym, DataDependent>)> {
        std::iter::successors(self.0.as_deref(), |node| node.next.0.as_deref())
            .map(|node| (node.name.as_str(), &node.value))
    }

    /// Whether `name`'s value was read from input at run time.
    pub fn is_input(&self, name: &str) -> bool {
        self.node(name).is_some_and(|n| n.input)
    }

    /// What the value of `name` rests on.
    pub fn assumed(&self, name: &str) -> &[Assumption] {
        self.node(name).map_or(&[], |n| &n.assumed)
    }

    fn with_entry(
        &self,
        name: &str,
        value: Result<Sym, DataDependent>,
        input: bool,
        assumed: Vec<Assumption>,
    ) -> Names {
        let mut before: Vec<&NameNode> = Vec::new();
        let mut at = self.0.as_deref();
        let mut rest = self.clone();
        while let Some(node) = at {
            if node.name == name {
                rest = node.next.clone();
                break;
            }
            before.push(node);
            at = node.next.0.as_deref();
        }
        if at.is_none() {
            // Not bound before: the whole list is the tail.
            before.clear();
            rest = self.clone();
        }
        for node in before.into_iter().rev() {
            rest = Names(
                Some(Arc::new(NameNode {
                    name: node.name.clone(),
                    value: node.value.clone(),
                    input: node.input,
                    assumed: node.assumed.clone(),
                    next: rest,
                })),
                self.1.clone(),
                self.2.clone(),
            );
        }
        Names(
            Some(Arc::new(NameNode {
                name: name.to_string(),
                value,
                input,
                assumed,
                next: rest,
            })),
            self.1.clone(),
            self.2.clone(),
        )
    }

    /// What `name` means, if it has been bound.
    pub fn get(&self, name: &str) -> Option<&Result<Sym, DataDependent>> {
        self.node(name).map(|n| &n.value)
    }

    fn node(&self, name: &str) -> Option<&NameNode> {
        let mut at = self.0.as_deref();
        while let Some(node) = at {
            if node.name == name {
                return Some(node);
            }
            at = node.next.0.as_deref();
        }
        None
    }
}

/// How names are converted at a point of the unit. A name bound neither as a loop
/// variable nor by a reaching assignment is a parameter: its value is the one the unit
/// was entered with.
pub struct Scope<'a> {
    pub unit: &'a Unit,
    pub names: &'a Names,
    /// Take every unbound name for an integer, whatever its declared or implicit type:
    /// names in HPF directives (processor shapes, template extents, block sizes) are
    /// integers by construction, like P in `PROCESSORS PR(P)`.
    pub integers: bool,
}

impl Scope<'_> {
    pub fn sym(&self, e: &Expr) -> Result<Sym, DataDependent> {
        let r = |x: &Expr| self.sym(x);
        let ok = |s: Result<Sym, costline_symbolic::SymError>| {
            s.map_err(|_| format!("`{e}` is too large to count with"))
        };
        match e {
            Expr::Int(v) => Ok(Sym::int(*v as i128)),
            Expr::Name(n) => {
                if let Some(v) = self.names.get(n) {
                    return v.clone();
                }
                if !self.integers && !self.is_integer(n) {
                    return Err(format!("`{n}` is not an integer"));
                }
                Ok(Sym::var(n))
            }
            Expr::Unary(UnaryOp::Neg, x) => ok(r(x)?.neg()),
            Expr::Unary(UnaryOp::Plus, x) => r(x),
            Expr::Unary(UnaryOp::Not, _) => Err(format!("`{e}` is not an integer expression")),
            Expr::Binary(op, a, b) => {
                let (a, b) = (r(a)?, r(b)?);
                match op {
                    BinaryOp::Add => ok(a.add(&b)),
                    BinaryOp::Sub => ok(a.sub(&b)),
                    BinaryOp::Mul => ok(a.mul(&b)),
                    // Both operands are integers here: Fortran integer division.
                    BinaryOp::Div => ok(a.idiv(&b)),
                    BinaryOp::Pow => ok(a.pow_sym(&b)),
                    _ => Err(format!("`{e}` is not an integer expression")),
                }
            }
            Expr::Call(c) => {
                if let Some(shape) = self.shape_inquiry(c) {
                    return shape;
                }
                let args = c
                    .args
                    .iter()
                    .map(|a| r(&a.value))
                    .collect::<Result<Vec<_>, _>>()?;
                match (c.name.as_str(), args.as_slice()) {
                    ("min" | "min0", [_, _, ..]) => ok(Sym::min(&args)),
                    ("max" | "max0", [_, _, ..]) => ok(Sym::max(&args)),
                    ("mod", [a, b]) => ok(a.fmod(b)),
                    // MODULO(a, b) = a - b*floor(a/b), the sign of b.
                    ("modulo", [a, b]) => ok(a
                        .div(b)
                        .and_then(|q| q.floor())
                        .and_then(|q| a.sub(&b.mul(&q)?))),
                    ("abs" | "iabs", [a]) => ok(a.neg().and_then(|n| Sym::max(&[a.clone(), n]))),
                    ("int", [a]) => Ok(a.clone()),
                    // HPF: the number of processors the program runs on, the P binding.
                    ("number_of_processors", []) => Ok(Sym::var("p")),
                    // A user function's value at constant arguments, where the count
                    // walk evaluated it (freq::execute).
                    _ => self
                        .names
                        .get(&self.names.call_key(&c.name, &args))
                        .cloned()
                        .unwrap_or_else(|| Err(format!("the result of `{}`", c.name))),
                }
            }
            Expr::Array(a) => self.element(a),
            Expr::Real(t) => Err(format!("the real number {t}")),
            Expr::Logical(_) | Expr::Str(_) | Expr::Unknown(_) => {
                Err(format!("`{e}` is not an integer expression"))
            }
        }
    }

    /// `LBOUND(x, k)`, `UBOUND(x, k)`, `SIZE(x, k)` and `SIZE(x)` of a declared array
    /// `x`: from its declaration, an assumed-shape (`:`) dimension's extent being the
    /// unknown `size(x,k)` (what a call binds, the actual's extent); `None` for another
    /// call.
    fn shape_inquiry(&self, c: &costline_syntax::ir::Call) -> Option<Result<Sym, DataDependent>> {
        if !matches!(c.name.as_str(), "lbound" | "ubound" | "size") {
            return None;
        }
        let array = match &c.args.first()?.value {
            Expr::Name(n) => n,
            Expr::Array(r) if r.subscripts.is_empty() => &r.name,
            _ => return None,
        };
        let dims = self.unit.symbols.get(array)?.dims.as_ref()?;
        let dim = |k: usize| -> Result<(Sym, Sym), DataDependent> {
            let d = dims
                .get(k)
                .ok_or_else(|| format!("`{array}` has no dimension {}", k + 1))?;
            let lower = d.lower.as_ref().map_or(Ok(Sym::one()), |l| self.sym(l))?;
            let extent = match &d.upper {
                Bound::Explicit(u) => self
                    .sym(u)?
                    .sub(&lower)
                    .and_then(|e| e.add_int(1))
                    .map_err(|_| format!("the extent of `{array}`"))?,
                Bound::Deferred => Sym::var(&size_key(array, k)),
                Bound::Assumed => return Err(format!("the assumed size of `{array}`")),
            };
            Ok((lower, extent))
        };
        let k = match c.args.get(1).map(|a| &a.value) {
            Some(Expr::Int(k)) if *k >= 1 => Some(*k as usize - 1),
            Some(_) => return Some(Err(format!("the result of `{}`", c.name))),
            None => None,
        };
        Some(match (c.name.as_str(), k) {
            ("size", None) => (0..dims.len()).try_fold(Sym::one(), |acc, k| {
                acc.mul(&dim(k)?.1)
                    .map_err(|_| format!("the size of `{array}`"))
            }),
            (_, None) => Err(format!("the result of `{}`", c.name)),
            ("lbound", Some(k)) => dim(k).map(|d| d.0),
            ("ubound", Some(k)) => dim(k).and_then(|(l, n)| {
                l.add(&n)
                    .and_then(|u| u.add_int(-1))
                    .map_err(|_| format!("the upper bound of `{array}`"))
            }),
            (_, Some(k)) => dim(k).map(|d| d.1),
        })
    }

    /// What the values of the names `e` uses rest on (a default taken for a value read
    /// at run time).
    pub fn assumptions(&self, e: &Expr) -> Vec<Assumption> {
        let mut out: Vec<Assumption> = Vec::new();
        e.visit(&mut |x| {
            let key = match x {
                Expr::Name(n) => Some(n.clone()),
                Expr::Array(a) => self.element_key(a),
                _ => None,
            };
            if let Some(k) = &key {
                add_assumptions(&mut out, self.names.assumed(k).to_vec());
            }
        });
        out
    }

    /// An element of an integer array at constant subscripts is a name of its own
    /// (`grid_points(1)`): its value is the one an assignment reaching here gave it,
    /// else, for a COMMON array, the one the unit was entered with (what its callers
    /// pass). Any other element is data.
    fn element(&self, a: &ArrayRef) -> Result<Sym, DataDependent> {
        let data = || Err(format!("the array element `{a}`"));
        let Some(key) = self.element_key(a) else {
            return self.table_element(a).unwrap_or_else(data);
        };
        if let Some(v) = self.names.get(&key) {
            return v.clone();
        }
        if let Some(v) = self.table_element(a) {
            return v;
        }
        if let Some(Err(why)) = self.names.get(&array_key(&a.name)) {
            return Err(why.clone());
        }
        let common = self
            .unit
            .symbols
            .get(&a.name)
            .is_some_and(|s| s.common.is_some());
        if common { Ok(Sym::var(&key)) } else { data() }
    }

    /// An element of a table the program fills once: its formula at the subscripts'
    /// values; `None` for an array that is no such table (or a section of one).
    fn table_element(&self, a: &ArrayRef) -> Option<Result<Sym, DataDependent>> {
        let mut formula = self.names.table(&a.name)?.clone();
        for (k, s) in a.subscripts.iter().enumerate() {
            let Subscript::Index(e) = s else { return None };
            let value = match self.sym(e) {
                Ok(v) => v,
                Err(why) => return Some(Err(why)),
            };
            formula = formula
                .subst(&super::table::subscript_var(k), &value)
                .ok()?;
        }
        Some(Ok(formula))
    }

    /// The key of an element of an integer array at subscripts that have constant
    /// values here ([`element_key`]); `None` for any other reference.
    pub fn element_key(&self, a: &ArrayRef) -> Option<String> {
        let sym = self.unit.symbols.get(&a.name)?;
        if !sym.is_array() || a.subscripts.is_empty() || !self.is_integer(&a.name) {
            return None;
        }
        let subs = a
            .subscripts
            .iter()
            .map(|s| match s {
                Subscript::Index(e) => self.constant(e),
                Subscript::Range(_) => None,
            })
            .collect::<Option<Vec<i64>>>()?;
        Some(element_key(&a.name, &subs))
    }

    /// The value of the integer expression `e` here as a number, the unit's constants
    /// substituted; `None` where it has none.
    pub fn constant(&self, e: &Expr) -> Option<i64> {
        let s = self.names.resolved(&self.sym(e).ok()?)?;
        s.as_int().and_then(|v| i64::try_from(v).ok())
    }

    /// Whether a name denotes an integer: declared or implicitly integer; undeclared
    /// names under IMPLICIT NONE come from a host or module and count as integers.
    pub fn is_integer(&self, n: &str) -> bool {
        let unit = self.unit;
        let ty = unit
            .symbols
            .get(n)
            .and_then(|s| s.ty.as_ref())
            .or_else(|| unit.implicit.type_of(n));
        ty.is_none_or(|t| t.base == BaseType::Integer)
    }

    /// The condition `e` as disjoint alternatives; its data-dependent parts have
    /// probability `p` of holding.
    pub fn cond(&self, e: &Expr, p: Rational) -> Cond {
        match e {
            Expr::Logical(true) => always(),
            Expr::Logical(false) => Vec::new(),
            // A logical PARAMETER (`debug = .false.`) decides its branches.
            Expr::Name(n) if self.names.get(n).is_none() => match self.unit.symbol(n) {
                Some(sym) if sym.attrs.parameter => match &sym.value {
                    Some(v @ Expr::Logical(_)) => self.cond(v, p),
                    _ => data(p),
                },
                _ => data(p),
            },
            Expr::Unary(UnaryOp::Not, x) => not(&self.cond(x, p), p),
            Expr::Binary(BinaryOp::And, a, b) => and(&self.cond(a, p), &self.cond(b, p), p),
            Expr::Binary(BinaryOp::Or, a, b) => {
                // a or b = not(not a and not b), with disjoint alternatives.
                let na = not(&self.cond(a, p), p);
                let nb = not(&self.cond(b, p), p);
                not(&and(&na, &nb, p), p)
            }
            Expr::Binary(op, a, b) if op.is_relational() => match (self.sym(a), self.sym(b)) {
                (Ok(a), Ok(b)) => relation(*op, &a, &b).unwrap_or_else(|| data(p)),
                _ => data(p),
            },
            _ => data(p),
        }
    }
}

/// The data-dependent condition: no constraint, probability `p`.
pub fn data(p: Rational) -> Cond {
    vec![Alt {
        cons: Vec::new(),
        prob: p,
        degraded: false,
    }]
}

/// A condition too complex to keep exact, estimated as holding with probability `p`.
fn degraded(p: Rational) -> Cond {
    vec![Alt {
        cons: Vec::new(),
        prob: p,
        degraded: true,
    }]
}

fn relation(op: BinaryOp, a: &Sym, b: &Sym) -> Option<Cond> {
    let one = |c: Result<Constraint, _>| -> Option<Cond> {
        Some(vec![Alt {
            cons: vec![c.ok()?],
            prob: Rational::ONE,
            degraded: false,
        }])
    };
    match op {
        BinaryOp::Lt => one(Constraint::lt(a, b)),
        BinaryOp::Le => one(Constraint::le(a, b)),
        BinaryOp::Gt => one(Constraint::gt(a, b)),
        BinaryOp::Ge => one(Constraint::ge(a, b)),
        BinaryOp::Eq => one(Constraint::eq(a, b)),
        BinaryOp::Ne => {
            let mut out = one(Constraint::lt(a, b))?;
            out.extend(one(Constraint::gt(a, b))?);
            Some(out)
        }
        _ => None,
    }
}

/// `a and b`: every pair of alternatives, constraints joined (pairs that contradict
/// each other dropped), probabilities multiplied.
pub fn and(a: &Cond, b: &Cond, p: Rational) -> Cond {
    if a.len() * b.len() > MAX_PAIRS {
        return degraded(p);
    }
    let mut out = Vec::with_capacity((a.len() * b.len()).min(MAX_ALTERNATIVES + 1));
    let mut comparisons = 0;
    for x in a {
        for y in b {
            // Constraints x already has add nothing.
            let new: Vec<&Constraint> = y.cons.iter().filter(|c| !x.cons.contains(c)).collect();
            comparisons += x.cons.len() * new.len();
            if comparisons > MAX_COMPARISONS {
                return degraded(p);
            }
            if contradicts(&x.cons, &new) {
                continue;
            }
            let mut cons = x.cons.clone();
            cons.extend(new.into_iter().cloned());
            let Ok(prob) = x.prob.checked_mul(y.prob) else {
                return degraded(p);
            };
            out.push(Alt {
                cons,
                prob,
                degraded: x.degraded || y.degraded,
            });
            if out.len() > MAX_ALTERNATIVES {
                return degraded(p);
            }
        }
    }
    out
}

/// The paths of `a` that meet again (the branches of an IF or the cases of a SELECT
/// rejoining after it), alternatives with the same constraints made one, their
/// probabilities added: the same count, in as many terms as there are distinct
/// constraint sets (a SELECT of hundreds of cases left thousands of terms to every
/// statement after it).
pub fn coalesced(a: Cond) -> Cond {
    let mut out: Cond = Vec::with_capacity(a.len());
    let mut keys: Vec<Vec<Constraint>> = Vec::with_capacity(a.len());
    for alt in a {
        let mut key = alt.cons.clone();
        key.sort();
        let same = (0..out.len()).find(|&i| keys[i] == key && out[i].degraded == alt.degraded);
        let sum = same.and_then(|i| out[i].prob.checked_add(alt.prob).ok().map(|p| (i, p)));
        match sum {
            Some((i, p)) => out[i].prob = p,
            None => {
                keys.push(key);
                out.push(alt);
            }
        }
    }
    out
}

/// Whether two consistent conjunctions obviously contradict each other: `e >= 0` in one
/// and `-e - k >= 0` (k > 0) in the other. Cheap; the symbolic sum prunes the rest.
fn contradicts(a: &[Constraint], b: &[&Constraint]) -> bool {
    b.iter().any(|d| {
        d.truth() == Some(false)
            || a.iter().any(|c| {
                c.rel == Rel::Ge
                    && d.rel == Rel::Ge
                    && c.expr
                        .add(&d.expr)
                        .ok()
                        .and_then(|s| s.as_const())
                        .is_some_and(|k| k.signum() < 0)
            })
    })
}

/// `not a`: where no alternative's constraints hold, certainly; where alternative i's
/// constraints hold, with probability `1 - p_i`.
pub fn not(a: &Cond, p: Rational) -> Cond {
    let mut out: Cond = always();
    for alt in a {
        // ¬(c1 ∧ ... ∧ ck) as disjoint pieces: ¬c1, c1 ∧ ¬c2, ...
        let mut negation: Cond = Vec::new();
        let mut prefix: Vec<Constraint> = Vec::new();
        for c in &alt.cons {
            let Ok(neg) = c.negated() else {
                return degraded(p);
            };
            for n in neg {
                let mut cons = prefix.clone();
                cons.push(n);
                negation.push(Alt {
                    cons,
                    prob: Rational::ONE,
                    degraded: false,
                });
            }
            prefix.push(c.clone());
        }
        out = and(&out, &negation, p);
    }
    for alt in a {
        if let Ok(q) = Rational::ONE.checked_sub(alt.prob)
            && !q.is_zero()
        {
            out.push(Alt {
                cons: alt.cons.clone(),
                prob: q,
                degraded: alt.degraded,
            });
        }
    }
    if out.len() > MAX_ALTERNATIVES {
        return degraded(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(names: &Names, name: &str) -> Option<String> {
        names
            .get(name)
            .map(|v| v.as_ref().map(|s| s.to_string()).unwrap_or_default())
    }

    fn len(names: &Names) -> usize {
        let mut n = 0;
        let mut at = names.0.as_deref();
        while let Some(node) = at {
            n += 1;
            at = node.next.0.as_deref();
        }
        n
    }

    #[test]
    fn paths_that_meet_again_add_the_probabilities_of_the_same_constraints() {
        let n_ge_1 = Constraint::ge(&Sym::var("n"), &Sym::int(1)).unwrap();
        let m_le_n = Constraint::le(&Sym::var("m"), &Sym::var("n")).unwrap();
        let alt = |cons: Vec<Constraint>, num, degraded| Alt {
            cons,
            prob: Rational::new(num, 8).unwrap(),
            degraded,
        };
        let paths = vec![
            alt(vec![n_ge_1.clone(), m_le_n.clone()], 1, false),
            alt(vec![n_ge_1.clone()], 2, false),
            alt(vec![m_le_n.clone(), n_ge_1.clone()], 3, false),
            alt(vec![n_ge_1.clone()], 1, true),
        ];
        let merged = coalesced(paths);
        assert_eq!(
            merged,
            vec![
                alt(vec![n_ge_1.clone(), m_le_n], 4, false),
                alt(vec![n_ge_1.clone()], 2, false),
                // An estimate stays apart: the count says which part is estimated.
                alt(vec![n_ge_1], 1, true),
            ]
        );
    }

    #[test]
    fn a_name_bound_again_replaces_its_entry_and_older_lists_keep_theirs() {
        let base = Names::default()
            .with("n", Ok(Sym::int(100)))
            .with("i", Ok(Sym::int(1)));
        let mut names = base.clone();
        for k in 0..10_000 {
            names = names.with("i", Ok(Sym::int(k)));
        }
        let names = names.with("n", Ok(Sym::int(7)));
        assert_eq!(len(&names), 2);
        assert_eq!(value(&names, "i").as_deref(), Some("9999"));
        assert_eq!(value(&names, "n").as_deref(), Some("7"));
        assert_eq!(value(&base, "i").as_deref(), Some("1"));
        assert_eq!(value(&base, "n").as_deref(), Some("100"));
        assert_eq!(value(&names, "m"), None);
    }
}
