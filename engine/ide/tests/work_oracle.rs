//! The work oracle: work(S, p), how often processor p executes assignment S under
//! HPF's owner-computes rule (P^3T+ section 4.1, DESIGN.md section 3), simulated
//! element by element (costline_fixtures::work_sim). The simulator is checked by hand on small
//! examples, and on random programs against the frequencies the engine reports; the
//! symbolic work analysis is then compared with it, vector for vector.

use costline_db::project::FileAnalysis;
use costline_fixtures::work_sim::{Simulation, analyze, cases, simulate};
use costline_ide::report::file_report;
use costline_model::distribution::Arrangement;
use costline_model::freq::FreqOptions;
use costline_symbolic::Num;
use proptest::prelude::*;
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// The simulation of `source` under `bindings`; panics with the reason it cannot run.
fn run(source: &str, bindings: &[(&str, i64)]) -> Simulation {
    analyze(source, bindings)
        .and_then(|file| simulate(&file))
        .unwrap_or_else(|e| panic!("{e}\n{source}"))
}

/// The 1-based line of `source` containing `marker`, which must be on one line only.
fn line_of(source: &str, marker: &str) -> u32 {
    let lines: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .map(|(i, _)| i + 1)
        .collect();
    match lines.as_slice() {
        [line] => *line as u32,
        _ => panic!("`{marker}` is on lines {lines:?} of\n{source}"),
    }
}

/// A program checked by hand: the work vector of the assignment on the line holding
/// each marker.
struct Example {
    name: &'static str,
    source: String,
    bindings: &'static [(&'static str, i64)],
    expected: &'static [(&'static str, &'static [u64])],
}

fn example(
    name: &'static str,
    source: &str,
    bindings: &'static [(&'static str, i64)],
    expected: &'static [(&'static str, &'static [u64])],
) -> Example {
    Example {
        name,
        source: source.to_string(),
        bindings,
        expected,
    }
}

/// `a(n)` distributed with `format` onto `pr(p)`, every element assigned once.
fn one_d(format: &str) -> String {
    format!(
        "subroutine ex(n, p)
  integer :: n, p, i
  real :: a(n)
!HPF$ PROCESSORS pr(p)
!HPF$ DISTRIBUTE a({format}) ONTO pr
  do i = 1, n
    a(i) = 1.0
  end do
end subroutine ex
"
    )
}

/// `a(n, n)` distributed with `format` onto `pr(p)`; row 1, column 1 and the lower
/// triangle assigned.
fn two_d(format: &str) -> String {
    format!(
        "subroutine ex(n, p)
  integer :: n, p, i, j
  real :: a(n, n)
!HPF$ PROCESSORS pr(p)
!HPF$ DISTRIBUTE a({format}) ONTO pr
  do j = 1, n
    a(1, j) = 1.0  ! row
  end do
  do i = 1, n
    a(i, 1) = 2.0  ! column
  end do
  do i = 1, n
    do j = 1, i
      a(i, j) = 3.0  ! triangle
    end do
  end do
end subroutine ex
"
    )
}

/// The second loop nest of P^3T+ section 4.1.
const P3T: &str = "subroutine p3t(n1, n2, p)
  integer :: n1, n2, p, j1, j2
  INTEGER A(N2)
!HPF$ PROCESSORS :: PR(P)
!HPF$ DISTRIBUTE (BLOCK) ONTO PR :: A
  DO J1=1,N1
    DO J2=1,J1*N1
      IF (J2 <= N2) THEN
        A(J2) = A(J2) + 1  ! S
      ENDIF
    ENDDO
  ENDDO
end subroutine p3t
";

/// The hand-checked examples; the comments give the reasoning.
/// The solver idiom: an INDEPENDENT loop over BLOCK-distributed planes with private
/// (NEW) work arrays; each plane's iteration runs on the plane's owner.
fn new_private() -> String {
    "subroutine solve(nz)
  integer, parameter :: nx = 5
  integer :: nz, i, k
  real :: rho(nx, 10), rhs(nx, 10), cv(0:nx + 1), fac
!hpf$ processors pr(4)
!hpf$ distribute (*, block) onto pr :: rho, rhs
!hpf$ independent, new(cv, fac)
  do k = 1, nz
    do i = 1, nx
      cv(i) = rho(i, k)
    end do
    cv(0) = 0.0
    fac = 2.0 * cv(1)
    do i = 1, nx
      rhs(i, k) = fac * cv(i - 1) + cv(i)
    end do
  end do
end subroutine
"
    .to_string()
}

fn examples() -> Vec<Example> {
    vec![
        // NEW variables run on the home of their iteration: planes 1..10 in blocks of 3.
        example(
            "new variables on the owner of their plane",
            &new_private(),
            &[("nz", 10)],
            &[
                ("cv(i) = rho", &[15, 15, 15, 5]),
                ("cv(0)", &[3, 3, 3, 1]),
                ("fac =", &[3, 3, 3, 1]),
                ("rhs(i, k) =", &[15, 15, 15, 5]),
            ],
        ),
        // BLOCK: block size ceil(n/P); the last processors own fewer elements or none.
        example(
            "block, P divides n",
            &one_d("BLOCK"),
            &[("n", 12), ("p", 4)],
            &[("a(i)", &[3, 3, 3, 3])],
        ),
        example(
            "block, 10 on 4: blocks of 3",
            &one_d("BLOCK"),
            &[("n", 10), ("p", 4)],
            &[("a(i)", &[3, 3, 3, 1])],
        ),
        example(
            "block, 9 on 4: the last owns none",
            &one_d("BLOCK"),
            &[("n", 9), ("p", 4)],
            &[("a(i)", &[3, 3, 3, 0])],
        ),
        example(
            "block, 5 on 4: blocks of 2",
            &one_d("BLOCK"),
            &[("n", 5), ("p", 4)],
            &[("a(i)", &[2, 2, 1, 0])],
        ),
        // CYCLIC: element i on processor mod(i - 1, P) + 1.
        example(
            "cyclic, 10 on 4",
            &one_d("CYCLIC"),
            &[("n", 10), ("p", 4)],
            &[("a(i)", &[3, 3, 2, 2])],
        ),
        example(
            "block(2), 10 on 5",
            &one_d("BLOCK(2)"),
            &[("n", 10), ("p", 5)],
            &[("a(i)", &[2, 2, 2, 2, 2])],
        ),
        example(
            "block(4), 10 on 4",
            &one_d("BLOCK(4)"),
            &[("n", 10), ("p", 4)],
            &[("a(i)", &[4, 4, 2, 0])],
        ),
        // CYCLIC(2): blocks {1,2} {3,4} {5,6} {7,8} {9,10} dealt to 1 2 3 4 1.
        example(
            "cyclic(2), 10 on 4",
            &one_d("CYCLIC(2)"),
            &[("n", 10), ("p", 4)],
            &[("a(i)", &[4, 2, 2, 2])],
        ),
        example(
            "cyclic(3), 10 on 2",
            &one_d("CYCLIC(3)"),
            &[("n", 10), ("p", 2)],
            &[("a(i)", &[6, 4])],
        ),
        // (BLOCK, *): rows in blocks of 2 on 4 processors; row i of the triangle has i
        // elements: 1+2, 3+4, 5+6, 7+8.
        example(
            "(block, *): rows",
            &two_d("BLOCK, *"),
            &[("n", 8), ("p", 4)],
            &[
                ("row", &[8, 0, 0, 0]),
                ("column", &[2, 2, 2, 2]),
                ("triangle", &[3, 7, 11, 15]),
            ],
        ),
        // (CYCLIC, *): rows 1+5, 2+6, 3+7, 4+8: nearly balanced.
        example(
            "(cyclic, *): rows dealt round-robin",
            &two_d("CYCLIC, *"),
            &[("n", 8), ("p", 4)],
            &[
                ("row", &[8, 0, 0, 0]),
                ("column", &[2, 2, 2, 2]),
                ("triangle", &[6, 8, 10, 12]),
            ],
        ),
        // (*, BLOCK): columns in blocks of 2; column j of the triangle has n - j + 1
        // elements: 8+7, 6+5, 4+3, 2+1.
        example(
            "(*, block): columns",
            &two_d("*, BLOCK"),
            &[("n", 8), ("p", 4)],
            &[
                ("row", &[2, 2, 2, 2]),
                ("column", &[8, 0, 0, 0]),
                ("triangle", &[15, 11, 7, 3]),
            ],
        ),
        // (BLOCK, CYCLIC) on a 2x2 grid: processor 1 + c1 + 2*c2 (column-major), with
        // c1 = (i-1)/2 and c2 = mod(j-1, 2). Row 1 has c1 = 0 and c2 = 0, 1, 0, 1:
        // processors 1 and 3. Column 1 has c2 = 0 and c1 = 0, 0, 1, 1: processors 1 and
        // 2. The triangle: (1,1) (2,1) on 1; (2,2) on 3; (3,1) (3,3) (4,1) (4,3) on 2;
        // (3,2) (4,2) (4,4) on 4.
        example(
            "(block, cyclic) on 2x2: column-major numbering",
            &two_d("BLOCK, CYCLIC")
                .replace("ex(n, p)", "ex(n)")
                .replace("integer :: n, p,", "integer :: n,")
                .replace("pr(p)", "pr(2, 2)"),
            &[("n", 4)],
            &[
                ("row", &[2, 0, 2, 0]),
                ("column", &[2, 2, 0, 0]),
                ("triangle", &[2, 4, 1, 3]),
            ],
        ),
        // ALIGN with an offset: b(i) on t(i+1), t(9) in blocks of 3: b(1:2) on 1,
        // b(3:5) on 2, b(6:8) on 3.
        example(
            "align with offset",
            "subroutine ex(n, p)
  integer :: n, p, i
  real :: b(n)
!HPF$ PROCESSORS pr(p)
!HPF$ TEMPLATE t(n+1)
!HPF$ DISTRIBUTE t(BLOCK) ONTO pr
!HPF$ ALIGN b(i) WITH t(i+1)
  do i = 1, n
    b(i) = 1.0
  end do
end subroutine ex
",
            &[("n", 8), ("p", 3)],
            &[("b(i) =", &[2, 3, 3])],
        ),
        // ALIGN with a stride: b(i) on t(2*i-1), odd positions only: with CYCLIC on 2
        // all of them on processor 1; with BLOCK (u(11) in blocks of 6) positions
        // 1 3 5 | 7 9 11.
        example(
            "align with stride",
            "subroutine ex(n, p)
  integer :: n, p, i
  real :: b(n), c(n)
!HPF$ PROCESSORS pr(p)
!HPF$ TEMPLATE t(2*n-1), u(2*n-1)
!HPF$ DISTRIBUTE t(CYCLIC) ONTO pr
!HPF$ DISTRIBUTE u(BLOCK) ONTO pr
!HPF$ ALIGN b(i) WITH t(2*i-1)
!HPF$ ALIGN (i) WITH u(2*i-1) :: c
  do i = 1, n
    b(i) = 1.0
    c(i) = 1.0
  end do
end subroutine ex
",
            &[("n", 6), ("p", 2)],
            &[("b(i) =", &[6, 0]), ("c(i) =", &[3, 3])],
        ),
        // Replication: e(j) aligned with t2(*, j) lives on every processor of grid
        // column c2 = coordinate of j (j = 1..2: c2 = 0, processors 1 and 2); a scalar
        // and an unmapped array live everywhere.
        example(
            "replication",
            "subroutine ex(n)
  integer :: n, j
  real :: s, c(n), e(n)
!HPF$ PROCESSORS pr(2, 2)
!HPF$ TEMPLATE t2(n, n)
!HPF$ DISTRIBUTE t2(BLOCK, BLOCK) ONTO pr
!HPF$ ALIGN e(j) WITH t2(*, j)
  do j = 1, 2
    e(j) = 1.0
    s = s + 1.0
    c(j) = 1.0
  end do
  do j = 1, n
    e(j) = 2.0  ! all
  end do
end subroutine ex
",
            &[("n", 4)],
            &[
                ("e(j) = 1", &[2, 2, 0, 0]),
                ("s = s", &[2, 2, 2, 2]),
                ("c(j) =", &[2, 2, 2, 2]),
                ("all", &[2, 2, 2, 2]),
            ],
        ),
        // d(i, *) collapses its second dimension: d(i, j) is on the owner of t(i), t(4)
        // in blocks of 2: rows 1..2 on 1, row 3 on 2. d2(i, j) aligned transposed with
        // t2(j, i), t2 (BLOCK, *): the owner of d2(i, j) is the block of j.
        example(
            "collapse and transposition",
            "subroutine ex(n, p)
  integer :: n, p, i, j
  real :: d(n, n), d2(n, n)
!HPF$ PROCESSORS pr(p)
!HPF$ TEMPLATE t(n), t2(n, n)
!HPF$ DISTRIBUTE t(BLOCK) ONTO pr
!HPF$ DISTRIBUTE t2(BLOCK, *) ONTO pr
!HPF$ ALIGN d(i, *) WITH t(i)
!HPF$ ALIGN d2(i, j) WITH t2(j, i)
  do i = 1, 3
    do j = 1, n
      d(i, j) = 1.0
    end do
  end do
  do j = 1, n
    d2(1, j) = 1.0
  end do
  do i = 1, n
    d2(i, 1) = 1.0
  end do
end subroutine ex
",
            &[("n", 4), ("p", 2)],
            &[
                ("d(i, j)", &[8, 4]),
                ("d2(1, j)", &[2, 2]),
                ("d2(i, 1)", &[4, 0]),
            ],
        ),
        // `:` alignment pairs the k-th elements: c(0:n-1) with a(1:n), so c(0:3) is
        // a(1:4) (blocks of 3: 1 2 3 | 4); c2(:) with t(3:), t(12) in blocks of 3:
        // c2(1:4) is t(3:6), positions 3 | 4 5 6.
        example(
            "colon alignment respects lower bounds",
            "subroutine ex(n, p)
  integer :: n, p, i
  real :: a(n), c(0:n-1), c2(n)
!HPF$ PROCESSORS pr(p)
!HPF$ TEMPLATE t(n+2)
!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a, t
!HPF$ ALIGN c(:) WITH a(:)
!HPF$ ALIGN c2(:) WITH t(3:)
  do i = 0, 3
    c(i) = 1.0
  end do
  do i = 1, 4
    c2(i) = 1.0
  end do
end subroutine ex
",
            &[("n", 10), ("p", 4)],
            &[("c(i) =", &[3, 1, 0, 0]), ("c2(i) =", &[1, 3, 0, 0])],
        ),
        // A chain: c(i) on b(i) on t(i+2), t CYCLIC on 3: t(3), t(4), t(5), t(6) on
        // processors 3, 1, 2, 3.
        example(
            "align chain",
            "subroutine ex(n, p)
  integer :: n, p, i
  real :: b(n), c(n)
!HPF$ PROCESSORS pr(p)
!HPF$ TEMPLATE t(n+2)
!HPF$ DISTRIBUTE t(CYCLIC) ONTO pr
!HPF$ ALIGN b(i) WITH t(i+2)
!HPF$ ALIGN c(i) WITH b(i)
  do i = 1, n
    c(i) = 1.0
  end do
end subroutine ex
",
            &[("n", 4), ("p", 3)],
            &[("c(i) =", &[1, 1, 2])],
        ),
        // FORALL with a mask: elements 4..10, blocks of 3.
        example(
            "forall with mask",
            &one_d("BLOCK").replace(
                "do i = 1, n\n    a(i) = 1.0\n  end do",
                "forall (i = 1:n, i > 3) a(i) = 1.0",
            ),
            &[("n", 10), ("p", 4)],
            &[("forall", &[0, 3, 3, 1])],
        ),
        // An array section: elements 2..9 in blocks of 3.
        example(
            "array section",
            &one_d("BLOCK").replace("do i = 1, n\n    a(i) = 1.0\n  end do", "a(2:n-1) = 1.0"),
            &[("n", 10), ("p", 4)],
            &[("a(2:n-1)", &[2, 3, 3, 0])],
        ),
        // P^3T+ 4.1: element j2 is written by the j1 with j1*N1 >= j2, that is
        // N1 - ceil(j2/N1) + 1 times; N2 = 10, N1 = 3: 3 3 3 | 2 2 2 | 1 1 1 | 0.
        example(
            "p3t+ 4.1, N1=3 N2=10 P=4",
            P3T,
            &[("n1", 3), ("n2", 10), ("p", 4)],
            &[("! S", &[9, 6, 3, 0])],
        ),
        // N1 = 2, N2 = 4: 2 2 | 1 1.
        example(
            "p3t+ 4.1, N1=2 N2=4 P=2",
            P3T,
            &[("n1", 2), ("n2", 4), ("p", 2)],
            &[("! S", &[4, 2])],
        ),
        // N1 = 4, N2 = 8 (P divides N2, the paper's assumption): 4 4 | 4 4 | 3 3 | 3 3.
        example(
            "p3t+ 4.1, N1=4 N2=8 P=4",
            P3T,
            &[("n1", 4), ("n2", 8), ("p", 4)],
            &[("! S", &[8, 8, 6, 6])],
        ),
        // N1 = 1: only A(1).
        example(
            "p3t+ 4.1, N1=1 N2=5 P=3",
            P3T,
            &[("n1", 1), ("n2", 5), ("p", 3)],
            &[("! S", &[1, 0, 0])],
        ),
        // N1 = 3, N2 = 4 < N1**2: 3 | 3 | 3 | 2.
        example(
            "p3t+ 4.1, N1=3 N2=4 P=4",
            P3T,
            &[("n1", 3), ("n2", 4), ("p", 4)],
            &[("! S", &[3, 3, 3, 2])],
        ),
        // Fortran integer semantics in conditions, with one element per processor so
        // the vector shows which i ran: (i-5)/2 truncates (-3/2 = -1: i = 2, 3); MOD has
        // the sign of its first argument (i = 1, 4); `.not.` binds looser than `>`
        // (i = 1, 4, 7); DO counts down by 3 from 10; CASE takes ranges and DEFAULT.
        example(
            "integer semantics",
            "subroutine ex(n, p)
  integer :: n, p, i
  integer :: a(n)
!HPF$ PROCESSORS pr(p)
!HPF$ DISTRIBUTE a(BLOCK) ONTO pr
  do i = 1, n
    if ((i - 5)/2 == -1) a(i) = 1  ! div
    if (mod(i - 5, 3) == -1) a(i) = 2  ! rem
    if (mod(i, 3) == 1 .and. .not. i > n - 1) a(i) = 3  ! and-not
    select case (mod(i, 4))
    case (1:2)
      a(i) = 4  ! case 1:2
    case default
      a(i) = 5  ! default
    case (0)
      a(i) = 6  ! case 0
    end select
  end do
  do i = n, 1, -3
    a(i) = 7  ! down
  end do
  do i = 5, 1
    a(i) = 8  ! never
  end do
end subroutine ex
",
            &[("n", 10), ("p", 10)],
            &[
                ("div", &[0, 1, 1, 0, 0, 0, 0, 0, 0, 0]),
                ("! rem", &[1, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
                ("and-not", &[1, 0, 0, 1, 0, 0, 1, 0, 0, 0]),
                ("! case 1:2", &[1, 1, 0, 0, 1, 1, 0, 0, 1, 1]),
                ("! default", &[0, 0, 1, 0, 0, 0, 1, 0, 0, 0]),
                ("! case 0", &[0, 0, 0, 1, 0, 0, 0, 1, 0, 0]),
                ("down", &[1, 0, 0, 1, 0, 0, 1, 0, 0, 1]),
                ("never", &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            ],
        ),
    ]
}

#[test]
fn hand_examples() {
    let mut failures = Vec::new();
    for ex in examples() {
        let sim = run(&ex.source, ex.bindings);
        for &(marker, expected) in ex.expected {
            let line = line_of(&ex.source, marker);
            let got = &sim.statements[&line].work;
            if got != expected {
                failures.push(format!(
                    "{} (`{marker}`): expected {expected:?}, simulated {got:?}",
                    ex.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The report's assignments of the one unit of `file`, by line.
fn reported_assignments(file: &FileAnalysis) -> Result<BTreeMap<u32, Json>, String> {
    let report = serde_json::to_value(file_report(file)).map_err(|e| e.to_string())?;
    let none = Vec::new();
    let items = |v: Option<&Json>| v.and_then(Json::as_array).unwrap_or(&none).clone();
    let [unit] = items(report.get("units"))
        .try_into()
        .map_err(|_| "the report does not have exactly one unit".to_string())?;
    let mut out = BTreeMap::new();
    for s in items(unit.get("statements")) {
        if s.get("kind").and_then(Json::as_str) == Some("assign") {
            let line = s
                .get("line")
                .and_then(Json::as_i64)
                .ok_or("a statement without a line")?;
            out.insert(line as u32, s.clone());
        }
    }
    Ok(out)
}

/// A JSON array of integers, or why it is not one.
fn integers(v: &Json) -> Result<Vec<i128>, String> {
    match v {
        Json::Array(items) => items
            .iter()
            .map(|x| {
                x.as_i64()
                    .map(i128::from)
                    .ok_or_else(|| format!("{x:?} is not an integer"))
            })
            .collect(),
        other => Err(format!("{other:?} is not an array")),
    }
}

/// Compares freq(S) of every assignment in the report with the simulation's count,
/// which checks the simulator's control flow against the engine's frequency analysis.
fn compare_freq(file: &FileAnalysis, sim: &Simulation) -> Result<(), String> {
    let reported = reported_assignments(file)?;
    for (line, counts) in &sim.statements {
        let s = reported
            .get(line)
            .ok_or_else(|| format!("the report has no assignment at line {line}"))?;
        let freq = s.get("metrics").and_then(|m| m.get("freq"));
        if freq.and_then(Json::as_i64).map(i128::from) != Some(counts.freq.into()) {
            return Err(format!(
                "line {line}: freq {freq:?} reported, {} simulated",
                counts.freq
            ));
        }
    }
    Ok(())
}

/// Compares the report's `work` vector (DESIGN.md section 5) of every assignment
/// with the simulated work(S, p), p = 1..|P|: they must be equal.
fn compare_work(file: &FileAnalysis, sim: &Simulation) -> Result<(), String> {
    let reported = reported_assignments(file)?;
    let mut mismatches = Vec::new();
    for (line, counts) in &sim.statements {
        let s = reported
            .get(line)
            .ok_or_else(|| format!("the report has no assignment at line {line}"))?;
        let work = s
            .get("work")
            .ok_or_else(|| format!("report has no work vector for line {line}"))?;
        let expected: Vec<i128> = counts.work.iter().map(|&w| w.into()).collect();
        match integers(work) {
            Ok(got) if got == expected => {}
            Ok(got) => mismatches.push(format!(
                "line {line}: work {got:?} reported, {expected:?} simulated"
            )),
            Err(e) => mismatches.push(format!("line {line}: the work vector {e}")),
        }
    }
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} (|P| = {})",
            mismatches.join("; "),
            sim.processors
        ))
    }
}

/// An exact integer value.
fn integer(v: Num) -> i128 {
    match v {
        Num::Exact(r) => r.as_integer().expect("an integer"),
        Num::Approx(x) => panic!("{x} is not exact"),
    }
}

/// Evaluates the work formula of every owner-computed assignment for each processor
/// and compares it with the simulated work(S, p): the formula is built by a symbolic sum
/// in every unknown, apart from the numbers of the report (a sum in the processor's
/// coordinates only), and must agree with them. A formula the budget did not allow is
/// skipped (the report then has none either).
fn compare_formulas(file: &FileAnalysis, sim: &Simulation) -> Result<(), String> {
    formulas_checked(file, sim).map(|_| ())
}

/// [`compare_formulas`], returning how many formulas it compared.
fn formulas_checked(file: &FileAnalysis, sim: &Simulation) -> Result<usize, String> {
    let [u] = file.units.as_slice() else {
        return Err("not one unit".into());
    };
    let formulas = u.formulas.as_ref().ok_or("no formulas assembled")?;
    let env = |n: &str| u.value_of(n);
    let mut mismatches = Vec::new();
    let mut checked = 0;
    u.unit.walk(&mut |s, _| {
        let (Some(formula), Some(work)) = (formulas.of(s.id), u.work.of(s.id)) else {
            return;
        };
        if formula.symbolic().is_none() {
            return;
        }
        checked += 1;
        let line = file.source.line_col(u.absolute(s.span).start).0;
        let Some(counts) = sim.statements.get(&line) else {
            mismatches.push(format!("line {line}: not simulated"));
            return;
        };
        let onto = work
            .arrangement
            .as_ref()
            .expect("owned work has an arrangement");
        let extents: Vec<i128> = onto
            .extents
            .iter()
            .map(|e| integer(e.eval(&env).expect("|P| bound")))
            .collect();
        let names: Vec<_> = (0..extents.len()).map(|k| onto.coordinate(k)).collect();
        let got: Vec<i128> = (1..=extents.iter().product::<i128>())
            .map(|p| {
                let coords = Arrangement::coordinates(&extents, p);
                let at = |n: &str| {
                    names
                        .iter()
                        .position(|c| &**c == n)
                        .map(|k| coords[k] + 1)
                        .or_else(|| env(n))
                };
                integer(
                    formula
                        .eval(&at, &FreqOptions::default())
                        .expect("evaluates"),
                )
            })
            .collect();
        let expected: Vec<i128> = counts.work.iter().map(|&w| w.into()).collect();
        if got != expected {
            mismatches.push(format!(
                "line {line}: the formula gives {got:?}, {expected:?} simulated"
            ));
        }
    });
    if mismatches.is_empty() {
        Ok(checked)
    } else {
        Err(mismatches.join("; "))
    }
}

/// The analysis and simulation of a generated case, checked with `check`.
fn check_case(
    case: &cases::Case,
    check: fn(&FileAnalysis, &Simulation) -> Result<(), String>,
) -> Result<(), String> {
    let file = analyze(&case.source, &case.bindings)?;
    let sim = simulate(&file)?;
    check(&file, &sim).map_err(|e| format!("{e}\nbindings {:?}\n{}", case.bindings, case.source))
}

/// The raw choices a case is built from (more than any case uses).
fn raw_case() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(any::<u32>(), 160)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Random programs run in the simulator, and every assignment runs as often as
    /// the engine's frequency analysis says.
    #[test]
    fn random_programs_run_as_often_as_the_engine_counts(raw in raw_case()) {
        let case = cases::build(&raw);
        let checked = check_case(&case, compare_freq);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// The contract: the report's work vectors equal the simulation's, exactly.
    #[test]
    fn work_analysis_matches_the_simulation_on_random_programs(raw in raw_case()) {
        let case = cases::build(&raw);
        let checked = check_case(&case, compare_work);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
        let checked = check_case(&case, compare_formulas);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }
}

#[test]
fn work_analysis_matches_the_hand_examples() {
    let mut formulas = 0;
    let failures: Vec<String> = examples()
        .iter()
        .filter_map(|ex| {
            let file = analyze(&ex.source, ex.bindings).unwrap_or_else(|e| panic!("{e}"));
            let sim = simulate(&file).unwrap_or_else(|e| panic!("{e}"));
            let checked = compare_work(&file, &sim).and_then(|()| formulas_checked(&file, &sim));
            formulas += checked.as_ref().copied().unwrap_or(0);
            checked.err().map(|e| {
                format!(
                    "{}: {e}\nbindings {:?}\n{}",
                    ex.name, ex.bindings, ex.source
                )
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(formulas > 20, "only {formulas} work formulas compared");
}

/// REDISTRIBUTE and REALIGN as they run: the simulator remaps where the directive
/// stands, the engine follows the mapping in force; work vectors must agree, and the
/// statements between two remappings must see the remapped layout.
#[test]
fn work_follows_remapping_at_run_time() {
    // The time loop of tests/fixtures/free/remap_in_time_loop.f90 (one unit).
    let time_loop = "program remap
  integer, parameter :: n = 12
  real :: a(n, n), b(n, n)
  integer :: it, i, j
!HPF$ PROCESSORS pr(3)
!HPF$ DYNAMIC :: a
!HPF$ DISTRIBUTE a(BLOCK, *) ONTO pr
!HPF$ DISTRIBUTE b(*, BLOCK)
  do it = 1, 10
    do i = 1, n
      do j = 1, i
        a(i, j) = a(i, j) + 1.0  ! rows
      end do
    end do
!HPF$ REDISTRIBUTE a(*, BLOCK) ONTO pr
    do i = 1, n
      do j = 1, i
        a(i, j) = a(i, j) * 2.0 + b(i, j)  ! columns
      end do
    end do
!HPF$ REDISTRIBUTE a(BLOCK, *) ONTO pr
  end do
end program remap
";
    // REALIGN with a template, inside a loop and in the branches of an IF; after the
    // REDISTRIBUTE of `t` in the THEN branch (taken), `v` goes by column blocks of 3:
    // the lower triangle's columns 1-3, 4-6, 7-9 and 10 hold 27, 18, 9 and 1 elements.
    let realign = "program realign
  integer, parameter :: n = 10
  real :: u(n, n), v(n, n)
  integer :: i, j, k
!HPF$ PROCESSORS pr(4)
!HPF$ TEMPLATE t(n, n)
!HPF$ DYNAMIC :: v, t
!HPF$ DISTRIBUTE t(CYCLIC(2), *) ONTO pr
!HPF$ ALIGN u(i, j) WITH t(i, j)
!HPF$ ALIGN v(i, j) WITH t(i, j)
  do k = 1, 3
!HPF$ REALIGN v(i, j) WITH t(j, i)
    do i = 1, n
      do j = 1, n - i + 1
        v(i, j) = u(j, i)  ! transposed
      end do
    end do
!HPF$ REALIGN v(i, j) WITH t(i, j)
  end do
  if (n > 5) then
!HPF$ REDISTRIBUTE t(*, BLOCK) ONTO pr
    v(1, 1) = 0.0  ! then
  end if
  do i = 1, n
    do j = 1, i
      v(i, j) = u(i, j)  ! after
    end do
  end do
end program realign
";
    let mut failures = Vec::new();
    for (name, source, marker, expected) in [
        ("time loop", time_loop, "! columns", None),
        ("realign", realign, "! after", Some(&[27u64, 18, 9, 1][..])),
    ] {
        let file = analyze(source, &[]).unwrap_or_else(|e| panic!("{e}"));
        let sim = simulate(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = compare_freq(&file, &sim).and_then(|()| compare_work(&file, &sim)) {
            failures.push(format!("{name}: {e}"));
        }
        if let Some(expected) = expected {
            let got = &sim.statements[&line_of(source, marker)].work;
            assert_eq!(got, expected, "{name}: `{marker}`");
        }
    }
    // Between the REDISTRIBUTEs, `a(i, j)` with j <= i goes by columns: column block
    // k (4 columns) holds the lower triangle's columns 4k+1..4k+4, 10 times.
    let sim = run(time_loop, &[]);
    let columns = &sim.statements[&line_of(time_loop, "! columns")].work;
    assert_eq!(columns, &[10 * 42, 10 * 26, 10 * 10]);
    let rows = &sim.statements[&line_of(time_loop, "! rows")].work;
    assert_eq!(rows, &[10 * 10, 10 * 26, 10 * 42]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A 6-D array distributed `(*, BLOCK, BLOCK, *, *, *)` onto a 2 x 2 grid, as real HPF
/// codes distribute their state: a FORALL over all six dimensions, a DO nest over a
/// section, and an ALIGNed partner. Extents 2 x 5 x 3 x 2 x 2 x 2 (BLOCK sizes 3 and 2:
/// the last processors own less). Engine = simulator, formulas included, and the
/// FORALL's vector checked by hand: 2·{3,2}·{2,1}·8 elements per processor (column-major
/// numbering: 2·3·2·8, 2·2·2·8, 2·3·1·8, 2·2·1·8).
#[test]
fn a_six_dimensional_distribution_matches_the_simulation() {
    let source = "program six
  integer, parameter :: n1 = 2, n2 = 5, n3 = 3
  real x(n1, n2, n3, 2, 2, 2), y(n1, n2, n3, 2, 2, 2)
  integer i1, i2, i3, i4, i5, i6
!hpf$ processors pr(2, 2)
!hpf$ distribute x(*, block, block, *, *, *) onto pr
!hpf$ align y(a, b, c, d, e, f) with x(a, b, c, d, e, f)
  forall (i1 = 1:n1, i2 = 1:n2, i3 = 1:n3, i4 = 1:2, i5 = 1:2, i6 = 1:2) x(i1, i2, i3, i4, i5, i6) = i1 + i2 ! all
  do i6 = 1, 2
    do i5 = 1, 2
      do i3 = 1, n3 - 1
        do i2 = 2, n2
          do i1 = 1, n1
            y(i1, i2, i3, 1, i5, i6) = x(i1, i2 - 1, i3 + 1, 2, i5, i6) ! shift
          end do
        end do
      end do
    end do
  end do
end program
";
    let file = analyze(source, &[]).unwrap_or_else(|e| panic!("{e}"));
    let sim = simulate(&file).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sim.processors, 4);
    let all = &sim.statements[&line_of(source, "! all")].work;
    assert_eq!(all, &[96, 64, 48, 32]);
    compare_freq(&file, &sim).unwrap();
    compare_work(&file, &sim).unwrap();
    let formulas = formulas_checked(&file, &sim).unwrap();
    assert_eq!(formulas, 2);
}
