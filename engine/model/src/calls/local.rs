//! What a call hands an `EXTRINSIC(HPF_LOCAL)` procedure: each processor runs it on its
//! own part of the actual arrays (HPF 2.0 Annex A), so the procedure's dummies are bound
//! to the extents of that part, one binding per shape of the parts.

use super::binding::{ActualMapping, Binding};
use crate::freq::convert::size_key;

/// Different shapes of the processors' parts beyond this many are not analysed each.
pub const MAX_LOCAL_PARTS: usize = 16;

/// The processors whose parts of a call's actual arrays have the same extents, and
/// what that binds an `EXTRINSIC(HPF_LOCAL)` procedure's dummies to: each array dummy
/// the part's extents (assumed-shape `SIZE`s included), not mapped; integers as passed.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalPart {
    /// 1-based, ascending.
    pub processors: Vec<usize>,
    pub binding: Binding,
}

impl LocalPart {
    /// The part with the most elements over all its arrays (the first on ties).
    pub fn heaviest(parts: &[LocalPart]) -> &LocalPart {
        let size = |p: &LocalPart| -> i64 {
            p.binding
                .arrays
                .iter()
                .filter_map(|a| a.1.as_ref())
                .map(|e| e.iter().product::<i64>())
                .sum()
        };
        parts
            .iter()
            .reduce(|best, p| if size(p) > size(best) { p } else { best })
            .expect("a call has at least one part")
    }

    /// The part's arrays as a reader writes them, e.g. `x: 16×4, y: 16`.
    pub fn describe(&self) -> String {
        let arrays: Vec<String> = self
            .binding
            .arrays
            .iter()
            .map(|(name, extents, _)| match extents {
                Some(e) => {
                    let e: Vec<String> = e.iter().map(i64::to_string).collect();
                    format!("`{name}` {}", e.join("×"))
                }
                None => format!("`{name}` of unknown extents"),
            })
            .collect();
        if arrays.is_empty() {
            "no array".to_string()
        } else {
            arrays.join(", ")
        }
    }
}

/// The parts a call binding `global` hands an `EXTRINSIC(HPF_LOCAL)` procedure, one
/// per shape, in order of their first processor. The processors are those of the
/// largest grid an actual is mapped onto (one beyond an actual's grid holds none of
/// it); an actual that is not mapped is whole on every processor; with no mapped actual
/// the one part is processor 1's (every processor runs the same).
pub fn local_parts(global: &Binding) -> Result<Vec<LocalPart>, String> {
    let mut per_array: Vec<Option<Vec<Vec<i64>>>> = Vec::new();
    let mut processors = 1;
    for (name, extents, mapping) in &global.arrays {
        per_array.push(match (mapping, extents) {
            (ActualMapping::Mapped(l), Some(e)) => {
                processors = processors.max(l.processors().max(1) as usize);
                Some(
                    crate::distribution::local_extents(e, l)
                        .map_err(|why| format!("`{name}`: {why}"))?,
                )
            }
            (ActualMapping::Unknown, _) => {
                return Err(format!("`{name}`'s mapping has no values"));
            }
            _ => None,
        });
    }
    // Per shape (each array's part extents, `None` when unknown): its processors.
    type Shape = Vec<Option<Vec<i64>>>;
    let mut shapes: Vec<(Shape, Vec<usize>)> = Vec::new();
    for p in 1..=processors {
        costline_symbolic::interrupt::point();
        let shape: Shape = global
            .arrays
            .iter()
            .zip(&per_array)
            .map(|((_, extents, _), parts)| match parts {
                Some(parts) => Some(
                    parts
                        .get(p - 1)
                        .cloned()
                        .unwrap_or_else(|| vec![0; parts.first().map_or(0, Vec::len)]),
                ),
                None => extents.clone(),
            })
            .collect();
        let full = shapes.len() == MAX_LOCAL_PARTS;
        match shapes.iter_mut().find(|s| s.0 == shape) {
            Some(s) => s.1.push(p),
            None if full => {
                return Err(format!(
                    "the parts have more than {MAX_LOCAL_PARTS} different shapes"
                ));
            }
            None => shapes.push((shape, vec![p])),
        }
    }
    Ok(shapes
        .into_iter()
        .map(|(shape, processors)| {
            let mut binding = Binding {
                values: global.values.clone(),
                arrays: Vec::new(),
            };
            for ((name, _, _), extents) in global.arrays.iter().zip(shape) {
                for (k, n) in extents.iter().flatten().enumerate() {
                    let size = size_key(name, k);
                    if let Some(v) = binding.values.iter_mut().find(|v| v.0 == size) {
                        v.1 = *n;
                    }
                }
                binding
                    .arrays
                    .push((name.clone(), extents, ActualMapping::Replicated));
            }
            LocalPart {
                processors,
                binding,
            }
        })
        .collect())
}
