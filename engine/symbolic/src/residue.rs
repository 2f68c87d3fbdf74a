//! Residue classes of a variable: where an expression holds `MOD(v, c)` with `c` a
//! number, writing `v = c·v' + r` for each residue `r` turns it into `r`, and the
//! expression into one free of the modulus (an affine subscript such as the red points'
//! `2·i − MOD(j, 2)` becomes `2·i − r`).

use super::constraint::Constraint;
use super::rational::Rational;
use super::sym::{Atom, Sym, SymError, SymResult};
use std::sync::Arc;

impl Sym {
    /// The constant moduli `c ≥ 2` of the `MOD(v, c)` occurring anywhere in `self`.
    pub fn moduli_of(&self, v: &str) -> Vec<i128> {
        fn collect(s: &Sym, v: &str, out: &mut Vec<i128>) {
            for t in s.terms() {
                for (a, _) in t.mono.factors() {
                    match a {
                        Atom::Mod(x, m) => {
                            let of_v = matches!(x.single_atom(), Some(Atom::Var(n)) if &**n == v);
                            match m.as_int() {
                                Some(c) if of_v && c >= 2 && !out.contains(&c) => out.push(c),
                                _ => {}
                            }
                            collect(x, v, out);
                            collect(m, v, out);
                        }
                        Atom::Floor(x) | Atom::Group(x) => collect(x, v, out),
                        Atom::Min(args) | Atom::Max(args) => {
                            args.iter().for_each(|a| collect(a, v, out))
                        }
                        Atom::IDiv(a, b) | Atom::Pow(a, b) => {
                            collect(a, v, out);
                            collect(b, v, out);
                        }
                        Atom::Var(_) | Atom::Opaque(_) => {}
                    }
                }
            }
        }
        let mut out = Vec::new();
        collect(self, v, &mut out);
        out
    }

    /// `self` on the residue class `v = c·v' + r` (`0 ≤ r < c`, and `v ≥ 0` so that
    /// Fortran's truncating `MOD(v, m)` is `r mod m` for every `m` dividing `c`): those
    /// `MOD(v, m)` replaced by their value, then `v` by `c·v + r` (the new variable keeps
    /// the name).
    pub fn on_residue(&self, v: &str, c: i128, r: i128) -> SymResult {
        if !self.mentions(v) {
            return Ok(self.clone());
        }
        let fixed = self.map_atoms(&mut |a| Some(a.with_mod_value(v, c, r)))?;
        fixed.subst(v, &Sym::var(v).scale(Rational::int(c))?.add(&Sym::int(r))?)
    }
}

impl Constraint {
    /// The constraint on the residue class `v = c·v' + r` ([`Sym::on_residue`]).
    pub fn on_residue(&self, v: &str, c: i128, r: i128) -> Result<Constraint, SymError> {
        Constraint {
            expr: self.expr.on_residue(v, c, r)?,
            rel: self.rel,
        }
        .normalized()
    }
}

impl Atom {
    /// The atom with `MOD(v, m)` (anywhere inside it, `m` dividing `c`) replaced by
    /// `r mod m`.
    fn with_mod_value(&self, v: &str, c: i128, r: i128) -> SymResult {
        let s = |x: &Sym| x.map_atoms(&mut |a| Some(a.with_mod_value(v, c, r)));
        match self {
            Atom::Mod(x, m)
                if matches!(x.single_atom(), Some(Atom::Var(n)) if &**n == v)
                    && m.as_int().is_some_and(|m| m >= 1 && c % m == 0) =>
            {
                Ok(Sym::int(r % m.as_int().unwrap_or(1)))
            }
            Atom::Var(_) | Atom::Opaque(_) => Ok(Sym::atom(self.clone())),
            Atom::Floor(x) => s(x)?.floor(),
            Atom::Group(x) => Ok(Sym::atom(Atom::Group(Arc::new(s(x)?)))),
            Atom::Min(args) => Sym::min(&args.iter().map(s).collect::<Result<Vec<_>, _>>()?),
            Atom::Max(args) => Sym::max(&args.iter().map(s).collect::<Result<Vec<_>, _>>()?),
            Atom::Mod(a, b) => s(a)?.fmod(&s(b)?),
            Atom::IDiv(a, b) => s(a)?.idiv(&s(b)?),
            Atom::Pow(a, b) => s(a)?.pow_sym(&s(b)?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On every residue class, the rewritten expression at `v'` equals the original at
    /// `v = c·v' + r`.
    #[test]
    fn an_expression_on_a_residue_class_keeps_its_values() {
        let j = Sym::var("j");
        let i = Sym::var("i");
        let two = Sym::int(2);
        // 4 + 2·i − MOD(j, 2), and ⌊(n − 1 − MOD(j, 3)) / 2⌋ + MOD(j, 2)·j.
        let red = Sym::int(4)
            .add(&i.scale(2.into()).unwrap())
            .unwrap()
            .sub(&j.fmod(&two).unwrap())
            .unwrap();
        let bound = Sym::var("n")
            .sub(&Sym::one())
            .unwrap()
            .sub(&j.fmod(&Sym::int(3)).unwrap())
            .unwrap()
            .scale(Rational::new(1, 2).unwrap())
            .unwrap()
            .floor()
            .unwrap()
            .add(&j.fmod(&two).unwrap().mul(&j).unwrap())
            .unwrap();
        assert_eq!(red.moduli_of("j"), vec![2]);
        let mut moduli = bound.moduli_of("j");
        moduli.sort();
        assert_eq!(moduli, vec![2, 3]);
        for e in [&red, &bound] {
            for c in [2, 3] {
                for r in 0..c {
                    let on = e.on_residue("j", c, r).unwrap();
                    for jp in 0..8 {
                        for iv in -2..3 {
                            let at = |v: i128| {
                                move |n: &str| match n {
                                    "j" => Some(v),
                                    "i" => Some(iv),
                                    "n" => Some(17),
                                    _ => None,
                                }
                            };
                            let want = e.eval(&at(c * jp + r)).unwrap();
                            let got = on.eval(&at(jp)).unwrap();
                            assert_eq!(got, want, "{e:?} at j = {c}·{jp} + {r}");
                        }
                    }
                }
            }
        }
    }
}
