//! Printing symbolic expressions: Fortran-like (`(n**2 + n)/2`, `floor(n/p)`) for
//! reports, and mathematical (`(n² + n)/2`, `⌊n/p⌋`) for hovers.

use super::rational::Rational;
use super::sym::{Atom, Sym, Term};
use std::fmt::{self, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    Fortran,
    Math,
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display(Notation::Fortran))
    }
}

impl Sym {
    pub fn display(&self, n: Notation) -> String {
        let mut out = String::new();
        write_sym(&mut out, self, n);
        out
    }
}

/// Writes `s` at the end of `out` (one buffer for the whole expression: formulas of
/// tens of kilobytes are printed for reports).
fn write_sym(out: &mut String, s: &Sym, n: Notation) {
    // A divisor common to every term: (n - 1)/nb rather than n/nb - 1/nb.
    if s.terms().len() > 1
        && let Some(d) = common_divisor(s)
        && let Ok(num) = s.mul(&d)
    {
        out.push('(');
        write_sym(out, &num, n);
        out.push_str(")/");
        write_operand(out, &d, n);
        return;
    }
    let (_, den) = s.content();
    if den > 1 && s.terms().len() > 1 {
        // One common denominator: (n² + n)/2 rather than n²/2 + n/2.
        let k = Rational::int(den);
        if s.terms().iter().all(|t| t.coef.checked_mul(k).is_ok()) {
            out.push('(');
            write_sum(out, s, k, n);
            let _ = write!(out, ")/{den}");
            return;
        }
    }
    write_sum(out, s, Rational::ONE, n);
}

/// An atom every term divides by (the smallest power), as an expression.
fn common_divisor(s: &Sym) -> Option<Sym> {
    let first = s.terms().first()?;
    let power_in = |t: &Term, a: &Atom| {
        t.mono
            .factors()
            .iter()
            .find(|(b, _)| b == a)
            .map(|(_, f)| *f)
            .filter(|f| *f < 0)
    };
    first
        .mono
        .factors()
        .iter()
        .filter(|(_, e)| *e < 0)
        .find_map(|(a, e)| {
            let k = s
                .terms()
                .iter()
                .try_fold(*e, |k, t| power_in(t, a).map(|f| k.max(f)))?;
            Sym::atom(a.clone()).pow(k.unsigned_abs()).ok()
        })
}

/// The terms of `s`, each coefficient times `k`, by descending degree.
fn write_sum(out: &mut String, s: &Sym, k: Rational, n: Notation) {
    if s.is_zero() {
        out.push('0');
        return;
    }
    let mut terms: Vec<&Term> = s.terms().iter().collect();
    terms.sort_by(|a, b| by_degree(a, b));
    for (i, t) in terms.iter().enumerate() {
        let coef = t.coef.checked_mul(k).unwrap_or(t.coef);
        write_term(out, t, coef, i == 0, n);
    }
}

/// Descending degree, then the monomials' order.
fn by_degree(a: &Term, b: &Term) -> std::cmp::Ordering {
    b.mono
        .degree()
        .cmp(&a.mono.degree())
        .then(a.mono.cmp(&b.mono))
}

/// The sign joining a term to those before it (`first`: none for a positive one).
fn write_sign(out: &mut String, first: bool, negative: bool) {
    match (first, negative) {
        (true, true) => out.push('-'),
        (true, false) => {}
        (false, true) => out.push_str(" - "),
        (false, false) => out.push_str(" + "),
    }
}

fn mul_sign(n: Notation) -> &'static str {
    match n {
        Notation::Fortran => "*",
        Notation::Math => "·",
    }
}

/// Term `t` with coefficient `coef`, its sign joining it to the terms before.
fn write_term(out: &mut String, t: &Term, coef: Rational, first: bool, n: Notation) {
    let factors = t.mono.factors();
    let mul = mul_sign(n);
    // -c·⌊-y⌋ is c·⌈y⌉: print ceilings as such.
    if let [(Atom::Floor(y), 1)] = factors
        && coef.signum() < 0
        && leading_negative(y)
        && let Ok(ny) = y.neg()
    {
        write_sign(out, first, false);
        let c = coef.checked_neg().unwrap_or(coef);
        if c != Rational::ONE {
            let _ = write!(out, "{}{mul}", c.num());
        }
        let (open, close) = match n {
            Notation::Fortran => ("ceiling(", ")"),
            Notation::Math => ("⌈", "⌉"),
        };
        out.push_str(open);
        write_sym(out, &ny, n);
        out.push_str(close);
        if c != Rational::ONE && !c.is_integer() {
            let _ = write!(out, "/{}", c.den());
        }
        return;
    }
    write_sign(out, first, coef.signum() < 0);
    let mag = coef
        .checked_neg()
        .ok()
        .filter(|_| coef.signum() < 0)
        .unwrap_or(coef);
    let mut numerator = factors.iter().filter(|(_, e)| *e > 0).peekable();
    let mut joined = false;
    if mag.num() != 1 || numerator.peek().is_none() {
        let _ = write!(out, "{}", mag.num());
        joined = true;
    }
    for (a, e) in numerator {
        if joined {
            out.push_str(mul);
        }
        write_power(out, a, *e, n);
        joined = true;
    }
    let below = factors.iter().filter(|(_, e)| *e < 0);
    let count = usize::from(mag.den() != 1) + below.clone().count();
    if count == 0 {
        return;
    }
    out.push('/');
    if count > 1 {
        out.push('(');
    }
    let mut joined = false;
    if mag.den() != 1 {
        let _ = write!(out, "{}", mag.den());
        joined = true;
    }
    for (a, e) in below {
        if joined {
            out.push_str(mul);
        }
        write_power(out, a, -e, n);
        joined = true;
    }
    if count > 1 {
        out.push(')');
    }
}

/// Whether the term of highest degree (the one printed first) is negative.
fn leading_negative(s: &Sym) -> bool {
    s.terms()
        .iter()
        .min_by(|a, b| by_degree(a, b))
        .is_some_and(|t| t.coef.signum() < 0)
}

fn write_power(out: &mut String, a: &Atom, e: i32, n: Notation) {
    let start = out.len();
    write_atom(out, a, n);
    if e == 1 {
        return;
    }
    let base = &out[start..];
    if !matches!(a, Atom::Group(_)) && base.contains(' ') && !base.ends_with(')') {
        out.insert(start, '(');
        out.push(')');
    }
    match n {
        Notation::Fortran => {
            let _ = write!(out, "**{e}");
        }
        Notation::Math => out.extend(e.to_string().chars().map(superscript)),
    }
}

fn superscript(c: char) -> char {
    match c {
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '4' => '⁴',
        '5' => '⁵',
        '6' => '⁶',
        '7' => '⁷',
        '8' => '⁸',
        '9' => '⁹',
        _ => '⁻',
    }
}

fn write_atom(out: &mut String, a: &Atom, n: Notation) {
    let list = |out: &mut String, name: &str, args: &[Sym]| {
        out.push_str(name);
        out.push('(');
        for (i, x) in args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_sym(out, x, n);
        }
        out.push(')');
    };
    match (a, n) {
        (Atom::Var(v), _) | (Atom::Opaque(v), _) => out.push_str(v),
        (Atom::Floor(x), Notation::Fortran) => list(out, "floor", std::slice::from_ref(&**x)),
        (Atom::Floor(x), Notation::Math) => {
            out.push('⌊');
            write_sym(out, x, n);
            out.push('⌋');
        }
        (Atom::Min(args), _) => list(out, "min", args),
        (Atom::Max(args), _) => list(out, "max", args),
        (Atom::Mod(x, y), _) => {
            out.push_str("mod(");
            write_sym(out, x, n);
            out.push_str(", ");
            write_sym(out, y, n);
            out.push(')');
        }
        (Atom::IDiv(x, y), _) => {
            out.push_str(match n {
                Notation::Fortran => "int(",
                Notation::Math => "trunc(",
            });
            write_operand(out, x, n);
            out.push('/');
            write_operand(out, y, n);
            out.push(')');
        }
        (Atom::Group(x), _) => {
            out.push('(');
            write_sym(out, x, n);
            out.push(')');
        }
        (Atom::Pow(x, y), _) => {
            write_operand(out, x, n);
            out.push_str(match n {
                Notation::Fortran => "**",
                Notation::Math => "^",
            });
            write_operand(out, y, n);
        }
    }
}

/// An operand of `/` or `**`: parenthesized unless it is a single factor.
fn write_operand(out: &mut String, s: &Sym, n: Notation) {
    let start = out.len();
    write_sym(out, s, n);
    let text = &out[start..];
    if s.terms().len() > 1 || text.contains('/') || text.starts_with('-') {
        out.insert(start, '(');
        out.push(')');
    }
}

/// A count: exact integers below ten thousand as they are, larger numbers with two
/// significant digits (`1.0e6`), fractions to two or three significant digits.
pub fn compact(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x.abs() >= 1e4 {
        format!("{x:.1e}")
    } else if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        let s = if x.abs() < 10.0 {
            format!("{x:.2}")
        } else {
            format!("{x:.1}")
        };
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Sym {
        Sym::var(s)
    }

    #[test]
    fn polynomials_with_a_common_denominator() {
        let n = v("n");
        let e = n
            .mul(&n.add_int(1).unwrap())
            .unwrap()
            .scale(Rational::new(1, 2).unwrap())
            .unwrap();
        assert_eq!(e.to_string(), "(n**2 + n)/2");
        assert_eq!(e.display(Notation::Math), "(n² + n)/2");
        let e = n
            .sub(&v("m").scale(Rational::int(3)).unwrap())
            .unwrap()
            .add_int(-1)
            .unwrap();
        assert_eq!(e.to_string(), "-3*m + n - 1");
    }

    #[test]
    fn division_floors_and_ceilings() {
        let (n, p) = (v("n"), v("p"));
        assert_eq!(n.div(&p).unwrap().to_string(), "n/p");
        assert_eq!(
            n.div(&p).unwrap().floor().unwrap().to_string(),
            "floor(n/p)"
        );
        assert_eq!(
            n.div(&p).unwrap().ceil().unwrap().to_string(),
            "ceiling(n/p)"
        );
        assert_eq!(
            n.div(&p).unwrap().ceil().unwrap().display(Notation::Math),
            "⌈n/p⌉"
        );
        assert_eq!(
            n.div(&p.add_int(-1).unwrap()).unwrap().to_string(),
            "n/(p - 1)"
        );
        assert_eq!(n.idiv(&Sym::int(2)).unwrap().to_string(), "int(n/2)");
        let m = Sym::min(&[n.clone(), p.clone(), n.add_int(3).unwrap()]).unwrap();
        assert_eq!(m.to_string(), "min(n, p)");
    }
}
