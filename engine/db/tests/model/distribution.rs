use costline_db::project;
use costline_model::distribution::*;
use costline_symbolic::Notation;
use expect_test::{Expect, expect};
use std::collections::BTreeMap;

/// Lowers `text` and renders each mapped array: its distribution (formats, onto) and
/// the template index of each template dimension.
fn check(text: &str, expected: Expect) {
    let files = project::analyze(
        &[("t.f90".into(), text.as_bytes().to_vec())],
        &BTreeMap::new(),
    );
    let file = files.into_iter().next().unwrap().unwrap();
    let unit = &file.units[0];
    let mut names: Vec<&String> = unit.mappings.arrays.keys().collect();
    names.sort();
    let mut out = String::new();
    for n in names {
        let m = &unit.mappings.arrays[n];
        let d = &m.distribution;
        let dims: Vec<String> = d
            .dims
            .iter()
            .map(|dim| match &dim.format {
                Format::Block(b) => format!("BLOCK[{}]", b.display(Notation::Fortran)),
                Format::Cyclic(k) => format!("CYCLIC[{k}]"),
                Format::Collapsed => "*".into(),
            })
            .collect();
        let index: Vec<String> = m
            .index
            .iter()
            .map(|i| match i {
                TemplateIndex::Affine { dim, coef, offset } => {
                    format!("{coef}*i{} + {offset}", dim + 1)
                }
                TemplateIndex::Constant(c) => format!("{c}"),
                TemplateIndex::Replicated => "*".into(),
            })
            .collect();
        let extents: Vec<String> = d.onto.extents.iter().map(ToString::to_string).collect();
        out += &format!(
            "{n} -> {}({}) onto {}({}) via [{}]\n",
            d.target,
            dims.join(", "),
            d.onto.name,
            extents.join(", "),
            index.join(", ")
        );
    }
    for diag in &unit.mappings.diagnostics {
        out += &format!("note: {}\n", diag.message);
    }
    expected.assert_eq(&out);
}

#[test]
fn direct_distributions_with_every_format() {
    check(
        "subroutine s(n)
  integer :: n
  real :: a(n), b(0:n-1, n), c(100), d(100)
!HPF$ PROCESSORS pr(4), grid(2, 2)
!HPF$ DISTRIBUTE a(BLOCK) ONTO pr
!HPF$ DISTRIBUTE b(CYCLIC(2), BLOCK) ONTO grid
!HPF$ DISTRIBUTE (BLOCK(30)) ONTO pr :: c
!HPF$ DISTRIBUTE d(CYCLIC)
end subroutine
",
        expect![[r#"
            a -> a(BLOCK[n - floor(3*n/4)]) onto pr(4) via [1*i1 + 0]
            b -> b(CYCLIC[2], BLOCK[n - floor(n/2)]) onto grid(2, 2) via [1*i1 + 0, 1*i2 + 0]
            c -> c(BLOCK[30]) onto pr(4) via [1*i1 + 0]
            d -> d(CYCLIC[1]) onto default(p) via [1*i1 + 0]
        "#]],
    );
}

#[test]
fn alignments_compose_down_to_the_template() {
    check(
        "subroutine s(n)
  integer :: n
  real :: a(n, n), b(n), c(n), d(n, n), e(n)
!HPF$ PROCESSORS pr(4)
!HPF$ TEMPLATE t(2*n, n)
!HPF$ DISTRIBUTE t(BLOCK, *) ONTO pr
!HPF$ ALIGN a(i, j) WITH t(2*i - 1, j)
!HPF$ ALIGN b(k) WITH a(k + 1, 1)
!HPF$ ALIGN (:) WITH t(:, *) :: c
!HPF$ ALIGN d(*, j) WITH t(j, 1)
!HPF$ ALIGN e WITH c
end subroutine
",
        expect![[r#"
            a -> t(BLOCK[n - floor(n/2)], *) onto pr(4) via [2*i1 + -1, 1*i2 + 0]
            b -> t(BLOCK[n - floor(n/2)], *) onto pr(4) via [2*i1 + 1, 1]
            c -> t(BLOCK[n - floor(n/2)], *) onto pr(4) via [1*i1 + 0, *]
            d -> t(BLOCK[n - floor(n/2)], *) onto pr(4) via [1*i2 + 0, 1]
            e -> t(BLOCK[n - floor(n/2)], *) onto pr(4) via [1*i1 + 0, *]
        "#]],
    );
}

#[test]
fn processors_from_the_p_binding_and_coordinates() {
    check(
        "program s
  real :: a(1000)
!HPF$ PROCESSORS pr(number_of_processors())
!HPF$ DISTRIBUTE a(BLOCK) ONTO pr
end program
",
        expect![[r#"
            a -> a(BLOCK[ceiling(1000/p)]) onto pr(p) via [1*i1 + 0]
        "#]],
    );
    // Column-major numbering: processor 1 + c1 + P1*c2.
    assert_eq!(Arrangement::coordinates(&[2, 3], 1), vec![0, 0]);
    assert_eq!(Arrangement::coordinates(&[2, 3], 2), vec![1, 0]);
    assert_eq!(Arrangement::coordinates(&[2, 3], 3), vec![0, 1]);
    assert_eq!(Arrangement::coordinates(&[2, 3], 6), vec![1, 2]);
}
