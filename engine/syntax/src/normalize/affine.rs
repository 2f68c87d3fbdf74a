//! Just enough affine arithmetic on expressions to write scalarized subscripts in
//! their simplest form (`b(1:n-1)` under `a(2:n)` becomes `b($1 - 1)`). Terms that
//! are not affine stay opaque atoms; nothing is approximated.

use crate::ir::{BinaryOp, Expr, UnaryOp};

/// `sum(coefficient * atom) + constant`.
#[derive(Clone, Debug, PartialEq)]
pub struct Affine {
    terms: Vec<(Expr, i64)>,
    constant: i64,
}

impl Affine {
    /// The non-constant terms: (atom, coefficient).
    pub fn terms(&self) -> &[(Expr, i64)] {
        &self.terms
    }

    pub fn constant(&self) -> i64 {
        self.constant
    }

    pub fn of(e: &Expr) -> Affine {
        let mut a = Affine {
            terms: Vec::new(),
            constant: 0,
        };
        if !a.add_expr(e, 1) {
            a = Affine {
                terms: vec![(e.clone(), 1)],
                constant: 0,
            };
        }
        a
    }

    /// Adds `scale * e`; false on overflow (the caller then keeps `e` whole).
    fn add_expr(&mut self, e: &Expr, scale: i64) -> bool {
        match e {
            Expr::Int(v) => match v
                .checked_mul(scale)
                .and_then(|x| x.checked_add(self.constant))
            {
                Some(c) => {
                    self.constant = c;
                    true
                }
                None => false,
            },
            Expr::Binary(BinaryOp::Add, a, b) => self.add_expr(a, scale) && self.add_expr(b, scale),
            Expr::Binary(BinaryOp::Sub, a, b) => {
                self.add_expr(a, scale) && scale.checked_neg().is_some_and(|s| self.add_expr(b, s))
            }
            Expr::Unary(UnaryOp::Neg, a) => {
                scale.checked_neg().is_some_and(|s| self.add_expr(a, s))
            }
            Expr::Unary(UnaryOp::Plus, a) => self.add_expr(a, scale),
            Expr::Binary(BinaryOp::Mul, a, b) => match (a.as_int(), b.as_int()) {
                (Some(k), _) => k.checked_mul(scale).is_some_and(|s| self.add_expr(b, s)),
                (_, Some(k)) => k.checked_mul(scale).is_some_and(|s| self.add_expr(a, s)),
                _ => self.add_atom(e, scale),
            },
            _ => self.add_atom(e, scale),
        }
    }

    fn add_atom(&mut self, e: &Expr, scale: i64) -> bool {
        if let Some(slot) = self.terms.iter_mut().find(|(t, _)| t == e) {
            match slot.1.checked_add(scale) {
                Some(c) => slot.1 = c,
                None => return false,
            }
        } else {
            self.terms.push((e.clone(), scale));
        }
        true
    }

    pub fn plus(mut self, other: &Affine, scale: i64) -> Option<Affine> {
        for (t, c) in &other.terms {
            if !self.add_atom(t, c.checked_mul(scale)?) {
                return None;
            }
        }
        self.constant = self
            .constant
            .checked_add(other.constant.checked_mul(scale)?)?;
        Some(self)
    }

    pub fn scaled(mut self, k: i64) -> Option<Affine> {
        for (_, c) in &mut self.terms {
            *c = c.checked_mul(k)?;
        }
        self.constant = self.constant.checked_mul(k)?;
        Some(self)
    }

    /// The expression, terms in order of first appearance, then the constant.
    pub fn to_expr(&self) -> Expr {
        let mut out: Option<Expr> = None;
        for (t, c) in self.terms.iter().filter(|(_, c)| *c != 0) {
            let mag = if c.unsigned_abs() == 1 {
                t.clone()
            } else {
                Expr::binary(BinaryOp::Mul, Expr::Int(c.unsigned_abs() as i64), t.clone())
            };
            out = Some(match (out, *c < 0) {
                (None, false) => mag,
                (None, true) => Expr::Unary(UnaryOp::Neg, Box::new(mag)),
                (Some(acc), false) => Expr::binary(BinaryOp::Add, acc, mag),
                (Some(acc), true) => Expr::binary(BinaryOp::Sub, acc, mag),
            });
        }
        match (out, self.constant) {
            (None, c) => Expr::Int(c),
            (Some(e), 0) => e,
            (Some(e), c) if c > 0 => Expr::binary(BinaryOp::Add, e, Expr::Int(c)),
            (Some(e), c) => match c.checked_neg() {
                Some(m) => Expr::binary(BinaryOp::Sub, e, Expr::Int(m)),
                None => Expr::binary(BinaryOp::Add, e, Expr::Int(c)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Expr {
        Expr::name(s)
    }

    #[test]
    fn simplifies_offsets() {
        // 1 + ($1 - 2) = $1 - 1
        let lo2 = Affine::of(&Expr::Int(1));
        let v = Affine::of(&n("$1"));
        let lo = Affine::of(&Expr::Int(2));
        let e = lo2.plus(&v, 1).unwrap().plus(&lo, -1).unwrap();
        assert_eq!(e.to_expr().to_string(), "$1 - 1");
        // k + ($1 - k) = $1
        let k = Affine::of(&n("k"));
        let e = k.clone().plus(&v, 1).unwrap().plus(&k, -1).unwrap();
        assert_eq!(e.to_expr().to_string(), "$1");
        // n - 1 - (2*n) scaled by 2
        let a = Affine::of(&Expr::binary(BinaryOp::Sub, n("n"), Expr::Int(1)));
        let b = Affine::of(&Expr::binary(BinaryOp::Mul, Expr::Int(2), n("n")));
        let e = a.plus(&b, -1).unwrap().scaled(2).unwrap();
        assert_eq!(e.to_expr().to_string(), "-2*n - 2");
    }

    #[test]
    fn opaque_atoms_are_kept() {
        let call = Expr::binary(BinaryOp::Div, n("n"), n("p"));
        let e = Affine::of(&call)
            .plus(&Affine::of(&Expr::Int(1)), 1)
            .unwrap();
        assert_eq!(e.to_expr().to_string(), "n/p + 1");
    }
}
