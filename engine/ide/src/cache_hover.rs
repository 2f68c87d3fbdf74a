//! The cache section of a loop's hover: the lines its nest touches per entry, the lines
//! each cache level loads, and the layer condition of every loop that carries reuse
//! (e.g. "reuse across `j` (a(i, j - 1), a(i, j + 1)) needs 31.3 KiB: fits L2, not L1
//! (48 KiB) — holds in L1 while `i` runs ≤ 1,535 times").

use super::{UnitAt, label};
use costline_db::{Settings, cache};
use costline_syntax::ir::Stmt;
use std::fmt::Write;

/// Appends the cache lines of the nest rooted at loop `stmt`.
pub(super) fn cache_section(db: &dyn salsa::Database, u: &UnitAt, stmt: &Stmt, out: &mut String) {
    let machine = Settings::get(db).machine(db);
    let cache = cache(db, u.unit);
    let Some(n) = cache.of(stmt.id) else {
        return;
    };
    let line = machine.memory.cache_line_bytes;
    let _ = writeln!(
        out,
        "cache lines per entry ({line}-byte lines{}): **{}** distinct",
        if n.per_processor.len() > 1 {
            ", mean over the processors"
        } else {
            ""
        },
        label::full(n.distinct.round())
    );
    let mut rows = Vec::new();
    for (i, (name, m)) in cache.levels.iter().zip(&n.misses).enumerate() {
        let supplied_by = machine
            .memory
            .levels
            .get(i + 1)
            .map_or("memory", |l| l.name.as_str());
        rows.push(format!(
            "{name} loads {} ({} from {supplied_by})",
            label::full(m.round()),
            label::bytes(m * line as f64)
        ));
    }
    if !rows.is_empty() {
        let _ = writeln!(out, "— {}", rows.join(" · "));
    }
    out.push('\n');
    for c in &n.conditions {
        let sizes: Vec<String> = machine
            .memory
            .levels
            .iter()
            .zip(&c.holds)
            .map(|(l, h)| {
                format!(
                    "{} ({}) {}",
                    l.name,
                    label::bytes(l.bytes as f64),
                    if *h { "holds" } else { "fails" }
                )
            })
            .collect();
        let mut refs = c.reused.clone();
        refs.truncate(4);
        let _ = write!(
            out,
            "- reuse across `{}` ({}) needs {}: {}",
            c.var,
            refs.join(", "),
            label::bytes(c.bytes),
            sizes.join(", ")
        );
        if let Some((inner, limits)) = &c.inner
            && let Some((l, limit)) = machine
                .memory
                .levels
                .iter()
                .zip(limits)
                .zip(&c.holds)
                .find(|(_, h)| !**h)
                .map(|(x, _)| x)
        {
            let _ = write!(
                out,
                " — holds in {} while `{inner}` runs ≤ {} times",
                l.name,
                label::full(*limit)
            );
        }
        out.push('\n');
    }
    out.push('\n');
}
