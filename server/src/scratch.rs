//! Private temporary directories for the programs costline runs (the compiler asked
//! for its report, `costline train`'s kernels): a new directory of a random name under
//! `$TMPDIR` (created, never reused: nobody can plant it beforehand), readable,
//! writable and searchable by its owner alone, and removed when dropped.

use std::os::unix::fs::PermissionsExt;

/// A new private directory `$TMPDIR/PREFIXxxxxxx`.
pub fn private_dir(prefix: &str) -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| format!("cannot make a temporary directory: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_directory_is_new_and_its_owners_alone() {
        let a = private_dir("costline-test-").unwrap();
        let b = private_dir("costline-test-").unwrap();
        assert_ne!(a.path(), b.path());
        let mode = std::fs::metadata(a.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        let path = a.path().to_path_buf();
        drop(a);
        assert!(!path.exists());
    }
}
