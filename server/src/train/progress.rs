//! Progress on stderr: one line per phase (`[3/7] memory: pointer chase 4 KiB ..
//! 256 MiB`), the phase's findings indented below it, and its duration.

use std::io::Write as _;
use std::time::Instant;

/// Writes `text` and a newline to stderr, ignoring errors (a closed stderr must not
/// stop the training, and `eprintln!` would panic).
pub fn err(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

pub struct Progress {
    total: usize,
    done: usize,
    started: Instant,
    phase_started: Instant,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            started: Instant::now(),
            phase_started: Instant::now(),
        }
    }

    /// Starts the next phase: `[i/N] what`.
    pub fn phase(&mut self, what: &str) {
        self.done += 1;
        self.phase_started = Instant::now();
        err(&format!("[{}/{}] {what}", self.done, self.total));
    }

    /// Ends the current phase with its duration.
    pub fn end_phase(&self) {
        err(&format!(
            "    ({:.1} s)",
            self.phase_started.elapsed().as_secs_f64()
        ));
    }

    /// An indented detail line of the current phase.
    pub fn say(&self, text: &str) {
        for line in text.lines() {
            err(&format!("    {line}"));
        }
    }

    /// Seconds since training started.
    pub fn elapsed_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}
