use super::unit;
use costline_db::project;
use costline_model::distribution::Layout;
use costline_syntax::diagnostics::Severity;
use costline_syntax::ir::{StmtId, StmtKind};

/// The statement ids of the assignments, in order.
fn assignments(u: &project::UnitAnalysis) -> Vec<StmtId> {
    let mut out = Vec::new();
    u.unit.walk(&mut |s, _| {
        if let StmtKind::Assign { .. } = s.kind {
            out.push(s.id);
        }
    });
    out
}

/// The format of `a`'s first dimension in force at `id` (`*` collapsed).
fn first_format(u: &project::UnitAnalysis, id: StmtId, a: &str) -> String {
    match u.mappings.at(id, a) {
        None => "none".into(),
        Some(m) => format!("{:?}", m.distribution.dims[0].format)
            .split('(')
            .next()
            .unwrap()
            .to_string(),
    }
}

#[test]
fn a_remapping_the_loop_does_not_undo_is_diagnosed_and_the_later_mapping_used() {
    let u = unit(
        "subroutine s
  integer :: i, k
  real :: a(8), b(8)
!HPF$ PROCESSORS pr(2)
!HPF$ DYNAMIC :: a
!HPF$ DISTRIBUTE a(BLOCK) ONTO pr
!HPF$ ALIGN b(i) WITH a(i)
  do k = 1, 5
    a(1) = 1.0
!HPF$ REDISTRIBUTE a(CYCLIC) ONTO pr
    b(2) = 2.0
  end do
  a(3) = 3.0
end subroutine s
",
    );
    let ids = assignments(&u);
    // Inside the loop and after it: CYCLIC, for `b` too (aligned with `a`).
    for (id, array) in [(ids[0], "a"), (ids[1], "b"), (ids[2], "a")] {
        assert_eq!(first_format(&u, id, array), "Cyclic", "{array} at {id:?}");
    }
    let warning = u
        .mappings
        .diagnostics
        .iter()
        .find(|d| d.code == "remap-in-loop")
        .expect("a remap-in-loop warning");
    assert!(
        warning.message.contains("`a` enters as a(BLOCK) onto pr"),
        "{}",
        warning.message
    );
    assert!(warning.message.contains("`b`"), "{}", warning.message);
}

#[test]
fn hpf_rules_on_remapping_are_errors() {
    let u = unit(
        "subroutine s
  real :: a(8), b(8), c(8)
!HPF$ PROCESSORS pr(2)
!HPF$ DISTRIBUTE a(BLOCK) ONTO pr
!HPF$ DYNAMIC :: b
!HPF$ ALIGN b(i) WITH a(i)
!HPF$ ALIGN c(i) WITH a(i)
  c(1) = 0.0
!HPF$ REDISTRIBUTE a(CYCLIC) ONTO pr
!HPF$ REDISTRIBUTE b(CYCLIC) ONTO pr
!HPF$ REALIGN c(i) WITH a(9 - i)
  c(2) = 0.0
end subroutine s
",
    );
    let errors: Vec<&str> = u
        .mappings
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        errors.iter().any(|m| m.starts_with("`a` is not DYNAMIC")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|m| m.starts_with("`b` is aligned")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|m| m.starts_with("`c` is not DYNAMIC")),
        "{errors:?}"
    );
    // Modelled as written: `c` reversed onto CYCLIC `a` (c(2) on a(7): processor 1).
    let ids = assignments(&u);
    let m = u.mappings.at(ids[1], "c").expect("c is mapped");
    let owners = |m, i| Layout::of(m, &[], &|_| None).unwrap().owners(&[i]).unwrap();
    assert_eq!(owners(m, 2).as_slice(), &[1]);
    let before = u.mappings.at(ids[0], "c").unwrap();
    assert_eq!(owners(before, 2).as_slice(), &[1]);
    assert_eq!(owners(before, 7).as_slice(), &[2]);
}

/// A GO TO in a unit that remaps is named: the mapping flow does not follow it.
#[test]
fn a_go_to_in_a_remapping_unit_is_named() {
    let text = |remap: &str| {
        format!(
            "subroutine s
  real :: a(8)
!HPF$ PROCESSORS pr(2)
!HPF$ DYNAMIC :: a
!HPF$ DISTRIBUTE a(BLOCK) ONTO pr
  if (a(1) > 0.0) go to 10
{remap}
10 a(2) = 1.0
end subroutine s
"
        )
    };
    let gotos = |u: &project::UnitAnalysis| {
        u.mappings
            .diagnostics
            .iter()
            .filter(|d| d.code == "not-modelled" && d.message.contains("GO TO"))
            .count()
    };
    assert_eq!(
        gotos(&unit(&text("!HPF$ REDISTRIBUTE a(CYCLIC) ONTO pr"))),
        1
    );
    assert_eq!(gotos(&unit(&text(""))), 0, "no remapping: nothing to say");
}
