//! The mapping in force at each statement: DYNAMIC arrays remapped by the executable
//! REDISTRIBUTE and REALIGN directives (HPF 2.0 section 8), which the lowering places
//! among the statements ([`StmtKind::Remap`]).
//!
//! A walk over the statements carries the mapping of every array and template:
//! - `REDISTRIBUTE X(formats) ONTO P` gives X a new distribution, and every array
//!   ultimately aligned with X follows it, keeping its alignment (HPF 2.0: "any other
//!   objects currently ultimately aligned with X are also remapped");
//! - `REALIGN B WITH T(...)` composes B's new alignment with T's mapping in force; it
//!   remaps B alone (arrays aligned with B keep their mapping).
//!
//! Both require DYNAMIC (an error otherwise, the remapping modelled as written); a
//! REDISTRIBUTE of an alignee or a REALIGN of a distributee is an error too.
//! Control flow: a loop's head has the mapping of its entry and of its back edge; when
//! they differ (a remapping inside the loop that the loop does not undo) the mapping
//! after an iteration, iterated to a fixed point (the one in force in every iteration
//! but the first), is used for the whole loop, and a warning says so. Branches of an IF
//! or SELECT CASE that leave different mappings: a warning naming the remappings, and
//! the first branch's mapping continues. GO TO jumps are not followed: the mapping of
//! a jump's target is the one the statements before it in the text leave.

use super::Remap;
use super::resolve::{Resolver, UnitMappings};
use super::{Mapping, TemplateIndex};
use costline_symbolic::Sym;
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::directive::{Directive, DirectiveKind, FormatClause};
use costline_syntax::ir::{Stmt, StmtId, StmtKind};
use costline_syntax::span::Span;
use std::collections::{BTreeSet, HashMap};

/// The mappings of every array and template at one point (`None`: no mapping).
type State = HashMap<String, Option<Mapping>>;

/// Where the mappings differ from the declared ones, and what each remapping moves.
#[derive(Clone, Debug, Default)]
pub struct Flow {
    /// The arrays whose mapping differs from the declared one, per distinct state.
    states: Vec<HashMap<String, Option<Mapping>>>,
    /// The state in force at each statement where some array's mapping differs.
    at: HashMap<StmtId, usize>,
    /// The arrays each REDISTRIBUTE or REALIGN statement moves (identities left out).
    remaps: HashMap<StmtId, Vec<Remap>>,
}

impl Flow {
    /// The remappings of statement `id` (empty unless it is a REDISTRIBUTE or REALIGN
    /// that moves something).
    pub fn remaps(&self, id: StmtId) -> &[Remap] {
        self.remaps.get(&id).map_or(&[], Vec::as_slice)
    }
}

impl UnitMappings {
    /// The mapping of `array` in force at statement `stmt` (`None`: replicated).
    pub fn at(&self, stmt: StmtId, array: &str) -> Option<&Mapping> {
        match self
            .dynamic
            .at
            .get(&stmt)
            .and_then(|k| self.dynamic.states[*k].get(array))
        {
            Some(m) => m.as_ref(),
            None => self.arrays.get(array),
        }
    }
}

/// Follows the REDISTRIBUTE and REALIGN statements of the resolver's unit from the
/// declared mappings (`arrays`; templates as the resolver has them).
pub(super) fn flow(r: &mut Resolver, arrays: &HashMap<String, Mapping>) -> Flow {
    let unit = r.unit;
    let has_remaps = unit.directives.iter().any(|d| {
        matches!(
            d.kind,
            DirectiveKind::Redistribute(_) | DirectiveKind::Realign(_)
        )
    });
    if !has_remaps {
        return Flow::default();
    }
    let mut declared: State = arrays
        .iter()
        .map(|(k, v)| (k.clone(), Some(v.clone())))
        .collect();
    for s in unit.symbols.values().filter(|s| s.is_array()) {
        declared.entry(s.name.clone()).or_insert(None);
    }
    let array_names: BTreeSet<String> = declared.keys().cloned().collect();
    let mut templates: Vec<String> = r.templates.keys().cloned().collect();
    templates.sort();
    for t in templates {
        let m = r.mapping(&t, 0);
        declared.insert(t, m);
    }
    let dynamic: BTreeSet<String> = unit
        .directives
        .iter()
        .filter_map(|d| match &d.kind {
            DirectiveKind::Dynamic(names) => Some(names.iter().map(|n| n.name.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    let mut w = Walk {
        r,
        arrays: array_names,
        dynamic,
        declared: declared.clone(),
        flow: Flow::default(),
        record: true,
        steps_left: MAX_STEPS,
    };
    let _ = w.block(&unit.body, declared);
    w.flow
}

struct Walk<'r, 'a> {
    r: &'r mut Resolver<'a>,
    /// The unit's arrays (the state holds templates too).
    arrays: BTreeSet<String>,
    dynamic: BTreeSet<String>,
    declared: State,
    flow: Flow,
    /// Whether this pass records states, remappings and findings (a pass looking for
    /// a loop's fixed point does not).
    record: bool,
    /// Statements the walk may still visit ([`MAX_STEPS`]).
    steps_left: u64,
}

/// Statements one unit's walk visits at most. A loop's fixed point walks its body up to
/// five times, so remappings inside deep nests would take time exponential in the
/// depth; past this, loops are walked once, without looking for their fixed point.
const MAX_STEPS: u64 = 1_000_000;

/// Whether `body` holds a REDISTRIBUTE or REALIGN (at any depth).
fn remaps_in(body: &[Stmt]) -> bool {
    let mut found = false;
    costline_syntax::ir::walk(body, &mut |s, _| {
        found |= matches!(s.kind, StmtKind::Remap { .. });
    });
    found
}

impl Walk<'_, '_> {
    fn block(&mut self, stmts: &[Stmt], mut state: State) -> State {
        for s in stmts {
            costline_symbolic::interrupt::point();
            self.steps_left = self.steps_left.saturating_sub(1);
            self.note(s.id, &state);
            state = match &s.kind {
                StmtKind::Remap { directive } => self.remap(s.id, *directive, state),
                StmtKind::Loop(l) => self.repeat(l.header, &l.body, state),
                StmtKind::If(i) => {
                    let bodies: Vec<&[Stmt]> = i.branches.iter().map(|b| &b.body[..]).collect();
                    let complete = i.branches.iter().any(|b| b.cond.is_none());
                    self.branches(s.span, "IF", &bodies, complete, state)
                }
                StmtKind::Select(sel) => {
                    let bodies: Vec<&[Stmt]> = sel.cases.iter().map(|c| &c.body[..]).collect();
                    let complete = sel.cases.iter().any(|c| c.values.is_none());
                    self.branches(s.span, "SELECT CASE", &bodies, complete, state)
                }
                StmtKind::Goto { .. } => {
                    if self.record {
                        self.r.diagnostics.push(Diagnostic::warning(
                            s.span,
                            "not-modelled",
                            "this unit remaps arrays and this GO TO is not followed by the \
                             mapping in force: the statements at its target get the mapping \
                             the statements before them in the text leave",
                        ));
                    }
                    state
                }
                _ => state,
            };
        }
        state
    }

    /// Records the mappings in force at `id` where they differ from the declared ones.
    fn note(&mut self, id: StmtId, state: &State) {
        if !self.record {
            return;
        }
        let differs: HashMap<String, Option<Mapping>> = state
            .iter()
            .filter(|(k, m)| {
                self.arrays.contains(*k) && !self.declared.get(*k).is_some_and(|d| same(d, m))
            })
            .map(|(k, m)| (k.clone(), m.clone()))
            .collect();
        if differs.is_empty() {
            return;
        }
        let k = match self.flow.states.iter().position(|s| *s == differs) {
            Some(k) => k,
            None => {
                self.flow.states.push(differs);
                self.flow.states.len() - 1
            }
        };
        self.flow.at.insert(id, k);
    }

    /// A loop: its body from the head's mapping, iterated until the mapping after an
    /// iteration is the one before it.
    fn repeat(&mut self, header: Span, body: &[Stmt], entry: State) -> State {
        if !remaps_in(body) {
            // The body maps nothing anew: one pass, only to record what is in force.
            return if self.record {
                self.block(body, entry)
            } else {
                entry
            };
        }
        if self.steps_left == 0 {
            self.not_modelled(
                header,
                "this unit's remappings are too many to follow through its loops: this loop \
                 is walked once, with the mapping it is entered with"
                    .into(),
            );
            return self.block(body, entry);
        }
        let record = std::mem::replace(&mut self.record, false);
        let mut head = entry.clone();
        let mut settled = false;
        for _ in 0..4 {
            let after = self.block(body, head.clone());
            if same_state(&after, &head) {
                settled = true;
                break;
            }
            head = after;
        }
        self.record = record;
        if record && !same_state(&head, &entry) {
            let changed = self.changed(&[&entry, &head]);
            let how = if settled {
                "costline uses the mapping after an iteration (in force in every iteration \
                 but the first) for the whole loop: the first iteration's statements before \
                 the remapping are costed with it, and so is the remapping's first run"
            } else {
                "and it changes again in every iteration: costline uses the mapping after \
                 four iterations for the whole loop"
            };
            let list = changed
                .iter()
                .map(|a| {
                    format!(
                        "`{a}` enters as {} and is {} after an iteration",
                        describe(&entry[a]),
                        describe(&head[a])
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            self.r.diagnostics.push(Diagnostic::warning(
                header,
                "remap-in-loop",
                format!(
                    "this loop remaps arrays and does not restore their mapping before it \
                     repeats ({list}): {how}"
                ),
            ));
        }
        self.block(body, head)
    }

    /// IF or SELECT CASE: every branch from `entry` (and, without ELSE or CASE
    /// DEFAULT, the path through none); the first branch's mapping continues.
    fn branches(
        &mut self,
        span: Span,
        what: &str,
        bodies: &[&[Stmt]],
        complete: bool,
        entry: State,
    ) -> State {
        if !self.record && !bodies.iter().any(|b| remaps_in(b)) {
            return entry;
        }
        let mut outs: Vec<State> = bodies
            .iter()
            .map(|b| self.block(b, entry.clone()))
            .collect();
        if !complete {
            outs.push(entry.clone());
        }
        let Some(first) = outs.first().cloned() else {
            return entry;
        };
        if self.record && outs.iter().any(|o| !same_state(o, &first)) {
            let refs: Vec<&State> = outs.iter().collect();
            let changed = self.changed(&refs);
            let remaps: Vec<String> = bodies
                .iter()
                .enumerate()
                .flat_map(|(k, b)| {
                    let mut found = Vec::new();
                    costline_syntax::ir::walk(b, &mut |s, _| {
                        if let StmtKind::Remap { directive } = s.kind
                            && let Some(d) = self.r.unit.directives.get(directive)
                        {
                            found.push(format!("`{}` in branch {}", d.kind, k + 1));
                        }
                    });
                    found
                })
                .collect();
            let arrays = changed
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ");
            self.r.diagnostics.push(Diagnostic::warning(
                span,
                "remap-in-branch",
                format!(
                    "the branches of this {what} leave {arrays} mapped differently ({}): \
                     costline continues with the mapping the first branch leaves ({})",
                    remaps.join(", "),
                    changed
                        .iter()
                        .map(|a| format!("`{a}` {}", describe(&first[a])))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        first
    }

    /// The arrays whose mapping differs between some of `states`.
    fn changed(&self, states: &[&State]) -> Vec<String> {
        self.arrays
            .iter()
            .filter(|a| {
                states
                    .iter()
                    .any(|s| !same(&s[a.as_str()], &states[0][a.as_str()]))
            })
            .cloned()
            .collect()
    }

    fn remap(&mut self, id: StmtId, k: usize, mut state: State) -> State {
        let Some(d) = self.r.unit.directives.get(k) else {
            return state;
        };
        let before = state.clone();
        match &d.kind {
            DirectiveKind::Redistribute(dist) => self.redistribute(d, dist, &mut state),
            DirectiveKind::Realign(a) => self.realign(d, a, &mut state),
            _ => {}
        }
        if self.record {
            let moves: Vec<Remap> = self
                .arrays
                .iter()
                .filter(|a| !same(&before[a.as_str()], &state[a.as_str()]))
                .filter_map(|a| {
                    Some(Remap {
                        array: a.clone(),
                        shape: self.r.array_shape(a)?,
                        from: before.get(a).cloned().flatten(),
                        to: state.get(a).cloned().flatten(),
                    })
                })
                .filter(|m| !m.is_identity())
                .collect();
            if !moves.is_empty() {
                self.flow.remaps.insert(id, moves);
            }
        }
        state
    }

    /// An error (recorded passes only): a rule of HPF the program breaks.
    fn error(&mut self, span: Span, message: String) {
        if self.record {
            self.r
                .diagnostics
                .push(Diagnostic::error(span, "hpf-remap", message));
        }
    }

    fn not_modelled(&mut self, span: Span, message: String) {
        if self.record {
            self.r
                .diagnostics
                .push(Diagnostic::warning(span, "not-modelled", message));
        }
    }

    fn require_dynamic(&mut self, name: &costline_syntax::ir::directive::Named, what: &str) {
        if !self.dynamic.contains(&name.name) {
            self.error(
                name.span,
                format!(
                    "`{}` is not DYNAMIC: HPF allows {what} only of arrays and templates declared \
                     DYNAMIC (costline models the remapping as written)",
                    name.name
                ),
            );
        }
    }

    /// `REDISTRIBUTE X(formats) ONTO P`: X and the arrays ultimately aligned with it.
    fn redistribute(
        &mut self,
        d: &Directive,
        dist: &costline_syntax::ir::directive::Distribute,
        state: &mut State,
    ) {
        let FormatClause::Prescriptive(formats) = &dist.formats else {
            self.not_modelled(
                d.span,
                "REDISTRIBUTE without a prescriptive format is not modelled: the arrays keep \
                 their mapping"
                    .into(),
            );
            return;
        };
        for x in &dist.distributees {
            self.require_dynamic(x, "REDISTRIBUTE");
            if self.r.aligns.contains_key(&x.name) {
                self.error(
                    x.span,
                    format!(
                        "`{}` is aligned with another object: HPF does not allow it as the \
                         distributee of a REDISTRIBUTE",
                        x.name
                    ),
                );
            }
            if let Err(why) = self
                .r
                .distribute_one(x, formats, dist.onto.as_ref(), d.span)
            {
                self.not_modelled(
                    x.span,
                    format!(
                        "the redistribution of `{}` is not modelled ({why}): it keeps its mapping",
                        x.name
                    ),
                );
                continue;
            }
            let Some(new) = self.r.distributions.get(&x.name).cloned() else {
                continue;
            };
            let old_directive = state
                .get(&x.name)
                .cloned()
                .flatten()
                .map(|m| m.distribution.directive);
            for m in state.values_mut().flatten() {
                if m.distribution.target == x.name {
                    m.directives
                        .retain(|s| Some(*s) != old_directive && *s != d.span);
                    m.directives.insert(0, d.span);
                    m.distribution = new.clone();
                }
            }
            // X itself is now distributed directly (it may have had no mapping).
            let index = (0..new.dims.len())
                .map(|dim| TemplateIndex::Affine {
                    dim,
                    coef: Sym::one(),
                    offset: Sym::zero(),
                })
                .collect();
            state.insert(
                x.name.clone(),
                Some(Mapping {
                    distribution: new,
                    index,
                    directives: vec![d.span],
                }),
            );
        }
    }

    /// `REALIGN B WITH T(...)`: B's new alignment composed with T's mapping in force.
    fn realign(
        &mut self,
        d: &Directive,
        a: &costline_syntax::ir::directive::Align,
        state: &mut State,
    ) {
        for b in &a.alignees {
            self.require_dynamic(b, "REALIGN");
            if self.r.distributions.contains_key(&b.name) {
                self.error(
                    b.span,
                    format!(
                        "`{}` is distributed: HPF does not allow it as the alignee of a REALIGN",
                        b.name
                    ),
                );
                continue;
            }
            // The target's mapping in force, as the resolver will see it.
            self.r.resolved = state.clone();
            self.r.resolved.remove(&b.name);
            match self.r.align(&b.name, a, d.span, 0) {
                Ok(m) => {
                    state.insert(b.name.clone(), m);
                }
                Err(why) => self.not_modelled(
                    b.span,
                    format!(
                        "the realignment of `{}` is not modelled ({why}): it keeps its mapping",
                        b.name
                    ),
                ),
            }
        }
    }
}

/// Whether two mappings place every element alike.
fn same(a: &Option<Mapping>, b: &Option<Mapping>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.same_placement(b),
        (None, None) => true,
        _ => false,
    }
}

/// Whether two states place every array and template alike.
fn same_state(a: &State, b: &State) -> bool {
    a.len() == b.len() && a.iter().all(|(k, m)| b.get(k).is_some_and(|n| same(m, n)))
}

/// A mapping as it reads in a message: `a(BLOCK, *) onto pr`.
fn describe(m: &Option<Mapping>) -> String {
    let Some(m) = m else {
        return "replicated".into();
    };
    let d = &m.distribution;
    let formats: Vec<String> = d
        .dims
        .iter()
        .map(|x| match &x.format {
            super::Format::Block(_) => "BLOCK".to_string(),
            super::Format::Cyclic(k) if k.as_int() == Some(1) => "CYCLIC".to_string(),
            super::Format::Cyclic(k) => format!("CYCLIC({k})"),
            super::Format::Collapsed => "*".to_string(),
        })
        .collect();
    format!("{}({}) onto {}", d.target, formats.join(", "), d.onto.name)
}
