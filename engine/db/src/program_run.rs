//! The program's MPI skeleton run ([`costline_model::comm::skeleton`]): the main
//! program run on every process, its MPI events replayed together; what a profile run
//! on as many processes measured of the units it finds fresh decides where the run
//! cannot evaluate.

use super::analysis::{local_constants, lower};
use super::inputs::Settings;
use super::profile::{ProfileState, profile_state};
use super::program::workspace_units;
use costline_model::comm::Network;
use costline_model::comm::skeleton::measured::Profiled;
use costline_model::comm::skeleton::{Program, ProgramRun, run};
use costline_syntax::ir::{Expr, StmtKind, Unit, UnitKind};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The run of the workspace's main program on P processes (none when the workspace
/// has no main program or makes no MPI call), or why there is none. P is the user's
/// binding of `p`, else of the variable the program's MPI_COMM_SIZE on
/// MPI_COMM_WORLD stores, else the ranks the profile in force ran on.
#[salsa::tracked(returns(clone))]
pub fn mpi_run(db: &dyn salsa::Database) -> Arc<Option<Result<ProgramRun, String>>> {
    let units = workspace_units(db);
    let lowered: Vec<_> = units.iter().map(|&u| (u, lower(db, u))).collect();
    // A PROGRAM statement names the main program; a nameless `main` is what the
    // front end makes of statements outside any unit.
    let mains = || lowered.iter().filter(|(_, u)| u.kind == UnitKind::Program);
    let Some((_, main)) = mains()
        .find(|(_, u)| u.name != "main")
        .or_else(|| mains().next())
    else {
        return Arc::new(None);
    };
    let mut calls_mpi = false;
    let mut size_var = None;
    for (_, u) in &lowered {
        u.walk(&mut |s, _| {
            if let StmtKind::Call(c) = &s.kind
                && c.name.starts_with("mpi_")
            {
                calls_mpi = true;
                if c.name == "mpi_comm_size"
                    && matches!(c.args.first().map(|a| &a.value), Some(Expr::Name(w)) if w == "mpi_comm_world")
                    && let Some(Expr::Name(v)) = c.args.get(1).map(|a| &a.value)
                {
                    size_var.get_or_insert_with(|| v.clone());
                }
            }
        });
    }
    if !calls_mpi {
        return Arc::new(None);
    }
    let bindings = Settings::get(db).bindings(db);
    let profile = Settings::get(db).profile(db).clone();
    let profile_ranks = profile.as_ref().and_then(|p| p.ranks).map(|n| n as i64);
    let p = bindings
        .get("p")
        .or_else(|| size_var.as_ref().and_then(|v| bindings.get(v)))
        .copied()
        .or(profile_ranks);
    let Some(p) = p else {
        let why = match size_var {
            Some(v) => format!("the process count needs a value: bind `p` (or `{v}`)"),
            None => "the process count needs a value: bind `p`".to_string(),
        };
        return Arc::new(Some(Err(why)));
    };
    let constants: HashMap<String, BTreeMap<String, i64>> = lowered
        .iter()
        .map(|(u, ir)| (ir.name.clone(), local_constants(db, *u).values.clone()))
        .collect();
    let constant = |unit: &str, name: &str| constants.get(unit)?.get(name).copied();
    let procedures: HashMap<String, &Unit> = lowered
        .iter()
        .filter(|(_, u)| u.kind != UnitKind::Module)
        .fold(HashMap::new(), |mut m, (_, u)| {
            m.entry(u.name.clone()).or_insert(&**u);
            m
        });
    // Each fresh unit's per-rank counts, when the profile ran on P processes.
    let mut profiled = Profiled {
        run: profile
            .as_ref()
            .map_or_else(|| "".into(), |p| p.run.clone()),
        ..Profiled::default()
    };
    if profile_ranks == Some(p) {
        for (u, ir) in &lowered {
            if let ProfileState::Fresh(m) = profile_state(db, *u)
                && let Some(per_rank) = &m.per_rank
            {
                profiled
                    .units
                    .entry(ir.name.clone())
                    .or_insert_with(|| per_rank.clone());
            }
        }
    }
    let program = Program {
        main,
        procedures,
        constant: &constant,
        profiled: &profiled,
    };
    let net = Network::of(Settings::get(db).machine(db));
    Arc::new(Some(run(&program, p as i128, &net)))
}
