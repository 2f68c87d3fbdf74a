//! Memory time of an assignment inside a loop nest: the bytes its references stream per
//! execution and the cache level each stream comes from, priced by the level's
//! bandwidth (a simplified layer-condition model; issue 8 refines it with cache
//! lines).
//!
//! References to one array whose subscripts differ only by constants form an access
//! class (P^3T+ section 4.4). Per execution of the innermost loop body a class streams:
//! nothing when it does not vary with the innermost loop (a register); its element size
//! when the innermost variable runs through the first dimension with stride 1; a cache
//! line otherwise. It streams once per read and once per write. Its data comes from the
//! innermost level that holds what is touched between two uses of the same element:
//! for a class reused by an outer loop (y(i) under a j loop), one iteration of that
//! loop's footprint; otherwise the whole nest's arrays (the local part of each on a
//! processor). A class with several constant offsets in an outer dimension (a(i,j−1),
//! a(i,j+1)) streams once from there when the layer of offsets fits a cache level
//! (the Kerncraft layer condition) and once per offset otherwise.
//!
//! An execution then takes max(operations, memory): out-of-order cores overlap the two,
//! so the slower decides (the roofline rule).

use crate::ir::{Expr, Stmt, StmtId, StmtKind, Subscript, Unit};
use crate::machine::Machine;
use crate::normalize::affine::Affine;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What the memory model reads.
pub struct MemInputs<'a> {
    pub unit: &'a Unit,
    pub machine: &'a Machine,
    /// freq(S) per run, when known.
    pub freq: &'a dyn Fn(StmtId) -> Option<f64>,
    /// The bytes of an array one processor holds (its local part), when known.
    pub array_bytes: &'a dyn Fn(&str) -> Option<f64>,
    /// Bytes per element.
    pub elem_bytes: &'a dyn Fn(&str) -> f64,
}

/// One enclosing loop: its variable and iterations per entry.
#[derive(Clone)]
struct Level {
    var: Option<String>,
    trips: f64,
}

/// Seconds of memory traffic per execution of each assignment inside a loop.
pub fn memory_seconds(inputs: &MemInputs) -> HashMap<StmtId, f64> {
    let mut out = HashMap::new();
    for s in &inputs.unit.body {
        if matches!(s.kind, StmtKind::Loop(_)) {
            let footprint = nest_footprint(inputs, s);
            walk(inputs, s, &mut Vec::new(), 1.0, footprint, &mut out);
        }
    }
    out
}

fn walk(
    inputs: &MemInputs,
    s: &Stmt,
    loops: &mut Vec<Level>,
    parent_freq: f64,
    footprint: f64,
    out: &mut HashMap<StmtId, f64>,
) {
    match &s.kind {
        StmtKind::Loop(l) => {
            let freq = (inputs.freq)(s.id).unwrap_or(0.0);
            let trips = if parent_freq > 0.0 {
                freq / parent_freq
            } else {
                0.0
            };
            loops.push(Level {
                var: l.var().map(str::to_string),
                trips,
            });
            for c in &l.body {
                walk(
                    inputs,
                    c,
                    loops,
                    freq.max(f64::MIN_POSITIVE),
                    footprint,
                    out,
                );
            }
            loops.pop();
        }
        StmtKind::Assign { lhs, rhs } if !loops.is_empty() => {
            let t = assignment_seconds(inputs, lhs, rhs, loops, footprint);
            out.insert(s.id, t);
        }
        _ => {
            for c in s.children() {
                walk(inputs, c, loops, parent_freq, footprint, out);
            }
        }
    }
}

/// Bytes of the arrays a nest references (local parts), the working set of a sweep.
fn nest_footprint(inputs: &MemInputs, nest: &Stmt) -> f64 {
    let mut arrays = BTreeSet::new();
    crate::ir::walk(std::slice::from_ref(nest), &mut |s, _| {
        if let StmtKind::Assign { lhs, rhs } = &s.kind {
            for e in [lhs, rhs] {
                e.visit(&mut |x| {
                    if let Expr::Array(a) = x {
                        arrays.insert(a.name.clone());
                    }
                });
            }
        }
    });
    arrays
        .iter()
        .map(|a| (inputs.array_bytes)(a).unwrap_or(0.0))
        .sum()
}

/// One access class: an array and the linear part of its subscripts.
#[derive(Default)]
struct Class {
    read: bool,
    written: bool,
    /// Per dimension: loop variable → coefficient.
    coefficients: Vec<BTreeMap<String, i64>>,
    /// The distinct constant offsets per dimension.
    offsets: Vec<BTreeSet<i64>>,
}

fn assignment_seconds(
    inputs: &MemInputs,
    lhs: &Expr,
    rhs: &Expr,
    loops: &[Level],
    footprint: f64,
) -> f64 {
    let vars: Vec<&str> = loops.iter().filter_map(|l| l.var.as_deref()).collect();
    let mut classes: BTreeMap<(String, String), Class> = BTreeMap::new();
    let mut add = |e: &Expr, written: bool| {
        let Expr::Array(a) = e else { return };
        if a.subscripts.is_empty() {
            return;
        }
        let mut coefficients = Vec::new();
        let mut offsets = Vec::new();
        let mut shape = String::new();
        for s in &a.subscripts {
            let Subscript::Index(x) = s else { return };
            let affine = Affine::of(x);
            let mut co = BTreeMap::new();
            for (atom, k) in affine.terms() {
                match atom {
                    Expr::Name(n) if vars.contains(&n.as_str()) => {
                        co.insert(n.clone(), *k);
                    }
                    other => shape.push_str(&format!("{other}*{k};")),
                }
            }
            shape.push_str(&format!("{co:?}|"));
            coefficients.push(co);
            offsets.push(affine.constant());
        }
        let class = classes.entry((a.name.clone(), shape)).or_default();
        class.read |= !written;
        class.written |= written;
        if class.coefficients.is_empty() {
            class.coefficients = coefficients;
            class.offsets = vec![BTreeSet::new(); offsets.len()];
        }
        for (set, o) in class.offsets.iter_mut().zip(offsets) {
            set.insert(o);
        }
    };
    add(lhs, true);
    rhs.visit(&mut |x| add(x, false));
    let machine = inputs.machine;
    let line = machine.memory.cache_line_bytes as f64;
    let Some(innermost) = loops.last().and_then(|l| l.var.clone()) else {
        return 0.0;
    };
    // Bytes one iteration of loop `k` touches, per class (its span over the loops
    // inside k that it varies with).
    let span = |c: &Class, elem: f64, k: usize| -> f64 {
        let mut b = elem;
        for l in &loops[k + 1..] {
            if let Some(v) = &l.var
                && c.coefficients.iter().any(|co| co.contains_key(v))
            {
                b *= l.trips.max(1.0);
            }
        }
        b
    };
    let mut seconds = 0.0;
    for ((array, _), c) in &classes {
        let varies = |v: &str| c.coefficients.iter().any(|co| co.contains_key(v));
        if !varies(&innermost) {
            continue;
        }
        let elem = (inputs.elem_bytes)(array);
        let unit_stride =
            c.coefficients
                .iter()
                .enumerate()
                .all(|(d, co)| match co.get(&innermost) {
                    Some(k) => d == 0 && k.abs() == 1,
                    None => true,
                });
        let bytes = if unit_stride { elem } else { line.max(elem) };
        let streams = f64::from(u8::from(c.read) + u8::from(c.written));
        // Reuse carried by an enclosing loop the class does not vary with.
        let carried = (0..loops.len().saturating_sub(1))
            .rev()
            .find(|&k| loops[k].var.as_deref().is_some_and(|v| !varies(v)));
        let reuse_set = |k: usize| -> f64 {
            classes
                .iter()
                .map(|((a, _), d)| span(d, (inputs.elem_bytes)(a), k))
                .sum()
        };
        let source = match carried {
            Some(k) => reuse_set(k),
            None => footprint,
        };
        seconds += streams * bytes / bandwidth(machine, source);
        // Constant offsets in a dimension an outer loop runs through: the layer.
        for (d, set) in c.offsets.iter().enumerate() {
            if set.len() < 2 {
                continue;
            }
            let Some(k) = (0..loops.len() - 1).find(|&k| {
                loops[k]
                    .var
                    .as_deref()
                    .is_some_and(|v| c.coefficients[d].contains_key(v))
            }) else {
                continue;
            };
            let range = (set.last().unwrap() - set.first().unwrap()) as f64;
            let layer = range * reuse_set(k);
            let extra = (set.len() - 1) as f64 * bytes;
            if fits(machine, layer).is_none() {
                seconds += extra / bandwidth(machine, footprint);
            }
        }
    }
    seconds
}

/// The innermost cache level holding `bytes`.
fn fits(machine: &Machine, bytes: f64) -> Option<usize> {
    machine
        .memory
        .levels
        .iter()
        .position(|l| bytes <= l.bytes as f64)
}

/// Bandwidth of the level a working set of `bytes` lives in (main memory when it fits
/// no cache; a level without a measured bandwidth streams a line per latency).
fn bandwidth(machine: &Machine, bytes: f64) -> f64 {
    let m = &machine.memory;
    match fits(machine, bytes) {
        Some(i) => {
            let l = &m.levels[i];
            l.bandwidth_bytes_per_s
                .unwrap_or(m.cache_line_bytes as f64 / l.latency_s)
        }
        None => m.bandwidth_bytes_per_s,
    }
}
