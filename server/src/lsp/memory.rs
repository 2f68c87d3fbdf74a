//! The server's memory over a long session. The database keeps the results of unit
//! texts long gone (salsa collects an interned text only when a new one happens to take
//! its slot), so its resident size climbs with the edits even when the documents come
//! back to what they were. When it has grown by half over what it was after the last
//! fresh start, and the analysis thread is idle (or by a fifth, after a second without
//! a change), the thread moves to a fresh database
//! with the same workspace ([`costline_ide::AnalysisHost::fresh`]): the next requests
//! compute their results again, the same ones. The resident size is reported in the log
//! as it moves.

use std::time::{Duration, Instant};

/// The resident size is looked at most this often.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// The resident size is logged when it moved by this fraction since the last report.
const REPORT_CHANGE: f64 = 0.25;

/// Changes after a fresh start before its baseline size is taken (the open documents
/// analyzed by then).
const SETTLE: u64 = 50;

/// A fresh start when the resident size passes the baseline by this factor...
const GROWTH: f64 = 1.5;

/// ...and at least this many changes came since the last one.
const MIN_CHANGES: u64 = 200;

/// At rest (no change for [`QUIET`]), a fresh start costs the next requests little
/// and gives back what the edits left behind: then a smaller growth suffices...
const QUIET_GROWTH: f64 = 1.2;

/// ...after at least this many changes since the last one.
const QUIET_MIN_CHANGES: u64 = 100;

/// How long without a change counts as rest.
pub const QUIET: Duration = Duration::from_secs(1);

/// Where the resident size cannot be read: a fresh start every this many changes.
const BLIND_CHANGES: u64 = 2000;

/// What the analysis thread knows of its memory, kept between batches.
pub struct Memory {
    last_look: Option<Instant>,
    last_reported: Option<u64>,
    /// Changes since the last fresh start.
    changes: u64,
    /// The smallest resident size seen since the last fresh start, past [`SETTLE`]
    /// changes.
    baseline: Option<u64>,
}

impl Memory {
    pub fn new() -> Memory {
        Memory {
            last_look: None,
            last_reported: None,
            changes: 0,
            baseline: None,
        }
    }

    /// After a batch of `changes` changes (the last at `revision`), `idle` when no
    /// change is waiting: logs the resident size when it moved by a quarter since the
    /// last report, and says whether to move to a fresh database now.
    pub fn after_batch(&mut self, revision: u64, changes: u64, idle: bool) -> bool {
        self.changes += changes;
        if self.last_look.is_some_and(|t| t.elapsed() < LOOK_EVERY) {
            return false;
        }
        self.last_look = Some(Instant::now());
        let Some(rss) = resident_bytes() else {
            return idle && self.fresh_start_after(self.changes >= BLIND_CHANGES);
        };
        let moved = self
            .last_reported
            .is_none_or(|r| (rss as f64 - r as f64).abs() > REPORT_CHANGE * r as f64);
        if moved {
            self.last_reported = Some(rss);
            eprintln!(
                "costline: memory: {} resident (revision {revision})",
                megabytes(rss)
            );
        }
        if self.changes >= SETTLE {
            self.baseline = Some(self.baseline.map_or(rss, |b| b.min(rss)));
        }
        idle && self.renew_if_grown(rss, GROWTH, MIN_CHANGES, revision, "")
    }

    /// After [`QUIET`] without a change: whether to move to a fresh database now, when
    /// the resident size passed the baseline by [`QUIET_GROWTH`] over at least
    /// [`QUIET_MIN_CHANGES`] changes.
    pub fn at_rest(&mut self, revision: u64) -> bool {
        if self.changes < QUIET_MIN_CHANGES {
            return false;
        }
        let Some(rss) = resident_bytes() else {
            return self.fresh_start_after(self.changes >= BLIND_CHANGES);
        };
        self.renew_if_grown(rss, QUIET_GROWTH, QUIET_MIN_CHANGES, revision, " at rest")
    }

    /// Whether to move to a fresh database now: the resident size `rss` passed the
    /// baseline by `growth` over at least `min_changes` changes (said in the log, the
    /// counts started again).
    fn renew_if_grown(
        &mut self,
        rss: u64,
        growth: f64,
        min_changes: u64,
        revision: u64,
        when: &str,
    ) -> bool {
        let Some(baseline) = self.baseline else {
            return false;
        };
        let grown = rss as f64 > growth * baseline as f64 && self.changes >= min_changes;
        if grown {
            eprintln!(
                "costline: memory: {} resident{when} (revision {revision}), {} after the last \
                 fresh start {} changes ago: moving to a fresh database (the results stay the same)",
                megabytes(rss),
                megabytes(baseline),
                self.changes
            );
        }
        self.fresh_start_after(grown)
    }

    /// `due`, and then the counts start again.
    fn fresh_start_after(&mut self, due: bool) -> bool {
        if due {
            self.changes = 0;
            self.baseline = None;
        }
        due
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// The process's resident set size in bytes (Linux: `VmRSS` in `/proc/self/status`),
/// `None` where it cannot be read.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resident_size_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            let rss = resident_bytes().expect("/proc/self/statm");
            assert!(rss > 1 << 20, "{rss}");
        }
    }

    #[test]
    fn at_rest_a_grown_database_is_renewed_once_enough_changes_came() {
        if resident_bytes().is_none() {
            return;
        }
        let mut m = Memory::new();
        m.baseline = Some(1);
        m.changes = QUIET_MIN_CHANGES - 1;
        assert!(!m.at_rest(7), "too few changes");
        m.changes = QUIET_MIN_CHANGES;
        assert!(m.at_rest(7), "grown past the baseline");
        assert_eq!((m.changes, m.baseline), (0, None), "the counts start again");
        m.changes = QUIET_MIN_CHANGES;
        assert!(!m.at_rest(8), "no baseline yet after a fresh start");
        m.baseline = Some(u64::MAX);
        assert!(!m.at_rest(9), "not grown");
    }
}
