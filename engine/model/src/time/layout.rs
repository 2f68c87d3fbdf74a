//! How an array is laid out on one processor: the local block of a distributed
//! dimension.

use crate::distribution::{TemplateIndex, UnitMappings};
use costline_symbolic::{Env, Num};

/// The processors dimension `d` (0-based) of `array` is divided over: the extent of the
/// grid dimension of each template dimension it is aligned with and that is distributed
/// (1 when it is not distributed or the extent has no value).
pub fn dim_divisor(maps: &UnitMappings, array: &str, d: usize, env: Env) -> i64 {
    let Some(m) = maps.arrays.get(array) else {
        return 1;
    };
    let mut divisor = 1i64;
    for (t, index) in m.index.iter().enumerate() {
        let (TemplateIndex::Affine { dim, .. }, Some(dist)) = (index, m.distribution.dims.get(t))
        else {
            continue;
        };
        let Some(g) = dist.grid.filter(|_| *dim == d) else {
            continue;
        };
        if let Some(Ok(Num::Exact(r))) = m.distribution.onto.extents.get(g).map(|e| e.eval(env))
            && let Some(p) = r.as_integer().filter(|p| *p >= 1)
        {
            divisor = divisor.saturating_mul(i64::try_from(p).unwrap_or(i64::MAX));
        }
    }
    divisor
}
