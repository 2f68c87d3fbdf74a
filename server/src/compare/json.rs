//! `compare --format json`: the same content as the text report, for scripts — per
//! compared DISTRIBUTE the grid, every alternative's predicted times (seconds, `null`
//! without a value), the crossings over N and over P by direct comparison, and the
//! isospeed range comparison with both routes' verdicts per scaled processor count.

use costline_ide::compare::Compared;
use costline_ide::scaling::{Crossing, RangeComparison};
use serde_json::{Value, json};

/// The JSON document for every compared directive.
pub fn document(all: &[Compared], machine: &str) -> Value {
    json!({
        "machine": machine,
        "comparisons": all.iter().map(comparison).collect::<Vec<_>>(),
    })
}

fn comparison(c: &Compared) -> Value {
    let label = |k: usize| c.rows[k].label.clone();
    let crossing = |k: usize, x: &Crossing| {
        json!({
            "at": x.at,
            "faster": if x.faster == 0 { label(k) } else { label(0) },
            "before_s": [x.before.0, x.before.1],
            "after_s": [x.after.0, x.after.1],
        })
    };
    json!({
        "path": c.path,
        "unit": c.unit,
        "line": c.line,
        "directive": c.directive,
        "param": c.param,
        "sizes": c.sizes,
        "procs": c.procs,
        "alternatives": c.rows.iter().enumerate().map(|(k, r)| json!({
            "label": r.label,
            "as_written": k == 0,
            "time_s": r.times,
        })).collect::<Vec<_>>(),
        "crossings_n": c.crossings_n.iter().map(|(p, k, xs)| json!({
            "procs": p,
            "alternative": label(*k),
            "crossings": xs.iter().map(|x| crossing(*k, x)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "crossings_p": c.crossings_p.iter().map(|(k, xs)| json!({
            "size": c.sizes.last(),
            "alternative": label(*k),
            "crossings": xs.iter().map(|x| crossing(*k, x)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "isospeed": c.isospeed.iter().map(|(k, r)| isospeed(c, label(*k), r)).collect::<Vec<_>>(),
    })
}

fn isospeed(c: &Compared, alternative: String, r: &RangeComparison) -> Value {
    json!({
        "alternative": alternative,
        "from": { "size": c.sizes.first(), "procs": c.procs.first() },
        "slower": if r.slower == 0 { alternative.clone() } else { c.rows[0].label.clone() },
        "alpha": r.alpha,
        "rows": r.rows.iter().map(|row| json!({
            "procs": row.p,
            "slower_size": row.slower.n,
            "faster_size": row.faster.n,
            "phi": row.slower.psi,
            "psi": row.faster.psi,
            "ratio": row.ratio,
            "isospeed_crossing": row.isospeed_crossing,
            "direct_crossing": row.direct_crossing,
            "times_s": [row.times.0, row.times.1],
        })).collect::<Vec<_>>(),
        "isospeed_first": r.isospeed_first,
        "direct_first": r.direct_first,
        "disagreement": r.disagreement,
        "no_verdict": r.no_verdict,
    })
}
