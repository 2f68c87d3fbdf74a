//! The pattern a reference's communication follows, as a compiler would implement it.

use super::records::Record;
use super::{RefComm, RefKind};
use crate::distribution::Arrangement;
use costline_symbolic::Env;
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Every element read is local.
    Local,
    /// Neighbours on the processor grid exchange boundaries (stencils, shifts; with
    /// the wrap-around of CYCLIC distributions and circular shifts).
    Shift,
    /// One processor's elements go to several others.
    Broadcast,
    /// Several processors' elements go to one.
    Gather,
    /// Every processor sends to every other: a redistribution (e.g. a transpose).
    AllToAll,
    /// Partial results combined up a tree and the result sent back down (SUM, MAXVAL,
    /// ... over distributed data).
    Reduction,
    /// Anything else.
    General,
    /// No records to tell.
    Unknown,
}

impl Pattern {
    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::Local => "local",
            Pattern::Shift => "shift",
            Pattern::Broadcast => "broadcast",
            Pattern::Gather => "gather",
            Pattern::AllToAll => "all-to-all",
            Pattern::Reduction => "reduction",
            Pattern::General => "general",
            Pattern::Unknown => "unknown",
        }
    }

    /// Classifies records of reference `r`.
    pub fn classify(records: &[Record], env: Env, r: &RefComm) -> Pattern {
        if records.is_empty() {
            return Pattern::Local;
        }
        let senders: BTreeSet<usize> = records.iter().map(|x| x.from).collect();
        let receivers: BTreeSet<usize> = records.iter().map(|x| x.to).collect();
        let grid: Option<Vec<i128>> = match &r.kind {
            RefKind::Counted(c) => super::records::extents(&c.senders, env).ok(),
            RefKind::Bound(b) => super::records::extents(&b.mapping.distribution.onto, env).ok(),
            RefKind::Remap(m) => m
                .remap
                .senders()
                .and_then(|a| super::records::extents(a, env).ok()),
            RefKind::Irregular(_) | RefKind::Reduction(_) | RefKind::Local => None,
        };
        let size: i128 = grid.as_ref().map_or(0, |g| g.iter().product());
        if size >= 3 && records.len() as i128 == size * (size - 1) {
            return Pattern::AllToAll;
        }
        if let Some(g) = &grid
            && records.iter().all(|x| neighbours(g, x.from, x.to))
        {
            return Pattern::Shift;
        }
        if senders.len() == 1 && receivers.len() >= 2 {
            return Pattern::Broadcast;
        }
        if receivers.len() == 1 && senders.len() >= 2 {
            return Pattern::Gather;
        }
        if senders.len() == 1 && receivers.len() == 1 {
            return Pattern::Shift;
        }
        Pattern::General
    }
}

/// Whether processors `a` and `b` are next to each other on grid `g`: one coordinate
/// differs by one, or wraps around.
fn neighbours(g: &[i128], a: usize, b: usize) -> bool {
    let (ca, cb) = (
        Arrangement::coordinates(g, a as i128),
        Arrangement::coordinates(g, b as i128),
    );
    let differing: Vec<usize> = (0..g.len()).filter(|&k| ca[k] != cb[k]).collect();
    match differing.as_slice() {
        [k] => {
            let d = (ca[*k] - cb[*k]).abs();
            d == 1 || d == g[*k] - 1
        }
        _ => false,
    }
}
