//! Asking the user's compiler what it vectorizes: `COMMAND FLAGS -c FILE -o FILE.o -J DIR
//! -fopt-info-vec-all=DIR/vec.txt` on a file's text, in a private temporary directory,
//! with a time limit, and its report read (`compiler_report`). For `check
//! --ask-compiler` (every file, in order, before the analysis) and the language server
//! (open documents, in the background). Never on the edit path: a compile takes
//! tenths of a second to seconds.
//!
//! The file is compiled under its own name (its extension decides the source form and
//! the preprocessor; an extension gfortran does not know, such as `.hpf`, is given as
//! free form, `.f77` as fixed) with `-I` its own directory and the include directories, so its
//! INCLUDEs and the module files built next to it are found. A file that does not
//! compile alone (a module no `.mod` provides, an unknown flag) gets its first error
//! instead of a report: costline's rules answer for it.

use crate::child::{self, Ended};
use costline_ide::compiler_report::{Report, first_error};
use costline_ide::{CompilerOutput, content_hash};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long one compile may take before it is stopped...
pub const LIMIT: Duration = Duration::from_secs(20);

/// ...and how long it then has to end on SIGTERM before its group is killed.
const GRACE: Duration = Duration::from_millis(500);

/// Whether `command`'s program (its first word) can be run: a path to a file, or a
/// name found in a directory of `PATH`.
pub fn available(command: &str) -> bool {
    let Some(program) = command.split_whitespace().next() else {
        return false;
    };
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|dirs| std::env::split_paths(&dirs).any(|d| d.join(program).is_file()))
}

/// What `command` (the compiler and its flags, [`costline_ide::Options::compiler_command`])
/// says about `bytes`, the text of the file at `path`: its vectorization report, or
/// why there is none. INCLUDEs and modules are searched in the file's directory, then
/// in `include_dirs`; `modules` is where module files are written and read besides
/// (a directory shared by the files of one program; `None`: a private one).
pub fn ask(
    command: &str,
    path: &Path,
    bytes: &[u8],
    include_dirs: &[PathBuf],
    modules: Option<&Path>,
) -> CompilerOutput {
    CompilerOutput {
        content: content_hash(bytes),
        compiler: command.to_string(),
        report: compile(command, path, bytes, include_dirs, modules).map(std::sync::Arc::new),
    }
}

/// The flags that name the language of a file whose Fortran extension gfortran does
/// not know (`.hpf`, `.f77`, `.f18`): none for one it knows.
pub fn language_flags(path: &Path) -> &'static [&'static str] {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("f" | "for" | "ftn" | "fpp" | "f90" | "f95" | "f03" | "f08") => &[],
        Some("f77") => &["-x", "f77"],
        _ => &["-x", "f95"],
    }
}

/// The report of one compile, or why there is none.
fn compile(
    command: &str,
    path: &Path,
    bytes: &[u8],
    include_dirs: &[PathBuf],
    modules: Option<&Path>,
) -> Result<Report, String> {
    let mut words = command.split_whitespace();
    let program = words.next().ok_or("no compiler command")?;
    let dir = crate::scratch::private_dir("costline-cc-")?;
    let name: OsString = path
        .file_name()
        .map_or_else(|| "source.f90".into(), OsString::from);
    let source = dir.path().join(&name);
    std::fs::write(&source, bytes)
        .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    let report = dir.path().join("vec.txt");
    let modules = modules.unwrap_or(dir.path());
    let mut cmd = Command::new(program);
    cmd.args(words)
        .arg("-c")
        .args(language_flags(Path::new(&name)))
        .arg(&name)
        .arg("-o")
        .arg(dir.path().join("out.o"))
        .arg("-J")
        .arg(modules)
        .arg(format!("-fopt-info-vec-all={}", report.display()));
    let own_dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    for d in own_dir
        .into_iter()
        .chain(include_dirs.iter().map(PathBuf::as_path))
    {
        cmd.arg("-I").arg(d);
    }
    // English messages in ASCII quotes, whatever the user's locale.
    cmd.env("LC_ALL", "C").current_dir(dir.path());
    let (success, stderr) = run(cmd, dir.path(), LIMIT)?;
    if !success {
        return Err(first_error(&stderr));
    }
    // GCC writes no file when it has nothing to say (a file without loops).
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    Ok(Report::parse(&text, &name.to_string_lossy()))
}

/// Runs `cmd` (stderr into a file in `dir`) for at most `limit`; past it, its whole
/// process group (the driver and the compiler proper it started) is stopped
/// ([`child::run_with_limit`]). Whether it succeeded, and what it wrote on stderr.
fn run(mut cmd: Command, dir: &Path, limit: Duration) -> Result<(bool, String), String> {
    let shown = format!("{:?}", cmd.get_program());
    let err_path = dir.join("stderr.txt");
    let err = std::fs::File::create(&err_path)
        .map_err(|e| format!("cannot write {}: {e}", err_path.display()))?;
    cmd.stdout(Stdio::null()).stderr(Stdio::from(err));
    match child::run_with_limit(cmd, limit, GRACE)? {
        Ended::Exited(status) => {
            let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
            Ok((status.success(), stderr))
        }
        Ended::Stopped => Err(format!(
            "{shown} did not finish within {} s and was stopped",
            limit.as_secs()
        )),
    }
}

/// What `command` says about each of `inputs` (path, text), compiled in order with one
/// directory for the module files they write, so that a file finds the modules of the
/// files before it; a file that failed for want of a module file is compiled again
/// after the others, as long as a round compiles one more.
pub fn ask_all(
    command: &str,
    inputs: &[(String, Vec<u8>)],
    include_dirs: &[PathBuf],
) -> Result<BTreeMap<String, CompilerOutput>, String> {
    let modules = crate::scratch::private_dir("costline-mod-")?;
    let mut out = BTreeMap::new();
    let mut pending: Vec<&(String, Vec<u8>)> = inputs.iter().collect();
    loop {
        let mut waiting = Vec::new();
        let mut compiled = 0;
        for input @ (path, bytes) in pending {
            let output = ask(
                command,
                Path::new(path),
                bytes,
                include_dirs,
                Some(modules.path()),
            );
            match &output.report {
                Ok(_) => compiled += 1,
                Err(e) if e.contains("Cannot open module file") => waiting.push(input),
                Err(_) => {}
            }
            out.insert(path.clone(), output);
        }
        // Again only when this round wrote module files the waiting ones may need.
        if waiting.is_empty() || compiled == 0 {
            return Ok(out);
        }
        pending = waiting;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compiler_is_found_on_the_path_or_at_its_path() {
        assert!(available("sh -c"));
        assert!(available("/bin/sh"));
        assert!(!available("no-such-compiler-xyz -O2"));
        assert!(!available("/no/such/gfortran"));
        assert!(!available("   "));
    }

    #[test]
    fn a_compile_past_its_limit_is_an_error_and_a_failure_gives_its_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let start = std::time::Instant::now();
        let e = run(cmd, dir.path(), Duration::from_millis(200)).unwrap_err();
        assert!(e.contains("did not finish within"), "{e}");
        assert!(start.elapsed() < Duration::from_secs(5));
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo 'Error: bad' >&2; exit 1"]);
        assert_eq!(
            run(cmd, dir.path(), LIMIT).unwrap(),
            (false, "Error: bad\n".to_string())
        );
    }
}
