//! Child processes with a time limit: the compiler asked for its vectorization report
//! (`ask_compiler`) and the tools `costline train` runs (compilers, mpirun, the
//! training programs). Each child runs in a process group of its own, so that what it
//! starts (gfortran's f951, mpirun's ranks) can be stopped with it; past the limit the
//! group is signalled directly (`kill(2)` on the group, through rustix: no shell, no
//! `kill` program found on `PATH`): SIGTERM first, so that mpirun can stop its ranks,
//! then SIGKILL for whatever is left after a grace period.

use rustix::process::{Pid, Signal, kill_process_group};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How a child ended.
#[derive(Debug)]
pub enum Ended {
    /// It exited (or was killed by someone else) within the limit.
    Exited(ExitStatus),
    /// It ran past the limit and its process group was stopped.
    Stopped,
}

/// Runs `cmd` (stdin closed; its stdout and stderr as the caller set them) in a
/// process group of its own for at most `limit`; past it, its group is stopped
/// ([`stop_group`], `grace` between SIGTERM and SIGKILL). An error when it cannot be
/// started or waited for.
pub fn run_with_limit(cmd: Command, limit: Duration, grace: Duration) -> Result<Ended, String> {
    run_with_limit_input(cmd, None, limit, grace)
}

/// [`run_with_limit`] with standard input read from `input` (none: closed).
pub fn run_with_limit_input(
    mut cmd: Command,
    input: Option<std::fs::File>,
    limit: Duration,
    grace: Duration,
) -> Result<Ended, String> {
    let shown = format!("{:?}", cmd.get_program());
    let stdin = input.map_or_else(Stdio::null, Stdio::from);
    cmd.stdin(stdin).process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(Ended::Exited(status)),
            Ok(None) if start.elapsed() < limit => std::thread::sleep(poll_interval(start)),
            Ok(None) => {
                stop_group(&mut child, grace);
                return Ok(Ended::Stopped);
            }
            Err(e) => {
                stop_group(&mut child, Duration::ZERO);
                return Err(format!("waiting for {shown}: {e}"));
            }
        }
    }
}

/// Short polls first (most compiles end within tenths of a second), then 50 ms.
fn poll_interval(start: Instant) -> Duration {
    if start.elapsed() < Duration::from_secs(1) {
        Duration::from_millis(10)
    } else {
        Duration::from_millis(50)
    }
}

/// Stops the process group whose leader is `child` (a child started with
/// `process_group(0)`, not yet reaped): SIGTERM to the group, up to `grace` for the
/// leader to exit, then SIGKILL to the group (members that ignored SIGTERM or have not
/// exited yet), and the leader reaped. The group is signalled while its id is still
/// held: the leader is reaped only after the last signal or when it exited by itself
/// (then the group's id stays reserved for as long as a member is left, and a group
/// without members answers ESRCH, which is ignored).
pub fn stop_group(child: &mut Child, grace: Duration) {
    let group = Pid::from_child(child);
    if !grace.is_zero() {
        let _ = kill_process_group(group, Signal::TERM);
        let start = Instant::now();
        while start.elapsed() < grace {
            if matches!(child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let _ = kill_process_group(group, Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the process `pid` runs (it exists and is not a zombie).
    fn alive(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| !r.trim_start().starts_with('Z'))
        })
    }

    /// Waits up to 2 s for `pid` to be gone.
    fn gone(pid: &str) -> bool {
        let deadline = Instant::now() + Duration::from_secs(2);
        while alive(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        !alive(pid)
    }

    /// A shell that starts a child and waits for it (as gfortran waits for f951, or
    /// mpirun for its ranks), the child's pid written to `child`.
    fn driver(dir: &std::path::Path, script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]).current_dir(dir);
        cmd
    }

    #[test]
    fn a_child_within_its_limit_exits_with_its_status() {
        let dir = tempfile::tempdir().unwrap();
        let ended = run_with_limit(
            driver(dir.path(), "exit 3"),
            Duration::from_secs(10),
            Duration::from_secs(1),
        )
        .unwrap();
        assert!(
            matches!(ended, Ended::Exited(s) if s.code() == Some(3)),
            "{ended:?}"
        );
        let missing = run_with_limit(
            Command::new("/no/such/program"),
            Duration::from_secs(1),
            Duration::ZERO,
        );
        assert!(missing.unwrap_err().starts_with("cannot run"));
    }

    #[test]
    fn past_its_limit_the_whole_group_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let start = Instant::now();
        let ended = run_with_limit(
            driver(dir.path(), "sleep 30 & echo $! > child; wait"),
            Duration::from_millis(300),
            Duration::from_secs(2),
        )
        .unwrap();
        assert!(matches!(ended, Ended::Stopped), "{ended:?}");
        // SIGTERM ends both at once: no grace period waited out.
        assert!(
            start.elapsed() < Duration::from_millis(1500),
            "{:?}",
            start.elapsed()
        );
        let child = std::fs::read_to_string(dir.path().join("child")).unwrap();
        assert!(
            gone(&child),
            "the driver's child {} still runs",
            child.trim()
        );
    }

    #[test]
    fn a_group_that_ignores_sigterm_is_killed_after_the_grace_period() {
        let dir = tempfile::tempdir().unwrap();
        let start = Instant::now();
        // The ignored SIGTERM is inherited by the child.
        let ended = run_with_limit(
            driver(
                dir.path(),
                "trap '' TERM; sleep 30 & echo $! > child; wait; wait",
            ),
            Duration::from_millis(200),
            Duration::from_millis(500),
        )
        .unwrap();
        assert!(matches!(ended, Ended::Stopped), "{ended:?}");
        assert!(
            start.elapsed() >= Duration::from_millis(700),
            "{:?}",
            start.elapsed()
        );
        let child = std::fs::read_to_string(dir.path().join("child")).unwrap();
        assert!(gone(&child), "the child {} survived SIGKILL", child.trim());
    }
}
