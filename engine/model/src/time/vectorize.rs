//! Which innermost DO loops the compiler vectorizes, and with how many lanes: a model
//! of GCC's (gfortran 12's) rules, checked against `gfortran -fopt-info-vec-all` on this
//! machine (tests below; ../shared/NOTES.md):
//! - nothing below -O2 without `-ftree-vectorize`; `-fno-tree-vectorize` turns it off;
//! - -O2 uses the *very cheap* cost model: a loop vectorizes only when its trip count is a
//!   compile-time constant that is a multiple of the vectorization factor (no epilogue),
//!   so `do i = 1, n` with n a dummy stays scalar, and it takes no strided access
//!   (`b(2*i)`) though it does take a gather; -O3 and -Ofast (*dynamic*) vectorize
//!   every legal loop, with an epilogue;
//! - legal: only assignments in the body (an IF needs masked stores: AVX and later), no
//!   calls of user procedures (elemental intrinsics are fine: glibc's vector math
//!   library), the loop index in the first subscript only (stride n — a row of a
//!   column-major array — is refused; stride 2 and gathers `b(ix(i))` are taken), no
//!   loop-carried dependence shorter than the vector (`a(i) = a(i-1)…` is refused,
//!   `a(i-2)` takes a 2-lane vector, `a(i+1)` is an anti-dependence and fine), no scalar
//!   carried from one iteration to the next except a reduction (`s = s + …`, which
//!   vectorizes, keeping its order without -ffast-math: its chain of additions is
//!   still one after the other);
//! - vectors of 16 bytes (SSE2) unless `-march`/`-mavx*` allow 32 (`-mprefer-vector-width
//!   =512` for 64).
//!
//! A vectorized loop's element operations cost 1/lanes each (lanes = vector bytes over
//! the widest element type the body touches); a recurrence's latency does not shrink.
//!
//! When the compiler's own report is at hand (`compiler_report`), [`reported`] reads
//! the verdict from it instead, with the lanes derived the same way.

use super::compiler_report;
use super::ops::{chain_to, type_of};
use crate::machine::ops::{OpKey, OpKind, OpType};
use costline_syntax::ir::{BinaryOp, Expr, Loop, LoopControl, Stmt, StmtKind, Subscript, Unit};
use std::collections::BTreeSet;

/// The compiler and flags the program is built with, as far as vectorization goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiler {
    /// How it is named (`gfortran -O2`), for hovers.
    pub name: String,
    pub vectorize: bool,
    /// GCC's very cheap cost model (-O2): no epilogues.
    pub very_cheap: bool,
    pub vector_bytes: u32,
    /// AVX's masked stores: a conditional store vectorizes.
    pub masked_stores: bool,
    /// Loops that only copy an array are replaced by a call of memcpy (GCC's
    /// -ftree-loop-distribute-patterns, on from -O2): see `time::library`.
    pub library_patterns: bool,
}

impl Compiler {
    /// gfortran (or a compiler taking its flags) with `flags`: the optimization level,
    /// `-ftree-vectorize`/`-fno-tree-vectorize`, `-fvect-cost-model=`, `-march=`/`-mavx*`.
    pub fn gnu(command: &str, flags: &str) -> Compiler {
        let mut level = 0;
        let mut explicit: Option<bool> = None;
        let mut cost_model: Option<String> = None;
        let mut vector_bytes = 16;
        let mut prefer_512 = false;
        let mut patterns: Option<bool> = None;
        for f in flags.split_whitespace() {
            match f {
                "-ftree-loop-distribute-patterns" => patterns = Some(true),
                "-fno-tree-loop-distribute-patterns" => patterns = Some(false),
                "-O" | "-O1" => level = 1,
                "-O2" | "-Os" => level = 2,
                "-O3" | "-Ofast" => level = 3,
                "-O0" => level = 0,
                "-ftree-vectorize" | "-ftree-loop-vectorize" => explicit = Some(true),
                "-fno-tree-vectorize" | "-fno-tree-loop-vectorize" => explicit = Some(false),
                "-mavx"
                | "-mavx2"
                | "-mavx512f"
                | "-march=native"
                | "-march=haswell"
                | "-march=skylake"
                | "-march=znver2"
                | "-march=znver3"
                | "-march=znver4"
                | "-march=x86-64-v3"
                | "-march=x86-64-v4"
                | "-march=icelake-server"
                | "-march=sapphirerapids" => vector_bytes = 32,
                "-mprefer-vector-width=512" => prefer_512 = true,
                _ => {
                    if let Some(m) = f.strip_prefix("-fvect-cost-model=") {
                        cost_model = Some(m.to_string());
                    }
                }
            }
        }
        if prefer_512 && vector_bytes == 32 {
            vector_bytes = 64;
        }
        let vectorize = explicit.unwrap_or(level >= 2);
        let very_cheap = match cost_model.as_deref() {
            Some(m) => m == "very-cheap",
            None => level <= 2,
        };
        Compiler {
            name: format!("{command} {flags}").trim().to_string(),
            vectorize,
            very_cheap,
            vector_bytes,
            masked_stores: vector_bytes >= 32,
            library_patterns: patterns.unwrap_or(level >= 2),
        }
    }
}

/// What the compiler does with an innermost loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub vectorized: bool,
    /// Elements per vector operation (1 when scalar).
    pub lanes: f64,
    pub vector_bytes: u32,
    /// Why (not), in words: the rules' reason, or the compiler's own.
    pub why: String,
    /// Where the verdict comes from.
    pub source: Source,
}

/// Where a [`Verdict`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// costline's model of the compiler's rules ([`verdict`]).
    Rules,
    /// The compiler's own report of the file as it is ([`reported`]).
    Compiler,
}

impl Verdict {
    /// A loop the compiler replaces by a call of the library function `name`
    /// (`time::library`).
    pub fn library(name: &str) -> Verdict {
        Verdict::scalar(format!(
            "replaced by a call of {name} (loop distribution of patterns)"
        ))
    }

    /// A loop the rules keep scalar, for `why`.
    fn scalar(why: impl Into<String>) -> Verdict {
        Verdict {
            vectorized: false,
            lanes: 1.0,
            vector_bytes: 0,
            why: why.into(),
            source: Source::Rules,
        }
    }
}

/// The bytes of an element of type `t`.
pub(super) fn bytes(t: OpType) -> u32 {
    match t {
        OpType::I32 | OpType::F32 => 4,
        OpType::I64 | OpType::F64 | OpType::C64 => 8,
        OpType::C128 => 16,
    }
}

/// A subscript as `coef·i + rest + offset` in the loop index `i` (None: not affine in
/// `i`, such as `ix(i)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Affine {
    pub coef: i64,
    pub rest: String,
    pub offset: i64,
}

pub(super) fn affine(e: &Expr, var: &str) -> Option<Affine> {
    if !e.mentions(var) {
        return Some(match e.as_int() {
            Some(c) => Affine {
                coef: 0,
                rest: String::new(),
                offset: c,
            },
            None => Affine {
                coef: 0,
                rest: e.to_string(),
                offset: 0,
            },
        });
    }
    match e {
        Expr::Name(n) if n == var => Some(Affine {
            coef: 1,
            rest: String::new(),
            offset: 0,
        }),
        Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), l, r) => {
            let (a, b) = (affine(l, var)?, affine(r, var)?);
            let sign = if *op == BinaryOp::Sub { -1 } else { 1 };
            let rest = match (a.rest.is_empty(), b.rest.is_empty()) {
                (_, true) => a.rest,
                (true, false) if sign == 1 => b.rest,
                _ => format!("{}{}{}", a.rest, if sign == 1 { "+" } else { "-" }, b.rest),
            };
            Some(Affine {
                coef: a.coef + sign * b.coef,
                rest,
                offset: a.offset + sign * b.offset,
            })
        }
        Expr::Binary(BinaryOp::Mul, l, r) => {
            let (k, x) = match (l.as_int(), r.as_int()) {
                (Some(k), _) => (k, r),
                (_, Some(k)) => (k, l),
                _ => return None,
            };
            let a = affine(x, var)?;
            a.rest.is_empty().then_some(Affine {
                coef: k * a.coef,
                rest: String::new(),
                offset: k * a.offset,
            })
        }
        _ => None,
    }
}

/// An array reference of the body: name, its subscripts in the loop index, whether it
/// is written.
struct Access {
    array: String,
    subscripts: Vec<Option<Affine>>,
    write: bool,
}

/// The compile-time value of `e`: a literal, or a named constant with one.
pub(super) fn constant(unit: &Unit, e: &Expr) -> Option<i64> {
    match e {
        Expr::Name(n) => unit
            .symbols
            .get(n)
            .and_then(|s| s.value.as_ref())
            .and_then(Expr::as_int),
        Expr::Binary(op, l, r) => {
            let (a, b) = (constant(unit, l)?, constant(unit, r)?);
            match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                BinaryOp::Mul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => e.as_int(),
    }
}

/// `stmt` as an innermost counted DO loop: the loop and its control's
/// (variable, lower, upper, step).
pub(super) fn innermost(stmt: &Stmt) -> Option<(&Loop, &str, &Expr, &Expr, Option<&Expr>)> {
    let StmtKind::Loop(l) = &stmt.kind else {
        return None;
    };
    let LoopControl::Counted {
        var,
        lower,
        upper,
        step,
    } = &l.control
    else {
        return None;
    };
    if l.body.iter().any(|s| matches!(s.kind, StmtKind::Loop(_))) {
        return None;
    }
    Some((l, var, lower, upper, step.as_ref()))
}

/// What `compiler` does with `stmt` when it is an innermost counted DO loop (None for
/// any other statement).
pub fn verdict(unit: &Unit, stmt: &Stmt, compiler: &Compiler) -> Option<Verdict> {
    let (l, var, lower, upper, step) = innermost(stmt)?;
    if !compiler.vectorize {
        return Some(Verdict::scalar(format!(
            "{} does not vectorize (below -O2, no -ftree-vectorize)",
            compiler.name
        )));
    }
    let step = step.map_or(Some(1), |s| constant(unit, s));
    if !matches!(step, Some(1 | -1)) {
        return Some(Verdict::scalar("its step is not ±1"));
    }
    // The body: assignments (conditional ones with masked stores), nothing else.
    let mut accesses = Vec::new();
    let mut assigned: Vec<(String, bool)> = Vec::new();
    let mut read_before: BTreeSet<String> = BTreeSet::new();
    let mut why_not: Option<String> = None;
    let mut body: Vec<&Stmt> = Vec::new();
    for s in &l.body {
        match &s.kind {
            StmtKind::If(i) if compiler.masked_stores => {
                for b in &i.branches {
                    body.extend(b.body.iter());
                }
            }
            StmtKind::If(_) => {
                why_not
                    .get_or_insert_with(|| "a conditional store needs masked stores (AVX)".into());
            }
            // A labelled CONTINUE ending the loop does nothing.
            StmtKind::Continue => {}
            _ => body.push(s),
        }
    }
    let (widest, narrowest) = widths(unit, body.iter().copied());
    for s in body {
        let StmtKind::Assign { lhs, rhs } = &s.kind else {
            why_not.get_or_insert_with(|| "its body has more than assignments".into());
            continue;
        };
        let mut reads = |e: &Expr, write: bool| {
            e.visit(&mut |x| {
                if let Expr::Array(a) = x
                    && !a.subscripts.is_empty()
                    && unit.symbols.get(&a.name).is_some_and(|s| s.dims.is_some())
                {
                    accesses.push(Access {
                        array: a.name.clone(),
                        subscripts: a
                            .subscripts
                            .iter()
                            .map(|s| match s {
                                Subscript::Index(e) => affine(e, var),
                                Subscript::Range(_) => None,
                            })
                            .collect(),
                        write: write && std::ptr::eq(x, e),
                    });
                }
                if let Expr::Call(c) = x
                    && unit.symbols.get(&c.name).is_none_or(|s| s.dims.is_none())
                    && costline_syntax::ir::intrinsics::intrinsic_class(&c.name).is_none()
                {
                    why_not.get_or_insert_with(|| format!("it calls `{}`", c.name));
                }
            })
        };
        reads(rhs, false);
        // The left-hand side (its subscripts are reads).
        reads(lhs, true);
        // Scalars: read before this assignment in the iteration, assigned here.
        rhs.visit(&mut |x| {
            if let Expr::Name(n) = x
                && n != var
                && !assigned.iter().any(|(a, _)| a == n)
            {
                read_before.insert(n.clone());
            }
        });
        if let Expr::Name(s_name) = lhs {
            let reduction = matches!(rhs, Expr::Binary(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul, l, _) if matches!(&**l, Expr::Name(n) if n == s_name))
                || matches!(rhs, Expr::Binary(BinaryOp::Add | BinaryOp::Mul, _, r) if matches!(&**r, Expr::Name(n) if n == s_name))
                || matches!(rhs, Expr::Call(c) if matches!(c.name.as_str(), "max" | "min" | "dmax1" | "dmin1" | "amax1" | "amin1") && c.args.iter().any(|a| matches!(&a.value, Expr::Name(n) if n == s_name)));
            assigned.push((s_name.clone(), reduction));
        }
    }
    if let Some(why) = why_not {
        return Some(Verdict::scalar(why));
    }
    for (s, reduction) in &assigned {
        if !reduction && read_before.contains(s) {
            return Some(Verdict::scalar(format!(
                "`{s}` carries a value from one iteration to the next"
            )));
        }
    }
    if let Some(a) = accesses.iter().find(|a| {
        a.subscripts
            .iter()
            .skip(1)
            .any(|s| s.as_ref().is_some_and(|s| s.coef != 0))
    }) {
        return Some(Verdict::scalar(format!(
            "`{}` is walked along a later dimension (stride of a column or more)",
            a.array
        )));
    }
    let widest = if widest == 0 { 8 } else { widest };
    let mut lanes = compiler.vector_bytes / widest;
    // Carried dependences through arrays: a write and a read of the same array whose
    // subscripts differ by a constant distance in the index.
    for w in accesses.iter().filter(|a| a.write) {
        for r in accesses
            .iter()
            .filter(|a| a.array == w.array && !std::ptr::eq(*a, w))
        {
            let pairs: Option<Vec<(&Affine, &Affine)>> = w
                .subscripts
                .iter()
                .zip(&r.subscripts)
                .map(|(a, b)| a.as_ref().zip(b.as_ref()))
                .collect();
            let Some(pairs) = pairs else {
                return Some(Verdict::scalar(format!(
                    "`{}` is written and read through subscripts it cannot compare",
                    w.array
                )));
            };
            if pairs
                .iter()
                .any(|(a, b)| a.coef != b.coef || a.rest != b.rest)
            {
                continue;
            }
            let Some((a, b)) = pairs.iter().find(|(a, _)| a.coef != 0) else {
                continue;
            };
            let step = step.unwrap_or(1) * a.coef.signum();
            let distance = (a.offset - b.offset) * step;
            if distance > 0 && i64::from(lanes) > distance {
                if distance < 2 {
                    return Some(Verdict::scalar(format!(
                        "`{}` depends on the previous iteration's value (distance {distance})",
                        w.array
                    )));
                }
                // The widest power of two the distance allows.
                lanes = 1 << (u64::BITS - 1 - (distance as u64).leading_zeros());
            }
        }
    }
    if compiler.very_cheap {
        if let Some(a) = accesses.iter().find(|a| {
            a.subscripts
                .first()
                .and_then(Option::as_ref)
                .is_some_and(|s| s.coef.abs() > 1)
        }) {
            return Some(Verdict::scalar(format!(
                "`{}` is read with a stride ({}: the very cheap cost model takes no \
                 permutations)",
                a.array, compiler.name
            )));
        }
        let narrowest = if narrowest == u32::MAX { 8 } else { narrowest };
        let factor = i64::from(compiler.vector_bytes / narrowest);
        let trips = constant(unit, upper)
            .zip(constant(unit, lower))
            .map(|(u, l)| (u - l).abs() + 1);
        match trips {
            Some(t) if t % factor == 0 => {}
            Some(t) => {
                return Some(Verdict::scalar(format!(
                    "its {t} iterations are not a multiple of {factor} ({}: the very cheap cost \
                     model vectorizes only without a remainder loop)",
                    compiler.name
                )));
            }
            None => {
                return Some(Verdict::scalar(format!(
                    "its trip count is not known when compiling ({}: the very cheap cost model \
                     vectorizes only a constant trip count; -O3 would)",
                    compiler.name
                )));
            }
        }
    }
    Some(Verdict {
        vectorized: true,
        lanes: f64::from(lanes.max(1)),
        vector_bytes: lanes.max(1) * widest,
        why: format!(
            "{} vectorizes it: {} lanes of {} bytes",
            compiler.name,
            lanes.max(1),
            widest
        ),
        source: Source::Rules,
    })
}

/// The widest and the narrowest element, in bytes, that the assignments of `body`
/// (and of the IF constructs in it) touch: the array elements they read and write and
/// the scalars they assign; (0, `u32::MAX`) when there is none of known type.
fn widths<'a>(unit: &Unit, body: impl IntoIterator<Item = &'a Stmt>) -> (u32, u32) {
    let (mut widest, mut narrowest) = (0u32, u32::MAX);
    let mut take = |e: &Expr| {
        if let Some(t) = type_of(unit, e) {
            widest = widest.max(bytes(t));
            narrowest = narrowest.min(bytes(t));
        }
    };
    let mut stack: Vec<&Stmt> = body.into_iter().collect();
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                for side in [rhs, lhs] {
                    side.visit(&mut |x| {
                        if let Expr::Array(a) = x
                            && !a.subscripts.is_empty()
                            && unit.symbols.get(&a.name).is_some_and(|s| s.dims.is_some())
                        {
                            take(x);
                        }
                    });
                }
                if matches!(lhs, Expr::Name(_)) {
                    take(lhs);
                }
            }
            StmtKind::If(i) => stack.extend(i.branches.iter().flat_map(|b| b.body.iter())),
            _ => {}
        }
    }
    (widest, narrowest)
}

/// What the compiler's report says it did with `stmt` when it is an innermost counted
/// DO loop: `line` is what the report says at the loop's header, `slp` the first line
/// of its body with straight-line code the compiler vectorized and those vectors'
/// bytes. None when `stmt` is no such loop or the report says nothing of a loop there
/// (the rules answer then).
///
/// A vectorized loop takes the report's widest vectors (the main loop's; `compiler`'s
/// when the report does not say) and lanes = those bytes over the widest element the
/// body touches, as [`verdict`] derives them; a loop the compiler did not vectorize
/// keeps the compiler's reason. Straight-line code vectorized inside it is named in
/// the reason and not priced.
pub fn reported(
    unit: &Unit,
    stmt: &Stmt,
    compiler: &Compiler,
    line: &compiler_report::Line,
    slp: Option<(u32, u32)>,
) -> Option<Verdict> {
    let (l, ..) = innermost(stmt)?;
    if line.vectorized {
        let (widest, _) = widths(unit, &l.body);
        let widest = if widest == 0 { 8 } else { widest };
        let vector_bytes = line.vector_bytes.unwrap_or(compiler.vector_bytes);
        let mut why = format!("loop vectorized using {vector_bytes} byte vectors");
        if line.versioned {
            why.push_str("; loop versioned for vectorization because of possible aliasing");
        }
        return Some(Verdict {
            vectorized: true,
            lanes: f64::from((vector_bytes / widest).max(1)),
            vector_bytes,
            why,
            source: Source::Compiler,
        });
    }
    let mut why = line.missed.clone()?;
    match slp {
        Some((at, 0)) => why.push_str(&format!(
            "; basic block part vectorized at line {at} (SLP; not priced)"
        )),
        Some((at, bytes)) => why.push_str(&format!(
            "; basic block part vectorized using {bytes} byte vectors at line {at} (SLP; not \
             priced)"
        )),
        None => {}
    }
    Some(Verdict {
        source: Source::Compiler,
        ..Verdict::scalar(why)
    })
}

/// The assignments of the innermost counted loop `stmt` that read the element the
/// previous iteration wrote (`a(i) = a(i-1)*c(i) + b(i)`): each with the latencies of
/// its chain of operations from that element to the result — a recurrence through
/// memory, whose iterations cannot overlap whether or not the loop is vectorized.
pub fn recurrences(unit: &Unit, stmt: &Stmt) -> Vec<(costline_syntax::ir::StmtId, Vec<OpKey>)> {
    let Some((l, var, _, _, step)) = innermost(stmt) else {
        return Vec::new();
    };
    let Some(step) = step.map_or(Some(1), |s| constant(unit, s)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in &l.body {
        let StmtKind::Assign {
            lhs: Expr::Array(w),
            rhs,
        } = &s.kind
        else {
            continue;
        };
        let written: Option<Vec<Affine>> = w
            .subscripts
            .iter()
            .map(|s| match s {
                Subscript::Index(e) => affine(e, var),
                Subscript::Range(_) => None,
            })
            .collect();
        let Some(written) = written else { continue };
        let previous = |e: &Expr| {
            let Expr::Array(r) = e else { return false };
            if r.name != w.name || r.subscripts.len() != written.len() {
                return false;
            }
            let mut distance = None;
            for (s, a) in r.subscripts.iter().zip(&written) {
                let Subscript::Index(e) = s else { return false };
                let Some(b) = affine(e, var) else {
                    return false;
                };
                if a.coef != b.coef || a.rest != b.rest {
                    return false;
                }
                if a.coef != 0 {
                    distance = Some((a.offset - b.offset) * step * a.coef.signum());
                } else if a.offset != b.offset {
                    return false;
                }
            }
            distance == Some(1)
        };
        let Some(path) = chain_to(rhs, &previous) else {
            continue;
        };
        let Some(t) = type_of(unit, &Expr::Array(w.clone())) else {
            continue;
        };
        if path.is_empty() {
            continue;
        }
        let keys: Vec<OpKey> = path
            .into_iter()
            .map(|k: OpKind| OpKey::Latency(k, t))
            .collect();
        out.push((s.id, keys));
    }
    out
}
