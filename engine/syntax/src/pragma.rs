//! `!costline:` pragmas: what the user tells costline that the program text cannot,
//! written as comments so compilers ignore them.
//!
//! - `!costline: probability 0.1` on an IF: the probability of its data-dependent
//!   condition (default 1/2, as in ParaScope's estimator).
//! - `!costline: trips 100` on a loop whose trip count cannot be derived (DO WHILE,
//!   DO without control, data-dependent bounds).
//! - `!costline: fixed-form 132` / `free-form`: the file's form (read by
//!   `crate::source::SourceForm::detect`; checked here).
//!
//! A pragma applies to the statement on its line, or, alone on its line, to the next
//! statement.

use crate::diagnostics::Diagnostic;
use crate::ir::PragmaKind;
use crate::span::Span;
use costline_symbolic::Rational;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pragma {
    /// The comment, from `!` to the end of the line.
    pub span: Span,
    pub kind: PragmaKind,
}

/// Finds the pragmas in `text` (one unit's text); malformed ones are warnings.
pub fn find_pragmas(text: &str) -> (Vec<Pragma>, Vec<Diagnostic>) {
    let mut pragmas = Vec::new();
    let mut diagnostics = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some((start, body)) = pragma_body(line) {
            let line_text = line.trim_end_matches(['\n', '\r']);
            let span = Span::new(offset + start, offset + line_text.len());
            match parse(body) {
                Ok(Some(kind)) => pragmas.push(Pragma { span, kind }),
                Ok(None) => {}
                Err(msg) => diagnostics.push(Diagnostic::warning(span, "pragma", msg)),
            }
        }
        offset += line.len();
    }
    (pragmas, diagnostics)
}

/// The offset of the comment and the text after `costline:`, if the line has a
/// `!costline:` comment (outside character literals).
fn pragma_body(line: &str) -> Option<(usize, &str)> {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '!') => {
                let rest = line[i + 1..].trim_start();
                let lower = rest.get(..9).map(str::to_ascii_lowercase);
                return (lower.as_deref() == Some("costline:")).then(|| (i, rest[9..].trim()));
            }
            _ => {}
        }
    }
    None
}

/// A statement pragma; `None` for the file pragmas `fixed-form [N]` and `free-form`,
/// which `crate::source::SourceForm::detect` reads.
fn parse(body: &str) -> Result<Option<PragmaKind>, String> {
    let mut words = body.split_whitespace();
    let key = words.next().unwrap_or("").to_ascii_lowercase();
    let value = words.next();
    match (key.as_str(), value) {
        ("free-form", None) => return Ok(None),
        ("fixed-form", None) => return Ok(None),
        ("fixed-form", Some(n)) => {
            return match n.parse::<usize>() {
                Ok(72..=1024) => Ok(None),
                _ => Err(format!(
                    "the fixed-form line length must be a whole number from 72 to 1024, not `{n}`"
                )),
            };
        }
        _ => {}
    }
    if let Some(extra) = words.next() {
        return Err(format!("unexpected `{extra}` after the pragma's value"));
    }
    match (key.as_str(), value) {
        ("probability", Some(v)) => parse_probability(v)
            .map(|p| Some(PragmaKind::Probability(p)))
            .ok_or_else(|| format!("probability must be a number from 0 to 1, not `{v}`")),
        ("trips", Some(v)) => v
            .parse::<u64>()
            .map(|t| Some(PragmaKind::Trips(t)))
            .map_err(|_| format!("trips must be a whole number, not `{v}`")),
        ("probability" | "trips", None) => Err(format!("`{key}` needs a value")),
        _ => Err(format!(
            "unknown costline pragma `{key}` (known: `probability P`, `trips N`, `fixed-form [N]`, `free-form`)"
        )),
    }
}

/// A decimal in [0, 1] as an exact rational (`0.125` is 1/8).
fn parse_probability(v: &str) -> Option<Rational> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if int.is_empty() && frac.is_empty()
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    if frac.len() > 18 {
        return None;
    }
    let den = 10i128.pow(frac.len() as u32);
    let num = format!("{int}{frac}").parse::<i128>().ok()?;
    let p = Rational::new(num, den)?;
    (p <= Rational::ONE).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pragmas_on_their_own_line_and_trailing() {
        let text = "  !costline: trips 50\n  do while (x > 0)\n  if (a(i) > 0) then ! costline: Probability 0.1\n  print *, '!costline: trips 3'\n";
        let (p, d) = find_pragmas(text);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].kind, PragmaKind::Trips(50));
        assert_eq!(
            p[1].kind,
            PragmaKind::Probability(Rational::new(1, 10).unwrap())
        );
        assert_eq!(
            &text[p[1].span.start as usize..p[1].span.end as usize],
            "! costline: Probability 0.1"
        );
    }

    #[test]
    fn malformed_pragmas_are_warnings() {
        let (p, d) =
            find_pragmas("!costline: probability 1.5\n!costline: trip 3\n!costline: trips -1\n");
        assert!(p.is_empty());
        let msgs: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "probability must be a number from 0 to 1, not `1.5`",
                "unknown costline pragma `trip` (known: `probability P`, `trips N`, `fixed-form [N]`, `free-form`)",
                "trips must be a whole number, not `-1`",
            ]
        );
    }
}
