use super::*;
use crate::ir::pretty::render;
use crate::ir::{Arg, Call};
use expect_test::{Expect, expect};
use std::collections::HashMap;

struct Decls(HashMap<String, Vec<Dim>>);

impl Shapes for Decls {
    fn dims(&self, name: &str) -> Option<&[Dim]> {
        self.0.get(name).map(Vec::as_slice)
    }
}

fn n(s: &str) -> Expr {
    Expr::name(s)
}

fn dim(lo: Option<Expr>, hi: Expr) -> Dim {
    Dim {
        lower: lo,
        upper: Bound::Explicit(hi),
    }
}

/// a(n), b(0:n+1), x(n, m), idx(k)
fn decls() -> Decls {
    let np1 = Expr::binary(BinaryOp::Add, n("n"), Expr::Int(1));
    Decls(HashMap::from([
        ("a".into(), vec![dim(None, n("n"))]),
        ("b".into(), vec![dim(Some(Expr::Int(0)), np1)]),
        ("x".into(), vec![dim(None, n("n")), dim(None, n("m"))]),
        ("idx".into(), vec![dim(None, n("k"))]),
        (
            "w".into(),
            vec![Dim {
                lower: None,
                upper: Bound::Deferred,
            }],
        ),
    ]))
}

fn aref(name: &str, subs: Vec<Subscript>) -> ArrayRef {
    ArrayRef {
        name: name.into(),
        subscripts: subs,
        span: Span::default(),
    }
}

fn whole(name: &str) -> Expr {
    Expr::Array(aref(name, vec![]))
}

fn range(lo: Option<Expr>, hi: Option<Expr>, st: Option<Expr>) -> Subscript {
    Subscript::Range(Triplet {
        lower: lo,
        upper: hi,
        stride: st,
    })
}

fn idx(e: Expr) -> Subscript {
    Subscript::Index(e)
}

fn check(lhs: ArrayRef, rhs: Expr, mask: Option<Expr>, expected: Expect) {
    let out = match scalarize(
        &lhs,
        &rhs,
        mask.as_ref(),
        LoopOrigin::ArraySyntax,
        Span::default(),
        &decls(),
    ) {
        Ok(s) => render(&[s]),
        Err(e) => format!("error: {e}\n"),
    };
    expected.assert_eq(&out);
}

#[test]
fn shifted_sections() {
    // a(2:n) = a(1:n-1) + b(1:n-1)
    let nm1 = Expr::binary(BinaryOp::Sub, n("n"), Expr::Int(1));
    let rhs = Expr::binary(
        BinaryOp::Add,
        Expr::Array(aref(
            "a",
            vec![range(Some(Expr::Int(1)), Some(nm1.clone()), None)],
        )),
        Expr::Array(aref("b", vec![range(Some(Expr::Int(1)), Some(nm1), None)])),
    );
    check(
        aref("a", vec![range(Some(Expr::Int(2)), Some(n("n")), None)]),
        rhs,
        None,
        expect![[r#"
            do $1 = 2, n  [array]
              a($1) = a($1 - 1) + b($1 - 1)
            end do
        "#]],
    );
}

#[test]
fn whole_arrays_use_declared_bounds_first_dimension_innermost() {
    check(
        aref("x", vec![]),
        Expr::binary(BinaryOp::Mul, Expr::Real("2.0".into()), whole("x")),
        None,
        expect![[r#"
            do $2 = 1, m  [array]
              do $1 = 1, n  [array]
                x($1, $2) = 2.0*x($1, $2)
              end do
            end do
        "#]],
    );
    // b = 0 over b(0:n+1)
    check(
        aref("b", vec![]),
        Expr::Int(0),
        None,
        expect![[r#"
            do $1 = 0, n + 1  [array]
              b($1) = 0
            end do
        "#]],
    );
}

#[test]
fn strides_and_fixed_subscripts() {
    // x(1:n:2, j) = a(1:n/2+...) → use a(1:k) with unit stride against a stride-2 LHS.
    check(
        aref(
            "x",
            vec![
                range(Some(Expr::Int(1)), Some(n("n")), Some(Expr::Int(2))),
                idx(n("j")),
            ],
        ),
        Expr::Array(aref(
            "b",
            vec![range(Some(Expr::Int(0)), Some(n("k")), None)],
        )),
        None,
        expect![[r#"
            do $1 = 1, n, 2  [array]
              x($1, j) = b(($1 - 1)/2)
            end do
        "#]],
    );
    // Equal strides map offset for offset.
    check(
        aref(
            "a",
            vec![range(Some(Expr::Int(1)), Some(n("n")), Some(Expr::Int(2)))],
        ),
        Expr::Array(aref(
            "b",
            vec![range(Some(Expr::Int(2)), None, Some(Expr::Int(2)))],
        )),
        None,
        expect![[r#"
            do $1 = 1, n, 2  [array]
              a($1) = b($1 + 1)
            end do
        "#]],
    );
}

#[test]
fn elemental_intrinsics_are_scalarized_transformational_ones_are_not() {
    let sqrt = Expr::Call(Call {
        name: "sqrt".into(),
        args: vec![Arg {
            keyword: None,
            value: whole("a"),
        }],
        span: Span::default(),
    });
    let sum = Expr::Call(Call {
        name: "sum".into(),
        args: vec![Arg {
            keyword: None,
            value: whole("a"),
        }],
        span: Span::default(),
    });
    check(
        aref("a", vec![]),
        Expr::binary(BinaryOp::Div, sqrt, sum),
        None,
        expect![[r#"
            do $1 = 1, n  [array]
              a($1) = sqrt(a($1))/sum(a)
            end do
        "#]],
    );
}

#[test]
fn where_mask_is_scalarized_with_the_assignment() {
    let mask = Expr::binary(BinaryOp::Gt, whole("a"), Expr::Int(0));
    check(
        aref("a", vec![]),
        Expr::binary(BinaryOp::Div, Expr::Real("1.0".into()), whole("a")),
        Some(mask),
        expect![[r#"
            do $1 = 1, n  [array]
              if (a($1) > 0) then
                a($1) = 1.0/a($1)
              end if
            end do
        "#]],
    );
}

#[test]
fn vector_subscripts_and_unknown_bounds() {
    check(
        aref("a", vec![idx(whole("idx"))]),
        Expr::Array(aref("w", vec![range(None, None, None)])),
        None,
        expect![[r#"
            do $1 = 1, k  [array]
              a(idx($1)) = w($1)
            end do
        "#]],
    );
    check(
        aref("w", vec![]),
        Expr::Int(1),
        None,
        expect![[r#"
            do $1 = 1, ubound(w, 1)  [array]
              w($1) = 1
            end do
        "#]],
    );
}

#[test]
fn nonconformable_operands_are_an_error() {
    check(
        aref("a", vec![]),
        whole("x"),
        None,
        expect![[r#"
            error: `x` has rank 2 but the assignment has rank 1
        "#]],
    );
}

#[test]
fn where_clause_masks() {
    let m1 = n("m1");
    let m2 = n("m2");
    let masks = where_masks(&[Some(m1), Some(m2), None]);
    let shown: Vec<String> = masks.iter().map(ToString::to_string).collect();
    assert_eq!(shown, ["m1", ".not. m1 .and. m2", ".not. (m1 .or. m2)"]);
}

#[test]
fn forall_nest_runs_first_index_outermost() {
    let space = [
        LoopDim {
            var: "i".into(),
            lower: Expr::Int(1),
            upper: n("n"),
            stride: None,
        },
        LoopDim {
            var: "j".into(),
            lower: Expr::Int(1),
            upper: n("m"),
            stride: None,
        },
    ];
    let body = stmt(
        Span::default(),
        StmtKind::Assign {
            lhs: Expr::Array(aref("x", vec![idx(n("i")), idx(n("j"))])),
            rhs: Expr::Int(0),
        },
    );
    let s = nest(&space, LoopOrigin::Forall, body, Span::default(), false);
    expect![[r#"
        do i = 1, n  [forall]
          do j = 1, m  [forall]
            x(i, j) = 0
          end do
        end do
    "#]]
    .assert_eq(&render(&[s]));
}
