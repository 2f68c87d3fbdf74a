use costline_db::project;
use costline_model::comm::dependence::*;
use costline_syntax::ir::{Expr, Loop, Stmt, StmtId, StmtKind, Subscript};
use std::collections::BTreeMap;

/// For the first assignment of `body` (inside a subroutine over `a(n, n)`) and its
/// right-hand-side reference `read`: which enclosing loops carry a flow dependence,
/// as their variables, outermost first.
fn carried(body: &str, read: &str) -> Vec<String> {
    let text = format!(
        "subroutine s(a, b, n, m)\n  integer :: n, m, i, j, k, it\n  real :: a(n, n), b(n, n)\n{body}\nend subroutine s\n"
    );
    let files = project::analyze(&[("t.f90".into(), text.into_bytes())], &BTreeMap::new());
    let file = files.into_iter().next().unwrap().unwrap();
    let unit = &file.units[0].unit;
    let mut found = None;
    fn go<'a>(
        stmts: &'a [Stmt],
        loops: &mut Vec<&'a Loop>,
        read: &str,
        found: &mut Option<(Vec<&'a Loop>, StmtId, Vec<Subscript>)>,
    ) {
        for s in stmts {
            match &s.kind {
                StmtKind::Assign { rhs, .. } if found.is_none() => rhs.visit(&mut |x| {
                    if let Expr::Array(r) = x
                        && x.to_string() == read
                        && found.is_none()
                    {
                        *found = Some((loops.clone(), s.id, r.subscripts.clone()));
                    }
                }),
                StmtKind::Loop(l) => {
                    loops.push(l);
                    go(&l.body, loops, read, found);
                    loops.pop();
                }
                _ => {}
            }
        }
    }
    go(&unit.body, &mut Vec::new(), read, &mut found);
    let (loops, stmt, subscripts) = found.expect("the read is in the body");
    (0..loops.len())
        .filter(|k| carries_flow(&loops, *k, "a", Some((stmt, &subscripts))))
        .map(|k| loops[k].var().unwrap().to_string())
        .collect()
}

const RED: &str = "  do j = 2, n - 1
    do i = 2 + mod(j, 2), n - 1, 2
      a(i, j) = 0.25*(a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
    end do
  end do";

#[test]
fn red_points_read_only_black_points() {
    for read in ["a(i - 1, j)", "a(i + 1, j)", "a(i, j - 1)", "a(i, j + 1)"] {
        assert_eq!(carried(RED, read), Vec::<String>::new(), "{read}");
    }
}

#[test]
fn black_points_with_a_negative_mod_term_read_only_red_points() {
    let black = RED.replace("2 + mod(j, 2)", "3 - mod(j, 2)");
    for read in ["a(i - 1, j)", "a(i, j + 1)"] {
        assert_eq!(carried(&black, read), Vec::<String>::new(), "{read}");
    }
}

#[test]
fn a_sweep_over_every_point_carries_its_backward_reads() {
    let gauss_seidel = RED.replace("2 + mod(j, 2), n - 1, 2", "2, n - 1");
    // Written earlier in the same iteration of `j`: a fetch before `j` would miss it.
    assert_eq!(carried(&gauss_seidel, "a(i - 1, j)"), ["j", "i"]);
    assert_eq!(carried(&gauss_seidel, "a(i, j - 1)"), ["j"]);
    // Forward reads see old values: anti dependences only, also within one iteration
    // of `j`, where `i` orders the accesses.
    assert_eq!(carried(&gauss_seidel, "a(i + 1, j)"), Vec::<String>::new());
    assert_eq!(carried(&gauss_seidel, "a(i, j + 1)"), Vec::<String>::new());
}

#[test]
fn a_time_step_loop_carries_the_reads_of_the_other_colour() {
    // Red points alone never read what they write, not even across time steps...
    let timed = format!("  do it = 1, m\n{RED}\n  end do");
    assert_eq!(carried(&timed, "a(i - 1, j)"), Vec::<String>::new());
    // ...but the black sweep after them writes what they read in the next step.
    let black = RED.replace("2 + mod(j, 2)", "3 - mod(j, 2)");
    let timed = format!("  do it = 1, m\n{RED}\n{black}\n  end do");
    assert_eq!(carried(&timed, "a(i - 1, j)"), ["it"]);
    assert_eq!(carried(&timed, "a(i, j + 1)"), ["it"]);
}

#[test]
fn a_downward_loop_reverses_the_direction() {
    let body = "  do i = n - 1, 2, -1\n    a(i, 1) = a(i + 1, 1) + a(i - 1, 1)\n  end do";
    assert_eq!(carried(body, "a(i + 1, 1)"), ["i"]);
    assert_eq!(carried(body, "a(i - 1, 1)"), Vec::<String>::new());
}

#[test]
fn odd_and_even_elements_never_meet() {
    let body = "  do i = 1, n / 2\n    a(2 * i, 1) = a(2 * i - 1, 1)\n  end do";
    assert_eq!(carried(body, "a(2*i - 1, 1)"), Vec::<String>::new());
    let body = "  do i = 1, n / 2\n    a(2 * i, 1) = a(2 * i - 2, 1)\n  end do";
    assert_eq!(carried(body, "a(2*i - 2, 1)"), ["i"]);
}

#[test]
fn what_it_cannot_read_is_a_dependence() {
    // A subscript through another array, an invariant offset and a CALL.
    let body = "  do i = 1, n\n    a(i, 1) = a(int(b(i, 1)), 1)\n  end do";
    assert_eq!(carried(body, "a(int(b(i, 1)), 1)"), ["i"]);
    let body = "  do i = 1, n\n    a(i, 1) = a(i + m, 1)\n  end do";
    assert_eq!(carried(body, "a(i + m, 1)"), ["i"]);
    let body = "  do i = 1, n\n    a(i, 1) = a(i + 1, 1)\n    call f(a)\n  end do";
    assert_eq!(carried(body, "a(i + 1, 1)"), ["i"]);
}

#[test]
fn the_source_order_decides_within_one_iteration() {
    // Written by an earlier statement of the same iteration: a fetch before either
    // loop would miss the value.
    let body = "  do j = 1, n\n    do i = 1, n\n      a(i, j) = 1.0\n      b(i, j) = a(i, j)\n    end do\n  end do";
    assert_eq!(carried(body, "a(i, j)"), ["j", "i"]);
    // Written after the read in the same iteration: no flow at all.
    let body = "  do j = 1, n\n    do i = 1, n\n      b(i, j) = a(i, j)\n      a(i, j) = 1.0\n    end do\n  end do";
    assert_eq!(carried(body, "a(i, j)"), Vec::<String>::new());
}
