//! The compact numbers of hints and lenses: `×1024`, `×1.0e6`, `×~50` (estimated),
//! `×?` (an unknown has no value), `wd 0.42`.

use crate::symbolic::{EvalError, Notation, Num, Piecewise};

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

/// `×N`, `×~N` when the count rests on assumptions, `×?` without a value.
pub fn count(value: Option<&Result<Num, EvalError>>, exact: bool) -> String {
    match value {
        Some(Ok(v)) => {
            let estimated = if exact { "" } else { "~" };
            format!("×{estimated}{}", compact(v.to_f64()))
        }
        _ => "×?".to_string(),
    }
}

/// `count · wd 0.42`, or the count alone.
pub fn with_wd(count: String, wd: Option<f64>) -> String {
    match wd {
        Some(wd) => format!("{count} · wd {wd:.2}"),
        None => count,
    }
}

/// A formula in mathematical notation, cut after about `max` characters (a guarded
/// formula can have many pieces; the hover is no place for all of them).
pub fn formula(p: &Piecewise, max: usize) -> String {
    let text = p.display(Notation::Math);
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}… ({} pieces in all)", p.pieces.len())
}

/// A count written out in full with thousands separators (`1,048,576`), or compactly
/// when it is not an integer.
pub fn full(x: f64) -> String {
    if x.fract() != 0.0 || x.abs() >= 1e15 {
        return compact(x);
    }
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(compact(1024.0), "1024");
        assert_eq!(compact(1_048_576.0), "1.0e6");
        assert_eq!(compact(52_428.8), "5.2e4");
        assert_eq!(compact(12.5), "12.5");
        assert_eq!(compact(0.25), "0.25");
        assert_eq!(compact(10.0 / 3.0), "3.33");
        assert_eq!(full(1_048_576.0), "1,048,576");
        assert_eq!(full(999.0), "999");
        assert_eq!(full(12.5), "12.5");
        assert_eq!(with_wd("×4".into(), Some(0.4237)), "×4 · wd 0.42");
    }
}
