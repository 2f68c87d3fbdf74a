//! Reductions over distributed data (SUM, PRODUCT, MAXVAL, MINVAL, MAXLOC, MINLOC,
//! DOT_PRODUCT, COUNT, ANY, ALL, NORM2), as HPF compilers implement them: every
//! processor reduces the elements it owns, then the partial results are combined up a
//! binomial tree to the first processor and the result goes back down the same tree
//! to every processor (an all-reduce, `MPI_Allreduce`'s reduce-then-broadcast
//! algorithm): 2(P − 1) messages of one result each, 2⌈log2 P⌉ rounds on the critical
//! path.
//!
//! Placement follows the element fetches ([`super::placement`]): the reduction is
//! hoisted out of loops that do not write its array; when the argument depends on a
//! loop it was hoisted out of (`r(i) = sum(a(i, :))` in a loop over `i`), the
//! reductions of all its iterations travel together, one vector of results per
//! message.

use super::records::Record;
use crate::distribution::Arrangement;
use costline_syntax::ir::{Call, Expr, StmtId};

/// A reduction the statement performs over a distributed array.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The intrinsic, lower-case.
    pub op: String,
    /// The processors holding partial results: those the array is distributed onto.
    pub participants: Arrangement,
    /// The statement (its frequency counts the reductions).
    pub stmt: StmtId,
    /// The innermost loop the reduction stays inside (its iterations are the instances),
    /// or none: one instance per run of the unit.
    pub kept_loop: Option<StmtId>,
    /// Whether the argument depends on a loop the reduction was hoisted out of (the
    /// results of its iterations are combined as one vector).
    pub vectorized: bool,
    /// Whether some hoisted loop does not occur in the argument (its iterations repeat
    /// the same reduction: the vector length is then an upper bound).
    pub repeated: bool,
}

/// Whether `name` is a reduction intrinsic.
pub fn is_reduction(name: &str) -> bool {
    matches!(
        name,
        "sum"
            | "product"
            | "maxval"
            | "minval"
            | "maxloc"
            | "minloc"
            | "dot_product"
            | "count"
            | "any"
            | "all"
            | "norm2"
    )
}

/// The reduction calls in `e`, outermost first (not those nested in another's
/// arguments: they reduce locally data the outer one then combines).
pub fn calls(e: &Expr) -> Vec<&Call> {
    let mut out = Vec::new();
    fn go<'a>(e: &'a Expr, out: &mut Vec<&'a Call>) {
        match e {
            Expr::Call(c) if is_reduction(&c.name) => out.push(c),
            Expr::Call(c) => c.args.iter().for_each(|a| go(&a.value, out)),
            Expr::Array(a) => a.subscripts.iter().for_each(|s| {
                if let costline_syntax::ir::Subscript::Index(x) = s {
                    go(x, out)
                }
            }),
            Expr::Unary(_, x) => go(x, out),
            Expr::Binary(_, a, b) => {
                go(a, out);
                go(b, out);
            }
            _ => {}
        }
    }
    go(e, &mut out);
    out
}

/// The DIM argument of a reduction, if it has one: by keyword, or the second
/// positional argument when it is an integer constant (`sum(a, 1)`; `sum(a, mask)`
/// has a logical second argument).
pub fn dim(c: &Call) -> Option<&Expr> {
    c.args
        .iter()
        .find(|a| a.keyword.as_deref() == Some("dim"))
        .or_else(|| {
            c.args
                .get(1)
                .filter(|a| a.keyword.is_none() && a.value.as_int().is_some())
        })
        .map(|a| &a.value)
        .filter(|_| c.name != "dot_product")
}

/// The bytes of one result of `op` over elements of `elem` bytes in an array of
/// `rank` dimensions: the value; MAXLOC/MINLOC carry the value and its location
/// (default integers); COUNT, ANY and ALL a default integer or logical.
pub fn result_bytes(op: &str, elem: u64, rank: usize) -> u64 {
    match op {
        "maxloc" | "minloc" => elem + 4 * rank as u64,
        "count" | "any" | "all" => 4,
        _ => elem,
    }
}

/// The records of `instances` all-reduces of `bytes` each among `p` processors
/// (1-based, in arrangement order): up a binomial tree to processor 1 and back down.
pub fn tree_records(p: usize, instances: f64, bytes: f64) -> Vec<Record> {
    let mut out = Vec::with_capacity(2 * p.saturating_sub(1));
    let mut step = 1;
    while step < p {
        for child in (step..p).step_by(2 * step) {
            let parent = child - step;
            out.push(Record {
                from: child + 1,
                to: parent + 1,
                messages: instances,
                bytes: instances * bytes,
            });
            out.push(Record {
                from: parent + 1,
                to: child + 1,
                messages: instances,
                bytes: instances * bytes,
            });
        }
        step *= 2;
    }
    out.sort_by_key(|r| (r.from, r.to));
    out
}

/// Rounds on the critical path of an all-reduce among `p` processors: ⌈log2 p⌉ up and
/// as many down.
pub fn rounds(p: usize) -> f64 {
    2.0 * (p as f64).log2().ceil()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_tree_has_two_messages_per_non_root() {
        for p in 1..=17 {
            let rs = tree_records(p, 3.0, 8.0);
            assert_eq!(rs.len(), 2 * (p - 1), "p = {p}");
            // Every processor but the first sends exactly one partial result up.
            let mut up: Vec<usize> = rs
                .iter()
                .filter(|r| r.from > r.to)
                .map(|r| r.from)
                .collect();
            up.sort();
            assert_eq!(up, (2..=p).collect::<Vec<_>>());
            assert!(rs.iter().all(|r| r.messages == 3.0 && r.bytes == 24.0));
        }
        let rs = tree_records(4, 1.0, 8.0);
        let pairs: Vec<(usize, usize)> = rs.iter().map(|r| (r.from, r.to)).collect();
        assert_eq!(
            pairs,
            [(1, 2), (1, 3), (2, 1), (3, 1), (3, 4), (4, 3)],
            "4 → 3 and 2 → 1 in round one, 3 → 1 in round two"
        );
        assert_eq!(rounds(4), 4.0);
        assert_eq!(rounds(5), 6.0);
        assert_eq!(rounds(1), 0.0);
    }

    #[test]
    fn dim_arguments() {
        let call = |args: Vec<(Option<&str>, Expr)>| Call {
            name: "sum".into(),
            args: args
                .into_iter()
                .map(|(k, value)| costline_syntax::ir::Arg {
                    keyword: k.map(Into::into),
                    value,
                })
                .collect(),
            span: Default::default(),
        };
        let a = Expr::name("a");
        assert!(dim(&call(vec![(None, a.clone())])).is_none());
        assert!(dim(&call(vec![(None, a.clone()), (None, Expr::Int(2))])).is_some());
        assert!(
            dim(&call(vec![
                (None, a.clone()),
                (Some("dim"), Expr::name("k"))
            ]))
            .is_some()
        );
        assert!(dim(&call(vec![(None, a.clone()), (None, Expr::name("m"))])).is_none());
    }
}
