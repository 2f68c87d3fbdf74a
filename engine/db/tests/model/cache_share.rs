use costline_db::project;
use std::collections::BTreeMap;

/// The bytes of the `j` loop's layer condition (one iteration's footprint on the
/// busiest processor) of a 5-point stencil on an n×n grid, with `directives`.
fn j_layer(n: i64, directives: &str) -> f64 {
    let text = format!(
        "program s\n  integer :: i, j\n  integer, parameter :: n = {n}\n  real :: a(n, n), b(n, n)\n\
         {directives}  do j = 2, n - 1\n    do i = 2, n - 1\n      \
         b(i, j) = a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1)\n    \
         end do\n  end do\nend program s\n"
    );
    let files = project::analyze(&[("s.f90".into(), text.into_bytes())], &BTreeMap::new());
    let file = files.into_iter().next().unwrap().unwrap();
    let u = &file.units[0];
    let nest = u.cache.nests.iter().find(|n| n.outermost).expect("a nest");
    nest.conditions
        .iter()
        .find(|c| c.var == "j")
        .expect("j carries reuse")
        .bytes
}

/// On a (BLOCK, BLOCK) grid a processor runs its local box: one iteration of `j`
/// touches local columns (a quarter of a global one on 4×4), as in the sequential
/// program of the local size; before, only `j` was cut and `i` ran the global column.
#[test]
fn a_two_dimensional_block_runs_local_columns() {
    let grid = "!HPF$ PROCESSORS p(4, 4)\n!HPF$ DISTRIBUTE (BLOCK, BLOCK) ONTO p :: a, b\n";
    let columns = "!HPF$ PROCESSORS p(16)\n!HPF$ DISTRIBUTE (*, BLOCK) ONTO p :: a, b\n";
    let (local, global) = (j_layer(512, grid), j_layer(512, columns));
    let sequential = j_layer(128, "");
    assert!(
        (local / sequential - 1.0).abs() < 0.1,
        "local {local} B, sequential of the local size {sequential} B"
    );
    assert!(
        local < 0.3 * global,
        "local {local} B, global columns {global} B"
    );
}
