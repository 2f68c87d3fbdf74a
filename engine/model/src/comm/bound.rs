//! An upper bound on the communication of a read whose element cannot be followed: an
//! irregular gather `z(colidx(k))`, a subscript that depends on data. The processors
//! that execute the statement are known (owner computes on the left-hand side), the
//! element each reads is not. Every processor owning part of the array may hold an
//! element a reader needs, so each other owner q sends each reader p one message per
//! instance of the fetch (the iterations of the loop it stays in, or one per run):
//! an upper bound on the messages of every pair. Each execution reads one element, so
//! p receives at most r_p = work(S, p) elements in all, and from q at most the n_q
//! elements q owns per instance: p receives at most min(r_p, Σ_q instances·n_q)
//! elements. The records split that total among p's senders as evenly as their caps
//! allow (water-filling: no pair above instances·n_q); how the data really divides it
//! is unknown.

use super::records::{MAX_PAIRS, Record, extents};
use crate::distribution::{Layout, Mapping, exact_int, local_extents};
use crate::freq::FreqOptions;
use crate::work::{Spread, StmtWork, load};
use costline_symbolic::{Env, Sym};
use costline_syntax::ir::StmtId;

/// The read of an element the analysis cannot follow, bounded from the owner sets.
#[derive(Clone, Debug)]
pub struct GatherBound {
    /// Why the element read is unknown.
    pub why: String,
    /// Who executes the statement how often: one read per execution.
    pub work: StmtWork,
    /// The mapping of the array read: its owners are the senders.
    pub mapping: Mapping,
    /// The array's declared (lower bound, extent) per dimension, when known.
    pub shape: Option<Vec<(Sym, Sym)>>,
    pub stmt: StmtId,
    /// The loop the fetch stays inside, if any: one instance per iteration.
    pub kept_loop: Option<StmtId>,
}

impl GatherBound {
    /// The bound's records per run of the unit: for every reader p with reads r_p =
    /// work(S, p) > 0 and every other processor q of the senders, `instances` messages
    /// and q's share of min(r_p, Σ_q instances·n_q) elements ([`water_fill`]).
    pub fn records(
        &self,
        elem_bytes: u64,
        freq: &dyn Fn(StmtId) -> Option<f64>,
        env: Env,
        options: &FreqOptions,
    ) -> Result<Vec<Record>, String> {
        let runs = freq(self.stmt).ok_or("its frequency is unknown")?;
        let senders: i128 = extents(&self.mapping.distribution.onto, env)?
            .iter()
            .product();
        if senders > MAX_PAIRS {
            return Err(format!(
                "more than {MAX_PAIRS} processors: records are not listed"
            ));
        }
        let senders = senders as usize;
        let reads: Vec<f64> = match load(&self.work, Some(runs), env, options) {
            Some(l) => l.per_processor().to_vec(),
            None if matches!(self.work.spread, Spread::Replicated) => vec![runs; senders],
            None => return Err("the work of its statement has no values".to_string()),
        };
        let instances = match self.kept_loop {
            Some(l) => freq(l).ok_or("its loop's frequency is unknown")?.min(runs),
            None => runs.min(1.0),
        };
        if instances <= 0.0 {
            return Ok(Vec::new());
        }
        // What each sender can send per run: all it owns, once per instance.
        let owned = self.owned(env);
        let cap = |q: usize| {
            owned
                .as_ref()
                .map_or(f64::INFINITY, |o| instances * o[q - 1])
        };
        let mut out = Vec::new();
        for (p, &r) in reads.iter().enumerate() {
            let to = p + 1;
            if r <= 0.0 {
                continue;
            }
            let from: Vec<usize> = (1..=senders).filter(|&q| q != to && cap(q) > 0.0).collect();
            let caps: Vec<f64> = from.iter().map(|&q| cap(q)).collect();
            for (q, elements) in from.iter().zip(water_fill(r, &caps)) {
                out.push(Record {
                    from: *q,
                    to,
                    messages: instances,
                    bytes: elements * elem_bytes as f64,
                });
            }
        }
        out.sort_by_key(|r| (r.from, r.to));
        Ok(out)
    }

    /// The number of elements each processor of the senders owns, when the array's
    /// shape and mapping have values.
    fn owned(&self, env: Env) -> Option<Vec<f64>> {
        let shape = self.shape.as_ref()?;
        let lowers: Vec<Sym> = shape.iter().map(|(l, _)| l.clone()).collect();
        let extents: Vec<i64> = shape
            .iter()
            .map(|(_, e)| exact_int(e, env).filter(|e| *e >= 0))
            .collect::<Option<_>>()?;
        let layout = Layout::of(&self.mapping, &lowers, env)?;
        let parts = local_extents(&extents, &layout).ok()?;
        Some(
            parts
                .iter()
                .map(|d| d.iter().product::<i64>() as f64)
                .collect(),
        )
    }
}

/// `total` split among receivers with caps `caps`, as evenly as the caps allow: the
/// smallest caps filled first, the rest shared equally by the others. The shares sum
/// to min(total, Σ caps) and none passes its cap.
fn water_fill(total: f64, caps: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..caps.len()).collect();
    order.sort_by(|&a, &b| caps[a].total_cmp(&caps[b]));
    let mut shares = vec![0.0; caps.len()];
    let mut left = total;
    for (k, &i) in order.iter().enumerate() {
        let even = left / (order.len() - k) as f64;
        shares[i] = even.min(caps[i]);
        left -= shares[i];
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::water_fill;

    #[test]
    fn water_filling_shares_evenly_under_the_caps() {
        assert_eq!(water_fill(9.0, &[10.0, 10.0, 10.0]), vec![3.0, 3.0, 3.0]);
        assert_eq!(water_fill(9.0, &[1.0, 10.0, 10.0]), vec![1.0, 4.0, 4.0]);
        assert_eq!(water_fill(100.0, &[1.0, 2.0, 3.0]), vec![1.0, 2.0, 3.0]);
        assert_eq!(water_fill(5.0, &[]), Vec::<f64>::new());
    }
}
