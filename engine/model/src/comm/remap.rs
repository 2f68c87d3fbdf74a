//! Remapping an array: what moving array A from mapping M1 to mapping M2 sends
//! (REDISTRIBUTE, REALIGN, and the implicit remapping of an actual argument at a call).
//!
//! For every processor pair (s, r): the elements e of A with r ∈ owners₂(e) and
//! r ∉ owners₁(e) — the elements r owns under M2 and did not already own — whose
//! sender s is the lowest-numbered owner of e under M1 (as for every read of a
//! replicated element, [`super`]). Per remapping, s sends r one message holding them
//! (the all-to-all personalized exchange a redistribution is). An array without a
//! mapping is replicated on every processor: remapping from it moves nothing; to it,
//! every processor receives what it did not own.
//!
//! Counting: when no element has several owners under M1, the owner is unique, so
//! count(s, r) for s ≠ r is the number of integer points of the array's index box
//! with M1's ownership constraints for s and M2's for r ([`Mapping::ownership`]),
//! counted by [`Counter`] (a compiled enumeration within its budget, else the
//! symbolic sum in the processors' coordinates). Otherwise every element's owners are
//! enumerated ([`crate::distribution::Layout::owners`]), up to the enumeration
//! limit.

use super::records::{MAX_PAIRS, Record, extents};
use super::sender_coordinate;
use crate::distribution::{Arrangement, Layout, Mapping, Remap};
use crate::freq::FreqOptions;
use crate::freq::counter::Counter;
use crate::freq::numeric;
use costline_symbolic::{Constraint, Env, Name, Num, Sym};
use std::collections::BTreeMap;

/// Elements each sender sends each receiver in one remapping, by (from, to), 1-based.
pub type Moved = BTreeMap<(usize, usize), f64>;

impl Remap {
    /// The elements moved per (sender, receiver) in one remapping, under `env`.
    pub fn moved(&self, env: Env, options: &FreqOptions) -> Result<Moved, String> {
        if self.is_identity() {
            return Ok(Moved::new());
        }
        let (Some(from), Some(senders), Some(receivers)) =
            (&self.from, self.senders(), self.receivers())
        else {
            return Ok(Moved::new());
        };
        let sx = extents(senders, env)?;
        let rx = extents(receivers, env)?;
        let pairs = sx
            .iter()
            .chain(&rx)
            .try_fold(1i128, |a, e| a.checked_mul(*e));
        if pairs.is_none_or(|n| n > MAX_PAIRS) {
            return Err(format!(
                "more than {MAX_PAIRS} processor pairs: records are not listed"
            ));
        }
        if !from.replicated()
            && let Some(moved) = self.separable(from, senders, receivers, &sx, &rx, env, options)
        {
            return Ok(moved);
        }
        self.enumerate(from, &rx, env, options)
    }

    /// The records of `times` remappings of elements of `elem_bytes` bytes: per pair
    /// that exchanges anything, `times` messages.
    pub fn records(
        &self,
        elem_bytes: u64,
        times: f64,
        env: Env,
        options: &FreqOptions,
    ) -> Result<Vec<Record>, String> {
        Ok(self
            .moved(env, options)?
            .into_iter()
            .filter(|(_, n)| *n > 0.0 && times > 0.0)
            .map(|((from, to), n)| Record {
                from,
                to,
                messages: times,
                bytes: times * n * elem_bytes as f64,
            })
            .collect())
    }

    /// Index variables `$e1, $e2, ...` and the box of the declared bounds.
    fn index_box(&self) -> Option<(Vec<Name>, Vec<Sym>, Vec<Constraint>)> {
        let names: Vec<Name> = (1..=self.shape.len())
            .map(|d| format!("$e{d}").as_str().into())
            .collect();
        let subscripts: Vec<Sym> = names.iter().map(|n| Sym::var(n)).collect();
        let mut cons = Vec::new();
        for (x, (lower, extent)) in subscripts.iter().zip(&self.shape) {
            cons.push(Constraint::ge(x, lower).ok()?);
            let upper = lower.add(extent).ok()?.add_int(-1).ok()?;
            cons.push(Constraint::le(x, &upper).ok()?);
        }
        Some((names, subscripts, cons))
    }

    /// The count per pair from the constraints (unique owners under M1); `None` when
    /// a constraint cannot be formed or counted.
    #[allow(clippy::too_many_arguments)]
    fn separable(
        &self,
        from: &Mapping,
        senders: &Arrangement,
        receivers: &Arrangement,
        sx: &[i128],
        rx: &[i128],
        env: Env,
        options: &FreqOptions,
    ) -> Option<Moved> {
        let (mut vars, subscripts, mut cons) = self.index_box()?;
        // The sender's ownership, its coordinates `$s...` and cycle numbers `$r...`.
        let own1 = from.ownership(&subscripts).ok()?;
        let mut renames: Vec<(Name, Sym)> = (0..senders.extents.len())
            .map(|k| {
                (
                    senders.coordinate(k),
                    Sym::var(&sender_coordinate(senders, k)),
                )
            })
            .collect();
        let sender_aux: Vec<Name> = own1
            .aux
            .iter()
            .map(|q| q.replace("$q", "$r").as_str().into())
            .collect();
        renames.extend(
            own1.aux
                .iter()
                .zip(&sender_aux)
                .map(|(q, r)| (q.clone(), Sym::var(r))),
        );
        for c in &own1.constraints {
            let c = renames
                .iter()
                .try_fold(c.clone(), |c, (from, to)| c.subst(from, to))
                .ok()?;
            cons.push(c);
        }
        vars.extend(sender_aux);
        // The receiver's ownership under M2 (none: it receives every element).
        if let Some(to) = &self.to {
            let own2 = to.ownership(&subscripts).ok()?;
            cons.extend(own2.constraints);
            vars.extend(own2.aux);
        }
        let cons = numeric::bind(&cons, &|n: &Name| n.starts_with('$'), env).ok()?;
        let rc: Vec<Name> = (0..receivers.extents.len())
            .map(|k| receivers.coordinate(k))
            .collect();
        let sc: Vec<Name> = (0..senders.extents.len())
            .map(|k| sender_coordinate(senders, k))
            .collect();
        let params: Vec<Name> = rc.iter().chain(&sc).cloned().collect();
        let (rp, sp): (i128, i128) = (rx.iter().product(), sx.iter().product());
        if rp.saturating_mul(sp) > super::MAX_PAIRS {
            return None;
        }
        let mut counter = Counter::new(cons, &vars, &params, (rp * sp) as usize, options);
        let mut moved = Moved::new();
        for r in 1..=rp {
            let rv = Arrangement::coordinates(rx, r);
            for s in 1..=sp {
                costline_symbolic::interrupt::point();
                if s == r {
                    continue;
                }
                let sv = Arrangement::coordinates(sx, s);
                let at: Vec<i128> = rv.iter().chain(&sv).map(|c| c + 1).collect();
                let n = counter.at(&at)?;
                if n > 0.0 {
                    moved.insert((s as usize, r as usize), n);
                }
            }
        }
        Some(moved)
    }

    /// Element by element: every element's owners under both mappings.
    fn enumerate(
        &self,
        from: &Mapping,
        rx: &[i128],
        env: Env,
        options: &FreqOptions,
    ) -> Result<Moved, String> {
        let value = |e: &Sym| match e.eval(env) {
            Ok(Num::Exact(r)) => r.as_integer(),
            _ => None,
        };
        let bounds: Vec<(i128, i128)> = self
            .shape
            .iter()
            .map(|(l, e)| Some((value(l)?, value(e)?)))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("the extents of `{}` need values", self.array))?;
        let elements = bounds
            .iter()
            .try_fold(1i128, |a, (_, e)| a.checked_mul((*e).max(0)));
        if elements.is_none_or(|n| n > options.max_enumeration as i128) {
            return Err(format!(
                "more than {} elements to enumerate (the limit of the element-by-element count)",
                options.max_enumeration
            ));
        }
        let unbound = |_| format!("the mappings of `{}` need values", self.array);
        let v1 = Layout::of(from, &[], env).ok_or_else(|| unbound(()))?;
        let v2 = match &self.to {
            Some(m) => Some(Layout::of(m, &[], env).ok_or_else(|| unbound(()))?),
            None => None,
        };
        let everyone: Vec<usize> = (1..=rx.iter().product::<i128>() as usize).collect();
        let mut moved = Moved::new();
        let mut index: Vec<i128> = bounds.iter().map(|(l, _)| *l).collect();
        if bounds.iter().any(|(_, e)| *e <= 0) {
            return Ok(moved);
        }
        loop {
            let owners1 = v1
                .owners(&index)
                .ok_or_else(|| format!("element {index:?} of `{}` has no owner", self.array))?;
            let owners2 = match &v2 {
                Some(v) => v
                    .owners(&index)
                    .ok_or_else(|| format!("element {index:?} of `{}` has no owner", self.array))?,
                None => everyone.iter().copied().collect(),
            };
            if let Some(&sender) = owners1.first() {
                for r in owners2.iter().filter(|r| !owners1.contains(r)) {
                    *moved.entry((sender, *r)).or_default() += 1.0;
                }
            }
            // The next index, first dimension fastest.
            let mut d = 0;
            loop {
                if d == index.len() {
                    return Ok(moved);
                }
                index[d] += 1;
                if index[d] < bounds[d].0 + bounds[d].1 {
                    break;
                }
                index[d] = bounds[d].0;
                d += 1;
            }
        }
    }
}
