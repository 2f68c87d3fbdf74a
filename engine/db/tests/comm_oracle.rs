//! The communication oracle: the records of every right-hand-side reference (who sends
//! whom how many messages and bytes per run of the unit, P^3T+ section 4.2), simulated
//! element by element (costline_fixtures::work_sim::comm) under owner computes, with the fetch
//! vectorized and hoisted out of the loops that carry no dependence on the array read.
//! The simulator is checked by hand on small examples; the engine's communication
//! analysis is then compared with it, record for record (and placement, element size,
//! exactness), on those examples and on random stencils, shifts, recurrences,
//! broadcasts, reductions, transposes, redistributions, matrix-vector programs,
//! template alignments and folding reads.
//!
//! Two engine bugs the oracle found have their own tests (hand-checked reproducers
//! and the random families that hit them): a replicated element was sent by all its
//! owners, also to processors holding a copy; an iteration set made of several pieces
//! (`if (i /= 3)`) counted a message per piece.

use costline_db::project::FileAnalysis;
use costline_fixtures::work_sim::analyze;
use costline_fixtures::work_sim::comm::{CommSimulation, SimRecord, SimRef, simulate_comm};
use costline_model::comm::{Pattern, Record, RefValues};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The simulation of `source` under `bindings`; panics with the reason it cannot run.
fn run(source: &str, bindings: &[(&str, i64)]) -> (FileAnalysis, CommSimulation) {
    let file = analyze(source, bindings).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let sim = simulate_comm(&file, false).unwrap_or_else(|e| panic!("{e}\n{source}"));
    (file, sim)
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

fn show(records: &[SimRecord]) -> String {
    if records.is_empty() {
        return "[] (local)".to_string();
    }
    let all: Vec<String> = records.iter().map(SimRecord::to_string).collect();
    format!("[{}]", all.join("; "))
}

fn show_engine(records: &[Record]) -> String {
    if records.is_empty() {
        return "[] (local)".to_string();
    }
    let all: Vec<String> = records
        .iter()
        .map(|r| format!("{}->{}: {} msg, {} B", r.from, r.to, r.messages, r.bytes))
        .collect();
    format!("[{}]", all.join("; "))
}

/// An engine count as an integer, when it is one.
fn integral(x: f64) -> Option<u64> {
    (x >= 0.0 && x.fract() == 0.0 && x < 9.0e15).then_some(x as u64)
}

/// The engine's records as the simulator's, or why they are not integers.
fn engine_records(records: &[Record]) -> Result<Vec<SimRecord>, String> {
    records
        .iter()
        .map(|r| match (integral(r.messages), integral(r.bytes)) {
            (Some(messages), Some(bytes)) => Ok(SimRecord {
                from: r.from,
                to: r.to,
                messages,
                bytes,
            }),
            _ => Err(format!(
                "a record that is not integral: {}",
                show_engine(std::slice::from_ref(r))
            )),
        })
        .collect()
}

/// The engine's element fetches of every assignment of the one unit of `file`, by
/// line (reductions are all-reduces of partial results, not element reads: their tree
/// is checked by the engine's unit tests).
fn engine_refs(file: &FileAnalysis) -> Result<BTreeMap<u32, Vec<RefValues>>, String> {
    let [u] = file.units.as_slice() else {
        return Err("not one unit".into());
    };
    let mut out = BTreeMap::new();
    u.unit.walk(&mut |s, _| {
        if let costline_syntax::ir::StmtKind::Assign { .. } = s.kind {
            let line = file.source.line_col(u.absolute(s.span).start).0;
            let fetches = u.comm.of(s.id).iter().filter(|r| {
                let callee = r.reference.split('(').next().unwrap_or_default();
                !costline_model::comm::reduction::is_reduction(callee)
            });
            out.insert(line, fetches.cloned().collect());
        }
    });
    Ok(out)
}

/// Compares one reference: placement, element size, exactness and records.
fn compare_ref(line: u32, sim: &SimRef, eng: &RefValues) -> Result<(), String> {
    let head = format!("line {line}, reference `{}`", sim.reference);
    let records = match &eng.records {
        Ok(r) => r,
        Err(why) => {
            return Err(format!(
                "{head}: the engine has no records ({why}); simulated {}",
                show(&sim.records)
            ));
        }
    };
    let got = engine_records(records).map_err(|e| format!("{head}: {e}"))?;
    let mut problems = Vec::new();
    if eng.array != sim.array {
        problems.push(format!("array `{}` vs `{}`", eng.array, sim.array));
    }
    if eng.elem_bytes != sim.elem_bytes {
        problems.push(format!(
            "element size {} B reported, {} B simulated",
            eng.elem_bytes, sim.elem_bytes
        ));
    }
    if (eng.placement.kept, eng.placement.hoisted) != (sim.kept, sim.hoisted) {
        problems.push(format!(
            "placement kept {} hoisted {} reported, kept {} hoisted {} simulated",
            eng.placement.kept, eng.placement.hoisted, sim.kept, sim.hoisted
        ));
    }
    if !eng.exact {
        problems.push("the records are not marked exact".to_string());
    }
    if got != sim.records {
        problems.push(format!(
            "records differ\n    engine:    {}\n    simulated: {}",
            show_engine(records),
            show(&sim.records)
        ));
    }
    // What follows from the records: a local reference is classified so, and the
    // metrics add the records up.
    if (eng.pattern == Pattern::Local) != got.is_empty() {
        problems.push(format!(
            "pattern {:?} with {} records",
            eng.pattern,
            got.len()
        ));
    }
    let messages: u64 = got.iter().map(|r| r.messages).sum();
    let bytes: u64 = got.iter().map(|r| r.bytes).sum();
    match eng.metrics {
        Some(m) if m.nt == messages as f64 && m.td_bytes == bytes as f64 => {}
        m => problems.push(format!(
            "metrics {m:?} for {messages} messages and {bytes} bytes"
        )),
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{head}: {}", problems.join("; ")))
    }
}

/// Compares the engine's communication of every assignment with the simulation:
/// the same references, and for each the same placement and records. Returns how
/// many references were compared.
fn compare(file: &FileAnalysis, sim: &CommSimulation) -> Result<usize, String> {
    let engine = engine_refs(file)?;
    let mut problems = Vec::new();
    let mut compared = 0;
    for (line, refs) in &sim.statements {
        let Some(eng) = engine.get(line) else {
            problems.push(format!("line {line}: the engine has no assignment there"));
            continue;
        };
        // The engine leaves out a reference to the left-hand side's own element, which
        // is always local.
        let mut sim_texts: Vec<&str> = refs
            .iter()
            .filter(|r| !(r.same_as_lhs && r.records.is_empty()))
            .map(|r| r.reference.as_str())
            .collect();
        let mut eng_texts: Vec<&str> = eng.iter().map(|r| r.reference.as_str()).collect();
        sim_texts.sort_unstable();
        eng_texts.sort_unstable();
        if sim_texts != eng_texts {
            problems.push(format!(
                "line {line}: the engine considers references {eng_texts:?}, the simulator {sim_texts:?}"
            ));
        }
        for r in refs {
            match eng.iter().find(|e| e.reference == r.reference) {
                Some(e) => {
                    compared += 1;
                    if let Err(why) = compare_ref(*line, r, e) {
                        problems.push(why);
                    }
                }
                None if r.same_as_lhs && r.records.is_empty() => compared += 1,
                None => {}
            }
        }
    }
    if problems.is_empty() {
        Ok(compared)
    } else {
        Err(format!(
            "{} (|P| = {})",
            problems.join("\n  "),
            sim.processors
        ))
    }
}

// ---------------------------------------------------------------------------------------
// Hand-checked examples

/// (from, to, messages, bytes).
type Rec = (usize, usize, u64, u64);

/// The expected communication of one reference: the assignment on the line holding
/// `marker`, the reference's lowered text, the loops kept and hoisted, the records.
type Expect = (&'static str, &'static str, usize, usize, &'static [Rec]);

/// A program checked by hand. Every reference of a marked line is listed.
struct Example {
    name: &'static str,
    source: String,
    bindings: &'static [(&'static str, i64)],
    expected: &'static [Expect],
}

fn example(
    name: &'static str,
    source: &str,
    bindings: &'static [(&'static str, i64)],
    expected: &'static [Expect],
) -> Example {
    Example {
        name,
        source: source.to_string(),
        bindings,
        expected,
    }
}

/// One 1-D statement over `a` and `b` of type `ty` distributed `format` onto pr(p),
/// inside `body`.
fn one_d(ty: &str, format: &str, body: &str) -> String {
    format!(
        "subroutine ex(n, p)
  integer :: n, p, i
  {ty} :: a(n), b(n)
!HPF$ PROCESSORS pr(p)
!HPF$ DISTRIBUTE ({format}) ONTO pr :: a, b
{body}
end subroutine ex
"
    )
}

/// n-by-n `a` and `b` of type real, distributed `fa` and `fb` onto `grid`.
fn two_d(grid: &str, fa: &str, fb: &str, body: &str) -> String {
    format!(
        "subroutine ex(n, p)
  integer :: n, p, i, j
  real :: a(n, n), b(n, n)
!HPF$ PROCESSORS pr({grid})
!HPF$ DISTRIBUTE a({fa}) ONTO pr
!HPF$ DISTRIBUTE b({fb}) ONTO pr
{body}
end subroutine ex
"
    )
}

const JACOBI: &str = "subroutine jacobi(n, p, niter)
  integer :: n, p, niter, it, i, j
  real :: a(n, n), b(n, n)
!HPF$ PROCESSORS pr(p)
!HPF$ DISTRIBUTE (*, BLOCK) ONTO pr :: a, b
  do it = 1, niter
    do j = 2, n-1
      do i = 2, n-1
        b(i,j) = 0.25*(a(i-1,j)+a(i+1,j)+a(i,j-1)+a(i,j+1))
      end do
    end do
    do j = 2, n-1
      do i = 2, n-1
        a(i,j) = b(i,j)
      end do
    end do
  end do
end subroutine jacobi
";

/// The hand-checked examples; the comments give the reasoning. Processors are
/// numbered from 1, column-major on a grid.
fn examples() -> Vec<Example> {
    let stencil = one_d(
        "real",
        "BLOCK",
        "  do i = 2, n - 1\n    b(i) = a(i - 1) + a(i + 1)\n  end do",
    );
    vec![
        // BLOCK, 16 on 4: blocks 1-4 | 5-8 | 9-12 | 13-16; i = 2..15. a(i-1): p2 runs
        // i = 5..8 and reads a(4..7): a(4) from p1; p3 a(8) from p2; p4 (i = 13..15)
        // a(12) from p3. a(i+1): p1 (i = 2..4) reads a(5) from p2; p2 a(9) from p3; p3
        // a(13) from p4. One element each; no loop writes a: one message per run.
        example(
            "stencil, block 16 on 4",
            &stencil,
            &[("n", 16), ("p", 4)],
            &[
                ("b(i) =", "a(i - 1)", 0, 1, &[(1, 2, 1, 4), (2, 3, 1, 4), (3, 4, 1, 4)]),
                ("b(i) =", "a(i + 1)", 0, 1, &[(2, 1, 1, 4), (3, 2, 1, 4), (4, 3, 1, 4)]),
            ],
        ),
        // BLOCK, 10 on 4: blocks 1-3 | 4-6 | 7-9 | 10; i = 2..9, so p4 runs nothing but
        // still sends a(10) to p3 for i = 9.
        example(
            "stencil, block 10 on 4",
            &stencil,
            &[("n", 10), ("p", 4)],
            &[
                ("b(i) =", "a(i - 1)", 0, 1, &[(1, 2, 1, 4), (2, 3, 1, 4)]),
                ("b(i) =", "a(i + 1)", 0, 1, &[(2, 1, 1, 4), (3, 2, 1, 4), (4, 3, 1, 4)]),
            ],
        ),
        // CYCLIC on 3: b(i) on mod(i-1, 3) + 1, a(i-1) always on the processor before
        // it (wrapping): 1 -> 2 a(1), a(4); 2 -> 3 a(2), a(5); 3 -> 1 a(3), a(6).
        example(
            "shift, cyclic 7 on 3",
            &one_d(
                "real",
                "CYCLIC",
                "  do i = 2, n\n    b(i) = a(i - 1)\n  end do",
            ),
            &[("n", 7), ("p", 3)],
            &[(
                "b(i) =",
                "a(i - 1)",
                0,
                1,
                &[(1, 2, 1, 8), (2, 3, 1, 8), (3, 1, 1, 8)],
            )],
        ),
        // CYCLIC(2) on 2: {1,2} {5,6} on p1, {3,4} {7,8} on p2; i = 1..6. p1 runs i = 1,
        // 2, 5, 6 and reads a(3), a(4), a(7), a(8), all on p2; p2 runs i = 3, 4 and
        // reads a(5), a(6) from p1.
        example(
            "shift by 2, cyclic(2) 8 on 2",
            &one_d(
                "real",
                "CYCLIC(2)",
                "  do i = 1, n - 2\n    b(i) = a(i + 2)\n  end do",
            ),
            &[("n", 8), ("p", 2)],
            &[("b(i) =", "a(i + 2)", 0, 1, &[(1, 2, 1, 8), (2, 1, 1, 16)])],
        ),
        // Broadcast: a(k), k = 3, is on p2 (blocks of 2); every other processor owns
        // some b(i) and needs that one element: one message of one double each.
        example(
            "broadcast",
            "subroutine ex(n, p)
  integer :: n, p, i
  integer, parameter :: k = 3
  double precision :: a(n), b(n)
!HPF$ PROCESSORS pr(p)
!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a, b
  do i = 1, n
    b(i) = a(k)
  end do
end subroutine ex
",
            &[("n", 8), ("p", 4)],
            &[("b(i) =", "a(k)", 0, 1, &[(2, 1, 1, 8), (2, 3, 1, 8), (2, 4, 1, 8)])],
        ),
        // A row broadcast, (BLOCK, *) on 2: row 1 is on p1; p2 runs rows 3-4 and needs
        // a(1, 1..4): 4 distinct elements in one message.
        example(
            "row broadcast",
            &two_d(
                "p",
                "BLOCK, *",
                "BLOCK, *",
                "  do j = 1, n\n    do i = 1, n\n      b(i, j) = a(1, j)\n    end do\n  end do",
            ),
            &[("n", 4), ("p", 2)],
            &[("b(i, j) =", "a(1, j)", 0, 2, &[(1, 2, 1, 16)])],
        ),
        // A transpose between (BLOCK, *) and (*, BLOCK): b(i, j) and a(j, i) are both
        // on the block of j: nothing moves.
        example(
            "transpose, rows to columns",
            &two_d(
                "p",
                "BLOCK, *",
                "*, BLOCK",
                "  do j = 1, n\n    do i = 1, n\n      b(i, j) = a(j, i)\n    end do\n  end do",
            ),
            &[("n", 4), ("p", 2)],
            &[("b(i, j) =", "a(j, i)", 0, 2, &[])],
        ),
        // A transpose with both (BLOCK, *): p1 runs rows i = 1, 2 and reads a(j, i) for
        // j = 3, 4 from p2: 4 elements; and the other way round.
        example(
            "transpose, both by rows",
            &two_d(
                "p",
                "BLOCK, *",
                "BLOCK, *",
                "  do j = 1, n\n    do i = 1, n\n      b(i, j) = a(j, i)\n    end do\n  end do",
            ),
            &[("n", 4), ("p", 2)],
            &[("b(i, j) =", "a(j, i)", 0, 2, &[(1, 2, 1, 16), (2, 1, 1, 16)])],
        ),
        // A transpose on a 2x2 grid, (BLOCK, BLOCK): quadrant (c1, c2) reads quadrant
        // (c2, c1); the diagonal ones are local, processors 2 = (1, 0) and 3 = (0, 1)
        // swap 4 elements.
        example(
            "transpose, 2x2 grid",
            &two_d(
                "2, 2",
                "BLOCK, BLOCK",
                "BLOCK, BLOCK",
                "  forall (i = 1:n, j = 1:n) b(i, j) = a(j, i)",
            ),
            &[("n", 4), ("p", 4)],
            &[("forall", "a(j, i)", 0, 2, &[(2, 3, 1, 16), (3, 2, 1, 16)])],
        ),
        // A redistribution from rows to columns: p1 runs columns 1-2 and reads rows 3-4
        // of them from p2.
        example(
            "redistribution",
            &two_d(
                "p",
                "BLOCK, *",
                "*, BLOCK",
                "  b = a",
            ),
            &[("n", 4), ("p", 2)],
            &[("b = a", "a($1, $2)", 0, 2, &[(1, 2, 1, 16), (2, 1, 1, 16)])],
        ),
        // Jacobi, (*, BLOCK) on 2, n = 8: columns 1-4 | 5-8. The time loop writes a, so
        // the halo exchange stays inside it and is hoisted out of the spatial loops:
        // per time step p2 (j = 5..7) needs column 4, rows 2..7, from p1 (6 elements)
        // and p1 column 5 from p2. a(i±1, j) are in the same column: local. The copy
        // reads b, which the time loop writes too: kept 1, local.
        example(
            "jacobi, (*, block)",
            JACOBI,
            &[("n", 8), ("p", 2), ("niter", 3)],
            &[
                ("b(i,j) =", "a(i - 1, j)", 1, 2, &[]),
                ("b(i,j) =", "a(i + 1, j)", 1, 2, &[]),
                ("b(i,j) =", "a(i, j - 1)", 1, 2, &[(1, 2, 3, 72)]),
                ("b(i,j) =", "a(i, j + 1)", 1, 2, &[(2, 1, 3, 72)]),
                ("a(i,j) =", "b(i, j)", 1, 2, &[]),
            ],
        ),
        // Jacobi on a 2x2 grid, (BLOCK, BLOCK), n = 6: blocks 1-3 | 4-6 each way, i, j
        // = 2..5. a(i-1, j): the lower row block (c1 = 1, i = 4..5) needs row 3 for its 2
        // columns: 1 -> 2 and 3 -> 4, 2 elements per step; a(i+1, j): row 4, 2 -> 1
        // and 4 -> 3; a(i, j-1): column 3, 1 -> 3 and 2 -> 4; a(i, j+1): 3 -> 1, 4 -> 2.
        example(
            "jacobi, 2x2 grid",
            &JACOBI
                .replace("(n, p, niter)", "(n, niter)")
                .replace("n, p, niter,", "n, niter,")
                .replace("pr(p)", "pr(2, 2)")
                .replace("(*, BLOCK)", "(BLOCK, BLOCK)"),
            &[("n", 6), ("niter", 2)],
            &[
                ("b(i,j) =", "a(i - 1, j)", 1, 2, &[(1, 2, 2, 16), (3, 4, 2, 16)]),
                ("b(i,j) =", "a(i + 1, j)", 1, 2, &[(2, 1, 2, 16), (4, 3, 2, 16)]),
                ("b(i,j) =", "a(i, j - 1)", 1, 2, &[(1, 3, 2, 16), (2, 4, 2, 16)]),
                ("b(i,j) =", "a(i, j + 1)", 1, 2, &[(3, 1, 2, 16), (4, 2, 2, 16)]),
                ("a(i,j) =", "b(i, j)", 1, 2, &[]),
            ],
        ),
        // A time loop that does not write a: the fetch is hoisted out of it too, and
        // a(4) moves once however many steps run.
        example(
            "time loop without a dependence",
            &one_d(
                "real",
                "BLOCK",
                "  do it = 1, 3\n    do i = 2, n\n      b(i) = a(i - 1)\n    end do\n  end do",
            )
            .replace(":: n, p, i", ":: n, p, i, it"),
            &[("n", 8), ("p", 2)],
            &[("b(i) =", "a(i - 1)", 0, 2, &[(1, 2, 1, 4)])],
        ),
        // A time loop passing a to a procedure, which may write it: the fetch stays in.
        example(
            "time loop calling a procedure",
            &one_d(
                "real",
                "BLOCK",
                "  do it = 1, 3\n    do i = 2, n\n      b(i) = a(i - 1)\n    end do\n    call update(a)\n  end do",
            )
            .replace(":: n, p, i", ":: n, p, i, it"),
            &[("n", 8), ("p", 2)],
            &[("b(i) =", "a(i - 1)", 1, 1, &[(1, 2, 3, 12)])],
        ),
        // A recurrence: the DO loop writes a, so each element is fetched in its own
        // iteration; p2 runs i = 5..8 and only a(4) is not its own.
        example(
            "recurrence",
            &one_d(
                "real",
                "BLOCK",
                "  do i = 2, n\n    a(i) = a(i - 1) + 1.0\n  end do",
            ),
            &[("n", 8), ("p", 2)],
            &[("a(i) =", "a(i - 1)", 1, 0, &[(1, 2, 1, 4)])],
        ),
        // The same with CYCLIC on 2: every a(i-1) is on the other processor, one
        // message per iteration: p1 sends a(1), a(3), a(5), a(7) to p2 in 4 messages.
        // As FORALL (no loop carries a dependence) it is one message each way.
        example(
            "recurrence, cyclic",
            &one_d(
                "real",
                "CYCLIC",
                "  do i = 2, n\n    a(i) = a(i - 1) + 1.0\n  end do\n  forall (i = 2:n) b(i) = b(i - 1)",
            ),
            &[("n", 8), ("p", 2)],
            &[
                ("a(i) =", "a(i - 1)", 1, 0, &[(1, 2, 4, 16), (2, 1, 3, 12)]),
                ("forall", "b(i - 1)", 0, 1, &[(1, 2, 1, 16), (2, 1, 1, 12)]),
            ],
        ),
        // INDEPENDENT lets the fetch out of a loop writing a: CYCLIC on 2, a(2i) on p2
        // reads a(2i-1) on p1. Unasserted, a loop that writes each a(2i-1) just before
        // reading it keeps the fetch inside: 4 messages; asserted, one.
        example(
            "independent",
            &one_d(
                "real",
                "CYCLIC",
                "  do i = 1, n/2\n    a(2*i - 1) = 0.0\n    a(2*i) = a(2*i - 1)  ! sequential\n  end do
!HPF$ INDEPENDENT
  do i = 1, n/2
    a(2*i) = a(2*i - 1) + 1.0  ! asserted
  end do",
            ),
            &[("n", 8), ("p", 2)],
            &[
                ("! sequential", "a(2*i - 1)", 1, 0, &[(1, 2, 4, 16)]),
                ("! asserted", "a(2*i - 1)", 0, 1, &[(1, 2, 1, 16)]),
            ],
        ),
        // A scalar left-hand side runs on every processor: each reads the other's half.
        example(
            "reduction into a scalar",
            &one_d(
                "real",
                "BLOCK",
                "  s = 0.0\n  do i = 1, n\n    s = s + a(i)\n  end do",
            ),
            &[("n", 4), ("p", 2)],
            &[("s = s", "a(i)", 0, 1, &[(1, 2, 1, 8), (2, 1, 1, 8)])],
        ),
        // Array syntax and FORALL shifts: p2 (5..8) needs a(4); p1 (1..4) needs a(5).
        // The intrinsics: ABS is elemental (its argument is read element by element),
        // SUM and SIZE read whole arrays (no element references).
        example(
            "shifts",
            &one_d(
                "real",
                "BLOCK",
                "  b(2:n) = a(1:n-1)  ! array\n  forall (i = 1:n-1) b(i) = abs(a(i + 1)) + sum(a) + size(a)  ! forall",
            ),
            &[("n", 8), ("p", 2)],
            &[
                ("! array", "a($1 - 1)", 0, 1, &[(1, 2, 1, 4)]),
                ("! forall", "a(i + 1)", 0, 1, &[(2, 1, 1, 4)]),
            ],
        ),
        // Element sizes: every x(1:7) = x(2:8) sends x(5) from p2 to p1.
        example(
            "element sizes",
            "subroutine ex(n, p)
  integer :: n, p
  real(8) :: r8(n)
  double precision :: dp(n)
  complex :: c(n)
  complex(8) :: c16(n)
  double complex :: z(n)
  logical :: l(n)
  integer(kind=8) :: k8(n)
  integer :: k4(n)
  dimension :: x(n)
!HPF$ PROCESSORS pr(p)
!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: r8, dp, c, c16, z, l, k8, k4, x
  r8(1:n-1) = r8(2:n)
  dp(1:n-1) = dp(2:n)
  c(1:n-1) = c(2:n)
  c16(1:n-1) = c16(2:n)
  z(1:n-1) = z(2:n)
  l(1:n-1) = l(2:n)
  k8(1:n-1) = k8(2:n)
  k4(1:n-1) = k4(2:n)
  x(1:n-1) = x(2:n)
end subroutine ex
",
            &[("n", 8), ("p", 2)],
            &[
                ("r8(1", "r8($1 + 1)", 0, 1, &[(2, 1, 1, 8)]),
                ("dp(1", "dp($1 + 1)", 0, 1, &[(2, 1, 1, 8)]),
                ("c(1", "c($1 + 1)", 0, 1, &[(2, 1, 1, 8)]),
                ("c16(1", "c16($1 + 1)", 0, 1, &[(2, 1, 1, 16)]),
                ("z(1", "z($1 + 1)", 0, 1, &[(2, 1, 1, 16)]),
                ("l(1", "l($1 + 1)", 0, 1, &[(2, 1, 1, 4)]),
                ("k8(1", "k8($1 + 1)", 0, 1, &[(2, 1, 1, 8)]),
                ("k4(1", "k4($1 + 1)", 0, 1, &[(2, 1, 1, 4)]),
                ("x(1", "x($1 + 1)", 0, 1, &[(2, 1, 1, 4)]),
            ],
        ),
    ]
}

/// Hand-checked programs on which the engine counts a replicated element wrongly:
/// it has every owner of the element send it to every processor executing the read,
/// where the executing processor may hold a copy itself (the read is local) and
/// otherwise only the lowest-numbered owner sends.
fn replication_examples() -> Vec<Example> {
    vec![
        // y(k) aligned with a(*, k), a (BLOCK, *): a copy of y on every processor
        // owning rows of a, here both: every read is local.
        example(
            "replicated everywhere",
            "subroutine ex(n)
  integer :: n, i
  real :: a(n, n), y(n), b(n)
!HPF$ PROCESSORS pr(2)
!HPF$ DISTRIBUTE a(BLOCK, *) ONTO pr
!HPF$ DISTRIBUTE b(BLOCK) ONTO pr
!HPF$ ALIGN y(k) WITH a(*, k)
  do i = 1, n
    b(i) = y(i)
  end do
end subroutine ex
",
            &[("n", 4)],
            &[("b(i) =", "y(i)", 0, 1, &[])],
        ),
        // x(k) aligned with a(k, *) on a 2x2 grid, (BLOCK, BLOCK), n = 2: x(1) on
        // processors 1 and 3, x(2) on 2 and 4. a(1, 1) on 1 and a(2, 2) on 4 hold
        // their x(j); a(2, 1) on 2 gets x(1) from 1, a(1, 2) on 3 gets x(2) from 2.
        example(
            "replicated along a grid dimension",
            "subroutine ex(n)
  integer :: n, i, j
  real :: a(n, n), x(n)
!HPF$ PROCESSORS pr(2, 2)
!HPF$ DISTRIBUTE a(BLOCK, BLOCK) ONTO pr
!HPF$ ALIGN x(k) WITH a(k, *)
  do j = 1, n
    do i = 1, n
      a(i, j) = x(j)
    end do
  end do
end subroutine ex
",
            &[("n", 2)],
            &[("a(i, j) =", "x(j)", 0, 2, &[(1, 2, 1, 4), (2, 3, 1, 4)])],
        ),
    ]
}

/// Hand-checked programs whose iteration set is a union of pieces (`i /= 3` is
/// `i < 3` or `i > 3`), on which the engine counts a message per piece, and an
/// element read in several pieces once per piece.
fn split_guard_examples() -> Vec<Example> {
    let program = |read: &str, first: i64| {
        one_d(
            "real",
            "CYCLIC",
            &format!("  do i = {first}, n\n    if (i /= 3) b(i) = {read}\n  end do"),
        )
    };
    vec![
        // CYCLIC on 2, n = 8: p2 runs i = 2, 4, 6, 8 and reads only a(1), which p1
        // owns: one message of one element.
        example(
            "guard in two pieces, one element",
            &program("a(1)", 1),
            &[("n", 8), ("p", 2)],
            &[("b(i) =", "a(1)", 0, 1, &[(1, 2, 1, 4)])],
        ),
        // i = 2..8 but 3: p2 runs i = 2, 4, 6, 8 and reads a(1), a(3), a(5), a(7) from
        // p1 in one message; p1 runs i = 5, 7 and reads a(4), a(6) from p2.
        example(
            "guard in two pieces, shift",
            &program("a(i - 1)", 2),
            &[("n", 8), ("p", 2)],
            &[("b(i) =", "a(i - 1)", 0, 1, &[(1, 2, 1, 16), (2, 1, 1, 8)])],
        ),
    ]
}

/// The simulator against the hand-checked expectations, including the examples the
/// engine gets wrong.
#[test]
fn the_simulator_matches_the_hand_examples() {
    let mut failures = Vec::new();
    let all = examples()
        .into_iter()
        .chain(replication_examples())
        .chain(split_guard_examples());
    for ex in all {
        let (_, sim) = run(&ex.source, ex.bindings);
        let mut lines: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
        for &(marker, reference, kept, hoisted, expected) in ex.expected {
            let line = line_of(&ex.source, marker);
            lines.entry(line).or_default().push(reference);
            let Some(r) = sim.statements[&line]
                .iter()
                .find(|r| r.reference == reference)
            else {
                failures.push(format!(
                    "{}: no reference `{reference}` on line {line}: {:?}",
                    ex.name,
                    sim.statements[&line]
                        .iter()
                        .map(|r| &r.reference)
                        .collect::<Vec<_>>()
                ));
                continue;
            };
            let expected: Vec<SimRecord> = expected
                .iter()
                .map(|&(from, to, messages, bytes)| SimRecord {
                    from,
                    to,
                    messages,
                    bytes,
                })
                .collect();
            if (r.kept, r.hoisted) != (kept, hoisted) || r.records != expected {
                failures.push(format!(
                    "{} (`{reference}`): expected kept {kept} hoisted {hoisted} {}, simulated kept {} hoisted {} {}",
                    ex.name,
                    show(&expected),
                    r.kept,
                    r.hoisted,
                    show(&r.records)
                ));
            }
        }
        for (line, listed) in lines {
            if sim.statements[&line].len() != listed.len() {
                failures.push(format!(
                    "{}: line {line} has references {:?}, the example lists {listed:?}",
                    ex.name,
                    sim.statements[&line]
                        .iter()
                        .map(|r| &r.reference)
                        .collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Compares the engine with the simulation on `examples`; returns how many references
/// were compared.
fn check_examples(examples: &[Example]) -> usize {
    let mut compared = 0;
    let failures: Vec<String> = examples
        .iter()
        .filter_map(|ex| {
            let (file, sim) = run(&ex.source, ex.bindings);
            let checked = compare(&file, &sim);
            compared += checked.as_ref().copied().unwrap_or(0);
            checked.err().map(|e| {
                format!(
                    "{}:\n  {e}\nbindings {:?}\n{}",
                    ex.name, ex.bindings, ex.source
                )
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    compared
}

/// The engine against the simulator on the hand examples.
#[test]
fn the_engine_matches_the_hand_examples() {
    let compared = check_examples(&examples());
    assert!(compared >= 30, "only {compared} references compared");
}

#[test]

fn the_engine_counts_replicated_elements_once() {
    check_examples(&replication_examples());
}

#[test]

fn the_engine_counts_split_iteration_sets_once() {
    check_examples(&split_guard_examples());
}

/// A read through an index array (`b(idx(i))`, filled by the program) gets an upper
/// bound from the owner sets: the pairs the simulator sees are among the bound's, each
/// with no more messages, and no processor receives more bytes than the bound gives
/// it. A replicated array read through the index array is local.
#[test]
fn an_irregular_gather_stays_within_its_bound() {
    let gather = |format: &str, kept: &str| {
        format!(
            "subroutine ex(n, p, niter)
  integer :: n, p, niter, it, i
  integer :: idx(n)
  real :: a(n), b(n)
!HPF$ PROCESSORS pr(p)
!HPF$ DISTRIBUTE ({format}) ONTO pr :: a, b
  do i = 1, n
    idx(i) = mod(i*i, n) + 1
  end do
{kept}
    do i = 1, n
      a(i) = b(idx(i))
    end do
{end}
end subroutine ex
",
            end = if kept.is_empty() { "" } else { "  end do" }
        )
    };
    let mut checked = 0;
    for format in ["BLOCK", "CYCLIC", "CYCLIC(3)"] {
        for kept in ["", "  do it = 1, niter\n    b(it) = a(it)"] {
            for (n, p) in [(24, 4), (17, 3), (40, 8)] {
                let source = gather(format, kept);
                let bindings = [("n", n), ("p", p), ("niter", 3)];
                let (file, sim) = run(&source, &bindings);
                let engine = engine_refs(&file).unwrap();
                let line = line_of(&source, "a(i) = b(idx(i))");
                let eng = &engine[&line];
                let b = eng.iter().find(|r| r.array == "b").expect("b(k) is read");
                assert!(b.bound.is_some() && !b.exact, "{b:?}\n{source}");
                let bound = b.records.as_ref().expect("bound records");
                let simulated = &sim.statements[&line]
                    .iter()
                    .find(|r| r.array == "b")
                    .expect("simulated")
                    .records;
                assert!(!simulated.is_empty(), "the gather moves elements\n{source}");
                for r in simulated {
                    let pair = bound.iter().find(|x| (x.from, x.to) == (r.from, r.to));
                    assert!(
                        pair.is_some_and(|x| r.messages as f64 <= x.messages),
                        "{format} n={n} p={p}: {r} not within {}\n{source}",
                        show_engine(bound)
                    );
                }
                for to in 1..=p as usize {
                    let got: u64 = simulated
                        .iter()
                        .filter(|r| r.to == to)
                        .map(|r| r.bytes)
                        .sum();
                    let most: f64 = bound.iter().filter(|r| r.to == to).map(|r| r.bytes).sum();
                    assert!(
                        got as f64 <= most + 1e-9,
                        "{format} n={n} p={p}: {to} receives {got} B, bound {most} B"
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 18);
    // A replicated array read through the same subscript is where it is read.
    let replicated = "subroutine ex(n, p)
  integer :: n, p, i
  integer :: idx(n)
  real :: a(n), b(n)
!HPF$ PROCESSORS pr(p)
!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a
!HPF$ ALIGN b(*) WITH a(*)
  do i = 1, n
    idx(i) = mod(i*i, n) + 1
  end do
  do i = 1, n
    a(i) = b(idx(i))
  end do
end subroutine ex
";
    let (file, sim) = run(replicated, &[("n", 24), ("p", 4)]);
    assert_eq!(compare(&file, &sim), Ok(1));
}

/// Red-black relaxation (a step-2 inner loop whose start alternates with j) under the
/// layouts the alternatives offer for it, the narrowed and projected enumerations and
/// the residue classes of `mod(j, 2)` included, with and without a time-step loop
/// around the sweep and on blocks that do not divide n: engine = simulator.
#[test]
fn the_engine_matches_the_simulator_on_red_black_layouts() {
    let layouts = [
        ("16", "*, CYCLIC"),
        ("16", "CYCLIC, *"),
        ("16", "*, CYCLIC(2)"),
        ("16", "*, BLOCK"),
        ("16", "BLOCK, *"),
        ("4", "CYCLIC(8), *"),
        ("8", "*, CYCLIC(2)"),
        ("4, 4", "BLOCK, BLOCK"),
        ("4, 4", "CYCLIC, CYCLIC"),
        ("4, 4", "CYCLIC, BLOCK"),
        ("2, 4", "CYCLIC(2), CYCLIC(3)"),
    ];
    let sweep = "  do j = 2, n - 1
    do i = 2 + mod(j, 2), n - 1, 2
      a(i, j) = 0.25 * (a(i-1, j) + a(i+1, j) + a(i, j-1) + a(i, j+1))
    end do
  end do";
    for (grid, format) in layouts {
        for (n, steps) in [(32, false), (27, true)] {
            let body = if steps {
                format!(
                    "  do it = 1, 3
{sweep}
  end do"
                )
            } else {
                sweep.to_string()
            };
            let source = format!(
                "subroutine redblack(n)
  integer :: n, i, j, it
  real :: a(n, n)
!HPF$ PROCESSORS pr({grid})
!HPF$ DISTRIBUTE a({format}) ONTO pr
{body}
end subroutine redblack
"
            );
            let (file, sim) = run(&source, &[("n", n)]);
            let compared =
                compare(&file, &sim).unwrap_or_else(|e| panic!("{format}, n = {n}: {e}"));
            assert_eq!(compared, 4, "{format}, n = {n}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Random programs

/// A generated program and the bindings of its unknowns.
#[derive(Clone, Debug)]
struct Case {
    source: String,
    bindings: Vec<(&'static str, i64)>,
}

/// Choices drawn from proptest's raw numbers; past the end, every choice is 0 (option
/// 0 is always the simplest, so a failure shrinks toward a small program).
struct Choices<'a> {
    raw: &'a [u32],
    at: usize,
}

impl Choices<'_> {
    /// A number in 0..k.
    fn pick(&mut self, k: usize) -> usize {
        let v = self.raw.get(self.at).map_or(0, |&r| r as usize % k);
        self.at += 1;
        v
    }

    /// A number in lo..=hi.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.pick((hi - lo + 1) as usize) as i64
    }

    fn one<T: Copy>(&mut self, options: &[T]) -> T {
        options[self.pick(options.len())]
    }

    fn flag(&mut self) -> bool {
        self.pick(2) == 1
    }
}

/// `var + off` as Fortran.
fn plus(var: &str, off: i64) -> String {
    match off {
        0 => var.to_string(),
        o if o < 0 => format!("{var} - {}", -o),
        o => format!("{var} + {o}"),
    }
}

/// The processors: `pr(p)` or `pr(p1, p2)` with their extents.
#[derive(Clone, Debug)]
struct Grid {
    extents: Vec<i64>,
}

impl Grid {
    fn names(&self) -> &'static [&'static str] {
        if self.extents.len() == 1 {
            &["p"]
        } else {
            &["p1", "p2"]
        }
    }

    fn random(ch: &mut Choices, rank: usize) -> Grid {
        Grid {
            extents: (0..rank).map(|_| ch.int(1, 8)).collect(),
        }
    }
}

/// A 1-D distribution format for `extent` elements on `p` processors.
fn format_1d(ch: &mut Choices, extent: i64, p: i64) -> String {
    match ch.pick(5) {
        0 => "BLOCK".to_string(),
        1 => "CYCLIC".to_string(),
        2 => format!("CYCLIC({})", ch.int(1, 4)),
        3 => format!("BLOCK({})", (extent + p - 1) / p + ch.int(0, 2)),
        _ => "BLOCK".to_string(),
    }
}

/// The formats of an array of `rank` dimensions of `n` elements on `grid`: a 1-D
/// grid distributes one dimension (the others `*`), a 2-D grid both.
fn formats(ch: &mut Choices, rank: usize, n: i64, grid: &Grid) -> String {
    let n = n.max(1);
    let parts: Vec<String> = match (rank, grid.extents.as_slice()) {
        (1, &[p]) => vec![format_1d(ch, n, p)],
        (2, &[p]) => {
            let f = format_1d(ch, n, p);
            if ch.flag() {
                vec!["*".to_string(), f]
            } else {
                vec![f, "*".to_string()]
            }
        }
        (2, &[p1, p2]) => vec![format_1d(ch, n, p1), format_1d(ch, n, p2)],
        _ => unreachable!("grids have rank 1, or 2 for 2-D arrays"),
    };
    parts.join(", ")
}

/// Formats for a and b: the same now and then, else independent.
fn two_formats(ch: &mut Choices, rank: usize, n: i64, grid: &Grid) -> (String, String) {
    let fa = formats(ch, rank, n, grid);
    let fb = if ch.flag() {
        fa.clone()
    } else {
        formats(ch, rank, n, grid)
    };
    (fa, fb)
}

/// The type of a and b.
fn element_type(ch: &mut Choices) -> &'static str {
    ch.one(&[
        "real",
        "real",
        "double precision",
        "integer",
        "real(8)",
        "complex",
        "integer(kind=8)",
    ])
}

/// Assembles a subroutine: the unknowns `params` as dummy arguments bound by the
/// case, or (`literal`) as PARAMETER constants; then `decls`, `directives`, `body`.
fn program(
    literal: bool,
    params: &[(&'static str, i64)],
    decls: &[String],
    directives: &[String],
    body: &[String],
) -> Case {
    let mut source = String::new();
    let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
    if literal {
        let _ = writeln!(source, "subroutine comm_case");
        let values: Vec<String> = params.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        let _ = writeln!(source, "  integer, parameter :: {}", values.join(", "));
    } else {
        let _ = writeln!(source, "subroutine comm_case({})", names.join(", "));
        let _ = writeln!(source, "  integer :: {}", names.join(", "));
    }
    let _ = writeln!(source, "  integer :: i, j, it");
    let _ = writeln!(source, "  real :: s");
    for line in decls.iter().chain(directives).chain(body) {
        let _ = writeln!(source, "{line}");
    }
    source.push_str("end subroutine comm_case\n");
    Case {
        source,
        bindings: if literal { Vec::new() } else { params.to_vec() },
    }
}

/// `pr(p)` or `pr(p1, p2)`.
fn processors(grid: &Grid) -> String {
    format!("!HPF$ PROCESSORS pr({})", grid.names().join(", "))
}

/// A program over arrays `a` and `b` of `ty` with `rank` dimensions of n, distributed
/// `fa` and `fb` onto `grid`.
#[allow(clippy::too_many_arguments)]
fn ab_program(
    literal: bool,
    params: &[(&'static str, i64)],
    grid: &Grid,
    ty: &str,
    rank: usize,
    fa: &str,
    fb: &str,
    body: &[String],
) -> Case {
    let shape = vec!["n"; rank].join(", ");
    let decls = [format!("  {ty} :: a({shape}), b({shape})")];
    let mut directives = vec![processors(grid)];
    if fa == fb && literal {
        directives.push(format!("!HPF$ DISTRIBUTE ({fa}) ONTO pr :: a, b"));
    } else {
        directives.push(format!("!HPF$ DISTRIBUTE a({fa}) ONTO pr"));
        directives.push(format!("!HPF$ DISTRIBUTE b({fb}) ONTO pr"));
    }
    program(literal, params, &decls, &directives, body)
}

/// The unknowns every case has: n and the grid's extents.
fn base_params(n: i64, grid: &Grid) -> Vec<(&'static str, i64)> {
    let mut params = vec![("n", n)];
    params.extend(
        grid.names()
            .iter()
            .copied()
            .zip(grid.extents.iter().copied()),
    );
    params
}

/// How a statement over an iteration space is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Do,
    Forall,
    Array,
}

/// One dimension of an iteration space: `lo .. n - hi_gap`.
#[derive(Clone, Copy, Debug)]
struct Range {
    lo: i64,
    hi_gap: i64,
}

impl Range {
    fn upper(self, off: i64) -> String {
        plus("n", off - self.hi_gap)
    }

    /// The section `lo + off : n - hi_gap + off`.
    fn section(self, off: i64) -> String {
        format!("{}:{}", self.lo + off, self.upper(off))
    }
}

const VARS: [&str; 2] = ["i", "j"];

/// `name(var_1 + off_1, ...)` in a loop body, or its section in array syntax.
fn reference(form: Form, name: &str, ranges: &[Range], offsets: &[i64]) -> String {
    let subs: Vec<String> = ranges
        .iter()
        .zip(offsets)
        .enumerate()
        .map(|(d, (r, &o))| match form {
            Form::Array => r.section(o),
            _ => plus(VARS[d], o),
        })
        .collect();
    format!("{name}({})", subs.join(", "))
}

/// The statement `stmt` over the iteration space `ranges` in `form`, with the loop
/// dimensions in `order` (outermost first) for DO; `outer_extra` is written in the
/// outermost loop after the loops inside it.
fn nest(
    form: Form,
    pad: &str,
    ranges: &[Range],
    order: &[usize],
    stmt: &str,
    outer_extra: Option<&str>,
    body: &mut Vec<String>,
) {
    match form {
        Form::Array => body.push(format!("{pad}{stmt}")),
        Form::Forall => {
            let triplets: Vec<String> = ranges
                .iter()
                .enumerate()
                .map(|(d, r)| format!("{} = {}:{}", VARS[d], r.lo, r.upper(0)))
                .collect();
            body.push(format!("{pad}forall ({}) {stmt}", triplets.join(", ")));
        }
        Form::Do => {
            let mut indent = pad.to_string();
            for &d in order {
                let r = ranges[d];
                body.push(format!("{indent}do {} = {}, {}", VARS[d], r.lo, r.upper(0)));
                indent.push_str("  ");
            }
            body.push(format!("{indent}{stmt}"));
            for (k, _) in order.iter().enumerate().rev() {
                indent.truncate(indent.len() - 2);
                if k == 0
                    && let Some(extra) = outer_extra
                {
                    body.push(format!("{indent}  {extra}"));
                }
                body.push(format!("{indent}end do"));
            }
        }
    }
}

/// A loop form.
fn form(ch: &mut Choices) -> Form {
    ch.one(&[Form::Do, Form::Forall, Form::Array])
}

/// The loop order of a DO nest over `rank` dimensions, outermost first.
fn order(ch: &mut Choices, rank: usize) -> Vec<usize> {
    if rank == 2 && ch.pick(3) == 0 {
        vec![0, 1]
    } else {
        (0..rank).rev().collect()
    }
}

/// An element reference wrapped now and then in an elemental intrinsic or a factor.
fn term(ch: &mut Choices, r: String) -> String {
    match ch.pick(6) {
        4 => format!("abs({r})"),
        5 => format!("2*{r}"),
        _ => r,
    }
}

/// Stencils: `b = f(a at 1 to 4 offsets in -2..2 per dimension)` over the points
/// where every offset stays inside the array, as a DO nest, a FORALL or array syntax;
/// now and then in place (`a = f(a)`, a recurrence when in DO), under a time-step
/// loop that writes a back (so the halo exchange stays in it) or that does not, or in
/// a 2-D DO nest whose outer loop writes a (the fetch stays in the outer loop).
fn stencil(ch: &mut Choices) -> Case {
    let rank = 1 + ch.pick(2);
    let n = if rank == 1 {
        ch.int(1, 40)
    } else {
        ch.int(1, 20)
    };
    let grid_rank = if rank == 2 && ch.flag() { 2 } else { 1 };
    let grid = Grid::random(ch, grid_rank);
    let (fa, fb) = two_formats(ch, rank, n, &grid);
    let refs = 1 + ch.pick(4);
    let offsets: Vec<Vec<i64>> = (0..refs)
        .map(|_| (0..rank).map(|_| ch.int(-2, 2)).collect())
        .collect();
    let ranges: Vec<Range> = (0..rank)
        .map(|d| Range {
            lo: 1 + offsets.iter().map(|o| -o[d]).max().unwrap_or(0).max(0),
            hi_gap: offsets.iter().map(|o| o[d]).max().unwrap_or(0).max(0),
        })
        .collect();
    let form = form(ch);
    let order = order(ch, rank);
    let in_place = ch.pick(4) == 3;
    let lhs_name = if in_place { "a" } else { "b" };
    let zero = vec![0; rank];
    let lhs = reference(form, lhs_name, &ranges, &zero);
    let terms: Vec<String> = offsets
        .iter()
        .map(|o| {
            let r = reference(form, "a", &ranges, o);
            term(ch, r)
        })
        .collect();
    let mut rhs = terms.join(" + ");
    if ch.pick(8) == 7 {
        rhs.push_str(" + sum(a)");
    }
    let stmt = format!("{lhs} = {rhs}");
    // A write of a in the outer loop of a 2-D DO nest: the first point of the other
    // dimension, which must lie inside `a` even when the inner loop runs no iteration.
    let fits = ranges.iter().all(|r| r.lo <= n);
    let outer_write =
        (form == Form::Do && rank == 2 && !in_place && fits && ch.pick(4) == 3).then(|| {
            let outer = order[0];
            let subs: Vec<String> = (0..rank)
                .map(|d| {
                    if d == outer {
                        VARS[d].to_string()
                    } else {
                        ranges[d].lo.to_string()
                    }
                })
                .collect();
            let subs = subs.join(", ");
            format!("a({subs}) = b({subs})")
        });
    let time = ch.pick(3);
    let nt = ch.int(1, 3);
    let mut body = Vec::new();
    let pad = if time > 0 { "    " } else { "  " };
    if time > 0 {
        body.push("  do it = 1, nt".to_string());
    }
    nest(
        form,
        pad,
        &ranges,
        &order,
        &stmt,
        outer_write.as_deref(),
        &mut body,
    );
    if time == 1 && !in_place {
        let copy = format!(
            "{} = {}",
            reference(form, "a", &ranges, &zero),
            reference(form, "b", &ranges, &zero)
        );
        nest(form, pad, &ranges, &order, &copy, None, &mut body);
    }
    if time > 0 {
        body.push("  end do".to_string());
    }
    let mut params = base_params(n, &grid);
    params.push(("nt", nt));
    let ty = element_type(ch);
    ab_program(ch.pick(4) == 3, &params, &grid, ty, rank, &fa, &fb, &body)
}

/// Broadcasts: `b(i) = a(k)`, `b(i, j) = a(k, j)` or `a(i, k)`, a row moved by array
/// syntax, a reduction into a scalar; in a DO nest or FORALL, now and then under a
/// time-step loop that updates a(k).
fn broadcast(ch: &mut Choices) -> Case {
    let rank = 1 + ch.pick(2);
    let n = if rank == 1 {
        ch.int(1, 40)
    } else {
        ch.int(1, 20)
    };
    let grid_rank = if rank == 2 && ch.flag() { 2 } else { 1 };
    let grid = Grid::random(ch, grid_rank);
    let (fa, fb) = two_formats(ch, rank, n, &grid);
    let k = ch.int(1, n);
    let full = vec![Range { lo: 1, hi_gap: 0 }; rank];
    let order = order(ch, rank);
    let form = ch.one(&[Form::Do, Form::Forall]);
    let (stmt, form) = match (rank, ch.pick(4)) {
        (1, 0 | 1) => ("b(i) = a(k)".to_string(), form),
        (1, 2) => ("b(:) = a(k) + 1".to_string(), Form::Array),
        (1, _) => ("s = s + a(i)".to_string(), Form::Do),
        (_, 0) => ("b(i, j) = a(k, j)".to_string(), form),
        (_, 1) => ("b(i, j) = a(i, k)".to_string(), form),
        (_, 2) => {
            let row = ch.int(1, n);
            (format!("b({row}, :) = a(k, :)"), Form::Array)
        }
        (_, _) => ("s = s + a(i, k)".to_string(), Form::Do),
    };
    let time = ch.flag();
    let nt = ch.int(1, 3);
    let mut body = Vec::new();
    let pad = if time { "    " } else { "  " };
    if time {
        body.push("  do it = 1, nt".to_string());
    }
    nest(form, pad, &full, &order, &stmt, None, &mut body);
    if time {
        let at = vec!["k"; rank].join(", ");
        body.push(format!("{pad}a({at}) = a({at}) + 1"));
        body.push("  end do".to_string());
    }
    let mut params = base_params(n, &grid);
    params.push(("nt", nt));
    params.push(("k", k));
    let ty = element_type(ch);
    ab_program(ch.pick(4) == 3, &params, &grid, ty, rank, &fa, &fb, &body)
}

/// Transposes `b(i, j) = a(j, i)` and redistributions `b(i, j) = a(i, j)` between
/// random 2-D mappings, in a DO nest, FORALL or array syntax, now and then under a
/// time-step loop writing a back.
fn transpose(ch: &mut Choices) -> Case {
    let n = ch.int(1, 16);
    let grid_rank = 1 + ch.pick(2);
    let grid = Grid::random(ch, grid_rank);
    let (fa, fb) = two_formats(ch, 2, n, &grid);
    let full = vec![Range { lo: 1, hi_gap: 0 }; 2];
    let order = order(ch, 2);
    let (stmt, form) = match ch.pick(5) {
        0 | 1 => ("b(i, j) = a(j, i)".to_string(), Form::Do),
        2 => ("b(i, j) = a(j, i)".to_string(), Form::Forall),
        3 => ("b(i, j) = a(i, j) + a(j, i)".to_string(), Form::Forall),
        _ => ("b = a".to_string(), Form::Array),
    };
    let time = ch.flag();
    let nt = ch.int(1, 3);
    let mut body = Vec::new();
    let pad = if time { "    " } else { "  " };
    if time {
        body.push("  do it = 1, nt".to_string());
    }
    nest(form, pad, &full, &order, &stmt, None, &mut body);
    if time {
        body.push(format!("{pad}a = b"));
        body.push("  end do".to_string());
    }
    let mut params = base_params(n, &grid);
    params.push(("nt", nt));
    let ty = element_type(ch);
    let literal = ch.pick(4) == 3;
    if grid.extents.len() == 2 && ch.pick(3) == 2 {
        // b on a 1-D arrangement of the same size: processor k of each is the same.
        let line = Grid {
            extents: vec![grid.extents.iter().product()],
        };
        let fb = formats(ch, 2, n, &line);
        let decls = [format!("  {ty} :: a(n, n), b(n, n)")];
        let directives = [
            "!HPF$ PROCESSORS pr(p1, p2), line(p1*p2)".to_string(),
            format!("!HPF$ DISTRIBUTE a({fa}) ONTO pr"),
            format!("!HPF$ DISTRIBUTE b({fb}) ONTO line"),
        ];
        return program(literal, &params, &decls, &directives, &body);
    }
    ab_program(literal, &params, &grid, ty, 2, &fa, &fb, &body)
}

/// The element-moving intrinsics in array statements: CSHIFT and EOSHIFT (shifts of
/// either sign, past the extent too, along either dimension, of sections, nested, with
/// a boundary), TRANSPOSE and SPREAD; now and then inside a time loop that writes `a`.
fn intrinsic(ch: &mut Choices) -> Case {
    let n = ch.int(1, 12);
    let rank = 1 + ch.pick(2);
    let grid_rank = if rank == 2 { 1 + ch.pick(2) } else { 1 };
    let grid = Grid::random(ch, grid_rank);
    let (fa, fb) = two_formats(ch, rank, n, &grid);
    let shift = |ch: &mut Choices| match ch.pick(6) {
        0 => n + 1,
        1 => -(n + 1),
        k => ch.int(-3, 3) + k as i64 - 3,
    };
    let s1 = shift(ch);
    let s2 = shift(ch);
    let stmt = match (rank, ch.pick(6)) {
        (1, 0) => format!("b = cshift(a, {s1})"),
        (1, 1) => format!("b = eoshift(a, {s1})"),
        (1, 2) => format!("b = a + eoshift(a, shift={s1}, boundary=2)"),
        (1, 3) => "b(2:n) = cshift(a(1:n - 1), 1)".to_string(),
        (1, 4) => format!("b(1:n:2) = eoshift(a(1:n:2), {s1})"),
        (1, _) => format!("b = cshift(a, {s1}) + cshift(a, {s2})"),
        (_, 0) => format!("b = cshift(a, {s1}, {})", 1 + ch.pick(2)),
        (_, 1) => format!("b = eoshift(a, {s1}, dim={})", 1 + ch.pick(2)),
        (_, 2) => format!("b = cshift(cshift(a, {s1}, 1), {s2}, 2)"),
        (_, 3) => "b = transpose(a)".to_string(),
        (_, 4) => format!("b = a + cshift(transpose(a), {s1}, 2)"),
        _ => format!("b = spread(a(:, {}), {}, n)", ch.int(1, n), 1 + ch.pick(2)),
    };
    let time = ch.flag();
    let mut body = Vec::new();
    if time {
        body.push("  do it = 1, nt".to_string());
        body.push(format!("    {stmt}"));
        body.push("    a = b".to_string());
        body.push("  end do".to_string());
    } else {
        body.push(format!("  {stmt}"));
    }
    let mut params = base_params(n, &grid);
    params.push(("nt", ch.int(1, 3)));
    let ty = element_type(ch);
    let literal = ch.pick(4) == 3;
    ab_program(literal, &params, &grid, ty, rank, &fa, &fb, &body)
}

/// How a vector `name(n)` is mapped: distributed on a 1-D grid, or aligned with a row,
/// a column or the diagonal of `a`; with `replicate`, also aligned with a whole row or
/// column of `a` (`a(k, *)`: a copy on every processor owning part of row k).
fn vector_mapping(ch: &mut Choices, name: &str, n: i64, grid: &Grid, replicate: bool) -> String {
    match (
        grid.extents.as_slice(),
        ch.pick(if replicate { 7 } else { 5 }),
    ) {
        (&[p], 0 | 1) => format!(
            "!HPF$ DISTRIBUTE {name}({}) ONTO pr",
            format_1d(ch, n.max(1), p)
        ),
        (_, 2) => format!("!HPF$ ALIGN {name}(k) WITH a(k, 1)"),
        (_, 3) => format!("!HPF$ ALIGN {name}(k) WITH a(n, k)"),
        (_, 4) => format!("!HPF$ ALIGN {name}(k) WITH a(k, k)"),
        (_, 5) => format!("!HPF$ ALIGN {name}(k) WITH a(*, k)"),
        (_, 6) => format!("!HPF$ ALIGN {name}(k) WITH a(k, *)"),
        _ => format!("!HPF$ ALIGN {name}(k) WITH a(k, k)"),
    }
}

/// Matrices with vectors: matrix-vector products, outer products, reversals,
/// diagonals, reductions and in-place transposes, with vectors distributed or aligned
/// with (and replicated along) the matrix, in rectangular, triangular and strided DO
/// nests, now and then under a time-step loop that writes x.
fn mixed(ch: &mut Choices, replicate: bool) -> Case {
    let n = ch.int(1, 14);
    let grid_rank = 1 + ch.pick(2);
    let grid = Grid::random(ch, grid_rank);
    let fa = formats(ch, 2, n, &grid);
    let mut directives = vec![
        processors(&grid),
        format!("!HPF$ DISTRIBUTE a({fa}) ONTO pr"),
    ];
    directives.push(vector_mapping(ch, "x", n, &grid, replicate));
    directives.push(vector_mapping(ch, "y", n, &grid, replicate));
    let stmt = ch.one(&[
        "y(i) = y(i) + a(i, j)*x(j)",
        "a(i, j) = x(i)*y(j)",
        "a(i, j) = x(n + 1 - i) + y(n + 1 - j)",
        "y(i) = a(i, i) + a(j, i)",
        "s = s + a(i, j)*x(i)",
        "a(i, j) = a(j, i)",
        "x(i) = y(j) + a(j, j) + a(n + 1 - j, i)",
        "y(j) = x(i) - a(j, n + 1 - i)",
    ]);
    let (outer, inner) = ch.one(&[
        ("j = 1, n", "i = 1, n"),
        ("j = 1, n", "i = j, n"),
        ("i = 1, n", "j = 1, i"),
        ("j = 1, n, 2", "i = n, 1, -1"),
        ("i = n, 1, -2", "j = 2, n"),
        ("j = 1, n", "i = max(1, j - 1), min(n, j + 1)"),
    ]);
    let time = ch.flag();
    let nt = ch.int(1, 3);
    let pad = if time { "    " } else { "  " };
    let mut body = Vec::new();
    if time {
        body.push("  do it = 1, nt".to_string());
    }
    body.push(format!("{pad}do {outer}"));
    body.push(format!("{pad}  do {inner}"));
    body.push(format!("{pad}    {stmt}"));
    body.push(format!("{pad}  end do"));
    body.push(format!("{pad}end do"));
    if time {
        body.push(format!("{pad}do i = 1, n"));
        body.push(format!("{pad}  x(i) = 0.5*y(i)"));
        body.push(format!("{pad}end do"));
        body.push("  end do".to_string());
    }
    let ty = element_type(ch);
    let decls = [format!("  {ty} :: a(n, n), x(n), y(n)")];
    let mut params = base_params(n, &grid);
    params.push(("nt", nt));
    program(ch.pick(4) == 3, &params, &decls, &directives, &body)
}

/// How an array is aligned with the template: `t(coef*i + offset)`.
#[derive(Clone, Copy, Debug)]
struct Align {
    coef: i64,
    offset: i64,
}

impl Align {
    fn random(ch: &mut Choices) -> Align {
        Align {
            coef: ch.one(&[1, 1, 2, -1, 3]),
            offset: ch.int(-2, 2),
        }
    }

    /// The template positions of indices lb..n+lb-1 (at least index lb's).
    fn image(self, n: i64, lb: i64) -> (i64, i64) {
        let x = self.coef * lb + self.offset;
        let y = self.coef * (n.max(1) + lb - 1) + self.offset;
        (x.min(y), x.max(y))
    }

    fn text(self, var: &str) -> String {
        let scaled = match self.coef {
            1 => var.to_string(),
            -1 => format!("-{var}"),
            c => format!("{c}*{var}"),
        };
        plus(&scaled, self.offset)
    }
}

/// 1-D stencils over arrays with lower bound 1, 0, -1 or 3, aligned with a
/// distributed template by offsets, strides and reversal; in loops with steps,
/// reversed, under IF guards, through an integer temporary, two statements in one
/// loop, now and then in a time-step loop. With `split`, the guards are ones whose
/// iteration set is a union of pieces (`i /= 4`).
fn aligned(ch: &mut Choices, split: bool) -> Case {
    let n = ch.int(1, 30);
    let grid = Grid::random(ch, 1);
    let lb = ch.one(&[1, 1, 0, -1, 3]);
    let (align_a, align_b) = (Align::random(ch), Align::random(ch));
    let (a0, a1) = align_a.image(n, lb);
    let (b0, b1) = align_b.image(n, lb);
    let (t0, t1) = (a0.min(b0) - ch.int(0, 2), a1.max(b1) + ch.int(0, 2));
    let tf = format_1d(ch, t1 - t0 + 1, grid.extents[0]);
    let refs = 1 + ch.pick(3);
    let offsets: Vec<i64> = (0..refs).map(|_| ch.int(-2, 2)).collect();
    // Positions i run within 1..n; index = position + lb - 1.
    let lo = 1 + offsets.iter().map(|o| -o).max().unwrap_or(0).max(0);
    let gap = offsets.iter().copied().max().unwrap_or(0).max(0);
    let hi = plus("n", -gap);
    let header = match ch.pick(4) {
        0 | 1 => format!("do i = {lo}, {hi}"),
        2 => format!("do i = {lo}, {hi}, {}", ch.int(2, 3)),
        _ => format!("do i = {hi}, {lo}, -{}", ch.int(1, 2)),
    };
    // Through m = i + 1.
    let temp = ch.pick(4) == 3;
    let index = |o: i64| {
        if temp {
            plus("m", o + lb - 2)
        } else {
            plus("i", o + lb - 1)
        }
    };
    let terms: Vec<String> = offsets
        .iter()
        .map(|&o| term(ch, format!("a({})", index(o))))
        .collect();
    let stmt = format!("b({}) = {}", index(0), terms.join(" + "));
    let time = ch.flag();
    let nt = ch.int(1, 3);
    let pad = if time { "    " } else { "  " };
    let mut body = Vec::new();
    if time {
        body.push("  do it = 1, nt".to_string());
    }
    body.push(format!("{pad}{header}"));
    if temp {
        body.push(format!("{pad}  m = i + 1"));
    }
    match ch.pick(4) {
        0 | 1 => body.push(format!("{pad}  {stmt}")),
        2 => {
            let cond = if split {
                ch.one(&["mod(i, 3) /= 1", "i /= 4", "i < 3 .or. i > n - 2"])
            } else {
                ch.one(&["i > n/2", "mod(i, 3) == 1", "i >= 4 .and. i <= n - 2"])
            };
            body.push(format!("{pad}  if ({cond}) {stmt}"));
        }
        _ => {
            body.push(format!("{pad}  {stmt}"));
            let at = index(0);
            body.push(format!("{pad}  c({at}) = b({at}) + a({at})"));
        }
    }
    body.push(format!("{pad}end do"));
    if time {
        body.push(format!("{pad}a = b"));
        body.push("  end do".to_string());
    }
    let ty = element_type(ch);
    let shape = if lb == 1 {
        "n".to_string()
    } else {
        format!("{lb}:{}", plus("n", lb - 1))
    };
    let decls = [
        format!("  {ty} :: a({shape}), b({shape}), c({shape})"),
        "  integer :: m".to_string(),
    ];
    let directives = [
        processors(&grid),
        format!("!HPF$ TEMPLATE t({t0}:{t1})"),
        format!("!HPF$ DISTRIBUTE t({tf}) ONTO pr"),
        format!("!HPF$ ALIGN a(i) WITH t({})", align_a.text("i")),
        format!("!HPF$ ALIGN (i) WITH t({}) :: b", align_b.text("i")),
        "!HPF$ ALIGN c(i) WITH a(i)".to_string(),
    ];
    let mut params = base_params(n, &grid);
    params.push(("nt", nt));
    program(ch.pick(4) == 3, &params, &decls, &directives, &body)
}

/// Reads that fold several iterations onto one element (`w(i + j)`, `w(2*i + j)`)
/// or repeat an element over a loop (`x(j)` in a loop over i and j), on a 1-D grid,
/// in rectangular, triangular and strided nests.
fn fold(ch: &mut Choices) -> Case {
    let n = ch.int(1, 14);
    let grid = Grid::random(ch, 1);
    let p = grid.extents[0];
    let directives = vec![
        processors(&grid),
        format!("!HPF$ DISTRIBUTE w({}) ONTO pr", format_1d(ch, 3 * n, p)),
        format!("!HPF$ DISTRIBUTE x({}) ONTO pr", format_1d(ch, n, p)),
        format!("!HPF$ DISTRIBUTE y({}) ONTO pr", format_1d(ch, n, p)),
    ];
    let stmt = ch.one(&[
        "y(i) = y(i) + w(i + j)",
        "y(j) = w(2*i + j) + x(i)",
        "s = s + w(i + 2*j)",
        "y(i) = w(3*n + 1 - i - j) - x(j)",
        "x(j) = x(j) + w(2*j - i + n)",
        "w(i + j) = x(i) + y(j)",
    ]);
    let (outer, inner) = ch.one(&[
        ("j = 1, n", "i = 1, n"),
        ("j = 1, n", "i = j, n"),
        ("i = 1, n", "j = 1, i"),
        ("j = 1, n, 2", "i = n, 1, -1"),
        ("i = n, 1, -2", "j = 2, n"),
        ("j = 1, n", "i = max(1, j - 1), min(n, j + 1)"),
    ]);
    let time = ch.flag();
    let nt = ch.int(1, 3);
    let pad = if time { "    " } else { "  " };
    let mut body = Vec::new();
    if time {
        body.push("  do it = 1, nt".to_string());
    }
    body.push(format!("{pad}do {outer}"));
    body.push(format!("{pad}  do {inner}"));
    body.push(format!("{pad}    {stmt}"));
    body.push(format!("{pad}  end do"));
    body.push(format!("{pad}end do"));
    if time {
        body.push(format!("{pad}w(1:n) = x"));
        body.push("  end do".to_string());
    }
    let ty = element_type(ch);
    let decls = [format!("  {ty} :: w(3*n), x(n), y(n)")];
    let mut params = base_params(n, &grid);
    params.push(("nt", nt));
    program(ch.pick(4) == 3, &params, &decls, &directives, &body)
}

/// Analyzes and simulates a case and compares the engine with the simulation.
fn check_case(case: &Case) -> Result<usize, String> {
    let failed = |e: String| format!("{e}\nbindings {:?}\n{}", case.bindings, case.source);
    let file = analyze(&case.source, &case.bindings).map_err(failed)?;
    let sim = simulate_comm(&file, true).map_err(failed)?;
    compare(&file, &sim).map_err(failed)
}

/// The raw choices a case is built from (more than any case uses).
fn raw_case() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(any::<u32>(), 48)
}

/// Runs the family `build` on proptest's raw choices.
fn check_family(raw: &[u32], build: fn(&mut Choices) -> Case) -> Result<usize, String> {
    check_case(&build(&mut Choices { raw, at: 0 }))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Stencils, shifts and recurrences: the engine's records are the simulation's.
    #[test]
    fn stencils_match_the_simulation(raw in raw_case()) {
        let checked = check_family(&raw, stencil);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// Broadcasts and reductions.
    #[test]
    fn broadcasts_match_the_simulation(raw in raw_case()) {
        let checked = check_family(&raw, broadcast);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }

    /// Transposes and redistributions.
    #[test]
    fn transposes_match_the_simulation(raw in raw_case()) {
        let checked = check_family(&raw, transpose);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }

    /// Matrices with distributed vectors and vectors aligned without replication.
    #[test]
    fn matrix_vector_programs_match_the_simulation(raw in raw_case()) {
        let checked = check_family(&raw, |ch| mixed(ch, false));
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }

    /// Arrays aligned with templates, other lower bounds, steps, guards, temporaries.
    #[test]
    fn aligned_stencils_match_the_simulation(raw in raw_case()) {
        let checked = check_family(&raw, |ch| aligned(ch, false));
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }

    /// CSHIFT, EOSHIFT, TRANSPOSE and SPREAD.
    #[test]
    fn element_moving_intrinsics_match_the_simulation(raw in raw_case()) {
        let checked = check_family(&raw, intrinsic);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }

    /// Reads folding several iterations onto one element.
    #[test]
    fn folding_reads_match_the_simulation(raw in raw_case()) {
        let checked = check_family(&raw, fold);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// Vectors replicated along a grid dimension (`ALIGN x(k) WITH a(k, *)`).
    #[test]

    fn replicated_vectors_match_the_simulation(raw in raw_case()) {
        let checked = check_family(&raw, |ch| mixed(ch, true));
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }

    /// Guards whose iteration set is a union of pieces (`i /= 4`).
    #[test]

    fn split_guards_match_the_simulation(raw in raw_case()) {
        let checked = check_family(&raw, |ch| aligned(ch, true));
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }
}

/// A shifted read of a 6-D array distributed `(*, BLOCK, BLOCK, *, *, *)` onto a 2 x 2
/// grid (`x(i1, i2 - 1, i3 + 1, 2, i5, i6)` into an aligned `y`): every record, message
/// and byte as the element-level simulator finds them, and communication there is
/// (the shift crosses both grid dimensions' block edges).
#[test]
fn a_six_dimensional_shifted_read_matches_the_simulator() {
    let source = "program six
  integer, parameter :: n1 = 2, n2 = 5, n3 = 3
  real x(n1, n2, n3, 2, 2, 2), y(n1, n2, n3, 2, 2, 2)
  integer i1, i2, i3, i5, i6
!hpf$ processors pr(2, 2)
!hpf$ distribute x(*, block, block, *, *, *) onto pr
!hpf$ align y(a, b, c, d, e, f) with x(a, b, c, d, e, f)
  do i6 = 1, 2
    do i5 = 1, 2
      do i3 = 1, n3 - 1
        do i2 = 2, n2
          do i1 = 1, n1
            y(i1, i2, i3, 1, i5, i6) = x(i1, i2 - 1, i3 + 1, 2, i5, i6)
          end do
        end do
      end do
    end do
  end do
end program
";
    let (file, sim) = run(source, &[]);
    let compared = compare(&file, &sim).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compared, 1);
    let records: usize = sim
        .statements
        .values()
        .flatten()
        .map(|r| r.records.len())
        .sum();
    assert!(
        records >= 3,
        "{records} records: the shift should cross both grid dimensions"
    );
}
