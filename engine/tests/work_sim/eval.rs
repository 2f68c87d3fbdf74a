//! Exact evaluation of the integer and logical expressions that decide control flow
//! and subscripts: loop bounds, IF conditions, CASE selectors, array subscripts and
//! ALIGN subscripts. Anything else (reals, array values, unknown names) is an error:
//! the simulator only runs programs whose control flow does not depend on data.

use costline_engine::ir::{BinaryOp, Expr, UnaryOp};

/// A value of an integer or logical expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Bool(bool),
}

/// The value of an integer expression; `env` gives the values of names.
pub fn int(e: &Expr, env: &dyn Fn(&str) -> Option<i64>) -> Result<i64, String> {
    match value(e, env)? {
        Value::Int(v) => Ok(v),
        Value::Bool(_) => Err(format!("`{e}` is logical where an integer is needed")),
    }
}

/// The value of a logical expression; `env` gives the values of names.
pub fn logical(e: &Expr, env: &dyn Fn(&str) -> Option<i64>) -> Result<bool, String> {
    match value(e, env)? {
        Value::Bool(b) => Ok(b),
        Value::Int(_) => Err(format!("`{e}` is an integer where a logical is needed")),
    }
}

/// Fortran 95 semantics of integer and logical operations (section 7.1.7): `/`
/// truncates toward zero, `MOD(a, p)` has the sign of `a`, `a**b` needs `b >= 0`
/// here; overflow and division by zero are errors.
pub fn value(e: &Expr, env: &dyn Fn(&str) -> Option<i64>) -> Result<Value, String> {
    let overflow = || format!("`{e}` overflows");
    let ints =
        |a: &Expr, b: &Expr| -> Result<(i64, i64), String> { Ok((int(a, env)?, int(b, env)?)) };
    let bools = |a: &Expr, b: &Expr| -> Result<(bool, bool), String> {
        Ok((logical(a, env)?, logical(b, env)?))
    };
    Ok(match e {
        Expr::Int(v) => Value::Int(*v),
        Expr::Logical(b) => Value::Bool(*b),
        Expr::Name(n) => {
            Value::Int(env(n).ok_or_else(|| format!("`{n}` has no known integer value"))?)
        }
        Expr::Unary(UnaryOp::Neg, a) => {
            Value::Int(int(a, env)?.checked_neg().ok_or_else(overflow)?)
        }
        Expr::Unary(UnaryOp::Plus, a) => Value::Int(int(a, env)?),
        Expr::Unary(UnaryOp::Not, a) => Value::Bool(!logical(a, env)?),
        Expr::Binary(op, a, b) => match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Pow => {
                let (x, y) = ints(a, b)?;
                let v = match op {
                    BinaryOp::Add => x.checked_add(y),
                    BinaryOp::Sub => x.checked_sub(y),
                    BinaryOp::Mul => x.checked_mul(y),
                    // Rust's `/` on integers truncates toward zero, as Fortran's does.
                    BinaryOp::Div => x.checked_div(y),
                    _ => u32::try_from(y).ok().and_then(|y| x.checked_pow(y)),
                };
                Value::Int(v.ok_or_else(overflow)?)
            }
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => {
                let (x, y) = ints(a, b)?;
                Value::Bool(match op {
                    BinaryOp::Eq => x == y,
                    BinaryOp::Ne => x != y,
                    BinaryOp::Lt => x < y,
                    BinaryOp::Le => x <= y,
                    BinaryOp::Gt => x > y,
                    _ => x >= y,
                })
            }
            BinaryOp::And | BinaryOp::Or | BinaryOp::Eqv | BinaryOp::Neqv => {
                let (x, y) = bools(a, b)?;
                Value::Bool(match op {
                    BinaryOp::And => x && y,
                    BinaryOp::Or => x || y,
                    BinaryOp::Eqv => x == y,
                    _ => x != y,
                })
            }
            BinaryOp::Concat => return Err(format!("`{e}` is a character expression")),
        },
        Expr::Call(call) => {
            let args = call
                .args
                .iter()
                .map(|a| int(&a.value, env))
                .collect::<Result<Vec<i64>, String>>()?;
            Value::Int(match (call.name.as_str(), args.as_slice()) {
                ("min", [_, _, ..]) => args.iter().copied().min().expect("two or more"),
                ("max", [_, _, ..]) => args.iter().copied().max().expect("two or more"),
                // Rust's `%` has the sign of the dividend, as Fortran's MOD.
                ("mod", [a, p]) => a.checked_rem(*p).ok_or_else(overflow)?,
                // MODULO has the sign of the divisor: a - p*floor(a/p).
                ("modulo", [a, p]) => a
                    .checked_rem(*p)
                    .map(|r| {
                        if r != 0 && (r < 0) != (*p < 0) {
                            r + p
                        } else {
                            r
                        }
                    })
                    .ok_or_else(overflow)?,
                ("abs", [a]) => a.checked_abs().ok_or_else(overflow)?,
                _ => {
                    return Err(format!(
                        "`{e}`: only MIN, MAX, MOD, MODULO and ABS are evaluated"
                    ));
                }
            })
        }
        Expr::Real(_) | Expr::Str(_) | Expr::Array(_) | Expr::Unknown(_) => {
            return Err(format!(
                "`{e}` is not an integer or logical expression of known values"
            ));
        }
    })
}
