//! Running a built program once, with a time limit: its arguments, the directory it
//! runs in, its environment; what it printed, and how it ended.

use crate::child::{self, Ended};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long a program past its limit has to end on SIGTERM before it is killed.
const GRACE: Duration = Duration::from_secs(2);

/// What a run printed, and how it ended.
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    /// Its exit status (`None`: killed by a signal).
    pub status: Option<i32>,
}

/// Runs `cmd` (a built program and its arguments, or a launcher running it) in `cwd`
/// (`env` added to its environment; standard input from `stdin`, else none) for at
/// most `limit`, its output kept in files of `scratch`. An error when it cannot be
/// started or runs past its limit (then its process group is stopped: a launcher and
/// its ranks).
pub fn run(
    mut cmd: Command,
    cwd: &Path,
    env: &[(&str, &std::ffi::OsStr)],
    stdin: Option<&Path>,
    scratch: &Path,
    limit: Duration,
) -> Result<Ran, String> {
    let out_path = scratch.join("stdout.txt");
    let err_path = scratch.join("stderr.txt");
    let open = |p: &Path| {
        std::fs::File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    cmd.current_dir(cwd)
        .stdout(Stdio::from(open(&out_path)?))
        .stderr(Stdio::from(open(&err_path)?));
    for (name, value) in env {
        cmd.env(name, value);
    }
    let input = stdin
        .map(|p| std::fs::File::open(p).map_err(|e| format!("cannot read {}: {e}", p.display())))
        .transpose()?;
    let ended = child::run_with_limit_input(cmd, input, limit, GRACE)?;
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    match ended {
        Ended::Exited(s) => Ok(Ran {
            stdout,
            stderr,
            status: s.code(),
        }),
        Ended::Stopped => Err(format!(
            "the program did not finish within {} s and was stopped (give a longer \
             --timeout)",
            limit.as_secs()
        )),
    }
}
