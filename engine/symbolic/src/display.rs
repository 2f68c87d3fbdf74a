//! Printing symbolic expressions: Fortran-like (`(n**2 + n)/2`, `floor(n/p)`) for
//! reports, and mathematical (`(n² + n)/2`, `⌊n/p⌋`) for hovers.

use super::rational::Rational;
use super::sym::{Atom, Sym, Term};
use std::fmt;

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
        // A divisor common to every term: (n - 1)/nb rather than n/nb - 1/nb.
        if self.terms().len() > 1
            && let Some(d) = common_divisor(self)
            && let Ok(num) = self.mul(&d)
        {
            return format!("({})/{}", num.display(n), operand(&d, n));
        }
        let (_, den) = self.content();
        if den > 1 && self.terms().len() > 1 {
            // One common denominator: (n² + n)/2 rather than n²/2 + n/2.
            if let Ok(num) = self.scale(Rational::int(den)) {
                return format!("({})/{den}", sum(&num, n));
            }
        }
        sum(self, n)
    }
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

/// Terms by descending degree.
fn sum(s: &Sym, n: Notation) -> String {
    if s.is_zero() {
        return "0".into();
    }
    let mut terms: Vec<&Term> = s.terms().iter().collect();
    terms.sort_by(|a, b| {
        b.mono
            .degree()
            .cmp(&a.mono.degree())
            .then(a.mono.cmp(&b.mono))
    });
    let mut out = String::new();
    for (i, t) in terms.iter().enumerate() {
        let (negative, body) = term(t, n);
        match (i, negative) {
            (0, true) => out.push('-'),
            (0, false) => {}
            (_, true) => out.push_str(" - "),
            (_, false) => out.push_str(" + "),
        }
        out.push_str(&body);
    }
    out
}

/// A term's sign and its magnitude as text.
fn term(t: &Term, n: Notation) -> (bool, String) {
    let factors = t.mono.factors();
    // -c·⌊-y⌋ is c·⌈y⌉: print ceilings as such.
    if let [(Atom::Floor(y), 1)] = factors
        && t.coef.signum() < 0
        && leading_negative(y)
        && let Ok(ny) = y.neg()
    {
        let body = match n {
            Notation::Fortran => format!("ceiling({})", ny.display(n)),
            Notation::Math => format!("⌈{}⌉", ny.display(n)),
        };
        return (
            false,
            with_coef(t.coef.checked_neg().unwrap_or(t.coef), body, n),
        );
    }
    let num: Vec<String> = factors
        .iter()
        .filter(|(_, e)| *e > 0)
        .map(|(a, e)| power(a, *e, n))
        .collect();
    let den: Vec<String> = factors
        .iter()
        .filter(|(_, e)| *e < 0)
        .map(|(a, e)| power(a, -e, n))
        .collect();
    let mag = t
        .coef
        .checked_neg()
        .ok()
        .filter(|_| t.coef.signum() < 0)
        .unwrap_or(t.coef);
    let mul = match n {
        Notation::Fortran => "*",
        Notation::Math => "·",
    };
    let mut top: Vec<String> = Vec::new();
    if mag.num() != 1 || num.is_empty() {
        top.push(mag.num().to_string());
    }
    top.extend(num);
    let mut bottom: Vec<String> = Vec::new();
    if mag.den() != 1 {
        bottom.push(mag.den().to_string());
    }
    bottom.extend(den);
    let mut text = top.join(mul);
    match bottom.len() {
        0 => {}
        1 => text = format!("{text}/{}", bottom[0]),
        _ => text = format!("{text}/({})", bottom.join(mul)),
    }
    (t.coef.signum() < 0, text)
}

fn with_coef(c: Rational, body: String, n: Notation) -> String {
    if c == Rational::ONE {
        return body;
    }
    let mul = match n {
        Notation::Fortran => "*",
        Notation::Math => "·",
    };
    if c.is_integer() {
        format!("{}{mul}{body}", c.num())
    } else {
        format!("{}{mul}{body}/{}", c.num(), c.den())
    }
}

fn leading_negative(s: &Sym) -> bool {
    let mut terms: Vec<&Term> = s.terms().iter().collect();
    terms.sort_by(|a, b| {
        b.mono
            .degree()
            .cmp(&a.mono.degree())
            .then(a.mono.cmp(&b.mono))
    });
    terms.first().is_some_and(|t| t.coef.signum() < 0)
}

fn power(a: &Atom, e: i32, n: Notation) -> String {
    let base = atom(a, n);
    if e == 1 {
        return base;
    }
    let base = if matches!(a, Atom::Group(_)) {
        base
    } else if base.contains(' ') && !base.ends_with(')') {
        format!("({base})")
    } else {
        base
    };
    match n {
        Notation::Fortran => format!("{base}**{e}"),
        Notation::Math => format!("{base}{}", superscript(e)),
    }
}

fn superscript(e: i32) -> String {
    e.to_string()
        .chars()
        .map(|c| match c {
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
        })
        .collect()
}

fn atom(a: &Atom, n: Notation) -> String {
    let d = |s: &Sym| s.display(n);
    let list = |args: &[Sym]| args.iter().map(d).collect::<Vec<_>>().join(", ");
    match (a, n) {
        (Atom::Var(v), _) | (Atom::Opaque(v), _) => v.to_string(),
        (Atom::Floor(x), Notation::Fortran) => format!("floor({})", d(x)),
        (Atom::Floor(x), Notation::Math) => format!("⌊{}⌋", d(x)),
        (Atom::Min(args), _) => format!("min({})", list(args)),
        (Atom::Max(args), _) => format!("max({})", list(args)),
        (Atom::Mod(x, y), _) => format!("mod({}, {})", d(x), d(y)),
        (Atom::IDiv(x, y), Notation::Fortran) => {
            format!("int({}/{})", operand(x, n), operand(y, n))
        }
        (Atom::IDiv(x, y), Notation::Math) => format!("trunc({}/{})", operand(x, n), operand(y, n)),
        (Atom::Group(x), _) => format!("({})", d(x)),
        (Atom::Pow(x, y), Notation::Fortran) => format!("{}**{}", operand(x, n), operand(y, n)),
        (Atom::Pow(x, y), Notation::Math) => format!("{}^{}", operand(x, n), operand(y, n)),
    }
}

/// An operand of `/` or `**`: parenthesized unless it is a single factor.
fn operand(s: &Sym, n: Notation) -> String {
    let text = s.display(n);
    if s.terms().len() > 1 || text.contains('/') || text.starts_with('-') {
        format!("({text})")
    } else {
        text
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
