//! Computation time per processor (P^3T+ Definitions 4.7–4.9) and the predicted time on
//! the critical path.
//!
//! ctS(S, p) = work(S, p) · ctS_simple(S): the operations of one execution priced from
//! the machine model, times how often processor p executes S (owner computes). A loop's
//! own overhead (one `loop_iter` per iteration) and an IF's conditions are spread like
//! the work of the first assignment they contain (the compiler reduces loop bounds to a
//! processor's own iterations); outside any such loop every processor executes them.
//! ctL(L, p) and ctE(E, p) are the sums over what they contain (Definitions 4.8, 4.9).
//! An assignment's execution takes max(operations, memory traffic) (see `memory`); the
//! first assignment of a loop body overlaps its memory traffic with the loop's
//! overhead as well: an iteration takes max(operations + loop_iter, memory).
//! With the `ports` overlap model (an out-of-order core) the operations of a loop's
//! iteration overlap across statements too: the loop's own overhead and the
//! assignments directly in its body are priced as one group,
//! max(execution_s(Σ operations), Σ memory), and each gets the group's time in
//! proportion to what it would take alone (see [`iteration_groups`]).
//!
//! Predicted time, loosely synchronous: each statement at the top of a unit is a phase
//! (communication before it, then computation); a phase takes its communication's
//! critical-path time plus the computation of its busiest processor, and the phases run
//! one after the other: time(E) = Σ_phases (comm(phase) + max_p ct(phase, p)). A loop's
//! time is the same over its body. Calls add their callee's time per call times the
//! call's count (the callee's computation on every processor, the rest as
//! communication).

use super::ops::OpCounts;
use crate::machine::Machine;
use crate::machine::ops::OpKey;
use crate::work::Load;
use costline_syntax::ir::{Expr, Stmt, StmtId, StmtKind, Unit, walk};
use std::collections::HashMap;

/// Computation and communication of a statement, a loop (with its body) or a unit,
/// seconds per run of the unit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timing {
    /// Computation time on each processor (ctS/ctL/ctE of P^3T+ per processor).
    pub per_processor: Vec<f64>,
    /// Communication on the critical path (and what the callees add beyond their
    /// computation).
    pub comm_s: f64,
    /// The predicted time: phases of communication then computation of the busiest
    /// processor.
    pub time_s: f64,
    /// Whether every count it sums has a value (else the times leave those statements
    /// out and are not shown).
    pub known: bool,
}

impl Timing {
    /// The computation time of the busiest processor.
    pub fn ct_s(&self) -> f64 {
        self.per_processor.iter().copied().fold(0.0, f64::max)
    }

    /// The busiest processor (1-based).
    pub fn busiest(&self) -> Option<usize> {
        (0..self.per_processor.len())
            .max_by(|&a, &b| {
                self.per_processor[a]
                    .total_cmp(&self.per_processor[b])
                    .then(b.cmp(&a))
            })
            .map(|i| i + 1)
    }

    fn zero(p: usize) -> Timing {
        Timing {
            per_processor: vec![0.0; p],
            comm_s: 0.0,
            time_s: 0.0,
            known: true,
        }
    }

    fn absorb(&mut self, t: &Timing) {
        for (a, b) in self.per_processor.iter_mut().zip(&t.per_processor) {
            *a += b;
        }
        self.comm_s += t.comm_s;
        self.known &= t.known;
    }
}

/// The times of a unit's statements, loops and of the unit itself, per run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitTimes {
    /// By statement; a loop's or IF's includes everything it contains.
    stmts: HashMap<StmtId, Timing>,
    /// One execution of each assignment: (its operations, its memory traffic), seconds.
    executions: HashMap<StmtId, (f64, f64)>,
    pub unit: Timing,
    /// The processors the times are spread over.
    pub processors: usize,
}

impl UnitTimes {
    pub fn of(&self, id: StmtId) -> Option<&Timing> {
        self.stmts.get(&id)
    }

    /// One execution of an assignment: the seconds of its operations and of its memory
    /// traffic (it takes the larger).
    pub fn execution(&self, id: StmtId) -> Option<(f64, f64)> {
        self.executions.get(&id).copied()
    }
}

/// What the timing of a unit reads.
pub struct Inputs<'a> {
    pub unit: &'a Unit,
    pub machine: &'a Machine,
    /// The operations of one execution of each statement.
    pub ops: &'a HashMap<StmtId, OpCounts>,
    /// freq(S) per run of the unit, when it has a value.
    pub freq: &'a dyn Fn(StmtId) -> Option<f64>,
    /// work(S, p) of the assignments.
    pub load: &'a dyn Fn(StmtId) -> Option<Load>,
    /// The communication time on the critical path of a statement's own fetches or MPI
    /// call, per run.
    pub comm: &'a dyn Fn(StmtId) -> Option<f64>,
    /// What a CALL's callees add per run: (computation, total time).
    pub calls: &'a dyn Fn(StmtId) -> Option<(f64, f64)>,
    /// |P| of the unit (1 when nothing is distributed).
    pub processors: usize,
    /// Memory time of one execution of an assignment (see `memory`): it overlaps the
    /// operations, so an execution takes the larger of the two.
    pub memory: &'a dyn Fn(StmtId) -> f64,
    /// Seconds of one execution of a statement's intrinsic element loops on each
    /// processor (`super::intrinsic`).
    pub intrinsics: &'a dyn Fn(StmtId) -> Option<Vec<f64>>,
}

/// Times every statement of the unit.
pub fn unit_times(inputs: &Inputs) -> UnitTimes {
    let p = inputs.processors.max(1);
    let mut out = UnitTimes {
        stmts: HashMap::new(),
        executions: HashMap::new(),
        unit: Timing::zero(p),
        processors: p,
    };
    let everyone = vec![1.0; p];
    let grouped = if inputs.machine.overlaps_ports() {
        iteration_groups(inputs)
    } else {
        HashMap::new()
    };
    for s in &inputs.unit.body {
        let t = time_stmt(inputs, s, &everyone, &mut out, false, &grouped);
        out.unit.absorb(&t);
        out.unit.time_s += t.time_s;
    }
    out
}

/// Seconds per execution of a loop's own overhead and of the assignments directly in
/// its body when one iteration's operations overlap as a group (the `ports` model):
/// the group takes T = calls + max(the busiest port over the loop's operations + Σ the
/// assignments', Σ the assignments' memory time, the longest loop-carried cycle
/// through the body; one through array elements over how many entries' chains
/// overlap, [`chain_overlap`]) — a call (of the mathematical library too) fills the
/// out-of-order window, so what overlaps waits for it —
/// and a member whose time alone is wᵢ (an assignment's max(operations, memory), the
/// loop's overhead) gets T · wᵢ / Σ w.
fn iteration_groups(inputs: &Inputs) -> HashMap<StmtId, f64> {
    let mut out = HashMap::new();
    let machine = inputs.machine;
    let outer = enclosing_loop_of_loops(&inputs.unit.body);
    walk(&inputs.unit.body, &mut |s, _| {
        if !matches!(s.kind, StmtKind::Loop(_)) {
            return;
        }
        let assigns: Vec<&Stmt> = s
            .children()
            .filter(|c| matches!(c.kind, StmtKind::Assign { .. }))
            .collect();
        if assigns.is_empty() {
            return;
        }
        let own = loop_ops(inputs, s);
        let mut ops = OpCounts::default();
        let mut memory = 0.0;
        // The latency floor: the longest loop-carried cycle through the body, and at
        // least each statement's own chain (a recurrence found where the analysis of
        // the cycle does not reach, e.g. a vectorized reduction).
        let cycles = super::recurrence::carried_cycles(inputs.unit, s, machine);
        let (mut chain, mut per_entry) = (cycles.continuing_s, cycles.per_entry_s);
        let mut members = vec![(s.id, own.seconds(machine))];
        // A statement's own chain goes on across entries when it updates a scalar; one
        // through the elements it assigns (an array recurrence) starts at each entry.
        let mut add = |o: &OpCounts, element: bool| {
            let (latency, rest) = o.split_latency();
            let longest = if element { &mut per_entry } else { &mut chain };
            *longest = longest.max(latency.seconds(machine));
            ops.absorb(&rest);
        };
        add(&own, false);
        for c in assigns {
            let o = inputs.ops.get(&c.id).cloned().unwrap_or_default();
            let m = (inputs.memory)(c.id);
            members.push((c.id, o.seconds(machine).max(m)));
            let element = matches!(
                &c.kind,
                StmtKind::Assign {
                    lhs: Expr::Array(_),
                    ..
                }
            );
            add(&o, element);
            memory += m;
        }
        // Chains through elements start again at each entry of the loop: consecutive
        // entries' chains overlap in the out-of-order window.
        let trips = outer
            .get(&s.id)
            .and_then(|&o| Some((inputs.freq)(s.id)? / (inputs.freq)(o)?))
            .filter(|t| t.is_finite() && *t > 0.0);
        let overlap = match (trips, machine.processor.window_iterations) {
            (Some(trips), Some(window)) => chain_overlap(window, trips),
            _ => 1.0,
        };
        chain = chain.max(per_entry / overlap);
        let (calls, overlapped) =
            machine.serial_and_overlapped_s(ops.0.iter().map(|(k, n)| (k, *n)));
        let total = calls + overlapped.max(memory).max(chain);
        let alone: f64 = members.iter().map(|(_, w)| w).sum();
        if alone > 0.0 {
            for (id, w) in members {
                out.insert(id, total * w / alone);
            }
        }
    });
    out
}

/// How many independent chains of a loop's consecutive entries run at once: while the
/// oldest iteration waits on its chain the core runs `window` iterations ahead, which
/// reach into the next entries' chains as the entries get shorter than that: 1 +
/// window / trips.
fn chain_overlap(window: f64, trips: f64) -> f64 {
    1.0 + window / trips.max(1.0)
}

/// Each loop's innermost enclosing loop, for the loops nested in another.
fn enclosing_loop_of_loops(body: &[Stmt]) -> HashMap<StmtId, StmtId> {
    fn go(stmts: &[Stmt], outer: Option<StmtId>, out: &mut HashMap<StmtId, StmtId>) {
        for s in stmts {
            let is_loop = matches!(s.kind, StmtKind::Loop(_));
            if let (true, Some(o)) = (is_loop, outer) {
                out.insert(s.id, o);
            }
            let inner = if is_loop { Some(s.id) } else { outer };
            for c in s.children() {
                go(std::slice::from_ref(c), inner, out);
            }
        }
    }
    let mut out = HashMap::new();
    go(body, None, &mut out);
    out
}

/// Under the `ports` model, the operations of one iteration of loop `s` itself: those
/// it counts, except that a loop containing a loop overlaps its iteration with the
/// inner loop's, so each of its `loop_iter` costs two micro-operations at the front
/// end (`issue`), not a taken-branch slot of its own.
fn loop_ops(inputs: &Inputs, s: &Stmt) -> OpCounts {
    let own = inputs.ops.get(&s.id).cloned().unwrap_or_default();
    let encloses = s.children().any(|c| matches!(c.kind, StmtKind::Loop(_)));
    if !encloses {
        return own;
    }
    let mut out = OpCounts::default();
    for (k, n) in &own.0 {
        if *k == OpKey::LoopIter {
            out.add(OpKey::Issue, 2.0 * n);
        } else {
            out.add(k.clone(), *n);
        }
    }
    out
}

/// The timing of `s` (and of everything inside it, recorded in `table`); `share` is
/// the fraction of the enclosing loop's iterations each processor executes; `grouped`
/// the seconds per execution of the statements priced with their loop's iteration.
fn time_stmt(
    inputs: &Inputs,
    s: &Stmt,
    share: &[f64],
    table: &mut UnitTimes,
    overlaps_loop: bool,
    grouped: &HashMap<StmtId, f64>,
) -> Timing {
    let p = share.len();
    let mut t = Timing::zero(p);
    let freq = (inputs.freq)(s.id);
    t.known = freq.is_some() || inputs.ops.get(&s.id).is_none();
    let freq = freq.unwrap_or(0.0);
    let mut simple = inputs
        .ops
        .get(&s.id)
        .map_or(0.0, |o| o.seconds(inputs.machine));
    if matches!(s.kind, StmtKind::Assign { .. }) {
        let memory = (inputs.memory)(s.id);
        table.executions.insert(s.id, (simple, memory));
        // The memory traffic of a loop's first assignment overlaps the loop's own
        // overhead too (one iteration: max(operations + loop_iter, memory)).
        let overlapped = if overlaps_loop {
            inputs.machine.op_s(&OpKey::LoopIter)
        } else {
            0.0
        };
        simple = simple.max(memory - overlapped);
    }
    if let Some(g) = grouped.get(&s.id) {
        simple = *g;
    } else if inputs.machine.overlaps_ports() && matches!(s.kind, StmtKind::Loop(_)) {
        simple = loop_ops(inputs, s).seconds(inputs.machine);
    }
    // How often each processor executes the statement itself.
    let execs: Vec<f64> = match &s.kind {
        StmtKind::Assign { .. } => {
            match (inputs.load)(s.id).filter(|l| l.per_processor().len() == p) {
                Some(load) => load.per_processor().to_vec(),
                None => {
                    let each = match (inputs.load)(s.id) {
                        Some(l) => l.owork(),
                        None => freq,
                    };
                    vec![each; p]
                }
            }
        }
        _ => share.iter().map(|f| freq * f).collect(),
    };
    // Its own operations and its intrinsics' element loops, on the processors that
    // execute it.
    let loops = (inputs.intrinsics)(s.id).filter(|l| l.len() == p);
    for (q, (a, e)) in t.per_processor.iter_mut().zip(&execs).enumerate() {
        *a = e * (simple + loops.as_ref().map_or(0.0, |l| l[q]));
    }
    if let Some(c) = (inputs.comm)(s.id) {
        t.comm_s += c;
    }
    if let Some((ct, time)) = (inputs.calls)(s.id) {
        t.per_processor.iter_mut().for_each(|a| *a += ct);
        t.comm_s += (time - ct).max(0.0);
    }
    // What it contains.
    let inner_share = match &s.kind {
        StmtKind::Loop(_) | StmtKind::If(_) | StmtKind::Select(_) => {
            body_share(inputs, s, p).unwrap_or_else(|| share.to_vec())
        }
        _ => share.to_vec(),
    };
    if matches!(s.kind, StmtKind::Loop(_)) {
        // The loop's own overhead follows its iterations' owners.
        for (q, (a, f)) in t.per_processor.iter_mut().zip(&inner_share).enumerate() {
            *a = freq * (simple + loops.as_ref().map_or(0.0, |l| l[q])) * f;
        }
    }
    let mut first = matches!(s.kind, StmtKind::Loop(_));
    for child in s.children() {
        let assign = matches!(child.kind, StmtKind::Assign { .. });
        let c = time_stmt(inputs, child, &inner_share, table, first && assign, grouped);
        first &= !assign;
        t.absorb(&c);
    }
    t.time_s = t.comm_s + t.ct_s();
    table.stmts.insert(s.id, t.clone());
    t
}

/// The share of each processor in the iterations of `s`'s body: the work of the first
/// assignment inside it over that assignment's count.
fn body_share(inputs: &Inputs, s: &Stmt, p: usize) -> Option<Vec<f64>> {
    let mut found = None;
    walk(std::slice::from_ref(s), &mut |x, _| {
        if found.is_some() || !matches!(x.kind, StmtKind::Assign { .. }) {
            return;
        }
        let (Some(load), Some(freq)) = ((inputs.load)(x.id), (inputs.freq)(x.id)) else {
            return;
        };
        if freq > 0.0 && load.per_processor().len() == p {
            found = Some(load.per_processor().iter().map(|w| w / freq).collect());
        }
    });
    found
}
