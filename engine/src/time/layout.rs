//! How much of an array one processor holds: the working set the memory model places in
//! a cache level.

use crate::comm::element_bytes;
use crate::distribution::{TemplateIndex, UnitMappings};
use crate::ir::consteval::eval_int;
use crate::ir::{Bound, Unit};
use crate::symbolic::{Env, Num};

/// Bytes of `array` on one processor: Π (upper − lower + 1) over its declared dimensions
/// × its element size, divided, for each template dimension it is distributed along,
/// by the processors of that grid dimension (a block of the array; the largest one is
/// ⌈n/P⌉, within one element per dimension). `None` when a bound has no value.
pub fn array_local_bytes(unit: &Unit, maps: &UnitMappings, array: &str, env: Env) -> Option<f64> {
    let sym = unit.symbols.get(array)?;
    let lookup = |n: &str| env(n).and_then(|v| i64::try_from(v).ok());
    let mut elements = 1.0;
    for d in sym.dims.as_ref()? {
        let Bound::Explicit(upper) = &d.upper else {
            return None;
        };
        let lower = d.lower.as_ref().map_or(Some(1), |l| eval_int(l, &lookup))?;
        let upper = eval_int(upper, &lookup)?;
        elements *= (upper - lower + 1).max(0) as f64;
    }
    let mut divisor = 1.0;
    if let Some(m) = maps.arrays.get(array) {
        for (t, index) in m.index.iter().enumerate() {
            let (TemplateIndex::Affine { .. }, Some(dim)) = (index, m.distribution.dims.get(t))
            else {
                continue;
            };
            let Some(g) = dim.grid else { continue };
            if let Some(Ok(Num::Exact(r))) = m.distribution.onto.extents.get(g).map(|e| e.eval(env))
                && let Some(p) = r.as_integer().filter(|p| *p >= 1)
            {
                divisor *= p as f64;
            }
        }
    }
    Some(elements * element_bytes(unit, array) as f64 / divisor)
}
