//! The LSP session fuzzer (tests/fuzz/lsp_fuzz.py, issue 25) against the built server:
//! a short seeded session of hostile edits, requests, cancellations and settings
//! changes, with drift checkpoints (results after the edits against a fresh server's).
//! The test fails with the script's summary when the session found a crash, a wedged
//! request, a panic (an InternalError answer), a position outside the document, drift,
//! or a bad exit; slow requests are reported only.
//!
//! The session's messages are recorded under the target's temp directory, so that a
//! failure can be sent again: `python3 tests/fuzz/lsp_fuzz.py --replay <record>`.
//! The script needs Python 3 (standard library only): without `python3` on PATH the
//! test fails, saying so, rather than passing without having run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

#[test]
fn a_short_seeded_fuzz_session_finds_nothing() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lsp_fuzz");
    std::fs::create_dir_all(&dir).expect("the fuzz session's directory");
    let record = dir.join("seed1.jsonl");
    let report = dir.join("seed1.json");
    let binary = env!("CARGO_BIN_EXE_costline");
    let start = Instant::now();
    let out = Command::new("python3")
        .arg(repo().join("tests/fuzz/lsp_fuzz.py"))
        .args([
            "--seed",
            "1",
            "--edits",
            "300",
            "--minutes",
            "2",
            "--checkpoint",
            "150",
        ])
        .arg("--binary")
        .arg(binary)
        .arg("--record")
        .arg(&record)
        .arg("--report")
        .arg(&report)
        .current_dir(repo())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run python3 ({e}): the LSP fuzz test runs tests/fuzz/lsp_fuzz.py and \
                 needs Python 3 (standard library only) on PATH"
            )
        });
    let summary = String::from_utf8_lossy(&out.stdout);
    let log = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "--- lsp_fuzz.py in {:.1} s, {} ---\n{log}\n{summary}",
        start.elapsed().as_secs_f64(),
        out.status
    );
    assert!(
        summary.contains("RESULT: "),
        "lsp_fuzz.py ended without a summary ({}):\n{log}",
        out.status
    );
    assert!(
        out.status.success(),
        "the fuzz session found problems ({}); the report is {}, and \
         `python3 tests/fuzz/lsp_fuzz.py --binary {binary} --replay {}` sends the session \
         again:\n{summary}",
        out.status,
        report.display(),
        record.display()
    );
}
