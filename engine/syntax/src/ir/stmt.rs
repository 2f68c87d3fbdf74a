//! Executable statements. Array syntax, FORALL and WHERE are already normalized into
//! loop nests over elemental assignments (as the HPF/Fortran 90D interpreter does),
//! each synthetic loop keeping the source range of the construct it came from.

use super::expr::{Call, Expr};
use crate::span::Span;

/// Index of a statement in its unit, in pre-order (parents before children). Stable
/// for a given unit text; later analyses key their results by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub u32);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stmt {
    pub id: StmtId,
    pub span: Span,
    /// The statement label, when it has one.
    pub label: Option<u32>,
    pub kind: StmtKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StmtKind {
    /// `lhs = rhs`; after normalization `lhs` is a scalar name or an array element.
    Assign {
        lhs: Expr,
        rhs: Expr,
    },
    Loop(Loop),
    If(If),
    Select(Select),
    /// `CALL name(args)`, including the MPI library's `MPI_*` routines.
    Call(Call),
    /// `GO TO l`, computed `GO TO (l1, l2, ...), e` and assigned `GO TO v`.
    Goto {
        targets: Vec<u32>,
        selector: Option<Expr>,
    },
    /// `IF (e) l1, l2, l3`.
    ArithmeticIf {
        expr: Expr,
        targets: Vec<u32>,
    },
    Exit {
        construct: Option<String>,
    },
    Cycle {
        construct: Option<String>,
    },
    Return,
    Stop,
    Continue,
    /// `!HPF$ REDISTRIBUTE` or `!HPF$ REALIGN`: an executable remapping, placed where
    /// the directive stands among the statements; `directive` indexes
    /// [`super::Unit::directives`].
    Remap {
        directive: usize,
    },
    /// An executable statement the analyses treat as opaque work: I/O, ALLOCATE, ...
    Other {
        what: String,
        /// What it sets at run time: a READ's input items, an I/O statement's
        /// IOSTAT=, IOMSG= and SIZE= variables.
        writes: Vec<Written>,
    },
}

/// A variable a statement sets to a value known only at run time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Written {
    Scalar(String),
    /// One element of an array, at constant subscripts.
    Element(String, Vec<i64>),
    /// Elements of an array that are not known: an implied DO, a variable subscript,
    /// the whole array.
    Array(String),
}

impl Written {
    /// The variable's name (the array's for an element).
    pub fn name(&self) -> &str {
        match self {
            Written::Scalar(n) | Written::Element(n, _) | Written::Array(n) => n,
        }
    }
}

/// Where a loop came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopOrigin {
    Do,
    Forall,
    /// Scalarization of an array assignment (`a(2:n) = b(1:n-1)`).
    ArraySyntax,
    Where,
}

impl LoopOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            LoopOrigin::Do => "do",
            LoopOrigin::Forall => "forall",
            LoopOrigin::ArraySyntax => "array",
            LoopOrigin::Where => "where",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LoopControl {
    /// `var = lower, upper [, step]`.
    Counted {
        var: String,
        lower: Expr,
        upper: Expr,
        step: Option<Expr>,
    },
    /// `DO WHILE (cond)`.
    While(Expr),
    /// `DO` without control: runs until an EXIT, GOTO or RETURN.
    Forever,
}

impl LoopControl {
    /// The expressions the control evaluates: the bounds and step, or the condition.
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            LoopControl::Counted {
                lower, upper, step, ..
            } => [Some(lower), Some(upper), step.as_ref()]
                .into_iter()
                .flatten()
                .collect(),
            LoopControl::While(e) => vec![e],
            LoopControl::Forever => Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loop {
    pub origin: LoopOrigin,
    pub control: LoopControl,
    pub body: Vec<Stmt>,
    /// The construct name (`outer: do ...`), lower-case.
    pub construct: Option<String>,
    /// Set by a preceding `!HPF$ INDEPENDENT`.
    pub independent: Option<Independent>,
    /// The loop header (for a synthetic loop: the construct it came from).
    pub header: Span,
}

impl Loop {
    pub fn var(&self) -> Option<&str> {
        match &self.control {
            LoopControl::Counted { var, .. } => Some(var),
            _ => None,
        }
    }
}

/// The INDEPENDENT assertion on a loop: its iterations may run in any order, with the
/// NEW variables private to each iteration and the REDUCTION variables combined.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Independent {
    pub new: Vec<String>,
    pub reduction: Vec<String>,
}

/// IF / ELSE IF / ELSE, and the logical IF statement (one branch).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct If {
    pub branches: Vec<Branch>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Branch {
    /// `None` for ELSE.
    pub cond: Option<Expr>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Select {
    pub selector: Expr,
    pub cases: Vec<Case>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Case {
    /// `None` for CASE DEFAULT.
    pub values: Option<Vec<CaseValue>>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CaseValue {
    Value(Expr),
    /// `lo:hi`, either end optional.
    Range(Option<Expr>, Option<Expr>),
}

impl Stmt {
    /// The statements directly nested in this one: a loop's body, each branch's or
    /// case's body in order. Allocates nothing (every walk of a unit calls it per
    /// statement).
    pub fn children(&self) -> impl Iterator<Item = &Stmt> + Clone + '_ {
        let (body, branches, cases): (&[Stmt], &[Branch], &[Case]) = match &self.kind {
            StmtKind::Loop(l) => (&l.body, &[], &[]),
            StmtKind::If(i) => (&[], &i.branches, &[]),
            StmtKind::Select(s) => (&[], &[], &s.cases),
            _ => (&[], &[], &[]),
        };
        body.iter()
            .chain(branches.iter().flat_map(|b| b.body.iter()))
            .chain(cases.iter().flat_map(|c| c.body.iter()))
    }
}

/// Visits `stmts` and everything nested in them in pre-order, with the number of
/// enclosing loops (the P^3T+ nesting level).
pub fn walk<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt, usize)) {
    fn go<'a>(stmts: &'a [Stmt], depth: usize, f: &mut dyn FnMut(&'a Stmt, usize)) {
        for s in stmts {
            f(s, depth);
            match &s.kind {
                StmtKind::Loop(l) => go(&l.body, depth + 1, f),
                StmtKind::If(i) => i.branches.iter().for_each(|b| go(&b.body, depth, f)),
                StmtKind::Select(c) => c.cases.iter().for_each(|c| go(&c.body, depth, f)),
                _ => {}
            }
        }
    }
    go(stmts, 0, f);
}

/// The loops enclosing statement `id` in `stmts`, outermost first; `None` when `id` is
/// not among them.
pub fn enclosing_loops(stmts: &[Stmt], id: StmtId) -> Option<Vec<&Loop>> {
    // Statements are numbered in pre-order: the one holding `id` is the last that
    // starts at or before it.
    let s = &stmts[stmts.partition_point(|s| s.id <= id).checked_sub(1)?];
    if s.id == id {
        return Some(Vec::new());
    }
    match &s.kind {
        StmtKind::Loop(l) => enclosing_loops(&l.body, id).map(|mut v| {
            v.insert(0, l);
            v
        }),
        StmtKind::If(i) => {
            enclosing_loops(holding(i.branches.iter().map(|b| &b.body[..]), id)?, id)
        }
        StmtKind::Select(sel) => {
            enclosing_loops(holding(sel.cases.iter().map(|c| &c.body[..]), id)?, id)
        }
        _ => None,
    }
}

/// Of consecutive blocks (the branches of an IF, the cases of a SELECT: numbered in
/// pre-order, so in increasing order), the one that can hold statement `id`: the last
/// non-empty one starting at or before it. One block searched, not every one before it
/// (an IF of hundreds of ELSE IFs made a walk over its statements quadratic).
fn holding<'a>(
    blocks: impl DoubleEndedIterator<Item = &'a [Stmt]>,
    id: StmtId,
) -> Option<&'a [Stmt]> {
    blocks.rev().find(|b| b.first().is_some_and(|s| s.id <= id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::UnitKind;
    use crate::lower::{ParsedUnit, Scope, lower};

    /// Every statement's enclosing loops, found by descending from the top with a stack
    /// of the loops entered (the oracle for [`enclosing_loops`]).
    fn by_descent<'a>(
        stmts: &'a [Stmt],
        open: &mut Vec<&'a Loop>,
        out: &mut Vec<(StmtId, Vec<Span>)>,
    ) {
        for s in stmts {
            out.push((s.id, open.iter().map(|l| l.header).collect()));
            if let StmtKind::Loop(l) = &s.kind {
                open.push(l);
                by_descent(&l.body, open, out);
                open.pop();
            } else {
                for c in s.children() {
                    by_descent(std::slice::from_ref(c), open, out);
                }
            }
        }
    }

    #[test]
    fn enclosing_loops_agree_with_a_descent_through_branches_and_cases() {
        let mut text = String::from("subroutine s(n, k, a)\n  integer n, k, i, j\n  real a(n)\n");
        text += "  do i = 1, n\n    if (k == 0) then\n      a(i) = 0\n";
        for b in 1..40 {
            text += &format!("    else if (k == {b}) then\n");
            if b % 3 == 0 {
                text += "    else if (k > 1000) then\n";
            }
            text += &format!("      do j = 1, {b}\n        a(j) = a(j) + {b}\n      end do\n");
            text += &format!("      a(i) = {b}\n");
        }
        text += "    end if\n    select case (k)\n";
        for c in 1..30 {
            text += &format!("    case ({c})\n");
            if c % 4 != 0 {
                text += &format!("      do j = 1, {c}\n        a(j) = {c}\n      end do\n");
            }
        }
        text += "    case default\n      a(i) = 1\n    end select\n    a(i) = a(i) + 1\n  end do\nend subroutine s\n";
        let parsed = ParsedUnit::parse(UnitKind::Subroutine, "s".into(), text);
        let unit = lower(&parsed, None, &Scope::default());
        let mut expected = Vec::new();
        by_descent(&unit.body, &mut Vec::new(), &mut expected);
        assert!(expected.len() > 150, "{} statements", expected.len());
        for (id, loops) in expected {
            let found = enclosing_loops(&unit.body, id).expect("every statement is found");
            let found: Vec<Span> = found.iter().map(|l| l.header).collect();
            assert_eq!(found, loops, "statement {id:?}");
        }
        assert_eq!(enclosing_loops(&unit.body, StmtId(1_000_000)), None);
    }
}
