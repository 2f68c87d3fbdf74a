//! The alternatives of a DISTRIBUTE written in a header, priced for the whole program:
//! the directive maps the arrays of every unit that includes the header, so an
//! alternative changes all of them at once.
//!
//! Each including unit U is priced as a variant of its own (its callees keep their
//! mappings, so a variant's calls cost what the unit's do and the difference is U's own
//! part): T' = T + Σ_U runs(U) · (T_alt(U) − T_written(U)), over the layouts every
//! including unit can take. T is the main program's time; without a main program
//! (a library), the including units' own time Σ_U runs(U) · (T(U) − their calls'),
//! each uncalled unit counted once.

use super::UnitAt;
use super::header::file_name;
use costline_db::alternatives::{Layout, Target, alternatives, predict};
use costline_db::{File, UnitText, context, file_units, lower};
use costline_model::freq::calls::NO_CALLER;
use costline_syntax::ir::UnitKind;

/// What the alternatives' times are of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Scope {
    /// The main program's predicted time.
    Program,
    /// The including units' own time (no main program among the workspace's files).
    Units,
}

impl Scope {
    /// `program`, `including units`.
    pub fn noun(self) -> &'static str {
        match self {
            Scope::Program => "program",
            Scope::Units => "including units (their own part)",
        }
    }
}

/// The predicted time as written and under each alternative.
pub(super) struct ProgramAlternatives {
    pub scope: Scope,
    /// The target as the first priced unit sees it (its layouts and grid).
    pub target: Target,
    /// That unit's index in the units priced.
    pub first: usize,
    /// The program's predicted time as written, seconds.
    pub written_s: f64,
    /// The alternatives other than the layout as written with the program's predicted
    /// time, fastest first.
    pub ranked: Vec<(Layout, f64)>,
    /// The including units that run in the program (the sum's terms).
    pub units: usize,
}

/// The program-wide alternatives of the directive at index `i` of each unit of `units`
/// (one directive of a header, seen in every unit that includes it); `Err` says why
/// there is no program-wide figure (no main program, a count or time without a value).
pub(super) fn program_alternatives(
    db: &dyn salsa::Database,
    files: &[File],
    units: &[(UnitAt, usize)],
) -> Result<ProgramAlternatives, String> {
    let main = main_program(db, files);
    let mut written_s = match main {
        Some(unit) => {
            predict(db, unit, None)
                .ok_or("the program's time needs values (costline.params)")?
                .time_s
        }
        None => 0.0,
    };
    let mut target: Option<(Target, usize)> = None;
    // (layout, Σ runs · (alternative − as written), units that priced it)
    let mut deltas: Vec<(Layout, f64, usize)> = Vec::new();
    let mut terms = 0;
    for (k, (u, i)) in units.iter().enumerate() {
        let name = || format!("`{}` ({})", u.chunk.name, file_name(u.source.path()));
        let ctx = context(db, u.unit);
        let counted = match ctx.runs.note {
            None => true,
            // A library's entry points run once per call.
            Some(note) => main.is_none() && note == NO_CALLER,
        };
        if !counted {
            // Not run by the program (no caller, or recursive): nothing to add.
            continue;
        }
        let Some(runs) = ctx.runs.value.map(|v| v.to_f64()) else {
            return Err(format!("{} runs an unknown number of times", name()));
        };
        let Some((t, ranked)) = alternatives(db, u.unit, *i) else {
            return Err(format!("{} has no processor count for it", name()));
        };
        let Some(current) = ranked.iter().find(|e| e.current) else {
            return Err(format!("{} has no predicted time", name()));
        };
        terms += 1;
        if main.is_none() {
            let calls: f64 = ctx.call_time.values().map(|(_, total)| total).sum();
            written_s += runs * (current.prediction.time_s - calls);
        }
        // A layout whose time leaves something out in any unit is a lower bound there:
        // it is not ranked (it then misses a term and drops out below).
        for e in ranked
            .iter()
            .filter(|e| !e.current && e.prediction.complete)
        {
            let delta = runs * (e.prediction.time_s - current.prediction.time_s);
            match deltas.iter_mut().find(|(l, _, _)| *l == e.layout) {
                Some(d) => {
                    d.1 += delta;
                    d.2 += 1;
                }
                None if target.is_none() => deltas.push((e.layout.clone(), delta, 1)),
                None => {}
            }
        }
        target.get_or_insert((t, k));
    }
    let Some((target, first)) = target else {
        return Err("no unit of the program includes it".into());
    };
    let mut ranked: Vec<(Layout, f64)> = deltas
        .into_iter()
        .filter(|(_, _, n)| *n == terms)
        .map(|(l, d, _)| (l, (written_s + d).max(0.0)))
        .collect();
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    Ok(ProgramAlternatives {
        scope: if main.is_some() {
            Scope::Program
        } else {
            Scope::Units
        },
        target,
        first,
        written_s,
        ranked,
        units: terms,
    })
}

/// The workspace's main program.
fn main_program<'db>(db: &'db dyn salsa::Database, files: &[File]) -> Option<UnitText<'db>> {
    files.iter().find_map(|&file| {
        let f = file_units(db, file).as_ref().ok()?;
        f.units
            .iter()
            .copied()
            .find(|&unit| lower(db, unit).kind == UnitKind::Program)
    })
}
