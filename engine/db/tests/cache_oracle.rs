//! The cache-line oracle: the engine's cache-line model (engine/model/src/cache: distinct
//! lines and the lines loaded into each cache level per entry of a loop nest, by layer
//! conditions) against a set-associative LRU simulation of the same nest's address
//! trace (engine/fixtures/src/cache_sim), on the small-cache test machine (64-byte lines, L1
//! 8 KiB 8-way, L2 64 KiB 8-way, L3 512 KiB 16-way).
//!
//! Every case is one loop nest; the engine's estimate of its distinct lines and of the
//! lines each level loads must be within 10% of the simulation. Each case prints its
//! table (run with `-- --nocapture`): per level the estimate, the simulation, the
//! error, and, as a diagnostic only, a fully associative LRU simulation of the same
//! capacities, which separates set-conflict misses (set-associative above fully
//! associative) from capacity misses; then per array estimate/set-associative/fully
//! associative. Another test checks what holds of every LRU hierarchy whatever the
//! trace (a level loads each line at least once; a level loads no more than the one
//! above), on the engine's numbers alone. A property test checks the claim that
//! distinct lines are exact for box-shaped nests whose loop variables each run
//! through one dimension, and a narrowing of it those whose columns are whole lines.

use costline_db::Options;
use costline_db::project::{self, FileAnalysis, UnitAnalysis};
use costline_fixtures::cache_sim::Simulation;
use costline_model::cache::NestCache;
use costline_model::machine::Machine;
use costline_syntax::diagnostics::Severity;
use costline_syntax::ir::StmtKind;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Arc, OnceLock};

/// Allowed relative error of every estimate.
const TOLERANCE: f64 = 0.10;

const MACHINE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/machines/small-cache.toml"
);

fn machine() -> Arc<Machine> {
    static M: OnceLock<Arc<Machine>> = OnceLock::new();
    M.get_or_init(|| {
        Arc::new(
            costline_model::machine::read(std::path::Path::new(MACHINE))
                .unwrap_or_else(|e| panic!("{MACHINE}: {e:?}")),
        )
    })
    .clone()
}

/// `source` (one unit) analyzed on the small-cache machine under `bindings`; panics
/// when the front end reports an error.
fn analyze(source: &str, bindings: &[(&str, i64)]) -> FileAnalysis {
    let options = Options {
        bindings: bindings
            .iter()
            .map(|&(n, v)| (n.to_string(), v))
            .collect::<BTreeMap<_, _>>(),
        machine: machine(),
        ..Options::default()
    };
    let file = project::analyze_with(
        &[("t.f90".to_string(), source.as_bytes().to_vec())],
        &options,
    )
    .pop()
    .expect("one input, one result")
    .unwrap_or_else(|e| panic!("{e:?}\n{source}"));
    let problems: Vec<String> = file
        .diagnostics
        .iter()
        .chain(file.units.iter().flat_map(|u| u.diagnostics.iter()))
        .filter(|d| d.severity == Severity::Error || d.code == "syntax")
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    assert!(
        problems.is_empty(),
        "the front end rejected the program: {}\n{source}",
        problems.join("; ")
    );
    assert_eq!(file.units.len(), 1, "one unit expected\n{source}");
    file
}

/// The engine's cache numbers for the unit's top-level nest: the nest of the first
/// loop of its body.
fn top_nest(u: &UnitAnalysis) -> &NestCache {
    let id = u
        .unit
        .body
        .iter()
        .find_map(|s| matches!(s.kind, StmtKind::Loop(_)).then_some(s.id))
        .expect("the unit has a loop");
    let nest = u.cache.of(id).expect("the engine has the loop's nest");
    assert!(nest.outermost, "the first loop of the body is outermost");
    assert_eq!(
        u.cache.nests.iter().filter(|n| n.outermost).count(),
        1,
        "one top-level nest"
    );
    nest
}

fn error(est: f64, sim: u64) -> f64 {
    if sim == 0 {
        if est == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        (est - sim as f64).abs() / sim as f64
    }
}

/// One row of a comparison.
struct Row {
    what: String,
    est: f64,
    sim: u64,
    /// The fully associative simulation (a diagnostic).
    full: u64,
}

impl Row {
    fn error(&self) -> f64 {
        error(self.est, self.sim)
    }
}

/// The table of one case: the whole nest, then per array (diagnostics only).
fn table(name: &str, nest: &NestCache, sim: &Simulation, levels: &[String]) -> (Vec<Row>, String) {
    let mut rows = vec![Row {
        what: "distinct".into(),
        est: nest.distinct,
        sim: sim.distinct,
        full: sim.distinct,
    }];
    for (i, level) in levels.iter().enumerate() {
        rows.push(Row {
            what: level.clone(),
            est: nest.misses[i],
            sim: sim.misses[i],
            full: sim.full_misses[i],
        });
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "== {name}: {} accesses, entries {}, {} classes, {} processors{}",
        sim.accesses,
        nest.entries,
        nest.classes.len(),
        nest.per_processor.len(),
        if nest.divided { " (divided)" } else { "" }
    );
    let _ = writeln!(
        out,
        "{:<24} {:<9} {:>12} {:>12} {:>8} {:>12}",
        "case", "level", "estimate", "simulated", "error%", "full-assoc"
    );
    for r in &rows {
        let flag = if r.error() > TOLERANCE {
            "  <-- FAIL"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{:<24} {:<9} {:>12.1} {:>12} {:>8.2} {:>12}{flag}",
            name,
            r.what,
            r.est,
            r.sim,
            100.0 * r.error(),
            r.full
        );
    }
    // Per array: the engine's classes summed by array against the simulation
    // (estimate/set-associative/fully associative).
    let mut by_array: BTreeMap<&str, (f64, Vec<f64>)> = BTreeMap::new();
    for c in &nest.classes {
        let e = by_array
            .entry(c.array.as_str())
            .or_insert_with(|| (0.0, vec![0.0; levels.len()]));
        e.0 += c.distinct;
        for (x, m) in e.1.iter_mut().zip(&c.misses) {
            *x += m;
        }
    }
    for (array, counts) in &sim.by_array {
        let (ed, em) = by_array
            .get(array.as_str())
            .cloned()
            .unwrap_or((0.0, vec![0.0; levels.len()]));
        let refs: Vec<String> = nest
            .classes
            .iter()
            .filter(|c| &c.array == array)
            .map(|c| c.refs.join(" "))
            .collect();
        let _ = write!(out, "    {array:<3} distinct {ed:.0}/{}", counts.distinct);
        for (i, level) in levels.iter().enumerate() {
            let _ = write!(
                out,
                "  {level} {:.0}/{}/{}",
                em[i], counts.misses[i], counts.full_misses[i]
            );
        }
        let _ = writeln!(out, "   [{}]", refs.join(" | "));
    }
    for c in &nest.conditions {
        let _ = writeln!(
            out,
            "    layer condition of `{}`: {:.0} B, holds {:?}",
            c.var, c.bytes, c.holds
        );
    }
    (rows, out)
}

/// Runs one case: prints its table and asserts every row within the tolerance (of the
/// nearer of the two simulations when `conflicts`).
fn check(name: &str, source: &str, bindings: &[(&str, i64)], conflicts: bool) {
    let file = analyze(source, bindings);
    let u = &file.units[0];
    let nest = top_nest(u);
    let m = machine();
    let sim = costline_fixtures::cache_sim::simulate(u, &m)
        .unwrap_or_else(|e| panic!("{name}: {e}\n{source}"));
    let levels: Vec<String> = m.memory.levels.iter().map(|l| l.name.clone()).collect();
    let (rows, text) = table(name, nest, &sim, &levels);
    eprint!("{text}");
    // A conflict-bound case is held to the nearer of the two simulations.
    let reference = |r: &Row| {
        if conflicts && error(r.est, r.full) < error(r.est, r.sim) {
            r.full
        } else {
            r.sim
        }
    };
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| error(r.est, reference(r)) > TOLERANCE)
        .map(|r| {
            format!(
                "{}: estimate {:.1}, simulated {} ({:.1}%)",
                r.what,
                r.est,
                reference(r),
                100.0 * error(r.est, reference(r))
            )
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{name}: off by more than {}%: {} (the table is above)",
        100.0 * TOLERANCE,
        failed.join("; ")
    );
}

/// A subroutine with `integer, parameter :: n = N` (and more declarations) around
/// one nest.
fn program(params: &str, decls: &str, body: &str) -> String {
    format!(
        "subroutine t\n  integer, parameter :: {params}\n{decls}\n  integer :: i, j, k\n{body}\nend subroutine t\n"
    )
}

// ---------------------------------------------------------------------------------
// The simulator itself, by hand.

#[test]
fn simulator_counts_a_stream_by_hand() {
    // 1000 doubles read and 1000 written, 8 per line: 125 lines each, streamed once.
    let src = program(
        "n = 1000",
        "  real(8) :: a(n), b(n)",
        "  do i = 1, n\n    a(i) = b(i) + 1.0\n  end do",
    );
    let file = analyze(&src, &[]);
    let sim = costline_fixtures::cache_sim::simulate(&file.units[0], &machine()).unwrap();
    assert_eq!(sim.accesses, 2000);
    assert_eq!(sim.distinct, 250);
    assert_eq!(sim.misses, vec![250, 250, 250]);
}

#[test]
fn simulator_sees_conflicts_of_a_power_of_two_stride() {
    // a(1, j) for 9 columns of 1024 bytes: L1 has 16 sets, so every column's first line
    // is in set 0 (8 ways): the ninth evicts the first, and a second sweep misses all 9.
    let src = program(
        "n = 128",
        "  real(8) :: a(n, 9)",
        "  do k = 1, 2\n    do j = 1, 9\n      a(1, j) = 0.0\n    end do\n  end do",
    );
    let file = analyze(&src, &[]);
    let sim = costline_fixtures::cache_sim::simulate(&file.units[0], &machine()).unwrap();
    assert_eq!(sim.distinct, 9);
    assert_eq!(sim.misses, vec![18, 9, 9]);
}

#[test]
fn simulator_trace_order_and_addresses() {
    // b(i) = a(i-1) + a(i+1) under a 0-based declaration: reads of a then the write of
    // b; a(0) at a's base.
    let src = program(
        "n = 4",
        "  real(4) :: a(0:n+1), b(n)",
        "  do i = 1, 2\n    b(i) = a(i-1) + a(i+1)\n  end do",
    );
    let file = analyze(&src, &[]);
    let p = costline_fixtures::cache_sim::program(&file.units[0]).unwrap();
    let mut trace = Vec::new();
    p.run(&mut |a, w| trace.push((a, w)));
    assert_eq!(p.arrays, vec!["a".to_string(), "b".to_string()]);
    let a = 1u64 << 32;
    let b = (2u64 << 32) + 64 * 37;
    assert_eq!(
        trace,
        vec![
            (a, false),
            (a + 8, false),
            (b, true),
            (a + 4, false),
            (a + 12, false),
            (b + 4, true)
        ]
    );
}

// ---------------------------------------------------------------------------------
// The cases.

/// One nest to compare: a name, the program and the bindings of its unknowns.
struct Case {
    name: &'static str,
    source: String,
    bindings: Vec<(&'static str, i64)>,
}

const JACOBI: &str = "  do j = 2, n - 1
    do i = 2, n - 1
      b(i, j) = 0.25 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
    end do
  end do";

/// c = c + a·b in loop order `order` (outermost first) with c(m, n), a(m, p), b(p, n):
/// i runs 1..m, j 1..n, k 1..p.
fn matmul(order: &str, m: i64, n: i64, p: i64) -> String {
    let bound = |v: char| match v {
        'i' => "m",
        'j' => "n",
        _ => "p",
    };
    let mut body = String::new();
    for (d, v) in order.chars().enumerate() {
        let _ = writeln!(body, "{}do {v} = 1, {}", "  ".repeat(d + 1), bound(v));
    }
    let _ = writeln!(body, "        c(i, j) = c(i, j) + a(i, k) * b(k, j)");
    for d in (0..3).rev() {
        let _ = writeln!(body, "{}end do", "  ".repeat(d + 1));
    }
    program(
        &format!("m = {m}, n = {n}, p = {p}"),
        "  real(8) :: a(m, p), b(p, n), c(m, n)",
        body.trim_end(),
    )
}

/// y = y + a·x over a(n, n), with n bound by the caller.
fn matvec(outer: char, inner: char) -> String {
    format!(
        "subroutine t(n, a, x, y)\n  integer :: n, i, j\n  real(8) :: a(n, n), x(n), y(n)\n  do {outer} = 1, n\n    do {inner} = 1, n\n      y(i) = y(i) + a(i, j) * x(j)\n    end do\n  end do\nend subroutine t\n"
    )
}

fn case(name: &'static str, source: String) -> Case {
    Case {
        name,
        source,
        bindings: Vec::new(),
    }
}

/// Every case, in the order of the report.
fn cases() -> Vec<Case> {
    let mut out = vec![
        // 4 columns of 100 doubles: 3.2 KB, within L1.
        case(
            "jacobi2d n=100",
            program("n = 100", "  real(8) :: a(n, n), b(n, n)", JACOBI),
        ),
        // 4 columns of 600 doubles: 19 KB, beyond L1, within L2.
        case(
            "jacobi2d n=600",
            program("n = 600", "  real(8) :: a(n, n), b(n, n)", JACOBI),
        ),
        // Inner i: b stride-1, a one line per iteration (200 lines per sweep of i:
        // beyond L1, within L2).
        case(
            "transpose ji n=200",
            program(
                "n = 200",
                "  real(8) :: a(n, n), b(n, n)",
                "  do j = 1, n\n    do i = 1, n\n      b(i, j) = a(j, i)\n    end do\n  end do",
            ),
        ),
        case(
            "transpose ij n=200",
            program(
                "n = 200",
                "  real(8) :: a(n, n), b(n, n)",
                "  do i = 1, n\n    do j = 1, n\n      b(i, j) = a(j, i)\n    end do\n  end do",
            ),
        ),
    ];
    // Three 64x64 (32 KB) or 60x60 matrices: beyond L1 and L2, within L3. A column of
    // 64 doubles is 8 lines: a row of a 64x64 matrix falls into 2 of L1's 16 sets.
    for (name, order) in [
        ("matmul ijk n=64", "ijk"),
        ("matmul ikj n=64", "ikj"),
        ("matmul jik n=64", "jik"),
        ("matmul jki n=64", "jki"),
        ("matmul kij n=64", "kij"),
        ("matmul kji n=64", "kji"),
    ] {
        out.push(case(name, matmul(order, 64, 64, 64)));
    }
    for (name, order) in [
        ("matmul ijk n=60", "ijk"),
        ("matmul ikj n=60", "ikj"),
        ("matmul jik n=60", "jik"),
        ("matmul jki n=60", "jki"),
        ("matmul kij n=60", "kij"),
        ("matmul kji n=60", "kji"),
    ] {
        out.push(case(name, matmul(order, 60, 60, 60)));
    }
    out.extend([
        // c(500, 160) is 625 KB: beyond L3, so with k outermost every k sweep reloads
        // c from memory (capacity misses).
        case("matmul kij 500x160x5", matmul("kij", 500, 160, 5)),
        case("matmul kji 500x160x5", matmul("kji", 500, 160, 5)),
        // The same with a power-of-two column (4 KB): c's rows fall into few sets.
        case("matmul kij 512x160x5", matmul("kij", 512, 160, 5)),
        case(
            "triangular n=300",
            program(
                "n = 300",
                "  real(8) :: a(n, n), l(n, n), x(n)",
                "  do j = 1, n\n    do i = j, n\n      a(i, j) = a(i, j) - l(i, j) * x(j)\n    end do\n  end do",
            ),
        ),
        case(
            "section stride 2",
            program(
                "n = 100000",
                "  real(8) :: a(n), b(n)",
                "  a(1:n:2) = b(1:n:2) + 1.0",
            ),
        ),
        case(
            "section stride 16",
            program(
                "n = 100000",
                "  real(8) :: a(n), b(n)",
                "  a(1:n:16) = b(1:n:16) + 1.0",
            ),
        ),
        // Per j: a column of a streamed, y (50 lines) reused.
        Case {
            name: "matvec ji n=400",
            source: matvec('j', 'i'),
            bindings: vec![("n", 400)],
        },
        // Per i: a row of a (400 lines, beyond L1), x reused.
        Case {
            name: "matvec ij n=400",
            source: matvec('i', 'j'),
            bindings: vec![("n", 400)],
        },
        // Per k: 3 planes of a and one of b, 51 KB: beyond L1, within L2.
        case(
            "stencil3d n=40",
            program(
                "n = 40",
                "  real(8) :: a(n, n, n), b(n, n, n)",
                "  do k = 2, n - 1
    do j = 2, n - 1
      do i = 2, n - 1
        b(i, j, k) = a(i - 1, j, k) + a(i + 1, j, k) + a(i, j - 1, k) + a(i, j + 1, k) &
          + a(i, j, k - 1) + a(i, j, k + 1) - 6.0 * a(i, j, k)
      end do
    end do
  end do",
            ),
        ),
        // Inner j: every access on a line of its own; per i, 300 lines of each array
        // (beyond L1, within L2), reused by the next 15 values of i.
        case(
            "row order real4 n=300",
            program(
                "n = 300",
                "  real(4) :: a(n, n), b(n, n)",
                "  do i = 1, n\n    do j = 1, n\n      a(i, j) = 2.0 * b(i, j)\n    end do\n  end do",
            ),
        ),
        // Inner i walks a row of a, 2 KiB apart: 64 lines, within L1's 128 lines, but
        // all in one of its 16 sets (8 ways) and in 4 of L2's 128: each line is
        // evicted before the next j reuses it, in L1 and in L2.
        case(
            "row walk 2 KiB stride",
            program(
                "m = 256, n = 64",
                "  real(8) :: a(m, n), b(n, m)",
                "  do j = 1, m\n    do i = 1, n\n      b(i, j) = a(j, i)\n    end do\n  end do",
            ),
        ),
        // Columns of 5 doubles (40 bytes) swept in storage order: 100 lines in all,
        // most of them shared by two columns.
        case(
            "short columns 5x160",
            program(
                "m = 5, n = 160",
                "  real(8) :: a(m, n)",
                "  do j = 1, n\n    do i = 1, m\n      a(i, j) = 1.0\n    end do\n  end do",
            ),
        ),
    ]);
    out
}

/// Cases whose set-associative counts are dominated by set conflicts the model does
/// not see. It counts capacity, and the sets one class's own lines crowd into (a row of
/// a 64x64 matrix walked by the inner loop: `matmul ijk n=64`, `matmul jik n=64` and
/// `row walk 2 KiB stride` are held to the set-associative simulation alone), but not
/// lines of different classes stacked in the same sets, nor footprints within a few
/// lines of a level's capacity unevenly spread over its sets. These are held to the
/// nearer of the set-associative and the fully associative simulations (both printed).
const CONFLICT_BOUND: &[&str] = &[
    "matmul kij n=64",
    "matmul kji n=64",
    "matmul ikj n=60",
    "matmul kij n=60",
    "matmul kij 512x160x5",
];

fn check_named(name: &str) {
    let c = cases()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case `{name}`"));
    check(
        c.name,
        &c.source,
        &c.bindings,
        CONFLICT_BOUND.contains(&c.name),
    );
}

macro_rules! case_tests {
    ($($test:ident => $name:expr,)*) => {
        $(
            #[test]
            fn $test() {
                check_named($name);
            }
        )*

        #[test]
        fn every_case_has_a_test() {
            let tested = [$($name),*];
            for c in cases() {
                assert!(tested.contains(&c.name), "`{}` has no test", c.name);
            }
        }
    };
}

case_tests! {
    jacobi_2d_layer_condition_holds_in_l1 => "jacobi2d n=100",
    jacobi_2d_layer_condition_fails_in_l1_holds_in_l2 => "jacobi2d n=600",
    transpose_ji => "transpose ji n=200",
    transpose_ij => "transpose ij n=200",
    matmul_ijk_64 => "matmul ijk n=64",
    matmul_ikj_64 => "matmul ikj n=64",
    matmul_jik_64 => "matmul jik n=64",
    matmul_jki_64 => "matmul jki n=64",
    matmul_kij_64 => "matmul kij n=64",
    matmul_kji_64 => "matmul kji n=64",
    matmul_ijk_60 => "matmul ijk n=60",
    matmul_ikj_60 => "matmul ikj n=60",
    matmul_jik_60 => "matmul jik n=60",
    matmul_jki_60 => "matmul jki n=60",
    matmul_kij_60 => "matmul kij n=60",
    matmul_kji_60 => "matmul kji n=60",
    matmul_kij_overflows_l3 => "matmul kij 500x160x5",
    matmul_kji_overflows_l3 => "matmul kji 500x160x5",
    matmul_kij_overflows_l3_power_of_two => "matmul kij 512x160x5",
    triangular_update => "triangular n=300",
    strided_section_stride_2 => "section stride 2",
    strided_section_stride_16 => "section stride 16",
    matvec_ji => "matvec ji n=400",
    matvec_ij => "matvec ij n=400",
    stencil_3d_seven_point => "stencil3d n=40",
    row_order_traversal_real4 => "row order real4 n=300",
    short_columns_in_storage_order => "short columns 5x160",
    row_walk_power_of_two_stride_conflicts => "row walk 2 KiB stride",
}

/// What holds of any LRU hierarchy whatever the trace, per class and level: a level
/// loads every line at least once (misses >= distinct lines), and a level sees only
/// the misses of the one above (misses do not grow with the level). Engine only.
#[test]
fn estimates_are_at_least_compulsory_and_shrink_down_the_levels() {
    let mut problems = Vec::new();
    for c in cases() {
        let file = analyze(&c.source, &c.bindings);
        let nest = top_nest(&file.units[0]);
        for class in &nest.classes {
            let what = format!("{}: class {:?}", c.name, class.refs);
            for (i, m) in class.misses.iter().enumerate() {
                if *m < class.distinct * (1.0 - 1e-9) {
                    problems.push(format!(
                        "{what}: level {} loads {m:.1} lines, fewer than its {:.1} distinct lines",
                        i + 1,
                        class.distinct
                    ));
                }
            }
            for (i, w) in class.misses.windows(2).enumerate() {
                if w[1] > w[0] * (1.0 + 1e-9) {
                    problems.push(format!(
                        "{what}: level {} loads {:.1} lines, more than level {} ({:.1})",
                        i + 2,
                        w[1],
                        i + 1,
                        w[0]
                    ));
                }
            }
        }
    }
    for p in &problems {
        eprintln!("{p}");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------
// Distinct lines of random box-shaped nests: exact.

/// A random rectangular nest: loops over i, j (, k) in a random order with constant
/// bounds, one assignment of references `x(v + c, ...)` to one or two arrays whose
/// dimensions each take one loop variable.
#[derive(Clone, Debug)]
struct BoxNest {
    /// Loop variables, outermost first.
    order: Vec<usize>,
    /// Per variable: (first value, trips).
    ranges: Vec<(i64, i64)>,
    /// Per array: (element bytes, its dimensions).
    arrays: Vec<(u64, Vec<BoxDim>)>,
    /// (array, offset per dimension); the first is the left-hand side.
    refs: Vec<(usize, Vec<i64>)>,
}

/// A dimension of a random array: (the loop variable in it, padding of the declared
/// bounds below and above the elements the nest touches).
type BoxDim = (usize, i64, i64);

const VARS: [&str; 3] = ["i", "j", "k"];
const NAMES: [&str; 2] = ["a", "b"];

impl BoxNest {
    fn source(&self) -> String {
        let mut s = String::from("subroutine t\n  integer :: i, j, k\n");
        for (x, (elem, dims)) in self.arrays.iter().enumerate() {
            let shape: Vec<String> = dims
                .iter()
                .map(|&(v, below, above)| {
                    let (first, trips) = self.ranges[v];
                    format!("{}:{}", first - 2 - below, first + trips - 1 + 2 + above)
                })
                .collect();
            let _ = writeln!(s, "  real({elem}) :: {}({})", NAMES[x], shape.join(", "));
        }
        for (d, &v) in self.order.iter().enumerate() {
            let (first, trips) = self.ranges[v];
            let _ = writeln!(
                s,
                "{}do {} = {first}, {}",
                "  ".repeat(d + 1),
                VARS[v],
                first + trips - 1
            );
        }
        let text = |(x, offsets): &(usize, Vec<i64>)| {
            let subs: Vec<String> = self.arrays[*x]
                .1
                .iter()
                .zip(offsets)
                .map(|(&(v, _, _), &c)| match c {
                    0 => VARS[v].to_string(),
                    c if c > 0 => format!("{} + {c}", VARS[v]),
                    c => format!("{} - {}", VARS[v], -c),
                })
                .collect();
            format!("{}({})", NAMES[*x], subs.join(", "))
        };
        let rhs: Vec<String> = self.refs[1..].iter().map(text).collect();
        let rhs = if rhs.is_empty() {
            "1.0".to_string()
        } else {
            rhs.join(" + ")
        };
        let _ = writeln!(
            s,
            "{}{} = {rhs}",
            "  ".repeat(self.order.len() + 1),
            text(&self.refs[0])
        );
        for d in (0..self.order.len()).rev() {
            let _ = writeln!(s, "{}end do", "  ".repeat(d + 1));
        }
        s.push_str("end subroutine t\n");
        s
    }
}

fn box_nest() -> impl Strategy<Value = BoxNest> {
    (2usize..=3)
        .prop_flat_map(|depth| {
            let order = Just((0..depth).collect::<Vec<usize>>()).prop_shuffle();
            let ranges = prop::collection::vec((1i64..=3, 5i64..=60), depth);
            // Per array: element size, rank, which variables (a shuffled prefix), pads.
            let array = (
                prop::sample::select(vec![4u64, 8]),
                1..=depth,
                Just((0..depth).collect::<Vec<usize>>()).prop_shuffle(),
                prop::collection::vec((0i64..=3, 0i64..=5), depth),
            )
                .prop_map(|(elem, rank, vars, pads)| {
                    let dims: Vec<_> = (0..rank).map(|d| (vars[d], pads[d].0, pads[d].1)).collect();
                    (elem, dims)
                });
            let arrays = prop::collection::vec(array, 1..=2);
            (order, ranges, arrays)
        })
        .prop_flat_map(|(order, ranges, arrays)| {
            let count = arrays.len();
            let reference =
                (0..count).prop_flat_map(move |x| (Just(x), prop::collection::vec(-2i64..=2, 3)));
            let refs = prop::collection::vec(reference, 1..=4);
            (Just(order), Just(ranges), Just(arrays), refs)
        })
        .prop_map(|(order, ranges, arrays, refs)| {
            let refs = refs
                .into_iter()
                .map(|(x, mut offsets)| {
                    offsets.truncate(arrays[x].1.len());
                    (x, offsets)
                })
                .collect();
            BoxNest {
                order,
                ranges,
                arrays,
                refs,
            }
        })
}

impl BoxNest {
    /// The same nest with the first dimension of every array of rank >= 2 padded above
    /// so that a column is a whole number of 64-byte lines: no line is shared by two
    /// columns.
    fn whole_line_columns(mut self) -> BoxNest {
        for (elem, dims) in &mut self.arrays {
            if dims.len() < 2 {
                continue;
            }
            let (v, below, above) = dims[0];
            let extent = self.ranges[v].1 + 4 + below + above;
            let per_line = (64 / *elem) as i64;
            let pad = (per_line - extent % per_line) % per_line;
            dims[0] = (v, below, above + pad);
        }
        self
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        max_shrink_iters: 4096,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn distinct_lines_of_box_nests_are_exact(nest in box_nest()) {
        let src = nest.source();
        let file = analyze(&src, &[]);
        let u = &file.units[0];
        let engine = top_nest(u).distinct;
        let line = machine().memory.cache_line_bytes;
        let sim = costline_fixtures::cache_sim::distinct_lines(u, line).map_err(TestCaseError::fail)?;
        prop_assert_eq!(engine, sim as f64, "distinct lines of\n{}", src);
    }

    /// A diagnostic narrowing of the property above: with columns of whole lines.
    #[test]
    fn distinct_lines_of_box_nests_with_whole_line_columns_are_exact(
        nest in box_nest().prop_map(BoxNest::whole_line_columns)
    ) {
        let src = nest.source();
        let file = analyze(&src, &[]);
        let u = &file.units[0];
        let engine = top_nest(u).distinct;
        let line = machine().memory.cache_line_bytes;
        let sim = costline_fixtures::cache_sim::distinct_lines(u, line).map_err(TestCaseError::fail)?;
        prop_assert_eq!(engine, sim as f64, "distinct lines of\n{}", src);
    }
}
