//! How the editor loop scales with the file, through the real server over stdio (not a
//! timed test: run it with `cargo bench -p costline-server --bench edit_scaling`).
//! Files of identical twelve-line HPF procedures (`small_procedures_file`) of 200, 2,000
//! and 8,334 procedures (2.4k, 24k and 100k lines):
//! (a) open to the first hover in the middle procedure, on a fresh server;
//! (b) open to the whole file's pull diagnostics, and the resident memory then;
//! (c) a one-character edit inside the middle procedure to the refreshed inlay hints of
//!     the screen around it: median and p95 over 35 edits;
//! then (d) how fast a `$/cancelRequest` answers while an expensive analysis runs (the
//! cold diagnostics of the 200-procedure `workspace_file`, ~20k lines, N bound), and
//! (e) resident memory after 100 and after 10,000 edits of the 2,000-procedure file.
//! Pass `quick` (`cargo bench ... -- quick`) to leave out the 100k-line file and (e);
//! `edits` to run only 1,000 edits of the 2,000-procedure file (`edits-100k`: of the
//! 8,334-procedure one), `diagnostics-100k` only (b) of the 8,334-procedure file,
//! `scale-N` only (a), (b) and (c) of a file of N procedures, for a profiler.

#[path = "../tests/lsp_client/mod.rs"]
#[allow(dead_code)] // the tests use more of the client than the benchmark
mod lsp_client;

#[path = "measure/mod.rs"]
mod measure;

use costline_fixtures::synthetic::{small_procedures_file, workspace_file};
use lsp_client::{Client, capabilities};
use measure::{memory, ms, summary};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

const EDITS: usize = 35;
const SCREEN: usize = 60;

fn position(line: usize, character: usize) -> Value {
    json!({"line": line, "character": character})
}

/// A file on disk and where its middle procedure's comment line is.
struct Bench {
    uri: String,
    text: String,
    /// The line of `! procedure k` of the middle procedure, and its length.
    marker: usize,
    marker_col: usize,
}

impl Bench {
    fn new(dir: &Path, procedures: usize) -> Bench {
        let text = small_procedures_file(procedures);
        let needle = format!("  ! procedure {}", procedures / 2);
        let marker = text
            .lines()
            .position(|l| l == needle)
            .expect("the middle procedure");
        let path = dir.join(format!("small_{procedures}.f90"));
        std::fs::write(&path, &text).expect("write the file");
        Bench {
            uri: format!("file://{}", path.display()),
            text,
            marker,
            marker_col: needle.len(),
        }
    }

    fn start(&self) -> Client {
        let mut c = Client::start(&[]);
        c.settings = json!({"params": {"n": 1024}});
        c.initialize(capabilities(&["utf-16"], true), None);
        c
    }

    fn screen(&self) -> Value {
        json!({"start": position(self.marker.saturating_sub(SCREEN / 2), 0),
               "end": position(self.marker + SCREEN / 2, 0)})
    }

    /// Opens the file on `c` and pulls its diagnostics: how long that took, and how many
    /// there are.
    fn open_to_diagnostics(&self, c: &mut Client) -> (Duration, usize) {
        let t = Instant::now();
        c.open(&self.uri, &self.text);
        let diags = c.result(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": self.uri}}),
        );
        (t.elapsed(), diags["items"].as_array().map_or(0, Vec::len))
    }

    fn hints(&self, c: &mut Client) -> Value {
        c.result(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": self.uri}, "range": self.screen()}),
        )
    }
}

/// Types characters at the end of the middle procedure's comment.
struct Typist {
    version: i32,
    typed: usize,
}

impl Typist {
    fn edit(&mut self, c: &mut Client, b: &Bench) {
        self.version += 1;
        let col = b.marker_col + self.typed;
        self.typed += 1;
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": b.uri, "version": self.version}, "contentChanges": [
                {"range": {"start": position(b.marker, col), "end": position(b.marker, col)}, "text": "x"}
            ]}),
        );
    }
}

/// (a), (b) and (c) for one file size; returns the edit median.
fn scale(dir: &Path, procedures: usize) -> f64 {
    let b = Bench::new(dir, procedures);
    let lines = b.text.lines().count();
    // (a) open to the first hover, on its own server.
    let mut c = b.start();
    let t = Instant::now();
    c.open(&b.uri, &b.text);
    let hover = c.result(
        "textDocument/hover",
        json!({"textDocument": {"uri": b.uri}, "position": position(b.marker + 2, 5)}),
    );
    let first_hover = t.elapsed();
    assert!(hover.is_object(), "a hover: {hover}");
    c.shutdown();
    // (b) open to the whole file's diagnostics.
    let mut c = b.start();
    let (diagnostics, items) = b.open_to_diagnostics(&mut c);
    let rss = memory(c.pid()).0;
    // (c) edits to refreshed hints.
    let mut typist = Typist {
        version: 1,
        typed: 0,
    };
    for _ in 0..5 {
        typist.edit(&mut c, &b);
        b.hints(&mut c);
    }
    let mut to_hints = Vec::new();
    for _ in 0..EDITS {
        let t = Instant::now();
        typist.edit(&mut c, &b);
        let h = b.hints(&mut c);
        to_hints.push(ms(t.elapsed()));
        assert!(h.as_array().is_some_and(|a| !a.is_empty()), "hints: {h}");
    }
    let (median, p95) = summary(to_hints);
    println!(
        "{procedures:>5} procedures ({lines:>6} lines): (a) open to first hover {:>7.1} ms | \
         (b) open to diagnostics {:>7.1} ms ({} items), RSS {rss:.0} MiB | \
         (c) edit to hints median {median:.2} ms, p95 {p95:.2} ms",
        ms(first_hover),
        ms(diagnostics),
        items,
    );
    c.shutdown();
    median
}

/// (d): a diagnostics request on a cold, expensive file, cancelled after `after`; the
/// time from the cancellation to the answer, and the answer's error code.
fn cancel(dir: &Path, after: Duration) -> (f64, i64) {
    let text = workspace_file(200);
    let path = dir.join("work.f90");
    std::fs::write(&path, &text).expect("write the file");
    let uri = format!("file://{}", path.display());
    let mut c = Client::start(&[]);
    c.settings = json!({"params": {"n": 1024}});
    c.initialize(capabilities(&["utf-16"], true), None);
    c.open(&uri, &text);
    let id = c.send_request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    );
    std::thread::sleep(after);
    let t = Instant::now();
    c.notify("$/cancelRequest", json!({"id": id}));
    let answer = c.response(id);
    let took = ms(t.elapsed());
    let code = answer["error"]["code"].as_i64().unwrap_or(0);
    c.shutdown();
    (took, code)
}

/// (e): resident memory after 100 and after 10,000 edits, each followed by the screen's
/// hints.
fn long_session(dir: &Path) -> (f64, f64) {
    let b = Bench::new(dir, 2000);
    let mut c = b.start();
    c.open(&b.uri, &b.text);
    c.result(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": b.uri}}),
    );
    let mut typist = Typist {
        version: 1,
        typed: 0,
    };
    let mut after_100 = f64::NAN;
    for k in 1..=10_000 {
        // Type on one line, then start again (a line of 10,000 characters is not typing).
        if typist.typed == 60 {
            typist.version += 1;
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": b.uri, "version": typist.version}, "contentChanges": [
                    {"range": {"start": position(b.marker, b.marker_col), "end": position(b.marker, b.marker_col + 60)}, "text": ""}
                ]}),
            );
            typist.typed = 0;
        }
        typist.edit(&mut c, &b);
        b.hints(&mut c);
        if k == 100 {
            after_100 = memory(c.pid()).0;
        }
    }
    let after = memory(c.pid()).0;
    c.shutdown();
    (after_100, after)
}

/// (b) alone: open the file of `procedures` and pull its diagnostics.
fn diagnostics_only(dir: &Path, procedures: usize) {
    let b = Bench::new(dir, procedures);
    let mut c = b.start();
    let (took, items) = b.open_to_diagnostics(&mut c);
    let (rss, peak) = memory(c.pid());
    println!(
        "open to diagnostics {:.1} ms ({items} items), RSS {rss:.0} MiB, peak {peak:.0} MiB",
        ms(took),
    );
    c.shutdown();
}

/// 1,000 edits of a file of `procedures`, each followed by the screen's hints.
fn edits_only(dir: &Path, procedures: usize) {
    let b = Bench::new(dir, procedures);
    let mut c = b.start();
    c.open(&b.uri, &b.text);
    b.hints(&mut c);
    let mut typist = Typist {
        version: 1,
        typed: 0,
    };
    let t = Instant::now();
    for _ in 0..1000 {
        typist.edit(&mut c, &b);
        b.hints(&mut c);
    }
    println!(
        "1,000 edits to hints: {:.2} ms each",
        ms(t.elapsed()) / 1000.0
    );
    c.shutdown();
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let dir = std::env::temp_dir().join(format!("costline-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    if std::env::args().any(|a| a == "diagnostics-100k") {
        diagnostics_only(&dir, 8334);
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    if let Some(n) = std::env::args().find_map(|a| a.strip_prefix("scale-")?.parse().ok()) {
        scale(&dir, n);
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    if let Some(a) = std::env::args().find(|a| a.starts_with("edits")) {
        edits_only(&dir, if a == "edits-100k" { 8334 } else { 2000 });
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let small = scale(&dir, 200);
    let large = scale(&dir, 2000);
    println!(
        "edit to hints, 2,000 over 200 procedures: {:.2}x",
        large / small
    );
    if !quick {
        scale(&dir, 8334);
    }
    for after in [100, 300] {
        let (took, code) = cancel(&dir, Duration::from_millis(after));
        println!(
            "(d) cancel {after} ms into the cold diagnostics of the 20k-line file: answered in {took:.1} ms (error code {code})"
        );
    }
    if !quick {
        let (a, b) = long_session(&dir);
        println!(
            "(e) RSS after 100 edits {a:.0} MiB, after 10,000 edits {b:.0} MiB ({:+.0} %)",
            (b / a - 1.0) * 100.0
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
