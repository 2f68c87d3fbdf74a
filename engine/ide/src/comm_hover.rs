//! The hover's communication section for an assignment: per reference to a
//! distributed array, where its fetch is placed, its pattern, NT/TD/TT and the
//! communication time on the critical path, and the record table (sender → receiver,
//! messages, bytes; folded when long).

use super::{UnitAt, label};
use costline_db::{Settings, comm, comm_values, constants};
use costline_model::comm::{RefKind, RefValues, formula};
use costline_syntax::ir::StmtId;
use std::fmt::Write;

/// Rows of a record table beyond which it is folded.
const ROWS: usize = 12;

/// A TD formula longer than this is left out (too many pieces to read).
const FORMULA: usize = 160;

pub(super) fn comm_section(db: &dyn salsa::Database, u: &UnitAt, id: StmtId, out: &mut String) {
    let values = comm_values(db, u.unit);
    let refs = values.of(id);
    if refs.is_empty() {
        return;
    }
    let model = comm(db, u.unit);
    let known = constants(db, u.unit);
    let settings = Settings::get(db);
    out.push_str("**communication**\n\n");
    for r in refs {
        reference(u, r, out);
        // TD as a formula, for a reference whose reads are one-to-one.
        let counted = model.of(id).iter().find_map(|m| match &m.kind {
            RefKind::Counted(c)
                if m.reference == r.reference && r.metrics.is_some_and(|m| m.nt > 0.0) =>
            {
                Some(c)
            }
            _ => None,
        });
        // PARAMETERs are numbers in the formula; the user's bindings stay unknowns.
        let bindings = settings.bindings(db);
        let fixed = |n: &str| {
            (!bindings.contains_key(n))
                .then(|| known.values.get(n).map(|v| *v as i128))
                .flatten()
        };
        let formula = counted.and_then(|c| formula::moved_elements(c, &fixed, settings.freq(db)));
        if let (Some(f), Some(m)) = (formula, r.metrics) {
            // Shown when it has unknowns, is short enough to read and equals the
            // records' TD here.
            let text = label::formula(&f, FORMULA);
            let env = |n: &str| known.values.get(n).map(|v| *v as i128);
            let agrees = f
                .eval(&env)
                .is_ok_and(|v| (v.to_f64() * r.elem_bytes as f64 - m.td_bytes).abs() < 0.5);
            let constant = f.as_single().is_some_and(|s| s.vars().is_empty());
            if agrees && !constant && text.chars().count() < FORMULA {
                let _ = writeln!(out, "TD = `{text}` elements of {} B\n", r.elem_bytes);
            }
        }
    }
}

fn reference(u: &UnitAt, r: &RefValues, out: &mut String) {
    if r.records.as_ref().is_ok_and(Vec::is_empty) {
        let _ = writeln!(
            out,
            "`{}` — local: every element read is local\n",
            r.reference
        );
        return;
    }
    let p = &r.placement;
    let placement = match &p.blocked_by {
        None => format!(
            "fetched once per run, before the statement's {} loop(s)",
            p.hoisted
        ),
        Some(b) if r.element_wise() => format!(
            "fetched element by element inside the loop at line {}",
            u.line(b.header)
        ),
        Some(b) => format!(
            "fetched once per iteration of the loop at line {} (it writes `{}`), vectorized over {} inner loop(s)",
            u.line(b.header),
            r.array,
            p.hoisted
        ),
    };
    let _ = writeln!(
        out,
        "`{}` — {}; {placement}\n",
        r.reference,
        r.pattern.as_str()
    );
    let records = match &r.records {
        Ok(records) => records,
        Err(why) => {
            let _ = writeln!(out, "records: {why}\n");
            return;
        }
    };
    if let Some(why) = &r.bound {
        let _ = writeln!(
            out,
            "an upper bound from the owner sets ({why}): every owner may send to each \
             reader, at most one element per read\n"
        );
    }
    if let Some(how) = &r.measured {
        let _ = writeln!(out, "{how}\n");
    }
    if let Some(m) = r.metrics {
        let estimated = match (&r.bound, r.exact, &r.measured) {
            (Some(_), _, _) => " (upper bound)",
            (None, true, Some(_)) => " (measured)",
            (None, true, None) => "",
            (None, false, _) => " (estimated)",
        };
        let _ = writeln!(
            out,
            "NT **{}** · TD **{}** · TT **{}** · critical path {}{estimated}\n",
            label::full(m.nt),
            label::bytes(m.td_bytes),
            label::seconds(m.tt_s),
            label::seconds(m.path_s)
        );
    }
    out.push_str("| from | to | messages | bytes |\n|---:|---:|---:|---:|\n");
    let row = |out: &mut String, i: usize| {
        let x = &records[i];
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            x.from,
            x.to,
            label::compact(x.messages),
            label::bytes(x.bytes)
        );
    };
    label::folded_rows(out, records.len(), ROWS, &row, &|out, hidden| {
        let _ = writeln!(out, "| … | … | {hidden} more pairs | |");
    });
    out.push('\n');
}
