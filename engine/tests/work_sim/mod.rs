//! An element-level simulator of HPF's owner-computes rule, independent of the
//! symbolic work analysis it checks: it runs a unit's loops iteration by iteration,
//! finds the owners of every element each assignment writes, and tallies work(S, p)
//! per processor (P^3T+ section 4.1; DESIGN.md section 3).
//!
//! Only the front end (source, IR and parsed directives) is shared with the engine.

pub mod cases;
pub mod comm;
mod control;
mod eval;
mod interp;
mod mapping;

pub use interp::Counts;

use costline_engine::diagnostics::Severity;
use costline_engine::ir::StmtKind;
use costline_engine::project::{self, FileAnalysis};
use interp::Interp;
pub use mapping::Mapping;
use std::collections::BTreeMap;

/// What every assignment of a unit did in one run.
#[derive(Debug)]
pub struct Simulation {
    /// |P|, the length of every work vector.
    pub processors: usize,
    /// By the 1-based source line of the assignment (one assignment per line).
    pub statements: BTreeMap<u32, Counts>,
}

/// Loads `source` (free-form Fortran, one unit) as file `t.f90` with the integer
/// `bindings` of its unknowns; errs when the front end found an error or left a
/// statement out, since the simulation would not be of the program as written.
pub fn analyze(source: &str, bindings: &[(&str, i64)]) -> Result<FileAnalysis, String> {
    let bindings: BTreeMap<String, i64> =
        bindings.iter().map(|&(n, v)| (n.to_string(), v)).collect();
    let file = project::analyze(
        &[("t.f90".to_string(), source.as_bytes().to_vec())],
        &bindings,
    )
    .pop()
    .expect("one input, one result")
    .map_err(|e| format!("{e:?}"))?;
    let problems: Vec<String> = file
        .diagnostics
        .iter()
        .chain(file.units.iter().flat_map(|u| u.diagnostics.iter()))
        .filter(|d| d.severity == Severity::Error || d.code == "syntax")
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    if problems.is_empty() {
        Ok(file)
    } else {
        Err(format!(
            "the front end rejected the program: {}",
            problems.join("; ")
        ))
    }
}

/// Runs the one unit of `file` and counts, for every assignment, how often it runs
/// and how often each processor runs it under owner computes.
pub fn simulate(file: &FileAnalysis) -> Result<Simulation, String> {
    let [u] = file.units.as_slice() else {
        return Err(format!(
            "{} units: the simulator runs one",
            file.units.len()
        ));
    };
    let env = |n: &str| u.constants.values.get(n).copied();
    let mapping = Mapping::new(&u.unit, &env)?;
    let mut by_id = Interp::new(&u.unit, &mapping, &u.constants.values).run()?;
    let mut statements = BTreeMap::new();
    let mut duplicate = None;
    u.unit.walk(&mut |s, _| {
        if let StmtKind::Assign { .. } = s.kind {
            let line = file.source.line_col(u.absolute(s.span).start).0;
            let counts = by_id.remove(&s.id).expect("every assignment is counted");
            if statements.insert(line, counts).is_some() {
                duplicate = Some(line);
            }
        }
    });
    match duplicate {
        Some(line) => Err(format!(
            "two assignments on line {line}: lines would not identify them"
        )),
        None => Ok(Simulation {
            processors: mapping.processors,
            statements,
        }),
    }
}
