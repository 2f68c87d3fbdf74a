//! A file's source with the texts of the files it includes spliced in, as the queries
//! see it. The included files are inputs the host found ([`File::includes`]); reading
//! their bytes here is what makes an edit of a header re-split exactly the files that
//! include it (and then re-analyze exactly the units whose text changed).
//!
//! Bad includes never stop the analysis: a file not found or unreadable, a binary file,
//! a cycle, nesting deeper than [`MAX_DEPTH`] or more than [`MAX_INCLUDED_BYTES`] of
//! included text are each a diagnostic at the INCLUDE line, and the line is skipped.

use super::inputs::{File, Resolution, Settings};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::source::{
    Defines, IncludeLine, IncludeName, LoadError, SourceFile, SourceForm, form_pragma,
};
use std::collections::BTreeSet;
use std::sync::Arc;

/// How deeply includes may nest.
pub const MAX_DEPTH: usize = 16;

/// How much included text one file may take in all (a header included many times over
/// by nested headers must not blow up).
pub const MAX_INCLUDED_BYTES: usize = 16 << 20;

/// The names `file`'s INCLUDE lines could ask for (any form, any branch, through the
/// macros defined), for the host to look up before the queries need them.
#[salsa::tracked(returns(ref))]
pub fn include_names(db: &dyn salsa::Database, file: File) -> BTreeSet<IncludeName> {
    let bytes = file.bytes(db);
    // Most files name no include: known without decoding them.
    if !costline_syntax::source::mentions_include(bytes) {
        return BTreeSet::new();
    }
    costline_syntax::source::include_names(
        &String::from_utf8_lossy(bytes),
        Settings::get(db).defines(db),
    )
}

/// `file` loaded (its conditionals under the macros defined), with every file it
/// includes spliced in (in its form, under the same macros).
pub(super) fn spliced_source(
    db: &dyn salsa::Database,
    file: File,
) -> Result<SourceFile, LoadError> {
    let settings = Settings::get(db);
    let defines = settings.defines(db);
    let source = SourceFile::with_defines(file.path(db), file.bytes(db), None, defines)?;
    let source = match (source.form(), settings.fixed_line_length(db)) {
        // The setting stands where the file names no length of its own.
        (SourceForm::Fixed { line_length }, Some(n))
            if line_length != n
                && form_pragma(&String::from_utf8_lossy(file.bytes(db))).is_none() =>
        {
            SourceFile::with_defines(
                file.path(db),
                file.bytes(db),
                Some(SourceForm::Fixed { line_length: n }),
                defines,
            )?
        }
        _ => source,
    };
    let mut splicer = Splicer {
        db,
        form: source.form(),
        defines,
        chain: vec![file],
        budget: MAX_INCLUDED_BYTES,
    };
    Ok(splicer.splice(file, source))
}

/// The state of one file's splice: the files being included (for cycles) and the
/// included bytes still allowed.
struct Splicer<'db> {
    db: &'db dyn salsa::Database,
    /// Included files are read in the including file's form, as compilers do...
    form: SourceForm,
    /// ...and preprocessed with the macros defined for the program.
    defines: &'db Defines,
    chain: Vec<File>,
    budget: usize,
}

impl Splicer<'_> {
    /// `source` (the text of `file`) with its includes spliced in.
    fn splice(&mut self, file: File, source: SourceFile) -> SourceFile {
        if source.include_lines().is_empty() {
            return source;
        }
        let table = file.includes(self.db);
        let mut included = Vec::new();
        let mut problems = Vec::new();
        for line in source.include_lines() {
            match self.include(line, table.get(&line.name)) {
                Ok(text) => included.push((line.clone(), Arc::new(text))),
                Err(problem) => problems.push(problem),
            }
        }
        source.splice(included, problems)
    }

    /// The spliced text of the file `line` asks for, or why it is not included.
    fn include(
        &mut self,
        line: &IncludeLine,
        resolution: Option<&Resolution>,
    ) -> Result<SourceFile, Diagnostic> {
        let name = &line.name.name;
        let warn = |message: String| Diagnostic::warning(line.span, "include", message);
        let found = match resolution {
            Some(Resolution::Found(found)) => *found,
            Some(Resolution::Missing { searched }) => {
                return Err(missing(line, searched));
            }
            Some(Resolution::Unreadable { path, error }) => {
                return Err(warn(format!(
                    "cannot read `{path}` (included as '{name}'): {error}"
                )));
            }
            None => return Err(missing(line, &[])),
        };
        let path = found.path(self.db);
        if let Some(at) = self.chain.iter().position(|f| *f == found) {
            let cycle: Vec<&str> = self.chain[at..]
                .iter()
                .map(|f| f.path(self.db).as_str())
                .chain([path.as_str()])
                .collect();
            return Err(warn(format!(
                "include cycle: {}; '{name}' is not included again",
                cycle.join(" → ")
            )));
        }
        if self.chain.len() > MAX_DEPTH {
            return Err(warn(format!(
                "includes nest deeper than {MAX_DEPTH} files: '{name}' is not included"
            )));
        }
        let bytes = found.bytes(self.db);
        if bytes.len() > self.budget {
            return Err(warn(format!(
                "more than {} MiB of included text: '{name}' is not included",
                MAX_INCLUDED_BYTES >> 20
            )));
        }
        self.budget -= bytes.len();
        let source =
            SourceFile::with_defines(path, bytes, Some(self.form), self.defines).map_err(|e| {
                warn(format!(
                    "cannot include `{path}`: it is not source text ({})",
                    e.message
                ))
            })?;
        self.chain.push(found);
        let spliced = self.splice(found, source);
        self.chain.pop();
        Ok(spliced)
    }
}

/// The finding for a file found nowhere: a warning, except for a system header
/// (`#include <...>`) or MPI's `mpif.h`, whose absence costline does not need (it knows
/// MPI's procedures by name).
fn missing(line: &IncludeLine, searched: &[String]) -> Diagnostic {
    let name = &line.name.name;
    let places = if searched.is_empty() {
        String::new()
    } else {
        format!(" (looked in {})", searched.join(", "))
    };
    if line.name.system || name.eq_ignore_ascii_case("mpif.h") {
        return Diagnostic::info(
            line.span,
            "include",
            format!("'{name}' not found{places}: skipped"),
        );
    }
    Diagnostic::warning(
        line.span,
        "include",
        format!(
            "cannot find '{name}'{places}: its declarations and directives are missing (add its directory with --include DIR or `include` in costline.toml)"
        ),
    )
}
