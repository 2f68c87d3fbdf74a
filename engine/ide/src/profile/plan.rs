//! Where a profile's counters go: for each probe of each unit
//! ([`costline_model::freq::probes`]), the statements inserted into a copy of the file
//! (or of the included file) that holds it, at lines of their own:
//!
//! - an IF or SELECT: a counter after each branch's header line (IF THEN, ELSE IF,
//!   ELSE, CASE), and an ELSE (a CASE DEFAULT) with one before END IF (END SELECT)
//!   where there is none; a logical IF `IF (c) s` becomes `IF (c) THEN`, a counter,
//!   `s`, `ELSE`, a counter, `END IF`;
//! - a loop: a counter before its DO line (entries) and after it (iterations);
//! - a GO TO loop: a counter before its labelled statement and one before each GO TO
//!   back to it (for a GO TO in a logical IF: the IF's THEN counter);
//! - the unknowns a statement of the unit's body (and what it holds) needs: a record
//!   of each one's value before it;
//! - a read of a mapped array whose element the analysis cannot follow: before its
//!   statement, the call recording the subscripts of the left-hand side's element and
//!   of the element read (under its logical IF's condition, written again, when it is
//!   that IF's statement), and before the loop where each instance of its fetch
//!   starts, the call counting instances ([`super::gathers`]).
//!
//! A counter before a labelled statement takes its label along: the label moves to a
//! `CONTINUE` before the counter, so jumps to it are counted too. Statements whose
//! layout does not allow this (two statements on a line, a logical IF that ends a DO
//! loop, text in an included file spliced in more than once) are not measured: they
//! are listed, and their counts stay assumed.

use super::edit::{Edit, add, apply, hit, labelled_continue, line, record};
use super::gathers::{GatherTable, MAX_STAMPS};
use super::lexical::{after_parentheses, next_word};
use super::port;
use super::{GatherPoint, Instrumented, Point, Role};
use costline_db::analysis::{comm, constants, freqs, lower};
use costline_db::{File, UnitKey, file_units, text_digest};
use costline_model::comm::gather::GatherSite;
use costline_model::comm::{RefComm, UnitComm};
use costline_model::freq::probes::{Probe, probes};
use costline_symbolic::Env;
use costline_syntax::UnitChunk;
use costline_syntax::ir::{Expr, LoopControl, LoopOrigin, Stmt, StmtId, StmtKind, Subscript, Unit};
use costline_syntax::source::{SourceFile, SourceForm};
use costline_syntax::span::Span;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// The instrumented texts of the program made of `files`, and what each counter counts.
pub fn instrument(db: &dyn salsa::Database, files: &[File]) -> Instrumented {
    let sources: Vec<Arc<SourceFile>> = files
        .iter()
        .filter_map(|&f| file_units(db, f).as_ref().ok().map(|u| u.source.clone()))
        .collect();
    let mut plan = Plan {
        sources: &sources,
        edits: BTreeMap::new(),
        points: Vec::new(),
        gathers: Vec::new(),
        skipped: Vec::new(),
        next: 1,
    };
    let mut ported: BTreeMap<String, (Arc<SourceFile>, BTreeSet<Edit>)> = BTreeMap::new();
    for &file in files {
        let Ok(f) = file_units(db, file) else {
            continue;
        };
        let irs: Vec<Arc<Unit>> = f.units.iter().map(|&u| lower(db, u)).collect();
        let places: Vec<UnitPlace> = f
            .chunks
            .iter()
            .zip(&f.units)
            .zip(&irs)
            .map(|((chunk, &unit), ir)| UnitPlace {
                source: &f.source,
                chunk,
                text: unit.text(db),
                ir,
                key: UnitKey {
                    kind: unit.kind(db),
                    name: unit.name(db).clone(),
                    host: unit.host(db).clone(),
                },
                digest: text_digest(unit.text(db)),
            })
            .collect();
        for (src, e) in port::edits(&places) {
            ported
                .entry(src.path().to_string())
                .or_insert_with(|| (src.clone(), BTreeSet::new()))
                .1
                .insert(e);
        }
        for (at, &unit) in places.iter().zip(&f.units) {
            let probes = probes(at.ir, &freqs(db, unit));
            if calls_mpi(at.ir) {
                plan.unit_runs(at);
            }
            if !probes.is_empty() {
                plan.unit(at, &probes);
            }
            plan.mpi_calls(at);
            let known = constants(db, unit);
            let env = |n: &str| known.values.get(n).map(|v| i128::from(*v));
            plan.gathers(at, &comm(db, unit), &env);
        }
    }
    let mut out = Instrumented {
        files: Vec::new(),
        ported: Vec::new(),
        counters: plan.next - 1,
        points: plan.points,
        gathers: plan.gathers,
        skipped: plan.skipped,
    };
    // The port's edits come first: an interface block goes before a counter at the
    // same place.
    let mut paths: BTreeSet<String> = ported.keys().cloned().collect();
    paths.extend(plan.edits.keys().cloned());
    for path in paths {
        let port: Vec<Edit> = ported
            .get(&path)
            .map_or_else(Vec::new, |(_, e)| e.iter().cloned().collect());
        let (src, counters) = match (plan.edits.remove(&path), ported.get(&path)) {
            (Some((src, edits)), _) => (src, edits),
            (None, Some((src, _))) => (src.clone(), Vec::new()),
            (None, None) => continue,
        };
        let ported_text = if port.is_empty() {
            None
        } else if let Some(text) = apply(src.original(), &port) {
            out.ported.push((path.clone(), text.clone()));
            Some(text)
        } else {
            out.skipped.push(format!(
                "{path}: overlapping edits to make it compile; the file is not measured"
            ));
            continue;
        };
        if counters.is_empty() {
            out.files.extend(ported_text.map(|t| (path, t)));
            continue;
        }
        let all: Vec<Edit> = port.into_iter().chain(counters).collect();
        match apply(src.original(), &all) {
            Some(text) => out.files.push((path, text)),
            None => out.skipped.push(format!(
                "{path}: overlapping insertions; the file is not measured"
            )),
        }
    }
    out
}

/// The counters planned so far.
struct Plan<'s> {
    /// The program's files (to tell how often an included file is spliced in).
    sources: &'s [Arc<SourceFile>],
    /// By path: the file and the edits of its original text.
    edits: BTreeMap<String, (Arc<SourceFile>, Vec<Edit>)>,
    points: Vec<Point>,
    gathers: Vec<GatherPoint>,
    skipped: Vec<String>,
    /// The next counter's number.
    next: usize,
}

/// A place in a file's original text.
#[derive(Clone)]
pub(super) struct Loc {
    pub(super) src: Arc<SourceFile>,
    pub(super) offset: usize,
}

impl Loc {
    pub(super) fn text(&self) -> &str {
        self.src.original()
    }

    /// The start of the line holding the offset.
    pub(super) fn line_start(&self) -> usize {
        self.text()[..self.offset].rfind('\n').map_or(0, |p| p + 1)
    }

    /// The end of the line holding the offset (its newline, or the text's end).
    fn line_end(&self) -> usize {
        self.text()[self.offset..]
            .find('\n')
            .map_or(self.text().len(), |p| self.offset + p)
    }

    fn line(&self) -> u32 {
        self.src.line_index().line_col(self.offset as u32).0
    }

    fn column(&self) -> u32 {
        self.src.line_index().line_col(self.offset as u32).1
    }

    pub(super) fn form(&self) -> SourceForm {
        self.src.form()
    }

    /// Statements inserted on lines of their own after the line holding the offset.
    fn after_line(&self, stmts: &[String]) -> Edit {
        let end = self.line_end();
        let mut text = String::new();
        if end == self.text().len() {
            text.push('\n');
        }
        for s in stmts {
            text.push_str(&line(self.form(), s));
        }
        let at = (end + 1).min(self.text().len());
        Edit {
            start: at,
            end: at,
            text,
        }
    }

    /// Statements inserted on lines of their own before the line holding the
    /// statement that starts at the offset; its `label` (if any) moves to a
    /// `CONTINUE` before them. An error when other text precedes the statement.
    fn before_line(&self, label: Option<u32>, stmts: &[String]) -> Result<Vec<Edit>, String> {
        let start = self.line_start();
        let mut blank = None;
        let head = &self.text()[start..self.line_end()];
        let lead = head.len() - head.trim_start().len();
        let digits = head[lead..].bytes().take_while(u8::is_ascii_digit).count();
        if let Some(label) = label
            && digits > 0
            && head[lead..lead + digits].parse::<u32>() == Ok(label)
        {
            blank = Some((start + lead, start + lead + digits));
        }
        let before = match blank {
            Some((_, e)) if e <= self.offset => &self.text()[e..self.offset],
            Some(_) => "",
            None => &self.text()[start..self.offset],
        };
        if !before.trim().is_empty() {
            return Err("another statement precedes it on its line".into());
        }
        if label.is_some() && blank.is_none() {
            return Err("its label is not at the start of its line".into());
        }
        let mut text = String::new();
        if let Some(label) = label {
            text.push_str(&labelled_continue(self.form(), label));
        }
        for s in stmts {
            text.push_str(&line(self.form(), s));
        }
        let mut edits = vec![Edit {
            start,
            end: start,
            text,
        }];
        if let Some((s, e)) = blank {
            edits.push(Edit {
                start: s,
                end: e,
                text: " ".repeat(e - s),
            });
        }
        Ok(edits)
    }

    /// Statements inserted on lines of their own before the line holding the offset,
    /// whose statement (an END IF, END SELECT) keeps its label.
    fn before_this_line(&self, stmts: &[String]) -> Edit {
        let start = self.line_start();
        Edit {
            start,
            end: start,
            text: stmts.iter().map(|s| line(self.form(), s)).collect(),
        }
    }

    /// The first word of the statement on the line (after a label, and in fixed form
    /// the label and continuation columns), lower-case.
    fn first_word(&self) -> String {
        let start = self.line_start();
        let head = &self.text()[start..self.line_end()];
        let head = match self.form() {
            SourceForm::Fixed { .. } => head.get(6..).unwrap_or(""),
            SourceForm::Free => head
                .trim_start()
                .trim_start_matches(|c: char| c.is_ascii_digit()),
        };
        head.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect::<String>()
            .to_ascii_lowercase()
    }
}

/// One unit being instrumented.
pub(super) struct UnitPlace<'a> {
    pub(super) source: &'a Arc<SourceFile>,
    chunk: &'a UnitChunk,
    pub(super) text: &'a str,
    pub(super) ir: &'a Unit,
    key: UnitKey,
    digest: u64,
}

impl UnitPlace<'_> {
    /// Where an offset of the unit's text was written.
    pub(super) fn locate(&self, at: usize) -> Loc {
        let spliced = self.chunk.file_offset(at as u32);
        match self
            .source
            .origin(Span {
                start: spliced,
                end: spliced,
            })
            .header
        {
            Some((src, span)) => Loc {
                src,
                offset: span.start as usize,
            },
            None => Loc {
                src: self.source.clone(),
                offset: self.source.to_original(spliced) as usize,
            },
        }
    }

    /// The statement `id`.
    fn stmt(&self, id: StmtId) -> Option<&Stmt> {
        find(&self.ir.body, id)
    }

    /// The IF holding GO TO `goto` as its logical IF's statement, if it is one.
    fn logical_if_of(&self, goto: StmtId) -> Option<&Stmt> {
        let mut found = None;
        self.ir.walk(&mut |s, _| {
            if let StmtKind::If(i) = &s.kind
                && i.branches.len() == 1
                && i.branches[0].body.len() == 1
                && i.branches[0].body[0].id == goto
                && found.is_none()
            {
                found = Some(s.id);
            }
        });
        let s = self.stmt(found?)?;
        (!self.is_block_if(s)).then_some(s)
    }

    /// Where counters put before the statement `s` go, and the guard they repeat: the
    /// logical IF that holds `s`, with `if (COND) `, else `s` itself, with none. An error
    /// when the IF's condition cannot be written again before it or the place's label
    /// ends a DO loop.
    fn placed_before<'s>(&'s self, s: &'s Stmt) -> Result<(&'s Stmt, String), &'static str> {
        let (place, guard) = match self.logical_if_of(s.id) {
            Some(g) => {
                let cond = match &g.kind {
                    StmtKind::If(i) => i.branches[0].cond.as_ref(),
                    _ => None,
                }
                .filter(|c| writable(self, c, &[]))
                .ok_or("its IF's condition cannot be written again before it")?;
                (g, format!("if ({cond}) "))
            }
            None => (s, String::new()),
        };
        if place.label.is_some() && self.ends_a_loop(place) {
            return Err("its label ends a DO loop");
        }
        Ok((place, guard))
    }

    /// Whether the IF `s` is a block IF (its condition followed by THEN).
    fn is_block_if(&self, s: &Stmt) -> bool {
        after_parentheses(self.text, s.span.start as usize)
            .and_then(|end| next_word(self.text, end))
            .is_some_and(|(_, _, w)| w == "then")
    }

    /// Whether `s` is the last statement of a loop's body (a labelled DO's terminal
    /// statement, which must stay where it is).
    fn ends_a_loop(&self, s: &Stmt) -> bool {
        let mut ends = false;
        self.ir.walk(&mut |x, _| {
            if let StmtKind::Loop(l) = &x.kind {
                ends |= l.body.last().is_some_and(|last| last.id == s.id);
            }
        });
        ends
    }
}

/// `e` as it adds to `edits`, when two probes put counters before one labelled
/// statement (a DO that starts a GO TO loop): its label is moved once, to one
/// CONTINUE. `None` when `edits` already make it.
fn merged(edits: &[Edit], mut e: Edit) -> Option<Edit> {
    if edits.contains(&e) {
        return None;
    }
    if e.start == e.end {
        let first = |t: &str| t.split_inclusive('\n').next().unwrap_or("").to_string();
        let label = first(&e.text);
        let moved = label.trim_end().ends_with("continue")
            && edits
                .iter()
                .any(|o| o.start == e.start && o.end == e.end && first(&o.text) == label);
        if moved {
            e.text = e.text[label.len()..].to_string();
        }
    }
    Some(e)
}

/// The trip count of the counted loop `x` as a Fortran expression of kind 8, when its
/// bounds name only the unit's own variables and constants (not the variables of
/// `chain`, the loops of its construct) and intrinsic inquiries.
fn trip_expr(at: &UnitPlace, x: &Stmt, chain: &[&Stmt]) -> Result<String, String> {
    let StmtKind::Loop(l) = &x.kind else {
        return Err("not a loop".into());
    };
    let LoopControl::Counted {
        lower, upper, step, ..
    } = &l.control
    else {
        return Err("not a counted loop".into());
    };
    let vars: Vec<&str> = chain
        .iter()
        .filter_map(|c| match &c.kind {
            StmtKind::Loop(o) => o.var(),
            _ => None,
        })
        .collect();
    let plain = [Some(lower), Some(upper), step.as_ref()]
        .into_iter()
        .flatten()
        .all(|e| writable(at, e, &vars));
    if !plain {
        return Err("its bounds cannot be written where it starts".into());
    }
    Ok(match step {
        None => format!("int(max(0,({upper})-({lower})+1),8)"),
        Some(st) => format!("int(max(0,(({upper})-({lower})+({st}))/({st})),8)"),
    })
}

/// The element count the CALL `s` of an MPI routine passes, as an expression of kind 8
/// to evaluate before it, when the routine moves one buffer and the count can be
/// written there.
fn elements(at: &UnitPlace, s: &Stmt) -> Option<String> {
    let StmtKind::Call(c) = &s.kind else {
        return None;
    };
    let arg = c.args.get(count_argument(&c.name.to_ascii_lowercase())?)?;
    (arg.keyword.is_none() && writable(at, &arg.value, &[]))
        .then(|| format!("int({},8)", arg.value))
}

/// Whether the integer expression `e` can be written as it is before its statement in
/// the unit `at`: names and arrays the unit declares or sees (not the variables
/// `vars`), and no call but intrinsic inquiries.
fn writable(at: &UnitPlace, e: &Expr, vars: &[&str]) -> bool {
    let mut plain = true;
    e.visit(&mut |n| match n {
        Expr::Unknown(_) | Expr::Real(_) | Expr::Str(_) => plain = false,
        Expr::Name(v) => {
            plain &= !vars.contains(&v.as_str())
                && (at.ir.symbols.contains_key(v) || at.ir.outer.contains_key(v))
        }
        Expr::Array(r) => {
            plain &= at.ir.symbols.contains_key(&r.name) || at.ir.outer.contains_key(&r.name)
        }
        Expr::Call(c) => {
            plain &=
                ["size", "lbound", "ubound", "min", "max", "mod", "abs"].contains(&c.name.as_str())
        }
        _ => {}
    });
    plain
}

/// Whether `unit` calls an MPI routine.
fn calls_mpi(unit: &Unit) -> bool {
    let mut found = false;
    unit.walk(&mut |s, _| {
        found |=
            matches!(&s.kind, StmtKind::Call(c) if c.name.to_ascii_lowercase().starts_with("mpi_"));
    });
    found
}

/// The position (from 0) of the element count among the arguments of the MPI
/// routine `name` (lower-case), for the routines that move one buffer of elements.
fn count_argument(name: &str) -> Option<usize> {
    match name {
        "mpi_send" | "mpi_isend" | "mpi_ssend" | "mpi_issend" | "mpi_rsend" | "mpi_irsend"
        | "mpi_bsend" | "mpi_ibsend" | "mpi_recv" | "mpi_irecv" | "mpi_bcast" => Some(1),
        "mpi_reduce" | "mpi_allreduce" | "mpi_scan" | "mpi_exscan" => Some(2),
        _ => None,
    }
}

/// The statements around the statement `id` among `stmts`, outermost first (none
/// when `id` is among them); `None` when it is not there.
fn enclosing(stmts: &[Stmt], id: StmtId) -> Option<Vec<&Stmt>> {
    for s in stmts {
        if s.id == id {
            return Some(Vec::new());
        }
        for c in s.children() {
            if let Some(mut inner) = enclosing(std::slice::from_ref(c), id) {
                inner.insert(0, s);
                return Some(inner);
            }
        }
    }
    None
}

/// The statement `id` among `stmts` and their children.
fn find(stmts: &[Stmt], id: StmtId) -> Option<&Stmt> {
    for s in stmts {
        if s.id == id {
            return Some(s);
        }
        let children: Vec<&Stmt> = s.children().collect();
        for c in children {
            if let Some(f) = find(std::slice::from_ref(c), id) {
                return Some(f);
            }
        }
    }
    None
}

/// The edits of one probe, by the file they change, and its points.
#[derive(Default)]
struct Placed {
    edits: Vec<(Arc<SourceFile>, Edit)>,
    points: Vec<(usize, u32, Role, Loc)>,
    /// The unknown each [`Role::Value`] counter records, by counter.
    names: HashMap<usize, String>,
}

impl Placed {
    fn edit(&mut self, at: &Loc, edits: Vec<Edit>) {
        self.edits
            .extend(edits.into_iter().map(|e| (at.src.clone(), e)));
    }
}

impl Plan<'_> {
    fn counter(&mut self) -> usize {
        self.next += 1;
        self.next - 1
    }

    /// Plans the counters of `probes` in the unit `at`.
    fn unit(&mut self, at: &UnitPlace, probes: &[Probe]) {
        // The IFs whose THEN counter counts a GO TO loop's jumps back.
        let mut jump_ifs: HashMap<StmtId, StmtId> = HashMap::new();
        for p in probes {
            if let Probe::Repeat { jumps, .. } = p {
                for &j in jumps {
                    if let Some(s) = at.logical_if_of(j) {
                        jump_ifs.insert(j, s.id);
                    }
                }
            }
        }
        let mut ifs: Vec<StmtId> = probes
            .iter()
            .filter_map(|p| match p {
                Probe::Branches { stmt } => Some(*stmt),
                _ => None,
            })
            .collect();
        for s in jump_ifs.values() {
            if !ifs.contains(s) {
                ifs.push(*s);
            }
        }
        ifs.sort();
        // The THEN counters of the IFs placed.
        let mut then: HashMap<StmtId, usize> = HashMap::new();
        for id in ifs {
            let Some(s) = at.stmt(id) else { continue };
            let mut placed = Placed::default();
            let result = match &s.kind {
                StmtKind::If(_) => self.if_counters(at, s, &mut placed),
                StmtKind::Select(_) => self.case_counters(at, s, &mut placed),
                _ => Err("not an IF or SELECT".into()),
            };
            let first = placed.points.first().map(|p| p.0);
            if self.commit(at, s, result, placed)
                && let Some(first) = first
            {
                then.insert(id, first);
            }
        }
        for p in probes {
            let (stmt, result, placed) = match p {
                Probe::Branches { .. } => continue,
                Probe::Loop { stmt } => {
                    let mut placed = Placed::default();
                    let Some(s) = at.stmt(*stmt) else { continue };
                    let r = self.loop_counters(at, s, &mut placed);
                    (s, r, placed)
                }
                Probe::Repeat { label, jumps } => {
                    let mut placed = Placed::default();
                    let Some(s) = at.stmt(*label) else { continue };
                    let r = self.repeat_counters(at, s, jumps, &jump_ifs, &then, &mut placed);
                    (s, r, placed)
                }
                Probe::Values { before, names } => {
                    let mut placed = Placed::default();
                    let Some(s) = at.stmt(*before) else { continue };
                    let r = self.value_records(at, s, names, &mut placed);
                    (s, r, placed)
                }
            };
            self.commit(at, stmt, result, placed);
        }
    }

    /// Keeps a probe's edits and points, or says why there are none; whether it kept
    /// them.
    fn commit(
        &mut self,
        at: &UnitPlace,
        s: &Stmt,
        result: Result<(), String>,
        placed: Placed,
    ) -> bool {
        let here = at.locate(s.span.start as usize);
        let shared = placed.edits.iter().find(|(src, e)| {
            !Arc::ptr_eq(src, at.source)
                && self
                    .sources
                    .iter()
                    .map(|f| f.placements(src.path(), e.start as u32).len())
                    .sum::<usize>()
                    > 1
        });
        let result = match (result, shared) {
            (Ok(()), Some((src, _))) => Err(format!(
                "it is in `{}`, which the program includes more than once",
                src.path()
            )),
            (r, _) => r,
        };
        if let Err(why) = result {
            self.skipped.push(format!(
                "{}:{}: not measured: {why}",
                here.src.path(),
                here.line()
            ));
            return false;
        }
        for (src, e) in placed.edits {
            let path = src.path().to_string();
            let edits = &mut self
                .edits
                .entry(path)
                .or_insert_with(|| (src.clone(), Vec::new()))
                .1;
            if let Some(e) = merged(edits, e) {
                edits.push(e);
            }
        }
        for (counter, stmt, role, loc) in placed.points {
            self.points.push(Point {
                name: placed.names.get(&counter).cloned(),
                counter,
                unit: at.key.clone(),
                digest: at.digest,
                file: at.source.path().to_string(),
                stmt,
                role,
                callee: match (&s.kind, role) {
                    (StmtKind::Call(c), Role::Call | Role::Elements) => {
                        Some(c.name.to_ascii_lowercase())
                    }
                    _ => None,
                },
                path: loc.src.path().to_string(),
                line: loc.line(),
                column: loc.column(),
            });
        }
        true
    }

    /// The counters of the IF `s`: one per branch, one where none runs.
    fn if_counters(&mut self, at: &UnitPlace, s: &Stmt, out: &mut Placed) -> Result<(), String> {
        let StmtKind::If(i) = &s.kind else {
            return Err("not an IF".into());
        };
        let start = s.span.start as usize;
        let cond_end = after_parentheses(at.text, start).ok_or("its condition is not closed")?;
        if !at.is_block_if(s) {
            return self.logical_if_counters(at, s, cond_end, out);
        }
        let end = at.locate(s.span.end.saturating_sub(1) as usize);
        for (k, b) in i.branches.iter().enumerate() {
            let clause = b.span.start as usize;
            let header_end = if k == 0 {
                next_word(at.text, cond_end).map(|w| w.1)
            } else {
                match next_word(at.text, clause) {
                    Some((_, e, w)) if w == "else" => match next_word(at.text, e) {
                        Some((_, _, w)) if w == "if" => after_parentheses(at.text, e)
                            .and_then(|p| next_word(at.text, p))
                            .map(|w| w.1),
                        _ => Some(e),
                    },
                    Some((_, e, w)) if w == "elseif" => after_parentheses(at.text, e)
                        .and_then(|p| next_word(at.text, p))
                        .map(|w| w.1),
                    _ => None,
                }
            }
            .ok_or("a branch's header could not be read")?;
            let next = i
                .branches
                .get(k + 1)
                .map_or(end.clone(), |n| at.locate(n.span.start as usize));
            let header = at.locate(header_end - 1);
            self.after_header(&header, &next, (s.id.0, Role::Branch(k)), out)?;
        }
        if i.branches.iter().all(|b| b.cond.is_some()) {
            if !matches!(end.first_word().as_str(), "end" | "endif") {
                return Err("its END IF does not start its line".into());
            }
            let k = self.counter();
            out.edit(
                &end,
                vec![end.before_this_line(&["else".to_string(), hit(k)])],
            );
            out.points.push((k, s.id.0, Role::None, end));
        }
        Ok(())
    }

    /// A counter after the header line at `header` of a branch or loop, which must
    /// end before the line of `next` (its next branch or end).
    fn after_header(
        &mut self,
        header: &Loc,
        next: &Loc,
        (stmt, role): (u32, Role),
        out: &mut Placed,
    ) -> Result<(), String> {
        if !Arc::ptr_eq(&header.src, &next.src) || header.line() >= next.line() {
            return Err("a header shares its line with the statements after it".into());
        }
        let k = self.counter();
        out.edit(header, vec![header.after_line(&[hit(k)])]);
        out.points.push((k, stmt, role, header.clone()));
        Ok(())
    }

    /// The logical IF `s` (`IF (c) stmt`, the condition ending at `cond_end`) made a
    /// block IF with a counter in its THEN and its ELSE.
    fn logical_if_counters(
        &mut self,
        at: &UnitPlace,
        s: &Stmt,
        cond_end: usize,
        out: &mut Placed,
    ) -> Result<(), String> {
        if s.label.is_some() && at.ends_a_loop(s) {
            return Err("a logical IF that ends a DO loop".into());
        }
        let action = next_word(at.text, cond_end).ok_or("its statement could not be read")?;
        if at.text[cond_end..action.0].contains('\n') {
            return Err("its statement starts on a continuation line".into());
        }
        let split = at.locate(cond_end);
        let last = at.locate(s.span.end.saturating_sub(1) as usize);
        if !Arc::ptr_eq(&split.src, &last.src) {
            return Err("it spans an INCLUDE line".into());
        }
        let rest_end = last.line_end();
        let after = at.locate(s.span.end as usize);
        let rest = if Arc::ptr_eq(&after.src, &last.src) && after.offset <= rest_end {
            &last.text()[after.offset..rest_end]
        } else {
            ""
        };
        let significant = match last.form() {
            SourceForm::Fixed { line_length } => {
                let column = after.offset - last.line_start();
                rest.get(..line_length.saturating_sub(column).min(rest.len()))
                    .unwrap_or(rest)
            }
            SourceForm::Free => rest,
        };
        let significant = significant.trim();
        if !(significant.is_empty() || significant.starts_with('!')) {
            return Err("another statement follows it on its line".into());
        }
        let (then, none) = (self.counter(), self.counter());
        let form = split.form();
        let mut text = format!(" then\n{}", line(form, &hit(then)));
        if let SourceForm::Fixed { .. } = form {
            text.push_str("      ");
        }
        let mut edits = vec![Edit {
            start: split.offset,
            end: split.offset,
            text,
        }];
        // What followed column `line_length` was never part of the statement; moved
        // left, it would be.
        if let SourceForm::Fixed { line_length } = form {
            let line_start = split.line_start();
            let line_end = split.line_end();
            let cut = split.text()[line_start..line_end]
                .char_indices()
                .nth(line_length)
                .map(|(i, _)| line_start + i);
            if let Some(cut) = cut
                && cut > split.offset
            {
                edits.push(Edit {
                    start: cut,
                    end: line_end,
                    text: String::new(),
                });
            }
        }
        out.edit(&split, edits);
        out.edit(
            &last,
            vec![last.after_line(&["else".to_string(), hit(none), "end if".to_string()])],
        );
        out.points.push((then, s.id.0, Role::Branch(0), split));
        out.points.push((none, s.id.0, Role::None, last));
        Ok(())
    }

    /// The counters of the SELECT `s`: one per case, one where none runs.
    fn case_counters(&mut self, at: &UnitPlace, s: &Stmt, out: &mut Placed) -> Result<(), String> {
        let StmtKind::Select(sel) = &s.kind else {
            return Err("not a SELECT".into());
        };
        let end = at.locate(s.span.end.saturating_sub(1) as usize);
        for (k, c) in sel.cases.iter().enumerate() {
            let start = c.span.start as usize;
            let header_end = match next_word(at.text, start) {
                Some((_, e, w)) if w == "case" => match next_word(at.text, e) {
                    Some((_, d, w)) if w == "default" => Some(d),
                    _ => after_parentheses(at.text, e),
                },
                Some((_, e, w)) if w == "casedefault" => Some(e),
                _ => None,
            }
            .ok_or("a CASE could not be read")?;
            let next = sel
                .cases
                .get(k + 1)
                .map_or(end.clone(), |n| at.locate(n.span.start as usize));
            let header = at.locate(header_end - 1);
            self.after_header(&header, &next, (s.id.0, Role::Branch(k)), out)?;
        }
        if sel.cases.iter().all(|c| c.values.is_some()) {
            if !matches!(end.first_word().as_str(), "end" | "endselect") {
                return Err("its END SELECT does not start its line".into());
            }
            let k = self.counter();
            out.edit(
                &end,
                vec![end.before_this_line(&["case default".to_string(), hit(k)])],
            );
            out.points.push((k, s.id.0, Role::None, end));
        }
        Ok(())
    }

    /// A counter of the runs of the unit `at` before its first statement, on a line of
    /// its own before the statement's line; a label stays where it is (a jump to it
    /// is no new run). Planned before the unit's other counters, which come after it.
    fn unit_runs(&mut self, at: &UnitPlace) {
        let Some(first) = at.ir.body.first() else {
            return;
        };
        let start = match &first.kind {
            StmtKind::Loop(l) if l.origin != LoopOrigin::Do => l.header.start,
            _ => first.span.start,
        };
        let loc = at.locate(start as usize);
        let k = self.counter();
        let mut placed = Placed::default();
        placed.edit(&loc, vec![loc.before_this_line(&[hit(k)])]);
        placed.points.push((k, first.id.0, Role::Runs, loc));
        self.commit(at, first, Ok(()), placed);
    }

    /// A counter before each CALL of an MPI routine in the unit `at`, on a line of its
    /// own (not when the call is the labelled last statement of a DO ended by its
    /// label); a call that is a logical IF's statement is counted before the IF,
    /// under the IF's condition written again (when it can be: names and intrinsic
    /// inquiries, evaluated twice with the same result).
    fn mpi_calls(&mut self, at: &UnitPlace) {
        let mut calls = Vec::new();
        at.ir.walk(&mut |s, _| {
            if let StmtKind::Call(c) = &s.kind
                && c.name.to_ascii_lowercase().starts_with("mpi_")
            {
                calls.push(s);
            }
        });
        for s in calls {
            let mut placed = Placed::default();
            let result = self.mpi_call(at, s, &mut placed);
            self.commit(at, s, result, placed);
        }
    }

    /// The counters of the CALL `s` of an MPI routine ([`Plan::mpi_calls`]).
    fn mpi_call(&mut self, at: &UnitPlace, s: &Stmt, out: &mut Placed) -> Result<(), String> {
        let (place, guard) = at.placed_before(s)?;
        let first = at.locate(place.span.start as usize);
        let k = self.counter();
        let mut stmts = vec![format!("{guard}{}", hit(k))];
        let e = elements(at, s).map(|n| {
            let e = self.counter();
            stmts.push(format!("{guard}{}", add(e, &n)));
            e
        });
        // A label not on the statement's line (a FORMAT's before it, which the IR
        // gives the next statement) stays where it is: the counter still comes after
        // it.
        let edits = match (first.before_line(place.label, &stmts), place.label) {
            (Err(_), Some(_)) => first.before_line(None, &stmts),
            (r, _) => r,
        }?;
        out.edit(&first, edits);
        if let Some(e) = e {
            out.points.push((e, s.id.0, Role::Elements, first.clone()));
        }
        out.points.push((k, s.id.0, Role::Call, first));
        Ok(())
    }

    /// The recorders of the reads of mapped arrays in the unit `at` whose elements the
    /// analysis cannot follow (`comm`'s reads with a gather site), under the layouts
    /// their mappings take in `env`.
    fn gathers(&mut self, at: &UnitPlace, comm: &UnitComm, env: Env) {
        let mut reads: Vec<(StmtId, &RefComm, &GatherSite)> = comm
            .iter()
            .flat_map(|(id, refs)| {
                refs.iter()
                    .filter_map(move |r| Some((*id, r, r.gather.as_deref()?)))
            })
            .collect();
        reads.sort_by_key(|(id, r, _)| (*id, r.span.start));
        for (id, r, site) in reads {
            let Some(s) = at.stmt(id) else { continue };
            let mut placed = Placed::default();
            let number = self.gathers.len() + 1;
            let result = self.gather(at, (s, number), r, site, env, &mut placed);
            let table = result.as_ref().ok().cloned();
            if self.commit(at, s, result.map(|_| ()), placed)
                && let Some(table) = table
            {
                let loc = at.locate(r.span.start as usize);
                self.gathers.push(GatherPoint {
                    site: number,
                    unit: at.key.clone(),
                    digest: at.digest,
                    file: at.source.path().to_string(),
                    stmt: id.0,
                    reference: r.reference.clone(),
                    table,
                    path: loc.src.path().to_string(),
                    line: loc.line(),
                    column: loc.column(),
                });
            }
        }
    }

    /// The recorder (site `number`) of the read `r` of the assignment `s`, whose site
    /// `site` has the layouts `env` gives it: its table.
    fn gather(
        &mut self,
        at: &UnitPlace,
        (s, number): (&Stmt, usize),
        r: &RefComm,
        site: &GatherSite,
        env: Env,
        out: &mut Placed,
    ) -> Result<GatherTable, String> {
        let not = |why: &str| format!("the read `{}` is not recorded: {why}", r.reference);
        let layouts = site.layouts(env).map_err(|e| not(&e))?;
        let table = GatherTable {
            layouts,
            bounds: site.bounds(env).map_err(|e| not(&e))?,
        };
        let grids = std::iter::once(&table.layouts.read).chain(&table.layouts.lhs);
        if grids.clone().any(|l| l.grid.len() > 16) {
            return Err(not("a grid of more than 16 dimensions"));
        }
        let stamps = table.elements().checked_mul(table.receivers());
        if stamps.is_none_or(|n| n > MAX_STAMPS) {
            return Err(not(&format!(
                "its array's elements times processors pass {MAX_STAMPS}"
            )));
        }
        let StmtKind::Assign { lhs, rhs } = &s.kind else {
            return Err(not("not an assignment"));
        };
        let chain = enclosing(&at.ir.body, s.id).ok_or_else(|| not("its loops are unknown"))?;
        if chain
            .iter()
            .any(|x| matches!(&x.kind, StmtKind::Loop(l) if l.origin != LoopOrigin::Do))
        {
            return Err(not("it is in an array assignment, WHERE or FORALL"));
        }
        let subscripts = |e: &Expr| -> Option<Vec<Expr>> {
            match e {
                Expr::Name(_) => Some(Vec::new()),
                Expr::Array(a) => a
                    .subscripts
                    .iter()
                    .map(|x| match x {
                        Subscript::Index(e) => Some(e.clone()),
                        Subscript::Range(_) => None,
                    })
                    .collect(),
                _ => None,
            }
        };
        let mut read = None;
        rhs.visit(&mut |e| {
            if read.is_none() && matches!(e, Expr::Array(_)) && e.to_string() == r.reference {
                read = subscripts(e);
            }
        });
        let read = read.ok_or_else(|| not("its subscripts could not be found"))?;
        // Every processor executes a statement without a left-hand side's mapping.
        let written = match &site.lhs {
            Some(_) => subscripts(lhs)
                .filter(|w| !w.is_empty())
                .ok_or_else(|| not("its left-hand side is not an element"))?,
            None => Vec::new(),
        };
        if !read.iter().chain(&written).all(|e| writable(at, e, &[])) {
            return Err(not("its subscripts cannot be written before it"));
        }
        let (place, guard) = at.placed_before(s).map_err(not)?;
        let list = |v: &[Expr]| {
            if v.is_empty() {
                "(/0_8/)".to_string()
            } else {
                let each: Vec<String> = v.iter().map(|e| format!("int({e},8)")).collect();
                format!("(/{}/)", each.join(", "))
            }
        };
        let record = format!(
            "{guard}call costline_gather_read({number}, {}, {}, {}, {})",
            written.len(),
            list(&written),
            read.len(),
            list(&read)
        );
        let instance = format!("call costline_gather_instance({number})");
        let first = at.locate(place.span.start as usize);
        let stmts = if site.instance == s.id {
            vec![format!("{guard}{instance}"), record]
        } else {
            let start = at
                .stmt(site.instance)
                .ok_or_else(|| not("the loop its fetch starts before is unknown"))?;
            let begin = at.locate(start.span.start as usize);
            out.edit(&begin, begin.before_line(start.label, &[instance])?);
            vec![record]
        };
        let edits = match (first.before_line(place.label, &stmts), place.label) {
            (Err(_), Some(_)) => first.before_line(None, &stmts),
            (r, _) => r,
        }?;
        out.edit(&first, edits);
        Ok(table)
    }

    /// The counters of the loop `s`: its entries and iterations.
    fn loop_counters(&mut self, at: &UnitPlace, s: &Stmt, out: &mut Placed) -> Result<(), String> {
        let StmtKind::Loop(l) = &s.kind else {
            return Err("not a loop".into());
        };
        if l.origin != LoopOrigin::Do {
            return self.synthetic_loop_counters(at, s, out);
        }
        let first = at.locate(s.span.start as usize);
        let entries = self.counter();
        out.edit(&first, first.before_line(s.label, &[hit(entries)])?);
        out.points.push((entries, s.id.0, Role::Entry, first));
        let header = at.locate(l.header.end.saturating_sub(1) as usize);
        let end = at.locate(s.span.end.saturating_sub(1) as usize);
        self.after_header(&header, &end, (s.id.0, Role::Iteration), out)
    }

    /// The counters of the loop `s` made of an array assignment, WHERE or FORALL
    /// (several on one line): before the construct, its entries and iterations are
    /// added up from its bounds (evaluated there, as the construct evaluates them) and
    /// those of the loops around it made of the same construct.
    fn synthetic_loop_counters(
        &mut self,
        at: &UnitPlace,
        s: &Stmt,
        out: &mut Placed,
    ) -> Result<(), String> {
        let StmtKind::Loop(l) = &s.kind else {
            return Err("not a loop".into());
        };
        // The loops of the same construct around `s`, outermost first, then `s`.
        let mut chain: Vec<&Stmt> = Vec::new();
        at.ir.walk(&mut |x, _| {
            if let StmtKind::Loop(o) = &x.kind
                && o.header == l.header
                && x.id.0 <= s.id.0
                && find(std::slice::from_ref(x), s.id).is_some()
            {
                chain.push(x);
            }
        });
        chain.sort_by_key(|x| x.id);
        let trips: Vec<String> = chain
            .iter()
            .map(|x| trip_expr(at, x, &chain))
            .collect::<Result<_, _>>()?;
        let outermost = chain.first().ok_or("the loop could not be found")?;
        let first = at.locate(l.header.start as usize);
        let (entries, iterations) = (self.counter(), self.counter());
        let product = |t: &[String]| {
            if t.is_empty() {
                "1_8".to_string()
            } else {
                t.join("*")
            }
        };
        let stmts = [
            add(entries, &product(&trips[..trips.len() - 1])),
            add(iterations, &product(&trips)),
        ];
        out.edit(&first, first.before_line(outermost.label, &stmts)?);
        out.points
            .push((entries, s.id.0, Role::Entry, first.clone()));
        out.points
            .push((iterations, s.id.0, Role::Iteration, first));
        Ok(())
    }

    /// Records of the values of `names` before the statement `s` of the unit's body
    /// (an array assignment, WHERE or FORALL: before its first line).
    fn value_records(
        &mut self,
        at: &UnitPlace,
        s: &Stmt,
        names: &[String],
        out: &mut Placed,
    ) -> Result<(), String> {
        let start = match &s.kind {
            StmtKind::Loop(l) if l.origin != LoopOrigin::Do => l.header.start,
            _ => s.span.start,
        };
        let first = at.locate(start as usize);
        let mut stmts = Vec::new();
        for name in names {
            let k = self.counter();
            // The sum, the least and the greatest value.
            for _ in 0..3 {
                self.counter();
            }
            stmts.push(record(k, name));
            out.points.push((k, s.id.0, Role::Value, first.clone()));
            out.names.insert(k, name.clone());
        }
        let edits = match (first.before_line(s.label, &stmts), s.label) {
            (Err(_), Some(_)) => first.before_line(None, &stmts),
            (r, _) => r,
        }?;
        out.edit(&first, edits);
        Ok(())
    }

    /// The counters of the GO TO loop from the labelled statement `s` to the GO TOs
    /// `jumps`: how often `s` is reached and how often each jump is taken.
    fn repeat_counters(
        &mut self,
        at: &UnitPlace,
        s: &Stmt,
        jumps: &[StmtId],
        jump_ifs: &HashMap<StmtId, StmtId>,
        then: &HashMap<StmtId, usize>,
        out: &mut Placed,
    ) -> Result<(), String> {
        let first = at.locate(s.span.start as usize);
        let entries = self.counter();
        out.edit(&first, first.before_line(s.label, &[hit(entries)])?);
        out.points.push((entries, s.id.0, Role::Arrival, first));
        for &j in jumps {
            let goto = at.stmt(j).ok_or("a GO TO could not be found")?;
            let place = at.locate(goto.span.start as usize);
            match jump_ifs.get(&j) {
                Some(i) => {
                    let k = *then
                        .get(i)
                        .ok_or("the IF of a GO TO back is not measured")?;
                    out.points.push((k, s.id.0, Role::Jump, place));
                }
                None => {
                    let k = self.counter();
                    out.edit(&place, place.before_line(goto.label, &[hit(k)])?);
                    out.points.push((k, s.id.0, Role::Jump, place));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{AnalysisHost, Options};
    use expect_test::{Expect, expect};

    /// The instrumented text of the one file `path` holding `text`, and what was skipped.
    fn check(path: &str, text: &str, want: Expect) {
        check_with(&Options::default(), path, text, want);
    }

    /// [`check`] under `options`.
    fn check_with(options: &Options, path: &str, text: &str, want: Expect) {
        let mut host = AnalysisHost::new(options);
        host.add_file(path, text.as_bytes().to_vec());
        let program = host.snapshot().instrument().unwrap();
        let mut out = program
            .files
            .iter()
            .map(|(_, t)| t.clone())
            .collect::<String>();
        for s in &program.skipped {
            out.push_str(&format!("skipped: {s}\n"));
        }
        want.assert_eq(&out);
    }

    #[test]
    fn fixed_form_labels_move_and_logical_ifs_become_blocks() {
        check(
            "loop.f",
            "      PROGRAM P\n      INTEGER J, V(9)\n      READ *, V\n      J = 1\n   40 IF (V(J) .GT. 1) J = J + 2\n      J = J + 1\n      IF (J .LT. 9) GO TO 40\n      END\n",
            expect![[r#"
                      PROGRAM P
                      INTEGER J, V(9)
                      READ *, V
                      J = 1
                40    continue
                      call costline_hit(5)
                      IF (V(J) .GT. 1) then
                      call costline_hit(1)
                       J = J + 2
                      else
                      call costline_hit(2)
                      end if
                      J = J + 1
                      IF (J .LT. 9) then
                      call costline_hit(3)
                       GO TO 40
                      else
                      call costline_hit(4)
                      end if
                      END
            "#]],
        );
    }

    #[test]
    fn free_form_cases_get_a_default_and_loops_their_entries() {
        check(
            "sel.f90",
            "program s\n  integer :: k, n\n  read *, k, n\n  select case (k)\n  case (1)\n    n = n + 1\n  case (2:3)\n    n = n - 1\n  end select\n  do while (n > 0) ! down\n    n = n - 2\n  end do\n  if (k > 0) then; n = 1; end if\nend program s\n",
            expect![[r#"
                program s
                  integer :: k, n
                  read *, k, n
                  select case (k)
                  case (1)
                call costline_hit(1)
                    n = n + 1
                  case (2:3)
                call costline_hit(2)
                    n = n - 1
                case default
                call costline_hit(3)
                  end select
                call costline_hit(4)
                  do while (n > 0) ! down
                call costline_hit(5)
                    n = n - 2
                  end do
                  if (k > 0) then; n = 1; end if
                end program s
                skipped: sel.f90:13: not measured: a header shares its line with the statements after it
            "#]],
        );
    }

    #[test]
    fn mpi_calls_get_a_counter_on_a_line_of_their_own_or_under_their_if() {
        check(
            "calls.f",
            "      PROGRAM P\n      INTEGER I, IERR, ME\n      CALL MPI_INIT(IERR)\n      CALL MPI_COMM_RANK(1, ME, IERR)\n      DO 10 I = 1, 3\n      CALL MPI_BARRIER(1, IERR)\n   10 CALL MPI_BARRIER(1, IERR)\n      IF (ME .EQ. 0) CALL MPI_ABORT(1, 1, IERR)\n      IF (F(ME)) CALL MPI_ABORT(1, 1, IERR)\n      IF (ME .EQ. 0) CALL MPI_BCAST(I, ME+1, 1, 0, 1, IERR)\n      CALL OTHER(IERR)\n 9000 FORMAT(I5)\n      CALL MPI_FINALIZE(IERR)\n      END\n",
            expect![[r#"
                      PROGRAM P
                      INTEGER I, IERR, ME
                      call costline_hit(1)
                      call costline_hit(16)
                      CALL MPI_INIT(IERR)
                      call costline_hit(17)
                      CALL MPI_COMM_RANK(1, ME, IERR)
                      DO 10 I = 1, 3
                      call costline_hit(18)
                      CALL MPI_BARRIER(1, IERR)
                   10 CALL MPI_BARRIER(1, IERR)
                      call costline_value(8, int(me,8))
                      if (me == 0) call costline_hit(19)
                      IF (ME .EQ. 0) then
                      call costline_hit(2)
                       CALL MPI_ABORT(1, 1, IERR)
                      else
                      call costline_hit(3)
                      end if
                      IF (F(ME)) then
                      call costline_hit(4)
                       CALL MPI_ABORT(1, 1, IERR)
                      else
                      call costline_hit(5)
                      end if
                      call costline_value(12, int(me,8))
                      if (me == 0) call costline_hit(20)
                      if (me == 0) call costline_add(21, int(me + 1,8))
                      IF (ME .EQ. 0) then
                      call costline_hit(6)
                       CALL MPI_BCAST(I, ME+1, 1, 0, 1, IERR)
                      else
                      call costline_hit(7)
                      end if
                      CALL OTHER(IERR)
                 9000 FORMAT(I5)
                      call costline_hit(22)
                      CALL MPI_FINALIZE(IERR)
                      END
                skipped: calls.f:7: not measured: its label ends a DO loop
                skipped: calls.f:9: not measured: its IF's condition cannot be written again before it
            "#]],
        );
    }

    #[test]
    fn values_are_recorded_before_the_statement_needing_them_and_take_its_label() {
        check(
            "values.f90",
            "subroutine s(n)\n  integer :: n, i, k\n  k = 0\n10 do i = 1, n\n    k = k + i\n  end do\n  print *, k\nend subroutine\n",
            expect![[r#"
                subroutine s(n)
                  integer :: n, i, k
                  k = 0
                10 continue
                call costline_value(1, int(n,8))
                   do i = 1, n
                    k = k + i
                  end do
                  print *, k
                end subroutine
            "#]],
        );
    }

    #[test]
    fn array_assignments_add_their_trips_from_their_bounds() {
        check(
            "arr.f90",
            "program a\n  integer :: m(2), k\n  real :: u(9, 9)\n  read *, m, k\n  u(1:m(k), 2:m(2)) = 0\nend program a\n",
            expect![[r#"
                program a
                  integer :: m(2), k
                  real :: u(9, 9)
                  read *, m, k
                call costline_add(1, 1_8)
                call costline_add(2, int(max(0,(m(2))-(2)+1),8))
                call costline_add(3, int(max(0,(m(2))-(2)+1),8))
                call costline_add(4, int(max(0,(m(2))-(2)+1),8)*int(max(0,(m(k))-(1)+1),8))
                  u(1:m(k), 2:m(2)) = 0
                end program a
            "#]],
        );
    }

    #[test]
    fn irregular_reads_get_a_recorder_and_their_fetches_a_count_of_instances() {
        // On 4 processors: `z(idx(i))` stays in the step loop (it writes z), its
        // instances start before the i loop; `s` is read by every processor.
        let options = Options {
            bindings: [("p".to_string(), 4)].into(),
            ..Options::default()
        };
        let text = "program g\n  integer :: idx(8), i, t\n  real :: y(8), z(8), s\n!hpf$ distribute (block) :: z\n!hpf$ align (:) with z :: y, idx\n  read *, idx\n  z = 1\n  do t = 1, 2\n    do i = 1, 8\n      y(i) = z(idx(i))\n    end do\n    z = z + y\n    if (t > 1) s = z(idx(t))\n  end do\n  print *, s\nend program g\n";
        check_with(
            &options,
            "g.f90",
            text,
            expect![[r#"
                program g
                  integer :: idx(8), i, t
                  real :: y(8), z(8), s
                !hpf$ distribute (block) :: z
                !hpf$ align (:) with z :: y, idx
                  read *, idx
                  z = 1
                  do t = 1, 2
                call costline_gather_instance(1)
                    do i = 1, 8
                call costline_gather_read(1, 1, (/int(i,8)/), 1, (/int(idx(i),8)/))
                      y(i) = z(idx(i))
                    end do
                    z = z + y
                if (t > 1) call costline_gather_instance(2)
                if (t > 1) call costline_gather_read(2, 0, (/0_8/), 1, (/int(idx(t),8)/))
                    if (t > 1) s = z(idx(t))
                  end do
                  print *, s
                end program g
            "#]],
        );
    }
}
