//! DATA statements' initial values of scalars: `data cgitmax /25/`,
//! `data a, b / 1, -2 /, c / 3 /`. Only a scalar name paired with an integer literal
//! is kept (what later makes the variable a constant where nothing assigns it);
//! arrays, implied DOs, repeat counts (`3*0`) and other constants are left out.

/// The (name, value) pairs of a DATA statement's lower-case text.
pub fn initial_values(text: &str) -> Vec<(String, i64)> {
    let Some(rest) = text.trim_start().strip_prefix("data") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut rest = rest;
    // Groups `names / values /`, separated by optional commas.
    while let Some(open) = rest.find('/') {
        let names = rest[..open].trim().trim_start_matches(',');
        let Some(close) = rest[open + 1..].find('/').map(|c| open + 1 + c) else {
            break;
        };
        let values = &rest[open + 1..close];
        rest = &rest[close + 1..];
        let names: Vec<&str> = names.split(',').map(str::trim).collect();
        let values: Vec<&str> = values.split(',').map(str::trim).collect();
        if names.len() != values.len() || values.iter().any(|v| v.contains('*')) {
            continue;
        }
        for (n, v) in names.into_iter().zip(values) {
            let name_ok = n.starts_with(|c: char| c.is_ascii_alphabetic())
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if let (true, Ok(v)) = (name_ok, v.replace(' ', "").parse::<i64>()) {
                out.push((n.to_string(), v));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::initial_values;

    #[test]
    fn scalar_integer_pairs_in_every_grouping() {
        assert_eq!(
            initial_values("data cgitmax / 25 /"),
            [("cgitmax".into(), 25)]
        );
        assert_eq!(
            initial_values("data a, b / 1, -2 /, c / 3 /"),
            [("a".into(), 1), ("b".into(), -2), ("c".into(), 3)]
        );
        assert_eq!(
            initial_values("data x / 1.5d0 /, n / 4 /"),
            [("n".into(), 4)]
        );
        assert!(initial_values("data a / 3*0 /").is_empty());
        assert!(initial_values("data (m(i), i = 1, 2) / 1, 2 /").is_empty());
    }
}
