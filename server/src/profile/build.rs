//! Building a program from a copy of its sources: the files written under a build
//! directory as they sit under their common directory (so that INCLUDE lines find
//! the copies of the included files that changed, and the originals of the others
//! through `-I`), compiled one by one with the user's compiler (a file that waits for
//! another's module file again after the others) and linked.

use crate::ask_compiler::language_flags;
use crate::child::{self, Ended};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long one compile or the link may take.
const LIMIT: Duration = Duration::from_secs(300);

/// What to build: the program's sources in order (path, bytes), the texts that
/// replace some of them or of the files they include (by path), a source of
/// costline's own compiled first (the counters), and C sources compiled as they are
/// with `$CC` (else `cc`).
pub struct Program<'a> {
    pub sources: &'a [(String, Vec<u8>)],
    pub replaced: &'a BTreeMap<String, String>,
    pub own: Option<(&'a str, String)>,
    pub c_sources: &'a [String],
}

/// Whether `path` names a C source (`.c`), which a profile compiles and links but
/// does not analyze.
pub fn is_c(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "c")
}

/// Builds `program` with `command` (the compiler and its flags) in `dir`, INCLUDEs
/// searched in `include_dirs` too; the executable's path, or the compiler's messages
/// (paths as the user wrote them) when a file does not compile or link.
pub fn build(
    command: &str,
    program: &Program,
    include_dirs: &[PathBuf],
    dir: &Path,
) -> Result<PathBuf, String> {
    let mut words = command.split_whitespace();
    let compiler = words.next().ok_or("no compiler command")?;
    let flags: Vec<&str> = words.collect();
    let paths: Vec<PathBuf> = program
        .sources
        .iter()
        .map(|(p, _)| absolute(p))
        .chain(program.replaced.keys().map(|p| absolute(p)))
        .collect();
    let root = common_dir(&paths);
    let src = dir.join("src");
    let (objects, modules) = (dir.join("obj"), dir.join("mod"));
    for d in [&src, &objects, &modules] {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot make {}: {e}", d.display()))?;
    }
    let copy = |path: &str| {
        src.join(
            absolute(path)
                .strip_prefix(&root)
                .unwrap_or(Path::new(path)),
        )
    };
    let write = |to: &Path, bytes: &[u8]| {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
        }
        std::fs::write(to, bytes).map_err(|e| format!("cannot write {}: {e}", to.display()))
    };
    for (path, text) in program.replaced {
        write(&copy(path), text.as_bytes())?;
    }
    // (the copy, the original's directory) of each file to compile, in order.
    let mut units: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    if let Some((name, text)) = &program.own {
        let to = dir.join(name);
        write(&to, text.as_bytes())?;
        units.push((to, None));
    }
    for (path, bytes) in program.sources {
        let to = copy(path);
        if !program.replaced.contains_key(path) {
            write(&to, bytes)?;
        }
        units.push((to, absolute(path).parent().map(Path::to_path_buf)));
    }
    let shown = |text: &str| {
        text.replace(
            &format!("{}/", src.display()),
            &format!("{}/", root.display()),
        )
    };
    let mut pending: Vec<(usize, &(PathBuf, Option<PathBuf>))> = units.iter().enumerate().collect();
    loop {
        let mut waiting = Vec::new();
        let mut failed = None;
        let compiled_before = pending.len();
        for (i, unit @ (file, original_dir)) in pending {
            let here = file.parent().unwrap_or(dir);
            let mut cmd = Command::new(compiler);
            cmd.args(&flags)
                .arg("-c")
                .args(language_flags(file))
                .arg(file)
                .arg("-o")
                .arg(objects.join(format!("{i}.o")))
                .arg("-J")
                .arg(&modules)
                .arg("-I")
                .arg(here);
            for d in original_dir.iter().chain(include_dirs) {
                cmd.arg("-I").arg(d);
            }
            cmd.current_dir(here);
            if let Err(stderr) = run(cmd, dir)? {
                if stderr.contains("Cannot open module file") {
                    waiting.push((i, unit));
                } else {
                    failed.get_or_insert(shown(&stderr));
                }
            }
        }
        if let Some(stderr) = failed {
            return Err(format!("the program does not compile:\n{}", head(&stderr)));
        }
        if waiting.is_empty() {
            break;
        }
        if waiting.len() == compiled_before {
            let (_, (file, _)) = waiting[0];
            return Err(format!(
                "the program does not compile: {} needs a module no file provides",
                shown(&file.display().to_string())
            ));
        }
        pending = waiting;
    }
    let c_compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut c_words = c_compiler.split_whitespace();
    let c_program = c_words.next().unwrap_or("cc");
    let mut c_objects = Vec::new();
    for (i, path) in program.c_sources.iter().enumerate() {
        let object = objects.join(format!("c{i}.o"));
        let source = absolute(path);
        let mut cmd = Command::new(c_program);
        cmd.args(c_words.clone())
            .arg("-O2")
            .arg("-c")
            .arg(&source)
            .arg("-o")
            .arg(&object)
            .current_dir(dir);
        if let Err(stderr) = run(cmd, dir)? {
            return Err(format!("{path} does not compile:\n{}", head(&stderr)));
        }
        c_objects.push(object);
    }
    let executable = dir.join("program");
    let mut cmd = Command::new(compiler);
    cmd.args(&flags);
    for i in 0..units.len() {
        cmd.arg(objects.join(format!("{i}.o")));
    }
    cmd.args(&c_objects);
    cmd.arg("-o").arg(&executable).current_dir(dir);
    if let Err(stderr) = run(cmd, dir)? {
        return Err(format!(
            "the program does not link:\n{}",
            head(&shown(&stderr))
        ));
    }
    Ok(executable)
}

/// Runs a compile: `Ok(Err(stderr))` when it failed.
fn run(mut cmd: Command, dir: &Path) -> Result<Result<(), String>, String> {
    let shown = format!("{:?}", cmd.get_program());
    let err_path = dir.join("compiler.txt");
    let err = std::fs::File::create(&err_path)
        .map_err(|e| format!("cannot write {}: {e}", err_path.display()))?;
    cmd.env("LC_ALL", "C")
        .stdout(Stdio::null())
        .stderr(Stdio::from(err));
    match child::run_with_limit(cmd, LIMIT, Duration::from_millis(500))? {
        Ended::Exited(status) if status.success() => Ok(Ok(())),
        Ended::Exited(_) => Ok(Err(std::fs::read_to_string(&err_path).unwrap_or_default())),
        Ended::Stopped => Err(format!(
            "{shown} did not finish within {} s and was stopped",
            LIMIT.as_secs()
        )),
    }
}

/// The first 30 lines of a compiler's messages (its first errors: the others often
/// follow from them).
fn head(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut out = lines[..lines.len().min(30)].join("\n");
    if lines.len() > 30 {
        out.push_str(&format!("\n... ({} more lines)", lines.len() - 30));
    }
    out
}

/// `path` made absolute (from the current directory), `.` and `..` resolved where the
/// file exists.
fn absolute(path: &str) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| std::env::current_dir().unwrap_or_default().join(path))
}

/// The deepest directory holding every one of `paths`.
fn common_dir(paths: &[PathBuf]) -> PathBuf {
    let mut common: Option<PathBuf> = None;
    for p in paths {
        let dir = p.parent().unwrap_or(Path::new("/")).to_path_buf();
        common = Some(match common {
            None => dir,
            Some(c) => {
                let mut c = c;
                while !dir.starts_with(&c) {
                    if !c.pop() {
                        break;
                    }
                }
                c
            }
        });
    }
    common.unwrap_or_else(|| PathBuf::from("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_directory_of_paths() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            common_dir(&[p("/a/b/x.f"), p("/a/b/c/y.h"), p("/a/z.f")]),
            p("/a")
        );
        assert_eq!(common_dir(&[p("/a/b/x.f")]), p("/a/b"));
    }
}
