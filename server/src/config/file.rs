//! `costline.toml` on the command line: `check` and `compare` read the one in the
//! current directory or in its nearest ancestor that has one (the project's root), with
//! the keys the server reads from the workspace's (DESIGN.md section 7, and `include`).
//! The flags win key by key: `--machine` over `machine`, `--param` over `params`,
//! `--imbalance-threshold` over `imbalanceThreshold`, `--finding-share` over
//! `findingShare`, `--fixed-line-length` over `fixedLineLength`, `--define` over `defines`
//! name by name; `--include` directories are
//! searched before the file's `include` ones. Paths in the file are relative to its
//! directory. A bad value is reported on stderr and left out, as in the editor.

use super::{Config, from_toml, read_settings};
use costline_ide::Options;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the command line says, over the settings file.
pub struct Flags<'a> {
    pub machine: Option<&'a str>,
    pub params: BTreeMap<String, i64>,
    pub include: &'a [PathBuf],
    pub imbalance_threshold: Option<f64>,
    pub finding_share: Option<f64>,
    /// `--fixed-line-length N`.
    pub fixed_line_length: Option<usize>,
    /// The files on the command line: INCLUDE reads next to them too.
    pub files: &'a [String],
    /// `--include-anywhere`: INCLUDE may read any file.
    pub include_anywhere: bool,
    /// `--compiler "gfortran -O3"`: the command and flags the program is built with.
    pub compiler: Option<&'a str>,
    /// `--define NAME[=VALUE]`: macros for the preprocessor, over `defines`.
    pub defines: &'a [(String, String)],
}

/// The nearest `costline.toml` from `dir` up.
fn nearest(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join("costline.toml"))
        .find(|f| f.is_file())
}

/// The project seen from the current directory: the settings of its costline.toml (the
/// defaults without one) and its root (the file's directory, else the current one).
pub struct Project {
    pub config: Config,
    pub root: PathBuf,
    /// Whether a costline.toml was found.
    pub has_file: bool,
}

/// The project of the nearest costline.toml from the current directory up; an error
/// when the file cannot be read or parsed (its bad values are warnings on stderr).
pub fn project() -> Result<Project, String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let Some(file) = nearest(&cwd) else {
        return Ok(Project {
            config: Config::default(),
            root: cwd,
            has_file: false,
        });
    };
    let text = read_settings(&file)
        .map_err(|e| format!("{}: cannot read the file: {e}", file.display()))?;
    let layer = from_toml(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let (config, problems) = Config::merge(&[layer]);
    for p in problems {
        eprintln!("costline: warning: {}: {p}", file.display());
    }
    Ok(Project {
        config,
        root: file.parent().map_or(cwd, Path::to_path_buf),
        has_file: true,
    })
}

/// The analysis options of the settings file (if any) under the flags; an error when
/// the file cannot be read or parsed, or the `--machine` given names no model.
pub fn options(flags: &Flags) -> Result<Options, String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let Project { config, root, .. } = project()?;
    let (mut options, problem) = config.options(Some(&root));
    if let Some(spec) = flags.machine {
        options.machine =
            Arc::new(crate::machines::resolve(Some(spec)).map_err(|e| e.to_string())?);
    }
    // A machine the flag replaces is no problem; a profile that cannot be read is.
    if let Some(p) = problem.filter(|p| flags.machine.is_none() || p.starts_with("profile:")) {
        eprintln!("costline: warning: costline.toml: {p}");
    }
    options.bindings.extend(flags.params.clone());
    let mut include = flags.include.to_vec();
    include.append(&mut options.include_dirs);
    options.include_dirs = include;
    if let Some(t) = flags.imbalance_threshold {
        options.imbalance_threshold = t;
    }
    if let Some(s) = flags.finding_share {
        options.finding_share = s;
    }
    if let Some(n) = flags.fixed_line_length {
        options.fixed_line_length = Some(n);
    }
    if let Some(c) = flags.compiler.filter(|c| !c.trim().is_empty()) {
        options.compiler = Some(c.trim().to_string());
    }
    options.defines.extend(flags.defines.iter().cloned());
    // INCLUDE reads under the project's root, the current directory and the
    // directories of the files given.
    if flags.include_anywhere {
        options.include_roots = None;
    } else if let Some(allowed) = &mut options.include_roots {
        allowed.push(cwd.clone());
        for f in flags.files {
            let dir = Path::new(f).parent().unwrap_or(Path::new(""));
            allowed.push(cwd.join(dir));
        }
    }
    Ok(options)
}
