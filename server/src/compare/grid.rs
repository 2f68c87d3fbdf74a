//! The grid `compare` evaluates: problem sizes and processor counts from the command
//! line's ranges.

/// `LO..HI` (inclusive) or a single value.
pub fn parse_range(s: &str) -> Result<(i64, i64), String> {
    let int = |x: &str| {
        x.trim()
            .parse::<i64>()
            .map_err(|_| format!("`{x}` is not an integer"))
    };
    let (lo, hi) = match s.split_once("..") {
        Some((a, b)) => (int(a)?, int(b)?),
        None => {
            let v = int(s)?;
            (v, v)
        }
    };
    if lo > hi {
        return Err(format!("the range {lo}..{hi} is empty"));
    }
    Ok((lo, hi))
}

/// `--param NAME=VALUE` or `NAME=LO..HI`, the name lower-cased.
pub fn parse_param(s: &str) -> Result<(String, (i64, i64)), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE or NAME=LO..HI, got `{s}`"))?;
    let name = name.trim();
    let first_letter = name.starts_with(|c: char| c.is_ascii_alphabetic());
    if !first_letter || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`{name}` is not a Fortran name"));
    }
    Ok((name.to_ascii_lowercase(), parse_range(value)?))
}

/// Processor counts, sorted and distinct.
#[derive(Clone, Debug, PartialEq)]
pub struct Procs(pub Vec<i64>);

/// `--procs LO..HI` (LO, the powers of two between, HI) or a list `4,16,64`; every
/// count at least 1.
pub fn parse_procs(s: &str) -> Result<Procs, String> {
    let mut out = if s.contains(',') {
        s.split(',')
            .map(|x| parse_range(x).map(|(v, _)| v))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        let (lo, hi) = parse_range(s)?;
        let mut v = vec![lo];
        let mut p = 1i64;
        while p < hi {
            if p > lo {
                v.push(p);
            }
            p = p.saturating_mul(2);
        }
        v.push(hi);
        v
    };
    if let Some(bad) = out.iter().find(|p| **p < 1) {
        return Err(format!("{bad} processors: a processor count is at least 1"));
    }
    out.sort_unstable();
    out.dedup();
    Ok(Procs(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_processor_counts() {
        assert_eq!(parse_range("16..512"), Ok((16, 512)));
        assert_eq!(parse_range("64"), Ok((64, 64)));
        assert!(parse_range("9..3").is_err());
        assert!(parse_range("a..3").is_err());
        assert_eq!(parse_param("N=16..64"), Ok(("n".into(), (16, 64))));
        assert!(parse_param("2x=3").is_err());
        assert_eq!(parse_procs("4..64"), Ok(Procs(vec![4, 8, 16, 32, 64])));
        assert_eq!(parse_procs("3..20"), Ok(Procs(vec![3, 4, 8, 16, 20])));
        assert_eq!(parse_procs("64,16"), Ok(Procs(vec![16, 64])));
        assert!(parse_procs("0..4").is_err());
    }
}
