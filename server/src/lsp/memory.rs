//! The server's memory over a long session. The database keeps the results of unit
//! texts long gone (salsa collects an interned text only when a new one happens to take
//! its slot), so its resident size climbs with the edits even when the documents come
//! back to what they were. When it has grown by half over what it was after the last
//! fresh start, and the analysis thread is idle (or by a tenth, after a second without
//! a change), the thread moves to a fresh database with the same workspace
//! ([`costline_ide::AnalysisHost::fresh`]), hands the freed pages back to the system at
//! once ([`give_back`]) and, at rest, analyzes the workspace again in the background
//! ([`costline_ide::Analysis::warm`]): the next requests find the same results done. The
//! resident size after that warm-up is the baseline the growth is measured against. It
//! is reported in the log as it moves.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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

/// At rest (no change for [`QUIET`]), a fresh start and its warm-up cost the next
/// requests nothing and give back what the edits left behind: then a smaller growth
/// suffices...
const QUIET_GROWTH: f64 = 1.1;

/// ...after at least this many changes since the last one.
const QUIET_MIN_CHANGES: u64 = 100;

/// At rest, a fresh start after [`QUIET_MIN_CHANGES`] changes whatever the growth
/// when the last warm-up took at most this long (or none was measured yet): what the
/// edits left behind goes, and the resident size follows the documents as they are
/// now. A larger workspace renews only when grown by [`QUIET_GROWTH`].
const CHEAP_WARM_UP: Duration = Duration::from_millis(250);

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
    /// changes or once the warm-up after it is done.
    baseline: Option<u64>,
    /// What the warm-up after the last fresh start reports from its thread.
    warm_up: Arc<WarmUp>,
    /// How long the last warm-up that was done took (or one cancelled after it had
    /// taken longer than [`CHEAP_WARM_UP`]); `None` before the first.
    warm_up_took: Option<Duration>,
}

/// What a warm-up after a fresh start at rest says from its thread when it ends.
#[derive(Default)]
pub struct WarmUp {
    /// The resident size once done (0: not done, or cancelled).
    pub rss: AtomicU64,
    /// How long it took until done or cancelled, in microseconds.
    pub micros: AtomicU64,
}

impl Memory {
    pub fn new() -> Memory {
        Memory {
            last_look: None,
            last_reported: None,
            changes: 0,
            baseline: None,
            warm_up: Arc::default(),
            warm_up_took: None,
        }
    }

    /// Where the warm-up after a fresh start says what it found.
    pub fn warm_up(&self) -> Arc<WarmUp> {
        self.warm_up.clone()
    }

    /// The baseline, with the resident size after the warm-up when there is one.
    fn settle(&mut self, rss: Option<u64>) {
        let warmed = self.warm_up.rss.load(Ordering::SeqCst);
        let took = Duration::from_micros(self.warm_up.micros.load(Ordering::SeqCst));
        // Done, or cancelled after it had cost more than a cheap one.
        if warmed > 0 || took > CHEAP_WARM_UP {
            self.warm_up_took = Some(took);
        }
        let seen = rss.filter(|_| self.changes >= SETTLE);
        for size in [(warmed > 0).then_some(warmed), seen].into_iter().flatten() {
            self.baseline = Some(self.baseline.map_or(size, |b| b.min(size)));
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
        self.settle(Some(rss));
        idle && self.renew_if_grown(rss, GROWTH, MIN_CHANGES, revision, "")
    }

    /// After [`QUIET`] without a change: whether to move to a fresh database now, after
    /// at least [`QUIET_MIN_CHANGES`] changes: when its warm-up is cheap
    /// ([`CHEAP_WARM_UP`]), or when the resident size passed the baseline by
    /// [`QUIET_GROWTH`].
    pub fn at_rest(&mut self, revision: u64) -> bool {
        self.settle(None);
        if self.changes < QUIET_MIN_CHANGES {
            return false;
        }
        if self.warm_up_took.is_none_or(|t| t <= CHEAP_WARM_UP) {
            eprintln!(
                "costline: memory: {} resident at rest (revision {revision}), {} changes \
                 since the last fresh start, the warm-up after one {}: moving to a fresh \
                 database (the results stay the same)",
                resident_bytes().map_or("?".into(), megabytes),
                self.changes,
                self.warm_up_took
                    .map_or("not measured yet".into(), |t| format!(
                        "took {} ms",
                        t.as_millis()
                    )),
            );
            return self.fresh_start_after(true);
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
            self.warm_up = Arc::default();
        }
        due
    }
}

/// Hands the pages the allocator holds free back to the system now (jemalloc purges
/// them a second later on its own; a fresh start frees a whole database at once, and
/// the warm-up after it would measure its pages as the baseline). Each arena purges
/// its free pages when its decay time is set to 0; the time is then set back. An arena
/// another thread is purging at that moment skips the request (jemalloc purges one
/// pass at a time), so an arena still holding more than [`LEFT_DIRTY`] free pages is
/// asked again, up to [`PURGE_TRIES`] times a millisecond apart.
#[cfg(all(target_os = "linux", not(target_env = "msvc")))]
pub fn give_back() {
    use tikv_jemalloc_ctl::{Access, AsName, arenas, epoch};
    let (Ok(mut decay), Ok(mut dirty)) = (
        b"arena.0.dirty_decay_ms\0".name().mib::<[usize; 3]>(),
        b"stats.arenas.0.pdirty\0".name().mib::<[usize; 4]>(),
    ) else {
        return;
    };
    for arena in 0..arenas::narenas::read().unwrap_or(0) as usize {
        decay[1] = arena;
        dirty[2] = arena;
        // An arena not in use yet has no decay time: nothing to purge.
        let Ok(ms) = Access::<isize>::read(&decay) else {
            continue;
        };
        for _ in 0..PURGE_TRIES {
            let _ = decay.write(0isize);
            let _ = decay.write(ms);
            // Statistics are read as of the last epoch.
            let left = epoch::advance()
                .ok()
                .and_then(|_| Access::<usize>::read(&dirty).ok());
            if left.is_none_or(|pages| pages <= LEFT_DIRTY) {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Free pages an arena may keep after [`give_back`] (4 MB of 4 KB pages: what other
/// threads free meanwhile).
#[cfg(all(target_os = "linux", not(target_env = "msvc")))]
const LEFT_DIRTY: usize = 1024;

/// How often [`give_back`] asks an arena busy purging.
#[cfg(all(target_os = "linux", not(target_env = "msvc")))]
const PURGE_TRIES: usize = 50;

/// Elsewhere the system allocator keeps what it keeps.
#[cfg(not(all(target_os = "linux", not(target_env = "msvc"))))]
pub fn give_back() {}

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
    fn freed_pages_go_back_to_the_system_at_once() {
        let Some(before) = resident_bytes() else {
            return;
        };
        // Small blocks, as a database holds them (a single large one goes straight
        // back to the system when freed).
        let blocks: Vec<Vec<u8>> = (0..128 << 10).map(|i| vec![i as u8; 4 << 10]).collect();
        assert!(resident_bytes().unwrap() > before + (256 << 20));
        drop(std::hint::black_box(blocks));
        give_back();
        let after = resident_bytes().unwrap();
        assert!(after < before + (128 << 20), "{before} -> {after}");
    }

    #[test]
    fn the_resident_size_after_the_warm_up_is_the_baseline() {
        let mut m = Memory::new();
        m.settle(Some(5_000));
        assert_eq!(m.baseline, None, "too early after a fresh start");
        m.warm_up().rss.store(7_000, Ordering::SeqCst);
        m.settle(None);
        assert_eq!(m.baseline, Some(7_000));
        m.changes = SETTLE;
        m.settle(Some(6_000));
        assert_eq!(m.baseline, Some(6_000), "the smallest seen");
        assert!(m.fresh_start_after(true));
        m.settle(None);
        assert_eq!(m.baseline, None, "a fresh start waits for its own warm-up");
    }

    #[test]
    fn at_rest_a_grown_database_is_renewed_once_enough_changes_came() {
        if resident_bytes().is_none() {
            return;
        }
        let mut m = Memory::new();
        m.changes = QUIET_MIN_CHANGES;
        assert!(m.at_rest(6), "no warm-up measured yet: taken for cheap");
        // An expensive warm-up, cancelled: the growth decides from now on.
        m.warm_up().micros.store(1_000_000, Ordering::SeqCst);
        m.settle(None);
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
        m.warm_up().micros.store(1_000, Ordering::SeqCst);
        m.warm_up().rss.store(u64::MAX, Ordering::SeqCst);
        assert!(
            m.at_rest(10),
            "not grown, but the warm-up after it costs little"
        );
        m.changes = QUIET_MIN_CHANGES - 1;
        assert!(!m.at_rest(11), "too few changes");
    }
}
