//! The Fortran programs of the training set, built into the binary (so `costline
//! train` works from any directory) and written to a scratch directory to compile.

use std::path::{Path, PathBuf};

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

/// The scratch directory `$TMPDIR/costline-train-PID`, removed when dropped.
pub struct Workdir {
    pub path: PathBuf,
}

impl Workdir {
    /// Creates the directory (emptying a stale one of the same name) and writes the
    /// sources into it.
    pub fn create() -> Result<Workdir, String> {
        let path = std::env::temp_dir().join(format!("costline-train-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let dir = Workdir { path };
        for (name, text) in SOURCES {
            std::fs::write(dir.path.join(name), text)
                .map_err(|e| format!("cannot write {}: {e}", dir.path.join(name).display()))?;
        }
        Ok(dir)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
