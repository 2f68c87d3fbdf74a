//! The oracle for statement frequencies: random loop nests of depth 1 to 4 over the
//! unknowns `n`, `m` and `w` are built as a data structure ([`Node`]), rendered as a
//! free-form Fortran subroutine, and counted by `freq::frequencies`; a brute-force
//! interpreter of the same structure runs them on a grid of parameter values. For every
//! statement (loops, IFs, CYCLEs and the `cK = cK + 1` counters) and every grid point,
//! `Count::eval` must give exactly the interpreter's count, and so must the formula
//! (`Count::symbolic`, when the symbolic sum produced one) evaluated on its own.
//!
//! Only affine conditions are generated (no data), so every count must also claim to
//! be exact (`Count::is_exact`) — except where the conditions on a path are too many
//! to keep exact: the engine then estimates them with a probability and must say so
//! (`Assumption::Complex`); such statements are not compared, and counted apart. The
//! bugs the oracle found are at the end, as regression tests with their smallest
//! reproducers.
//!
//! Run with `--nocapture` to see, per family of nests, how many statements had a
//! formula, how many were counted by the numeric fallback (and why), and how many were
//! estimated.

use costline_db::project;
use costline_model::freq::{self, Assumption, Count, FreqOptions, Source};
use costline_symbolic::{Notation, Num, Piecewise, Rational, SumError};
use costline_syntax::ir::{Expr, Stmt, StmtKind, Unit};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestError, TestRunner};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt;

// ---------------------------------------------------------------------------------------
// The nests

/// The unknowns: dummy arguments of the generated subroutine, never assigned.
const PARAMS: [&str; 3] = ["n", "m", "w"];

/// The values each parameter takes on the grid (only the parameters a nest mentions
/// are varied).
const GRID: [(i64, i64); 3] = [(0, 6), (0, 4), (0, 2)];

/// Work spent on one nest over the whole grid, in interpreter steps (statements
/// executed) plus [`NUMERIC_COST`] per numeric evaluation by the engine: the grid is
/// walked from its smallest points up and stops there, which keeps nests whose trip
/// counts grow fast, or that the engine counts numerically, cheap while always
/// checking the small (edge) cases.
const WORK_PER_NEST: u64 = 60_000;

/// What one numeric evaluation of a count term (where the symbolic sum gave up: a
/// symbolic sum with the parameters bound, or an enumeration) is charged, in
/// interpreter steps.
const NUMERIC_COST: u64 = 500;

/// A name a bound or condition can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Var {
    /// `n`, `m` or `w`.
    Param(usize),
    /// The variable of the loop at nesting level `k` (0 is outermost): `i{k+1}`.
    Loop(usize),
}

impl Var {
    /// Its slot in the interpreter's environment.
    fn slot(self) -> usize {
        match self {
            Var::Param(p) => p,
            Var::Loop(k) => PARAMS.len() + k,
        }
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Var::Param(p) => f.write_str(PARAMS[*p]),
            Var::Loop(k) => write!(f, "i{}", k + 1),
        }
    }
}

/// `Σ coef·var + constant`.
#[derive(Clone, Debug)]
struct Affine {
    terms: Vec<(i64, Var)>,
    constant: i64,
}

impl Affine {
    fn var(v: Var, constant: i64) -> Affine {
        Affine {
            terms: vec![(1, v)],
            constant,
        }
    }

    fn constant(c: i64) -> Affine {
        Affine {
            terms: Vec::new(),
            constant: c,
        }
    }

    fn eval(&self, env: &[i64]) -> i64 {
        self.terms
            .iter()
            .map(|(c, v)| c * env[v.slot()])
            .sum::<i64>()
            + self.constant
    }
}

impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = |first: bool, c: i64| match (first, c < 0) {
            (true, true) => "-",
            (true, false) => "",
            (false, true) => " - ",
            (false, false) => " + ",
        };
        for (k, (c, v)) in self.terms.iter().enumerate() {
            f.write_str(sign(k == 0, *c))?;
            if c.abs() != 1 {
                write!(f, "{}*", c.abs())?;
            }
            write!(f, "{v}")?;
        }
        if self.terms.is_empty() {
            write!(f, "{}", self.constant)
        } else if self.constant != 0 {
            write!(f, "{}{}", sign(false, self.constant), self.constant.abs())
        } else {
            Ok(())
        }
    }
}

/// A loop bound.
#[derive(Clone, Debug)]
enum Bound {
    Affine(Affine),
    Min(Affine, Affine),
    Max(Affine, Affine),
    /// Fortran integer division (truncating) by a positive constant.
    Div(Affine, i64),
    /// Fortran `MOD` (the sign of the first operand) by a positive constant.
    Mod(Affine, i64),
}

impl Bound {
    fn eval(&self, env: &[i64]) -> i64 {
        match self {
            Bound::Affine(a) => a.eval(env),
            Bound::Min(a, b) => a.eval(env).min(b.eval(env)),
            Bound::Max(a, b) => a.eval(env).max(b.eval(env)),
            Bound::Div(a, k) => a.eval(env) / k,
            Bound::Mod(a, k) => a.eval(env) % k,
        }
    }

    fn affines(&self) -> Vec<&Affine> {
        match self {
            Bound::Affine(a) | Bound::Div(a, _) | Bound::Mod(a, _) => vec![a],
            Bound::Min(a, b) | Bound::Max(a, b) => vec![a, b],
        }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Affine(a) => write!(f, "{a}"),
            Bound::Min(a, b) => write!(f, "min({a}, {b})"),
            Bound::Max(a, b) => write!(f, "max({a}, {b})"),
            Bound::Div(a, k) => write!(f, "({a})/{k}"),
            Bound::Mod(a, k) => write!(f, "mod({a}, {k})"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Rel {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// A logical condition on parameters and enclosing loop variables.
#[derive(Clone, Debug)]
enum Cond {
    Cmp(Affine, Rel, Affine),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

impl Cond {
    fn eval(&self, env: &[i64]) -> bool {
        match self {
            Cond::Cmp(a, rel, b) => {
                let (a, b) = (a.eval(env), b.eval(env));
                match rel {
                    Rel::Lt => a < b,
                    Rel::Le => a <= b,
                    Rel::Gt => a > b,
                    Rel::Ge => a >= b,
                    Rel::Eq => a == b,
                    Rel::Ne => a != b,
                }
            }
            Cond::And(a, b) => a.eval(env) && b.eval(env),
            Cond::Or(a, b) => a.eval(env) || b.eval(env),
            Cond::Not(a) => !a.eval(env),
        }
    }

    fn affines(&self) -> Vec<&Affine> {
        match self {
            Cond::Cmp(a, _, b) => vec![a, b],
            Cond::And(a, b) | Cond::Or(a, b) => [a.affines(), b.affines()].concat(),
            Cond::Not(a) => a.affines(),
        }
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Cmp(a, rel, b) => {
                let op = match rel {
                    Rel::Lt => "<",
                    Rel::Le => "<=",
                    Rel::Gt => ">",
                    Rel::Ge => ">=",
                    Rel::Eq => "==",
                    Rel::Ne => "/=",
                };
                write!(f, "{a} {op} {b}")
            }
            Cond::And(a, b) => write!(f, "({a}) .and. ({b})"),
            Cond::Or(a, b) => write!(f, "({a}) .or. ({b})"),
            Cond::Not(a) => write!(f, ".not. ({a})"),
        }
    }
}

/// A statement of a nest. In the IR's pre-order each node is one statement, except
/// [`Node::CycleIf`], which is two (the IF and its CYCLE).
#[derive(Clone, Debug)]
enum Node {
    /// `cK = cK + 1`, each with its own `cK`.
    Counter,
    /// `do iD = first, last, step` at nesting level D - 1.
    Loop {
        first: Bound,
        last: Bound,
        step: i64,
        body: Vec<Node>,
    },
    If {
        cond: Cond,
        then: Vec<Node>,
        otherwise: Option<Vec<Node>>,
    },
    /// `if (cond) cycle`.
    CycleIf(Cond),
    /// A plain `cycle`, only as the last statement of a THEN or ELSE block.
    Cycle,
}

impl Node {
    /// Statements in the IR: this one and everything nested in it.
    fn size(&self) -> usize {
        match self {
            Node::Counter | Node::Cycle => 1,
            Node::CycleIf(_) => 2,
            Node::Loop { body, .. } => 1 + block_size(body),
            Node::If {
                then, otherwise, ..
            } => 1 + block_size(then) + otherwise.as_deref().map_or(0, block_size),
        }
    }

    fn affines(&self) -> Vec<&Affine> {
        match self {
            Node::Counter | Node::Cycle => Vec::new(),
            Node::CycleIf(c) => c.affines(),
            Node::Loop {
                first, last, body, ..
            } => {
                let mut out = [first.affines(), last.affines()].concat();
                out.extend(body.iter().flat_map(Node::affines));
                out
            }
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                let mut out = cond.affines();
                out.extend(then.iter().flat_map(Node::affines));
                out.extend(otherwise.iter().flatten().flat_map(Node::affines));
                out
            }
        }
    }
}

fn block_size(nodes: &[Node]) -> usize {
    nodes.iter().map(Node::size).sum()
}

/// What the IR must hold at each position of the pre-order, for matching statements
/// to nodes.
#[derive(Clone, Debug, PartialEq)]
enum Expected {
    Counter(String),
    Loop,
    If,
    Cycle,
}

/// A generated subroutine: its body, the Fortran text, and the statements it lowers
/// to, in pre-order.
struct Program {
    body: Vec<Node>,
    source: String,
    layout: Vec<Expected>,
}

impl Program {
    fn new(body: Vec<Node>) -> Program {
        let mut r = Renderer::default();
        r.block(&body, 1, 0);
        let counters: Vec<String> = (1..=r.counters).map(|k| format!("c{k}")).collect();
        let source = format!(
            "subroutine nest(n, m, w)\n  implicit none\n  integer :: n, m, w\n  \
             integer :: i1, i2, i3, i4\n  integer :: {}\n{}end subroutine\n",
            counters.join(", "),
            r.text
        );
        Program {
            body,
            source,
            layout: r.layout,
        }
    }

    /// Which parameters the nest mentions (the others are left unbound).
    fn params(&self) -> [bool; 3] {
        let mut used = [false; 3];
        for a in self.body.iter().flat_map(Node::affines) {
            for (_, v) in &a.terms {
                if let Var::Param(p) = v {
                    used[*p] = true;
                }
            }
        }
        used
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Renders nodes as Fortran lines, numbering the counters and listing the statements
/// they lower to.
#[derive(Default)]
struct Renderer {
    text: String,
    layout: Vec<Expected>,
    counters: usize,
}

impl Renderer {
    fn line(&mut self, indent: usize, s: &str) {
        self.text += &"  ".repeat(indent);
        self.text += s;
        self.text.push('\n');
    }

    /// Renders `nodes` indented by `indent`, inside `level` loops.
    fn block(&mut self, nodes: &[Node], indent: usize, level: usize) {
        for node in nodes {
            match node {
                Node::Counter => {
                    self.counters += 1;
                    let c = format!("c{}", self.counters);
                    self.line(indent, &format!("{c} = {c} + 1"));
                    self.layout.push(Expected::Counter(c));
                }
                Node::Loop {
                    first,
                    last,
                    step,
                    body,
                } => {
                    let step = if *step == 1 {
                        String::new()
                    } else {
                        format!(", {step}")
                    };
                    let var = Var::Loop(level);
                    self.line(indent, &format!("do {var} = {first}, {last}{step}"));
                    self.layout.push(Expected::Loop);
                    self.block(body, indent + 1, level + 1);
                    self.line(indent, "end do");
                }
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    self.line(indent, &format!("if ({cond}) then"));
                    self.layout.push(Expected::If);
                    self.block(then, indent + 1, level);
                    if let Some(o) = otherwise {
                        self.line(indent, "else");
                        self.block(o, indent + 1, level);
                    }
                    self.line(indent, "end if");
                }
                Node::CycleIf(cond) => {
                    self.line(indent, &format!("if ({cond}) cycle"));
                    self.layout.extend([Expected::If, Expected::Cycle]);
                }
                Node::Cycle => {
                    self.line(indent, "cycle");
                    self.layout.push(Expected::Cycle);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The brute-force interpreter

/// Runs a nest once, counting each statement's executions (a loop: its iterations), by
/// pre-order position. Gives up (`None`) past `limit` steps.
struct Interpreter {
    /// Parameters, then the loop variables `i1..i4`.
    env: [i64; PARAMS.len() + 4],
    counts: Vec<i128>,
    steps: u64,
    limit: u64,
}

/// How a block ended.
enum Flow {
    Normal,
    Cycle,
}

impl Interpreter {
    fn run(body: &[Node], params: [i64; 3], limit: u64) -> Option<(Vec<i128>, u64)> {
        let mut env = [0; PARAMS.len() + 4];
        env[..3].copy_from_slice(&params);
        let mut it = Interpreter {
            env,
            counts: vec![0; block_size(body)],
            steps: 0,
            limit,
        };
        it.block(body, 0, 0)?;
        Some((it.counts, it.steps))
    }

    /// Executes `nodes`, the first of which has pre-order position `id`, at nesting
    /// level `level`.
    fn block(&mut self, nodes: &[Node], mut id: usize, level: usize) -> Option<Flow> {
        for node in nodes {
            self.steps += 1;
            if self.steps > self.limit {
                return None;
            }
            match node {
                Node::Counter => self.counts[id] += 1,
                Node::Loop {
                    first,
                    last,
                    step,
                    body,
                } => {
                    // Fortran: the trip count is fixed on entry.
                    let (l, u) = (first.eval(&self.env), last.eval(&self.env));
                    let trips = ((u - l + step) / step).max(0);
                    self.counts[id] += i128::from(trips);
                    for t in 0..trips {
                        self.env[Var::Loop(level).slot()] = l + t * step;
                        // CYCLE goes on with the next iteration.
                        self.block(body, id + 1, level + 1)?;
                    }
                }
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    self.counts[id] += 1;
                    let flow = if cond.eval(&self.env) {
                        self.block(then, id + 1, level)?
                    } else if let Some(o) = otherwise {
                        self.block(o, id + 1 + block_size(then), level)?
                    } else {
                        Flow::Normal
                    };
                    if let Flow::Cycle = flow {
                        return Some(Flow::Cycle);
                    }
                }
                Node::CycleIf(cond) => {
                    self.counts[id] += 1;
                    if cond.eval(&self.env) {
                        self.counts[id + 1] += 1;
                        return Some(Flow::Cycle);
                    }
                }
                Node::Cycle => {
                    self.counts[id] += 1;
                    return Some(Flow::Cycle);
                }
            }
            id += node.size();
        }
        Some(Flow::Normal)
    }
}

// ---------------------------------------------------------------------------------------
// The generators

/// Which features a family of nests uses.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Bounds mention enclosing loop variables: triangular (`do i2 = i1, n`) and banded
    /// (`do i2 = max(1, i1 - w), min(n, i1 + w)`) nests.
    outer: bool,
    /// MIN and MAX of two affine expressions as bounds.
    extrema: bool,
    /// Steps from {1, 1, 1, 2, 3, -1, -2}; a negative step usually descends.
    steps: bool,
    /// IF guards between levels (some with an ELSE), IFs around counters (their
    /// blocks sometimes ending in `cycle`), and `if (...) cycle`.
    guards: bool,
    /// Integer division and MOD by 2 or 3 in bounds, of values that may be negative.
    division: bool,
}

/// The variables visible at nesting level `level`: the parameters, and with
/// `outer` the variables of the enclosing loops.
fn visible(level: usize, outer: bool) -> Vec<Var> {
    let mut vars: Vec<Var> = (0..PARAMS.len()).map(Var::Param).collect();
    if outer {
        vars.extend((0..level).map(Var::Loop));
    }
    vars
}

/// Up to two terms over `vars`, coefficients in {±1, ±2} (mostly 1), constant in
/// [-3, 5].
fn affine(vars: Vec<Var>) -> BoxedStrategy<Affine> {
    let coef = prop::sample::select(vec![1, 1, 1, -1, 2, -2]);
    let term = (coef, prop::sample::select(vars));
    (prop::collection::vec(term, 0..=2), -3i64..=5)
        .prop_map(|(terms, constant)| Affine { terms, constant })
        .boxed()
}

/// A constant in [-1, 1], the usual offset of a triangular or banded bound.
fn offset() -> impl Strategy<Value = i64> {
    -1i64..=1
}

/// A lower bound at `level`: mostly 1, a small constant or an affine expression in the
/// parameters; with `outer`, an outer variable plus an offset, `max(1, ik - w)`, or any
/// affine expression; with `extrema` a MAX, with `division` a quotient or MOD.
fn lower(shape: Shape, level: usize) -> BoxedStrategy<Bound> {
    let params = visible(0, false);
    let all = visible(level, shape.outer);
    let mut options: Vec<(u32, BoxedStrategy<Bound>)> = vec![
        (3, Just(Bound::Affine(Affine::constant(1))).boxed()),
        (
            1,
            (-3i64..=5)
                .prop_map(|c| Bound::Affine(Affine::constant(c)))
                .boxed(),
        ),
        (1, affine(params).prop_map(Bound::Affine).boxed()),
    ];
    if shape.outer && level > 0 {
        let outer = prop::sample::select((0..level).map(Var::Loop).collect::<Vec<_>>());
        options.push((
            3,
            (outer.clone(), offset())
                .prop_map(|(v, c)| Bound::Affine(Affine::var(v, c)))
                .boxed(),
        ));
        options.push((1, affine(all.clone()).prop_map(Bound::Affine).boxed()));
        if shape.extrema {
            options.push((
                2,
                outer
                    .prop_map(|v| {
                        Bound::Max(
                            Affine::constant(1),
                            Affine {
                                terms: vec![(1, v), (-1, Var::Param(2))],
                                constant: 0,
                            },
                        )
                    })
                    .boxed(),
            ));
        }
    }
    if shape.extrema {
        options.push((
            1,
            (affine(all.clone()), affine(all.clone()))
                .prop_map(|(a, b)| Bound::Max(a, b))
                .boxed(),
        ));
    }
    if shape.division {
        options.push((1, division(all)));
    }
    prop::strategy::Union::new_weighted(options).boxed()
}

/// An upper bound at `level`: mostly a parameter plus a small constant or an affine
/// expression in the parameters; with `outer`, an outer variable plus an offset,
/// `min(n, ik + w)`, or any affine expression; with `extrema` a MIN, with `division` a
/// quotient or MOD.
fn upper(shape: Shape, level: usize) -> BoxedStrategy<Bound> {
    let params = visible(0, false);
    let all = visible(level, shape.outer);
    let mut options: Vec<(u32, BoxedStrategy<Bound>)> = vec![
        (
            3,
            (prop::sample::select(params.clone()), offset())
                .prop_map(|(v, c)| Bound::Affine(Affine::var(v, c)))
                .boxed(),
        ),
        (1, affine(params).prop_map(Bound::Affine).boxed()),
    ];
    if shape.outer && level > 0 {
        let outer = prop::sample::select((0..level).map(Var::Loop).collect::<Vec<_>>());
        options.push((
            3,
            (outer.clone(), offset())
                .prop_map(|(v, c)| Bound::Affine(Affine::var(v, c)))
                .boxed(),
        ));
        options.push((1, affine(all.clone()).prop_map(Bound::Affine).boxed()));
        if shape.extrema {
            options.push((
                2,
                outer
                    .prop_map(|v| {
                        Bound::Min(
                            Affine::var(Var::Param(0), 0),
                            Affine {
                                terms: vec![(1, v), (1, Var::Param(2))],
                                constant: 0,
                            },
                        )
                    })
                    .boxed(),
            ));
        }
    }
    if shape.extrema {
        options.push((
            1,
            (affine(all.clone()), affine(all.clone()))
                .prop_map(|(a, b)| Bound::Min(a, b))
                .boxed(),
        ));
    }
    if shape.division {
        options.push((1, division(all)));
    }
    prop::strategy::Union::new_weighted(options).boxed()
}

/// `(affine)/k` or `mod(affine, k)` with k in {2, 3}.
fn division(vars: Vec<Var>) -> BoxedStrategy<Bound> {
    (affine(vars), 2i64..=3, any::<bool>())
        .prop_map(|(a, k, quotient)| {
            if quotient {
                Bound::Div(a, k)
            } else {
                Bound::Mod(a, k)
            }
        })
        .boxed()
}

/// A condition at `level` (over the parameters and the variables of the enclosing
/// loops): a comparison of two affine expressions, or two under `.and.` or `.or.`, or
/// one under `.not.` (deeper conditions make the engine's counts slow in a debug build).
fn cond(level: usize) -> BoxedStrategy<Cond> {
    let vars = visible(level, true);
    let rel = prop::sample::select(vec![Rel::Lt, Rel::Le, Rel::Gt, Rel::Ge, Rel::Eq, Rel::Ne]);
    let leaf = (affine(vars.clone()), rel, affine(vars))
        .prop_map(|(a, r, b)| Cond::Cmp(a, r, b))
        .boxed();
    leaf.prop_recursive(1, 2, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Cond::And(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Cond::Or(a.into(), b.into())),
            inner.prop_map(|a| Cond::Not(a.into())),
        ]
    })
    .boxed()
}

/// A statement that is not the nest's spine, at `level`: a counter; with `guards` also
/// an IF around a counter with an optional ELSE (inside a loop, either block sometimes
/// ending in `cycle` or holding an `if (...) cycle`), or `if (...) cycle` inside a loop.
fn simple(shape: Shape, level: usize) -> BoxedStrategy<Node> {
    if !shape.guards {
        return Just(Node::Counter).boxed();
    }
    let block = if level > 0 {
        prop_oneof![
            2 => Just(vec![Node::Counter]),
            1 => Just(vec![Node::Counter, Node::Cycle]),
            1 => cond(level).prop_map(|c| vec![Node::CycleIf(c), Node::Counter]),
        ]
        .boxed()
    } else {
        Just(vec![Node::Counter]).boxed()
    };
    let guarded = (
        cond(level),
        block.clone(),
        prop::option::weighted(0.4, block),
    )
        .prop_map(|(cond, then, otherwise)| Node::If {
            cond,
            then,
            otherwise,
        });
    if level > 0 {
        prop_oneof![
            2 => Just(Node::Counter),
            2 => guarded,
            1 => cond(level).prop_map(Node::CycleIf),
        ]
        .boxed()
    } else {
        prop_oneof![Just(Node::Counter), guarded].boxed()
    }
}

/// Zero or one [`simple`] statement.
fn extras(shape: Shape, level: usize) -> BoxedStrategy<Vec<Node>> {
    prop::collection::vec(simple(shape, level), 0..=1).boxed()
}

/// The loop at `level` of a nest `depth` loops deep: its body is the next loop (or, in
/// the innermost loop, a counter), with `guards` sometimes under an IF (with an
/// optional ELSE), and maybe one [`simple`] statement before or after it.
fn nest(shape: Shape, level: usize, depth: usize) -> BoxedStrategy<Node> {
    let spine = if level + 1 < depth {
        nest(shape, level + 1, depth)
    } else {
        Just(Node::Counter).boxed()
    };
    let inner = if shape.guards {
        prop_oneof![
            3 => spine.clone(),
            1 => (cond(level + 1), spine, prop::option::weighted(0.3, Just(vec![Node::Counter])))
                .prop_map(|(cond, s, otherwise)| Node::If { cond, then: vec![s], otherwise }),
        ]
        .boxed()
    } else {
        spine
    };
    let step = if shape.steps {
        prop::sample::select(vec![1, 1, 1, 2, 3, -1, -2]).boxed()
    } else {
        Just(1).boxed()
    };
    (
        lower(shape, level),
        upper(shape, level),
        step,
        prop::bool::weighted(0.8),
        inner,
        prop::option::of(simple(shape, level + 1)),
        any::<bool>(),
    )
        .prop_map(|(lo, hi, step, descend, inner, extra, before)| {
            // A negative step usually runs from the upper bound down to the lower.
            let (first, last) = if step < 0 && descend {
                (hi, lo)
            } else {
                (lo, hi)
            };
            let mut body = vec![inner];
            if let Some(extra) = extra {
                body.insert(if before { 0 } else { 1 }, extra);
            }
            Node::Loop {
                first,
                last,
                step,
                body,
            }
        })
        .boxed()
}

/// A subroutine: extras, a nest of depth 1 to 4, extras.
fn program(shape: Shape) -> BoxedStrategy<Program> {
    (1..=4usize)
        .prop_flat_map(move |depth| (extras(shape, 0), nest(shape, 0, depth), extras(shape, 0)))
        .prop_map(|(pre, nest, post)| {
            let mut body = pre;
            body.push(nest);
            body.extend(post);
            Program::new(body)
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------
// The oracle

fn options() -> FreqOptions {
    FreqOptions {
        unit_max_steps: None,
        ..FreqOptions::default()
    }
}

/// The unit of a Fortran text that must parse cleanly.
fn lower_unit(source: &str) -> Result<Unit, String> {
    let files = project::analyze(
        &[("nest.f90".into(), source.as_bytes().to_vec())],
        &BTreeMap::new(),
    );
    let file = files
        .into_iter()
        .next()
        .ok_or("no file")?
        .map_err(|e| format!("{e:?}"))?;
    let [unit] = <[_; 1]>::try_from(file.units).map_err(|_| "not one unit".to_string())?;
    let errors: Vec<_> = file
        .diagnostics
        .iter()
        .chain(unit.diagnostics.iter())
        .filter(|d| d.severity == costline_syntax::diagnostics::Severity::Error)
        .collect();
    if !errors.is_empty() {
        return Err(format!("diagnostics {errors:?}"));
    }
    Ok(Unit::clone(&unit.unit))
}

/// The statements of a unit in pre-order.
fn statements(unit: &Unit) -> Vec<&Stmt> {
    let mut out = Vec::new();
    unit.walk(&mut |s, _| out.push(s));
    out
}

fn matches(s: &Stmt, e: &Expected) -> bool {
    match (&s.kind, e) {
        (
            StmtKind::Assign {
                lhs: Expr::Name(n), ..
            },
            Expected::Counter(c),
        ) => n == c,
        (StmtKind::Loop(_), Expected::Loop) | (StmtKind::If(_), Expected::If) => true,
        (StmtKind::Cycle { .. }, Expected::Cycle) => true,
        _ => false,
    }
}

/// A statement's count as the oracle compares it.
struct Checked<'a> {
    count: &'a Count,
    formula: Option<Piecewise>,
    /// The first statement with the same count (itself if none before).
    shared: usize,
}

/// What the oracle checked, for the report.
#[derive(Default)]
struct Stats {
    nests: Cell<u64>,
    statements: Cell<u64>,
    /// Statements whose count has a formula...
    formula: Cell<u64>,
    /// ...and those counted by the numeric fallback, by why the symbolic sum gave up...
    fallback: RefCell<BTreeMap<&'static str, u64>>,
    /// ...and those not compared: an affine condition on their path was treated as
    /// data (too many alternatives).
    as_data: Cell<u64>,
    /// (statement, grid point) pairs compared.
    values: Cell<u64>,
}

impl Stats {
    fn bump(c: &Cell<u64>, by: u64) {
        c.set(c.get() + by);
    }
}

/// The exact integer of a count, or why there is none.
fn exact(n: Num) -> Result<i128, String> {
    match n {
        Num::Exact(r) => r.as_integer().ok_or_else(|| format!("the fraction {r}")),
        Num::Approx(f) => Err(format!("the approximation {f}")),
    }
}

/// The grid points of the parameters `used` (the others unbound), smallest first.
fn grid(used: [bool; 3]) -> Vec<[Option<i64>; 3]> {
    let mut points: Vec<[Option<i64>; 3]> = vec![[None; 3]];
    for (p, &(lo, hi)) in GRID.iter().enumerate() {
        if !used[p] {
            continue;
        }
        points = points
            .into_iter()
            .flat_map(|pt| {
                (lo..=hi).map(move |v| {
                    let mut pt = pt;
                    pt[p] = Some(v);
                    pt
                })
            })
            .collect();
    }
    points.sort_by_key(|pt| pt.iter().flatten().sum::<i64>());
    points
}

/// Counts `program` with the engine and compares every statement's count with the
/// interpreter's on the grid.
fn check(program: &Program, stats: &Stats) -> Result<(), String> {
    let unit = lower_unit(&program.source)?;
    let stmts = statements(&unit);
    if stmts.len() != program.layout.len()
        || !stmts
            .iter()
            .zip(&program.layout)
            .all(|(s, e)| matches(s, e))
    {
        return Err(format!(
            "the unit lowers to statements other than {:?}",
            program.layout
        ));
    }
    let opts = options();
    let freqs = freq::frequencies(&unit, &opts);
    // Per statement: what to compare, or `None` where the engine estimated conditions
    // too complex to keep exact (and said so).
    let mut checked: Vec<Option<Checked>> = Vec::new();
    for (k, s) in stmts.iter().enumerate() {
        let count = freqs
            .of(s.id)
            .ok_or_else(|| format!("no count for statement {}", s.id.0))?;
        Stats::bump(&stats.statements, 1);
        if count
            .assumptions
            .iter()
            .any(|a| matches!(a, Assumption::Complex { .. }))
        {
            Stats::bump(&stats.as_data, 1);
            checked.push(None);
            continue;
        }
        if !count.is_exact() {
            return Err(format!(
                "statement {k} ({:?}) is not exact: {:?}",
                program.layout[k], count.assumptions
            ));
        }
        match count.symbolic_error() {
            None => Stats::bump(&stats.formula, 1),
            Some(e) => {
                let why = match e {
                    SumError::OverBudget => "over budget",
                    SumError::NonLinear(_) => "non-linear",
                    SumError::Unbounded(_) => "unbounded",
                    SumError::Sym(_) => "overflow",
                };
                *stats.fallback.borrow_mut().entry(why).or_default() += 1;
            }
        }
        // Statements in the same context share their count: evaluate it once.
        let shared = checked
            .iter()
            .flatten()
            .find(|c| std::ptr::eq(c.count, count))
            .map(|c| c.shared);
        checked.push(Some(Checked {
            count,
            formula: count.symbolic().cloned(),
            shared: shared.unwrap_or(k),
        }));
    }
    Stats::bump(&stats.nests, 1);

    // Where the symbolic sum gave up, each evaluation is a numeric count of its own.
    let numeric = checked
        .iter()
        .enumerate()
        .filter_map(|(k, c)| c.as_ref().filter(|c| c.shared == k))
        .flat_map(|c| &c.count.terms)
        .filter(|t| t.symbolic.is_err())
        .count() as u64
        * NUMERIC_COST;
    let mut budget = WORK_PER_NEST;
    for point in grid(program.params()) {
        let values = point.map(|v| v.unwrap_or(0));
        let Some(limit) = budget.checked_sub(numeric) else {
            break;
        };
        let Some((expected, steps)) = Interpreter::run(&program.body, values, limit) else {
            break;
        };
        budget = limit - steps;
        let env = |name: &str| {
            let p = PARAMS.iter().position(|p| *p == name)?;
            point[p].map(i128::from)
        };
        let at = |k: usize| {
            let bound: Vec<String> = PARAMS
                .iter()
                .zip(point)
                .filter_map(|(p, v)| Some(format!("{p}={}", v?)))
                .collect();
            format!(
                "statement {k} ({:?}) at {}: expected {}",
                program.layout[k],
                bound.join(" "),
                expected[k]
            )
        };
        // The value of each count, and of its formula, at this point.
        let mut got: Vec<Option<(Num, Option<Num>)>> = vec![None; checked.len()];
        for (k, c) in checked.iter().enumerate() {
            let Some(c) = c else { continue };
            let value = match got[c.shared] {
                Some(v) => v,
                None => {
                    let value = c
                        .count
                        .eval(&env, &opts)
                        .map_err(|e| format!("{}, error {e}", at(k)))?;
                    let direct = c
                        .formula
                        .as_ref()
                        .map(|f| f.eval(&env))
                        .transpose()
                        .map_err(|e| format!("{}, error {e}", at(k)))?;
                    (value, direct)
                }
            };
            got[k] = Some(value);
            let shown = || {
                c.formula
                    .as_ref()
                    .map_or("no formula".into(), |f| f.display(Notation::Fortran))
            };
            if exact(value.0) != Ok(expected[k]) {
                return Err(format!("{}, counted {} ({})", at(k), value.0, shown()));
            }
            if let Some(direct) = value.1
                && exact(direct) != Ok(expected[k])
            {
                return Err(format!(
                    "{}, the formula gives {direct} ({})",
                    at(k),
                    shown()
                ));
            }
        }
        Stats::bump(&stats.values, checked.iter().flatten().count() as u64);
    }
    Ok(())
}

/// Runs the oracle on `cases` nests of `shape` (or `PROPTEST_CASES`), then reports
/// what was checked; on failure, panics with the smallest failing Fortran.
fn run(name: &str, shape: Shape, cases: u32) {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(cases);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let stats = Stats::default();
    let result = runner.run(&program(shape), |p| {
        check(&p, &stats).map_err(|e| TestCaseError::fail(format!("{e}\n{}", p.source)))
    });
    match result {
        Ok(()) => eprintln!(
            "{name}: {} nests, {} statements ({} with a formula, {} by the numeric fallback \
             {:?}, {} estimated: conditions too complex to keep exact), {} values compared",
            stats.nests.get(),
            stats.statements.get(),
            stats.formula.get(),
            stats.fallback.borrow().values().sum::<u64>(),
            stats.fallback.borrow(),
            stats.as_data.get(),
            stats.values.get()
        ),
        Err(TestError::Fail(why, _)) => panic!("{name}: the smallest failing nest: {why}"),
        Err(TestError::Abort(why)) => panic!("{name}: aborted: {why}"),
    }
}

#[test]
fn rectangular_nests() {
    let shape = Shape {
        outer: false,
        extrema: false,
        steps: false,
        guards: false,
        division: false,
    };
    run("rectangular", shape, 600);
}

#[test]
fn triangular_and_banded_nests() {
    let shape = Shape {
        outer: true,
        extrema: true,
        steps: false,
        guards: false,
        division: false,
    };
    run("triangular/banded", shape, 500);
}

#[test]
fn nests_with_steps() {
    let shape = Shape {
        outer: true,
        extrema: false,
        steps: true,
        guards: false,
        division: false,
    };
    run("steps", shape, 700);
}

#[test]
fn guarded_nests() {
    let shape = Shape {
        outer: true,
        extrema: false,
        steps: false,
        guards: true,
        division: false,
    };
    run("guards", shape, 700);
}

#[test]
fn mixed_nests() {
    let shape = Shape {
        outer: true,
        extrema: true,
        steps: true,
        guards: true,
        division: true,
    };
    run("mixed", shape, 500);
}

/// A data-dependent IF is not counted but estimated: each branch runs with the default
/// probability 1/2 of the IF's count, which is exact, and says so.
#[test]
fn data_dependent_branch_has_half_the_count() {
    let source = "subroutine dd(a, n, m)
  implicit none
  integer :: n, m
  real :: a(n)
  integer :: i1, i2, c1, c2
  do i1 = 1, n
    do i2 = i1, m
      if (a(i1) > 0) then
        c1 = c1 + 1
      else
        c2 = c2 + 1
      end if
    end do
  end do
end subroutine
";
    let unit = lower_unit(source).unwrap();
    let stmts = statements(&unit);
    let opts = options();
    let freqs = freq::frequencies(&unit, &opts);
    let count = |k: usize| freqs.of(stmts[k].id).unwrap();
    let (the_if, then, otherwise) = (count(2), count(3), count(4));
    assert!(the_if.is_exact());
    let half = Rational::new(1, 2).unwrap();
    for branch in [then, otherwise] {
        assert!(!branch.is_exact());
        assert!(
            branch.assumptions.iter().any(|a| matches!(
                a,
                Assumption::Probability { p, source: Source::Default, .. } if *p == half
            )),
            "{:?}",
            branch.assumptions
        );
    }
    for n in 0..=6i128 {
        for m in 0..=6i128 {
            let env = |name: &str| match name {
                "n" => Some(n),
                "m" => Some(m),
                _ => None,
            };
            let expected: i128 = (1..=n).map(|i| (m - i + 1).max(0)).sum();
            assert_eq!(
                the_if.eval(&env, &opts),
                Ok(Num::Exact(Rational::int(expected)))
            );
            let half_of = Num::Exact(Rational::new(expected, 2).unwrap());
            assert_eq!(then.eval(&env, &opts), Ok(half_of), "n={n} m={m}");
            assert_eq!(otherwise.eval(&env, &opts), Ok(half_of), "n={n} m={m}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Engine bugs the oracle found, smallest reproducers (fixed; kept as regression tests)

/// The count of the statement at pre-order position `k` of `source` under `params`,
/// and whether the engine calls it exact.
fn count_of(source: &str, k: usize, params: &[(&str, i128)]) -> (Num, bool) {
    let unit = lower_unit(source).unwrap();
    let opts = options();
    let freqs = freq::frequencies(&unit, &opts);
    let c = freqs.of(statements(&unit)[k].id).unwrap();
    let env = |name: &str| params.iter().find(|(p, _)| *p == name).map(|(_, v)| *v);
    (c.eval(&env, &opts).unwrap(), c.is_exact())
}

fn exactly(k: i128) -> (Num, bool) {
    (Num::Exact(Rational::int(k)), true)
}

/// A CYCLE inside an IF that is itself inside an IF block ends the iteration, so the
/// statements after the outer IF do not run either.
#[test]
fn a_cycle_nested_in_an_if_block_stops_what_follows_the_block() {
    let source = "subroutine s(n)
  implicit none
  integer :: n, i1, c1
  do i1 = 1, n
    if (i1 > 1) then
      if (i1 > 2) cycle
    end if
    c1 = c1 + 1
  end do
end subroutine
";
    for n in 0..=6 {
        // c1 runs for i1 = 1 and 2 only.
        assert_eq!(count_of(source, 4, &[("n", n)]), exactly(n.min(2)), "n={n}");
    }
}

/// Nested affine conditions with more than 64 alternatives together: the statement
/// runs once where neither n nor m is in 1..4.
#[test]
fn many_alternatives_on_a_path_stay_exact() {
    let source = "subroutine s(n, m)
  implicit none
  integer :: n, m, c1
  if (n /= 1 .and. n /= 2 .and. n /= 3 .and. n /= 4) then
    if (m /= 1 .and. m /= 2 .and. m /= 3 .and. m /= 4) then
      c1 = c1 + 1
    end if
  end if
end subroutine
";
    for n in 0..=6 {
        for m in 0..=6 {
            let runs = !(1..=4).contains(&n) && !(1..=4).contains(&m);
            let got = count_of(source, 2, &[("n", n), ("m", m)]);
            assert_eq!(got, exactly(i128::from(runs)), "n={n} m={m}");
        }
    }
}

/// The ELSE of an `.or.` of two affine comparisons is affine too.
#[test]
fn the_else_of_an_or_is_exact() {
    let source = "subroutine s(n)
  implicit none
  integer :: n, c1, c2
  if (n < 0 .or. n == 0) then
    c1 = c1 + 1
  else
    c2 = c2 + 1
  end if
end subroutine
";
    for n in -3..=3 {
        assert_eq!(
            count_of(source, 1, &[("n", n)]),
            exactly(i128::from(n <= 0))
        );
        assert_eq!(
            count_of(source, 2, &[("n", n)]),
            exactly(i128::from(n > 0)),
            "n={n}"
        );
    }
}

/// A banded nest: `i2 <= min(n, i1 + w)` is the two upper bounds `i2 <= n` and
/// `i2 <= i1 + w`, which the symbolic sum handles (P^3T+ splits MIN and MAX bounds).
#[test]
fn banded_min_max_bounds_have_a_formula() {
    let source = "subroutine s(n, w)
  implicit none
  integer :: n, w, i1, i2, c1
  do i1 = 1, n
    do i2 = max(1, i1 - w), min(n, i1 + w)
      c1 = c1 + 1
    end do
  end do
end subroutine
";
    let unit = lower_unit(source).unwrap();
    let freqs = freq::frequencies(&unit, &options());
    let count = freqs.of(statements(&unit)[2].id).unwrap();
    assert_eq!(count.symbolic_error(), None);
}
