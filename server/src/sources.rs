//! The Fortran files of a project: found by extension under its source directories
//! (`sourceDirs`, default the root), as git sees the tree — `.gitignore` files (and
//! `.ignore`, `.git/info/exclude`) are honoured, hidden directories and build output
//! skipped — less what `exclude` names (gitignore-style globs relative to the root),
//! with limits so that opening a home directory by mistake does not read the disk for
//! minutes. The language server scans its workspace folders with it and asks it about
//! each file event; `check`, `coverage` and `diff` expand the directories they are
//! given with it.

use ignore::WalkBuilder;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::{Override, OverrideBuilder};
use std::path::{Path, PathBuf};

/// At most this many files are analyzed...
pub const MAX_FILES: usize = 10_000;
/// ...none larger than this.
pub const MAX_BYTES: u64 = 16 << 20;

/// Extensions of Fortran sources, free and fixed form, with and without preprocessing.
const EXTENSIONS: &[&str] = &[
    "f90", "f95", "f03", "f08", "f18", "f", "for", "ftn", "f77", "fpp", "hpf",
];

/// Extensions of the files Fortran sources INCLUDE: not analyzed on their own, only
/// where they are included. (A file included under another name is followed too, but
/// is not watched on disk, and is analyzed on its own when the editor opens it.)
const HEADER_EXTENSIONS: &[&str] = &["h", "inc", "fh", "fi", "h90", "cmn", "hf"];

/// The glob of the files the editor is asked to watch: the Fortran sources and the
/// headers.
pub const WATCHED: &str = "**/*.{f90,F90,f95,F95,f03,F03,f08,F08,f,F,for,FOR,ftn,f77,fpp,hpf,h,H,inc,INC,fh,FH,fi,FI,h90,H90,cmn,CMN,hf,HF}";

/// Directories that hold no sources of the project (build output, dependencies),
/// skipped whether or not a `.gitignore` says so.
const SKIPPED: &[&str] = &["target", "node_modules", "build", "_build", "__pycache__"];

/// Whether `path` names a Fortran source.
pub fn is_fortran(path: &Path) -> bool {
    has_extension(path, EXTENSIONS)
}

/// Whether `path` names a file that Fortran sources include (a header).
pub fn is_header(path: &Path) -> bool {
    has_extension(path, HEADER_EXTENSIONS)
}

/// Whether the extension of `path` is one of `extensions` (any case).
fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.contains(&e.to_ascii_lowercase().as_str()))
}

/// Where a project's sources are: its source directories under a root, less the
/// excluded paths.
#[derive(Clone, Debug)]
pub struct Scope {
    root: PathBuf,
    dirs: Vec<PathBuf>,
    exclude: Override,
}

impl Scope {
    /// The scope of the project at `root`: `source_dirs` relative to it (empty: the
    /// root itself), `exclude` gitignore-style globs relative to it (`legacy/`,
    /// `**/*_old.f90`). An error names a glob that does not parse.
    pub fn new(root: &Path, source_dirs: &[String], exclude: &[String]) -> Result<Scope, String> {
        let mut overrides = OverrideBuilder::new(root);
        for glob in exclude {
            overrides
                .add(&format!("!{glob}"))
                .map_err(|e| format!("exclude: `{glob}`: {e}"))?;
        }
        let exclude = overrides.build().map_err(|e| format!("exclude: {e}"))?;
        let dirs = if source_dirs.is_empty() {
            vec![root.to_path_buf()]
        } else {
            source_dirs.iter().map(|d| root.join(d)).collect()
        };
        Ok(Scope {
            root: root.to_path_buf(),
            dirs,
            exclude,
        })
    }

    /// The Fortran files in scope, sorted, and whether the limit cut the list short.
    pub fn fortran_files(&self) -> (Vec<PathBuf>, bool) {
        let Some((first, rest)) = self.dirs.split_first() else {
            return (Vec::new(), false);
        };
        let mut walk = WalkBuilder::new(first);
        for d in rest {
            walk.add(d);
        }
        walk.hidden(true)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(false)
            .ignore(true)
            .parents(true)
            // A .gitignore counts outside a git repository too (a tarball's tree).
            .require_git(false)
            .follow_links(false)
            .overrides(self.exclude.clone())
            .filter_entry(|e| {
                !(e.file_type().is_some_and(|t| t.is_dir())
                    && e.depth() > 0
                    && SKIPPED.contains(&e.file_name().to_string_lossy().as_ref()))
            });
        let mut out = Vec::new();
        for entry in walk.build().flatten() {
            let path = entry.path();
            if !entry.file_type().is_some_and(|t| t.is_file()) || !is_fortran(path) {
                continue;
            }
            if !entry.metadata().is_ok_and(|m| m.len() <= MAX_BYTES) {
                continue;
            }
            if out.len() == MAX_FILES {
                out.sort();
                return (out, true);
            }
            out.push(path.to_path_buf());
        }
        out.sort();
        out.dedup();
        (out, false)
    }

    /// Whether the Fortran file at `path` is in scope (a file event of the editor's:
    /// created, changed, closed), by the rules of [`Scope::fortran_files`].
    pub fn admits(&self, path: &Path) -> bool {
        if !is_fortran(path) {
            return false;
        }
        let Some(dir) = self.dirs.iter().find(|d| path.starts_with(d)) else {
            return false;
        };
        // Each directory from the source directory down, and the file.
        let below: Vec<&Path> = path
            .ancestors()
            .take_while(|a| a.starts_with(dir) && *a != dir.as_path())
            .collect();
        for (k, p) in below.iter().enumerate() {
            let is_dir = k > 0;
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            if name.starts_with('.') || (is_dir && SKIPPED.contains(&name.as_ref())) {
                return false;
            }
            if self.exclude.matched(p, is_dir).is_ignore() {
                return false;
            }
        }
        !self.git_ignores(path)
    }

    /// Whether a `.gitignore` (or `.ignore`) between the root and `path` ignores it:
    /// the deepest one that says anything decides.
    fn git_ignores(&self, path: &Path) -> bool {
        let top = if path.starts_with(&self.root) {
            self.root.as_path()
        } else {
            Path::new("/")
        };
        let dirs: Vec<&Path> = path
            .ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(top))
            .collect();
        for dir in dirs {
            let Some(rules) = rules_in(dir) else { continue };
            let m = rules.matched_path_or_any_parents(path, false);
            if m.is_ignore() {
                return true;
            }
            if m.is_whitelist() {
                return false;
            }
        }
        false
    }
}

/// The ignore rules a directory's `.gitignore` and `.ignore` give, if it has any.
fn rules_in(dir: &Path) -> Option<Gitignore> {
    let files: Vec<PathBuf> = [".gitignore", ".ignore"]
        .iter()
        .map(|n| dir.join(n))
        .filter(|f| f.is_file())
        .collect();
    if files.is_empty() {
        return None;
    }
    let mut b = GitignoreBuilder::new(dir);
    for f in &files {
        // A rule that does not parse is left out, as git does.
        let _ = b.add(f);
    }
    b.build().ok()
}

/// `args` with each directory replaced by the Fortran files in it (gitignore-aware,
/// less `exclude`, relative to `base`), in order; files are kept as given. An error
/// for a directory without Fortran files or a bad glob.
pub fn expand(args: &[String], base: &Path, exclude: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for arg in args {
        let path = Path::new(arg);
        if !path.is_dir() {
            out.push(arg.clone());
            continue;
        }
        let dir = std::path::absolute(path).map_err(|e| format!("{arg}: {e}"))?;
        let scope = Scope::new(base, &[], exclude)?;
        let scope = Scope {
            dirs: vec![dir.clone()],
            ..scope
        };
        let (files, cut) = scope.fortran_files();
        if cut {
            eprintln!(
                "costline: warning: {arg}: more than {MAX_FILES} Fortran files; the first {MAX_FILES} are analyzed"
            );
        }
        if files.is_empty() {
            return Err(format!("{arg}: no Fortran files in the directory"));
        }
        // Shown as given: `src/` gives `src/a.f90`.
        out.extend(files.iter().map(|f| {
            let relative = f.strip_prefix(&dir).unwrap_or(f);
            path.join(relative).display().to_string()
        }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project tree with a .gitignore, hidden and build directories and an excluded
    /// directory: the files in scope, by walking and by asking about each.
    #[test]
    fn the_scan_honours_gitignore_exclude_and_source_dirs() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        for dir in ["src/sub", "src/gen", ".git", "target", "legacy", "doc"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        let files = [
            "src/a.f90",
            "src/sub/b.F",
            "src/c.txt",
            "src/gen/g.f90",
            "src/keep_old.f90",
            "src/drop_old.f90",
            ".git/d.f90",
            "target/e.f90",
            "legacy/l.f",
            "doc/x.f90",
            "f.HPF",
        ];
        for file in files {
            std::fs::write(root.join(file), "end\n").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "gen/\n*_old.f90\n").unwrap();
        std::fs::write(root.join("src/.gitignore"), "!keep_old.f90\n").unwrap();
        let names = |scope: &Scope| -> Vec<String> {
            let (found, cut) = scope.fortran_files();
            assert!(!cut);
            found
                .iter()
                .map(|p| p.strip_prefix(root).unwrap().display().to_string())
                .collect()
        };
        let all = Scope::new(root, &[], &["legacy/".into()]).unwrap();
        let expected = [
            "doc/x.f90",
            "f.HPF",
            "src/a.f90",
            "src/keep_old.f90",
            "src/sub/b.F",
        ];
        assert_eq!(names(&all), expected);
        for file in files {
            assert_eq!(
                all.admits(&root.join(file)),
                expected.contains(&file),
                "{file}"
            );
        }
        let src = Scope::new(root, &["src".into()], &["**/sub/".into()]).unwrap();
        assert_eq!(names(&src), ["src/a.f90", "src/keep_old.f90"]);
        assert!(!src.admits(&root.join("doc/x.f90")));
        assert!(!src.admits(&root.join("src/sub/b.F")));
        assert!(Scope::new(root, &[], &["a{b".into()]).is_err());
    }

    #[test]
    fn directories_on_the_command_line_expand_to_their_sources() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("p");
        std::fs::create_dir_all(dir.join("old")).unwrap();
        for f in ["b.f90", "a.f", "old/c.f90", "notes.txt"] {
            std::fs::write(dir.join(f), "end\n").unwrap();
        }
        let arg = dir.display().to_string();
        let got = expand(&[arg.clone(), "x.f90".into()], root.path(), &[]).unwrap();
        assert_eq!(
            got,
            [
                format!("{arg}/a.f"),
                format!("{arg}/b.f90"),
                format!("{arg}/old/c.f90"),
                "x.f90".to_string()
            ]
        );
        let got = expand(std::slice::from_ref(&arg), root.path(), &["p/old/".into()]).unwrap();
        assert_eq!(got.len(), 2);
        std::fs::create_dir_all(root.path().join("empty")).unwrap();
        let empty = root.path().join("empty").display().to_string();
        assert!(expand(&[empty], root.path(), &[]).is_err());
    }
}
