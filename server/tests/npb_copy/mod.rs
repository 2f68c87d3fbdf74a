//! A private, writable copy of one NPB suite at class S for the profile tests: the
//! corpus prepared once by tests/npb/prepare.sh into target/npb (as npb.rs reads it),
//! copied into a temporary directory where a benchmark's `npbparams.h` can be made
//! again for the build at hand.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// A temporary copy of `suite` (`NPB3.0-HPF`, `NPB3.4-MPI`) of the prepared corpus.
pub fn private_copy(suite: &str) -> tempfile::TempDir {
    let prepared = root().join("target/npb");
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("tests/npb/prepare.sh")).arg(&prepared);
    if let Ok(src) = std::env::var("COSTLINE_NPB") {
        cmd.arg(src);
    }
    let out = cmd.output().expect("bash runs");
    assert!(
        out.status.success(),
        "preparing the NPB corpus failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    let status = Command::new("cp")
        .arg("-r")
        .arg(prepared.join(format!("{suite}/.")))
        .arg(dir.path())
        .status()
        .expect("cp runs");
    assert!(status.success());
    dir
}

/// `npbparams.h` of benchmark `bench` (`cg`, `mg`) in `suite_dir` made again at class S
/// by NPB's setparams, from the suite's `config/make.def`.
pub fn set_params(suite_dir: &Path, bench: &str) {
    let here = suite_dir.join(bench.to_uppercase());
    std::fs::remove_file(here.join("npbparams.h")).expect("npbparams.h");
    let out = Command::new("../sys/setparams")
        .args([bench, "S"])
        .current_dir(&here)
        .output()
        .expect("setparams runs");
    assert!(here.join("npbparams.h").is_file(), "{out:?}");
}
