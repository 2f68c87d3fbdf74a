//! The conditions of `#if` and `#elif`, evaluated as the C preprocessor does: `defined
//! NAME` and `defined(NAME)`, object-like macros replaced by their values (again and
//! again, a macro never inside its own expansion), every identifier left 0, integer
//! arithmetic in the widest signed type (`+ - * / % << >> & | ^ ~ !`, comparisons, `&&
//! ||` and `?:` evaluating only the operand they need), decimal, octal, hexadecimal and
//! character constants. What cpp would reject, and function-like macros (which are not
//! expanded), is an error saying why.

use std::collections::{BTreeMap, BTreeSet};

/// The macros in force at a line: object-like ones with their values, and the names
/// of function-like ones (defined, but not expanded).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Macros {
    pub object: BTreeMap<String, String>,
    pub function: BTreeSet<String>,
}

impl Macros {
    pub fn is_defined(&self, name: &str) -> bool {
        self.object.contains_key(name) || self.function.contains(name)
    }

    pub fn undefine(&mut self, name: &str) {
        self.object.remove(name);
        self.function.remove(name);
    }
}

/// How deeply macros may expand inside one another.
const MAX_EXPANSION: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Number(i64),
    Ident(String),
    Punct(&'static str),
}

/// The operators, longest first (so that `<<` is not read as `<`).
const PUNCTS: &[&str] = &[
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "+", "-", "*", "/", "%", "<", ">",
    "&", "|", "^", "~", "!", "?", ":", ",",
];

/// The value of the condition `text` under `macros`, or why it has none.
pub(crate) fn evaluate(text: &str, macros: &Macros) -> Result<i64, String> {
    let tokens = tokenize(&strip_comments(text))?;
    let tokens = expand(tokens, macros, &mut Vec::new(), 0)?;
    if tokens.is_empty() {
        return Err("the condition is empty".into());
    }
    let mut p = Parser { tokens, at: 0 };
    let v = p.conditional(true)?;
    match p.tokens.get(p.at) {
        None => Ok(v),
        Some(t) => Err(format!("unexpected `{}`", shown(t))),
    }
}

/// `text` without `/* */` and `//` comments (a comment is a space).
pub(crate) fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let block = rest.find("/*");
        let line = rest.find("//");
        match (block, line) {
            (Some(b), l) if l.is_none_or(|l| b < l) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                match rest[b + 2..].find("*/") {
                    Some(e) => rest = &rest[b + 2 + e + 2..],
                    None => return out,
                }
            }
            (_, Some(l)) => {
                out.push_str(&rest[..l]);
                return out;
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

fn shown(t: &Token) -> String {
    match t {
        Token::Number(n) => n.to_string(),
        Token::Ident(s) => s.clone(),
        Token::Punct(p) => (*p).to_string(),
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token::Number(number(&text[start..i])?));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token::Ident(text[start..i].to_string()));
        } else if c == b'\'' {
            let (value, len) = character(&text[i..])?;
            out.push(Token::Number(value));
            i += len;
        } else if let Some(p) = PUNCTS.iter().find(|p| text[i..].starts_with(**p)) {
            out.push(Token::Punct(p));
            i += p.len();
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(format!("`{ch}` has no meaning in a condition"));
        }
    }
    Ok(out)
}

/// An integer constant: decimal, octal (`017`) or hexadecimal (`0x1F`), with any
/// `u`/`l` suffixes.
fn number(word: &str) -> Result<i64, String> {
    let digits = word.trim_end_matches(['u', 'U', 'l', 'L']);
    let parsed = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        u64::from_str_radix(hex, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8)
    } else {
        digits.parse::<u64>()
    };
    // Values past i64::MAX wrap, as intmax_t arithmetic on unsigned constants does.
    parsed
        .map(|v| v as i64)
        .map_err(|_| format!("`{word}` is not an integer constant"))
}

/// A character constant (`'a'`, `'\n'`) at the start of `text`: its value and length.
fn character(text: &str) -> Result<(i64, usize), String> {
    let mut chars = text.char_indices().skip(1);
    let (value, next) = match chars.next() {
        Some((_, '\\')) => match chars.next() {
            Some((k, e)) => {
                let v = match e {
                    'n' => 10,
                    't' => 9,
                    'r' => 13,
                    '0' => 0,
                    other => other as i64,
                };
                (v, k + e.len_utf8())
            }
            None => return Err("an unterminated character constant".into()),
        },
        Some((k, c)) if c != '\'' => (c as i64, k + c.len_utf8()),
        _ => return Err("an empty character constant".into()),
    };
    if text[next..].starts_with('\'') {
        Ok((value, next + 1))
    } else {
        Err("an unterminated character constant".into())
    }
}

/// The tokens with `defined` answered and object-like macros replaced; `expanding`
/// holds the macros being expanded (none is expanded inside itself).
fn expand(
    tokens: Vec<Token>,
    macros: &Macros,
    expanding: &mut Vec<String>,
    depth: usize,
) -> Result<Vec<Token>, String> {
    if depth > MAX_EXPANSION {
        return Err(format!("macros nest deeper than {MAX_EXPANSION} levels"));
    }
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Ident(name) if name == "defined" => {
                let (target, used) = match (tokens.get(i + 1), tokens.get(i + 2), tokens.get(i + 3))
                {
                    (Some(Token::Punct("(")), Some(Token::Ident(n)), Some(Token::Punct(")"))) => {
                        (n, 4)
                    }
                    (Some(Token::Ident(n)), _, _) => (n, 2),
                    _ => return Err("`defined` needs a macro name".into()),
                };
                out.push(Token::Number(i64::from(macros.is_defined(target))));
                i += used;
            }
            Token::Ident(name) if !expanding.contains(name) => {
                if let Some(value) = macros.object.get(name) {
                    let replacement = tokenize(&strip_comments(value))
                        .map_err(|e| format!("the value of `{name}`: {e}"))?;
                    expanding.push(name.clone());
                    let expanded = expand(replacement, macros, expanding, depth + 1)?;
                    expanding.pop();
                    out.extend(expanded);
                } else if macros.function.contains(name)
                    && tokens.get(i + 1) == Some(&Token::Punct("("))
                {
                    return Err(format!(
                        "`{name}(...)` is a function-like macro, which costline does not expand"
                    ));
                } else {
                    // Not a macro: cpp reads it as 0.
                    out.push(Token::Number(0));
                }
                i += 1;
            }
            Token::Ident(_) => {
                out.push(Token::Number(0));
                i += 1;
            }
            t => {
                out.push(t.clone());
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Recursive descent over the expanded tokens; `live` is false in an operand that is
/// not evaluated (`0 && 1/0` is 0, as in cpp).
struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

/// Binary operators by precedence, loosest first.
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Token::Punct(q)) if *q == p) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn conditional(&mut self, live: bool) -> Result<i64, String> {
        let c = self.binary(0, live)?;
        if !self.eat("?") {
            return Ok(c);
        }
        let a = self.conditional(live && c != 0)?;
        if !self.eat(":") {
            return Err("`?` without its `:`".into());
        }
        let b = self.conditional(live && c == 0)?;
        Ok(if c != 0 { a } else { b })
    }

    fn binary(&mut self, level: usize, live: bool) -> Result<i64, String> {
        if level == LEVELS.len() {
            return self.unary(live);
        }
        let mut left = self.binary(level + 1, live)?;
        loop {
            let op = match self.peek() {
                Some(Token::Punct(p)) if LEVELS[level].contains(p) => *p,
                _ => return Ok(left),
            };
            self.at += 1;
            // The right operand of `&&` and `||` is evaluated only when it decides.
            let right_live = match op {
                "&&" => live && left != 0,
                "||" => live && left == 0,
                _ => live,
            };
            let right = self.binary(level + 1, right_live)?;
            left = apply(op, left, right, right_live)?;
        }
    }

    fn unary(&mut self, live: bool) -> Result<i64, String> {
        if self.eat("-") {
            return Ok(self.unary(live)?.wrapping_neg());
        }
        if self.eat("+") {
            return self.unary(live);
        }
        if self.eat("!") {
            return Ok(i64::from(self.unary(live)? == 0));
        }
        if self.eat("~") {
            return Ok(!self.unary(live)?);
        }
        self.primary(live)
    }

    fn primary(&mut self, live: bool) -> Result<i64, String> {
        match self.peek().cloned() {
            Some(Token::Number(n)) => {
                self.at += 1;
                Ok(n)
            }
            Some(Token::Punct("(")) => {
                self.at += 1;
                let v = self.conditional(live)?;
                if self.eat(")") {
                    Ok(v)
                } else {
                    Err("a `(` without its `)`".into())
                }
            }
            Some(t) => Err(format!("unexpected `{}`", shown(&t))),
            None => Err("the condition ends early".into()),
        }
    }
}

/// `left op right`; division by zero is an error only where it is evaluated.
fn apply(op: &str, l: i64, r: i64, live: bool) -> Result<i64, String> {
    let b = |x: bool| i64::from(x);
    Ok(match op {
        "||" => b(l != 0 || r != 0),
        "&&" => b(l != 0 && r != 0),
        "|" => l | r,
        "^" => l ^ r,
        "&" => l & r,
        "==" => b(l == r),
        "!=" => b(l != r),
        "<" => b(l < r),
        ">" => b(l > r),
        "<=" => b(l <= r),
        ">=" => b(l >= r),
        "<<" => l.wrapping_shl(r.clamp(0, 63) as u32),
        ">>" => l.wrapping_shr(r.clamp(0, 63) as u32),
        "+" => l.wrapping_add(r),
        "-" => l.wrapping_sub(r),
        "*" => l.wrapping_mul(r),
        "/" | "%" if r == 0 => {
            if live {
                return Err("division by zero".into());
            }
            0
        }
        "/" => l.wrapping_div(r),
        "%" => l.wrapping_rem(r),
        _ => unreachable!("an operator of LEVELS"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn macros(object: &[(&str, &str)], function: &[&str]) -> Macros {
        Macros {
            object: object
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            function: function.iter().map(|f| f.to_string()).collect(),
        }
    }

    #[test]
    fn conditions_evaluate_as_cpp_evaluates_them() {
        let m = macros(
            &[
                ("MPI", "1"),
                ("NX", "(2 * HALF)"),
                ("HALF", "50"),
                ("LOOP", "LOOP + 1"),
                ("EMPTY", ""),
            ],
            &["F"],
        );
        let cases: &[(&str, i64)] = &[
            ("0", 0),
            ("1 /* on */", 1),
            ("defined MPI", 1),
            ("defined(MPI) && !defined(OMP)", 1),
            ("defined ( F )", 1),
            ("UNDEFINED", 0),
            ("UNDEFINED == 0", 1),
            ("NX == 100", 1),
            ("NX > 64 ? 2 : 3", 2),
            ("0x10 + 010 + 'A'", 16 + 8 + 65),
            ("1 << 4 | 1", 17),
            ("-3 / 2 * 2 + -3 % 2", -3),
            ("~0 == -1", 1),
            ("0 && 1 / 0", 0),
            ("1 || 1 / 0", 1),
            ("1 ? 2 : 1 / 0", 2),
            ("10UL > 2L", 1),
            ("LOOP == 1", 1),
            ("EMPTY + 1", 1),
            ("2 > 1 == 1", 1),
        ];
        for (text, want) in cases {
            assert_eq!(evaluate(text, &m), Ok(*want), "#if {text}");
        }
    }

    #[test]
    fn what_cpp_rejects_is_an_error_saying_why() {
        let m = macros(&[("BAD", "1 +")], &["F"]);
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("1 +", "ends early"),
            ("(1", "without its `)`"),
            ("1 ? 2", "without its `:`"),
            ("1 / 0", "division by zero"),
            ("F(1)", "function-like macro"),
            ("defined", "needs a macro name"),
            ("BAD", "ends early"),
            ("1 2", "unexpected `2`"),
            ("08", "not an integer constant"),
            ("$", "no meaning"),
            ("'ab'", "unterminated"),
        ];
        for (text, why) in cases {
            let e = evaluate(text, &m).unwrap_err();
            assert!(e.contains(why), "#if {text}: {e}");
        }
    }
}
