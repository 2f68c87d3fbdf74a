//! Communication (P^3T+ section 4.2, Definitions 4.4–4.6): the non-local elements each
//! assignment reads, who sends them to whom, and what that costs.
//!
//! For every right-hand-side reference to a distributed array (after normalization, so
//! FORALL, WHERE and array syntax are loop nests of element assignments): processor p
//! executes the iterations in which it owns the left-hand side (owner computes; all
//! processors for a scalar or replicated left-hand side) and needs the element the
//! reference reads; when another processor q owns it (the lowest-numbered owner of a
//! replicated element), q sends it to p. As the VFC compiler does (P^3T+ 4.2.1), every
//! distinct reference has its own buffer and messages. The fetch is vectorized and
//! hoisted out of the loops that carry no dependence on the array ([`placement`]): per
//! run of the innermost kept loop, q sends p one message holding the distinct elements
//! p needs from q. A communication record is (sender, receiver, messages, bytes).
//!
//! The iteration sets are the work sets of [`crate::work`] with the sender's ownership
//! of the element added (its grid coordinates `$s`, `$s1`, ... beside the executing
//! processor's `$p`, `$p1`, ...); [`records`] counts them under the bindings.

pub mod algorithm;
pub mod bound;
pub mod cart;
pub mod cost;
pub mod datatype;
pub mod dependence;
pub mod diagnostics;
mod element;
pub mod formula;
pub mod gather;
mod injective;
pub mod mpi;
pub mod open_mpi;
pub mod pattern;
pub mod placement;
pub mod ranks;
pub mod records;
pub mod reduction;
pub mod remap;
pub mod replay;
mod residues;
pub mod skeleton;
pub mod trace;
mod wrap;

/// (Sender, receiver) pairs the symbolic routes value one by one at most (a formula each);
/// past this they give way to the element count, whose own limit then says so.
pub(crate) const MAX_PAIRS: i128 = 1 << 22;

pub use cost::{CommMetrics, Network, Topology};
pub use pattern::Pattern;
pub use placement::Placement;
pub use records::{Gathers, Record, RefValues, UnitCommValues, unit_comm_records};

use crate::distribution::{Arrangement, Mapping};
use crate::freq::UnitFrequencies;
use crate::freq::convert::Scope;
use crate::work::{Spread, UnitWork};
use costline_symbolic::{Constraint, Name, Rational, Sym};
use costline_syntax::ir::intrinsics::{IntrinsicClass, intrinsic_class};
use costline_syntax::ir::{
    ArrayRef, BaseType, Expr, Stmt, StmtId, StmtKind, Subscript, UnaryOp, Unit,
};
use costline_syntax::span::Span;
use std::collections::HashMap;

/// Integer expression `e` of statement `id` as a formula in the unit's unknowns (the
/// names' values reaching the statement), or why it has none.
pub(crate) fn integer_at(
    unit: &Unit,
    freqs: &UnitFrequencies,
    id: StmtId,
    e: &Expr,
) -> Result<Sym, String> {
    let names = freqs.scope_of(id).ok_or("it is not reached")?;
    Scope {
        unit,
        names,
        integers: true,
    }
    .sym(e)
    .map_err(|why| format!("`{e}` depends on {why}"))
}

/// The grid coordinate names of the sending processor, `$s` or `$s1, $s2, ...`, in
/// place of the executing processor's `$p`, `$p1, ...` ([`Arrangement::coordinate`]).
pub fn sender_coordinate(onto: &Arrangement, k: usize) -> Name {
    if onto.extents.len() == 1 {
        "$s".into()
    } else {
        format!("$s{}", k + 1).as_str().into()
    }
}

/// One alternative of the iterations in which the executing processor `$p` reads an
/// element the sender `$s` owns: `weight ×` the integer points of `constraints` over
/// `vars`.
#[derive(Clone, Debug)]
pub struct CommTerm {
    pub weight: Rational,
    pub constraints: Vec<Constraint>,
    /// Loop variables (innermost first), then the cycle numbers of cyclic dimensions.
    pub vars: Vec<Name>,
    /// The subscripts of the element read, in the count's variables.
    pub subscripts: Vec<Sym>,
}

/// What the analysis knows about one right-hand-side reference to a distributed array.
#[derive(Clone, Debug)]
pub struct RefComm {
    pub array: String,
    /// The reference as the lowered statement reads it, e.g. `a($1 - 1, j)`.
    pub reference: String,
    pub span: Span,
    pub elem_bytes: u64,
    pub placement: Placement,
    /// Whether a kept loop's variable indexes the reference (the fetch is split by a
    /// loop over the data, not only repeated by a time-step loop).
    pub indexed_by_kept_loop: bool,
    pub kind: RefKind,
    /// Of a read the analysis cannot follow: what a profile run must record of it.
    pub gather: Option<Box<gather::GatherSite>>,
}

#[derive(Clone, Debug)]
pub enum RefKind {
    /// Always read where it is owned: the element's owner constraints are among the
    /// left-hand side's (aligned arrays, same subscripts). Nothing to count.
    Local,
    Counted(Box<Counted>),
    /// An all-reduce of partial results ([`reduction`]).
    Reduction(Box<reduction::Reduction>),
    /// The element read is not followed but who reads is known: an upper bound from
    /// the owner sets ([`bound`]).
    Bound(Box<bound::GatherBound>),
    /// Not followed (why): an unknown owner of the left-hand side, an unknown context.
    Irregular(String),
    /// A REDISTRIBUTE or REALIGN moving the array ([`remap`]), once per execution of
    /// its statement.
    Remap(Box<RemapComm>),
}

/// The remapping of one array by one REDISTRIBUTE or REALIGN statement.
#[derive(Clone, Debug)]
pub struct RemapComm {
    pub remap: crate::distribution::Remap,
    /// The statement: the records are per execution of it.
    pub stmt: StmtId,
    /// Whether its frequency is exact (no probabilities, no assumed trip counts).
    pub exact: bool,
}

/// The remappings of a REDISTRIBUTE or REALIGN statement, one reference per array it
/// moves (the arrays aligned with a redistributed one included), run where the
/// statement stands: once per execution, inside every enclosing loop.
fn remap_refs(
    unit: &Unit,
    maps: &crate::distribution::UnitMappings,
    s: &Stmt,
    loops: &placement::Enclosing,
    exact: bool,
) -> Vec<RefComm> {
    let StmtKind::Remap { directive } = s.kind else {
        return Vec::new();
    };
    let text = unit
        .directives
        .get(directive)
        .map_or_else(String::new, |d| d.kind.to_string());
    maps.dynamic
        .remaps(s.id)
        .iter()
        .map(|r| RefComm {
            array: r.array.clone(),
            reference: format!("{} ({})", r.array, text),
            span: s.span,
            elem_bytes: element_bytes(unit, &r.array),
            placement: Placement {
                kept: loops.len(),
                hoisted: 0,
                blocked_by: loops.last().map(|(stmt, l)| placement::Blocker {
                    stmt: stmt.id,
                    header: l.header,
                    var: l.var().map(str::to_string),
                }),
            },
            indexed_by_kept_loop: false,
            gather: None,
            kind: RefKind::Remap(Box::new(RemapComm {
                remap: r.clone(),
                stmt: s.id,
                exact,
            })),
        })
        .collect()
}

/// A countable reference: the executing processors' arrangement, the sender's, the
/// subscripts of the element read (in the count's variables), the iteration sets, and
/// the variables of the kept loops (the rest are vectorized over).
#[derive(Clone, Debug)]
pub struct Counted {
    pub executing: Arrangement,
    pub senders: Arrangement,
    pub mapping: Mapping,
    pub terms: Vec<CommTerm>,
    pub outer_vars: Vec<Name>,
}

/// The communication of every assignment of a unit, by statement.
#[derive(Clone, Debug, Default)]
pub struct UnitComm {
    stmts: HashMap<StmtId, Vec<RefComm>>,
    /// The unit's MPI calls.
    pub mpi: HashMap<StmtId, mpi::MpiCall>,
    /// Its process topology calls.
    pub carts: cart::Carts,
}

impl UnitComm {
    pub fn of(&self, id: StmtId) -> &[RefComm] {
        self.stmts.get(&id).map_or(&[], Vec::as_slice)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&StmtId, &Vec<RefComm>)> {
        self.stmts.iter()
    }
}

/// The references of every assignment of `unit` that may communicate.
pub fn unit_comm(
    unit: &Unit,
    freqs: &UnitFrequencies,
    maps: &crate::distribution::UnitMappings,
    work: &UnitWork,
    outer: datatype::Outer,
    world_size: Option<&str>,
) -> UnitComm {
    let stmts = stmt_refs(unit, freqs, maps, work, &|_| true);
    let types = datatype::Datatypes::of_unit(unit, freqs, outer);
    let mpi = mpi::calls(unit, freqs, &types, outer, world_size);
    let carts = if mpi.is_empty() {
        cart::Carts::default()
    } else {
        cart::Carts::of(unit, freqs)
    };
    UnitComm { stmts, mpi, carts }
}

/// The references of [`unit_comm`] whose fetch stays inside a loop (`placement.kept >
/// 0`), without the MPI calls: all the communication findings look at
/// ([`diagnostics::may_find`]). The others are not counted, which is most of the work.
pub fn unit_comm_in_loops(
    unit: &Unit,
    freqs: &UnitFrequencies,
    maps: &crate::distribution::UnitMappings,
    work: &UnitWork,
) -> UnitComm {
    UnitComm {
        stmts: stmt_refs(unit, freqs, maps, work, &|p| p.kept > 0),
        ..UnitComm::default()
    }
}

/// The references of every assignment and remapping of `unit` that may communicate,
/// those whose placement is `wanted`.
fn stmt_refs(
    unit: &Unit,
    freqs: &UnitFrequencies,
    maps: &crate::distribution::UnitMappings,
    work: &UnitWork,
    wanted: &dyn Fn(&Placement) -> bool,
) -> HashMap<StmtId, Vec<RefComm>> {
    let mut stmts = HashMap::new();
    let mut loops: placement::Enclosing = Vec::new();
    visit(&unit.body, &mut loops, &mut |s, loops| {
        if let StmtKind::Remap { .. } = s.kind {
            let exact = freqs.of(s.id).is_some_and(crate::freq::Count::is_exact);
            let mut refs = remap_refs(unit, maps, s, loops, exact);
            refs.retain(|r| wanted(&r.placement));
            if !refs.is_empty() {
                stmts.insert(s.id, refs);
            }
            return;
        }
        let StmtKind::Assign { lhs, rhs } = &s.kind else {
            return;
        };
        let mut refs: Vec<RefComm> = Vec::new();
        for read in element_refs(rhs) {
            let r = read.reference;
            let Expr::Array(a) = r else { continue };
            let Some(mapping) = maps.at(s.id, &a.name) else {
                continue;
            };
            let reference = r.to_string();
            // The element the statement writes is where it runs: never remote.
            if refs.iter().any(|x| x.reference == reference) || reference == lhs.to_string() {
                continue;
            }
            let placement = placement::place(loops, &a.name, Some((s.id, &a.subscripts)));
            if !wanted(&placement) {
                continue;
            }
            let indexed_by_kept_loop = loops[..placement.kept]
                .iter()
                .filter_map(|(_, l)| l.var())
                .any(|v| a.subscripts.iter().any(|s| subscript_mentions(s, v)));
            let at = Read {
                stmt: s,
                array: a,
                guards: &read.guards,
            };
            let (kind, gather) = match counted(unit, freqs, work, loops, &placement, &at, mapping) {
                Ok(kind) => (kind, None),
                Err(why) => {
                    let at = (s.id, a.name.as_str());
                    let gather = gather_site(unit, work, at, mapping, &placement, loops);
                    let kind = bounded(unit, work, at, mapping, &placement, loops, why);
                    (kind, gather.map(Box::new))
                }
            };
            refs.push(RefComm {
                array: a.name.clone(),
                reference,
                span: a.span,
                elem_bytes: element_bytes(unit, &a.name),
                placement,
                indexed_by_kept_loop,
                kind,
                gather,
            });
        }
        for call in reduction::calls(rhs) {
            if let Some(r) = reduction_ref(unit, maps, s, loops, call)
                && wanted(&r.placement)
                && !refs.iter().any(|x| x.reference == r.reference)
            {
                refs.push(r);
            }
        }
        if !refs.is_empty() {
            stmts.insert(s.id, refs);
        }
    });
    stmts
}

/// The all-reduce of a reduction call over distributed data in statement `s`, placed
/// like a fetch of its arrays (the most enclosing loop any of them keeps it in).
fn reduction_ref(
    unit: &Unit,
    maps: &crate::distribution::UnitMappings,
    s: &Stmt,
    loops: &placement::Enclosing,
    call: &costline_syntax::ir::Call,
) -> Option<RefComm> {
    let mut arrays: Vec<String> = Vec::new();
    for a in &call.args {
        a.value.visit(&mut |e| {
            if let Expr::Array(r) = e
                && maps.at(s.id, &r.name).is_some()
            {
                arrays.push(r.name.clone());
            }
        });
    }
    let first = arrays.first()?;
    let mapping = maps.at(s.id, first)?;
    let placement = arrays
        .iter()
        .map(|a| placement::place(loops, a, None))
        .max_by_key(|p| p.kept)?;
    let hoisted_vars: Vec<&str> = loops[placement.kept..]
        .iter()
        .filter_map(|(_, l)| l.var())
        .collect();
    let mentioned = |v: &str| call.args.iter().any(|a| a.value.mentions(v));
    let vectorized = hoisted_vars.iter().any(|v| mentioned(v));
    let repeated = vectorized && hoisted_vars.iter().any(|v| !mentioned(v));
    // The rank of the reduced argument (MAXLOC's location has one index per dimension).
    let declared = |name: &str| {
        unit.symbols
            .get(name)
            .map_or(1, |sym| sym.dims.as_ref().map_or(1, Vec::len))
    };
    let rank = match call.args.first().map(|a| &a.value) {
        Some(Expr::Array(r)) if !r.subscripts.is_empty() => r
            .subscripts
            .iter()
            .filter(|s| matches!(s, Subscript::Range(_)))
            .count(),
        _ => declared(first),
    };
    let kind = if reduction::dim(call).is_some() {
        RefKind::Irregular(format!(
            "`{}` reduces along one dimension (DIM=)",
            call.name
        ))
    } else {
        RefKind::Reduction(Box::new(reduction::Reduction {
            op: call.name.clone(),
            participants: mapping.distribution.onto.clone(),
            stmt: s.id,
            kept_loop: placement.kept.checked_sub(1).map(|k| loops[k].0.id),
            vectorized,
            repeated,
        }))
    };
    Some(RefComm {
        array: first.clone(),
        reference: Expr::Call(call.clone()).to_string(),
        span: call.span,
        elem_bytes: reduction::result_bytes(&call.name, element_bytes(unit, first), rank),
        placement,
        indexed_by_kept_loop: false,
        kind,
        gather: None,
    })
}

/// What a profile run must record of the read of `array` in statement `stmt` that the
/// analysis cannot count: its mapping and bounds, who executes the statement, and where
/// each instance of its fetch starts; `None` when the statement's executing processors
/// are not known even as a mapping.
fn gather_site(
    unit: &Unit,
    work: &UnitWork,
    (stmt, array): (StmtId, &str),
    mapping: &Mapping,
    placement: &Placement,
    loops: &placement::Enclosing,
) -> Option<gather::GatherSite> {
    let lhs = match &work.of(stmt)?.spread {
        Spread::Owned { mapping, .. } | Spread::Irregular { mapping, .. } => Some(mapping.clone()),
        Spread::Replicated => None,
    };
    Some(gather::GatherSite {
        read: mapping.clone(),
        shape: crate::calls::binding::declared_dims(unit, array),
        lhs,
        instance: loops.get(placement.kept).map_or(stmt, |(s, _)| s.id),
    })
}

/// Pre-order walk handing each statement its enclosing loops, outermost first.
fn visit<'a>(
    stmts: &'a [Stmt],
    loops: &mut placement::Enclosing<'a>,
    f: &mut dyn FnMut(&'a Stmt, &placement::Enclosing<'a>),
) {
    for s in stmts {
        f(s, loops);
        match &s.kind {
            StmtKind::Loop(l) => {
                loops.push((s, l));
                visit(&l.body, loops, f);
                loops.pop();
            }
            _ => {
                for c in s.children() {
                    visit(std::slice::from_ref(c), loops, f);
                }
            }
        }
    }
}

/// An array element an expression reads, and the conditions under which it is read
/// (the masks of the MERGEs it sits in: EOSHIFT's edge).
struct ElementRead<'a> {
    reference: &'a Expr,
    guards: Vec<Expr>,
}

/// The array element references an expression reads element by element: not those
/// inside a transformational or inquiry intrinsic (whole-array operations), nor
/// whole arrays and sections. `merge(t, f, mask)` reads `t` where `mask` holds and `f`
/// where it does not.
fn element_refs(e: &Expr) -> Vec<ElementRead<'_>> {
    let mut out = Vec::new();
    fn go<'a>(e: &'a Expr, guards: &mut Vec<Expr>, out: &mut Vec<ElementRead<'a>>) {
        match e {
            Expr::Array(r) => {
                if !r.subscripts.is_empty()
                    && r.subscripts
                        .iter()
                        .all(|s| matches!(s, Subscript::Index(_)))
                {
                    out.push(ElementRead {
                        reference: e,
                        guards: guards.clone(),
                    });
                }
                for s in &r.subscripts {
                    if let Subscript::Index(x) = s {
                        go(x, guards, out);
                    }
                }
            }
            Expr::Call(c)
                if matches!(
                    intrinsic_class(&c.name),
                    Some(IntrinsicClass::Transformational | IntrinsicClass::Inquiry)
                ) => {}
            Expr::Call(c)
                if c.name == "merge"
                    && c.args.len() == 3
                    && c.args.iter().all(|a| a.keyword.is_none()) =>
            {
                let mask = &c.args[2].value;
                go(mask, guards, out);
                for (arg, cond) in [
                    (&c.args[0].value, mask.clone()),
                    (
                        &c.args[1].value,
                        Expr::Unary(UnaryOp::Not, Box::new(mask.clone())),
                    ),
                ] {
                    guards.push(cond);
                    go(arg, guards, out);
                    guards.pop();
                }
            }
            Expr::Call(c) => c.args.iter().for_each(|a| go(&a.value, guards, out)),
            Expr::Unary(_, x) => go(x, guards, out),
            Expr::Binary(_, a, b) => {
                go(a, guards, out);
                go(b, guards, out);
            }
            _ => {}
        }
    }
    go(e, &mut Vec::new(), &mut out);
    out
}

fn subscript_mentions(s: &Subscript, var: &str) -> bool {
    match s {
        Subscript::Index(e) => e.mentions(var),
        Subscript::Range(_) => false,
    }
}

/// One read of an array element: the statement, the reference, and the conditions
/// under which it reads.
struct Read<'a> {
    stmt: &'a Stmt,
    array: &'a ArrayRef,
    guards: &'a [Expr],
}

/// One way the reference reads: its subscripts (in the count's variables) and the
/// constraints that select it (a wrap piece, a MERGE mask).
struct Variant {
    subscripts: Vec<Sym>,
    constraints: Vec<Constraint>,
    vars: Vec<Name>,
}

/// The variants of a read: the pieces of its wrapped subscripts ([`wrap`]) under each
/// exact alternative of its guards. A guard that depends on data is dropped (the
/// element is taken as read, as Fortran evaluates both MERGE operands).
fn variants(read: &Read, scope: &Scope) -> Result<Vec<Variant>, String> {
    let subs = read
        .array
        .subscripts
        .iter()
        .map(|x| match x {
            Subscript::Index(e) => Ok(e.clone()),
            Subscript::Range(_) => Err("it reads a section".to_string()),
        })
        .collect::<Result<Vec<Expr>, String>>()?;
    let mut out: Vec<Variant> = Vec::new();
    for piece in wrap::pieces(&subs, scope) {
        let subscripts = piece
            .subscripts
            .iter()
            .map(|e| {
                scope
                    .sym(e)
                    .map_err(|why| format!("its subscript `{e}` depends on {why}"))
            })
            .collect::<Result<Vec<Sym>, String>>()?;
        out.push(Variant {
            subscripts,
            constraints: piece.constraints,
            vars: piece.vars,
        });
    }
    let half = Rational::new(1, 2).expect("a valid fraction");
    for g in read.guards {
        let alts = scope.cond(g, half);
        if alts.iter().any(|a| a.prob != Rational::ONE || a.degraded) {
            continue;
        }
        out = out
            .into_iter()
            .flat_map(|v| {
                alts.iter().map(move |a| Variant {
                    subscripts: v.subscripts.clone(),
                    constraints: v.constraints.iter().chain(&a.cons).cloned().collect(),
                    vars: v.vars.clone(),
                })
            })
            .collect();
    }
    Ok(out)
}

/// The constraints under which the sender `$s` owns the element at `subscripts`, and
/// the cycle numbers they introduce (the executing side's `$q` renamed `$r`).
fn sender_ownership(
    mapping: &Mapping,
    senders: &Arrangement,
    subscripts: &[Sym],
) -> Result<(Vec<Constraint>, Vec<Name>), String> {
    let own = mapping
        .ownership(subscripts)
        .map_err(|_| "its subscripts are too large to count with".to_string())?;
    // The element's owner is the sender: its coordinates and cycle numbers renamed.
    let renames: Vec<(Name, Sym)> = (0..senders.extents.len())
        .map(|k| {
            (
                senders.coordinate(k),
                Sym::var(&sender_coordinate(senders, k)),
            )
        })
        .chain(
            own.aux
                .iter()
                .map(|q| (q.clone(), Sym::var(&q.replace("$q", "$r")))),
        )
        .collect();
    let rename = |c: &Constraint| {
        renames
            .iter()
            .try_fold(c.clone(), |c, (from, to)| c.subst(from, to))
            .map_err(|_| "its subscripts are too large to count with".to_string())
    };
    let sender_cons = own
        .constraints
        .iter()
        .map(rename)
        .collect::<Result<Vec<_>, _>>()?;
    let sender_aux: Vec<Name> = own
        .aux
        .iter()
        .map(|q| q.replace("$q", "$r").as_str().into())
        .collect();
    Ok((sender_cons, sender_aux))
}

/// Whether every processor executing the statement owns the element it reads: same
/// arrangement, and each of the element's owner constraints is one of the left-hand
/// side element's (so the executing owner satisfies them). A cheap syntactic test that
/// spares counting the reads of aligned arrays at the same subscripts; subscripts in
/// dimensions that do not decide the owner ([`Mapping::owner_dims`]) may be anything.
fn owned_with_lhs(read: &Read, scope: &Scope, lhs: &Mapping, mapping: &Mapping) -> bool {
    let StmtKind::Assign {
        lhs: Expr::Array(l),
        ..
    } = &read.stmt.kind
    else {
        return false;
    };
    // Only the subscripts that decide the owner need values (0 stands for the others).
    let syms = |a: &ArrayRef, m: &Mapping| -> Option<Vec<Sym>> {
        let owner_dims = m.owner_dims();
        a.subscripts
            .iter()
            .enumerate()
            .map(|(d, s)| match s {
                Subscript::Index(_) if !owner_dims.contains(&d) => Some(Sym::zero()),
                Subscript::Index(e) => scope.sym(e).ok(),
                Subscript::Range(_) => None,
            })
            .collect()
    };
    let (Some(ls), Some(rs)) = (syms(l, lhs), syms(read.array, mapping)) else {
        return false;
    };
    if lhs.distribution.onto != mapping.distribution.onto {
        return false;
    }
    match (lhs.ownership(&ls), mapping.ownership(&rs)) {
        (Ok(lo), Ok(ro)) => ro.constraints.iter().all(|c| lo.constraints.contains(c)),
        _ => false,
    }
}

/// The iteration sets of a countable reference, or why it is not countable: the
/// statement's work sets, times the reference's variants, each with the owner of the
/// element it reads as the sender.
fn counted(
    unit: &Unit,
    freqs: &UnitFrequencies,
    work: &UnitWork,
    loops: &placement::Enclosing,
    placement: &Placement,
    read: &Read,
    mapping: &Mapping,
) -> Result<RefKind, String> {
    let s = read.stmt;
    let count = freqs.of(s.id).ok_or("its context is unknown")?;
    let names = freqs.scope_of(s.id).ok_or("its context is unknown")?;
    let scope = Scope {
        unit,
        names,
        integers: false,
    };
    let senders = mapping.distribution.onto.clone();
    let stmt_work = work.of(s.id).ok_or("its work is unknown")?;
    // Every processor holds every element of a replicated array: whichever executes
    // the statement reads its own copy, whatever the subscripts.
    let executors = match &stmt_work.spread {
        Spread::Owned { mapping: lhs, .. } | Spread::Irregular { mapping: lhs, .. } => {
            &lhs.distribution.onto
        }
        Spread::Replicated => &senders,
    };
    if mapping.everywhere() && *executors == senders {
        return Ok(RefKind::Local);
    }
    let (executing, base): (Arrangement, Vec<CommTerm>) = match &stmt_work.spread {
        Spread::Owned {
            mapping: lhs,
            terms,
            ..
        } => (
            lhs.distribution.onto.clone(),
            terms
                .iter()
                .map(|t| CommTerm {
                    weight: t.weight,
                    constraints: t.constraints.clone(),
                    vars: t.vars.clone(),
                    subscripts: Vec::new(),
                })
                .collect(),
        ),
        Spread::Replicated => (
            senders.clone(),
            count
                .terms
                .iter()
                .map(|t| CommTerm {
                    weight: t.weight,
                    constraints: t.constraints.clone(),
                    vars: t.vars.clone(),
                    subscripts: Vec::new(),
                })
                .collect(),
        ),
        Spread::Irregular { why, .. } => {
            return Err(format!("its left-hand side's owner is unknown: {why}"));
        }
    };
    if let Spread::Owned { mapping: lhs, .. } = &stmt_work.spread
        && owned_with_lhs(read, &scope, lhs, mapping)
    {
        return Ok(RefKind::Local);
    }
    let mut terms = Vec::new();
    for v in variants(read, &scope)? {
        let (sender_cons, sender_aux) = sender_ownership(mapping, &senders, &v.subscripts)?;
        for t in &base {
            let mut t = t.clone();
            t.constraints.extend(v.constraints.iter().cloned());
            t.constraints.extend(sender_cons.iter().cloned());
            t.vars.extend(v.vars.iter().cloned());
            t.vars.extend(sender_aux.iter().cloned());
            t.subscripts = v.subscripts.clone();
            terms.push(t);
        }
    }
    // The kept loops' variables: those of the innermost kept loop's own count.
    let outer_vars = match placement.kept {
        0 => Vec::new(),
        k => {
            let (stmt, _) = loops[k - 1];
            let mut vars: Vec<Name> = Vec::new();
            for t in &freqs.of(stmt.id).ok_or("its loops are unknown")?.terms {
                for v in &t.vars {
                    if !vars.contains(v) {
                        vars.push(v.clone());
                    }
                }
            }
            vars
        }
    };
    Ok(RefKind::Counted(Box::new(Counted {
        executing,
        senders,
        mapping: mapping.clone(),
        terms,
        outer_vars,
    })))
}

/// The kind of a read of `array` in statement `stmt` the analysis could not count
/// (`why`): an upper bound when the statement's executing processors are known
/// ([`bound`]), else not modelled.
fn bounded(
    unit: &Unit,
    work: &UnitWork,
    (stmt, array): (StmtId, &str),
    mapping: &Mapping,
    placement: &Placement,
    loops: &placement::Enclosing,
    why: String,
) -> RefKind {
    match work.of(stmt) {
        Some(w) if !matches!(w.spread, Spread::Irregular { .. }) => {
            RefKind::Bound(Box::new(bound::GatherBound {
                why,
                work: w.clone(),
                mapping: mapping.clone(),
                shape: crate::calls::binding::declared_dims(unit, array),
                stmt,
                kept_loop: placement.kept.checked_sub(1).map(|k| loops[k].0.id),
            }))
        }
        _ => RefKind::Irregular(why),
    }
}

/// The storage size of one element of `array`, from its declared (or implicit) type:
/// INTEGER, REAL and LOGICAL 4 bytes or their KIND, DOUBLE PRECISION 8, COMPLEX 8 or
/// twice its KIND, DOUBLE COMPLEX 16, CHARACTER its length.
pub fn element_bytes(unit: &Unit, array: &str) -> u64 {
    let ty = unit
        .symbol(array)
        .and_then(|s| s.ty.as_ref())
        .or_else(|| unit.implicit.type_of(array));
    let Some(ty) = ty else { return 4 };
    let kind = ty.kind.as_ref().and_then(Expr::as_int).map(|k| k as u64);
    match ty.base {
        BaseType::DoublePrecision => 8,
        BaseType::DoubleComplex => 16,
        BaseType::Complex => kind.map_or(8, |k| 2 * k),
        BaseType::Character => ty
            .len
            .as_ref()
            .and_then(Expr::as_int)
            .map_or(1, |l| l as u64),
        _ => kind.unwrap_or(4),
    }
}
