//! A cold `costline check --format json` of the `lsp_latency` benchmark's file (the
//! synthetic workspace of 200 procedures of about 100 lines, 19.7k lines: work
//! formulas, counts, communication, cache and times of every statement), through the
//! real binary (not a timed test: `cargo bench -p costline-server --bench cold_check`):
//! wall time (median and spread of 5 runs), peak resident memory and the report's size.
//! `-- write PATH` only writes the file to PATH (to profile the binary on it, or to
//! diff its report before and after a change).

#[path = "measure/mod.rs"]
mod measure;

use costline_fixtures::synthetic::workspace_file;
use measure::{memory, ms, summary};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 5;

/// One run: wall time, peak resident memory (MiB, sampled every 5 ms until the end)
/// and the bytes the report has.
fn run(path: &str) -> (Duration, f64, usize) {
    let t = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_costline"))
        .args(["check", "--format", "json", path])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start costline");
    let pid = child.id();
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).expect("read the report");
        out.len()
    });
    let mut peak: f64 = 0.0;
    while child.try_wait().expect("wait").is_none() {
        let (_, hwm) = memory(pid);
        if hwm.is_finite() {
            peak = peak.max(hwm);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let took = t.elapsed();
    (took, peak, reader.join().expect("the reader"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "write") {
        let path = args.get(k + 1).expect("write PATH");
        std::fs::write(path, workspace_file(200)).expect("write the file");
        return;
    }
    let dir = std::env::temp_dir().join(format!("costline-cold-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("work.f90");
    let text = workspace_file(200);
    std::fs::write(&path, &text).expect("write the file");
    let path = path.to_string_lossy().into_owned();
    let mut times = Vec::new();
    let mut peaks = Vec::new();
    let mut bytes = 0;
    for _ in 0..RUNS {
        let (took, peak, size) = run(&path);
        times.push(ms(took));
        peaks.push(peak);
        bytes = size;
    }
    let (lo, hi) = (
        times.iter().copied().fold(f64::INFINITY, f64::min),
        times.iter().copied().fold(0.0, f64::max),
    );
    let (median, _) = summary(times);
    let (peak, _) = summary(peaks);
    println!(
        "cold check --format json of {} lines: median {median:.0} ms over {RUNS} runs \
         ({lo:.0}-{hi:.0}), peak RSS {peak:.0} MiB, report {:.1} MB",
        text.lines().count(),
        bytes as f64 / 1e6,
    );
    let _ = std::fs::remove_dir_all(&dir);
}
