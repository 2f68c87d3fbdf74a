//! A loop nest as the cache model sees it: its loops (trip counts per entry, lower
//! bounds, steps) and its array access classes.
//!
//! Array access classes (P^3T+ section 4.4): references to the same array inside the
//! same loops whose subscripts have the same linear part in the nest's loop variables
//! (and the same terms in other names) — they differ only by constant offsets, so they
//! touch the same elements in the same dimensions, on the same or on nearby iterations
//! (Wolf and Lam's uniformly generated references). `a(i-1,j)`, `a(i+1,j)`, `a(i,j-1)`
//! and `a(i,j+1)` under `j`, `i` form one class with four offsets; `a(j,i)` forms another.

use costline_syntax::ir::consteval::eval_int;
use costline_syntax::ir::{Bound, Expr, LoopControl, Stmt, StmtId, StmtKind, Subscript, Unit};
use costline_syntax::normalize::affine::Affine;
use std::collections::{BTreeMap, BTreeSet};

/// One loop of a nest.
#[derive(Clone, Debug, PartialEq)]
pub struct NestLoop {
    pub id: StmtId,
    pub var: Option<String>,
    /// Iterations per entry of the loop (an average for triangular nests).
    pub trips: f64,
    /// The first value of the variable, when it is a constant.
    pub lower: Option<i64>,
    /// The step, when it is a constant (1 when absent).
    pub step: i64,
}

/// One array access class.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Class {
    pub array: String,
    /// Bytes per element.
    pub elem: u64,
    /// Extent of each dimension on one processor (the local block of a distributed
    /// dimension), when known.
    pub extents: Vec<Option<i64>>,
    /// Declared lower bound of each dimension, when known.
    pub lowers: Vec<i64>,
    /// The nest loops around the references, outermost first (indices into
    /// [`Nest::loops`]).
    pub path: Vec<usize>,
    /// Per dimension: (position in `path`, coefficient) of the loop variables in it.
    pub coefficients: Vec<Vec<(usize, i64)>>,
    /// The constant part of the subscripts of each reference (one entry per distinct
    /// offset vector).
    pub offsets: BTreeSet<Vec<i64>>,
    /// Subscripts that are not affine in the loop variables (`a(idx(i))`): each access
    /// is taken to touch a line of its own.
    pub irregular: bool,
    pub read: bool,
    pub written: bool,
    /// The references as written, for messages.
    pub refs: Vec<String>,
    /// The assignments its references are in.
    pub stmts: BTreeSet<StmtId>,
}

impl Class {
    /// Whether the class's addresses move with the loop at `path` position `k`.
    pub fn varies_with(&self, k: usize) -> bool {
        self.irregular
            || self
                .coefficients
                .iter()
                .any(|d| d.iter().any(|&(j, c)| j == k && c != 0))
    }

    /// Bytes between consecutive iterations of the loop at `path` position `k` (0 when
    /// it does not move the class, `None` when an extent is unknown).
    pub fn stride_bytes(&self, k: usize) -> Option<i64> {
        let mut stride = 0i64;
        let mut unit = self.elem as i64;
        for (d, dim) in self.coefficients.iter().enumerate() {
            for &(j, c) in dim {
                if j == k {
                    stride = stride.saturating_add(c.saturating_mul(unit));
                }
            }
            if d + 1 < self.coefficients.len() {
                unit = unit.saturating_mul(self.extents[d]?);
            }
        }
        Some(stride)
    }
}

/// A loop nest: an outermost loop and everything inside it.
#[derive(Clone, Debug, PartialEq)]
pub struct Nest {
    /// The nest's loop.
    pub id: StmtId,
    /// Whether no other loop contains it.
    pub outermost: bool,
    /// Whether its counts have values (else only its shape is known: the locality
    /// finding still applies, the line counts do not).
    pub known: bool,
    /// Entries into the outermost loop per run of the unit.
    pub entries: f64,
    /// Every loop of the nest in pre-order (the outermost first).
    pub loops: Vec<NestLoop>,
    pub classes: Vec<Class>,
}

/// What building a nest reads.
pub struct NestInputs<'a> {
    pub unit: &'a Unit,
    /// freq(S) per run of the unit, when known.
    pub freq: &'a dyn Fn(StmtId) -> Option<f64>,
    /// The value of an integer name, when it has one.
    pub env: &'a dyn Fn(&str) -> Option<i64>,
    /// Bytes per element of an array.
    pub elem_bytes: &'a dyn Fn(&str) -> u64,
    /// The processors over which dimension `d` of `array` is divided (1 when it is
    /// not distributed).
    pub divisor: &'a dyn Fn(&str, usize) -> i64,
}

/// The nests of a unit: every loop with everything inside it (outermost loops first,
/// then the loops inside them), with the executions of the block it is in (`1` at the
/// top of the unit).
pub fn nests(inputs: &NestInputs) -> Vec<Nest> {
    let mut out = Vec::new();
    find(inputs, &inputs.unit.body, 1.0, true, &mut out);
    out
}

fn find(inputs: &NestInputs, block: &[Stmt], ctx: f64, outermost: bool, out: &mut Vec<Nest>) {
    for s in block {
        match &s.kind {
            StmtKind::Loop(l) => {
                if let Some(n) = build(inputs, s, ctx, outermost) {
                    out.push(n);
                }
                // Every inner loop roots the nest of its own body too.
                let inner = (inputs.freq)(s.id).unwrap_or(0.0);
                find(inputs, &l.body, inner, false, out);
            }
            _ => {
                let inner = (inputs.freq)(s.id).unwrap_or(ctx);
                for c in s.children() {
                    find(inputs, std::slice::from_ref(c), inner, outermost, out);
                }
            }
        }
    }
}

/// The nest rooted at loop `s`.
fn build(inputs: &NestInputs, s: &Stmt, ctx: f64, outermost: bool) -> Option<Nest> {
    let StmtKind::Loop(l) = &s.kind else {
        return None;
    };
    let total = (inputs.freq)(s.id);
    let known = total.is_some();
    let total = total.unwrap_or(0.0);
    // Entries: the loop's own trip count when its bounds are constants, else the
    // executions of the block around it.
    let entries = match constant_trips(inputs, &l.control) {
        Some(t) if t > 0 => total / t as f64,
        _ => ctx,
    };
    let entries = if entries.is_finite() { entries } else { 0.0 };
    let mut nest = Nest {
        id: s.id,
        outermost,
        known,
        entries,
        loops: Vec::new(),
        classes: Vec::new(),
    };
    let mut keys: BTreeMap<(String, String, Vec<usize>), usize> = BTreeMap::new();
    collect(inputs, s, entries, &mut Vec::new(), &mut nest, &mut keys);
    Some(nest)
}

fn constant_trips(inputs: &NestInputs, control: &LoopControl) -> Option<i64> {
    let LoopControl::Counted {
        lower, upper, step, ..
    } = control
    else {
        return None;
    };
    let lo = eval_int(lower, inputs.env)?;
    let hi = eval_int(upper, inputs.env)?;
    let st = step.as_ref().map_or(Some(1), |e| eval_int(e, inputs.env))?;
    // (hi - lo + st) / st, None where it leaves i64 (a bound near ±2^63).
    let trips = hi.checked_sub(lo)?.checked_add(st)?.checked_div(st)?;
    Some(trips.max(0))
}

fn collect(
    inputs: &NestInputs,
    s: &Stmt,
    parent: f64,
    path: &mut Vec<usize>,
    nest: &mut Nest,
    keys: &mut BTreeMap<(String, String, Vec<usize>), usize>,
) {
    match &s.kind {
        StmtKind::Loop(l) => {
            let freq = (inputs.freq)(s.id).unwrap_or(0.0);
            let trips = if parent > 0.0 { freq / parent } else { 0.0 };
            let (lower, step) = match &l.control {
                LoopControl::Counted { lower, step, .. } => (
                    eval_int(lower, inputs.env),
                    step.as_ref()
                        .map_or(Some(1), |e| eval_int(e, inputs.env))
                        .filter(|s| *s != 0)
                        .unwrap_or(1),
                ),
                _ => (None, 1),
            };
            nest.loops.push(NestLoop {
                id: s.id,
                var: l.var().map(str::to_string),
                trips,
                lower,
                step,
            });
            path.push(nest.loops.len() - 1);
            for c in &l.body {
                collect(inputs, c, freq.max(f64::MIN_POSITIVE), path, nest, keys);
            }
            path.pop();
        }
        StmtKind::Assign { lhs, rhs } => {
            // Reads first (the right-hand side, then the left-hand side's subscripts),
            // then the element written.
            let mut refs: Vec<(Expr, bool)> = Vec::new();
            rhs.visit(&mut |x| refs.push((x.clone(), false)));
            let mut first = true;
            lhs.visit(&mut |x| {
                if !first {
                    refs.push((x.clone(), false));
                }
                first = false;
            });
            refs.push((lhs.clone(), true));
            for (e, written) in refs {
                if let Expr::Array(_) = e {
                    add_ref(inputs, &e, written, s.id, path, nest, keys);
                }
            }
        }
        _ => {
            for c in s.children() {
                collect(inputs, c, parent, path, nest, keys);
            }
        }
    }
}

fn add_ref(
    inputs: &NestInputs,
    e: &Expr,
    written: bool,
    stmt: StmtId,
    path: &[usize],
    nest: &mut Nest,
    keys: &mut BTreeMap<(String, String, Vec<usize>), usize>,
) {
    let Expr::Array(a) = e else { return };
    let Some(sym) = inputs.unit.symbol(&a.name) else {
        return;
    };
    let Some(dims) = sym.dims.as_ref() else {
        return;
    };
    if a.subscripts.len() != dims.len() || dims.is_empty() {
        return;
    }
    let vars: Vec<Option<&str>> = path.iter().map(|&k| nest.loops[k].var.as_deref()).collect();
    let mut coefficients = Vec::new();
    let mut offsets = Vec::new();
    let mut shape = String::new();
    let mut irregular = false;
    for s in &a.subscripts {
        let Subscript::Index(x) = s else {
            irregular = true;
            break;
        };
        let affine = Affine::of(x);
        let mut co = Vec::new();
        for (atom, k) in affine.terms() {
            match atom {
                Expr::Name(n) if vars.contains(&Some(n.as_str())) => {
                    let pos = vars.iter().rposition(|v| *v == Some(n.as_str())).unwrap();
                    co.push((pos, *k));
                }
                Expr::Name(n) if (inputs.env)(n).is_some() => {
                    // A named constant folds into the offset.
                }
                other => {
                    if contains_loop_var(other, &vars) {
                        irregular = true;
                    }
                    shape.push_str(&format!("{other}*{k};"));
                }
            }
        }
        let folded: i64 = affine
            .terms()
            .iter()
            .filter_map(|(atom, k)| match atom {
                Expr::Name(n) if !vars.contains(&Some(n.as_str())) => {
                    (inputs.env)(n).map(|v| v.saturating_mul(*k))
                }
                _ => None,
            })
            .fold(affine.constant(), i64::saturating_add);
        shape.push_str(&format!("{co:?}|"));
        coefficients.push(co);
        offsets.push(folded);
    }
    let key = (a.name.clone(), shape, path.to_vec());
    let index = *keys.entry(key).or_insert_with(|| {
        let lowers = dims
            .iter()
            .map(|d| {
                d.lower
                    .as_ref()
                    .map_or(Some(1), |l| eval_int(l, inputs.env))
            })
            .map(|l| l.unwrap_or(1))
            .collect();
        let extents = dims
            .iter()
            .enumerate()
            .map(|(d, dim)| {
                let Bound::Explicit(upper) = &dim.upper else {
                    return None;
                };
                let lo = dim
                    .lower
                    .as_ref()
                    .map_or(Some(1), |l| eval_int(l, inputs.env))?;
                let hi = eval_int(upper, inputs.env)?;
                let divisor = (inputs.divisor)(&a.name, d).max(1);
                // Bounds past i64 (a huge declared extent): the extent is not known.
                let extent = hi.checked_sub(lo)?.checked_add(1)?.max(1);
                Some(extent.checked_add(divisor - 1)? / divisor)
            })
            .collect();
        nest.classes.push(Class {
            array: a.name.clone(),
            elem: (inputs.elem_bytes)(&a.name).max(1),
            extents,
            lowers,
            path: path.to_vec(),
            coefficients: coefficients.clone(),
            offsets: BTreeSet::new(),
            irregular,
            read: false,
            written: false,
            refs: Vec::new(),
            stmts: BTreeSet::new(),
        });
        nest.classes.len() - 1
    });
    let class = &mut nest.classes[index];
    class.offsets.insert(offsets);
    class.read |= !written;
    class.written |= written;
    class.stmts.insert(stmt);
    let text = e.to_string();
    if !class.refs.contains(&text) {
        class.refs.push(text);
    }
}

fn contains_loop_var(e: &Expr, vars: &[Option<&str>]) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        if let Expr::Name(n) = x {
            found |= vars.contains(&Some(n.as_str()));
        }
    });
    found
}
