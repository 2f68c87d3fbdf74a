//! What an I/O statement sets at run time: the input items of a READ, and the
//! IOSTAT=, IOMSG= and SIZE= variables of any I/O statement. Read from the statement's
//! lower-case text (tree-sitter-fortran's I/O nodes vary with the statement's form).

use crate::ir::Written;

/// The variables the statement of tree-sitter kind `kind` (lower-case `text`) sets.
pub fn written(kind: &str, text: &str) -> Vec<Written> {
    let text = code(text);
    let mut out = Vec::new();
    if kind == "read_statement" {
        for item in input_items(text) {
            add(&mut out, item_written(item));
        }
    }
    for name in status_variables(text) {
        add(&mut out, vec![Written::Scalar(name)]);
    }
    out
}

fn add(out: &mut Vec<Written>, items: Vec<Written>) {
    for w in items {
        if !out.contains(&w) {
            out.push(w);
        }
    }
}

/// The text before a trailing `!` comment (outside character constants).
fn code(text: &str) -> &str {
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '!') => return &text[..i],
            _ => {}
        }
    }
    text
}

/// The input item list of a READ: after its parenthesized control list
/// (`read (u, fmt) a, b`) or after its format (`read *, a` / `read 10, a`).
fn input_items(text: &str) -> Vec<&str> {
    let Some(rest) = text.trim_start().strip_prefix("read") else {
        return Vec::new();
    };
    let rest = rest.trim_start();
    let items = if rest.starts_with('(') {
        match closing(rest, 0) {
            Some(end) => &rest[end + 1..],
            None => return Vec::new(),
        }
    } else {
        match top_level_commas(rest).first() {
            Some(&comma) => &rest[comma + 1..],
            None => return Vec::new(),
        }
    };
    split_top_level(items)
        .into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// What one input item sets: a name, an element at constant subscripts, or (for an
/// implied DO or a variable subscript) every array it names, with the DO variable.
fn item_written(item: &str) -> Vec<Written> {
    if item.starts_with('(') {
        let inner = item
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .unwrap_or(item);
        let parts = split_top_level(inner);
        let mut out = Vec::new();
        for part in &parts {
            let part = part.trim();
            if let Some((var, _)) = part.split_once('=')
                && is_name(var.trim())
            {
                out.push(Written::Scalar(var.trim().to_string()));
            } else {
                for w in item_written(part) {
                    out.push(match w {
                        Written::Element(a, _) => Written::Array(a),
                        w => w,
                    });
                }
            }
        }
        return out;
    }
    let Some(open) = item.find('(') else {
        return if is_name(item) {
            vec![Written::Scalar(item.to_string())]
        } else {
            Vec::new()
        };
    };
    let name = item[..open].trim();
    if !is_name(name) {
        return Vec::new();
    }
    let subscripts = item[open..]
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .map(|s| {
            split_top_level(s)
                .iter()
                .map(|x| x.trim().parse::<i64>().ok())
                .collect::<Option<Vec<i64>>>()
        });
    match subscripts {
        Some(Some(subs)) if !subs.is_empty() => vec![Written::Element(name.to_string(), subs)],
        _ => vec![Written::Array(name.to_string())],
    }
}

fn is_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The index of the `)` closing the `(` at `open`.
fn closing(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote = None;
    for (i, c) in text.char_indices().skip_while(|(i, _)| *i < open) {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '(') => depth += 1,
            (None, ')') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The indices of the commas outside parentheses and character constants.
fn top_level_commas(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '(') => depth += 1,
            (None, ')') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => out.push(i),
            _ => {}
        }
    }
    out
}

fn split_top_level(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    for comma in top_level_commas(text) {
        out.push(&text[from..comma]);
        from = comma + 1;
    }
    out.push(&text[from..]);
    out
}

/// The variables set through IOSTAT=, IOMSG= and SIZE= specifiers, scalar names only.
fn status_variables(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for spec in ["iostat", "iomsg", "size"] {
        let mut from = 0;
        while let Some(at) = text[from..].find(spec).map(|i| from + i) {
            from = at + spec.len();
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = text[from..].trim_start();
            let Some(value) = rest.strip_prefix('=').filter(|v| !v.starts_with('=')) else {
                continue;
            };
            let value = value.trim_start();
            let name: String = value
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let scalar = !value[name.len()..].trim_start().starts_with('(');
            if !name.is_empty() && scalar && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(kind: &str, text: &str) -> Vec<String> {
        written(kind, text)
            .iter()
            .map(|w| match w {
                Written::Scalar(n) => n.clone(),
                Written::Element(a, s) => format!("{a}{s:?}"),
                Written::Array(a) => format!("{a}(*)"),
            })
            .collect()
    }

    #[test]
    fn read_items_in_every_form() {
        assert_eq!(show("read_statement", "read (2,*) niter"), ["niter"]);
        assert_eq!(
            show(
                "read_statement",
                "read (2, *) grid_points(1), grid_points(2), n"
            ),
            ["grid_points[1]", "grid_points[2]", "n"]
        );
        assert_eq!(show("read_statement", "read *, a, b(i)"), ["a", "b(*)"]);
        assert_eq!(show("read_statement", "read 10, x ! the size"), ["x"]);
        assert_eq!(
            show(
                "read_statement",
                "read(5,'(a)',iostat=ios) (m(i,1), i = 1, 3)"
            ),
            ["m(*)", "i", "ios"]
        );
        assert_eq!(
            show("read_statement", "read (u, fmt='(a,i3)') s(2:3)"),
            ["s(*)"]
        );
    }

    #[test]
    fn status_specifiers_of_any_statement() {
        assert_eq!(
            show("open_statement", "open (unit=2, file='x', iostat=fstatus)"),
            ["fstatus"]
        );
        assert!(show("write_statement", "write (*, *) n, iostat").is_empty());
        assert!(show("write_statement", "write (6, *) iostat2 = 3").is_empty());
    }
}
