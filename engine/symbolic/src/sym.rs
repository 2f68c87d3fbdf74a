//! Symbolic expressions in canonical form: a sum of terms `coefficient × monomial`,
//! coefficients exact rationals, monomials products of atoms to integer powers (negative
//! powers are exact division). Atoms are program unknowns (`n`, `p`, loop variables) and
//! the non-polynomial operations kept as such: floor, min, max, Fortran MOD and integer
//! division, a polynomial divisor, a symbolic power, and opaque program values. Two
//! expressions are equal exactly when their canonical forms are.

use super::integer::{gcd, lcm};
use super::rational::{Overflow, Rational};
use smallvec::{SmallVec, smallvec};
use std::sync::Arc;

pub type Name = Arc<str>;

/// A failed symbolic operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymError {
    /// A coefficient did not fit in `i128`.
    Overflow,
    /// Division by a zero constant.
    DivisionByZero,
}

impl From<Overflow> for SymError {
    fn from(_: Overflow) -> SymError {
        SymError::Overflow
    }
}

pub type SymResult = Result<Sym, SymError>;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    /// A program unknown or loop variable (always an integer).
    Var(Name),
    /// `⌊x⌋` of an expression that is not known to be an integer.
    Floor(Arc<Sym>),
    /// `min(a, b, ...)`: at least two arguments, sorted, none dominated by another.
    Min(Arc<[Sym]>),
    /// `max(a, b, ...)`.
    Max(Arc<[Sym]>),
    /// Fortran `MOD(a, b)`: `a - b*int(a/b)`, the sign of `a`.
    Mod(Arc<Sym>, Arc<Sym>),
    /// Fortran integer division `a/b`, truncated toward zero.
    IDiv(Arc<Sym>, Arc<Sym>),
    /// A polynomial with more than one term, as the base of a negative power (`1/(n-1)`).
    Group(Arc<Sym>),
    /// `a**b` with a symbolic exponent.
    Pow(Arc<Sym>, Arc<Sym>),
    /// A value the model does not compute (an array element, a function result), as written.
    Opaque(Name),
}

/// The factors of a monomial. Most monomials have one or two factors (`n`, `n·p`):
/// kept inline, they cost no allocation (the symbolic sum builds and drops millions).
type Factors = SmallVec<[(Atom, i32); 2]>;

/// A product of atoms to nonzero integer powers, sorted by atom.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Monomial(Factors);

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Term {
    pub mono: Monomial,
    pub coef: Rational,
}

/// A canonical sum of terms: sorted by monomial, no zero coefficient, no monomial twice.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym {
    terms: Vec<Term>,
}

impl Atom {
    /// Whether the atom's value is always an integer.
    pub fn is_integer(&self) -> bool {
        match self {
            Atom::Var(_) | Atom::Floor(_) | Atom::Mod(..) | Atom::IDiv(..) => true,
            Atom::Min(args) | Atom::Max(args) => args.iter().all(Sym::is_integer_valued),
            Atom::Group(_) | Atom::Pow(..) | Atom::Opaque(_) => false,
        }
    }

    /// Whether `name` occurs in the atom, at any depth.
    pub fn mentions(&self, name: &str) -> bool {
        match self {
            Atom::Var(n) => &**n == name,
            Atom::Floor(x) | Atom::Group(x) => x.mentions(name),
            Atom::Min(args) | Atom::Max(args) => args.iter().any(|a| a.mentions(name)),
            Atom::Mod(a, b) | Atom::IDiv(a, b) | Atom::Pow(a, b) => {
                a.mentions(name) || b.mentions(name)
            }
            Atom::Opaque(_) => false,
        }
    }
}

impl Monomial {
    pub fn one() -> Monomial {
        Monomial(Factors::new())
    }

    pub fn factors(&self) -> &[(Atom, i32)] {
        &self.0
    }

    pub fn is_one(&self) -> bool {
        self.0.is_empty()
    }

    /// Total degree (sum of exponents).
    pub fn degree(&self) -> i32 {
        self.0.iter().map(|(_, e)| e).sum()
    }

    fn mul(&self, o: &Monomial) -> Monomial {
        let mut out = Factors::with_capacity(self.0.len() + o.0.len());
        let (mut i, mut j) = (0, 0);
        while i < self.0.len() && j < o.0.len() {
            match self.0[i].0.cmp(&o.0[j].0) {
                std::cmp::Ordering::Less => {
                    out.push(self.0[i].clone());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(o.0[j].clone());
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let e = self.0[i].1 + o.0[j].1;
                    if e != 0 {
                        out.push((self.0[i].0.clone(), e));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend(self.0[i..].iter().cloned());
        out.extend(o.0[j..].iter().cloned());
        Monomial(out)
    }

    fn is_integer(&self) -> bool {
        self.0.iter().all(|(a, e)| *e > 0 && a.is_integer())
    }
}

impl Term {
    /// The term with variable `v` valued `c`, when `v` occurs only as a factor of its
    /// own (not inside another atom): the coefficient times `c` to its power, the
    /// factor dropped (the others stay sorted). `None` when `v` occurs inside an atom.
    fn with_var_valued(&self, v: &str, c: Rational) -> Result<Option<Term>, SymError> {
        let mut coef = self.coef;
        let mut factors = Factors::with_capacity(self.mono.0.len());
        for (a, e) in &self.mono.0 {
            match a {
                Atom::Var(n) if &**n == v => {
                    let k = Sym::rat(c).power(*e)?.as_const().unwrap_or(Rational::ZERO);
                    coef = coef.checked_mul(k)?;
                }
                a if a.mentions(v) => return Ok(None),
                a => factors.push((a.clone(), *e)),
            }
        }
        Ok(Some(Term {
            mono: Monomial(factors),
            coef,
        }))
    }
}

impl Sym {
    pub fn zero() -> Sym {
        Sym::default()
    }

    pub fn one() -> Sym {
        Sym::int(1)
    }

    pub fn int(v: i128) -> Sym {
        Sym::rat(Rational::int(v))
    }

    pub fn rat(v: Rational) -> Sym {
        if v.is_zero() {
            return Sym::zero();
        }
        Sym {
            terms: vec![Term {
                mono: Monomial::one(),
                coef: v,
            }],
        }
    }

    pub fn var(name: &str) -> Sym {
        Sym::atom(Atom::Var(name.into()))
    }

    pub fn opaque(text: &str) -> Sym {
        Sym::atom(Atom::Opaque(text.into()))
    }

    pub fn atom(a: Atom) -> Sym {
        Sym {
            terms: vec![Term {
                mono: Monomial(smallvec![(a, 1)]),
                coef: Rational::ONE,
            }],
        }
    }

    /// The expression of one term.
    pub fn from_term(t: &Term) -> Sym {
        Sym {
            terms: vec![t.clone()],
        }
    }

    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The value of a constant expression.
    pub fn as_const(&self) -> Option<Rational> {
        match self.terms.as_slice() {
            [] => Some(Rational::ZERO),
            [t] if t.mono.is_one() => Some(t.coef),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i128> {
        self.as_const()?.as_integer()
    }

    /// The constant term.
    pub fn constant(&self) -> Rational {
        self.terms
            .iter()
            .find(|t| t.mono.is_one())
            .map_or(Rational::ZERO, |t| t.coef)
    }

    /// Whether the value is an integer whatever the unknowns' (integer) values.
    pub fn is_integer_valued(&self) -> bool {
        self.terms
            .iter()
            .all(|t| t.coef.is_integer() && t.mono.is_integer())
    }

    /// Whether `name` occurs anywhere, inside atoms too.
    pub fn mentions(&self, name: &str) -> bool {
        self.terms
            .iter()
            .any(|t| t.mono.0.iter().any(|(a, _)| a.mentions(name)))
    }

    /// Every variable name occurring anywhere.
    pub fn vars(&self) -> Vec<Name> {
        fn collect(s: &Sym, out: &mut Vec<Name>) {
            for t in &s.terms {
                for (a, _) in &t.mono.0 {
                    match a {
                        Atom::Var(n) => {
                            if !out.contains(n) {
                                out.push(n.clone());
                            }
                        }
                        Atom::Floor(x) | Atom::Group(x) => collect(x, out),
                        Atom::Min(args) | Atom::Max(args) => {
                            args.iter().for_each(|a| collect(a, out))
                        }
                        Atom::Mod(a, b) | Atom::IDiv(a, b) | Atom::Pow(a, b) => {
                            collect(a, out);
                            collect(b, out);
                        }
                        Atom::Opaque(_) => {}
                    }
                }
            }
        }
        let mut out = Vec::new();
        collect(self, &mut out);
        out
    }

    /// Whether the expression has an opaque atom (a value outside the model).
    pub fn has_opaque(&self) -> bool {
        self.terms.iter().any(|t| {
            t.mono.0.iter().any(|(a, _)| match a {
                Atom::Opaque(_) => true,
                Atom::Floor(x) | Atom::Group(x) => x.has_opaque(),
                Atom::Min(args) | Atom::Max(args) => args.iter().any(Sym::has_opaque),
                Atom::Mod(a, b) | Atom::IDiv(a, b) | Atom::Pow(a, b) => {
                    a.has_opaque() || b.has_opaque()
                }
                Atom::Var(_) => false,
            })
        })
    }

    /// Builds a canonical sum from arbitrary terms.
    fn from_terms(mut terms: Vec<Term>) -> SymResult {
        terms.sort_by(|a, b| a.mono.cmp(&b.mono));
        let mut out: Vec<Term> = Vec::with_capacity(terms.len());
        for t in terms {
            match out.last_mut() {
                Some(last) if last.mono == t.mono => last.coef = last.coef.checked_add(t.coef)?,
                _ => out.push(t),
            }
        }
        out.retain(|t| !t.coef.is_zero());
        Ok(Sym { terms: out })
    }

    pub fn add(&self, o: &Sym) -> SymResult {
        let mut terms = Vec::with_capacity(self.terms.len() + o.terms.len());
        let (mut i, mut j) = (0, 0);
        while i < self.terms.len() && j < o.terms.len() {
            match self.terms[i].mono.cmp(&o.terms[j].mono) {
                std::cmp::Ordering::Less => {
                    terms.push(self.terms[i].clone());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    terms.push(o.terms[j].clone());
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let c = self.terms[i].coef.checked_add(o.terms[j].coef)?;
                    if !c.is_zero() {
                        terms.push(Term {
                            mono: self.terms[i].mono.clone(),
                            coef: c,
                        });
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        terms.extend_from_slice(&self.terms[i..]);
        terms.extend_from_slice(&o.terms[j..]);
        Ok(Sym { terms })
    }

    pub fn sub(&self, o: &Sym) -> SymResult {
        self.add(&o.neg()?)
    }

    pub fn neg(&self) -> SymResult {
        self.scale(Rational::int(-1))
    }

    pub fn scale(&self, k: Rational) -> SymResult {
        if k.is_zero() {
            return Ok(Sym::zero());
        }
        let terms = self
            .terms
            .iter()
            .map(|t| {
                Ok(Term {
                    mono: t.mono.clone(),
                    coef: t.coef.checked_mul(k)?,
                })
            })
            .collect::<Result<Vec<_>, Overflow>>()?;
        Ok(Sym { terms })
    }

    pub fn add_int(&self, k: i128) -> SymResult {
        self.add(&Sym::int(k))
    }

    pub fn mul(&self, o: &Sym) -> SymResult {
        // By a constant: the same monomials, still canonical.
        if let Some(c) = o.as_const() {
            return self.scale(c);
        }
        if let Some(c) = self.as_const() {
            return o.scale(c);
        }
        let mut terms = Vec::with_capacity(self.terms.len() * o.terms.len());
        for a in &self.terms {
            for b in &o.terms {
                terms.push(Term {
                    mono: a.mono.mul(&b.mono),
                    coef: a.coef.checked_mul(b.coef)?,
                });
            }
        }
        Sym::from_terms(terms)
    }

    pub fn pow(&self, e: u32) -> SymResult {
        if e == 1 {
            return Ok(self.clone());
        }
        let mut out = Sym::one();
        let mut base = self.clone();
        let mut e = e;
        while e > 0 {
            if e & 1 == 1 {
                out = out.mul(&base)?;
            }
            e >>= 1;
            if e > 0 {
                base = base.mul(&base)?;
            }
        }
        Ok(out)
    }

    /// `1/self`: exact for constants and monomials, a grouped divisor otherwise.
    pub fn recip(&self) -> SymResult {
        match self.terms.as_slice() {
            [] => Err(SymError::DivisionByZero),
            [t] => {
                let coef = t.coef.recip().ok_or(SymError::DivisionByZero)??;
                let mono = Monomial(t.mono.0.iter().map(|(a, e)| (a.clone(), -e)).collect());
                Ok(Sym {
                    terms: vec![Term { mono, coef }],
                })
            }
            _ => {
                // Normalize the last term's coefficient to 1 (`2n - 2` → `2*(n - 1)`), so
                // that equal divisors share one atom.
                let lead = self.terms[self.terms.len() - 1].coef;
                let inv_lead = lead.recip().ok_or(SymError::DivisionByZero)??;
                let normalized = self.scale(inv_lead)?;
                let inv = Sym {
                    terms: vec![Term {
                        mono: Monomial(smallvec![(Atom::Group(Arc::new(normalized)), -1)]),
                        coef: inv_lead,
                    }],
                };
                Ok(inv)
            }
        }
    }

    /// Exact division.
    pub fn div(&self, o: &Sym) -> SymResult {
        self.mul(&o.recip()?)
    }

    /// `⌊self⌋`, with integer parts pulled out: `⌊n/2 + i - 1⌋ = i - 1 + ⌊n/2⌋`.
    pub fn floor(&self) -> SymResult {
        let mut integer = Vec::new();
        let mut rest = Vec::new();
        for t in &self.terms {
            if t.mono.is_integer() {
                let whole = Rational::int(t.coef.floor());
                let frac = t.coef.checked_sub(whole)?;
                if !whole.is_zero() {
                    integer.push(Term {
                        mono: t.mono.clone(),
                        coef: whole,
                    });
                }
                if !frac.is_zero() {
                    rest.push(Term {
                        mono: t.mono.clone(),
                        coef: frac,
                    });
                }
            } else {
                rest.push(t.clone());
            }
        }
        let integer = Sym::from_terms(integer)?;
        let rest = Sym::from_terms(rest)?;
        if rest.is_zero() {
            return Ok(integer);
        }
        // Only a constant fraction left, in [0, 1): its floor is 0.
        if rest.as_const().is_some() {
            return Ok(integer);
        }
        integer.add(&Sym::atom(Atom::Floor(Arc::new(rest))))
    }

    /// `⌈self⌉ = -⌊-self⌋`.
    pub fn ceil(&self) -> SymResult {
        self.neg()?.floor()?.neg()
    }

    /// `min(args)`: constant arguments folded, arguments differing from another by a
    /// constant dropped when they cannot be the minimum.
    pub fn min(args: &[Sym]) -> SymResult {
        Sym::extremum(args, true)
    }

    pub fn max(args: &[Sym]) -> SymResult {
        Sym::extremum(args, false)
    }

    fn extremum(args: &[Sym], is_min: bool) -> SymResult {
        let mut flat: Vec<Sym> = Vec::new();
        for a in args {
            // Flatten nested extrema of the same kind.
            match a.single_atom() {
                Some(Atom::Min(inner)) if is_min => flat.extend(inner.iter().cloned()),
                Some(Atom::Max(inner)) if !is_min => flat.extend(inner.iter().cloned()),
                _ => flat.push(a.clone()),
            }
        }
        let mut kept: Vec<Sym> = Vec::new();
        'next: for a in flat {
            let mut i = 0;
            while i < kept.len() {
                if let Some(d) = a.sub(&kept[i])?.as_const() {
                    // a - kept[i] = d: keep the smaller (min) or larger (max).
                    let a_wins = if is_min {
                        d.signum() < 0
                    } else {
                        d.signum() > 0
                    };
                    if a_wins {
                        kept.remove(i);
                        continue;
                    }
                    continue 'next;
                }
                i += 1;
            }
            kept.push(a);
        }
        kept.sort();
        match kept.len() {
            0 => Ok(Sym::zero()),
            1 => Ok(kept.pop().expect("one")),
            _ => {
                let args: Arc<[Sym]> = kept.into();
                Ok(Sym::atom(if is_min {
                    Atom::Min(args)
                } else {
                    Atom::Max(args)
                }))
            }
        }
    }

    /// Fortran `MOD(self, p)` (truncating, the sign of `self`).
    pub fn fmod(&self, p: &Sym) -> SymResult {
        match (self.as_int(), p.as_int()) {
            (_, Some(0)) => Err(SymError::DivisionByZero),
            (Some(a), Some(b)) => Ok(Sym::int(a % b)),
            (_, Some(1) | Some(-1)) if self.is_integer_valued() => Ok(Sym::zero()),
            _ => Ok(Sym::atom(Atom::Mod(
                Arc::new(self.clone()),
                Arc::new(p.clone()),
            ))),
        }
    }

    /// Fortran integer division `self/p`, truncating toward zero.
    pub fn idiv(&self, p: &Sym) -> SymResult {
        match (self.as_int(), p.as_int()) {
            (_, Some(0)) => Err(SymError::DivisionByZero),
            (Some(a), Some(b)) => Ok(Sym::int(a / b)),
            (_, Some(1)) if self.is_integer_valued() => Ok(self.clone()),
            (_, Some(-1)) if self.is_integer_valued() => self.neg(),
            (_, Some(k))
                if self.is_integer_valued()
                    && self
                        .terms
                        .iter()
                        .all(|t| t.coef.as_integer().is_some_and(|c| c % k == 0)) =>
            {
                self.scale(Rational::new(1, k).ok_or(SymError::DivisionByZero)?)
            }
            _ => Ok(Sym::atom(Atom::IDiv(
                Arc::new(self.clone()),
                Arc::new(p.clone()),
            ))),
        }
    }

    /// `self ** e` for a symbolic exponent (constant exponents expand).
    pub fn pow_sym(&self, e: &Sym) -> SymResult {
        match e.as_int() {
            Some(k) if k >= 0 => self.pow(u32::try_from(k).map_err(|_| SymError::Overflow)?),
            Some(k) => self
                .pow(u32::try_from(k.unsigned_abs()).map_err(|_| SymError::Overflow)?)?
                .recip(),
            None => Ok(Sym::atom(Atom::Pow(
                Arc::new(self.clone()),
                Arc::new(e.clone()),
            ))),
        }
    }

    /// The atom, if the expression is exactly one atom to the first power.
    pub fn single_atom(&self) -> Option<&Atom> {
        match self.terms.as_slice() {
            [t] if t.coef == Rational::ONE => match t.mono.0.as_slice() {
                [(a, 1)] => Some(a),
                _ => None,
            },
            _ => None,
        }
    }

    /// The coefficients `c_0, ..., c_d` of `self = Σ c_k·v^k`, or `None` when `v` occurs
    /// otherwise (inside an atom, or to a negative power).
    pub fn poly_in(&self, v: &str) -> Option<Vec<Sym>> {
        let mut coefs: Vec<Vec<Term>> = Vec::new();
        for t in &self.terms {
            let mut k = 0usize;
            let mut rest = Factors::with_capacity(t.mono.0.len());
            for (a, e) in &t.mono.0 {
                match a {
                    Atom::Var(n) if &**n == v => {
                        if *e < 0 {
                            return None;
                        }
                        k = *e as usize;
                    }
                    a if a.mentions(v) => return None,
                    a => rest.push((a.clone(), *e)),
                }
            }
            if coefs.len() <= k {
                coefs.resize_with(k + 1, Vec::new);
            }
            coefs[k].push(Term {
                mono: Monomial(rest),
                coef: t.coef,
            });
        }
        coefs
            .into_iter()
            .map(|ts| Sym::from_terms(ts).ok())
            .collect()
    }

    /// Replaces every occurrence of variable `v` by `value`, re-simplifying the atoms it
    /// occurs in.
    pub fn subst(&self, v: &str, value: &Sym) -> SymResult {
        if !self.mentions(v) {
            return Ok(self.clone());
        }
        let constant = value.as_const();
        let mut terms: Vec<Term> = Vec::with_capacity(self.terms.len());
        for t in &self.terms {
            let mentions = |(a, _): &(Atom, i32)| a.mentions(v);
            // A term without `v` stays as it is; `v` alone by a constant scales it.
            if !t.mono.0.iter().any(mentions) {
                terms.push(t.clone());
                continue;
            }
            if let Some(c) = constant
                && let Some(t) = t.with_var_valued(v, c)?
            {
                terms.push(t);
                continue;
            }
            // The factors without `v` as they are, times those with `v` rebuilt.
            let (with, without): (Factors, Factors) =
                t.mono.0.iter().cloned().partition(|f| mentions(f));
            let mut term = Sym {
                terms: vec![Term {
                    mono: Monomial(without),
                    coef: t.coef,
                }],
            };
            for (a, e) in &with {
                let base = match a {
                    Atom::Var(n) if &**n == v => value.clone(),
                    a => a.subst(v, value)?,
                };
                term = term.mul(&base.power(*e)?)?;
            }
            terms.extend(term.terms);
        }
        Sym::from_terms(terms)
    }

    /// `self^e` for an integer `e` (a negative one by exact division).
    fn power(&self, e: i32) -> SymResult {
        if e >= 0 {
            self.pow(e as u32)
        } else {
            self.pow(e.unsigned_abs())?.recip()
        }
    }

    /// Applies `f` to every atom (bottom-up rebuilding of the expression).
    pub fn map_atoms(&self, f: &mut dyn FnMut(&Atom) -> Option<SymResult>) -> SymResult {
        let mut out = Sym::zero();
        for t in &self.terms {
            let mut term = Sym::rat(t.coef);
            for (a, e) in &t.mono.0 {
                let base = match f(a) {
                    Some(r) => r?,
                    None => Sym::atom(a.clone()),
                };
                let factor = if *e >= 0 {
                    base.pow(*e as u32)?
                } else {
                    base.pow(e.unsigned_abs())?.recip()?
                };
                term = term.mul(&factor)?;
            }
            out = out.add(&term)?;
        }
        Ok(out)
    }

    /// The least common multiple of the coefficient denominators, and the gcd of the
    /// numerators: `self = content * (integer-coefficient polynomial)`.
    pub fn content(&self) -> (i128, i128) {
        let mut den = 1i128;
        let mut num = 0i128;
        for t in &self.terms {
            let d = t.coef.den();
            // Saturates: scaling by it then reports the overflow.
            den = lcm(den, d).unwrap_or(i128::MAX);
            num = gcd(num, t.coef.num());
        }
        (num, den)
    }
}

impl Atom {
    fn subst(&self, v: &str, value: &Sym) -> SymResult {
        let s = |x: &Sym| x.subst(v, value);
        match self {
            Atom::Var(n) if &**n == v => Ok(value.clone()),
            Atom::Var(_) | Atom::Opaque(_) => Ok(Sym::atom(self.clone())),
            Atom::Floor(x) => s(x)?.floor(),
            Atom::Group(x) => Ok(s(x)?),
            Atom::Min(args) => Sym::min(&args.iter().map(s).collect::<Result<Vec<_>, _>>()?),
            Atom::Max(args) => Sym::max(&args.iter().map(s).collect::<Result<Vec<_>, _>>()?),
            Atom::Mod(a, b) => s(a)?.fmod(&s(b)?),
            Atom::IDiv(a, b) => s(a)?.idiv(&s(b)?),
            Atom::Pow(a, b) => s(a)?.pow_sym(&s(b)?),
        }
    }
}
