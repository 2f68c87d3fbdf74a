//! Running the tools training needs (the Fortran compiler, the MPI wrapper compiler,
//! mpirun, the compiled programs) with a time limit, capturing their output.

use crate::child::{self, Ended};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// A command named by the user (`$FC`, `$MPIFC`, `--mpirun`): a program and leading
/// arguments, split on whitespace (`FC="gfortran-12 -std=f2008"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    /// How the user named it, for messages.
    pub spec: String,
    pub program: String,
    pub args: Vec<String>,
}

impl Tool {
    /// `spec` split on whitespace; None when it is empty.
    pub fn parse(spec: &str) -> Option<Tool> {
        let mut words = spec.split_whitespace().map(str::to_string);
        let program = words.next()?;
        Some(Tool {
            spec: spec.trim().to_string(),
            program,
            args: words.collect(),
        })
    }

    /// `spec` split on whitespace, else (empty) `default`.
    pub fn or_default(spec: &str, default: &str) -> Tool {
        Tool::parse(spec).unwrap_or_else(|| Tool {
            spec: default.to_string(),
            program: default.to_string(),
            args: Vec::new(),
        })
    }

    /// A command for this tool, with its leading arguments.
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args);
        c
    }

    /// The first line of `TOOL --version`, or why the tool cannot run.
    pub fn version(&self, dir: &Path) -> Result<String, String> {
        let mut c = self.command();
        c.arg("--version");
        let out = run(c, dir, Duration::from_secs(30))?;
        if !out.success {
            return Err(format!("`{} --version` failed: {}", self.spec, out.tail()));
        }
        let text = if out.stdout.trim().is_empty() {
            &out.stderr
        } else {
            &out.stdout
        };
        Ok(text.lines().next().unwrap_or("").trim().to_string())
    }
}

/// What a finished command printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// The last lines of stderr (else stdout), for error messages.
    pub fn tail(&self) -> String {
        let text = if self.stderr.trim().is_empty() {
            &self.stdout
        } else {
            &self.stderr
        };
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let start = lines.len().saturating_sub(6);
        lines[start..].join("\n")
    }
}

/// How long a tool past its limit has to end on SIGTERM (mpirun stopping its ranks)
/// before its process group is killed.
const GRACE: Duration = Duration::from_secs(3);

/// Runs `cmd` in `dir`, stdout and stderr into files there (no pipe to fill up), for at
/// most `limit`: past it the command's process group is stopped (mpirun and its ranks;
/// [`child::run_with_limit`]).
pub fn run(mut cmd: Command, dir: &Path, limit: Duration) -> Result<Output, String> {
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out_path = dir.join(format!(".out{n}"));
    let err_path = dir.join(format!(".err{n}"));
    let shown = format!("{:?}", cmd.get_program());
    let open = |p: &Path| {
        std::fs::File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    cmd.current_dir(dir)
        .stdout(Stdio::from(open(&out_path)?))
        .stderr(Stdio::from(open(&err_path)?));
    let ended = child::run_with_limit(cmd, limit, GRACE);
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let _ = std::fs::remove_file(&err_path);
    match ended? {
        Ended::Exited(s) => Ok(Output {
            success: s.success(),
            stdout,
            stderr,
        }),
        Ended::Stopped => Err(format!(
            "{shown} did not finish within {} s and was stopped",
            limit.as_secs()
        )),
    }
}

/// Runs `cmd` and returns its stdout when it succeeds; `what` names it in errors.
pub fn run_ok(cmd: Command, dir: &Path, limit: Duration, what: &str) -> Result<String, String> {
    let out = run(cmd, dir, limit).map_err(|e| format!("{what}: {e}"))?;
    if out.success {
        Ok(out.stdout)
    } else {
        Err(format!("{what} failed:\n{}", out.tail()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_split_on_whitespace() {
        let t = Tool::parse("  gfortran-12 -std=f2008 ").unwrap();
        assert_eq!((t.program.as_str(), t.args.len()), ("gfortran-12", 1));
        assert_eq!(Tool::parse("   "), None);
    }

    #[test]
    fn output_and_failure_and_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let mut c = Command::new("sh");
        c.args(["-c", "echo out; echo err >&2; exit 3"]);
        let o = run(c, dir, Duration::from_secs(10)).unwrap();
        assert!(!o.success);
        assert_eq!((o.stdout.trim(), o.stderr.trim()), ("out", "err"));
        let mut c = Command::new("sleep");
        c.arg("5");
        let e = run(c, dir, Duration::from_millis(200)).unwrap_err();
        assert!(e.contains("did not finish"), "{e}");
        let missing = Tool::parse("no-such-compiler-xyz").unwrap().version(dir);
        assert!(missing.is_err());
    }
}
