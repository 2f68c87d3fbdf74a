//! HPF's default arrangement for k distributed dimensions is p1 x ... x pk: the
//! bindings `p1`, `p2` size it though the unit never names them.

use costline_db::project;
use std::collections::BTreeMap;

#[test]
fn p1_and_p2_bind_the_default_grid() {
    let text = "subroutine s
  integer, parameter :: n = 64
  integer :: i, j
  real :: a(n, n)
!hpf$ distribute a(block, block)
  do j = 1, n
    do i = 1, n
      a(i, j) = 0.0
    end do
  end do
end subroutine
";
    let bindings = BTreeMap::from([("p1".to_string(), 2), ("p2".to_string(), 3)]);
    let files = project::analyze(&[("t.f90".into(), text.as_bytes().to_vec())], &bindings);
    let file = files.into_iter().next().unwrap().unwrap();
    let u = &file.units[0];
    let mut work = None;
    u.unit.walk(&mut |s, _| {
        if let costline_syntax::ir::StmtKind::Assign { .. } = s.kind {
            work = u.values.load(s.id).cloned();
        }
    });
    let work = work.expect("a work vector");
    // 64 columns in blocks of 32 over p1 = 2, 64 rows in blocks of 22 over p2 = 3.
    let mut per = work.per_processor().to_vec();
    per.sort_by(f64::total_cmp);
    assert_eq!(per, [640.0, 640.0, 704.0, 704.0, 704.0, 704.0], "{work:?}");
}
