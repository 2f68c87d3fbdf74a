//! The Fortran files of a workspace folder: found by extension, hidden directories and
//! build output skipped, with limits so that opening a home directory by mistake does
//! not read the disk for minutes.

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

/// Directories that hold no sources of the project.
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

/// The Fortran files under `root`, sorted, and whether the limit cut the list short.
pub fn fortran_files(root: &Path) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.') && !SKIPPED.contains(&name.as_ref()) {
                    pending.push(path);
                }
            } else if kind.is_file()
                && is_fortran(&path)
                && entry.metadata().is_ok_and(|m| m.len() <= MAX_BYTES)
            {
                if out.len() == MAX_FILES {
                    out.sort();
                    return (out, true);
                }
                out.push(path);
            }
        }
    }
    out.sort();
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_fortran_sources_and_skips_hidden_and_build_directories() {
        let root = std::env::temp_dir().join(format!("costline-ws-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for dir in ["src/sub", ".git", "target"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        for file in [
            "src/a.f90",
            "src/sub/b.F",
            "src/c.txt",
            ".git/d.f90",
            "target/e.f90",
            "f.HPF",
        ] {
            std::fs::write(root.join(file), "end\n").unwrap();
        }
        let (files, cut) = fortran_files(&root);
        let names: Vec<String> = files
            .iter()
            .map(|p| {
                p.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["f.HPF", "src/a.f90", "src/sub/b.F"]);
        assert!(!cut);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
