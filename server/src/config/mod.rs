//! The settings of DESIGN.md section 7 — `machine`, `params`, `imbalanceThreshold`,
//! `findingShare` (added: the share of a unit's time below which a statement earns no
//! imbalance or communication finding, default 0.02),
//! `hints.enable`, `codeLens.enable` — and `include` (the directories INCLUDE'd files
//! are searched in) and `includeAnywhere` (INCLUDE may read outside the workspace and
//! those directories; default false) and `compiler` (the command and flags the program
//! is built with, for what the compiler vectorizes) and `askCompiler` (the language
//! server runs that compiler on the open documents in the background and takes its
//! report of what it vectorizes; default true) and `sourceDirs` and `exclude` (where
//! the project's Fortran files are, besides what `.gitignore` leaves out) and
//! `profile` (the profile file counted with), `profileArguments` and `profileRanks`
//! (what the language server's `costline.runProfile` runs the program with) from
//! `costline.toml` at the workspace
//! root and from the editor (initialization options, `workspace/configuration`), the
//! editor's winning key by key. Bad values are reported and left out, never fatal. The language
//! server and the command line (`file`: `costline.toml` under the flags) read them here.

pub mod file;

use costline_ide::Options;
use costline_ide::machine::Catalog;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The fixed-form line lengths a setting may ask for (as the file pragma allows).
pub const FIXED_LINE_LENGTHS: std::ops::RangeInclusive<usize> = 72..=1024;

/// One source of settings; absent keys leave the others' values.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Layer {
    pub machine: Option<String>,
    #[serde(default, deserialize_with = "params_table")]
    pub params: Option<BTreeMap<String, Value>>,
    pub imbalance_threshold: Option<f64>,
    pub finding_share: Option<f64>,
    pub hints: Option<Toggle>,
    pub code_lens: Option<Toggle>,
    pub include: Option<Vec<String>>,
    pub include_anywhere: Option<bool>,
    pub fixed_line_length: Option<i64>,
    pub compiler: Option<String>,
    pub ask_compiler: Option<bool>,
    pub source_dirs: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    /// A profile file (`costline profile`) to count with, relative to the root.
    pub profile: Option<String>,
    /// The arguments the language server's `costline.runProfile` runs the program with...
    pub profile_arguments: Option<Vec<String>>,
    /// ...and on how many MPI ranks (absent: a serial run).
    pub profile_ranks: Option<i64>,
    /// `{ NAME = VALUE }` (a string or an integer; `true` for 1, `false` leaves it
    /// undefined) or `["NAME", "NAME=VALUE"]`.
    #[serde(default)]
    pub defines: Option<Value>,
}

/// A macro name and value for the preprocessor from `NAME[=VALUE]` (value 1 when
/// absent): a C identifier and a value without blanks (it becomes a `-DNAME=VALUE`
/// word of the compiler's command).
pub fn parse_define(text: &str) -> Result<(String, String), String> {
    let (name, value) = match text.split_once('=') {
        Some((n, v)) => (n.trim(), v.trim()),
        None => (text.trim(), "1"),
    };
    define(name, value)
}

/// A checked macro definition (see [`parse_define`]).
fn define(name: &str, value: &str) -> Result<(String, String), String> {
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("`{name}` is not a macro name"));
    }
    if value.is_empty() || value.chars().any(char::is_whitespace) {
        return Err(format!(
            "the value of `{name}` must be one word (got `{value}`)"
        ));
    }
    Ok((name.to_string(), value.to_string()))
}

/// The macros of a `defines` setting, and the problems with it.
fn defines_of(value: &Value) -> (BTreeMap<String, String>, Vec<String>) {
    let mut out = BTreeMap::new();
    let mut problems = Vec::new();
    let mut take = |r: Result<(String, String), String>| match r {
        Ok((n, v)) => {
            out.insert(n, v);
        }
        Err(e) => problems.push(format!("defines: {e}")),
    };
    match value {
        Value::Object(table) => {
            for (name, v) in table {
                match v {
                    Value::String(s) => take(define(name, s.trim())),
                    Value::Number(n) => take(define(name, &n.to_string())),
                    Value::Bool(true) => take(define(name, "1")),
                    Value::Bool(false) | Value::Null => {}
                    other => take(Err(format!("`{name}` = {other}: a string or an integer"))),
                }
            }
        }
        Value::Array(list) => {
            for v in list {
                match v {
                    Value::String(s) => take(parse_define(s)),
                    other => take(Err(format!("{other} is not `NAME` or `NAME=VALUE`"))),
                }
            }
        }
        Value::Null => {}
        other => problems.push(format!(
            "defines: {other} is neither a table of NAME = VALUE nor a list of \"NAME=VALUE\""
        )),
    }
    (out, problems)
}

/// `params` as a table; an empty list is an empty table too (Lua's `{}`, which
/// Neovim encodes as `[]`).
fn params_table<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<BTreeMap<String, Value>>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) if a.is_empty() => Ok(Some(BTreeMap::new())),
        Some(v) => serde_json::from_value(v)
            .map(Some)
            .map_err(serde::de::Error::custom),
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct Toggle {
    pub enable: Option<bool>,
}

/// The settings in effect.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The machine model: a name from `costline machines` or a path (relative to the
    /// workspace root).
    pub machine: Option<String>,
    pub params: BTreeMap<String, i64>,
    pub imbalance_threshold: f64,
    /// The share of its unit's time below which a statement earns no finding.
    pub finding_share: f64,
    pub hints: bool,
    pub code_lens: bool,
    /// Where INCLUDE'd files are searched after the including file's directory
    /// (relative to the workspace root).
    pub include: Vec<String>,
    /// Whether INCLUDE may read files outside the workspace and the include
    /// directories (default: no, it reports them).
    pub include_anywhere: bool,
    /// The line length of fixed-form files without a pragma of their own (72 to
    /// 1024; `None`: the standard 72).
    pub fixed_line_length: Option<usize>,
    /// The compiler command and flags the program is built with (`gfortran -O3`);
    /// `None`: those the machine model was trained with.
    pub compiler: Option<String>,
    /// Whether the language server asks that compiler what it vectorizes (its report
    /// of each open document, in the background) rather than costline's rules alone.
    pub ask_compiler: bool,
    /// The directories holding the project's sources, relative to the root (empty:
    /// the root).
    pub source_dirs: Vec<String>,
    /// Gitignore-style globs of the paths (relative to the root) whose Fortran files
    /// are not the project's.
    pub exclude: Vec<String>,
    /// The macros defined for the preprocessor: they choose the branches of `#if`.
    pub defines: BTreeMap<String, String>,
    /// The profile file whose measurements the counts use (relative to the root);
    /// `None`: none.
    pub profile: Option<String>,
    /// What the language server's `costline.runProfile` runs the program with: its
    /// arguments and, for an MPI program, the number of ranks.
    pub profile_arguments: Vec<String>,
    pub profile_ranks: Option<u32>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            machine: None,
            params: BTreeMap::new(),
            imbalance_threshold: Options::default().imbalance_threshold,
            finding_share: Options::default().finding_share,
            hints: true,
            code_lens: true,
            include: Vec::new(),
            include_anywhere: false,
            fixed_line_length: None,
            compiler: None,
            ask_compiler: true,
            source_dirs: Vec::new(),
            exclude: Vec::new(),
            defines: BTreeMap::new(),
            profile: None,
            profile_arguments: Vec::new(),
            profile_ranks: None,
        }
    }
}

impl Config {
    /// The settings of `layers` applied in order over the defaults, and the problems
    /// found (each bad value is left out).
    pub fn merge(layers: &[Layer]) -> (Config, Vec<String>) {
        let mut c = Config::default();
        let mut problems = Vec::new();
        for l in layers {
            if let Some(m) = &l.machine {
                c.machine = Some(m.clone());
            }
            for (name, value) in l.params.iter().flatten() {
                let lower = name.to_ascii_lowercase();
                let valid = !lower.is_empty()
                    && lower
                        .chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
                match value.as_i64() {
                    Some(v) if valid => {
                        c.params.insert(lower, v);
                    }
                    _ if !valid => problems.push(format!("params: `{name}` is not a Fortran name")),
                    _ => problems.push(format!("params.{name}: {value} is not an integer")),
                }
            }
            if let Some(t) = l.imbalance_threshold {
                if t.is_finite() && t >= 0.0 {
                    c.imbalance_threshold = t;
                } else {
                    problems.push(format!("imbalanceThreshold: {t} is not a number ≥ 0"));
                }
            }
            if let Some(t) = l.finding_share {
                if (0.0..=1.0).contains(&t) {
                    c.finding_share = t;
                } else {
                    problems.push(format!("findingShare: {t} is not a number in [0, 1]"));
                }
            }
            if let Some(e) = l.hints.as_ref().and_then(|t| t.enable) {
                c.hints = e;
            }
            if let Some(e) = l.code_lens.as_ref().and_then(|t| t.enable) {
                c.code_lens = e;
            }
            if let Some(dirs) = &l.include {
                c.include = dirs.clone();
            }
            if let Some(a) = l.include_anywhere {
                c.include_anywhere = a;
            }
            if let Some(a) = l.ask_compiler {
                c.ask_compiler = a;
            }
            if let Some(dirs) = &l.source_dirs {
                c.source_dirs = dirs.clone();
            }
            if let Some(globs) = &l.exclude {
                c.exclude = globs.clone();
            }
            if let Some(path) = &l.profile {
                c.profile = Some(path.clone()).filter(|p| !p.trim().is_empty());
            }
            if let Some(args) = &l.profile_arguments {
                c.profile_arguments = args.clone();
            }
            if let Some(n) = l.profile_ranks {
                match u32::try_from(n).ok().filter(|&n| n >= 1) {
                    Some(n) => c.profile_ranks = Some(n),
                    None => {
                        problems.push(format!("profileRanks: {n} is not a number of ranks ≥ 1"))
                    }
                }
            }
            // A layer's defines replace the ones below (a table is the whole set).
            if let Some(value) = &l.defines {
                let (defines, bad) = defines_of(value);
                c.defines = defines;
                problems.extend(bad);
            }
            if let Some(cmd) = &l.compiler {
                if cmd.split_whitespace().next().is_some() {
                    c.compiler = Some(cmd.trim().to_string());
                } else {
                    problems
                        .push("compiler: empty (a command and its flags: `gfortran -O2`)".into());
                }
            }
            if let Some(n) = l.fixed_line_length {
                match usize::try_from(n)
                    .ok()
                    .filter(|n| FIXED_LINE_LENGTHS.contains(n))
                {
                    Some(n) => c.fixed_line_length = Some(n),
                    None => problems.push(format!(
                        "fixedLineLength: {n} is not a line length in {}..={}",
                        FIXED_LINE_LENGTHS.start(),
                        FIXED_LINE_LENGTHS.end()
                    )),
                }
            }
        }
        (c, problems)
    }

    /// The analysis options these settings ask for, the machine looked up in the
    /// machine directories seen from `root` (the shipped default when it names no
    /// model, with the problem), relative include directories taken from `root`.
    pub fn options(&self, root: Option<&Path>) -> (Options, Option<String>) {
        let cwd = std::env::current_dir().unwrap_or_default();
        let root = root.unwrap_or(&cwd);
        let mut options = Options {
            bindings: self.params.clone(),
            imbalance_threshold: self.imbalance_threshold,
            finding_share: self.finding_share,
            include_dirs: self.include.iter().map(|d| root.join(d)).collect(),
            include_roots: (!self.include_anywhere).then(|| vec![root.to_path_buf()]),
            fixed_line_length: self.fixed_line_length,
            compiler: self.compiler.clone(),
            defines: self.defines.clone(),
            ..Options::default()
        };
        let mut problems = Vec::new();
        if let Some(path) = &self.profile {
            match read_profile(&root.join(path)) {
                Ok(p) => options.profile = Some(Arc::new(p)),
                Err(e) => problems.push(format!("profile: {e}; counting without it")),
            }
        }
        if let Some(spec) = &self.machine {
            // A relative path names a file in the workspace.
            let spec = if spec.ends_with(".toml") && Path::new(spec).is_relative() {
                root.join(spec).display().to_string()
            } else {
                spec.clone()
            };
            match Catalog::discover(&Catalog::default_dirs(root)).resolve(&spec) {
                Ok(m) => options.machine = Arc::new(m),
                Err(e) => problems.push(format!("machine: {e}; using `{}`", options.machine.name)),
            }
        }
        (options, (!problems.is_empty()).then(|| problems.join("; ")))
    }
}

/// The measurements of the profile file at `path` (`--profile`, `profile` in the
/// settings).
pub fn read_profile(path: &Path) -> Result<costline_ide::Profile, String> {
    let bytes = costline_ide::files::read_source(path)
        .map_err(|e| format!("{}: cannot read the profile: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    costline_ide::profile::file::ProfileFile::parse(&text)
        .map(|f| f.profile())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Settings from the editor (a JSON object, possibly wrapped in `{"costline": ...}`).
pub fn from_json(value: &Value) -> Result<Layer, String> {
    let inner = value.get("costline").unwrap_or(value);
    if inner.is_null() {
        return Ok(Layer::default());
    }
    serde_json::from_value(inner.clone()).map_err(|e| format!("editor settings: {e}"))
}

/// The largest settings file read.
const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// The text of the settings file at `path`: a regular file (a device or FIFO is never
/// opened) of at most 1 MiB.
pub fn read_settings(path: &Path) -> Result<String, costline_ide::files::FileError> {
    let bytes = costline_ide::files::read_regular(path, MAX_SETTINGS_BYTES)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Settings from the text of a `costline.toml`.
pub fn from_toml(text: &str) -> Result<Layer, String> {
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| format!("costline.toml: {e}"))?;
    let json = serde_json::to_value(table).map_err(|e| format!("costline.toml: {e}"))?;
    serde_json::from_value(json).map_err(|e| format!("costline.toml: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_editor_wins_key_by_key_and_bad_values_are_reported() {
        let file = from_toml("machine = \"cluster\"\nimbalanceThreshold = 0.3\ninclude = [\"inc\", \"/opt/hpf\"]\n[params]\nN = 1000\nP = 4\n[hints]\nenable = false\n").unwrap();
        let editor = from_json(&json!({"costline": {"params": {"p": 16, "x y": 1, "q": 1.5}, "codeLens": {"enable": false}}})).unwrap();
        let (c, problems) = Config::merge(&[file, editor]);
        assert_eq!(c.machine.as_deref(), Some("cluster"));
        assert_eq!(
            c.params,
            BTreeMap::from([("n".into(), 1000), ("p".into(), 16)])
        );
        assert_eq!(c.imbalance_threshold, 0.3);
        assert!(!c.hints && !c.code_lens);
        let (options, _) = c.options(Some(Path::new("/ws")));
        assert_eq!(
            options.include_dirs,
            [Path::new("/ws/inc"), Path::new("/opt/hpf")]
        );
        assert_eq!(
            problems,
            [
                "params.q: 1.5 is not an integer",
                "params: `x y` is not a Fortran name"
            ]
        );
    }

    #[test]
    fn a_broken_file_says_where() {
        let e = from_toml("params = {N = }\n").unwrap_err();
        assert!(e.starts_with("costline.toml: "), "{e}");
        assert!(e.contains("line 1"), "{e}");
        assert!(from_json(&Value::Null).is_ok());
        assert!(from_json(&json!({"imbalanceThreshold": "high"})).is_err());
    }

    /// Neovim encodes Lua's empty table `{}` as a JSON list.
    #[test]
    fn an_empty_list_of_params_is_no_params() {
        let l = from_json(&json!({"params": [], "machine": "ipsc860"})).unwrap();
        assert_eq!(l.params, Some(BTreeMap::new()));
        assert_eq!(l.machine.as_deref(), Some("ipsc860"));
        assert!(from_json(&json!({"params": [1]})).is_err());
        assert_eq!(from_json(&json!({})).unwrap().params, None);
    }

    #[test]
    fn the_compiler_is_asked_unless_a_layer_says_not() {
        assert!(Config::default().ask_compiler);
        let file = from_toml("askCompiler = false\ncompiler = \"gfortran -O3\"\n").unwrap();
        let (c, problems) = Config::merge(std::slice::from_ref(&file));
        assert!(problems.is_empty(), "{problems:?}");
        assert!(!c.ask_compiler);
        assert_eq!(c.compiler.as_deref(), Some("gfortran -O3"));
        let editor = from_json(&json!({"costline": {"askCompiler": true}})).unwrap();
        assert!(Config::merge(&[file, editor]).0.ask_compiler);
    }

    #[test]
    fn defines_come_as_a_table_or_a_list_and_the_editor_replaces_the_file() {
        let file = from_toml("[defines]\nUSE_MPI = true\nNX = 100\nMODE = \"fast\"\nOFF = false\n")
            .unwrap();
        let (c, problems) = Config::merge(std::slice::from_ref(&file));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            c.options(None).0.defines,
            BTreeMap::from([
                ("MODE".into(), "fast".into()),
                ("NX".into(), "100".into()),
                ("USE_MPI".into(), "1".into())
            ])
        );
        let editor =
            from_json(&json!({"costline": {"defines": ["DEBUG", "N=4", "1X", "S=a b"]}})).unwrap();
        let (c, problems) = Config::merge(&[file, editor]);
        assert_eq!(
            c.defines,
            BTreeMap::from([("DEBUG".into(), "1".into()), ("N".into(), "4".into())])
        );
        assert_eq!(
            problems,
            [
                "defines: `1X` is not a macro name",
                "defines: the value of `S` must be one word (got `a b`)"
            ]
        );
        assert_eq!(parse_define(" A = 2 "), Ok(("A".into(), "2".into())));
    }

    #[test]
    fn the_profile_runs_arguments_and_ranks_are_settings() {
        let (c, problems) = Config::merge(&[
            from_toml("profileArguments = [\"-n\", \"8\"]\nprofileRanks = 4\n").unwrap(),
            from_json(&json!({"profileRanks": 0})).unwrap(),
        ]);
        assert_eq!(c.profile_arguments, ["-n", "8"]);
        assert_eq!(c.profile_ranks, Some(4));
        assert_eq!(problems, ["profileRanks: 0 is not a number of ranks ≥ 1"]);
    }

    #[test]
    fn a_profile_that_cannot_be_read_is_a_problem_and_left_out() {
        let (c, problems) = Config::merge(&[from_toml("profile = \"no/such.json\"\n").unwrap()]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(c.profile.as_deref(), Some("no/such.json"));
        let (options, problem) = c.options(Some(Path::new("/nonexistent")));
        assert!(options.profile.is_none());
        let problem = problem.unwrap();
        assert!(
            problem.starts_with("profile: /nonexistent/no/such.json: cannot read"),
            "{problem}"
        );
    }

    #[test]
    fn a_fixed_line_length_between_72_and_1024_is_taken() {
        let (c, problems) = Config::merge(&[from_toml("fixedLineLength = 132\n").unwrap()]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(c.options(None).0.fixed_line_length, Some(132));
        let editor = from_json(&json!({"costline": {"fixedLineLength": 40}})).unwrap();
        let (c, problems) = Config::merge(&[editor]);
        assert_eq!(c.fixed_line_length, None);
        assert_eq!(
            problems,
            ["fixedLineLength: 40 is not a line length in 72..=1024"]
        );
    }
}
