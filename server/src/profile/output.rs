//! Whether the instrumented program printed what the original did: line by line, save
//! the lines that differ between two runs of the original itself (timings).

use std::collections::BTreeSet;

/// The first line where `a` and `b` differ, 1-based, and the two lines (empty past
/// an end), ignoring the lines in `varying`; `None` when they agree.
pub fn first_difference(
    a: &str,
    b: &str,
    varying: &BTreeSet<usize>,
) -> Option<(usize, String, String)> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    (0..la.len().max(lb.len()))
        .filter(|i| !varying.contains(i))
        .find(|&i| la.get(i) != lb.get(i))
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
    }
}
