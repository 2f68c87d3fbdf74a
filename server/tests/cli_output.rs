//! The CLI's output when its reader goes away: `costline check … | head` must end
//! quietly with the analysis's exit code, not panic on the closed pipe.

use std::io::Read;
use std::process::{Command, Stdio};

/// A file whose text report is far larger than a pipe's buffer.
fn many_procedures(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::new();
    for k in 0..400 {
        text += &format!(
            "subroutine s{k}(a, n)\n  integer :: n, i\n  real :: a(n)\n  do i = 1, n\n    a(i) = a(i) + 1\n  end do\nend subroutine\n"
        );
    }
    let path = dir.join("many.f90");
    std::fs::write(&path, text).expect("writes");
    path
}

#[test]
fn a_reader_that_stops_early_ends_the_output_quietly() {
    let dir = std::env::temp_dir().join(format!("costline-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = many_procedures(&dir);
    for format in ["text", "json"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_costline"))
            .args(["check", path.to_str().unwrap(), "--format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        let mut first = [0u8; 64];
        child
            .stdout
            .as_mut()
            .unwrap()
            .read_exact(&mut first)
            .expect("some output");
        // The reader goes away (what `head` does after its lines).
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("exits");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{format}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
