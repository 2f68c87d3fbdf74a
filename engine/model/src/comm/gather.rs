//! Irregular reads measured by a profile run. A read of a mapped array whose element
//! the analysis cannot follow (`z(colidx(k))`: a subscript that depends on data) is a
//! [`GatherSite`]: the instrumented program records, under the program's mapping for
//! the processor count in force when it was instrumented, each execution's receiver
//! (the owner of the left-hand side's element, owner computes; every processor for a
//! scalar or replicated one) and sender (the lowest-numbered owner of the element
//! read, as the counted records take it), and per instance of the fetch — the
//! iterations of the loop it stays inside ([`super::placement`]), as the counted
//! records define them: it starts before the outermost loop it is vectorized over —
//! the distinct elements each (sender, receiver) pair moves, one message per pair and
//! instance that moves any. A receiver that owns a copy of the element reads it
//! locally. The analysis builds the read's records from what was measured
//! ([`MeasuredGather`]) where the layouts in force are the ones measured, and says why
//! not where they are not.

use super::records::Record;
use crate::distribution::{Layout, Mapping, exact_int};
use costline_symbolic::{Env, Sym};
use costline_syntax::ir::StmtId;

/// A read a profile run can measure.
#[derive(Clone, Debug)]
pub struct GatherSite {
    /// The mapping of the array read...
    pub read: Mapping,
    /// ...and its declared (lower bound, extent) per dimension, when known.
    pub shape: Option<Vec<(Sym, Sym)>>,
    /// The mapping of the left-hand side's array; `None` when every processor of the
    /// read's arrangement executes the statement (a scalar or replicated one).
    pub lhs: Option<Mapping>,
    /// The statement before which each instance of the fetch starts: the outermost
    /// loop it is vectorized over, else the statement itself.
    pub instance: StmtId,
}

/// The layouts a read is measured under: the array read's and the left-hand side's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GatherLayouts {
    pub read: Layout,
    pub lhs: Option<Layout>,
}

impl GatherLayouts {
    /// The layouts in words: `(BLOCK(351)) onto default(4)`, with the left-hand side's
    /// when it differs.
    pub fn describe(&self) -> String {
        match &self.lhs {
            Some(l) if *l != self.read => format!(
                "{} (the left-hand side {})",
                self.read.describe(),
                l.describe()
            ),
            _ => self.read.describe(),
        }
    }
}

impl GatherSite {
    /// The layouts under `env`, or why they have no values.
    pub fn layouts(&self, env: Env) -> Result<GatherLayouts, String> {
        let valued = |m: &Mapping| {
            Layout::of(m, &[], env).ok_or_else(|| {
                format!(
                    "the mapping of `{}` needs values (the processor count?)",
                    m.distribution.target
                )
            })
        };
        Ok(GatherLayouts {
            read: valued(&self.read)?,
            lhs: self.lhs.as_ref().map(valued).transpose()?,
        })
    }

    /// The array read's (lower bound, extent) per dimension under `env`, or why not.
    pub fn bounds(&self, env: Env) -> Result<Vec<(i64, i64)>, String> {
        let shape = self
            .shape
            .as_ref()
            .ok_or("the array read has no declared bounds")?;
        shape
            .iter()
            .map(|(l, e)| {
                exact_int(l, env)
                    .zip(exact_int(e, env).filter(|e| *e >= 0))
                    .ok_or_else(|| "the bounds of the array read need values".to_string())
            })
            .collect()
    }
}

/// What a profile run measured of one read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeasuredGather {
    pub stmt: StmtId,
    /// The reference as the analysis writes it ([`super::RefComm::reference`]).
    pub reference: String,
    pub layouts: GatherLayouts,
    /// Executions of the read.
    pub reads: u64,
    /// Per pair that moved anything: (sender, receiver, messages, elements), 1-based
    /// processors, over the whole run.
    pub pairs: Vec<(usize, usize, u64, u64)>,
}

/// What the measurements of a unit's reads make of one read's records.
pub enum Measured {
    /// The records per run of the unit (a run's share of what was measured: the
    /// statement's count per run over the reads measured), and the layouts.
    Records(Vec<Record>, GatherLayouts),
    /// The read was measured under other layouts, or never ran: why it is not applied.
    NotApplied(String),
}

/// The records of the read `reference` of statement `stmt` (the site `site`) from
/// `measured`, under `env`, `runs` being the statement's count per run of the unit;
/// `None` when no measurement is about it.
pub fn measured_records(
    site: &GatherSite,
    (stmt, reference): (StmtId, &str),
    measured: &[MeasuredGather],
    runs: Option<f64>,
    elem_bytes: u64,
    env: Env,
) -> Option<Measured> {
    let about: Vec<&MeasuredGather> = measured
        .iter()
        .filter(|m| m.stmt == stmt && m.reference == reference)
        .collect();
    let first = about.first()?;
    let now = match site.layouts(env) {
        Ok(l) => l,
        Err(why) => {
            return Some(Measured::NotApplied(format!(
                "a profile measured it, but {why}"
            )));
        }
    };
    let Some(m) = about.iter().find(|m| m.layouts == now) else {
        return Some(Measured::NotApplied(format!(
            "a profile measured its reads under {}, not under {}: not applied",
            first.layouts.describe(),
            now.describe()
        )));
    };
    if m.reads == 0 {
        return Some(Measured::NotApplied(
            "the profile run never executed it".to_string(),
        ));
    }
    let Some(runs) = runs else {
        return Some(Measured::NotApplied(
            "its count has no value to take a run's share of what was measured".to_string(),
        ));
    };
    let share = runs / m.reads as f64;
    let records = m
        .pairs
        .iter()
        .map(|&(from, to, messages, elements)| Record {
            from,
            to,
            messages: messages as f64 * share,
            bytes: (elements * elem_bytes) as f64 * share,
        })
        .collect();
    Some(Measured::Records(records, now))
}
