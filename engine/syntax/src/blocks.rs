//! Block structure check: every DO, IF, SELECT CASE, WHERE, FORALL, ASSOCIATE and
//! BLOCK construct is closed by its own END, labeled DO loops by their labeled
//! statement. tree-sitter recovers from such mistakes by wrapping the whole unit in an
//! ERROR node, which says nothing useful; this check says which construct is open.

use super::statements::{LogicalStmt, logical_statements};
use crate::diagnostics::Diagnostic;
use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Construct {
    Do,
    If,
    Select,
    Where,
    Forall,
    Associate,
    Block,
}

impl Construct {
    fn name(self) -> &'static str {
        match self {
            Construct::Do => "DO loop",
            Construct::If => "IF construct",
            Construct::Select => "SELECT construct",
            Construct::Where => "WHERE construct",
            Construct::Forall => "FORALL construct",
            Construct::Associate => "ASSOCIATE construct",
            Construct::Block => "BLOCK construct",
        }
    }

    fn end(self) -> &'static str {
        match self {
            Construct::Do => "END DO",
            Construct::If => "END IF",
            Construct::Select => "END SELECT",
            Construct::Where => "END WHERE",
            Construct::Forall => "END FORALL",
            Construct::Associate => "END ASSOCIATE",
            Construct::Block => "END BLOCK",
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Role {
    Open(Construct),
    /// `DO 10 ...`: closed by the statement labeled 10.
    OpenLabeledDo(u32),
    /// ELSE, ELSE IF, CASE, ELSEWHERE: valid only directly inside their construct.
    Middle(Construct, &'static str),
    Close(Construct),
    Other,
}

struct Open {
    construct: Construct,
    label: Option<u32>,
    span: Span,
}

/// Checks the block structure of one unit's text (nested units blanked). Spans are
/// offsets into `text`.
pub fn check_blocks(text: &str) -> Vec<Diagnostic> {
    let mut stack: Vec<Open> = Vec::new();
    let mut out = Vec::new();
    for stmt in logical_statements(text) {
        let span = first_line(text, stmt.start, stmt.line_end);
        let (label, head) = split_label(&stmt.head);
        match role(head, stmt.after_group.as_deref()) {
            Role::Open(construct) => stack.push(Open {
                construct,
                label: None,
                span,
            }),
            Role::OpenLabeledDo(l) => stack.push(Open {
                construct: Construct::Do,
                label: Some(l),
                span,
            }),
            Role::Middle(construct, what) => {
                if stack.last().is_none_or(|o| o.construct != construct) {
                    out.push(Diagnostic::error(
                        span,
                        "syntax",
                        format!("{what} outside a {}", construct.name()),
                    ));
                }
            }
            Role::Close(construct) => close(&mut stack, construct, span, &mut out),
            Role::Other => {}
        }
        if let Some(l) = label {
            // The labeled statement ends every DO waiting for its label.
            while stack.iter().any(|o| o.label == Some(l)) {
                let top = stack.pop().expect("non-empty: a frame has this label");
                if top.label != Some(l) {
                    out.push(unclosed(&top, &format!("the end of DO loop {l}")));
                }
            }
        }
    }
    for open in stack.iter().rev() {
        out.push(unclosed(open, "the end of the unit"));
    }
    out
}

fn close(stack: &mut Vec<Open>, construct: Construct, span: Span, out: &mut Vec<Diagnostic>) {
    // `END DO` may close a labeled DO too (`DO 10 ... 10 END DO`).
    let Some(depth) = stack.iter().rposition(|o| o.construct == construct) else {
        out.push(Diagnostic::error(
            span,
            "syntax",
            format!("{} without an open {}", construct.end(), construct.name()),
        ));
        return;
    };
    while stack.len() > depth + 1 {
        let inner = stack.pop().expect("longer than depth + 1");
        out.push(unclosed(&inner, construct.end()));
    }
    stack.pop();
}

fn unclosed(open: &Open, before: &str) -> Diagnostic {
    let expected = match open.label {
        Some(l) => format!("a statement labeled {l}"),
        None => open.construct.end().to_string(),
    };
    Diagnostic::error(
        open.span,
        "syntax",
        format!(
            "{} is not closed: expected {expected} before {before}",
            open.construct.name()
        ),
    )
}

/// The first line of a statement, without trailing blanks.
fn first_line(text: &str, start: usize, end: usize) -> Span {
    let s = &text[start..end];
    let line = s.split(['\n', '\r', ';']).next().unwrap_or("");
    let line = line.split('!').next().unwrap_or(line).trim_end();
    Span::new(start, start + line.len())
}

/// A statement label, and the head without it and without a construct name (`outer:`).
fn split_label(head: &str) -> (Option<u32>, &str) {
    let (label, rest) = super::statements::split_label(head);
    (label, strip_construct_name(rest))
}

/// Whether a statement opens, continues or closes a construct.
pub fn is_construct_statement(stmt: &LogicalStmt) -> bool {
    let (_, head) = split_label(&stmt.head);
    role(head, stmt.after_group.as_deref()) != Role::Other
}

fn strip_construct_name(head: &str) -> &str {
    let name_len = head
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(head.len());
    let after = head[name_len..].trim_start();
    if name_len > 0 && after.starts_with(':') && !after.starts_with("::") {
        after[1..].trim_start()
    } else {
        head
    }
}

/// The first word and what follows it.
fn word(head: &str) -> (&str, &str) {
    let len = head
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(head.len());
    (&head[..len], head[len..].trim_start())
}

/// The role of a statement, from its head (label and construct name removed) and what
/// follows its first parenthesized group.
fn role(head: &str, after_group: Option<&str>) -> Role {
    let (first, rest) = word(head);
    match first {
        "do" => {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 {
                return rest[..digits]
                    .parse()
                    .map_or(Role::Other, Role::OpenLabeledDo);
            }
            let (next, after) = word(rest);
            let control = !next.is_empty() && after.starts_with('=') && !after.starts_with("==");
            if rest.is_empty()
                || rest.starts_with(',')
                || next == "while"
                || next == "concurrent"
                || control
            {
                Role::Open(Construct::Do)
            } else {
                Role::Other
            }
        }
        "if" if rest.starts_with('(') && after_group == Some("then") => Role::Open(Construct::If),
        "else" => {
            let (next, _) = word(rest);
            match next {
                "where" => Role::Middle(Construct::Where, "ELSEWHERE"),
                "if" => Role::Middle(Construct::If, "ELSE IF"),
                _ => Role::Middle(Construct::If, "ELSE"),
            }
        }
        "elseif" => Role::Middle(Construct::If, "ELSE IF"),
        "elsewhere" => Role::Middle(Construct::Where, "ELSEWHERE"),
        // `select (k) = ...` assigns to an array named SELECT.
        "select" if matches!(word(rest).0, "case" | "type" | "rank") => {
            Role::Open(Construct::Select)
        }
        "selectcase" | "selecttype" | "selectrank" if rest.starts_with('(') => {
            Role::Open(Construct::Select)
        }
        "case" if rest.starts_with('(') || rest == "default" => {
            Role::Middle(Construct::Select, "CASE")
        }
        "type" | "class" if word(rest).0 == "is" || rest == "default" => {
            Role::Middle(Construct::Select, "TYPE IS")
        }
        "where" if rest.starts_with('(') && after_group == Some("") => Role::Open(Construct::Where),
        "forall" if rest.starts_with('(') && after_group == Some("") => {
            Role::Open(Construct::Forall)
        }
        "associate" if rest.starts_with('(') => Role::Open(Construct::Associate),
        "block" if rest.is_empty() => Role::Open(Construct::Block),
        "end" => end_role(rest),
        "enddo" => Role::Close(Construct::Do),
        "endif" => Role::Close(Construct::If),
        "endselect" => Role::Close(Construct::Select),
        "endwhere" => Role::Close(Construct::Where),
        "endforall" => Role::Close(Construct::Forall),
        "endassociate" => Role::Close(Construct::Associate),
        "endblock" => Role::Close(Construct::Block),
        _ => Role::Other,
    }
}

fn end_role(rest: &str) -> Role {
    let (next, after) = word(rest);
    match next {
        "do" => Role::Close(Construct::Do),
        "if" => Role::Close(Construct::If),
        "select" => Role::Close(Construct::Select),
        "where" => Role::Close(Construct::Where),
        "forall" => Role::Close(Construct::Forall),
        "associate" => Role::Close(Construct::Associate),
        "block" if !after.starts_with("data") => Role::Close(Construct::Block),
        _ => Role::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    fn check(text: &str, expected: Expect) {
        let out: String = check_blocks(text)
            .iter()
            .map(|d| {
                format!(
                    "{}: {}\n",
                    &text[d.span.start as usize..d.span.end as usize],
                    d.message
                )
            })
            .collect();
        expected.assert_eq(&out);
    }

    #[test]
    fn balanced_constructs_are_silent() {
        check(
            "subroutine s
  outer: do i = 1, n
    if (a(i) > 0) then
      x = 1
    else if (a(i) < 0) then
      x = 2
    else
      x = 3
    end if
    if (x > 2) x = 0
    select case (i)
    case (1)
    case default
    end select
  end do outer
  do 20 j = 1, n
  do 20 k = 1, n
20 a(j) = a(j) + k
  do 30 j = 1, n
30 end do
  where (a > 0)
    a = 1
  elsewhere
    a = 0
  end where
  where (a > 0) a = 2
  forall (i = 1:n) a(i) = i
  do while (x < 1)
  enddo
  do
  end do
end subroutine
",
            expect![""],
        );
    }

    #[test]
    fn unterminated_and_mismatched_constructs() {
        check(
            "program p\n  do i = 1, 10\n    x = 1\nend program\n",
            expect![[r#"
                do i = 1, 10: DO loop is not closed: expected END DO before the end of the unit
            "#]],
        );
        check(
            "subroutine s\n  do i = 1, n\n    if (x > 0) then\n      x = 1\n  end do\nend\n",
            expect![[r#"
                if (x > 0) then: IF construct is not closed: expected END IF before END DO
            "#]],
        );
        check(
            "subroutine s\n  end if\n  else\nend\n",
            expect![[r#"
                end if: END IF without an open IF construct
                else: ELSE outside a IF construct
            "#]],
        );
        check(
            "subroutine s\n  do 10 i = 1, n\n  if (x) then\n10 continue\nend\n",
            expect![[r#"
                if (x) then: IF construct is not closed: expected END IF before the end of DO loop 10
            "#]],
        );
    }
}
