//! The incremental invariants, checked on salsa's execution log: an edit inside one
//! procedure re-analyzes that procedure only; moving procedures re-analyzes none; a
//! module edit reaches its users only when what they see changed; a binding change
//! re-evaluates without re-lowering.

use super::{AnalysisHost, ExecutionLog};
use crate::Options;
use crate::project::{FileAnalysis, UnitAnalysis};
use costline_fixtures::synthetic::{procedure_name, workspace_file};
use std::collections::BTreeMap;

/// The per-unit analysis queries, each of which must run once per changed unit.
const UNIT_QUERIES: &[&str] = &[
    "parse",
    "lower",
    "freqs",
    "mappings",
    "work",
    "constants",
    "counts",
    "values",
    "comm",
    "comm_values",
    "unit_diagnostics",
    "loop_wds",
];

struct Fixture {
    host: AnalysisHost,
    log: ExecutionLog,
    files: Vec<(String, String)>,
}

impl Fixture {
    fn new(files: &[(&str, String)]) -> Fixture {
        let log = ExecutionLog::default();
        let mut host = AnalysisHost::new(&test_options(BTreeMap::new()), Some(log.clone()));
        for (path, text) in files {
            host.add_file(path, text.clone().into_bytes());
        }
        let f = Fixture {
            host,
            log,
            files: files
                .iter()
                .map(|(p, t)| (p.to_string(), t.clone()))
                .collect(),
        };
        f.analyze_all();
        f.log.take();
        f
    }

    /// Analyzes every file, as the CLI or a workspace-wide diagnostic pass would.
    fn analyze_all(&self) -> Vec<FileAnalysis> {
        let snapshot = self.host.snapshot();
        self.files
            .iter()
            .map(|(p, _)| {
                snapshot
                    .file(p, crate::project::Detail::Numbers)
                    .expect("not cancelled")
                    .expect("in the workspace")
                    .expect("loads")
            })
            .collect()
    }

    /// Replaces the first occurrence of `from` in file `index`, analyzes everything, and
    /// returns how often each query ran.
    fn edit(&mut self, index: usize, from: &str, to: &str) -> BTreeMap<String, usize> {
        let (path, text) = &mut self.files[index];
        let at = text
            .find(from)
            .unwrap_or_else(|| panic!("`{from}` not in {path}"));
        text.replace_range(at..at + from.len(), to);
        let (path, text) = (path.clone(), text.clone());
        self.host.add_file(&path, text.into_bytes());
        self.analyze_all();
        executions(&self.log.take())
    }
}

fn test_options(bindings: BTreeMap<String, i64>) -> Options {
    let mut o = Options {
        bindings,
        ..Options::default()
    };
    // Deterministic counts: no time limits.
    o.freq.unit_max_steps = None;
    o
}

fn executions(log: &[String]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for entry in log {
        let name = entry.split('(').next().unwrap_or("").to_string();
        *out.entry(name).or_insert(0) += 1;
    }
    out
}

/// How often the first top-level DO loop of `unit` runs (an exact count).
fn first_loop_trips(unit: &UnitAnalysis) -> f64 {
    let do_loop = unit
        .unit
        .body
        .iter()
        .find(|s| matches!(s.kind, costline_syntax::ir::StmtKind::Loop(_)))
        .expect("a DO loop")
        .id;
    unit.values.freq(do_loop).unwrap().clone().unwrap().to_f64()
}

fn ran(counts: &BTreeMap<String, usize>, query: &str) -> usize {
    counts.get(query).copied().unwrap_or(0)
}

#[test]
fn an_edit_inside_one_of_200_procedures_reanalyzes_only_it() {
    let mut f = Fixture::new(&[("work.f90", workspace_file(200))]);
    // Five successive edits inside different procedures (salsa collects interned
    // values unused for three revisions: the other units must survive that).
    for (k, round) in [(17usize, 0), (120, 1), (45, 2), (199, 3), (3, 4)] {
        let name = procedure_name(k);
        let marker = format!("! Kernel {k}: setup");
        let counts = f.edit(0, &marker, &format!("! Kernel {k}: setup, edit {round}"));
        for q in UNIT_QUERIES {
            assert_eq!(
                ran(&counts, q),
                1,
                "{q} in round {round} ({name}): {counts:?}"
            );
        }
        // A change of the numbers: a section one element shorter.
        let from = format!("c(1:n) = c(1:n) + {k}.0");
        let counts = f.edit(
            0,
            &from,
            &format!("c(1:n - {round}) = c(1:n - {round}) + {k}.0"),
        );
        for q in UNIT_QUERIES {
            assert_eq!(
                ran(&counts, q),
                1,
                "{q} in round {round} ({name}): {counts:?}"
            );
        }
    }
}

#[test]
fn moving_procedures_reanalyzes_none() {
    let mut f = Fixture::new(&[("work.f90", workspace_file(20))]);
    let counts = f.edit(0, "! Synthetic", "! A new first line\n\n! Synthetic");
    for q in UNIT_QUERIES {
        assert_eq!(ran(&counts, q), 0, "{q}: {counts:?}");
    }
    // Swapping two procedures moves them both: still nothing to analyze again.
    let text = f.files[0].1.clone();
    let (a, b) = (
        costline_fixtures::synthetic::procedure(4),
        costline_fixtures::synthetic::procedure(5),
    );
    let swapped = text.replacen(&(a.clone() + "\n" + &b), &(b + "\n" + &a), 1);
    assert_ne!(swapped, text);
    f.files[0].1 = swapped.clone();
    f.host.add_file("work.f90", swapped.into_bytes());
    f.analyze_all();
    let counts = executions(&f.log.take());
    for q in UNIT_QUERIES {
        assert_eq!(ran(&counts, q), 0, "{q} after the swap: {counts:?}");
    }
}

#[test]
fn a_module_edit_reaches_its_users_only_through_what_they_see() {
    let module = "module sizes\n  implicit none\n  integer, parameter :: n = 100, m = 50\n  real :: unused_here\nend module sizes\n";
    let users = "subroutine uses_n(a)\n  use sizes\n  real :: a(n)\n  integer :: i\n  do i = 1, n\n    a(i) = 0.0\n  end do\nend subroutine\n\nsubroutine uses_m(b)\n  use sizes\n  real :: b(m)\n  integer :: i\n  do i = 1, m\n    b(i) = 1.0\n  end do\nend subroutine\n";
    let mut f = Fixture::new(&[("sizes.f90", module.into()), ("users.f90", users.into())]);

    // A comment in the module: nothing downstream changes.
    let counts = f.edit(
        0,
        "  implicit none\n",
        "  implicit none\n  ! sizes of the problem\n",
    );
    assert_eq!(ran(&counts, "lower"), 1, "the module itself: {counts:?}");
    assert_eq!(ran(&counts, "values"), 1, "the module itself: {counts:?}");

    // The same value written differently: the users' constants are unchanged.
    let counts = f.edit(0, "n = 100", "n = 50 * 2");
    assert_eq!(ran(&counts, "lower"), 1, "{counts:?}");
    assert_eq!(ran(&counts, "values"), 1, "only the module: {counts:?}");

    // A new value of n: its users are re-evaluated, none re-lowered.
    let counts = f.edit(0, "n = 50 * 2", "n = 200");
    assert_eq!(
        ran(&counts, "lower"),
        1,
        "only the module is re-lowered: {counts:?}"
    );
    assert_eq!(
        ran(&counts, "counts"),
        3,
        "the module and both users: {counts:?}"
    );
    let users = &f.analyze_all()[1];
    let count = |u: usize| first_loop_trips(&users.units[u]);
    assert_eq!(count(0), 200.0);
    assert_eq!(count(1), 50.0);

    // A new declaration in the module re-lowers only the units that mention it.
    let counts = f.edit(
        0,
        "  real :: unused_here\n",
        "  real :: unused_here, b_extra\n",
    );
    assert_eq!(ran(&counts, "lower"), 1, "{counts:?}");
}

/// A module's distributed arrays reach their users' mappings; changing one array's
/// distribution re-resolves the module and the one user naming it, and moving a
/// directive inside the module re-resolves no user.
#[test]
fn a_module_mapping_edit_reaches_only_the_users_naming_the_array() {
    let module = "module grid\n  integer, parameter :: n = 64\n  real :: u(n), v(n)\n!hpf$ processors pr(4)\n!hpf$ distribute u(block) onto pr\n!hpf$ distribute v(block) onto pr\nend module grid\n";
    let users = "subroutine on_u\n  use grid\n  integer :: i\n  do i = 1, n\n    u(i) = 0.0\n  end do\nend subroutine\n\nsubroutine on_v\n  use grid\n  integer :: i\n  do i = 1, n\n    v(i) = 1.0\n  end do\nend subroutine\n";
    let mut f = Fixture::new(&[("grid.f90", module.into()), ("users.f90", users.into())]);
    let work = |f: &Fixture, u: usize| {
        let users = &f.analyze_all()[1];
        let unit = &users.units[u];
        let mut out = Vec::new();
        unit.unit.walk(&mut |s, _| {
            if let Some(load) = unit.values.load(s.id) {
                out.push(load.per_processor().to_vec());
            }
        });
        out
    };
    assert_eq!(work(&f, 0), [vec![16.0; 4]]);
    assert_eq!(work(&f, 1), [vec![16.0; 4]]);

    let counts = f.edit(0, "distribute v(block)", "distribute v(cyclic(20))");
    assert_eq!(
        ran(&counts, "mappings"),
        2,
        "the module and on_v: {counts:?}"
    );
    assert_eq!(ran(&counts, "lower"), 1, "only the module: {counts:?}");
    assert_eq!(work(&f, 0), [vec![16.0; 4]]);
    assert_eq!(work(&f, 1), [vec![20.0, 20.0, 20.0, 4.0]]);

    // A blank line before the directives: the module's spans move, its users'
    // mappings stay.
    let counts = f.edit(0, "!hpf$ processors", "\n!hpf$ processors");
    assert_eq!(ran(&counts, "mappings"), 1, "only the module: {counts:?}");
}

#[test]
fn a_binding_change_reevaluates_without_reanalysis() {
    let text = "subroutine s(a, n, p)\n  integer :: n, p, i\n  real :: a(n)\n!HPF$ PROCESSORS pr(p)\n!HPF$ DISTRIBUTE a(BLOCK) ONTO pr\n  do i = 1, n\n    a(i) = 0.0\n  end do\nend subroutine\n\nsubroutine other(b)\n  real :: b(10)\n  b = 1.0\nend subroutine\n";
    let f = Fixture::new(&[("s.f90", text.into())]);
    let mut host = f.host;
    let bindings: BTreeMap<String, i64> = [("n".to_string(), 64), ("p".to_string(), 4)].into();
    host.set_options(&test_options(bindings));
    let snapshot = host.snapshot();
    let file = snapshot
        .file("s.f90", crate::project::Detail::Numbers)
        .unwrap()
        .unwrap()
        .unwrap();
    let counts = executions(&f.log.take());
    for q in ["parse", "lower", "freqs", "mappings", "work"] {
        assert_eq!(ran(&counts, q), 0, "{q}: {counts:?}");
    }
    // Both units read the bindings again; only the one whose values changed goes on.
    assert_eq!(ran(&counts, "local_constants"), 2, "{counts:?}");
    assert_eq!(ran(&counts, "constants"), 1, "{counts:?}");
    assert_eq!(
        ran(&counts, "values"),
        1,
        "only the unit mentioning n and p: {counts:?}"
    );
    let s = &file.units[0];
    let mut assign = None;
    s.unit.walk(&mut |stmt, _| {
        if matches!(stmt.kind, costline_syntax::ir::StmtKind::Assign { .. }) {
            assign = s.values.load(stmt.id).cloned();
        }
    });
    let assign = assign.expect("work under n = 64, p = 4");
    assert_eq!(assign.per_processor(), [16.0, 16.0, 16.0, 16.0]);
}

#[test]
fn a_machine_switch_reprices_without_recounting() {
    let text = "subroutine s(a, b, n, p)\n  integer :: n, p, i\n  real(8) :: a(n), b(n)\n!HPF$ PROCESSORS pr(p)\n!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a, b\n  do i = 2, n\n    a(i) = b(i-1) * 2.0d0\n  end do\nend subroutine\n";
    let f = Fixture::new(&[("s.f90", text.into())]);
    let mut host = f.host;
    let bindings: BTreeMap<String, i64> = [("n".to_string(), 64), ("p".to_string(), 4)].into();
    host.set_options(&test_options(bindings.clone()));
    let time_on = |host: &AnalysisHost| {
        let snapshot = host.snapshot();
        let file = snapshot
            .file("s.f90", crate::project::Detail::Numbers)
            .unwrap()
            .unwrap()
            .unwrap();
        file.units[0].times.unit.time_s
    };
    let hdr = time_on(&host);
    f.log.take();
    let ipsc = costline_model::machine::Catalog::discover(&[])
        .resolve("ipsc860")
        .unwrap();
    host.set_options(&Options {
        machine: std::sync::Arc::new(ipsc),
        ..test_options(bindings)
    });
    let slow = time_on(&host);
    let counts = executions(&f.log.take());
    for q in [
        "parse",
        "lower",
        "freqs",
        "work",
        "counts",
        "values",
        "comm",
        "comm_records",
        "ops",
    ] {
        assert_eq!(ran(&counts, q), 0, "{q}: {counts:?}");
    }
    assert!(ran(&counts, "comm_values") >= 1, "{counts:?}");
    assert!(ran(&counts, "times") >= 1, "{counts:?}");
    // A 40 MHz i860 with 75 µs messages is tens of times slower than a modern node.
    assert!(slow > 30.0 * hdr, "{slow} vs {hdr}");
}

/// Two files include `hdr.inc` (one of them in one of its two procedures), a third
/// does not: editing the header re-analyzes exactly the two including procedures,
/// whether the new text comes from the disk or from an editor buffer.
#[test]
fn a_header_edit_reanalyzes_exactly_the_procedures_that_include_it() {
    let dir = std::env::temp_dir().join(format!("costline-db-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let hdr = dir.join("hdr.inc");
    let header = |m: i64| {
        format!(
            "  integer, parameter :: m = {m}\n  real :: h(m)\n!HPF$ PROCESSORS pr(4)\n!HPF$ DISTRIBUTE h(BLOCK) ONTO pr\n"
        )
    };
    std::fs::write(&hdr, header(64)).unwrap();
    let including = |name: &str| {
        format!(
            "subroutine {name}\n  include 'hdr.inc'\n  integer :: i\n  do i = 1, m\n    h(i) = i\n  end do\nend subroutine {name}\n"
        )
    };
    let plain = |name: &str| {
        format!(
            "subroutine {name}(a)\n  real :: a(100)\n  integer :: i\n  do i = 1, 100\n    a(i) = 0.0\n  end do\nend subroutine {name}\n"
        )
    };
    let path = |name: &str| dir.join(name).display().to_string();
    let mut f = Fixture::new(&[
        (&path("a.f90"), including("a_in") + "\n" + &plain("a_out")),
        (&path("b.f90"), including("b_in")),
        (&path("c.f90"), plain("c_out")),
    ]);
    let trips = |f: &Fixture| -> Vec<f64> {
        f.analyze_all()
            .iter()
            .flat_map(|file| &file.units)
            .map(first_loop_trips)
            .collect()
    };
    assert_eq!(trips(&f), [64.0, 100.0, 64.0, 100.0]);
    f.log.take();
    let hdr = hdr.display().to_string();

    // Written on disk (the editor saw the file change).
    std::fs::write(&hdr, header(32)).unwrap();
    f.host.reload(&hdr);
    f.analyze_all();
    let counts = executions(&f.log.take());
    for q in UNIT_QUERIES {
        assert_eq!(ran(&counts, q), 2, "{q} after the disk edit: {counts:?}");
    }
    assert_eq!(trips(&f), [32.0, 100.0, 32.0, 100.0]);
    f.log.take();

    // Typed in the editor: its buffer wins over the disk.
    f.host.set_header_text(&hdr, header(16).into_bytes());
    f.analyze_all();
    let counts = executions(&f.log.take());
    for q in UNIT_QUERIES {
        assert_eq!(ran(&counts, q), 2, "{q} after the editor edit: {counts:?}");
    }
    assert_eq!(trips(&f), [16.0, 100.0, 16.0, 100.0]);
    f.log.take();

    // Closed in the editor: back to the disk's text.
    f.host.remove_file(&hdr);
    assert_eq!(trips(&f), [32.0, 100.0, 32.0, 100.0]);
    f.log.take();

    // Deleted: the includes are missing (a warning at each INCLUDE line), nothing else
    // is re-analyzed.
    std::fs::remove_file(&hdr).unwrap();
    f.host.reload(&hdr);
    let files = f.analyze_all();
    let counts = executions(&f.log.take());
    for q in UNIT_QUERIES {
        assert_eq!(ran(&counts, q), 2, "{q} after the deletion: {counts:?}");
    }
    let missing: Vec<&str> = files
        .iter()
        .flat_map(|file| &file.diagnostics)
        .filter(|d| d.code == "include")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(
        missing[0].starts_with("cannot find 'hdr.inc'"),
        "{missing:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fresh_database_keeps_the_workspace_settings_and_editor_texts_and_recomputes_the_same() {
    let dir = std::env::temp_dir().join(format!("costline-db-fresh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let hdr = dir.join("sizes.inc");
    std::fs::write(&hdr, "  integer, parameter :: m = 64\n").unwrap();
    let text = "subroutine s(a)\n  include 'sizes.inc'\n  real :: a(100)\n  integer :: i\n  do i = 1, m * k\n    a(1) = i\n  end do\nend subroutine s\n";
    let path = dir.join("s.f90").display().to_string();
    let log = ExecutionLog::default();
    let options = test_options(BTreeMap::from([("k".to_string(), 3)]));
    let mut host = AnalysisHost::new(&options, Some(log.clone()));
    host.add_file(&path, text.as_bytes().to_vec());
    // The editor's text of the header wins over the disk's.
    host.set_header_text(
        &hdr.display().to_string(),
        b"  integer, parameter :: m = 16\n".to_vec(),
    );
    let trips = |host: &AnalysisHost| -> f64 {
        let file = host
            .snapshot()
            .file(&path, crate::project::Detail::Numbers)
            .expect("not cancelled")
            .expect("in the workspace")
            .expect("loads");
        first_loop_trips(&file.units[0])
    };
    assert_eq!(trips(&host), 48.0);
    log.take();
    let fresh = host.fresh();
    drop(host);
    assert_eq!(trips(&fresh), 48.0);
    let counts = executions(&log.take());
    for q in UNIT_QUERIES {
        assert_eq!(ran(&counts, q), 1, "{q} is computed again: {counts:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_compiler_report_reprices_only_its_file_and_survives_a_fresh_database() {
    use crate::{CompilerOutput, content_hash};
    use costline_model::time::compiler_report::Report;
    use costline_model::time::vectorize::Source;
    let loops = |name: &str| {
        (1..=3)
            .map(|k| {
                format!(
                    "subroutine {name}{k}(n, a, b)\n  integer :: n, i\n  real(8) :: a(n), b(n)\n  \
                     do i = 1, n\n    a(i) = b(i) * {k}.0d0\n  end do\nend subroutine\n"
                )
            })
            .collect::<String>()
    };
    let (a, b) = (loops("a"), loops("b"));
    let mut f = Fixture::new(&[("a.f90", a.clone()), ("b.f90", b)]);
    let output = |text: &str| CompilerOutput {
        content: content_hash(text.as_bytes()),
        compiler: crate::Options::default().compiler_command(),
        report: Ok(std::sync::Arc::new(Report::parse(
            "a.f90:4:8: optimized: loop vectorized using 16 byte vectors\n",
            "a.f90",
        ))),
    };
    let sources = |f: &Fixture| -> Vec<Vec<Source>> {
        f.analyze_all()
            .iter()
            .map(|file| {
                file.units
                    .iter()
                    .flat_map(|u| u.vector.values().map(|v| v.source))
                    .collect()
            })
            .collect()
    };
    // The report's verdict (line 4: a1's loop) reaches a1 only, and only a.f90's units
    // ask again.
    f.host.set_compiler_output("a.f90", Some(output(&a)));
    let (r, c) = (Source::Rules, Source::Compiler);
    assert_eq!(sources(&f), [vec![c, r, r], vec![r, r, r]]);
    let counts = executions(&f.log.take());
    assert_eq!(ran(&counts, "vector_verdicts"), 3, "{counts:?}");
    assert_eq!(ran(&counts, "times"), 1, "{counts:?}");
    // An edit in b.f90 reads no report.
    let counts = f.edit(1, "b(i) * 2.0d0", "b(i) * 5.0d0");
    assert_eq!(ran(&counts, "vector_verdicts"), 1, "{counts:?}");
    assert_eq!(ran(&counts, "report_state"), 0, "{counts:?}");
    // A fresh database keeps the report and computes the same.
    let fresh = f.host.fresh();
    f.host = fresh;
    assert_eq!(sources(&f), [vec![c, r, r], vec![r, r, r]]);
    f.log.take();
    // An edit in a.f90 makes the report stale: the rules answer, in a1 too.
    f.edit(0, "b(i) * 3.0d0", "b(i) * 4.0d0");
    assert_eq!(sources(&f), [vec![r, r, r], vec![r, r, r]]);
}

#[test]
fn callers_and_cycles_found_per_procedure_are_the_call_graphs() {
    // `a` and `b` call each other, `c` itself, `d` calls `a` and the function `f`; the
    // main program calls `d` and `c`; `e` mentions `a` without calling it.
    let text = "\
subroutine a(n)\n  integer :: n\n  if (n > 0) call b(n - 1)\nend subroutine a\n\
subroutine b(n)\n  integer :: n\n  call a(n)\nend subroutine b\n\
recursive subroutine c(n)\n  integer :: n\n  if (n > 0) call c(n - 1)\nend subroutine c\n\
subroutine d(n)\n  integer :: n, k\n  call a(n)\n  k = f(n)\nend subroutine d\n\
integer function f(n)\n  integer :: n\n  f = n\nend function f\n\
subroutine e(a)\n  real :: a(4)\n  a(1) = 0.0\nend subroutine e\n\
program p\n  call d(3)\n  call c(2)\nend program p\n";
    let f = Fixture::new(&[("calls.f90", text.to_string())]);
    let db = &f.host.db;
    let graph = crate::calls::call_graph(db);
    let names = ["a", "b", "c", "d", "e", "f", "p"];
    for callee in names {
        let key = crate::calls::ProcName::new(db, callee.to_string());
        let expected = graph.callers.get(callee).cloned().unwrap_or_default();
        assert_eq!(
            crate::callers::callers_of(db, key),
            &expected,
            "callers of {callee}"
        );
        // A call closes a cycle when its callee reaches its caller.
        for caller in &expected {
            assert_eq!(
                crate::callers::reachable(db, key).contains(caller),
                graph.recursive(caller, callee),
                "{caller} → {callee}"
            );
        }
    }
    assert_eq!(graph.callers["a"], ["b", "d"]);
}

#[test]
fn callers_and_procedures_are_found_in_every_shard_group() {
    // 2,400 procedures: ~38 blocks of ~64 units, three groups of 16 shards. Callers in
    // the first and last groups, of procedures in all three.
    let callers = "\
subroutine first_caller(a, b, n)\n  integer :: n\n  real :: a(n), b(n)\n  call kernel_2400(a, b, n)\nend subroutine first_caller\n";
    let last = "\
subroutine last_caller(a, b, n)\n  integer :: n\n  real :: a(n), b(n)\n  call kernel_0001(a, b, n)\n  call kernel_1200(a, b, n)\nend subroutine last_caller\n";
    let text = format!(
        "{callers}{}{last}",
        costline_fixtures::synthetic::small_procedures_file(2400)
    );
    // Not analyzed: only the callers and procedures are asked.
    let mut host = AnalysisHost::new(&test_options(BTreeMap::new()), None);
    host.add_file("many.f90", text.clone().into_bytes());
    let check = |host: &AnalysisHost| {
        let db = &host.db;
        let groups = crate::callers::shard_groups(db).len();
        assert!(groups >= 3, "{groups} groups");
        let graph = crate::calls::call_graph(db);
        for callee in ["kernel_0001", "kernel_1200", "kernel_2400", "kernel_0002"] {
            let key = crate::calls::ProcName::new(db, callee.to_string());
            let expected = graph.callers.get(callee).cloned().unwrap_or_default();
            assert_eq!(crate::callers::callers_of(db, key), &expected, "{callee}");
        }
        for name in ["first_caller", "kernel_0640", "kernel_2399", "last_caller"] {
            let unit = crate::calls::procedure_named(db, name).map(|u| u.name(db).clone());
            assert_eq!(unit.as_deref(), Some(name));
        }
        assert!(crate::calls::procedure_named(db, "kernel_2401").is_none());
        graph.callers.clone()
    };
    let before = check(&host);
    assert_eq!(before["kernel_0001"], ["last_caller"]);
    assert_eq!(before["kernel_2400"], ["first_caller"]);
    // A call added in the last group to a procedure of the first.
    let text = text.replace(
        "  call kernel_1200(a, b, n)\n",
        "  call kernel_1200(a, b, n)\n  call kernel_0002(a, b, n)\n",
    );
    host.add_file("many.f90", text.into_bytes());
    assert_eq!(check(&host)["kernel_0002"], ["last_caller"]);
}

#[test]
fn an_edited_file_analyzes_as_its_text_loaded_anew() {
    let mut f = Fixture::new(&[("work.f90", workspace_file(30))]);
    let edits = [
        // A comment, a bound, a new call (the callee gets a caller), a unit added
        // between two, an END deleted and put back, a unit removed.
        ("! Kernel 7: setup", "! Kernel 7: setup, edited"),
        ("c(1:n) = c(1:n) + 12.0", "c(1:n - 1) = c(1:n - 1) + 12.0"),
        (
            "  c(1) = s\nend subroutine kernel_0007",
            "  c(1) = s\n  call kernel_0005(a, b, c, n / 2)\nend subroutine kernel_0007",
        ),
        (
            "end subroutine kernel_0009\n",
            "end subroutine kernel_0009\nsubroutine extra(x)\n  real :: x(8)\n  x(2:7) = 1.0\nend subroutine extra\n",
        ),
        ("end subroutine kernel_0011\n", "\n"),
        ("  c(1) = s\n\n", "  c(1) = s\nend subroutine kernel_0011\n"),
        (
            "subroutine extra(x)\n  real :: x(8)\n  x(2:7) = 1.0\nend subroutine extra\n",
            "",
        ),
    ];
    for (from, to) in edits {
        f.edit(0, from, to);
        let fresh = Fixture::new(&[("work.f90", f.files[0].1.clone())]);
        let (got, want) = (f.analyze_all(), fresh.analyze_all());
        assert_eq!(got[0].source, want[0].source, "after `{to}`");
        assert_eq!(got[0].diagnostics, want[0].diagnostics, "after `{to}`");
        assert_eq!(got[0].units.len(), want[0].units.len(), "after `{to}`");
        for (g, w) in got[0].units.iter().zip(&want[0].units) {
            assert_eq!(g.chunk, w.chunk, "after `{to}`");
            assert_eq!(g.unit, w.unit, "{} after `{to}`", g.chunk.name);
            // Every statement's count and per-processor work, in statement order.
            let seen = |u: &UnitAnalysis| {
                let mut ids = Vec::new();
                u.unit.walk(&mut |s, _| ids.push(s.id));
                let numbers: Vec<String> = ids
                    .iter()
                    .map(|&id| format!("{:?} {:?}", u.values.freq(id), u.values.load(id)))
                    .collect();
                format!("{:?} {numbers:?} {:?} {:?}", u.constants, u.runs, u.wd)
            };
            let (sg, sw) = (seen(g), seen(w));
            let at = sg
                .bytes()
                .zip(sw.bytes())
                .take_while(|(x, y)| x == y)
                .count();
            assert_eq!(
                sg,
                sw,
                "{} after `{to}`: from {}",
                g.chunk.name,
                &sg[at.saturating_sub(200)..]
            );
        }
    }
}

/// A module defined twice in the workspace warns at the later definition, and keeps
/// warning there after an edit elsewhere in the file (the module graph reads the units'
/// kinds and names from the split the edit makes).
#[test]
fn a_module_defined_again_warns_at_the_later_definition() {
    let text = "module m\n  integer :: k\nend module m\n\nsubroutine s()\nend subroutine s\n\n\
                module m\n  real :: x\nend module m\n"
        .to_string();
    let mut f = Fixture::new(&[("dup.f90", text.clone())]);
    let warned = |f: &Fixture| -> Vec<usize> {
        let file = f.analyze_all().remove(0);
        let text = file.source.normalized().to_string();
        file.diagnostics
            .iter()
            .filter(|d| d.code == "duplicate-module")
            .map(|d| text[..d.span.start as usize].lines().count())
            .collect()
    };
    assert_eq!(warned(&f), vec![7], "the second `module m`, on line 8");
    f.edit(0, "subroutine s()\n", "subroutine s()\n  ! edited\n");
    assert_eq!(warned(&f), vec![8], "moved a line down by the edit");
}

#[test]
fn editor_texts_split_as_loaded_anew_whatever_ends_they_come_with() {
    let path = "edited.f90";
    let split = |host: &AnalysisHost| {
        let file = host.files[path];
        let f = crate::units::file_units(&host.db, file).as_ref().unwrap();
        let units: Vec<String> = f
            .units
            .iter()
            .map(|u| u.text(&host.db).to_string())
            .collect();
        (f.chunks.as_ref().clone(), units)
    };
    let anew = |text: &str| {
        let mut host = AnalysisHost::new(&test_options(BTreeMap::new()), None);
        host.add_file(path, text.as_bytes().to_vec());
        split(&host)
    };
    let mut text = costline_fixtures::synthetic::small_procedures_file(300);
    let mut host = AnalysisHost::new(&test_options(BTreeMap::new()), None);
    host.add_editor_file(path, text.clone().into_bytes(), 1, None);
    assert!(split(&host) == anew(&text));
    // (from, to, the version the edit says it was made from, whether its ends are
    // the edit's or wrong): wrong ends of a version the host does not hold are not used.
    let extra = "subroutine extra(x)\n  real :: x(8)\n  x(2:7) = 1.0\nend subroutine extra\n";
    let after_10 = format!("end subroutine {}\n{extra}", procedure_name(10));
    let edits = [
        ("  ! procedure 150\n", "  ! procedure 150 edited\n", 1, true),
        (
            "  ! procedure 151\n",
            "  ! procedure 151\n  b(1) = 0.0\n",
            2,
            true,
        ),
        ("  ! procedure 152\n", "  ! procedure 152 x\n", 2, false),
        (
            &after_10[..after_10.len() - extra.len()],
            &after_10[..],
            4,
            true,
        ),
    ];
    for (version, (from, to, was, right)) in (2..).zip(edits) {
        let at = text.rfind(from).expect(from);
        let ends = if right {
            (at, text.len() - at - from.len())
        } else {
            (0, text.len() - from.len())
        };
        text.replace_range(at..at + from.len(), to);
        host.add_editor_file(path, text.clone().into_bytes(), version, Some((was, ends)));
        assert!(split(&host) == anew(&text), "after `{to}`");
    }
    // A text from elsewhere (the disk) in between: the editor's next ends are not used.
    text = text.replacen("  ! procedure 10\n", "  ! procedure 10 on disk\n", 1);
    host.add_file(path, text.clone().into_bytes());
    let old_len = text.len();
    text.push_str("! the end\n");
    host.add_editor_file(
        path,
        text.clone().into_bytes(),
        7,
        Some((6, (0, old_len - 1))),
    );
    assert!(split(&host) == anew(&text));
}
