//! The hover's MPI sections: for an MPI call, what it is priced as (operation, message
//! size, processes, a collective's algorithm) and its NT, TD and TT as totals over all
//! ranks beside the slowest rank's time in it; for a unit that calls MPI, its ranks one
//! by one (messages and bytes each sends and receives, collectives, time) and how the
//! times were found.

use super::{UnitAt, label};
use costline_db::{comm_values, lower, mpi_ranks};
use costline_model::comm::ranks::TimeSource;
use costline_syntax::ir::StmtId;
use std::collections::HashMap;
use std::fmt::Write;

/// Ranks listed before the table is folded.
const ROWS: usize = 16;

/// The MPI call `id`'s section.
pub(super) fn call_section(db: &dyn salsa::Database, u: &UnitAt, id: StmtId, out: &mut String) {
    let values = comm_values(db, u.unit);
    let Some(m) = values.mpi.get(&id) else {
        return;
    };
    let _ = write!(out, "MPI **{}**", m.op.as_str());
    if let Some(b) = m.bytes {
        let _ = write!(out, " of {}", label::bytes(b));
    }
    if let Some(p) = m.processes {
        let _ = write!(out, " on {p} processes");
    }
    if let Some(a) = m.algorithm {
        let _ = write!(out, ", by {a}");
    }
    out.push_str("\n\n");
    match &m.metrics {
        Ok(c) => {
            let _ = writeln!(
                out,
                "NT **{}** · TD **{}** · TT **{}** (totals over all ranks) · the slowest rank spends **{}** in it{}\n",
                label::full(c.nt),
                label::bytes(c.td_bytes),
                label::seconds(c.tt_s),
                label::seconds(c.path_s),
                timing(ranks_of(db, u).as_ref()),
            );
        }
        Err(why) => {
            let _ = writeln!(out, "not priced: {why}\n");
        }
    }
}

/// The unit's ranks, one by one.
pub(super) fn unit_section(db: &dyn salsa::Database, u: &UnitAt, out: &mut String) {
    let ranks = mpi_ranks(db, u.unit);
    let ranks = match ranks.as_ref() {
        None => return,
        Some(Err(why)) => {
            let _ = writeln!(out, "MPI rank by rank: none ({why})\n");
            return;
        }
        Some(Ok(r)) => r,
    };
    let (nt, td) = ranks
        .stmts
        .values()
        .fold((0.0, 0.0), |(nt, td), m| (nt + m.nt, td + m.td_bytes));
    let _ = writeln!(
        out,
        "MPI on **{}** ranks: NT **{}** messages and TD **{}** in all ranks together \
         (the busiest rank sends {}); communication time **{}** on the slowest rank{}\n",
        ranks.ranks.len(),
        label::full(nt),
        label::bytes(td),
        label::full(ranks.max_sends()),
        label::seconds(ranks.path_s()),
        timing(Some(&ranks.timing)),
    );
    out.push_str("| rank | sends | bytes | receives | bytes | collectives | time |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for r in ranks.ranks.iter().take(ROWS) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.rank,
            label::full(r.sends),
            label::bytes(r.send_bytes),
            label::full(r.recvs),
            label::bytes(r.recv_bytes),
            label::full(r.collectives),
            label::seconds(r.time_s),
        );
    }
    if ranks.ranks.len() > ROWS {
        let _ = writeln!(out, "\n… and {} more ranks", ranks.ranks.len() - ROWS);
    }
    out.push('\n');
    let mut lines = HashMap::new();
    lower(db, u.unit).walk(&mut |s, _| {
        lines.insert(s.id, u.line(s.span));
    });
    for (what, list) in [
        ("leaves out", &ranks.missing),
        ("assumes", &ranks.assumed),
        ("measured", &ranks.measured),
    ] {
        for (id, why) in list {
            let line = lines
                .get(id)
                .map(|l| format!("line {l}: "))
                .unwrap_or_default();
            let _ = writeln!(out, "- {what}: {line}{why}");
        }
    }
}

fn ranks_of(db: &dyn salsa::Database, u: &UnitAt) -> Option<TimeSource> {
    let ranks = mpi_ranks(db, u.unit);
    Some(ranks.as_ref().as_ref()?.as_ref().ok()?.timing.clone())
}

/// How the times were found, as a parenthesis.
fn timing(source: Option<&TimeSource>) -> String {
    match source {
        Some(TimeSource::Replayed { unmatched: 0 }) => {
            " (the ranks' calls replayed together, each waiting for its partners)".into()
        }
        Some(TimeSource::Replayed { unmatched }) => format!(
            " (replayed together; {unmatched} transfer(s) found no partner and were priced alone)"
        ),
        Some(TimeSource::PerCall(why)) => {
            format!(" (call by call, partners not waited for: {why})")
        }
        None => String::new(),
    }
}
