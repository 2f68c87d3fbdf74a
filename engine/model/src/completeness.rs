//! What a unit's figures leave out, and why (DESIGN.md section 5, `complete` and
//! `missing`): statements that could not be read, communication that is not modelled,
//! MPI calls that are not priced, procedures that are not among the inputs, counts
//! without a value. Each gap is placed at the statement whose figures it belongs to; a
//! figure is complete only when nothing it sums has a gap. Every kind of gap can only
//! add time (the work and messages it stands for are not in the sum), so a time that
//! leaves gaps out is a lower bound.

use crate::comm::UnitCommValues;
use crate::comm::mpi;
use costline_syntax::ir::intrinsics::intrinsic_class;
use costline_syntax::ir::{Stmt, StmtId, StmtKind, Unit, walk};
use costline_syntax::span::Span;
use std::collections::BTreeMap;

/// Why something is left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GapCode {
    /// Statements the parser could not read.
    Unread,
    /// Communication the model does not follow (an indirect subscript, an unknown
    /// owner, too many pairs to list).
    NotModelled,
    /// An MPI call without a price (a routine the runtime functions do not cover, a
    /// count or datatype without a value).
    NotPriced,
    /// A call of a procedure that is not among the analysed files.
    UnknownProcedure,
    /// A count that has no value under the bindings.
    UnknownCount,
}

impl GapCode {
    /// The code as the JSON report and the editors show it.
    pub fn as_str(self) -> &'static str {
        match self {
            GapCode::Unread => "unread",
            GapCode::NotModelled => "not-modelled",
            GapCode::NotPriced => "not-priced",
            GapCode::UnknownProcedure => "unknown-procedure",
            GapCode::UnknownCount => "unknown-count",
        }
    }
}

/// One thing left out: where (unit-relative), why, and what.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gap {
    pub at: Span,
    pub code: GapCode,
    pub what: String,
}

/// A unit's own gaps (not its callees'): by the statement whose figures they belong
/// to, and those at no statement (statements that could not be read).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitGaps {
    pub stmts: BTreeMap<StmtId, Vec<Gap>>,
    pub unit: Vec<Gap>,
}

impl UnitGaps {
    /// Whether the unit's own figures leave nothing out.
    pub fn is_empty(&self) -> bool {
        self.stmts.is_empty() && self.unit.is_empty()
    }

    fn add(&mut self, id: StmtId, gap: Gap) {
        let list = self.stmts.entry(id).or_default();
        if !list.contains(&gap) {
            list.push(gap);
        }
    }
}

/// What the figures of `unit` need to know about its statements.
pub struct GapInputs<'a> {
    pub unit: &'a Unit,
    pub comm: &'a UnitCommValues,
    /// The unknowns a statement's count still needs, when it has no value.
    pub needs: &'a dyn Fn(StmtId) -> Option<Vec<String>>,
    /// Whether a procedure of this name is among the analysed files.
    pub known_procedure: &'a dyn Fn(&str) -> bool,
    /// Arrangements whose processor count no analysis can use: where, and what is
    /// left out (`UnitMappings::unusable_arrangements`).
    pub arrangements: Vec<(Span, String)>,
    /// Intrinsics' element loops without a price (`time::IntrinsicTimes::unpriced`).
    pub unpriced_loops: &'a [(StmtId, String)],
}

/// The gaps of one unit's own statements.
pub fn unit_gaps(inputs: &GapInputs) -> UnitGaps {
    let unit = inputs.unit;
    let mut out = UnitGaps::default();
    for span in &unit.unread {
        out.unit.push(Gap {
            at: *span,
            code: GapCode::Unread,
            what: "a statement that could not be read".to_string(),
        });
    }
    for (at, what) in &inputs.arrangements {
        out.unit.push(Gap {
            at: *at,
            code: GapCode::NotModelled,
            what: what.clone(),
        });
    }
    walk(&unit.body, &mut |s, _| statement_gaps(inputs, s, &mut out));
    walk(&unit.body, &mut |s, _| {
        for (_, what) in inputs.unpriced_loops.iter().filter(|(id, _)| *id == s.id) {
            out.add(
                s.id,
                Gap {
                    at: s.span,
                    code: GapCode::NotPriced,
                    what: what.clone(),
                },
            );
        }
    });
    out
}

fn statement_gaps(inputs: &GapInputs, s: &Stmt, out: &mut UnitGaps) {
    for r in inputs.comm.of(s.id) {
        if let Err(why) = &r.records {
            out.add(
                s.id,
                Gap {
                    at: r.span,
                    code: GapCode::NotModelled,
                    // The code says it is not modelled; the text says why.
                    what: format!(
                        "the communication of `{}`: {}",
                        r.reference,
                        why.strip_prefix("not modelled: ").unwrap_or(why)
                    ),
                },
            );
        }
    }
    if let Some(m) = inputs.comm.mpi.get(&s.id)
        && let Err(why) = &m.metrics
    {
        out.add(
            s.id,
            Gap {
                at: s.span,
                code: GapCode::NotPriced,
                what: format!(
                    "MPI {}: {}",
                    m.op.as_str(),
                    why.strip_prefix("not modelled: ").unwrap_or(why)
                ),
            },
        );
    }
    let leaf = matches!(s.kind, StmtKind::Assign { .. } | StmtKind::Call(_));
    if leaf && let Some(needs) = (inputs.needs)(s.id) {
        let what = if needs.is_empty() {
            "a count without a value".to_string()
        } else {
            format!("a count that needs values for {}", needs.join(", "))
        };
        out.add(
            s.id,
            Gap {
                at: s.span,
                code: GapCode::UnknownCount,
                what,
            },
        );
    }
    for callee in crate::freq::calls::called(&s.kind) {
        let gap = if callee.starts_with("mpi_") {
            mpi::unpriced(&callee).then(|| Gap {
                at: s.span,
                code: GapCode::NotPriced,
                what: format!("`{}` is not priced", callee.to_ascii_uppercase()),
            })
        } else {
            (intrinsic_class(&callee).is_none() && !(inputs.known_procedure)(&callee)).then(|| {
                Gap {
                    at: s.span,
                    code: GapCode::UnknownProcedure,
                    what: format!("`{callee}` is not among the analysed files (its cost)"),
                }
            })
        };
        if let Some(g) = gap {
            out.add(s.id, g);
        }
    }
}
