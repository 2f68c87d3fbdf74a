//! Text edits that rewrite a DISTRIBUTE's format list and a PROCESSORS shape in place,
//! keeping the user's case, spacing and continuation lines outside the parentheses.

use costline_syntax::span::Span;

/// The parenthesized group that starts at the first `(` at or after `from` in `text`,
/// before `limit`: its span from `(` to the matching `)` inclusive. Only blanks,
/// line breaks, continuation marks (`&`) and fixed-form continuation sentinels
/// (`!HPF$+`, `CHPF$ ` in columns 1–6) may come before the `(`.
pub fn paren_group(text: &str, from: usize, limit: usize) -> Option<Span> {
    let bytes = text.as_bytes();
    let limit = limit.min(bytes.len());
    let mut i = from;
    let mut line_start = false;
    while i < limit && bytes[i] != b'(' {
        match bytes[i] {
            b'\n' => line_start = true,
            b' ' | b'\t' | b'\r' | b'&' => {}
            // A continuation line's sentinel (`!HPF$`, `CHPF$`, `*HPF$`, ...) and mark.
            _ if line_start => {
                let rest = text.get(i..)?;
                let len = rest.find('$').filter(|k| *k <= 5)? + 1;
                i += len;
                if matches!(bytes.get(i), Some(b'+' | b'&' | b'$')) {
                    i += 1;
                }
                line_start = false;
                continue;
            }
            _ => return None,
        }
        i += 1;
    }
    if i >= limit {
        return None;
    }
    let start = i;
    let mut depth = 0usize;
    while i < limit {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(Span::new(start, i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The span of the word `word` (case-insensitive, not inside a longer name) in `text`
/// between `from` and `limit`.
pub fn keyword(text: &str, word: &str, from: usize, limit: usize) -> Option<Span> {
    let hay = text.get(from..limit.min(text.len()))?.to_ascii_lowercase();
    let is_name = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut at = 0;
    while let Some(k) = hay[at..].find(word) {
        let s = at + k;
        let e = s + word.len();
        let before = s == 0 || !is_name(hay.as_bytes()[s - 1]);
        let after = e == hay.len() || !is_name(hay.as_bytes()[e]);
        if before && after {
            return Some(Span::new(from + s, from + e));
        }
        at = e;
    }
    None
}

/// How the user writes a list: (upper case?, a blank after commas?), from the text of
/// the group being replaced.
pub fn style(written: &str) -> (bool, bool) {
    let upper = !written.chars().any(|c| c.is_ascii_lowercase());
    let spaced = match written.find(',') {
        Some(k) => written[k + 1..].starts_with([' ', '\n', '\r', '\t']),
        None => true,
    };
    (upper, spaced)
}
