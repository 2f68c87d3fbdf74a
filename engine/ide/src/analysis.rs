//! The face the front ends use: an [`AnalysisHost`] that applies changes and an
//! [`Analysis`], a snapshot of the workspace as of one change, that answers the
//! editor's questions on any thread and gives way (`Err(Cancelled)`) when a newer change
//! arrives. Both wrap the database's own ([`costline_db::AnalysisHost`]), as
//! rust-analyzer's `ide` wraps its database.

use crate::{
    CodeAction, CodeLens, FileDiagnostic, Hover, InlayHint, actions, diagnostics, distribution,
    header_actions, hints, hover, lenses,
};
use costline_db::{Cancellable, CompilerOutput, File, Options, file_units};
use costline_syntax::span::Span;

/// Owns the database; the only place changes are applied.
pub struct AnalysisHost {
    host: costline_db::AnalysisHost,
}

impl AnalysisHost {
    /// An empty workspace analyzed with `options`.
    pub fn new(options: &Options) -> AnalysisHost {
        AnalysisHost {
            host: costline_db::AnalysisHost::new(options, None),
        }
    }

    /// The same workspace in a database that has memoized nothing (see
    /// [`costline_db::AnalysisHost::fresh`]).
    pub fn fresh(&self) -> AnalysisHost {
        AnalysisHost {
            host: self.host.fresh(),
        }
    }

    /// Changes the settings; only what differs invalidates anything.
    pub fn set_options(&mut self, options: &Options) {
        self.host.set_options(options);
    }

    /// Adds the file at `path` to the workspace, or replaces its contents.
    pub fn add_file(&mut self, path: &str, bytes: Vec<u8>) {
        self.host.add_file(path, bytes);
    }

    /// The editor's text of `path` at `version`, edited from version `edit.0` with
    /// its start and end of lengths `edit.1` as they were (see
    /// [`costline_db::AnalysisHost::add_editor_file`]).
    pub fn add_editor_file(
        &mut self,
        path: &str,
        bytes: Vec<u8>,
        version: i32,
        edit: Option<(i32, (usize, usize))>,
    ) {
        self.host.add_editor_file(path, bytes, version, edit);
    }

    /// Removes the file at `path` from the workspace, if it is there.
    pub fn remove_file(&mut self, path: &str) {
        self.host.remove_file(path);
    }

    /// Sets the editor's text of a file that is not in the workspace (a header open in
    /// the editor): it wins over the disk until [`AnalysisHost::remove_file`].
    pub fn set_header_text(&mut self, path: &str, bytes: Vec<u8>) {
        self.host.set_header_text(path, bytes);
    }

    /// The file at `path` changed on disk: an included file whose text the driver did
    /// not give is read again, and the INCLUDE lines that could name it searched again.
    pub fn reload(&mut self, path: &str) {
        self.host.reload(path);
    }

    /// Sets what the compiler said about the workspace's file at `path` (`None`: it was
    /// not asked); its verdicts answer for the file's loops while the file and the
    /// compiler command are those it was made from.
    pub fn set_compiler_output(&mut self, path: &str, output: Option<CompilerOutput>) {
        self.host.set_compiler_output(path, output);
    }

    /// A snapshot to answer questions with, on any thread.
    pub fn snapshot(&self) -> Analysis {
        Analysis {
            db: self.host.snapshot(),
        }
    }
}

/// The workspace as of one change. Cloning it is cheap.
#[derive(Clone)]
pub struct Analysis {
    db: costline_db::Analysis,
}

impl Analysis {
    /// The paths of the workspace's files, sorted.
    pub fn paths(&self) -> Vec<String> {
        self.db.paths()
    }

    /// The file at `path` and the workspace's files that define the modules it uses
    /// (transitively), with their texts as analyzed (the editor's for open documents):
    /// what `compare` needs to analyze the file's program. Empty when the file is not
    /// in the workspace.
    pub fn program_files(&self, path: &str) -> Cancellable<Vec<(String, Vec<u8>)>> {
        let Some(file) = self.db.file_id(path) else {
            return Ok(Vec::new());
        };
        let workspace = self.files();
        self.db.with_db(|db| {
            crate::program_files::program_files(db, file, &workspace)
                .into_iter()
                .map(|f| (f.path(db).clone(), f.bytes(db).clone()))
                .collect()
        })
    }

    /// Hints at the end of the DO headers and assignments that end inside `range`
    /// (offsets into the file's text).
    pub fn inlay_hints(&self, path: &str, range: Span) -> Cancellable<Vec<InlayHint>> {
        let Some(file) = self.db.file_id(path) else {
            return Ok(Vec::new());
        };
        self.db.with_db(|db| hints::inlay_hints(db, file, range))
    }

    /// What is known of the statement, loop, directive or unit header at `offset`.
    pub fn hover(&self, path: &str, offset: u32) -> Cancellable<Option<Hover>> {
        let Some(file) = self.db.file_id(path) else {
            if self.db.header_id(path).is_none() {
                return Ok(None);
            }
            let files = self.files();
            return self
                .db
                .with_db(|db| hover::header_hover(db, &files, path, offset));
        };
        self.db.with_db(|db| hover::hover(db, file, offset))
    }

    /// One lens per procedure: how often it runs, its work per run and its wd.
    pub fn code_lenses(&self, path: &str) -> Cancellable<Vec<CodeLens>> {
        let Some(file) = self.db.file_id(path) else {
            return Ok(Vec::new());
        };
        self.analyze_units(file)?;
        self.db.with_db(|db| lenses::code_lenses(db, file))
    }

    /// The quick fixes for the findings in `range` (offsets into the file's text).
    pub fn code_actions(&self, path: &str, range: Span) -> Cancellable<Vec<CodeAction>> {
        let Some(file) = self.db.file_id(path) else {
            if self.db.header_id(path).is_none() {
                return Ok(Vec::new());
            }
            return header_actions::header_actions(&self.db, path, &self.files(), range);
        };
        let mut out = self
            .db
            .with_db(|db| actions::code_actions(db, file, range))?;
        out.extend(distribution::distribution_actions(
            &self.db, path, file, range,
        )?);
        Ok(out)
    }

    /// Every finding on the file: loading, structure, parse and directive errors,
    /// notes on counts, imbalance warnings. For an included file outside the
    /// workspace: what the workspace's files that include it found in its text, once
    /// each.
    pub fn diagnostics(&self, path: &str) -> Cancellable<Vec<FileDiagnostic>> {
        let Some(file) = self.db.file_id(path) else {
            return self.header_diagnostics(path);
        };
        self.analyze_units(file)?;
        self.db.with_db(|db| diagnostics::diagnostics(db, file))
    }

    /// Runs `f` on the database of this snapshot.
    pub(crate) fn with_db<T>(
        &self,
        f: impl FnOnce(&dyn salsa::Database) -> T + std::panic::UnwindSafe,
    ) -> Cancellable<T> {
        self.db.with_db(|db| f(db))
    }

    /// The workspace's files.
    pub(crate) fn files(&self) -> Vec<File> {
        self.db
            .paths()
            .iter()
            .filter_map(|p| self.db.file_id(p))
            .collect()
    }

    /// The findings of the workspace's files in the text of the included file at `path`.
    fn header_diagnostics(&self, path: &str) -> Cancellable<Vec<FileDiagnostic>> {
        if self.db.header_id(path).is_none() {
            return Ok(Vec::new());
        }
        let mut out: Vec<FileDiagnostic> = Vec::new();
        for p in self.db.paths() {
            let Some(file) = self.db.file_id(&p) else {
                continue;
            };
            if !self
                .db
                .with_db(|db| diagnostics::includes(db, file, path))?
            {
                continue;
            }
            self.analyze_units(file)?;
            for d in self
                .db
                .with_db(|db| diagnostics::found_in_header(db, file, path))?
            {
                let seen = out
                    .iter()
                    .any(|o| o.range == d.range && o.code == d.code && o.message == d.message);
                if !seen {
                    out.push(d);
                }
            }
        }
        out.sort_by_key(|d| (d.range.start, d.range.end));
        Ok(out)
    }

    /// Analyzes the whole workspace as far as every answer reads it (each unit lowered
    /// and summarized, the program fold), on all cores: what a fresh start at rest does
    /// so that the next request finds it done. Cancelled by a change.
    pub fn warm(&self) -> Cancellable<()> {
        let count = self
            .db
            .with_db(|db| costline_db::workspace_unit_count(db))?;
        self.db
            .on_each(count, &|db, i| costline_db::warm_lowering(db, i))?;
        self.db
            .on_each(count, &|db, i| costline_db::warm_summary(db, i))?;
        self.db.with_db(|db| costline_db::warm_program(db))
    }

    /// Analyzes every unit of `file` on all cores (each thread taking the next unit), so
    /// that a whole-file answer after a cold open does not analyze its procedures one
    /// after the other. Memoized: a second call costs a lookup per unit.
    fn analyze_units(&self, file: File) -> Cancellable<()> {
        let count = self
            .db
            .with_db(|db| file_units(db, file).as_ref().map_or(0, |f| f.units.len()))?;
        self.db.on_each(count, &|db, i| {
            if let Some(&unit) = file_units(db, file)
                .as_ref()
                .ok()
                .and_then(|f| f.units.get(i))
            {
                costline_db::unit_diagnostics(db, unit);
            }
        })
    }
}
