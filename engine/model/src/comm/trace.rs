//! What each process does with MPI in one run of a unit, in the order it does it: the
//! events [`super::replay`] replays.
//!
//! Every execution of an MPI call on process r is an integer point of the call's
//! iteration domain (its count's constraints, the rank's values bound: the branches
//! process r takes, the loops' bounds on it); the point gives the enclosing loops'
//! variables, so a peer or count that varies with them (`dest = w` in a loop over the
//! workers) has its value at each execution. Executions run in the lexicographic order
//! of (enclosing loop, its iteration) pairs, outermost first, ending with the
//! statement's place in the text — program order for loops that count up (a loop with
//! a step counts its trips t = 0, 1, ...).
//!
//! A count with an integer weight (a loop whose bounds are not known, assumed to run
//! n times) gives n executions in its first such loop's slot; one with a fractional
//! weight (a data-dependent branch taken with probability q) cannot be matched with a
//! partner and is priced on the process alone, q times its cost.

use super::cart::{PROC_NULL, integer};
use super::cost::MpiLibrary;
use super::mpi::{MpiCall, Op, cost};
use super::ranks::RankJob;
use super::replay::{Event, Step};
use crate::freq::numeric::points;
use costline_symbolic::{Name, Rational, Sym};
use costline_syntax::ir::{Stmt, StmtId, StmtKind};
use std::collections::{HashMap, HashSet};

/// The most events all processes' traces may hold together.
pub const MAX_EVENTS: u64 = 1 << 20;

/// A statement whose executions enter the trace: its place in the text (pre-order)
/// and its enclosing loops (their places and variables), outermost first.
struct Site<'a> {
    id: StmtId,
    call: Option<&'a MpiCall>,
    place: i64,
    loops: Vec<(i64, Option<String>)>,
}

/// What listing the executions may still spend: events kept, points visited.
struct Budget<'a> {
    events: &'a mut u64,
    points: &'a mut u64,
}

/// One execution of a statement, with the key that orders it.
struct Execution {
    key: Vec<i64>,
    events: Vec<Step>,
    /// A collective that makes its communicator's helpers if it is the first on it
    /// ([`MpiLibrary::Smpi`]): the communicator and the set-up's critical path.
    setup: Option<(String, f64)>,
}

/// The traces of processes 0..`p` of `job`'s unit, or why there are none.
pub fn traces(job: &RankJob, p: i128) -> Result<Vec<Vec<Step>>, String> {
    let sites = sites(job);
    let mut left = MAX_EVENTS;
    let mut enumeration = job.options.max_enumeration;
    let mut out = Vec::new();
    for r in 0..p {
        let bindings = job.carts.bindings(r, job.env)?;
        let mut runs = Vec::new();
        for site in &sites {
            let budget = Budget {
                events: &mut left,
                points: &mut enumeration,
            };
            executions(job, site, &bindings, p, budget, &mut runs)?;
        }
        runs.sort_by(|a, b| a.key.cmp(&b.key));
        let mut made = HashSet::new();
        let mut trace = Vec::new();
        for run in runs {
            if let Some((comm, path_s)) = run.setup
                && let Some(first) = run.events.first()
                && made.insert(comm)
            {
                trace.push(Step {
                    stmt: first.stmt,
                    event: Event::Collective { path_s },
                });
            }
            trace.extend(run.events);
        }
        out.push(trace);
    }
    Ok(out)
}

/// SMPI's set-up of communicator `comm` (of `group` processes) at its first BCAST,
/// REDUCE or ALLREDUCE, measured under SMPI 3.32 (CM02): on MPI_COMM_WORLD as long as
/// making a communicator; on one the program made, (⌈log2 p⌉ + 1)·α more.
fn smpi_setup(job: &RankJob, op: Op, comm: Option<&str>, group: i128) -> Option<(String, f64)> {
    if job.net.library != MpiLibrary::Smpi || !matches!(op, Op::Bcast | Op::Reduce | Op::Allreduce)
    {
        return None;
    }
    let comm = comm.unwrap_or("mpi_comm_world");
    let p = group as f64;
    let path_s = if comm == "mpi_comm_world" {
        cost(Op::CommCreate, p, 0.0, job.net).path_s
    } else {
        let (alpha, _) = job
            .net
            .hockney(0.0, group <= job.net.cores_per_node as i128);
        (p.log2().ceil() + 1.0) * alpha
    };
    Some((comm.to_string(), path_s))
}

/// The MPI calls and WAITs of the unit, with their places.
fn sites<'a>(job: &RankJob<'a>) -> Vec<Site<'a>> {
    fn go<'a>(
        job: &RankJob<'a>,
        stmts: &'a [Stmt],
        loops: &mut Vec<(i64, Option<String>)>,
        place: &mut i64,
        out: &mut Vec<Site<'a>>,
    ) {
        for s in stmts {
            let here = *place;
            *place += 1;
            let call = job.calls.get(&s.id);
            let wait = matches!(&s.kind, StmtKind::Call(c) if c.name.starts_with("mpi_wait"));
            if call.is_some() || wait {
                out.push(Site {
                    id: s.id,
                    call,
                    place: here,
                    loops: loops.clone(),
                });
            }
            let inner = match &s.kind {
                StmtKind::Loop(l) => Some(l.var().map(str::to_string)),
                _ => None,
            };
            if let Some(var) = &inner {
                loops.push((here, var.clone()));
            }
            for c in s.children() {
                go(job, std::slice::from_ref(c), loops, place, out);
            }
            if inner.is_some() {
                loops.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(job, &job.unit.body, &mut Vec::new(), &mut 0, &mut out);
    out
}

/// The executions of `site` on the process with `bindings`, added to `runs`.
fn executions(
    job: &RankJob,
    site: &Site,
    bindings: &HashMap<String, i128>,
    p: i128,
    budget: Budget,
    runs: &mut Vec<Execution>,
) -> Result<(), String> {
    let Budget {
        events: left,
        points: enumeration,
    } = budget;
    let Some(count) = job.freqs.of(site.id) else {
        return Ok(());
    };
    let env = |n: &str| bindings.get(n).copied().or_else(|| (job.env)(n));
    for term in &count.terms {
        if term.weight.is_zero() {
            continue;
        }
        let vars = loop_vars(site, &term.vars);
        let is_loop_var = |n: &Name| vars.iter().flatten().any(|v| v == n);
        let mut failed = None;
        points(
            &term.constraints,
            &term.vars,
            &|n| !is_loop_var(n),
            &env,
            enumeration,
            &mut |point| {
                if failed.is_some() {
                    return;
                }
                let at = |n: &str| point.get(n).or_else(|| env(n));
                let (events, setup) = events(job, site, &at, p, term.weight);
                let copies = match term.weight.as_integer() {
                    Some(n) if n >= 1 => n,
                    _ => 1,
                };
                for copy in 0..copies {
                    if *left < events.len() as u64 {
                        failed = Some(too_many());
                        return;
                    }
                    *left -= events.len() as u64;
                    runs.push(Execution {
                        key: key(site, &vars, &|n| point.get(n), copy as i64),
                        events: events.clone(),
                        setup: setup.clone(),
                    });
                }
            },
        )
        .map_err(|e| format!("the executions of a call cannot be listed: {e}"))?;
        if let Some(why) = failed {
            return Err(why);
        }
    }
    Ok(())
}

fn too_many() -> String {
    format!("more than {MAX_EVENTS} MPI events to replay")
}

/// The variable of each enclosing loop of `site` among a count's `vars` (innermost
/// first; a loop that shadows an outer one's name is primed), `None` for a loop whose
/// bounds are not known.
fn loop_vars(site: &Site, vars: &[Name]) -> Vec<Option<Name>> {
    let mut outer_first = vars.iter().rev().peekable();
    site.loops
        .iter()
        .map(|(_, var)| {
            let var = var.as_deref()?;
            while let Some(v) = outer_first.peek() {
                if v.trim_end_matches('\'') == var {
                    return outer_first.next().cloned();
                }
                outer_first.next();
            }
            None
        })
        .collect()
}

/// The order key of an execution: (loop place, iteration) per enclosing loop, then the
/// statement's place; the `copy`-th of an assumed trip count counts in the first loop
/// without a variable.
fn key(
    site: &Site,
    vars: &[Option<Name>],
    value: &dyn Fn(&str) -> Option<i128>,
    copy: i64,
) -> Vec<i64> {
    let mut key = Vec::with_capacity(2 * site.loops.len() + 2);
    let mut copy = Some(copy);
    for ((place, _), var) in site.loops.iter().zip(vars) {
        key.push(*place);
        key.push(match var.as_deref().and_then(value) {
            Some(v) => v as i64,
            None => copy.take().unwrap_or(0),
        });
    }
    key.push(site.place);
    key.push(copy.unwrap_or(0));
    key
}

/// The events of one execution of `site` with the names' values `at`, and the
/// communicator set-up it makes if it is the first collective on its communicator;
/// `weight` below one (or not whole) makes it a cost on this process alone.
fn events(
    job: &RankJob,
    site: &Site,
    at: &dyn Fn(&str) -> Option<i128>,
    p: i128,
    weight: Rational,
) -> (Vec<Step>, Option<(String, f64)>) {
    let step = |event| Step {
        stmt: site.id,
        event,
    };
    let Some(call) = site.call else {
        return (vec![step(Event::Wait { last: None })], None);
    };
    let value = |s: &Result<Sym, String>| s.as_ref().ok().and_then(|s| integer(s, at));
    let bytes = |count, ty| Some(value(count)?.checked_mul(value(ty)?)? as f64);
    let Some(b) = bytes(&call.count, &call.type_bytes) else {
        return (Vec::new(), None);
    };
    let intra = p <= job.net.cores_per_node as i128;
    let transfer = |b: f64| job.net.time(1.0, b, intra);
    // A peer: Some(process), None for MPI_PROC_NULL, Err for one without a value.
    let peer = |s: &Result<Sym, String>| match value(s) {
        Some(PROC_NULL) => Ok(None),
        Some(v) if (0..p).contains(&v) => Ok(Some(v as usize)),
        _ => Err(()),
    };
    let whole = weight.as_integer().is_some_and(|n| n >= 1);
    // A fractional weight scales a cost priced on this process alone.
    let scale = if whole { 1.0 } else { weight.to_f64() };
    let mut out = Vec::new();
    let mut setup = None;
    match call.op {
        Op::Send | Op::Recv | Op::SendRecv => {
            let received = match &call.recv {
                Some((count, ty)) => bytes(count, ty),
                None => Some(b),
            };
            let mut started = 0;
            let mut alone = 0.0f64;
            let sides = [
                (call.source.as_ref(), received, true),
                (call.dest.as_ref(), Some(b), false),
            ];
            for (side, size, receive) in sides {
                let (Some(side), Some(bytes)) = (side, size) else {
                    continue;
                };
                match peer(side) {
                    Ok(Some(peer)) if whole => {
                        out.push(step(if receive {
                            Event::Recv { peer, bytes }
                        } else {
                            Event::Send { peer, bytes }
                        }));
                        started += 1;
                    }
                    Ok(None) => {}
                    _ => alone = alone.max(transfer(bytes)),
                }
            }
            if started > 0 && !call.nonblocking {
                out.push(step(Event::Wait {
                    last: Some(started),
                }));
            }
            if alone > 0.0 {
                out.push(step(Event::Local {
                    time_s: scale * alone,
                }));
            }
        }
        op => {
            let group = match call.comm.as_deref() {
                Some(c) => match job.carts.size_of(c, at) {
                    Some(Ok(size)) => size,
                    Some(Err(_)) => return (Vec::new(), None),
                    None => p,
                },
                None => p,
            };
            let path_s = cost(op, group as f64, b, job.net).path_s;
            let together = group == p && whole;
            if together {
                setup = smpi_setup(job, op, call.comm.as_deref(), group);
            }
            out.push(step(if together {
                Event::Collective { path_s }
            } else {
                Event::Local {
                    time_s: scale * path_s,
                }
            }));
        }
    }
    (out, setup)
}
