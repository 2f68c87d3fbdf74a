//! Alternatives priced under the current bindings: each is a variant of the unit (its
//! directives replaced, see [`crate::variant`]) whose salsa queries recompute what
//! the directives decide — mappings, work, communication, cache, times — and reuse the
//! parse, counts and operations of the unit as written.

use super::candidates::{Target, candidates, target};
use super::layout::Layout;
use super::rewrite::directives;
use crate::{UnitText, base, constants, counts, lower, ops, times, variant};
use costline_model::machine::ops::{OpKey, OpKind, OpType};
use costline_syntax::ir::directive::Directive;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the analysis predicts for one run of the unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// The predicted time (critical path of computation and communication), seconds.
    pub time_s: f64,
    /// Computation of the busiest processor, seconds.
    pub ct_s: f64,
    /// Communication on the critical path, seconds.
    pub comm_s: f64,
    /// The computation summed over processors: the sequential time T_s the run divides.
    pub seq_s: f64,
    /// W: the floating-point operations of the run (every arithmetic operation when the
    /// unit has none), the work of isospeed scalability.
    pub work: f64,
    /// Whether the time leaves nothing out (DESIGN.md section 5): else it is a lower
    /// bound, without the communication or work the analysis could not model
    /// ([`crate::missing::unit_missing`] lists what).
    pub complete: bool,
}

impl Prediction {
    /// The prediction as a point of the scaling algorithms (T_p, T_s, W).
    pub fn point(&self) -> costline_model::scaling::Point {
        costline_model::scaling::Point {
            time_s: self.time_s,
            seq_s: self.seq_s,
            work: self.work,
        }
    }
}

/// An alternative with its prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    pub layout: Layout,
    pub prediction: Prediction,
    /// Whether it is the distribution as written.
    pub current: bool,
}

/// The prediction of `unit` with its directives replaced by `directives` (`None`: as
/// written); `None` when a count it needs has no value.
pub fn predict(
    db: &dyn salsa::Database,
    unit: UnitText<'_>,
    directives: Option<Vec<Directive>>,
) -> Option<Prediction> {
    let unit = base(db, unit);
    let key = match directives {
        Some(d) => variant(db, unit, d),
        None => unit,
    };
    let t = times(db, key);
    if !t.unit.known {
        return None;
    }
    Some(Prediction {
        time_s: t.unit.time_s,
        ct_s: t.unit.ct_s(),
        comm_s: t.unit.comm_s,
        seq_s: t.unit.per_processor.iter().sum(),
        work: work(db, unit),
        complete: crate::missing::unit_missing(db, key).all.is_empty(),
    })
}

/// W = Σ_S freq(S) · (floating-point operations of one execution of S).
fn work(db: &dyn salsa::Database, unit: UnitText<'_>) -> f64 {
    let ops = ops(db, unit);
    let counts = counts(db, unit);
    let float = |t: &OpType| matches!(t, OpType::F32 | OpType::F64 | OpType::C64 | OpType::C128);
    let sum = |only_float: bool| -> f64 {
        ops.iter()
            .map(|(id, o)| {
                let per: f64 =
                    o.0.iter()
                        .filter(|(k, _)| match k {
                            OpKey::Arith(kind, t) => {
                                !matches!(kind, OpKind::Cmp | OpKind::Logic | OpKind::Cvt)
                                    && (!only_float || float(t))
                            }
                            OpKey::Intrinsic(_) => true,
                            _ => false,
                        })
                        .map(|(_, n)| n)
                        .sum();
                per * counts.value(*id).unwrap_or(0.0)
            })
            .sum()
    };
    let flops = sum(true);
    if flops > 0.0 { flops } else { sum(false) }
}

/// The target of the DISTRIBUTE at `directive` under the bindings.
pub fn target_of(db: &dyn salsa::Database, unit: UnitText<'_>, directive: usize) -> Option<Target> {
    let ir = lower(db, unit);
    let known = constants(db, unit);
    target(&ir, directive, &|n| known.values.get(n).copied())
}

/// The prediction of `layout` for `target` on `p` processors (`None`: it has no grid
/// for `p`, or no value).
pub fn predict_layout(
    db: &dyn salsa::Database,
    unit: UnitText<'_>,
    target: &Target,
    layout: &Layout,
    p: i64,
) -> Option<Prediction> {
    let ir = lower(db, base(db, unit));
    predict(db, unit, Some(directives(&ir, target, layout, p)?))
}

/// The candidates of `target` on `p` processors other than the distribution as written,
/// each shape once (two rules may give one grid for p: 4 × 4 both ways).
pub fn others(target: &Target, p: i64) -> Vec<Layout> {
    let shape = |l: &Layout| (l.formats.clone(), l.grid.extents(p));
    let mut seen: Vec<_> = target.current.iter().map(shape).collect();
    let mut out = Vec::new();
    for layout in candidates(target) {
        if !seen.contains(&shape(&layout)) {
            seen.push(shape(&layout));
            out.push(layout);
        }
    }
    out
}

/// One thread's hand of the alternatives priced on all cores: every thread enumerates
/// the same jobs in the same order and prices those it claims from a counter they
/// share, claiming the next as it comes free (alternatives cost unevenly: dealing them
/// round-robin left one thread waiting for the other).
pub struct Hand<'a> {
    counter: &'a AtomicUsize,
    job: usize,
    claimed: usize,
}

impl<'a> Hand<'a> {
    pub fn new(counter: &'a AtomicUsize) -> Hand<'a> {
        Hand {
            counter,
            job: 0,
            claimed: counter.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Whether the next job in the order is this thread's.
    fn take(&mut self) -> bool {
        let mine = self.job == self.claimed;
        if mine {
            self.claimed = self.counter.fetch_add(1, Ordering::Relaxed);
        }
        self.job += 1;
        mine
    }
}

/// Prices the alternatives ([`others`]) of the DISTRIBUTEs `directives` of `unit` that
/// `hand` claims, among the first `limit`, for [`alternatives`] to find memoized: run by
/// every thread of [`crate::Analysis::on_all_cores`] with a hand on one counter,
/// the alternatives are priced on all cores (each is a variant of its own). Returns how
/// many there were (at most `limit`).
pub fn price_share(
    db: &dyn salsa::Database,
    unit: UnitText<'_>,
    directives: &[usize],
    limit: usize,
    hand: &mut Hand,
) -> usize {
    let mut jobs = 0;
    for &d in directives {
        let Some(target) = target_of(db, unit, d) else {
            continue;
        };
        let Some(p) = target.processors() else {
            continue;
        };
        for layout in others(&target, p) {
            if jobs == limit {
                return jobs;
            }
            if hand.take() {
                predict_layout(db, unit, &target, &layout, p);
            }
            jobs += 1;
        }
    }
    jobs
}

/// Every alternative of the DISTRIBUTE at `directive` on the processors it is written
/// for, under the bindings, fastest first; the one as written is priced on the unit
/// itself (what the file predicts).
pub fn alternatives(
    db: &dyn salsa::Database,
    unit: UnitText<'_>,
    directive: usize,
) -> Option<(Target, Vec<Evaluated>)> {
    let target = target_of(db, unit, directive)?;
    let p = target.processors()?;
    let mut out: Vec<Evaluated> = Vec::new();
    if let Some(prediction) = predict(db, unit, None) {
        out.push(Evaluated {
            layout: target.current.clone().unwrap_or_else(|| Layout {
                formats: Vec::new(),
                grid: super::layout::Grid::Fixed(target.extents.clone().unwrap_or_default()),
            }),
            prediction,
            current: true,
        });
    }
    for layout in others(&target, p) {
        if let Some(prediction) = predict_layout(db, unit, &target, &layout, p) {
            out.push(Evaluated {
                layout,
                prediction,
                current: false,
            });
        }
    }
    // Equal times (within rounding): the simpler formats first.
    let simplicity = |l: &Layout| -> u32 {
        l.formats
            .iter()
            .map(|f| match f {
                super::layout::Fmt::Star | super::layout::Fmt::Block => 0,
                super::layout::Fmt::Cyclic(1) => 1,
                super::layout::Fmt::Cyclic(_) => 2,
            })
            .sum()
    };
    out.sort_by(|a, b| {
        let (ta, tb) = (a.prediction.time_s, b.prediction.time_s);
        if (ta - tb).abs() <= 1e-9 * ta.abs().max(tb.abs()) {
            (!a.current, simplicity(&a.layout)).cmp(&(!b.current, simplicity(&b.layout)))
        } else {
            ta.total_cmp(&tb)
        }
    });
    Some((target, out))
}
