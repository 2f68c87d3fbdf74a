//! The values a skeleton run computes with: Fortran's integers, reals, logicals and
//! character strings, and `Unknown` for a value the run cannot know (read from input,
//! computed from data it skips). Arithmetic on an unknown is unknown.

use costline_syntax::ir::{BaseType, BinaryOp, UnaryOp};

#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    Int(i64),
    Real(f64),
    Bool(bool),
    Str(String),
    #[default]
    Unknown,
}

impl Value {
    pub fn int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }

    fn real(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(*v as f64),
            Value::Real(v) => Some(*v),
            _ => None,
        }
    }

    pub fn truth(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The value stored in a variable of type `base`: Fortran's conversion on
    /// assignment (a real truncated toward zero into an integer).
    pub fn converted(self, base: Option<BaseType>) -> Value {
        match (base, self) {
            (Some(BaseType::Integer), Value::Real(r)) if r.is_finite() && r.abs() < 9.0e18 => {
                Value::Int(r.trunc() as i64)
            }
            (Some(BaseType::Integer), Value::Real(_)) => Value::Unknown,
            (
                Some(BaseType::Real | BaseType::DoublePrecision | BaseType::Complex),
                Value::Int(i),
            ) => Value::Real(i as f64),
            (_, v) => v,
        }
    }
}

/// A real literal as written (`1.0d0`, `.5e-3`, `2.0_dp`).
pub fn real_literal(text: &str) -> Value {
    let t = text
        .split('_')
        .next()
        .unwrap_or(text)
        .replace(['d', 'D'], "e");
    t.parse().map_or(Value::Unknown, Value::Real)
}

/// `a op b`.
pub fn binary(op: BinaryOp, a: &Value, b: &Value) -> Value {
    use BinaryOp::*;
    match op {
        And | Or | Eqv | Neqv => {
            let (Some(x), Some(y)) = (a.truth(), b.truth()) else {
                // `.false. .and. ?` and `.true. .or. ?` are known.
                return match (op, a.truth(), b.truth()) {
                    (And, Some(false), _) | (And, _, Some(false)) => Value::Bool(false),
                    (Or, Some(true), _) | (Or, _, Some(true)) => Value::Bool(true),
                    _ => Value::Unknown,
                };
            };
            Value::Bool(match op {
                And => x && y,
                Or => x || y,
                Eqv => x == y,
                _ => x != y,
            })
        }
        Eq | Ne | Lt | Le | Gt | Ge => compare(op, a, b),
        Concat => match (a, b) {
            (Value::Str(x), Value::Str(y)) => Value::Str(format!("{x}{y}")),
            _ => Value::Unknown,
        },
        Add | Sub | Mul | Div | Pow => match (a, b) {
            (Value::Int(x), Value::Int(y)) => integer(op, *x, *y),
            _ => match (a.real(), b.real()) {
                (Some(x), Some(y)) => Value::Real(match op {
                    Add => x + y,
                    Sub => x - y,
                    Mul => x * y,
                    Div => x / y,
                    _ => match b {
                        Value::Int(n) if i32::try_from(*n).is_ok() => x.powi(*n as i32),
                        _ => x.powf(y),
                    },
                }),
                _ => Value::Unknown,
            },
        },
    }
}

/// Integer arithmetic: division truncates toward zero; overflow, division by zero and
/// negative powers of integers other than ±1 leave the value unknown.
fn integer(op: BinaryOp, x: i64, y: i64) -> Value {
    let v = match op {
        BinaryOp::Add => x.checked_add(y),
        BinaryOp::Sub => x.checked_sub(y),
        BinaryOp::Mul => x.checked_mul(y),
        BinaryOp::Div => x.checked_div(y),
        _ => match (x, u32::try_from(y)) {
            (_, Ok(e)) => x.checked_pow(e),
            (1, _) => Some(1),
            (-1, _) => Some(if y % 2 == 0 { 1 } else { -1 }),
            _ => Some(0),
        },
    };
    v.map_or(Value::Unknown, Value::Int)
}

fn compare(op: BinaryOp, a: &Value, b: &Value) -> Value {
    use std::cmp::Ordering;
    let order = match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Str(x), Value::Str(y)) => Some(x.trim_end().cmp(y.trim_end())),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        _ => match (a.real(), b.real()) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    };
    let Some(o) = order else {
        return Value::Unknown;
    };
    Value::Bool(match op {
        BinaryOp::Eq => o == Ordering::Equal,
        BinaryOp::Ne => o != Ordering::Equal,
        BinaryOp::Lt => o == Ordering::Less,
        BinaryOp::Le => o != Ordering::Greater,
        BinaryOp::Gt => o == Ordering::Greater,
        _ => o != Ordering::Less,
    })
}

/// `op a`.
pub fn unary(op: UnaryOp, a: &Value) -> Value {
    match (op, a) {
        (UnaryOp::Plus, v) => v.clone(),
        (UnaryOp::Neg, Value::Int(x)) => x.checked_neg().map_or(Value::Unknown, Value::Int),
        (UnaryOp::Neg, Value::Real(x)) => Value::Real(-x),
        (UnaryOp::Not, Value::Bool(b)) => Value::Bool(!b),
        _ => Value::Unknown,
    }
}

/// The elemental intrinsic `name` on scalar arguments; `None` when `name` is not one
/// the run knows (the caller then treats it as unknown).
pub fn intrinsic(name: &str, args: &[Value]) -> Option<Value> {
    let ints: Option<Vec<i64>> = args.iter().map(Value::int).collect();
    let reals: Option<Vec<f64>> = args.iter().map(Value::real).collect();
    let int_result = |f: &dyn Fn(&[i64]) -> Option<i64>| {
        ints.as_deref()
            .and_then(f)
            .map_or(Value::Unknown, Value::Int)
    };
    let real_result = |f: &dyn Fn(&[f64]) -> f64| {
        reals
            .as_deref()
            .filter(|r| !r.is_empty())
            .map_or(Value::Unknown, |r| Value::Real(f(r)))
    };
    let all_int = ints.is_some();
    Some(match name {
        "mod" if all_int => int_result(&|v| v.first()?.checked_rem(*v.get(1)?)),
        "mod" | "amod" | "dmod" => real_result(&|v| v[0] % v.get(1).copied().unwrap_or(1.0)),
        "min" | "min0" | "amin1" | "dmin1" | "max" | "max0" | "amax1" | "dmax1" => {
            let max = name.contains("max");
            if all_int {
                int_result(&|v| if max { v.iter().max() } else { v.iter().min() }.copied())
            } else {
                real_result(&|v| {
                    v.iter()
                        .copied()
                        .reduce(|a, b| if max { a.max(b) } else { a.min(b) })
                        .unwrap_or(0.0)
                })
            }
        }
        "abs" | "iabs" if all_int => int_result(&|v| v.first()?.checked_abs()),
        "abs" | "dabs" => real_result(&|v| v[0].abs()),
        "int" | "ifix" | "idint" => match args.first() {
            Some(v) => Value::Real(v.real()?).converted(Some(BaseType::Integer)),
            None => Value::Unknown,
        },
        "nint" | "idnint" => match args.first().and_then(Value::real) {
            Some(r) => Value::Real(r.round()).converted(Some(BaseType::Integer)),
            None => Value::Unknown,
        },
        "floor" | "ceiling" => match args.first().and_then(Value::real) {
            Some(r) => Value::Real(if name == "floor" { r.floor() } else { r.ceil() })
                .converted(Some(BaseType::Integer)),
            None => Value::Unknown,
        },
        "real" | "float" | "dble" | "sngl" | "dfloat" => real_result(&|v| v[0]),
        "aint" | "dint" => real_result(&|v| v[0].trunc()),
        "anint" | "dnint" => real_result(&|v| v[0].round()),
        "sqrt" | "dsqrt" => real_result(&|v| v[0].sqrt()),
        "log" | "alog" | "dlog" => real_result(&|v| v[0].ln()),
        "log10" | "alog10" | "dlog10" => real_result(&|v| v[0].log10()),
        "exp" | "dexp" => real_result(&|v| v[0].exp()),
        "sign" | "isign" | "dsign" if all_int => {
            int_result(&|v| Some(v.first()?.abs() * if *v.get(1)? < 0 { -1 } else { 1 }))
        }
        "sign" | "dsign" => real_result(&|v| v[0].abs().copysign(v.get(1).copied().unwrap_or(1.0))),
        "dim" | "idim" if all_int => int_result(&|v| Some((v.first()? - v.get(1)?).max(0))),
        "ishft" => int_result(&|v| {
            let (x, s) = (*v.first()?, *v.get(1)?);
            Some(if s >= 0 {
                x.checked_shl(s as u32)?
            } else {
                x >> (-s).min(63)
            })
        }),
        "iand" => int_result(&|v| Some(v.first()? & v.get(1)?)),
        "ior" => int_result(&|v| Some(v.first()? | v.get(1)?)),
        "ieor" => int_result(&|v| Some(v.first()? ^ v.get(1)?)),
        "btest" => match ints.as_deref() {
            Some([x, b]) if (0..64).contains(b) => Value::Bool(x >> b & 1 == 1),
            _ => Value::Unknown,
        },
        "mpi_wtime" | "mpi_wtick" => Value::Real(0.0),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_integer_and_real_arithmetic() {
        let i = Value::Int;
        assert_eq!(binary(BinaryOp::Div, &i(-7), &i(2)), i(-3));
        assert_eq!(binary(BinaryOp::Pow, &i(2), &i(10)), i(1024));
        assert_eq!(binary(BinaryOp::Div, &i(1), &i(0)), Value::Unknown);
        // log_p = log(float(nprocs) + 0.0001) / log(2.0), as NPB CG computes it.
        let x = binary(
            BinaryOp::Div,
            &intrinsic("log", &[Value::Real(16.0001)]).unwrap(),
            &intrinsic("log", &[Value::Real(2.0)]).unwrap(),
        );
        assert_eq!(x.converted(Some(BaseType::Integer)), i(4));
        assert_eq!(intrinsic("mod", &[i(-7), i(3)]), Some(i(-1)));
        assert_eq!(intrinsic("max", &[i(3), i(9), i(4)]), Some(i(9)));
        assert_eq!(real_literal("1.5d0"), Value::Real(1.5));
    }

    #[test]
    fn unknown_spreads_except_where_logic_decides() {
        let u = Value::Unknown;
        assert_eq!(binary(BinaryOp::Add, &u, &Value::Int(1)), Value::Unknown);
        assert_eq!(
            binary(BinaryOp::And, &u, &Value::Bool(false)),
            Value::Bool(false)
        );
        assert_eq!(
            binary(BinaryOp::Or, &Value::Bool(true), &u),
            Value::Bool(true)
        );
        assert_eq!(binary(BinaryOp::Lt, &u, &Value::Int(1)), Value::Unknown);
    }
}
