//! The analysis thread: the only owner of the [`AnalysisHost`]. Changes (file
//! contents, settings) reach it in order through a channel and are applied in batches;
//! after each batch it publishes a snapshot tagged with the revision of the last change
//! it holds. A request waits for a snapshot at least as new as the changes it has seen,
//! so it never answers from text older than the positions it was given.
//!
//! Applying a change asks running analyses to stop (salsa cancels them at their next
//! query or interruption point, `costline_symbolic::interrupt`) and waits for them to
//! let go of their snapshots. Memory over long sessions: see `memory.rs`.

use super::memory::{self, Memory, WarmUp};
use costline_ide::{Analysis, AnalysisHost, CompilerOutput, Options};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Instant;

/// A change to the analyzed workspace.
pub enum Change {
    /// Add a file or replace its contents.
    SetFile {
        path: String,
        bytes: Vec<u8>,
    },
    /// The editor's text of a file at a version; `edit`: the version it was edited
    /// from and the lengths of its start and end no change touched.
    SetEditorFile {
        path: String,
        bytes: Vec<u8>,
        version: i32,
        edit: Option<(i32, (usize, usize))>,
    },
    /// Leave the workspace (a file that other files include goes back to its text on
    /// disk).
    RemoveFile {
        path: String,
    },
    /// The editor's text of a file that is not analyzed on its own (an included header).
    SetHeader {
        path: String,
        bytes: Vec<u8>,
    },
    /// The file changed on disk: read it again if it is included and the editor does not
    /// hold it, and search again for the INCLUDE lines that could name it.
    Reload {
        path: String,
    },
    SetOptions(Options),
    /// What the compiler said about a file of the workspace (`None`: forget it).
    SetCompilerOutput {
        path: String,
        output: Option<CompilerOutput>,
    },
}

/// The newest snapshot and the revision it includes.
struct Latest {
    revision: u64,
    snapshot: Option<Analysis>,
}

/// A handle on the analysis thread; cheap to clone.
#[derive(Clone)]
pub struct Worker {
    tx: Sender<(u64, Change)>,
    sent: Arc<AtomicU64>,
    latest: Arc<(Mutex<Latest>, Condvar)>,
    /// Serializes numbering and sending, so revisions reach the thread in order.
    send_lock: Arc<Mutex<()>>,
}

impl Worker {
    /// Starts the analysis thread with `options`.
    pub fn start(options: &Options) -> Worker {
        let (tx, rx) = channel();
        let host = AnalysisHost::new(options);
        let latest = Arc::new((
            Mutex::new(Latest {
                revision: 0,
                snapshot: Some(host.snapshot()),
            }),
            Condvar::new(),
        ));
        let published = latest.clone();
        let sent = Arc::new(AtomicU64::new(0));
        let queued = sent.clone();
        thread::Builder::new()
            .name("costline-analysis".into())
            .stack_size(costline_ide::ANALYSIS_STACK)
            .spawn(move || run(host, rx, &queued, &published))
            .expect("the analysis thread starts");
        Worker {
            tx,
            sent,
            latest,
            send_lock: Arc::new(Mutex::new(())),
        }
    }

    /// Queues `change`; returns its revision.
    pub fn send(&self, change: Change) -> u64 {
        let _order = self.send_lock.lock().unwrap_or_else(|e| e.into_inner());
        let revision = self.sent.fetch_add(1, Ordering::SeqCst) + 1;
        // The thread outlives every handle; a send can only fail after a panic there,
        // and then there is nothing left to analyze with anyway.
        let _ = self.tx.send((revision, change));
        revision
    }

    /// The revision of the last change queued.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }

    /// A snapshot that includes every change up to `revision` (blocks until there is
    /// one: call from a blocking thread).
    pub fn snapshot(&self, revision: u64) -> Analysis {
        let (lock, ready) = &*self.latest;
        let mut latest = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if latest.revision >= revision
                && let Some(s) = &latest.snapshot
            {
                return s.clone();
            }
            latest = ready.wait(latest).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Applies the changes `rx` brings as they come (`sent`: the revision of the last one
/// queued), publishing a snapshot after each batch in `latest`.
fn run(
    mut host: AnalysisHost,
    rx: Receiver<(u64, Change)>,
    sent: &AtomicU64,
    latest: &(Mutex<Latest>, Condvar),
) {
    let mut memory = Memory::new();
    let mut revision = 0;
    loop {
        let first = match rx.recv_timeout(memory::QUIET) {
            Ok(first) => first,
            Err(RecvTimeoutError::Timeout) => {
                if memory.at_rest(revision) {
                    host = renew(host, latest, revision);
                    warm_up(host.snapshot(), memory.warm_up());
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => return,
        };
        // Apply everything queued so far as one batch (a burst of keystrokes is one
        // revision for the requests that follow it).
        let mut batch = vec![first];
        batch.extend(rx.try_iter());
        let (lock, _) = latest;
        // Let go of the published snapshot first: the write waits for every snapshot.
        drop(
            lock.lock()
                .unwrap_or_else(|e| e.into_inner())
                .snapshot
                .take(),
        );
        let changes = batch.len() as u64;
        for (r, change) in batch {
            revision = r;
            match change {
                Change::SetFile { path, bytes } => {
                    host.add_file(&path, bytes);
                }
                Change::SetEditorFile {
                    path,
                    bytes,
                    version,
                    edit,
                } => host.add_editor_file(&path, bytes, version, edit),
                Change::RemoveFile { path } => host.remove_file(&path),
                Change::SetHeader { path, bytes } => host.set_header_text(&path, bytes),
                Change::Reload { path } => host.reload(&path),
                Change::SetOptions(options) => host.set_options(&options),
                Change::SetCompilerOutput { path, output } => {
                    host.set_compiler_output(&path, output);
                }
            }
        }
        if memory.after_batch(revision, changes, sent.load(Ordering::SeqCst) == revision) {
            host = renew(host, latest, revision);
        } else {
            publish(latest, revision, &host);
        }
    }
}

/// Moves to a fresh database with `host`'s workspace, published as the state after
/// `revision`, and hands the old database's pages back to the system once it and its
/// published snapshot are gone.
fn renew(host: AnalysisHost, latest: &(Mutex<Latest>, Condvar), revision: u64) -> AnalysisHost {
    let fresh = host.fresh();
    drop(host);
    publish(latest, revision, &fresh);
    memory::give_back();
    fresh
}

/// Analyzes the whole workspace on `snapshot` in the background (a change cancels it),
/// then says in `done` how long it took and, when it was not cancelled, the resident
/// size.
fn warm_up(snapshot: Analysis, done: Arc<WarmUp>) {
    let _ = thread::Builder::new()
        .name("costline-warm-up".into())
        .stack_size(costline_ide::ANALYSIS_STACK)
        .spawn(move || {
            let start = Instant::now();
            let warmed = snapshot.warm().is_ok();
            drop(snapshot);
            let took = start.elapsed().as_micros() as u64;
            done.micros.store(took, Ordering::SeqCst);
            if warmed {
                done.rss
                    .store(memory::resident_bytes().unwrap_or(1), Ordering::SeqCst);
            }
        });
}

/// Publishes a snapshot of `host` as the state after `revision`.
fn publish(latest: &(Mutex<Latest>, Condvar), revision: u64, host: &AnalysisHost) {
    let (lock, ready) = latest;
    let mut l = lock.lock().unwrap_or_else(|e| e.into_inner());
    l.revision = revision;
    l.snapshot = Some(host.snapshot());
    ready.notify_all();
}
