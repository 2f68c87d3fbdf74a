use costline_db::project;
use costline_model::time::ops::*;
use costline_syntax::ir::StmtKind;

/// The operations of each assignment of `body` (inside `subroutine t`), as text.
fn assignment_ops(body: &str) -> Vec<String> {
    let text = format!(
        "subroutine t(n, a, b, s, u)\n  integer :: n, i\n  real(8) :: a(n), b(n), s, u\n\
         {body}\nend subroutine t\n"
    );
    let files = project::analyze(&[("t.f90".into(), text.into_bytes())], &Default::default());
    let file = files.into_iter().next().unwrap().unwrap();
    let unit = &file.units[0].unit;
    let mut out = Vec::new();
    unit.walk(&mut |s, _| {
        if matches!(s.kind, StmtKind::Assign { .. }) {
            out.push(stmt_ops(unit, s).describe());
        }
    });
    out
}

#[test]
fn a_scalar_updated_from_itself_is_a_recurrence() {
    let ops = assignment_ops(
        "  do i = 1, n\n    s = s + a(i)*b(i)\n    u = a(i)*b(i) + 2*u\n    \
         s = a(i) + b(i) + s\n    u = s + a(i)\n    s = s + a(i) + b(i)\n    b(i) = b(i) + a(i)\n  end do",
    );
    assert_eq!(
        ops,
        [
            "2 load + 1 add_f64 + 1 mul_f64 + 1 latency_add_f64",
            "2 mul_f64 + 2 load + 1 add_f64 + 1 latency_add_f64 + 1 latency_mul_f64",
            "2 add_f64 + 2 load + 1 latency_add_f64",
            // Not a recurrence: u is not read.
            "1 add_f64 + 1 load",
            // Left to right: (s + a(i)) + b(i), two additions on the chain.
            "2 add_f64 + 2 load + 2 latency_add_f64",
            // An array element is stored and loaded again, not kept in a register.
            "2 load + 1 add_f64 + 1 store",
        ]
    );
}

/// gfortran turns a division by a constant into cheaper operations where the result is
/// the same: an integer divisor (a power of two: shift, add of the sign bit, shift;
/// another: a magic-number multiplication, shifts and the sign fix), a real power of two
/// (an exact reciprocal); `x / 3.0d0` stays a division without -ffast-math.
#[test]
fn a_division_by_a_constant_the_compiler_can_invert_is_a_multiplication() {
    let ops = assignment_ops(
        "  do i = 1, n\n    a(i) = b(i) / 2.0d0\n    a(i) = b(i) / 0.25d0\n    \
         a(i) = b(i) / 3.0d0\n    a(i) = b(i) / s\n    n = i / 2\n    n = i / n\n    \
         n = i / 7\n    n = -i / 8\n  end do",
    );
    assert_eq!(
        ops,
        [
            "1 mul_f64 + 1 load + 1 store",
            "1 mul_f64 + 1 load + 1 store",
            "1 div_f64 + 1 load + 1 store",
            "1 div_f64 + 1 load + 1 store",
            "3 add_i32",
            "1 div_i32",
            "3 add_i32 + 1 mul_i32",
            "4 add_i32",
        ]
    );
}

/// What gfortran makes of integer selections and of what it folds: an integer MIN or
/// MAX is a compare and a conditional move per pair of arguments (ABS likewise), a
/// product with a power of two a shift; `max(x, x)` is `x` and an integer `x - x` is 0,
/// so they cost nothing; a real MAX is the intrinsic the model prices.
#[test]
fn integer_selections_and_what_the_compiler_folds() {
    let ops = assignment_ops(
        "  do i = 1, n\n    n = max(i, n)\n    n = min(i, n, 3)\n    n = abs(i)\n    \
         n = i * 4\n    n = i * n\n    a(i) = max(b(i), b(i))\n    n = i - i + n\n    \
         a(i) = max(b(i), s)\n  end do",
    );
    assert_eq!(
        ops,
        [
            // n from itself through MAX/MIN: a recurrence of compare-and-selects.
            "2 add_i32 + 1 latency_cmp_i32",
            "4 add_i32 + 1 latency_cmp_i32",
            "2 add_i32",
            "1 add_i32",
            // n from itself: a recurrence.
            "1 mul_i32 + 1 latency_mul_i32",
            "1 load + 1 store",
            "1 add_i32 + 1 latency_add_i32",
            "1 load + 1 store + 1 intrinsic_max",
        ]
    );
}
