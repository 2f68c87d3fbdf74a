//! The CLI's results on standard output. A reader that stops reading early
//! (`costline check … | head`) ends the output quietly, the way Unix tools do, instead
//! of panicking as `print!` does on a closed pipe; any other write error is said once on
//! standard error.

use std::io::{ErrorKind, Write};

/// Writes `text` to standard output.
pub fn write(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        failed(&e);
    }
}

/// Says that writing the output failed, unless its reader went away.
pub fn failed(e: &std::io::Error) {
    if e.kind() != ErrorKind::BrokenPipe {
        eprintln!("costline: cannot write the output: {e}");
    }
}
