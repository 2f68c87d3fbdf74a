//! The editor loop measured through the real server over stdio (not a timed test: run
//! it with `cargo bench -p costline-server --bench lsp_latency`), on the synthetic
//! workspace file of 200 procedures and about 20,000 lines:
//! (a) cold open to the first diagnostics (and to the first inlay hints of a screen),
//! (b) a one-character edit inside one procedure to the refreshed inlay hints of the
//!     screen around it, median and p95 over 100 edits (and edit to hover),
//! (c) resident memory.
//! The same file goes through fortls (`pip install fortls`), when it is installed:
//! open to its published diagnostics, edit to hover (it has no inlay hints), and edit
//! plus save to its refreshed diagnostics (it re-analyzes on save, not on edits).

#[path = "../tests/lsp_client/mod.rs"]
#[allow(dead_code)] // the tests use more of the client than the benchmark
mod lsp_client;

#[path = "measure/mod.rs"]
mod measure;

use costline_fixtures::synthetic::workspace_file;
use lsp_client::{Client, capabilities};
use measure::{memory, ms, summary};
use serde_json::{Value, json};
use std::time::Instant;

const EDITS: usize = 100;
const FORTLS_EDITS: usize = 20;
const SAVES: usize = 10;
const SCREEN: usize = 60;

fn position(line: usize, character: usize) -> Value {
    json!({"line": line, "character": character})
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported.
    let text = workspace_file(200);
    let lines: Vec<&str> = text.lines().collect();
    let marker = lines
        .iter()
        .position(|l| l.contains("! Kernel 100: setup"))
        .expect("procedure 100");
    let marker_col = lines[marker].len();
    let hover_line = marker + 1; // `s = 0.0`
    let dir = std::env::temp_dir().join(format!("costline-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("work.f90");
    std::fs::write(&path, &text).expect("write the file");
    let uri = format!("file://{}", path.display());
    println!(
        "file: {} lines, {} procedures, {} KiB",
        lines.len(),
        200,
        text.len() / 1024
    );

    // costline
    let mut c = Client::start(&[]);
    // The procedures' `n` is a dummy argument: bind it, as a user studying N = 1024 would,
    // so that the work of every processor is computed too.
    c.settings = json!({"params": {"n": 1024}});
    c.initialize(capabilities(&["utf-16"], true), None);
    let screen = json!({"start": position(marker.saturating_sub(SCREEN / 2), 0), "end": position(marker + SCREEN / 2, 0)});
    let t0 = Instant::now();
    c.open(&uri, &text);
    let diags = c.result(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    );
    let cold_diagnostics = t0.elapsed();
    let t1 = Instant::now();
    c.result(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": screen}),
    );
    let first_hints = t1.elapsed();
    println!(
        "costline (a) cold open to first diagnostics: {:.1} ms ({} diagnostics); then the first screen of hints: {:.1} ms",
        ms(cold_diagnostics),
        diags["items"].as_array().map_or(0, Vec::len),
        ms(first_hints)
    );

    let mut version = 1;
    let mut typed = 0;
    let mut edit = |c: &mut Client| {
        // Typing one character at the end of the comment of procedure 100.
        version += 1;
        let col = marker_col + typed;
        typed += 1;
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": position(marker, col), "end": position(marker, col)}, "text": "x"}
            ]}),
        );
    };
    for _ in 0..5 {
        edit(&mut c);
        c.result(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": screen}),
        );
    }
    let mut to_hints = Vec::new();
    for _ in 0..EDITS {
        let t = Instant::now();
        edit(&mut c);
        let h = c.result(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": screen}),
        );
        to_hints.push(ms(t.elapsed()));
        assert!(h.as_array().is_some_and(|a| !a.is_empty()), "hints: {h}");
    }
    let (median, p95) = summary(to_hints);
    println!(
        "costline (b) one-character edit to refreshed inlay hints: median {median:.2} ms, p95 {p95:.2} ms over {EDITS} edits"
    );
    let mut to_hover = Vec::new();
    for _ in 0..FORTLS_EDITS {
        let t = Instant::now();
        edit(&mut c);
        c.result(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(hover_line, 3)}),
        );
        to_hover.push(ms(t.elapsed()));
    }
    let (hover_median, hover_p95) = summary(to_hover);
    println!(
        "costline     one-character edit to hover: median {hover_median:.2} ms, p95 {hover_p95:.2} ms over {FORTLS_EDITS} edits"
    );
    let (rss, peak) = memory(c.pid());
    println!("costline (c) resident memory: {rss:.0} MiB (peak {peak:.0} MiB)");
    c.shutdown();

    // fortls, if installed.
    if std::process::Command::new("fortls")
        .arg("--version")
        .output()
        .is_err()
    {
        println!("fortls: not installed (pip install fortls) — no comparison");
        return;
    }
    let mut f = Client::spawn(
        "fortls",
        &["--disable_autoupdate", "--incremental_sync"],
        &[],
    );
    f.initialize(capabilities(&["utf-16"], false), None);
    let t0 = Instant::now();
    f.open(&uri, &text);
    f.notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri.as_str()
    });
    let fortls_open = t0.elapsed();
    let mut version = 1;
    let mut typed = 0;
    let mut fortls_edit = |f: &mut Client| {
        version += 1;
        let col = marker_col + typed;
        typed += 1;
        f.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": position(marker, col), "end": position(marker, col)}, "text": "x"}
            ]}),
        );
    };
    let mut fortls_hover = Vec::new();
    for _ in 0..FORTLS_EDITS {
        let t = Instant::now();
        fortls_edit(&mut f);
        f.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(hover_line, 3)}),
        );
        fortls_hover.push(ms(t.elapsed()));
    }
    let mut fortls_save = Vec::new();
    for _ in 0..SAVES {
        let t = Instant::now();
        fortls_edit(&mut f);
        f.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}}),
        );
        f.notification("textDocument/publishDiagnostics", |p| {
            p["uri"] == uri.as_str()
        });
        fortls_save.push(ms(t.elapsed()));
    }
    let (fortls_median, fortls_p95) = summary(fortls_hover);
    let (save_median, save_p95) = summary(fortls_save);
    let (frss, fpeak) = memory(f.pid());
    println!(
        "fortls   (a) open to published diagnostics: {:.1} ms",
        ms(fortls_open)
    );
    println!(
        "fortls       one-character edit to hover: median {fortls_median:.2} ms, p95 {fortls_p95:.2} ms over {FORTLS_EDITS} edits (the edit is not analyzed until a save)"
    );
    println!(
        "fortls       edit and save to refreshed diagnostics: median {save_median:.1} ms, p95 {save_p95:.1} ms over {SAVES} saves"
    );
    println!("fortls   (c) resident memory: {frss:.0} MiB (peak {fpeak:.0} MiB)");
    println!(
        "ratios fortls/costline: open to diagnostics {:.1}x; refreshed results after an edit (fortls: edit+save to diagnostics; costline: edit to hints) {:.0}x",
        ms(fortls_open) / ms(cold_diagnostics),
        save_median / median
    );
    f.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}
