//! HPF directives: extraction from comment lines and a real grammar for them.
//!
//! [`parse_directives`] runs three stages: `extract` finds `!HPF$` lines and joins
//! continuations into pieces, `lexer` turns the pieces into tokens with exact spans, and
//! `parser` applies the HPF 2.0 grammar to each directive on its own.

mod extract;
mod lexer;
mod parser;
#[cfg(test)]
mod testing;

use crate::diagnostics::Diagnostic;
use crate::ir::Expr;
use crate::ir::directive::*;
use extract::Piece;

/// Diagnostic code of malformed directives (syntax errors, broken continuations).
pub const CODE_SYNTAX: &str = "hpf-syntax";
/// Diagnostic code of a directive keyword HPF does not define.
pub const CODE_UNKNOWN_DIRECTIVE: &str = "hpf-unknown-directive";
/// Diagnostic code (information) of a valid directive costline does not model.
pub const CODE_UNMODELLED: &str = "hpf-unmodelled";

/// Finds every HPF directive in `text` (free-form Fortran source, possibly a fragment: one
/// program unit) and parses it. Spans in the result are byte offsets into `text`.
///
/// Implements HPF 2.0 rules H201–H202 (directive lines and their continuation) and the
/// directive grammar of HPF 2.0 and its approved extensions (see the `parser` module).
/// Each directive is parsed on its own: a malformed one yields one error and no
/// [`Directive`], never hiding the others. A combined directive yields one [`Directive`]
/// per attribute. Diagnostics come sorted by position.
pub fn parse_directives(text: &str) -> (Vec<Directive>, Vec<Diagnostic>) {
    let (raw, mut diagnostics) = extract::extract(text);
    let mut directives = Vec::new();
    for r in raw {
        match parser::parse_directive(lexer::lex(&r.pieces), r.span.end as usize) {
            Ok(parsed) => {
                directives.extend(
                    parsed
                        .kinds
                        .into_iter()
                        .map(|kind| Directive { span: r.span, kind }),
                );
                diagnostics.extend(parsed.notes);
            }
            Err(d) => diagnostics.push(d),
        }
    }
    diagnostics.sort_by_key(|d| d.span);
    (directives, diagnostics)
}

/// Parses a Fortran expression from `text` (as found in a directive); `base` is the byte
/// offset of `text` in the enclosing source, added to every span.
///
/// Implements Fortran 95 expressions (R701–R723) without character and derived-type
/// operands: integer, real and logical literals, names, `name(args)` with keyword
/// arguments (a [`Call`](crate::ir::Call), or an [`ArrayRef`](crate::ir::ArrayRef) when a
/// subscript is a triplet), parentheses, and the intrinsic operators with Fortran
/// precedence (`**` right-associative; unary `+`/`-` apply to a whole product, so `-a*b`
/// is `-(a*b)`; relational operators do not chain).
pub fn parse_expr(text: &str, base: usize) -> Result<Expr, Diagnostic> {
    let tokens = lexer::lex(&[Piece { offset: base, text }]);
    parser::parse_expression(tokens, base.saturating_add(text.len()))
}

#[cfg(test)]
mod tests {
    use super::testing::{assert_sound, render};
    use super::*;
    use crate::ir::{Arg, BinaryOp, Call, UnaryOp};
    use crate::span::Span;
    use expect_test::expect;
    use proptest::prelude::*;
    use proptest::sample::select;

    #[test]
    fn a_program_unit() {
        let unit = "\
      SUBROUTINE JACOBI(A, B, N)
      INTEGER N
      REAL A(N, N), B(N, N)
!HPF$ PROCESSORS :: PR(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE (*, BLOCK) ONTO PR :: A  ! columns
!HPF$ ALIGN B(I, J) WITH A(I, J)
!HPF$ INDEPENDENT, NEW(I)
      DO J = 2, N - 1
        DO I = 2, N - 1
          B(I, J) = 0.25 * (A(I-1, J) + A(I+1, J) + A(I, J-1) + A(I, J+1))
        END DO
      END DO
      END
";
        expect![[r#"
            4:1-4:47 PROCESSORS pr(number_of_processors())
            5:1-5:41 DISTRIBUTE (*, BLOCK) ONTO pr :: a
            6:1-6:33 ALIGN (i, j) WITH a(i, j) :: b
            7:1-7:26 INDEPENDENT, NEW(i)
        "#]]
        .assert_eq(&render(unit));
    }

    #[test]
    fn empty_and_bare_sentinels_yield_nothing() {
        assert_eq!(parse_directives(""), (Vec::new(), Vec::new()));
        assert_eq!(
            parse_directives("!HPF$\n!HPF$   ! only a comment\n"),
            (Vec::new(), Vec::new())
        );
    }

    /// Pieces of directive syntax, so random input often gets deep into the grammar.
    const VOCABULARY: [&str; 48] = [
        "!HPF$ ",
        "!hpf$",
        "!HPF$+",
        "!HPF$&",
        "\n",
        "\r\n",
        " ",
        "&",
        "!",
        "(",
        ")",
        ",",
        ":",
        "::",
        "*",
        "**",
        "/",
        "+",
        "-",
        "=",
        "'",
        "\"",
        ".",
        "PROCESSORS",
        "TEMPLATE",
        "DISTRIBUTE",
        "REDISTRIBUTE",
        "ALIGN",
        "REALIGN",
        "WITH",
        "ONTO",
        "BLOCK",
        "CYCLIC",
        "GEN_BLOCK",
        "INDEPENDENT",
        "NEW",
        "REDUCTION",
        "DYNAMIC",
        "SEQUENCE",
        "NO",
        "END",
        "ON",
        "DIMENSION",
        "A",
        "n",
        "42",
        "é",
        "😀",
    ];

    fn vocabulary_text() -> impl Strategy<Value = String> {
        prop::collection::vec(select(&VOCABULARY[..]), 0..80).prop_map(|words| words.concat())
    }

    fn strip_spans(e: Expr) -> Expr {
        match e {
            Expr::Call(c) => Expr::Call(Call {
                span: Span::default(),
                args: c
                    .args
                    .into_iter()
                    .map(|a| Arg {
                        keyword: a.keyword,
                        value: strip_spans(a.value),
                    })
                    .collect(),
                ..c
            }),
            Expr::Unary(op, e) => Expr::Unary(op, Box::new(strip_spans(*e))),
            Expr::Binary(op, a, b) => Expr::binary(op, strip_spans(*a), strip_spans(*b)),
            other => other,
        }
    }

    fn arithmetic() -> impl Strategy<Value = Expr> {
        let leaf = prop_oneof![
            (0i64..1000).prop_map(Expr::Int),
            select(&["1.5", "2.0d0", ".5e-3", "1.e3"][..]).prop_map(|r| Expr::Real(r.into())),
            select(&["i", "n", "np", "x_1"][..]).prop_map(Expr::name),
        ];
        leaf.prop_recursive(5, 48, 3, |inner| {
            use BinaryOp::*;
            prop_oneof![
                (
                    select(&[Add, Sub, Mul, Div, Pow][..]),
                    inner.clone(),
                    inner.clone()
                )
                    .prop_map(|(op, a, b)| Expr::binary(op, a, b)),
                (select(&[UnaryOp::Neg, UnaryOp::Plus][..]), inner.clone())
                    .prop_map(|(op, e)| Expr::Unary(op, Box::new(e))),
                (
                    select(&["size", "number_of_processors"][..]),
                    prop::collection::vec((prop::option::of(Just("dim")), inner), 0..3)
                )
                    .prop_map(|(name, args)| Expr::Call(Call {
                        name: name.into(),
                        args: args
                            .into_iter()
                            .map(|(k, value)| Arg {
                                keyword: k.map(Into::into),
                                value,
                            })
                            .collect(),
                        span: Span::default(),
                    })),
            ]
        })
    }

    fn logical() -> impl Strategy<Value = Expr> {
        use BinaryOp::*;
        let relation = (
            select(&[Eq, Ne, Lt, Le, Gt, Ge][..]),
            arithmetic(),
            arithmetic(),
        )
            .prop_map(|(op, a, b)| Expr::binary(op, a, b));
        let leaf = prop_oneof![relation, any::<bool>().prop_map(Expr::Logical)];
        leaf.prop_recursive(3, 16, 2, |inner| {
            prop_oneof![
                (
                    select(&[And, Or, Eqv, Neqv][..]),
                    inner.clone(),
                    inner.clone()
                )
                    .prop_map(|(op, a, b)| Expr::binary(op, a, b)),
                inner.prop_map(|e| Expr::Unary(UnaryOp::Not, Box::new(e))),
            ]
        })
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics_and_spans_are_sound(text in any::<String>()) {
            let (directives, diagnostics) = parse_directives(&text);
            assert_sound(&text, &directives, &diagnostics);
        }

        #[test]
        fn directive_like_text_never_panics_and_spans_are_sound(text in vocabulary_text()) {
            let (directives, diagnostics) = parse_directives(&text);
            assert_sound(&text, &directives, &diagnostics);
        }

        #[test]
        fn parse_expr_spans_stay_in_range(text in vocabulary_text(), base in 0usize..1000) {
            if let Err(d) = parse_expr(&text, base) {
                let (start, end) = (d.span.start as usize, d.span.end as usize);
                prop_assert!(base <= start && start <= end && end <= base + text.len());
                prop_assert!(text.is_char_boundary(start - base) && text.is_char_boundary(end - base));
            }
        }

        #[test]
        fn printed_expressions_parse_back(e in prop_oneof![arithmetic(), logical()]) {
            let printed = e.to_string();
            let parsed = parse_expr(&printed, 0).map(strip_spans);
            prop_assert_eq!(parsed, Ok(e), "printed as {}", printed);
        }
    }
}
