//! The implicit remapping at a call (HPF 2.0 section 3.10): where a prescriptive or
//! descriptive dummy's mapping differs from its actual's, the actual is remapped to the
//! dummy's mapping on entry and back on return (not for an INTENT(IN) dummy), each way
//! one message per processor pair that exchanges elements, per execution of the call.

use super::binding::{Actual, ActualMapping, Site, declared_lowers};
use crate::comm::pattern::Pattern;
use crate::comm::placement::Placement;
use crate::comm::records::{Record, RefValues};
use crate::comm::remap::Moved;
use crate::distribution::{DummyMapping, Layout, Mapping, Remap, UnitMappings};
use crate::freq::FreqOptions;
use costline_symbolic::{Env, Sym};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::{Intent, StmtId, Unit};
use std::collections::BTreeMap;

/// The remapping records of a unit's calls and what they say.
#[derive(Debug, Default, PartialEq)]
pub struct CallRemaps {
    pub refs: Vec<(StmtId, RefValues)>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The remappings of call `s` of the procedure `ir` (analysed under `maps` and the
/// constants `env` of the variant the call reaches), from a unit lowered as `caller`:
/// its records and notes added to `out`.
pub fn site_remaps(
    s: &Site,
    ir: &Unit,
    maps: &UnitMappings,
    env: Env,
    caller: &Unit,
    options: &FreqOptions,
    out: &mut CallRemaps,
) {
    let positional = s.actuals.iter().take_while(|a| a.0.is_none()).count();
    for (k, (keyword, a)) in s.actuals.iter().enumerate() {
        let Actual::Array {
            name,
            extents,
            mapping,
        } = a
        else {
            continue;
        };
        let dummy = match keyword {
            Some(kw) => kw.as_str(),
            None if k < positional => match ir.dummies.get(k) {
                Some(d) => d.as_str(),
                None => continue,
            },
            None => continue,
        };
        let kind = maps.dummies.get(dummy).copied();
        let (Some(kind @ (DummyMapping::Prescriptive | DummyMapping::Descriptive)), Some(m)) =
            (kind, maps.arrays.get(dummy))
        else {
            continue;
        };
        let lowers = declared_lowers(ir, dummy, env);
        let lower_syms: Vec<Sym> = lowers.iter().map(|l| Sym::int(*l as i128)).collect();
        let to = Layout::of(m, &lower_syms, env);
        let from = match mapping {
            ActualMapping::Mapped(l) => Some(l.clone()),
            ActualMapping::Replicated => to.as_ref().map(|t| Layout {
                arrangement: t.arrangement.clone(),
                grid: t.grid.clone(),
                dims: Vec::new(),
                lowers: Vec::new(),
            }),
            ActualMapping::Unknown => None,
        };
        let (Some(from), Some(to), Some(extents)) = (from, to, extents) else {
            out.diagnostics.push(Diagnostic::warning(
                s.span,
                "not-modelled",
                format!(
                    "the remapping of `{name}` to the mapping of `{dummy}` in `{}` is not \
                     counted: a size or bound has no value under the bindings",
                    s.callee
                ),
            ));
            continue;
        };
        let replicated = from.dims.is_empty();
        let from = Layout {
            lowers: if from.lowers.is_empty() {
                to.lowers.clone()
            } else {
                from.lowers
            },
            ..from
        };
        // Both layouts as mappings of the dummy (the actual's indices shifted to the
        // dummy's), its box the actual's extents from the dummy's lower bounds.
        let mapping_of = |l: &Layout| l.mapping(dummy, &lowers, s.span);
        let shape: Vec<(Sym, Sym)> = extents
            .iter()
            .enumerate()
            .map(|(d, n)| {
                let lower = lowers.get(d).copied().unwrap_or(1);
                (Sym::int(lower as i128), Sym::int(*n as i128))
            })
            .collect();
        let remap = |from: Option<Mapping>, to: Option<Mapping>| Remap {
            array: name.clone(),
            shape: shape.clone(),
            from,
            to,
        };
        let (written, actual) = (mapping_of(&to), (!replicated).then(|| mapping_of(&from)));
        let entry = remap(actual.clone(), Some(written.clone())).moved(env, options);
        let intent_in = ir
            .symbols
            .get(dummy)
            .is_some_and(|d| d.attrs.intent == Some(Intent::In));
        let back = if intent_in {
            Ok(Moved::new())
        } else {
            remap(Some(written), actual).moved(env, options)
        };
        let (entry, back) = match (entry, back) {
            (Ok(e), Ok(b)) => (e, b),
            (Err(why), _) | (_, Err(why)) => {
                out.diagnostics
                    .push(Diagnostic::warning(s.span, "not-modelled", why));
                continue;
            }
        };
        if entry.values().chain(back.values()).all(|n| *n == 0.0) {
            continue;
        }
        let moved: f64 = entry.values().sum();
        let elem_bytes = crate::comm::element_bytes(caller, name);
        if kind == DummyMapping::Descriptive {
            out.diagnostics.push(Diagnostic::warning(
                s.span,
                "descriptive-mismatch",
                format!(
                    "`{dummy}` of `{}` asserts (descriptive) the mapping {}, but the actual \
                     `{name}` is mapped {}: the assertion does not hold, and the \
                     remapping it needs is counted",
                    s.callee,
                    to.describe(),
                    from.describe()
                ),
            ));
        }
        out.diagnostics.push(Diagnostic::info(
            s.span,
            "call-remap",
            format!(
                "`{name}` is remapped from {} to {} (`{dummy}` of `{}`) on entry{}: \
                 {moved} elements move per call",
                describe_or_replicated(&from),
                to.describe(),
                s.callee,
                if intent_in {
                    " (INTENT(IN): not back on return)"
                } else {
                    " and back on return"
                }
            ),
        ));
        let records = s
            .count
            .ok_or_else(|| "the call's frequency is unknown".to_string())
            .map(|f| records(&entry, &back, f, elem_bytes));
        let processors = from.processors().max(to.processors()).max(1) as usize;
        out.refs.push((
            s.stmt,
            RefValues {
                array: name.clone(),
                reference: format!("{name} -> {dummy} of {}", s.callee),
                span: s.span,
                elem_bytes,
                placement: Placement {
                    kept: 0,
                    hoisted: 0,
                    blocked_by: None,
                },
                indexed_by_kept_loop: false,
                exact: records.is_ok(),
                pattern: match &records {
                    Ok(r) if !r.is_empty() => Pattern::AllToAll,
                    Ok(_) => Pattern::Local,
                    Err(_) => Pattern::Unknown,
                },
                records,
                processors,
                metrics: None,
                remap: true,
                bound: None,
                measured: None,
            },
        ));
    }
}

fn describe_or_replicated(l: &Layout) -> String {
    if l.dims.is_empty() {
        "replicated".to_string()
    } else {
        l.describe()
    }
}

/// The records of a remapping executed `freq` times: each way, one message per pair and
/// execution, `elem_bytes` per element moved; sorted by (from, to).
pub(super) fn records(entry: &Moved, back: &Moved, freq: f64, elem_bytes: u64) -> Vec<Record> {
    let mut all: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
    for (&(from, to), &n) in entry.iter().chain(back) {
        if n <= 0.0 {
            continue;
        }
        let slot = all.entry((from, to)).or_default();
        slot.0 += freq;
        slot.1 += freq * n * elem_bytes as f64;
    }
    all.into_iter()
        .filter(|(_, (m, _))| *m > 0.0)
        .map(|((from, to), (messages, bytes))| Record {
            from,
            to,
            messages,
            bytes,
        })
        .collect()
}
