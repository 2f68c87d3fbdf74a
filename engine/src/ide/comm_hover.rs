//! The hover's communication section for an assignment: per reference to a
//! distributed array, where its fetch is placed, its pattern, NT/TD/TT and the
//! communication time on the critical path, and the record table (sender → receiver,
//! messages, bytes; folded when long).

use super::{UnitAt, label};
use crate::comm::RefValues;
use crate::db::comm_values;
use crate::ir::StmtId;
use std::fmt::Write;

/// Rows of a record table beyond which it is folded.
const ROWS: usize = 12;

pub(super) fn comm_section(db: &dyn salsa::Database, u: &UnitAt, id: StmtId, out: &mut String) {
    let values = comm_values(db, u.unit);
    let refs = values.of(id);
    if refs.is_empty() {
        return;
    }
    out.push_str("**communication**\n\n");
    for r in refs {
        reference(u, r, out);
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
    if let Some(m) = r.metrics {
        let estimated = if r.exact { "" } else { " (estimated)" };
        let _ = writeln!(
            out,
            "NT **{}** · TD **{}** · TT **{}** · critical path {}{estimated}\n",
            label::full(m.nt),
            label::bytes(m.td_bytes),
            label::seconds(m.tt_s),
            label::seconds(m.ct_s)
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
