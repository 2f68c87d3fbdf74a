//! Whether the instrumented program printed what the original did: line by line, save
//! the lines that differ between two runs of the original itself and the lines that
//! differ only in numbers and name a time or a rate (timings: the instrumented
//! program is slower).

use std::collections::BTreeSet;

/// The words that mark a line as a timing (lower-case).
const TIMING_WORDS: &[&str] = &[
    "time", "sec", "elapsed", "wall", "cpu", "mop/s", "mflop", "gflop", "rate",
];

/// Whether lines `a` and `b` are one timing: equal but for their numbers, and naming
/// a time or a rate.
fn timing(a: &str, b: &str) -> bool {
    /// The line with each run of digits, `.`, `+`, `-` and exponent letters after a
    /// digit made `#`.
    fn skeleton(line: &str) -> String {
        let mut out = String::new();
        let mut in_number = false;
        for c in line.chars() {
            let part = c.is_ascii_digit()
                || (in_number && matches!(c, '.' | 'e' | 'E' | 'd' | 'D' | '+' | '-'));
            if part && !in_number {
                out.push('#');
            } else if !part {
                out.push(c);
            }
            in_number = part;
        }
        out.replace(".#", "#")
    }
    let lower = a.to_lowercase();
    skeleton(a) == skeleton(b) && TIMING_WORDS.iter().any(|w| lower.contains(w))
}

/// The first line where `a` and `b` differ, 1-based, and the two lines (empty past
/// an end), ignoring the lines in `varying` and timings; `None` when they agree.
pub fn first_difference(
    a: &str,
    b: &str,
    varying: &BTreeSet<usize>,
) -> Option<(usize, String, String)> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    (0..la.len().max(lb.len()))
        .filter(|i| !varying.contains(i))
        .find(|&i| match (la.get(i), lb.get(i)) {
            (Some(x), Some(y)) => x != y && !timing(x, y),
            (x, y) => x != y,
        })
        .map(|i| {
            let line = |l: &[&str]| l.get(i).map_or(String::new(), |s| s.to_string());
            (i + 1, line(&la), line(&lb))
        })
}

/// The lines (0-based) on which two runs' outputs differ, when they have as many lines;
/// `None` when they do not (their difference is more than some changing numbers).
pub fn varying_lines(a: &str, b: &str) -> Option<BTreeSet<usize>> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    (la.len() == lb.len()).then(|| (0..la.len()).filter(|&i| la[i] != lb[i]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_vary_between_runs_are_not_compared() {
        let a = "result 42\ntime 0.51\n";
        let b = "result 42\ntime 0.49\n";
        let varying = varying_lines(a, b).unwrap();
        assert_eq!(varying, BTreeSet::from([1]));
        assert_eq!(first_difference(a, "result 42\ntime 0.7\n", &varying), None);
        assert_eq!(
            first_difference(a, "result 43\ntime 0.7\n", &varying),
            Some((1, "result 42".into(), "result 43".into()))
        );
        assert_eq!(
            first_difference(a, "result 42\n", &BTreeSet::new()),
            Some((2, "time 0.51".into(), String::new()))
        );
        assert_eq!(varying_lines(a, "x\n"), None);
        // A timing that did not vary between runs of the original: not compared
        // either; a result that differs only in its numbers is.
        let nas = " Time in seconds =   0.03\n Mop/s total =  1872.00\n Zeta is 0.8597E+01\n";
        let slower = " Time in seconds =   0.12\n Mop/s total =  468.10\n Zeta is 0.8597E+01\n";
        assert_eq!(first_difference(nas, slower, &BTreeSet::new()), None);
        let wrong = " Time in seconds =   0.12\n Mop/s total =  468.10\n Zeta is 0.8598E+01\n";
        assert_eq!(
            first_difference(nas, wrong, &BTreeSet::new()),
            Some((
                3,
                " Zeta is 0.8597E+01".into(),
                " Zeta is 0.8598E+01".into()
            ))
        );
    }
}
