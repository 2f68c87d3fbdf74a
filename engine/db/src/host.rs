//! The engine's face to its drivers (the CLI, the language server), after
//! rust-analyzer: an [`AnalysisHost`] owns the database and applies changes; an
//! [`Analysis`] is a snapshot that answers questions on another thread and gives way
//! (`Err(Cancelled)`) when a change arrives.

use super::inputs::{CompilerOutput, File, Options, Previous, Settings, Workspace};
use super::{Database, ExecutionLog};
use costline_symbolic::interrupt;
use salsa::{Database as _, Setter};
use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, UnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

/// A result that a newer change may have cancelled.
pub type Cancellable<T> = Result<T, salsa::Cancelled>;

/// Owns the database; the only place changes are applied.
///
/// Besides the workspace's files it keeps the files they include (headers), found
/// next to the including file or in the include directories and read from disk unless
/// the driver gave their text ([`AnalysisHost::set_header_text`]: an editor buffer).
pub struct AnalysisHost {
    pub(super) db: Database,
    /// The workspace's files, by path.
    pub(super) files: HashMap<String, File>,
    order: Vec<File>,
    /// Included files that are not in the workspace, by path.
    pub(super) headers: HashMap<String, File>,
    /// Paths whose text the driver gave: never read from disk.
    pub(super) pinned: HashSet<String>,
    /// The paths each file's INCLUDE lines were searched at...
    pub(super) searched: HashMap<File, Vec<String>>,
    /// ...and, by path, the files searched there: those to search again when it changes.
    pub(super) searched_at: HashMap<String, HashSet<File>>,
    /// The settings in force (the include directories and roots INCLUDE is searched
    /// by, all of them for [`AnalysisHost::fresh`]).
    pub(super) options: Options,
    /// The execution log, for [`AnalysisHost::fresh`].
    log: Option<ExecutionLog>,
    /// Per path, the editor's version of the text the host holds
    /// ([`AnalysisHost::add_editor_file`]); gone when any other text replaces it.
    pub(super) editor_versions: HashMap<String, i32>,
}

impl AnalysisHost {
    /// An empty workspace analyzed with `options`; `log` records query executions.
    pub fn new(options: &Options, log: Option<ExecutionLog>) -> AnalysisHost {
        let mut db = Database::new(log.clone());
        Settings::get(&db).update(&mut db, options);
        AnalysisHost {
            db,
            files: HashMap::new(),
            order: Vec::new(),
            headers: HashMap::new(),
            pinned: HashSet::new(),
            searched: HashMap::new(),
            searched_at: HashMap::new(),
            options: options.clone(),
            log,
            editor_versions: HashMap::new(),
        }
    }

    /// The same workspace (settings, files, the texts the driver gave for headers) in
    /// a new database that has memoized nothing. A long session's database keeps the
    /// results of unit texts long gone: salsa collects an interned text only when a new
    /// one happens to take its slot. Moving to a fresh database hands that memory back;
    /// the results are the same (the analysis is deterministic), computed again when
    /// asked for.
    pub fn fresh(&self) -> AnalysisHost {
        costline_symbolic::memo::forget_all();
        let mut host = AnalysisHost::new(&self.options, self.log.clone());
        let mut headers: Vec<&String> = self
            .pinned
            .iter()
            .filter(|p| !self.files.contains_key(*p))
            .collect();
        headers.sort();
        for path in headers {
            if let Some(file) = self.headers.get(path) {
                host.set_header_text(path, file.bytes(&self.db).clone());
            }
        }
        for file in &self.order {
            let path = file.path(&self.db);
            host.add_file(path, file.bytes(&self.db).clone());
            let output = file.compiler_output(&self.db).as_deref().cloned();
            host.set_compiler_output(path, output);
        }
        host
    }

    /// Changes the settings; only what differs invalidates anything (new include
    /// directories: the includes are searched again).
    pub fn set_options(&mut self, options: &Options) {
        Settings::get(&self.db).update(&mut self.db, options);
        // The defines may name other files (`#include MACRO`).
        let searched_alike = self.options.include_dirs == options.include_dirs
            && self.options.include_roots == options.include_roots
            && self.options.defines == options.defines;
        self.options = options.clone();
        if !searched_alike {
            self.resolve_all_includes();
        }
    }

    /// Adds the file at `path` to the workspace, or replaces its contents (a no-op when
    /// they are unchanged), and finds the files it includes.
    pub fn add_file(&mut self, path: &str, bytes: Vec<u8>) -> File {
        self.editor_versions.remove(path);
        self.add_file_with(path, bytes, None)
    }

    /// [`AnalysisHost::add_file`] of the editor's text of `path` at `version`. `edit`:
    /// the version the text was edited from and the lengths of its start and end the
    /// edit left as they were (what the editor's incremental change says). When the
    /// host holds that version's text, they are the texts' common ends: the two texts
    /// of a large file are not compared after each keystroke.
    pub fn add_editor_file(
        &mut self,
        path: &str,
        bytes: Vec<u8>,
        version: i32,
        edit: Option<(i32, (usize, usize))>,
    ) -> File {
        let ends = edit
            .filter(|(from, _)| self.editor_versions.get(path) == Some(from))
            .map(|(_, ends)| ends);
        let file = self.add_file_with(path, bytes, ends);
        self.editor_versions.insert(path.to_string(), version);
        file
    }

    /// [`AnalysisHost::add_file`], with the common ends of the old and new texts when
    /// they are known.
    fn add_file_with(&mut self, path: &str, bytes: Vec<u8>, ends: Option<(usize, usize)>) -> File {
        self.pinned.insert(path.to_string());
        if let Some(&file) = self.files.get(path) {
            let old = file.bytes(&self.db);
            let ends = ends
                .filter(|&(p, s)| p + s <= old.len().min(bytes.len()))
                .unwrap_or_else(|| costline_syntax::text_edit::common_ends(old, &bytes));
            let Some((was, is)) = costline_syntax::text_edit::lines_between(old, &bytes, ends)
            else {
                // The same text again (a save): its INCLUDE lines are searched for
                // again, for files made on disk since.
                self.resolve_includes(vec![file]);
                return file;
            };
            // Lines without INCLUDE, `#` or a form pragma leave the names the file
            // includes as they were: no search (a scan of the whole text) after
            // typing in a large file.
            let names_kept = !may_name_includes(was) && !may_name_includes(is);
            // The split of the bytes replaced, if one was made, is where the split of
            // the new ones starts.
            let previous = file
                .split(&self.db)
                .get()
                .map(|split| Previous { split, ends });
            file.set_previous(&mut self.db).to(previous);
            file.set_split(&mut self.db).to(Arc::default());
            file.set_bytes(&mut self.db).to(bytes);
            if !names_kept {
                self.resolve_includes(vec![file]);
            }
            return file;
        }
        let file = match self.headers.remove(path) {
            Some(header) => {
                if *header.bytes(&self.db) != bytes {
                    header.set_bytes(&mut self.db).to(bytes);
                }
                header
            }
            None => File::new(&self.db, path.to_string(), bytes),
        };
        self.files.insert(path.to_string(), file);
        self.order.push(file);
        Workspace::get(&self.db)
            .set_files(&mut self.db)
            .to(self.order.clone());
        self.resolve_includes(vec![file]);
        // A new file may be what some INCLUDE line was looking for.
        self.search_again_for(path);
        file
    }

    /// Removes the file at `path` from the workspace, if it is there; when other files
    /// include it, they include what is on disk from now on.
    pub fn remove_file(&mut self, path: &str) {
        self.pinned.remove(path);
        self.editor_versions.remove(path);
        let Some(file) = self.files.remove(path) else {
            self.reload(path);
            return;
        };
        self.order.retain(|f| *f != file);
        Workspace::get(&self.db)
            .set_files(&mut self.db)
            .to(self.order.clone());
        self.search_again_for(path);
    }

    /// Sets what the compiler said about the workspace's file at `path` (`None`: it was
    /// not asked); nothing for a file outside the workspace, or an output equal to the
    /// one it has.
    pub fn set_compiler_output(&mut self, path: &str, output: Option<CompilerOutput>) {
        let Some(&file) = self.files.get(path) else {
            return;
        };
        let output = output.map(Arc::new);
        if *file.compiler_output(&self.db) != output {
            file.set_compiler_output(&mut self.db).to(output);
        }
    }

    /// Whether `path` is in the workspace.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Drops the least recently used results of the bulky per-unit queries beyond their
    /// `lru` capacity (the symbolic intermediates of [`crate::analysis`]), as a change does: for a cold analysis
    /// of a whole program, which makes no change, between batches of units. Waits for
    /// every snapshot to be dropped, like a change.
    pub fn evict(&mut self) {
        self.db.trigger_lru_eviction();
    }

    /// A snapshot to answer questions with, on any thread. A change waits until every
    /// snapshot is dropped, after asking them to stop.
    pub fn snapshot(&self) -> Analysis {
        Analysis {
            db: self.db.clone(),
            files: self.files.clone(),
            headers: self.headers.clone(),
            include_dirs: self.options.include_dirs.clone(),
            include_roots: self.options.include_roots.clone(),
        }
    }
}

/// Whether `lines` could change what a file includes: an INCLUDE (any case), a
/// preprocessor line (`#include`, a `#define` an `#include` names) or a form pragma.
fn may_name_includes(lines: &[u8]) -> bool {
    costline_syntax::source::mentions_include(lines)
        || lines.contains(&b'#')
        || lines
            .windows(9)
            .any(|w| w.eq_ignore_ascii_case(b"costline:"))
}

/// The workspace as of one change. Cloning it is cheap (the clone is another snapshot
/// of the same state).
#[derive(Clone)]
pub struct Analysis {
    db: Database,
    files: HashMap<String, File>,
    /// The included files outside the workspace.
    headers: HashMap<String, File>,
    include_dirs: Vec<PathBuf>,
    include_roots: Option<Vec<PathBuf>>,
}

impl Analysis {
    /// The database, for queries not wrapped here (they may unwind with
    /// [`salsa::Cancelled`]).
    pub fn db(&self) -> &Database {
        &self.db
    }

    /// The input of the file at `path`, if it is in the workspace.
    pub fn file_id(&self, path: &str) -> Option<File> {
        self.files.get(path).copied()
    }

    /// The input of the included file at `path`, if it is one and not in the workspace.
    pub fn header_id(&self, path: &str) -> Option<File> {
        self.headers.get(path).copied()
    }

    /// The paths of the workspace's files.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.files.keys().cloned().collect();
        paths.sort();
        paths
    }

    /// The paths of the included files outside the workspace.
    pub fn header_paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.headers.keys().cloned().collect();
        paths.sort();
        paths
    }

    /// Where included files are searched after the including file's directory.
    pub fn include_dirs(&self) -> &[PathBuf] {
        &self.include_dirs
    }

    /// Where INCLUDE may read from disk besides the include directories (`None`:
    /// anywhere).
    pub fn include_roots(&self) -> Option<&[PathBuf]> {
        self.include_roots.as_deref()
    }

    /// Runs `work(db, k, n)` for k = 0..n on the n threads of the analysis pool
    /// ([`worker_threads`]), each with a snapshot of its own, and waits for them: for
    /// memoizing many independent queries at once, each thread taking share `k` of a job
    /// list every thread enumerates alike; the caller then reads the results from its
    /// own snapshot. On a single core `work` runs once here (k = 0, n = 1). Cancelled
    /// when a newer change arrives.
    pub fn on_all_cores(
        &self,
        work: &(dyn Fn(&Database, usize, usize) + Sync + std::panic::RefUnwindSafe),
    ) -> Cancellable<()> {
        let Some(pool) = pool() else {
            return self.with_db(|db| work(db, 0, 1));
        };
        let threads = pool.current_num_threads();
        // A snapshot per thread, taken by the thread of its index.
        let snapshots: Vec<std::sync::Mutex<Option<Database>>> = (0..threads)
            .map(|_| std::sync::Mutex::new(Some(self.db.clone())))
            .collect();
        pool.broadcast(|ctx| {
            let k = ctx.index();
            let db = snapshots[k]
                .lock()
                .ok()
                .and_then(|mut s| s.take())
                .expect("a snapshot per thread");
            cancellable(&db, || work(&db, k, threads))
        })
        .into_iter()
        .collect::<Cancellable<Vec<()>>>()
        .map(|_| ())
    }

    /// Runs `work(db, i)` for i = 0..count on every core ([`Analysis::on_all_cores`]),
    /// each thread taking the next `i` not yet taken (items of unequal cost keep every
    /// core busy to the end).
    pub fn on_each(
        &self,
        count: usize,
        work: &(dyn Fn(&Database, usize) + Sync + std::panic::RefUnwindSafe),
    ) -> Cancellable<()> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        self.on_all_cores(&|db, _, _| {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= count {
                    break;
                }
                work(db, i);
            }
        })
    }

    /// Runs `f` on the database, turning a cancellation into `Err`.
    pub fn with_db<T>(&self, f: impl FnOnce(&Database) -> T + UnwindSafe) -> Cancellable<T> {
        let db = &self.db;
        cancellable(db, || f(db))
    }
}

/// Runs `f`, turning a cancellation into `Err`, with salsa's cancellation check as the
/// thread's interruption check: the engine's long loops ([`interrupt::point`]) stop
/// within milliseconds of a change, not only at their next query.
fn cancellable<T>(db: &Database, f: impl FnOnce() -> T + UnwindSafe) -> Cancellable<T> {
    // The clone only reads the cancellation flag, and is dropped with the scope.
    let watch = AssertUnwindSafe(db.clone());
    salsa::Cancelled::catch(|| {
        interrupt::with_check(Box::new(move || watch.unwind_if_revision_cancelled()), f)
    })
}

/// The stack of every thread that analyzes (the command line's, the server's analysis
/// and request threads): every recursion is bounded in depth (expressions 200 levels,
/// constructs 32), and this bounds what those depths may take, with room to spare in
/// unoptimized builds. Only the pages touched count towards memory.
pub const ANALYSIS_STACK: usize = 32 << 20;

/// The threads analyses run on: `COSTLINE_THREADS` when set to a positive number, else
/// one per core, at most 4. Results do not depend on it (the tests compare 1 and many).
pub fn worker_threads() -> usize {
    std::env::var("COSTLINE_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

/// The analysis threads: [`worker_threads`] of them with [`ANALYSIS_STACK`]-sized
/// stacks, started once and kept, so that what each thread remembers (the symbolic
/// memos are per thread) outlives one batch of work; `None` on a single core.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let threads = worker_threads();
        (threads >= 2)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .stack_size(ANALYSIS_STACK)
                    .thread_name(|k| format!("costline-warm-{k}"))
                    .build()
                    .ok()
            })
            .flatten()
    })
    .as_ref()
}
