//! The Fortran programs of the training set, built into the binary (so `costline
//! train` works from any directory) and written to a scratch directory to compile.

use std::path::Path;

/// (file name, text) of every source in machines/training/.
pub const SOURCES: &[(&str, &str)] = &[
    (
        "kernels.f90",
        include_str!("../../../machines/training/kernels.f90"),
    ),
    (
        "tiny.f90",
        include_str!("../../../machines/training/tiny.f90"),
    ),
    (
        "ops.f90",
        include_str!("../../../machines/training/ops.f90"),
    ),
    (
        "memory.f90",
        include_str!("../../../machines/training/memory.f90"),
    ),
    (
        "pingpong.f90",
        include_str!("../../../machines/training/pingpong.f90"),
    ),
    (
        "collectives.f90",
        include_str!("../../../machines/training/collectives.f90"),
    ),
];

/// The scratch directory the kernels are compiled and run in: a private temporary
/// directory (`$TMPDIR/costline-train-XXXXXX`, [`crate::scratch::private_dir`]: on a
/// shared `/tmp` nobody else can plant it, or the binaries run from it), removed when
/// dropped.
pub struct Workdir {
    dir: tempfile::TempDir,
}

impl Workdir {
    /// Creates the directory and writes the sources into it.
    pub fn create() -> Result<Workdir, String> {
        let dir = crate::scratch::private_dir("costline-train-")?;
        for (name, text) in SOURCES {
            let path = dir.path().join(name);
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(Workdir { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A directory planted under the name the old scheme used is neither reused nor
    /// removed; each run gets a fresh directory of its owner's alone.
    #[test]
    fn each_run_gets_a_private_new_directory() {
        let planted = std::env::temp_dir().join(format!("costline-train-{}", std::process::id()));
        let _ = std::fs::create_dir(&planted);
        let a = Workdir::create().unwrap();
        let b = Workdir::create().unwrap();
        assert_ne!(a.path(), b.path());
        assert_ne!(a.path(), planted);
        let mode = std::fs::metadata(a.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        assert!(a.path().join("kernels.f90").is_file());
        let path = a.path().to_path_buf();
        drop(a);
        assert!(!path.exists());
        assert!(planted.is_dir());
        let _ = std::fs::remove_dir(&planted);
    }
}
