//! Fortran expressions as the front end sees them: names are lower-case, array
//! references are told apart from function calls by the unit's declarations.

use crate::span::Span;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Int(i64),
    /// A real literal, kept as written (`1.0d0`, `.5e-3`): its value is not needed exactly.
    Real(String),
    Logical(bool),
    Str(String),
    /// A scalar variable, named constant or loop index.
    Name(String),
    /// An element, section or whole of a declared array.
    Array(ArrayRef),
    /// A call of an intrinsic or user function.
    Call(Call),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// A construct outside the model (derived-type components, array constructors, ...),
    /// kept as source text so reports can still show it.
    Unknown(String),
}

/// `name(subscripts)`. Empty `subscripts` denotes the whole array.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayRef {
    pub name: String,
    pub subscripts: Vec<Subscript>,
    pub span: Span,
}

impl ArrayRef {
    /// The subscripts when there are some and every one is an integer literal
    /// (`grid_points(1)`, `m(2, 3)`).
    pub fn literal_subscripts(&self) -> Option<Vec<i64>> {
        if self.subscripts.is_empty() {
            return None;
        }
        self.subscripts
            .iter()
            .map(|s| match s {
                Subscript::Index(Expr::Int(v)) => Some(*v),
                _ => None,
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subscript {
    Index(Expr),
    /// `lower:upper:stride`, each part optional (defaults come from the declaration).
    Range(Triplet),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Triplet {
    pub lower: Option<Expr>,
    pub upper: Option<Expr>,
    pub stride: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Call {
    pub name: String,
    pub args: Vec<Arg>,
    pub span: Span,
}

/// An actual argument, optionally with its keyword (`dim=1`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Arg {
    pub keyword: Option<String>,
    pub value: Expr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Concat,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Eqv,
    Neqv,
}

impl BinaryOp {
    /// Fortran precedence, higher binds tighter (`**` > `*` `/` > `+` `-` > `//` >
    /// relational > `.not.` > `.and.` > `.or.` > `.eqv.`).
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Pow => 9,
            BinaryOp::Mul | BinaryOp::Div => 8,
            BinaryOp::Add | BinaryOp::Sub => 7,
            BinaryOp::Concat => 6,
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => 5,
            BinaryOp::And => 3,
            BinaryOp::Or => 2,
            BinaryOp::Eqv | BinaryOp::Neqv => 1,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Pow => "**",
            BinaryOp::Concat => "//",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "/=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => ".and.",
            BinaryOp::Or => ".or.",
            BinaryOp::Eqv => ".eqv.",
            BinaryOp::Neqv => ".neqv.",
        }
    }

    /// The operator for a Fortran operator token, in either spelling (`.LE.` or `<=`).
    pub fn from_token(token: &str) -> Option<BinaryOp> {
        Some(match token.to_ascii_lowercase().as_str() {
            "+" => BinaryOp::Add,
            "-" => BinaryOp::Sub,
            "*" => BinaryOp::Mul,
            "/" => BinaryOp::Div,
            "**" => BinaryOp::Pow,
            "//" => BinaryOp::Concat,
            "==" | ".eq." => BinaryOp::Eq,
            "/=" | ".ne." => BinaryOp::Ne,
            "<" | ".lt." => BinaryOp::Lt,
            "<=" | ".le." => BinaryOp::Le,
            ">" | ".gt." => BinaryOp::Gt,
            ">=" | ".ge." => BinaryOp::Ge,
            ".and." => BinaryOp::And,
            ".or." => BinaryOp::Or,
            ".eqv." => BinaryOp::Eqv,
            ".neqv." => BinaryOp::Neqv,
            _ => return None,
        })
    }

    pub fn is_relational(self) -> bool {
        self.precedence() == 5
    }
}

impl Expr {
    pub fn name(name: impl Into<String>) -> Expr {
        Expr::Name(name.into())
    }

    /// A call `name(args)` with positional arguments and no source position (an
    /// expression the analyses build).
    pub fn call(name: impl Into<String>, args: Vec<Expr>) -> Expr {
        Expr::Call(Call {
            name: name.into(),
            args: args
                .into_iter()
                .map(|value| Arg {
                    keyword: None,
                    value,
                })
                .collect(),
            span: Span::default(),
        })
    }

    pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary(op, Box::new(lhs), Box::new(rhs))
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Expr::Int(v) => Some(*v),
            Expr::Unary(UnaryOp::Neg, e) => e.as_int().and_then(i64::checked_neg),
            Expr::Unary(UnaryOp::Plus, e) => e.as_int(),
            _ => None,
        }
    }

    /// Calls `f` on this expression and every sub-expression, outermost first.
    pub fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Array(r) => r.subscripts.iter().for_each(|s| s.visit(f)),
            Expr::Call(c) => c.args.iter().for_each(|a| a.value.visit(f)),
            Expr::Unary(_, e) => e.visit(f),
            Expr::Binary(_, a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Expr::Int(_)
            | Expr::Real(_)
            | Expr::Logical(_)
            | Expr::Str(_)
            | Expr::Name(_)
            | Expr::Unknown(_) => {}
        }
    }

    /// Whether `name` occurs as a scalar name anywhere in the expression.
    pub fn mentions(&self, name: &str) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= matches!(e, Expr::Name(n) if n == name));
        found
    }

    /// The expression rebuilt bottom-up: every sub-expression (subscripts, triplet
    /// bounds, arguments, operands) first, then `f` on the node with its new children.
    pub fn map(&self, f: &mut dyn FnMut(Expr) -> Expr) -> Expr {
        let node = match self {
            Expr::Array(a) => Expr::Array(ArrayRef {
                name: a.name.clone(),
                subscripts: a
                    .subscripts
                    .iter()
                    .map(|s| match s {
                        Subscript::Index(e) => Subscript::Index(e.map(f)),
                        Subscript::Range(t) => Subscript::Range(Triplet {
                            lower: t.lower.as_ref().map(|e| e.map(f)),
                            upper: t.upper.as_ref().map(|e| e.map(f)),
                            stride: t.stride.as_ref().map(|e| e.map(f)),
                        }),
                    })
                    .collect(),
                span: a.span,
            }),
            Expr::Call(c) => Expr::Call(Call {
                name: c.name.clone(),
                args: c
                    .args
                    .iter()
                    .map(|a| Arg {
                        keyword: a.keyword.clone(),
                        value: a.value.map(f),
                    })
                    .collect(),
                span: c.span,
            }),
            Expr::Unary(op, e) => Expr::Unary(*op, Box::new(e.map(f))),
            Expr::Binary(op, a, b) => Expr::binary(*op, a.map(f), b.map(f)),
            _ => self.clone(),
        };
        f(node)
    }

    /// This expression with every occurrence of the sub-expression `from` (a scalar
    /// name, a call, ...) replaced by `to`. (Bottom-up is enough: no proper part of
    /// `from` equals it, so its parts come back unchanged before it is matched.)
    pub fn replace(&self, from: &Expr, to: &Expr) -> Expr {
        self.map(&mut |e| if &e == from { to.clone() } else { e })
    }

    fn precedence(&self) -> u8 {
        match self {
            Expr::Binary(op, ..) => op.precedence(),
            Expr::Unary(UnaryOp::Not, _) => 4,
            Expr::Unary(..) => 7,
            _ => 10,
        }
    }
}

impl Subscript {
    fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Subscript::Index(e) => e.visit(f),
            Subscript::Range(t) => [&t.lower, &t.upper, &t.stride]
                .into_iter()
                .flatten()
                .for_each(|e| e.visit(f)),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(v) => write!(f, "{v}"),
            Expr::Real(text) | Expr::Unknown(text) => f.write_str(text),
            Expr::Logical(true) => f.write_str(".true."),
            Expr::Logical(false) => f.write_str(".false."),
            Expr::Str(s) => write!(f, "'{}'", s.replace('\'', "''")),
            Expr::Name(n) => f.write_str(n),
            Expr::Array(r) => write!(f, "{r}"),
            Expr::Call(c) => write!(f, "{c}"),
            Expr::Unary(op, e) => {
                let sym = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Plus => "+",
                    UnaryOp::Not => ".not. ",
                };
                f.write_str(sym)?;
                write_operand(f, e, self.precedence(), true)
            }
            Expr::Binary(op, a, b) => {
                let p = op.precedence();
                // `**` is right-associative, every other operator left-associative.
                let right_assoc = *op == BinaryOp::Pow;
                write_operand(f, a, p, right_assoc)?;
                match op {
                    BinaryOp::Mul | BinaryOp::Div | BinaryOp::Pow => f.write_str(op.symbol())?,
                    _ => write!(f, " {} ", op.symbol())?,
                }
                write_operand(f, b, p, !right_assoc)
            }
        }
    }
}

/// Writes `e` as an operand of an operator of precedence `parent`, parenthesized when
/// needed (`strict`: equal precedence also needs parentheses on this side).
fn write_operand(f: &mut fmt::Formatter<'_>, e: &Expr, parent: u8, strict: bool) -> fmt::Result {
    let p = e.precedence();
    if p < parent || (strict && p == parent) {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

impl fmt::Display for ArrayRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.subscripts.is_empty() {
            f.write_str("(")?;
            for (i, s) in self.subscripts.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{s}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for Subscript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subscript::Index(e) => write!(f, "{e}"),
            Subscript::Range(t) => write!(f, "{t}"),
        }
    }
}

impl fmt::Display for Triplet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.lower {
            write!(f, "{l}")?;
        }
        f.write_str(":")?;
        if let Some(u) = &self.upper {
            write!(f, "{u}")?;
        }
        if let Some(s) = &self.stride {
            write!(f, ":{s}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if let Some(k) = &a.keyword {
                write!(f, "{k}=")?;
            }
            write!(f, "{}", a.value)?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Expr {
        Expr::name(s)
    }

    #[test]
    fn prints_with_minimal_parentheses() {
        use BinaryOp::*;
        let e = Expr::binary(Mul, Expr::binary(Add, n("i"), Expr::Int(1)), n("j"));
        assert_eq!(e.to_string(), "(i + 1)*j");
        let e = Expr::binary(Sub, n("a"), Expr::binary(Sub, n("b"), n("c")));
        assert_eq!(e.to_string(), "a - (b - c)");
        let e = Expr::binary(Sub, Expr::binary(Sub, n("a"), n("b")), n("c"));
        assert_eq!(e.to_string(), "a - b - c");
        let e = Expr::binary(Pow, n("a"), Expr::binary(Pow, n("b"), n("c")));
        assert_eq!(e.to_string(), "a**b**c");
        let e = Expr::binary(Pow, Expr::binary(Pow, n("a"), n("b")), n("c"));
        assert_eq!(e.to_string(), "(a**b)**c");
        let e = Expr::Unary(UnaryOp::Neg, Box::new(Expr::binary(Add, n("a"), n("b"))));
        assert_eq!(e.to_string(), "-(a + b)");
    }

    #[test]
    fn operator_tokens_in_both_spellings() {
        assert_eq!(BinaryOp::from_token(".LE."), Some(BinaryOp::Le));
        assert_eq!(BinaryOp::from_token("<="), Some(BinaryOp::Le));
        assert_eq!(BinaryOp::from_token(".xor."), None);
    }
}
