//! Profiles from the editor. `costline.runProfile` runs `costline profile` (this
//! binary, as a child process in the first workspace folder) on the workspace's
//! program — its Fortran files as the server finds them (`sourceDirs`, `exclude`),
//! or the files the command names — with the arguments and ranks of the settings
//! `profileArguments` and `profileRanks` and the compiler, include directories and
//! macros in force, reporting `$/progress`; it writes the profile where the setting
//! `profile` says, else to `.costline/profile.json`. Then the server reads the
//! profile again and the editor is asked to refresh its hints, lenses and
//! diagnostics; a program that does not build or run is reported with
//! `window/showMessage`, the compiler's or the program's own message included.
//!
//! With no `profile` setting the server counts with `.costline/profile.json` when it
//! exists, and it reads the profile in force again whenever the file changes on disk
//! (the watcher registered for it).

use super::{Backend, Change, ask, lock};
use crate::config::Config;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Bounded, NotCancellable, OngoingProgress};

/// The command that profiles the workspace's program. Argument (optional):
/// `{"files": [PATH, ...]}`, the program's sources (relative to the first workspace
/// folder; C sources are compiled and linked). Result: `{"ok": true, "profile": PATH,
/// "message": what costline profile printed}` or `{"ok": false, "message": why}`.
pub const RUN_PROFILE: &str = "costline.runProfile";

/// The profile file of a workspace whose settings name none, relative to its root.
pub const DEFAULT_PROFILE: &str = ".costline/profile.json";

/// Whether a profile run is under way (one at a time: two would build in the same
/// place and race to write one file).
static RUNNING: AtomicBool = AtomicBool::new(false);

/// Clears [`RUNNING`] when the run ends, however it ends.
struct Turn;

impl Drop for Turn {
    fn drop(&mut self) {
        RUNNING.store(false, Ordering::SeqCst);
    }
}

/// The profile file the workspace rooted at `root` counts with under `config`: the
/// `profile` setting, else [`DEFAULT_PROFILE`].
pub fn profile_path(config: &Config, root: &Path) -> PathBuf {
    root.join(config.profile.as_deref().unwrap_or(DEFAULT_PROFILE))
}

/// The globs of the files the server watches for the profile: the default one, and
/// the configured one's name.
pub fn watched(config: &Config) -> Vec<String> {
    let mut globs = vec![format!("**/{DEFAULT_PROFILE}")];
    if let Some(name) = config
        .profile
        .as_deref()
        .and_then(|p| Path::new(p).file_name())
    {
        globs.push(format!("**/{}", name.to_string_lossy()));
    }
    globs
}

/// Puts the default profile's measurements in `options` when `config` names no
/// profile and the file exists under `root`; the problem when it cannot be read.
pub fn default_profile(
    config: &Config,
    root: &Path,
    options: &mut costline_ide::Options,
) -> Option<String> {
    if config.profile.is_some() {
        return None;
    }
    let path = root.join(DEFAULT_PROFILE);
    if !path.is_file() {
        return None;
    }
    match crate::config::read_profile(&path) {
        Ok(p) => {
            options.profile = Some(Arc::new(p));
            None
        }
        Err(e) => Some(format!("profile: {e}; counting without it")),
    }
}

/// The arguments of `costline profile` for `files` under `config`, the profile
/// written to `out`.
fn profile_arguments(config: &Config, files: &[String], out: &Path) -> Vec<String> {
    let mut args = vec!["profile".to_string()];
    if let Some(c) = &config.compiler {
        args.extend(["--compiler".to_string(), c.clone()]);
    }
    for d in &config.include {
        args.extend(["--include".to_string(), d.clone()]);
    }
    if config.include_anywhere {
        args.push("--include-anywhere".into());
    }
    for (name, value) in &config.defines {
        args.push(format!("--define={name}={value}"));
    }
    if let Some(n) = config.fixed_line_length {
        args.push(format!("--fixed-line-length={n}"));
    }
    if let Some(n) = config.profile_ranks {
        args.push(format!("--ranks={n}"));
    }
    args.push("--out".into());
    args.push(out.display().to_string());
    args.extend(files.iter().cloned());
    args.push("--".into());
    args.extend(config.profile_arguments.iter().cloned());
    args
}

/// The last 40 lines of `text`.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

impl Backend {
    /// `costline.runProfile` (see [`RUN_PROFILE`]).
    pub(super) async fn run_profile(&self, argument: Option<&Value>) -> Result<Option<LSPAny>> {
        #[derive(serde::Deserialize)]
        struct Arguments {
            #[serde(default)]
            files: Vec<String>,
        }
        let named = match argument {
            Some(v) => {
                serde_json::from_value::<Arguments>(v.clone())
                    .map_err(|e| Error::invalid_params(format!("{RUN_PROFILE}: {e}")))?
                    .files
            }
            None => Vec::new(),
        };
        let (root, config) = {
            let s = lock(&self.state);
            (s.roots.first().cloned(), s.settings.config.clone())
        };
        let Some(root) = root else {
            return Ok(Some(
                self.failed("costline profile needs a workspace folder".into())
                    .await,
            ));
        };
        if RUNNING.swap(true, Ordering::SeqCst) {
            return Ok(Some(
                self.failed("a profile run is under way already".into())
                    .await,
            ));
        }
        let _turn = Turn;
        let files = if named.is_empty() {
            self.scopes()
                .iter()
                .flat_map(|s| s.fortran_files().0)
                .map(|p| {
                    p.strip_prefix(&root)
                        .map_or_else(|_| p.clone(), Path::to_path_buf)
                        .display()
                        .to_string()
                })
                .collect()
        } else {
            named
        };
        if files.is_empty() {
            return Ok(Some(
                self.failed("the workspace has no Fortran file to profile".into())
                    .await,
            ));
        }
        let out = profile_path(&config, &root);
        let args = profile_arguments(&config, &files, &out);
        let progress = self.profile_progress(files.len()).await;
        let cwd = root.clone();
        let ran = tokio::task::spawn_blocking(move || {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            std::process::Command::new(exe)
                .args(&args)
                .current_dir(cwd)
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r);
        let outcome = match ran {
            Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout)
                .trim()
                .trim_start_matches("costline: ")
                .to_string()),
            Ok(o) => Err(tail(&String::from_utf8_lossy(&o.stderr))),
            Err(e) => Err(format!("costline profile could not be run: {e}")),
        };
        if let Some(p) = progress {
            p.finish_with_message(match &outcome {
                Ok(_) => "measured".to_string(),
                Err(_) => "failed".to_string(),
            })
            .await;
        }
        match outcome {
            Ok(summary) => {
                self.reload_profile().await;
                self.client
                    .show_message(MessageType::INFO, format!("costline: {summary}"))
                    .await;
                Ok(Some(json!({
                    "ok": true,
                    "profile": out.display().to_string(),
                    "message": summary,
                })))
            }
            Err(why) => Ok(Some(self.failed(why).await)),
        }
    }

    /// Says why a profile run failed (`window/showMessage`); the command's result.
    async fn failed(&self, why: String) -> Value {
        let why = why
            .strip_prefix("costline: ")
            .map_or(why.clone(), str::to_string);
        self.client
            .show_message(MessageType::ERROR, format!("costline profile: {why}"))
            .await;
        json!({"ok": false, "message": why})
    }

    /// The progress report of a profile run of `files` files, when the editor shows
    /// one.
    async fn profile_progress(
        &self,
        files: usize,
    ) -> Option<OngoingProgress<Bounded, NotCancellable>> {
        if !self.capabilities().progress {
            return None;
        }
        let token = NumberOrString::String("costline/profile".into());
        ask(self.client.create_work_done_progress(token.clone()))
            .await
            .ok()?;
        Some(
            self.client
                .progress(token, "costline profile")
                .with_message(format!("building and running the program ({files} files)"))
                .with_percentage(0)
                .begin()
                .await,
        )
    }

    /// Reads the profile in force again (the configured file, else the default one
    /// if it exists) and asks the editor to refresh what it shows.
    pub(super) async fn reload_profile(&self) {
        let problem = {
            let mut s = lock(&self.state);
            let root = s.roots.first().cloned();
            let mut options = s.settings.options.clone();
            options.profile = None;
            let problem = root.and_then(|root| {
                let config = &s.settings.config;
                if config.profile.is_none() {
                    return default_profile(config, &root, &mut options);
                }
                match crate::config::read_profile(&profile_path(config, &root)) {
                    Ok(p) => {
                        options.profile = Some(Arc::new(p));
                        None
                    }
                    Err(e) => Some(format!("profile: {e}; counting without it")),
                }
            });
            s.settings.options = options.clone();
            // Sent while the state is held, as `apply_settings` sends its options.
            self.worker.send(Change::SetOptions(options));
            problem
        };
        if let Some(p) = problem {
            self.client
                .show_message(MessageType::WARNING, format!("costline: {p}"))
                .await;
        }
        self.refresh().await;
    }

    /// Whether `path` is the profile file the workspace counts with.
    pub(super) fn is_profile(&self, path: &Path) -> bool {
        let s = lock(&self.state);
        s.roots
            .first()
            .is_some_and(|root| profile_path(&s.settings.config, root) == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_runs_with_the_settings_in_force() {
        let config = Config {
            compiler: Some("mpif90 -O3".into()),
            include: vec!["inc".into()],
            profile_arguments: vec!["-n".into(), "8".into()],
            profile_ranks: Some(2),
            ..Config::default()
        };
        let args = profile_arguments(&config, &["a.f90".into()], Path::new("/w/p.json"));
        assert_eq!(
            args,
            [
                "profile",
                "--compiler",
                "mpif90 -O3",
                "--include",
                "inc",
                "--ranks=2",
                "--out",
                "/w/p.json",
                "a.f90",
                "--",
                "-n",
                "8"
            ]
        );
        assert_eq!(
            profile_path(&Config::default(), Path::new("/w")),
            Path::new("/w/.costline/profile.json")
        );
        let named = Config {
            profile: Some("runs/p.json".into()),
            ..Config::default()
        };
        assert_eq!(watched(&named), ["**/.costline/profile.json", "**/p.json"]);
    }
}
