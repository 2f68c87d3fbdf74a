//! Calls against the element-level simulator (costline_fixtures::work_sim): a procedure whose dummy
//! INHERITs its actual's mapping, analysed as called from each call site, does the
//! work the simulator finds in the same body with that mapping written out; the
//! implicit remapping at a call to a prescriptive dummy moves, per processor pair, the
//! elements the simulator's owners say change hands.

use costline_db::Options;
use costline_db::project;
use costline_db::{self as db, AnalysisHost};
use costline_fixtures::work_sim::{Mapping, analyze, simulate};
use costline_ide::report::file_report;
use costline_syntax::ir::{StmtKind, UnitKind};
use std::collections::{BTreeMap, BTreeSet};

/// The body of `scale`, as the callee and as a one-unit program.
const BODY: &str = "  do i = 1, m / 2 + 1\n    x(i) = 2.0 * x(i)\n  end do\n";

/// A main program calling `scale` with `a` (mapped `fa`) ten times, then with `b`
/// (mapped `fb`) once; `scale`'s dummy INHERITs.
fn two_sites(n: i64, p: i64, fa: &str, fb: &str) -> String {
    format!(
        "program main\n  integer, parameter :: n = {n}\n  real :: a(n), b(n)\n  integer :: it\n\
         !HPF$ PROCESSORS pr({p})\n!HPF$ DISTRIBUTE a({fa}) ONTO pr\n!HPF$ DISTRIBUTE b({fb}) ONTO pr\n\
         \x20 do it = 1, 10\n    call scale(a, n)\n  end do\n  call scale(b, n)\nend program main\n\n\
         subroutine scale(x, m)\n  integer :: m\n  real :: x(m)\n  integer :: i\n!HPF$ INHERIT :: x\n\
         {BODY}end subroutine scale\n"
    )
}

/// `scale` as a program with the mapping `f` and extent `n` written out.
fn written_out(n: i64, p: i64, f: &str) -> String {
    format!(
        "program scale\n  integer, parameter :: m = {n}\n  real :: x(m)\n  integer :: i\n\
         !HPF$ PROCESSORS pr({p})\n!HPF$ DISTRIBUTE x({f}) ONTO pr\n{BODY}end program scale\n"
    )
}

/// The work vector of the one assignment of `scale` as called from each CALL of the
/// main program, in order.
fn work_per_site(source: &str) -> Vec<Vec<u64>> {
    let mut host = AnalysisHost::new(&Options::default(), None);
    let file = host.add_file("t.f90", source.as_bytes().to_vec());
    let snapshot = host.snapshot();
    let db = snapshot.db();
    let units = db::file_units(db, file).as_ref().expect("loads");
    let main = *units
        .units
        .iter()
        .find(|u| u.kind(db) == UnitKind::Program)
        .expect("a main program");
    db::calls::callees(db, main)
        .into_iter()
        .flat_map(|(_, variants)| variants.into_iter().map(|(_, callee)| callee))
        .map(|callee| {
            let ir = db::lower(db, callee);
            let values = db::values(db, callee);
            let mut work = None;
            ir.walk(&mut |s, _| {
                if let StmtKind::Assign { .. } = s.kind {
                    work = values.load(s.id).map(|l| {
                        l.per_processor()
                            .iter()
                            .map(|w| *w as u64)
                            .collect::<Vec<_>>()
                    });
                }
            });
            work.expect("the assignment has a work vector")
        })
        .collect()
}

#[test]
fn inherited_mappings_do_the_simulated_work_at_each_call() {
    let formats = ["BLOCK", "CYCLIC", "CYCLIC(3)", "BLOCK(20)", "CYCLIC(2)"];
    let mut checked = 0;
    for (n, p) in [(64, 4), (37, 3), (50, 4)] {
        for (k, fa) in formats.iter().enumerate() {
            let fb = formats[(k + 1 + n as usize) % formats.len()];
            if fa.starts_with("BLOCK(") && 20 * p < n {
                continue;
            }
            let got = work_per_site(&two_sites(n, p, fa, fb));
            assert_eq!(got.len(), 2, "two calls of scale");
            for (f, work) in [fa, &fb].into_iter().zip(&got) {
                let one = written_out(n, p, f);
                let sim = simulate(&analyze(&one, &[]).expect("analyzes")).expect("simulates");
                let counts = sim.statements.values().next().expect("one assignment");
                assert_eq!(
                    work, &counts.work,
                    "n={n} p={p}: scale(x) as called with a {f} actual"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "{checked} sites checked");
}

/// The analysis of `source` as the one file `t.f90`.
fn analyze_one(source: &str) -> project::FileAnalysis {
    project::analyze(
        &[("t.f90".to_string(), source.as_bytes().to_vec())],
        &BTreeMap::new(),
    )
    .pop()
    .expect("one file")
    .expect("loads")
}

/// A main program passing `c` (mapped `fc`) to `smooth`, whose dummy is mapped `fy`
/// prescriptively, `calls` times.
fn prescriptive(n: i64, p: i64, fc: &str, fy: &str, intent: &str) -> String {
    format!(
        "program main\n  integer, parameter :: n = {n}\n  real :: c(n, n)\n  integer :: it\n\
         !HPF$ PROCESSORS pr({p})\n!HPF$ DISTRIBUTE c({fc}) ONTO pr\n\
         \x20 do it = 1, 3\n    call smooth(c, n)\n  end do\nend program main\n\n\
         subroutine smooth(y, m)\n  integer :: m\n  real{intent} :: y(m, m)\n\
         !HPF$ PROCESSORS q({p})\n!HPF$ DISTRIBUTE y({fy}) ONTO q\n  y = y + 1.0\nend subroutine smooth\n"
    )
}

/// Elements moved per (sender, receiver) when every element goes from its owners under
/// `from` to each owner under `to` that did not have it, sent by the lowest-numbered
/// old owner — by the simulator's ownership.
fn moved(
    n: i64,
    from: (&Mapping, &str),
    to: (&Mapping, &str),
    env: &dyn Fn(&str) -> Option<i64>,
) -> BTreeMap<(usize, usize), u64> {
    let mut out = BTreeMap::new();
    for i in 1..=n {
        for j in 1..=n {
            let s: BTreeSet<usize> = from.0.owners(from.1, &[i, j], env).expect("owned");
            let r: BTreeSet<usize> = to.0.owners(to.1, &[i, j], env).expect("owned");
            let sender = *s.iter().next().expect("an owner");
            // The simulator numbers processors from 0, the report from 1.
            for x in r.difference(&s) {
                *out.entry((sender + 1, *x + 1)).or_default() += 1;
            }
        }
    }
    out
}

#[test]
fn the_remapping_at_a_call_moves_what_the_simulator_says() {
    let formats = [
        "BLOCK, *",
        "*, BLOCK",
        "CYCLIC, *",
        "*, CYCLIC(2)",
        "CYCLIC(3), *",
        "BLOCK(5), *",
    ];
    let mut cases = vec![(16, 4, "BLOCK, *", "*, BLOCK", "")];
    for (k, (n, p)) in [(13, 3), (12, 4), (10, 2)].into_iter().enumerate() {
        for (i, fc) in formats.iter().enumerate() {
            for (j, fy) in formats.iter().enumerate() {
                let intent = if (i + j + k) % 3 == 0 {
                    ", intent(in)"
                } else {
                    ""
                };
                // BLOCK(5) must cover the extent on p processors.
                if (fc.contains("(5)") || fy.contains("(5)")) && 5 * p < n {
                    continue;
                }
                cases.push((n, p, *fc, *fy, intent));
            }
        }
    }
    for (n, p, fc, fy, intent) in cases {
        let source = prescriptive(n, p, fc, fy, intent);
        let file = analyze_one(&source);
        let env_of = |k: usize| {
            let values = file.units[k].constants.values.clone();
            move |name: &str| values.get(name).copied()
        };
        let (main_env, callee_env) = (env_of(0), env_of(1));
        let caller = Mapping::new(&file.units[0].unit, &main_env).expect("caller mapping");
        let callee = Mapping::new(&file.units[1].unit, &callee_env).expect("callee mapping");
        let mut expected: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
        let entry = moved(n, (&caller, "c"), (&callee, "y"), &callee_env);
        let back = if intent.is_empty() {
            moved(n, (&callee, "y"), (&caller, "c"), &callee_env)
        } else {
            BTreeMap::new()
        };
        for (pair, k) in entry.into_iter().chain(back) {
            let slot = expected.entry(pair).or_default();
            slot.0 += 3.0;
            slot.1 += 3.0 * 4.0 * k as f64;
        }
        // The records of the CALL statement in the report.
        let report = serde_json::to_value(file_report(&file)).expect("serializes");
        let call = report["units"][0]["statements"]
            .as_array()
            .expect("statements")
            .iter()
            .find(|s| s["kind"] == "call")
            .expect("the call");
        let got: BTreeMap<(usize, usize), (f64, f64)> = call["comm"]
            .as_array()
            .map(|rs| {
                rs.iter()
                    .map(|r| {
                        let f = |k: &str| r[k].as_f64().expect("a number");
                        (
                            (f("from") as usize, f("to") as usize),
                            (f("messages"), f("bytes")),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(got, expected, "{fc} -> {fy}{intent} (n={n}, p={p})");
        let nt = call["metrics"]["nt"].as_f64().unwrap_or(0.0);
        assert_eq!(nt, expected.values().map(|v| v.0).sum::<f64>());
    }
}

/// The mapping an INHERIT dummy takes is the actual's mapping in force at the call: a
/// REDISTRIBUTE of the DYNAMIC actual before the second call changes what `scale` does
/// there, as the simulator finds with that mapping written out.
#[test]
fn an_inherited_mapping_is_the_one_in_force_at_the_call() {
    let (n, p) = (64, 4);
    let source = format!(
        "program main\n  integer, parameter :: n = {n}\n  real :: a(n)\n\
         !HPF$ PROCESSORS pr({p})\n!HPF$ DYNAMIC :: a\n!HPF$ DISTRIBUTE a(BLOCK) ONTO pr\n\
         \x20 call scale(a, n)\n!HPF$ REDISTRIBUTE a(CYCLIC) ONTO pr\n  call scale(a, n)\n\
         end program main\n\n\
         subroutine scale(x, m)\n  integer :: m\n  real :: x(m)\n  integer :: i\n!HPF$ INHERIT :: x\n\
         {BODY}end subroutine scale\n"
    );
    let got = work_per_site(&source);
    assert_eq!(got.len(), 2, "two calls of scale");
    for (f, work) in ["BLOCK", "CYCLIC"].into_iter().zip(&got) {
        let sim =
            simulate(&analyze(&written_out(n, p, f), &[]).expect("analyzes")).expect("simulates");
        let counts = sim.statements.values().next().expect("one assignment");
        assert_eq!(work, &counts.work, "scale(x) called with a {f} actual");
    }
    assert_ne!(
        got[0], got[1],
        "BLOCK and CYCLIC differ on the half-range loop"
    );
}

/// A main program passing `a(n, m)`, mapped `(fa, fb)` onto a p×q grid, to the
/// EXTRINSIC(HPF_LOCAL) `kern` `reps` times; `kern` walks a triangle of its own part.
fn local_kernel(n: i64, m: i64, grid: (i64, i64), fa: &str, fb: &str, reps: i64) -> String {
    let (p, q) = grid;
    format!(
        "program main\n  integer, parameter :: n = {n}, m = {m}\n  real :: a(n, m)\n  integer :: it\n\
         !HPF$ PROCESSORS pr({p}, {q})\n!HPF$ DISTRIBUTE a({fa}, {fb}) ONTO pr\n\
         \x20 do it = 1, {reps}\n    call kern(a, it)\n  end do\nend program main\n\n\
         extrinsic(hpf_local) subroutine kern(x, k)\n  real, dimension(:, :) :: x\n\
         \x20 integer :: k, i, j\n  do j = 1, size(x, 2)\n    x(1, j) = 0.0\n\
         \x20   do i = j, size(x, 1)\n      x(i, j) = x(i, j) + real(k)\n    end do\n  end do\n\
         end subroutine kern\n"
    )
}

/// An EXTRINSIC(HPF_LOCAL) procedure runs on each processor over that processor's own
/// elements of the actual: the assignments each processor executes are those of the
/// body run literally over the extents of the part the simulator's owners give it.
#[test]
fn a_local_procedure_does_each_processors_part() {
    let formats = ["BLOCK", "CYCLIC", "CYCLIC(3)", "BLOCK(15)", "*"];
    let mut checked = 0;
    for (n, m, grid) in [(23, 17, (2, 3)), (16, 16, (4, 2)), (9, 30, (3, 3))] {
        for (k, fa) in formats.iter().enumerate() {
            let fb = formats[(k * 2 + 1) % formats.len()];
            let (fa, fb) = (*fa, fb);
            // A `*` dimension takes no grid dimension: keep the grid's rank equal to
            // the distributed dimensions'.
            let grid = match (fa, fb) {
                ("*", "*") => continue,
                ("*", _) | (_, "*") => (grid.0 * grid.1, 1),
                _ => grid,
            };
            let source = local_kernel(n, m, grid, fa, fb, 3);
            let source = if grid.1 == 1 {
                source.replace(&format!("pr({}, 1)", grid.0), &format!("pr({})", grid.0))
            } else {
                source
            };
            let file = analyze_one(&source);
            let values = file.units[0].constants.values.clone();
            let env = move |name: &str| values.get(name).copied();
            let sim = Mapping::new(&file.units[0].unit, &env).expect("mapping");
            let processors = (grid.0 * grid.1) as usize;
            let mut rows: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); processors];
            let mut cols: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); processors];
            for i in 1..=n {
                for j in 1..=m {
                    for p in sim.owners("a", &[i, j], &env).expect("owned") {
                        rows[p].insert(i);
                        cols[p].insert(j);
                    }
                }
            }
            // A part is a box: its rows are those the processors of its grid row own,
            // its columns those of its grid column (a processor owning no element
            // still has a part of extent 0 along one dimension only).
            let (g1, g2) = (grid.0 as usize, grid.1 as usize);
            let extent = |sets: &[BTreeSet<i64>], same: &dyn Fn(usize) -> Vec<usize>| {
                (0..processors)
                    .map(|p| {
                        same(p)
                            .into_iter()
                            .flat_map(|o| sets[o].iter().copied())
                            .collect::<BTreeSet<i64>>()
                            .len() as i64
                    })
                    .collect::<Vec<i64>>()
            };
            let l1s = extent(&rows, &|p| (0..g2).map(|c| p % g1 + c * g1).collect());
            let l2s = extent(&cols, &|p| (0..g1).map(|r| r + (p / g1) * g1).collect());
            let expected: Vec<f64> = (0..processors)
                .map(|p| {
                    let (l1, l2) = (l1s[p], l2s[p]);
                    let mut count = 0;
                    for j in 1..=l2 {
                        count += 1;
                        for _ in j..=l1 {
                            count += 1;
                        }
                    }
                    3.0 * count as f64
                })
                .collect();
            let report = serde_json::to_value(file_report(&file)).expect("serializes");
            let call = report["units"][0]["statements"]
                .as_array()
                .expect("statements")
                .iter()
                .find(|s| s["kind"] == "call")
                .expect("the call");
            let got: Vec<f64> = call["work"]
                .as_array()
                .unwrap_or_else(|| panic!("a work vector ({fa}, {fb}): {call}"))
                .iter()
                .map(|w| w.as_f64().expect("a number"))
                .collect();
            assert_eq!(got, expected, "({fa}, {fb}) n={n} m={m} grid={grid:?}");
            assert_eq!(call["metrics"]["spread"], "local");
            assert!(call["comm"].is_null(), "no communication: {call}");
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked} cases");
}
