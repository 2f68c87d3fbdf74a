//! The compact numbers of hints and lenses: `×1024`, `×1.0e6`, `×~50` (estimated),
//! `×?` (an unknown has no value), `wd 0.42`.

pub use costline_symbolic::compact;
use costline_symbolic::{EvalError, Notation, Num, Piecewise};

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

/// A byte count in binary units: `512 B`, `16 KiB`, `1.5 MiB`.
pub fn bytes(x: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = x;
    let mut unit = 0;
    while v.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let text = if unit == 0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v.abs() < 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    };
    format!("{text} {}", UNITS[unit])
}

/// A statement's communication per run, compact: `2 msg · 16 KiB`.
pub fn comm(m: &costline_model::comm::CommMetrics) -> String {
    format!("{} msg · {}", compact(m.nt), bytes(m.td_bytes))
}

/// A time in seconds with a unit that suits it: `3.6 µs`, `1.2 ms`, `0.5 s`.
pub fn seconds(t: f64) -> String {
    let (v, unit) = if t.abs() >= 1.0 || t == 0.0 {
        (t, "s")
    } else if t.abs() >= 1e-3 {
        (t * 1e3, "ms")
    } else if t.abs() >= 1e-6 {
        (t * 1e6, "µs")
    } else {
        (t * 1e9, "ns")
    };
    format!("{} {unit}", compact((v * 100.0).round() / 100.0))
}

/// Table rows `0..rows` written by `row`, folded past `max` rows: the first half of
/// `max` and the last quarter, with `gap(hidden)` between them.
pub fn folded_rows(
    out: &mut String,
    rows: usize,
    max: usize,
    row: &dyn Fn(&mut String, usize),
    gap: &dyn Fn(&mut String, usize),
) {
    if rows <= max {
        (0..rows).for_each(|i| row(out, i));
    } else {
        let (head, tail) = (max / 2, max / 4);
        (0..head).for_each(|i| row(out, i));
        gap(out, rows - head - tail);
        (rows - tail..rows).for_each(|i| row(out, i));
    }
}

/// A formula in mathematical notation, cut after about `max` characters (a guarded
/// formula can have many pieces; the hover is no place for all of them).
pub fn formula(p: &Piecewise, max: usize) -> String {
    let cases = p.cases();
    let text = cases.display(Notation::Math);
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}… ({} cases in all)", cases.len())
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
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(16384.0), "16 KiB");
        assert_eq!(bytes(1.5 * 1024.0 * 1024.0), "1.5 MiB");
        assert_eq!(seconds(3.6e-6), "3.6 µs");
        assert_eq!(seconds(0.25), "250 ms");
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
