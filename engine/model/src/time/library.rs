//! Loops the compiler replaces by a library call. GCC's loop distribution of patterns
//! (`-ftree-loop-distribute-patterns`, on from -O2) turns an innermost loop that only
//! copies one array into another, element by element and contiguously, into a call of
//! memcpy: `do i = 1, n; a(i, j) = b(i); end do`, and `a(i) = max(b(i), b(i))` once
//! the MAX is folded. Such a loop costs the bytes it copies at memcpy's rate
//! (`memcpy_byte`), not a load, a store and a jump per element.

use super::ops::{idempotent_select, type_of};
use super::vectorize::{Compiler, affine, bytes, constant, innermost};
use crate::machine::ops::generic_intrinsic;
use costline_syntax::ir::{ArrayRef, Expr, Stmt, StmtId, StmtKind, Subscript, Unit};

/// An innermost loop the compiler replaces by memcpy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyLoop {
    /// Its one assignment.
    pub assign: StmtId,
    /// Bytes copied per iteration.
    pub bytes: u32,
}

/// `stmt` as a copy loop `compiler` replaces by memcpy: an innermost counted DO loop of
/// step 1 whose body is one assignment of an array element to another array's element
/// of the same type, both contiguous in the loop index (the index, plus a constant, in
/// the first subscript only; the others free of it).
pub fn copy_loop(unit: &Unit, stmt: &Stmt, compiler: &Compiler) -> Option<CopyLoop> {
    if !compiler.library_patterns {
        return None;
    }
    let (l, var, _, _, step) = innermost(stmt)?;
    if step.is_some_and(|s| constant(unit, s) != Some(1)) {
        return None;
    }
    let [assign] = l.body.as_slice() else {
        return None;
    };
    let StmtKind::Assign {
        lhs: Expr::Array(to),
        rhs,
    } = &assign.kind
    else {
        return None;
    };
    let Expr::Array(from) = copied(rhs) else {
        return None;
    };
    if to.name == from.name || !contiguous(to, var) || !contiguous(from, var) {
        return None;
    }
    let (t, f) = (
        type_of(unit, &Expr::Array(to.clone()))?,
        type_of(unit, &Expr::Array(from.clone()))?,
    );
    (t == f).then(|| CopyLoop {
        assign: assign.id,
        bytes: bytes(t),
    })
}

/// The value a right-hand side copies once the compiler has folded it: `max(x, x)` and
/// `min(x, x)` are `x`.
fn copied(rhs: &Expr) -> &Expr {
    match rhs {
        Expr::Call(c) => {
            let args: Vec<&Expr> = c.args.iter().map(|a| &a.value).collect();
            match generic_intrinsic(&c.name) {
                Some(name) if idempotent_select(name, &args) => copied(args[0]),
                _ => rhs,
            }
        }
        _ => rhs,
    }
}

/// Whether `r` walks its array element by element with `var`: `var + c` in the first
/// subscript, the others free of `var`.
fn contiguous(r: &ArrayRef, var: &str) -> bool {
    let Some((first, rest)) = r.subscripts.split_first() else {
        return false;
    };
    let unit_stride = match first {
        Subscript::Index(e) => affine(e, var).is_some_and(|a| a.coef == 1),
        Subscript::Range(_) => false,
    };
    unit_stride
        && rest.iter().all(|s| match s {
            Subscript::Index(e) => !e.mentions(var),
            Subscript::Range(_) => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use costline_syntax::ir::walk;

    fn copies(body: &str, flags: &str) -> Vec<u32> {
        let text = format!(
            "subroutine t(n, a, b, c, ia)\n  integer :: n, i, j, ia(n)\n  real(8) :: a(n, n), b(n), c(n)\n{body}\nend subroutine\n"
        );
        let unit = crate::testing::unit(&text);
        let compiler = Compiler::gnu("gfortran", flags);
        let mut out = Vec::new();
        walk(&unit.body, &mut |s, _| {
            if let Some(c) = copy_loop(&unit, s, &compiler) {
                out.push(c.bytes);
            }
        });
        out
    }

    #[test]
    fn a_contiguous_copy_is_memcpy() {
        let body = "  do j = 1, n\n    do i = 1, n\n      a(i, j) = max(b(i), b(i))\n    end do\n  end do\n\
                    do i = 2, n\n    b(i) = c(i - 1)\n  end do";
        assert_eq!(copies(body, "-O2"), [8, 8]);
        assert_eq!(copies(body, "-O1"), Vec::<u32>::new());
        assert_eq!(
            copies(body, "-O2 -fno-tree-loop-distribute-patterns"),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn what_is_not_a_plain_copy() {
        // A row (stride n), an operation, a conversion, a step, two statements.
        let body = "  do i = 1, n\n    a(1, i) = b(i)\n  end do\n\
                    do i = 1, n\n    b(i) = c(i) + 1.0d0\n  end do\n\
                    do i = 1, n\n    b(i) = ia(i)\n  end do\n\
                    do i = 1, n, 2\n    b(i) = c(i)\n  end do\n\
                    do i = 1, n\n    b(i) = c(i)\n    c(i) = 0\n  end do";
        assert_eq!(copies(body, "-O2"), Vec::<u32>::new());
    }
}
