//! The host's search for included files: for every name a file's INCLUDE lines could
//! ask for, the first of its candidate paths that exists — the including file's
//! directory (not for `#include <...>`), then the include directories in order. Files
//! the driver gave win over the disk; others are read from disk and become inputs,
//! outside the workspace. Queries cannot create inputs, which is why this happens here,
//! whenever a file's text, the include directories or the disk change.

use super::host::AnalysisHost;
use super::inputs::{File, Includes, Resolution};
use super::splice::{MAX_INCLUDED_BYTES, include_names};
use costline_syntax::source::IncludeName;
use costline_syntax::source::file::{FileError, read_regular};
use salsa::Setter;
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

impl AnalysisHost {
    /// Sets the editor's text of a file that is not in the workspace (a header open in
    /// the editor): it wins over the disk until [`AnalysisHost::remove_file`].
    pub fn set_header_text(&mut self, path: &str, bytes: Vec<u8>) {
        self.pinned.insert(path.to_string());
        self.editor_versions.remove(path);
        if let Some(&file) = self.files.get(path).or(self.headers.get(path)) {
            if *file.bytes(&self.db) != bytes {
                file.set_bytes(&mut self.db).to(bytes);
            }
            self.resolve_includes(vec![file]);
            return;
        }
        let file = File::new(&self.db, path.to_string(), bytes);
        self.headers.insert(path.to_string(), file);
        self.resolve_includes(vec![file]);
        self.search_again_for(path);
    }

    /// The file at `path` changed on disk (created, written or deleted): an included
    /// file whose text the driver did not give is read again (or forgotten), and the
    /// INCLUDE lines that could name it are searched again.
    pub fn reload(&mut self, path: &str) {
        if !self.pinned.contains(path)
            && let Some(&file) = self.headers.get(path)
        {
            match read_source(Path::new(path)) {
                Ok(bytes) => {
                    if *file.bytes(&self.db) != bytes {
                        file.set_bytes(&mut self.db).to(bytes);
                    }
                }
                Err(_) => {
                    self.headers.remove(path);
                }
            }
        }
        self.search_again_for(path);
    }

    /// Searches again for the includes of the files of `start` and of the files they
    /// include, setting each file's [`File::includes`] when it changed.
    pub(super) fn resolve_includes(&mut self, start: Vec<File>) {
        let mut queue = start;
        let mut seen = HashSet::new();
        while let Some(file) = queue.pop() {
            if !seen.insert(file) {
                continue;
            }
            let names = include_names(&self.db, file).clone();
            let includer = file.path(&self.db).clone();
            let mut table = Includes::new();
            let mut searched = Vec::new();
            for name in names {
                let paths = candidates(&includer, &name, &self.options.include_dirs);
                let found = self.locate(&paths);
                if let Resolution::Found(f) = found {
                    queue.push(f);
                }
                table.insert(name, found);
                searched.extend(paths);
            }
            self.remember_searched(file, searched);
            if *file.includes(&self.db) != table {
                file.set_includes(&mut self.db).to(table);
            }
        }
    }

    /// Searches again for the includes of every workspace file.
    pub(super) fn resolve_all_includes(&mut self) {
        let members: Vec<File> = self.files.values().copied().collect();
        self.resolve_includes(members);
    }

    /// Searches again for the includes of the files that could include `path` (it was
    /// a candidate for a name they ask for).
    pub(super) fn search_again_for(&mut self, path: &str) {
        let affected = self
            .searched_at
            .get(path)
            .map(|files| files.iter().copied().collect())
            .unwrap_or_default();
        self.resolve_includes(affected);
    }

    /// Records that the INCLUDE lines of `file` were searched at `paths` (and no longer
    /// where they were searched before).
    fn remember_searched(&mut self, file: File, paths: Vec<String>) {
        for old in self.searched.remove(&file).unwrap_or_default() {
            if let Some(files) = self.searched_at.get_mut(&old) {
                files.remove(&file);
                if files.is_empty() {
                    self.searched_at.remove(&old);
                }
            }
        }
        for path in &paths {
            self.searched_at
                .entry(path.clone())
                .or_default()
                .insert(file);
        }
        if !paths.is_empty() {
            self.searched.insert(file, paths);
        }
    }

    /// The first of `candidates` that exists: a file the database has, or one read from
    /// disk (and added to it).
    fn locate(&mut self, candidates: &[String]) -> Resolution {
        for path in candidates {
            if let Some(&file) = self.files.get(path).or(self.headers.get(path)) {
                return Resolution::Found(file);
            }
            // Outside the workspace and the include directories: not read (nor told
            // apart from absent, so nothing of the disk outside leaks).
            if let Some(roots) = &self.options.include_roots
                && !under_roots(path, roots)
                && !under_roots(path, &self.options.include_dirs)
            {
                return Resolution::Unreadable {
                    path: path.clone(),
                    error: "outside the workspace and the include directories: not read \
                            (the `includeAnywhere` setting or `--include-anywhere` allows it)"
                        .to_string(),
                };
            }
            match read_source(Path::new(path)) {
                Ok(bytes) => {
                    let file = File::new(&self.db, path.clone(), bytes);
                    self.headers.insert(path.clone(), file);
                    return Resolution::Found(file);
                }
                Err(Unread::Absent) => {}
                Err(Unread::Failed(error)) => {
                    return Resolution::Unreadable {
                        path: path.clone(),
                        error,
                    };
                }
            }
        }
        Resolution::Missing {
            searched: candidates
                .iter()
                .map(|c| {
                    let dir = Path::new(c).parent().unwrap_or(Path::new(""));
                    match dir.as_os_str().is_empty() {
                        true => ".".to_string(),
                        false => dir.display().to_string(),
                    }
                })
                .collect(),
        }
    }
}

/// Why a candidate was not read.
enum Unread {
    /// Nothing there (or a directory): try the next candidate.
    Absent,
    /// Something there that cannot be read.
    Failed(String),
}

/// The bytes of the regular file at `path`, unless it is absent, a directory, not a
/// regular file (a device or FIFO is never opened), too large or unreadable.
fn read_source(path: &Path) -> Result<Vec<u8>, Unread> {
    match read_regular(path, MAX_INCLUDED_BYTES as u64) {
        Ok(bytes) => Ok(bytes),
        Err(FileError::Absent | FileError::Directory) => Err(Unread::Absent),
        Err(e) => Err(Unread::Failed(e.to_string())),
    }
}

/// Whether `path` lies under one of `roots` (lexically, after `.` and `..` are removed;
/// a relative path is taken from the current directory).
fn under_roots(path: &str, roots: &[PathBuf]) -> bool {
    let cwd = std::env::current_dir().unwrap_or_default();
    let absolute = |p: &Path| PathBuf::from(normalize(&cwd.join(p)));
    let path = absolute(Path::new(path));
    roots.iter().any(|r| path.starts_with(absolute(r)))
}

/// Where `name`, included from the file at `includer`, may be, in the order searched:
/// next to the including file (for `#include "..."` and Fortran's INCLUDE), then in
/// each of `dirs`. An absolute name is itself. Paths are normalized lexically (`.` and
/// `dir/..` removed), so that the same file gets the same path from any includer.
pub(super) fn candidates(includer: &str, name: &IncludeName, dirs: &[PathBuf]) -> Vec<String> {
    let file = Path::new(&name.name);
    if file.is_absolute() {
        return vec![normalize(file)];
    }
    let here = (!name.system).then(|| Path::new(includer).parent().unwrap_or(Path::new("")));
    here.into_iter()
        .chain(dirs.iter().map(PathBuf::as_path))
        .map(|dir| normalize(&dir.join(file)))
        .collect()
}

/// `path` without `.` components and with `dir/..` pairs removed (without asking the
/// file system, so symbolic links are kept as written).
fn normalize(path: &Path) -> String {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: &str, system: bool) -> IncludeName {
        IncludeName {
            name: n.into(),
            system,
        }
    }

    #[test]
    fn candidates_in_search_order() {
        let dirs = [PathBuf::from("/opt/inc"), PathBuf::from("../common")];
        assert_eq!(
            candidates("src/./a.f", &name("dist.inc", false), &dirs),
            ["src/dist.inc", "/opt/inc/dist.inc", "../common/dist.inc"]
        );
        assert_eq!(candidates("a.f", &name("sub/../x.h", false), &[]), ["x.h"]);
        assert_eq!(
            candidates("/w/a.f", &name("mpif.h", true), &dirs),
            ["/opt/inc/mpif.h", "../common/mpif.h"]
        );
        assert_eq!(
            candidates("/w/a.f", &name("/abs/h.inc", false), &dirs),
            ["/abs/h.inc"]
        );
    }
}
