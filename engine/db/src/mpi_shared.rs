//! What MPI programs keep in module and COMMON variables: datatypes
//! (`dp_type = MPI_DOUBLE_PRECISION` in the main program, read in every solver routine)
//! and the process count (`MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs)` in a set-up routine).
//! Each unit's definitions of variables it shares, merged over the program: a variable
//! every live definition of which gives one size has that size; different sizes leave
//! it without one, saying so.

use super::analysis::{freqs, lower};
use super::program::workspace_units;
use super::units::UnitText;
use costline_model::comm::datatype::{Datatypes, merge};
use costline_symbolic::Sym;
use costline_syntax::ir::{Expr, StmtKind, Unit};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The sizes of the datatypes the program's units store in shared variables, by name.
pub type Shared = BTreeMap<String, Result<Sym, String>>;

/// Whether `name` is a variable `unit` shares with others: a module's or host's
/// variable it sees, or a COMMON member.
pub(crate) fn is_shared(unit: &Unit, name: &str) -> bool {
    match unit.symbols.get(name) {
        Some(sym) => sym.common.is_some(),
        None => unit.outer.get(name).is_some_and(|s| !s.attrs.parameter),
    }
}

/// Whether a unit may define a datatype: it calls a type constructor or assigns an
/// MPI name (cheap, on the lowered text only).
fn may_define(unit: &Unit) -> bool {
    let mut found = false;
    unit.walk(&mut |s, _| {
        found |= match &s.kind {
            StmtKind::Call(c) => c.name.starts_with("mpi_type_"),
            StmtKind::Assign {
                lhs: Expr::Name(_),
                rhs: Expr::Name(n),
            } => n.starts_with("mpi_"),
            _ => false,
        };
    });
    found
}

/// The datatypes the program's units store in shared variables.
#[salsa::tracked(returns(clone))]
pub fn shared_datatypes(db: &dyn salsa::Database) -> Arc<Shared> {
    let mut out = Shared::new();
    for unit in workspace_units(db) {
        let ir = lower(db, unit);
        if !may_define(&ir) {
            continue;
        }
        let own = Datatypes::of_unit(&ir, &freqs(db, unit), &|_| None);
        for (name, size) in own.definitions() {
            if !is_shared(&ir, name) {
                continue;
            }
            let merged = merge(out.remove(name), size.clone(), || {
                format!("datatype `{name}` is given different sizes in different procedures")
            });
            out.insert(name.to_string(), merged);
        }
    }
    Arc::new(out)
}

/// Whether the unit calls MPI at all: only such a unit reads the program-wide tables
/// (so that an edit of an HPF program never walks every unit for them).
fn calls_mpi(unit: &Unit) -> bool {
    let mut found = false;
    unit.walk(&mut |s, _| {
        found |= matches!(&s.kind, StmtKind::Call(c) if c.name.starts_with("mpi_"));
    });
    found
}

/// What one unit reads of the program's shared MPI state (nothing for a unit that
/// calls no MPI routine).
pub(crate) struct SharedMpi {
    ir: Arc<Unit>,
    datatypes: Option<Arc<Shared>>,
    /// The shared variable holding the size of MPI_COMM_WORLD.
    pub world_size: Option<String>,
}

impl SharedMpi {
    pub fn of<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> SharedMpi {
        let ir = lower(db, unit);
        let mpi = calls_mpi(&ir);
        SharedMpi {
            datatypes: mpi.then(|| shared_datatypes(db)),
            world_size: if mpi { world_size_var(db) } else { None },
            ir,
        }
    }

    /// The size of the datatype the unit's shared variable `name` holds.
    pub fn datatype(&self, name: &str) -> Option<Result<Sym, String>> {
        if !is_shared(&self.ir, name) {
            return None;
        }
        self.datatypes.as_ref()?.get(name).cloned()
    }
}

/// The shared variable a unit stores the size of MPI_COMM_WORLD in (the first, in the
/// workspace's order), for the units that do not ask for it themselves.
#[salsa::tracked(returns(clone))]
fn world_size_var(db: &dyn salsa::Database) -> Option<String> {
    workspace_units(db).into_iter().find_map(|unit| {
        let ir = lower(db, unit);
        let mut found = None;
        ir.walk(&mut |s, _| {
            if let StmtKind::Call(c) = &s.kind
                && c.name == "mpi_comm_size"
                && matches!(c.args.first().map(|a| &a.value), Some(Expr::Name(w)) if w == "mpi_comm_world")
                && let Some(Expr::Name(v)) = c.args.get(1).map(|a| &a.value)
                && is_shared(&ir, v)
            {
                found.get_or_insert_with(|| v.clone());
            }
        });
        found
    })
}
