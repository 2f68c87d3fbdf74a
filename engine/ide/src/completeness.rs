//! Completeness as the front ends show it (DESIGN.md section 5): `complete`, the places
//! a figure leaves out (`missing`, capped, with how many more), and the mark of a time
//! that is a lower bound (`≥ 1.3 ms`). Every gap the model knows of can only add time,
//! so an incomplete time is a lower bound.

use crate::label;
use costline_db::{Missing, MissingList};
use costline_model::completeness::GapCode;
use serde::Serialize;
use std::collections::HashMap;

/// At most this many places are listed in a report's or hover's `missing`.
pub const MAX_LISTED: usize = 20;

/// One place a figure leaves out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MissingReport {
    pub line: u32,
    pub file: String,
    pub code: &'static str,
    pub what: String,
}

impl MissingReport {
    /// Whether this place is communication left out (not modelled or not priced).
    pub fn is_communication(&self) -> bool {
        [GapCode::NotModelled, GapCode::NotPriced]
            .iter()
            .any(|c| c.as_str() == self.code)
    }
}

/// Places with the same file, reason and text, as one entry: the first place, how
/// many there are and the last line (a lost procedure body is one entry, not one per
/// statement).
struct Group<'a> {
    first: &'a Missing,
    count: usize,
    last_line: u32,
}

impl Group<'_> {
    /// The text, with the count and the lines when the group has several places.
    fn what(&self) -> String {
        if self.count == 1 {
            self.first.what.clone()
        } else {
            format!(
                "{} (×{}, lines {}–{})",
                self.first.what, self.count, self.first.line, self.last_line
            )
        }
    }

    fn report(&self) -> MissingReport {
        MissingReport {
            line: self.first.line,
            file: self.first.file.to_string(),
            code: self.first.code.as_str(),
            what: self.what(),
        }
    }
}

/// The entries of `list` grouped (see [`Group`]), in (file, line) order of their first
/// places.
fn groups(list: &MissingList) -> Vec<Group<'_>> {
    let mut out: Vec<Group> = Vec::new();
    let mut index: HashMap<(&str, GapCode, &str), usize> = HashMap::new();
    for m in &list.entries {
        match index.get(&(&*m.file, m.code, m.what.as_str())) {
            Some(&k) => {
                out[k].count += 1;
                out[k].last_line = out[k].last_line.max(m.line);
            }
            None => {
                index.insert((&m.file, m.code, &m.what), out.len());
                out.push(Group {
                    first: m,
                    count: 1,
                    last_line: m.line,
                });
            }
        }
    }
    out
}

/// The first [`MAX_LISTED`] groups of places of `list` and how many more groups and
/// places there are (`None` when none).
pub fn listed(list: &MissingList) -> (Vec<MissingReport>, Option<usize>) {
    let all = groups(list);
    let shown: Vec<MissingReport> = all.iter().take(MAX_LISTED).map(Group::report).collect();
    let more = all.len() - shown.len() + list.more;
    (shown, (more > 0).then_some(more))
}

/// Whether the figures leave out communication (a fetch or an MPI call that is not
/// modelled or priced): then no communication figure is not "no communication".
pub fn leaves_out_communication(list: &MissingList) -> bool {
    list.entries
        .iter()
        .any(|m| matches!(m.code, GapCode::NotModelled | GapCode::NotPriced))
}

/// A communication time as the front ends print it: `?` when communication is left
/// out and nothing of it was modelled (never `0 s`), `≥ 2 µs` when some was, the
/// time itself otherwise.
pub fn comm_seconds(list: &MissingList, seconds: f64) -> String {
    match (leaves_out_communication(list), seconds > 0.0) {
        (true, false) => "?".to_string(),
        (true, true) => format!("≥ {}", label::seconds(seconds)),
        (false, _) => label::seconds(seconds),
    }
}

/// The mark before a predicted time: `≈ ` when it is complete, `≥ ` when it leaves
/// something out (a lower bound).
pub fn time_mark(list: &MissingList) -> &'static str {
    if list.is_empty() { "≈ " } else { "≥ " }
}

/// How much a figure leaves out, in words: `1 statement that could not be read`,
/// `3 places (unread, not-modelled)`.
pub fn places(list: &MissingList) -> String {
    let all = groups(list);
    if let [g] = all.as_slice() {
        return g.what();
    }
    let mut codes: Vec<&str> = all.iter().map(|g| g.first.code.as_str()).collect();
    codes.sort();
    codes.dedup();
    format!("{} places ({})", list.len(), codes.join(", "))
}

/// One line per place, for a hover: `line 12: not-modelled — the communication of ...`,
/// at most `max`, then how many more.
pub fn hover_lines(list: &MissingList, max: usize) -> Vec<String> {
    let mut out: Vec<String> = list
        .entries
        .iter()
        .take(max)
        .map(|m| {
            format!(
                "{}:{}: {} — {}",
                short_path(&m.file),
                m.line,
                m.code.as_str(),
                m.what
            )
        })
        .collect();
    let more = list.len().saturating_sub(out.len());
    if more > 0 {
        out.push(format!("… and {more} more"));
    }
    out
}

/// A path's file name (hovers are narrow).
fn short_path(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
