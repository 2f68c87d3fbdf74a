//! The engine's face to its drivers (the CLI, the language server), after
//! rust-analyzer: an [`AnalysisHost`] owns the database and applies changes; an
//! [`Analysis`] is a snapshot that answers questions on another thread and gives way
//! (`Err(Cancelled)`) when a change arrives.

use super::inputs::{File, Settings, Workspace};
use super::{Database, ExecutionLog};
use crate::project::{Detail, FileAnalysis, Options, file_analysis};
use crate::source::LoadError;
use salsa::Setter;
use std::collections::HashMap;
use std::panic::UnwindSafe;

/// A result that a newer change may have cancelled.
pub type Cancellable<T> = Result<T, salsa::Cancelled>;

/// Owns the database; the only place changes are applied.
pub struct AnalysisHost {
    db: Database,
    files: HashMap<String, File>,
    order: Vec<File>,
}

impl AnalysisHost {
    /// An empty workspace analyzed with `options`; `log` records query executions.
    pub fn new(options: &Options, log: Option<ExecutionLog>) -> AnalysisHost {
        let mut db = Database::new(log);
        Settings::get(&db).update(&mut db, options);
        AnalysisHost {
            db,
            files: HashMap::new(),
            order: Vec::new(),
        }
    }

    /// Changes the settings; only what differs invalidates anything.
    pub fn set_options(&mut self, options: &Options) {
        Settings::get(&self.db).update(&mut self.db, options);
    }

    /// Adds the file at `path` to the workspace, or replaces its contents (a no-op when
    /// they are unchanged).
    pub fn add_file(&mut self, path: &str, bytes: Vec<u8>) -> File {
        if let Some(&file) = self.files.get(path) {
            if *file.bytes(&self.db) != bytes {
                file.set_bytes(&mut self.db).to(bytes);
            }
            return file;
        }
        let file = File::new(&self.db, path.to_string(), bytes);
        self.files.insert(path.to_string(), file);
        self.order.push(file);
        Workspace::get(&self.db)
            .set_files(&mut self.db)
            .to(self.order.clone());
        file
    }

    /// Removes the file at `path` from the workspace, if it is there.
    pub fn remove_file(&mut self, path: &str) {
        let Some(file) = self.files.remove(path) else {
            return;
        };
        self.order.retain(|f| *f != file);
        Workspace::get(&self.db)
            .set_files(&mut self.db)
            .to(self.order.clone());
    }

    /// Whether `path` is in the workspace.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// A snapshot to answer questions with, on any thread. A change waits until every
    /// snapshot is dropped, after asking them to stop.
    pub fn snapshot(&self) -> Analysis {
        Analysis {
            db: self.db.clone(),
            files: self.files.clone(),
        }
    }
}

/// The workspace as of one change. Cloning it is cheap (the clone is another snapshot
/// of the same state).
#[derive(Clone)]
pub struct Analysis {
    db: Database,
    files: HashMap<String, File>,
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

    /// The paths of the workspace's files.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.files.keys().cloned().collect();
        paths.sort();
        paths
    }

    /// The analysis of the file at `path`; `None` when it is not in the workspace.
    pub fn file(
        &self,
        path: &str,
        detail: Detail,
    ) -> Cancellable<Option<Result<FileAnalysis, LoadError>>> {
        let Some(&file) = self.files.get(path) else {
            return Ok(None);
        };
        self.with_db(|db| Some(file_analysis(db, file, detail)))
    }

    /// Runs `f` on the database, turning a cancellation into `Err`.
    pub fn with_db<T>(&self, f: impl FnOnce(&Database) -> T + UnwindSafe) -> Cancellable<T> {
        let db = &self.db;
        salsa::Cancelled::catch(|| f(db))
    }
}
