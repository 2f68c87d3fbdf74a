//! The language server's handlers. Document state changes synchronously, before any
//! `.await` (handlers run concurrently, and an edit applied late would be applied out
//! of order); analysis runs on the blocking pool against a snapshot that includes the
//! document's latest change; a request whose document changed meanwhile answers
//! `ContentModified`, one whose analysis a change elsewhere cancelled (a compiler report,
//! another file, settings) is asked again of the newer snapshot.

mod profile;

use super::compiles::{Compiles, Key};
use super::convert;
use super::documents::{Documents, Encoding, Lines, path_of};
use super::worker::{Change, Worker};
use crate::ask_compiler;
use crate::config::{self, Config, Layer};
use crate::sources;
use costline_ide::Span;
use costline_ide::files::read_source;
use costline_ide::{Analysis, Cancellable};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

/// How often a request whose analysis was cancelled by a change that left its document
/// alone is asked again before it answers `ContentModified`.
const RETRIES_AFTER_CANCEL: u32 = 3;

/// Quiet time after an edit before other documents' results are refreshed.
const SETTLE: Duration = Duration::from_millis(400);

/// How long a request to the client may take: a client that stopped answering (or a
/// transport that closed) must not hold a task forever.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(10);

/// A request to the client, given up after [`CLIENT_TIMEOUT`].
async fn ask<T>(request: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    tokio::time::timeout(CLIENT_TIMEOUT, request)
        .await
        .unwrap_or_else(|_| Err(Error::request_cancelled()))
}

/// The command that switches the machine model (argument: its name or path).
pub const SELECT_MACHINE: &str = "costline.selectMachine";

/// The command that compares a document's distributions (`costline compare` on the
/// file and the workspace files defining the modules it uses, as the editor has them).
/// Argument: `{"uri", "params": ["n=16..1024", ...], "procs": "4..64", "top": 4}`;
/// result: `{"report": <compare --format json>, "text": <its text>, "svg": <the plot>}`,
/// or `null` when the file has no DISTRIBUTE with formats.
pub const COMPARE: &str = "costline.compare";

/// What the client can do, from `initialize`.
#[derive(Clone, Copy, Debug, Default)]
struct Capabilities {
    pull_diagnostics: bool,
    configuration: bool,
    configuration_registration: bool,
    watch_registration: bool,
    inlay_hint_refresh: bool,
    code_lens_refresh: bool,
    diagnostic_refresh: bool,
    progress: bool,
}

/// The settings and what they came from.
#[derive(Default)]
struct Settings {
    config: Config,
    /// costline.toml, initialization options, `workspace/configuration`.
    file: Layer,
    init: Layer,
    editor: Layer,
    /// The machine picked with the `costline.selectMachine` command (over the others).
    picked_machine: Option<String>,
    /// Where INCLUDE may read, as last sent to the analysis (it follows the roots).
    include_roots: Option<Vec<PathBuf>>,
    /// The analysis options in force (what `costline.compare` analyzes with).
    options: costline_ide::Options,
    /// The compiler command and flags in force, and the include directories: what the
    /// open documents are compiled with (`askCompiler`).
    compiler_command: String,
    include_dirs: Vec<PathBuf>,
}

struct State {
    encoding: Encoding,
    capabilities: Capabilities,
    roots: Vec<PathBuf>,
    settings: Settings,
    /// Whether the workspace's files were scanned (the first scan follows the first
    /// settings; a change of `sourceDirs` or `exclude` scans again).
    scanned: bool,
}

pub struct Backend {
    client: Client,
    docs: Arc<Mutex<Documents>>,
    worker: Worker,
    state: Arc<Mutex<State>>,
    /// Set by `shutdown`: the exit code is 0 only after it.
    shut_down: Arc<AtomicBool>,
    /// Counts edits, so that a settle timer knows whether another edit followed.
    edits: Arc<AtomicU64>,
    /// The diagnostics last pushed per document (and its version then): a document
    /// whose diagnostics did not change is not sent them again.
    published: Arc<Mutex<HashMap<Uri, Published>>>,
    /// The compiler's reports of the open documents (`askCompiler`).
    compiles: Arc<Compiles>,
}

/// What the editor was last sent for a document.
type Published = (Option<i32>, Vec<Diagnostic>);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Backend {
    pub fn new(client: Client, shut_down: Arc<AtomicBool>) -> Backend {
        let settings = Settings::default();
        Backend {
            client,
            docs: Arc::new(Mutex::new(Documents::default())),
            worker: Worker::start(&settings.config.options(None).0),
            state: Arc::new(Mutex::new(State {
                encoding: Encoding::Utf16,
                capabilities: Capabilities::default(),
                roots: Vec::new(),
                settings,
                scanned: false,
            })),
            shut_down,
            edits: Arc::new(AtomicU64::new(0)),
            published: Arc::new(Mutex::new(HashMap::new())),
            compiles: Arc::new(Compiles::default()),
        }
    }

    /// The change that sets a document's text: a file that others include is analyzed
    /// where it is included, any other is analyzed on its own.
    /// The change that gives the analysis an open document's text at `version`
    /// (`edit`: as [`Change::SetEditorFile`]'s).
    fn set_text(
        path: String,
        bytes: Vec<u8>,
        version: i32,
        edit: Option<(i32, (usize, usize))>,
    ) -> Change {
        if sources::is_header(Path::new(&path)) {
            Change::SetHeader { path, bytes }
        } else {
            Change::SetEditorFile {
                path,
                bytes,
                version,
                edit,
            }
        }
    }

    /// Pushes a document's diagnostics unless the editor has them already (the same
    /// diagnostics for the same version).
    async fn publish(&self, uri: Uri, items: Vec<Diagnostic>, version: Option<i32>) {
        let now = (version, items);
        {
            let mut published = lock(&self.published);
            if published.get(&uri) == Some(&now) {
                return;
            }
            published.insert(uri.clone(), now.clone());
        }
        self.client.publish_diagnostics(uri, now.1, version).await;
    }

    /// An LSP range of an open document as byte offsets into its text.
    fn span_of(&self, uri: &Uri, range: Range) -> Option<Span> {
        lock(&self.docs).get(uri).map(|d| {
            Span::new(
                d.lines.offset(range.start) as usize,
                d.lines.offset(range.end) as usize,
            )
        })
    }

    fn capabilities(&self) -> Capabilities {
        lock(&self.state).capabilities
    }

    fn config(&self) -> Config {
        lock(&self.state).settings.config.clone()
    }

    /// Where the workspace's sources are: per folder, its Fortran files less `exclude`
    /// (`sourceDirs` name directories of the first folder). A bad glob is left out
    /// (`apply_settings` says so).
    fn scopes(&self) -> Vec<sources::Scope> {
        let s = lock(&self.state);
        let c = &s.settings.config;
        s.roots
            .iter()
            .enumerate()
            .filter_map(|(k, root)| {
                let dirs: &[String] = if k == 0 { &c.source_dirs } else { &[] };
                sources::Scope::new(root, dirs, &c.exclude)
                    .or_else(|_| sources::Scope::new(root, dirs, &[]))
                    .ok()
            })
            .collect()
    }

    /// Whether the Fortran file at `path` is one of the workspace's sources.
    fn in_workspace(&self, path: &Path) -> bool {
        self.scopes().iter().any(|s| s.admits(path))
    }

    /// Runs `f` on a snapshot holding the document's latest text, on the blocking pool;
    /// `None` when the document is not open.
    async fn query<T: Send + 'static>(
        &self,
        uri: &Uri,
        f: impl Fn(&Analysis, &str) -> Cancellable<T> + Send + Sync + 'static,
    ) -> Result<Option<(T, Lines)>> {
        // Every change sent so far (this document's, other files', settings) is in the
        // snapshot the request waits for.
        let (path, lines, mut revision, version) = {
            let docs = lock(&self.docs);
            let Some(d) = docs.get(uri) else {
                return Ok(None);
            };
            (
                path_of(uri),
                d.lines.clone(),
                self.worker.sent().max(d.revision),
                d.version,
            )
        };
        let f = Arc::new(f);
        let mut attempts = 0;
        loop {
            let (worker, path, f) = (self.worker.clone(), path.clone(), f.clone());
            let outcome = run_blocking(move || f(&worker.snapshot(revision), &path)).await?;
            let current = lock(&self.docs).get(uri).map(|d| d.version);
            if current != Some(version) {
                return Err(Error::content_modified());
            }
            match outcome {
                Ok(value) => return Ok(Some((value, lines))),
                // Cancelled by a change that left this document as it was (a compiler
                // report landing, another file, settings): its answer is still wanted,
                // so it is asked again of a snapshot with that change.
                Err(_) if attempts < RETRIES_AFTER_CANCEL => {
                    attempts += 1;
                    revision = self.worker.sent();
                }
                Err(_) => return Err(Error::content_modified()),
            }
        }
    }

    /// Applies the merged settings (and says what was wrong with them); refreshes what
    /// the editor shows when they changed.
    async fn apply_settings(&self) {
        let (changed, rescan, problems) = {
            let mut s = lock(&self.state);
            let picked = Layer {
                machine: s.settings.picked_machine.clone(),
                ..Layer::default()
            };
            let layers = [
                s.settings.file.clone(),
                s.settings.init.clone(),
                s.settings.editor.clone(),
                picked,
            ];
            let (config, mut problems) = Config::merge(&layers);
            let (mut options, problem) = config.options(s.roots.first().map(PathBuf::as_path));
            if let Some(root) = s.roots.first() {
                problems.extend(profile::default_profile(&config, root, &mut options));
            }
            // INCLUDE reads under any of the workspace's folders.
            if let Some(allowed) = &mut options.include_roots {
                allowed.extend(s.roots.iter().skip(1).cloned());
            }
            let changed =
                config != s.settings.config || options.include_roots != s.settings.include_roots;
            let rescan = s.scanned
                && (config.source_dirs != s.settings.config.source_dirs
                    || config.exclude != s.settings.config.exclude);
            if let Some(root) = s.roots.first()
                && let Err(e) = sources::Scope::new(root, &[], &config.exclude)
            {
                problems.push(format!("{e}; nothing is excluded"));
            }
            s.settings.config = config.clone();
            s.settings.include_roots = options.include_roots.clone();
            s.settings.compiler_command = options.compiler_command();
            s.settings.options = options.clone();
            s.settings.include_dirs = options.include_dirs.clone();
            problems.extend(problem);
            // Sent while the state is held: two settings changes handled at once reach
            // the analysis in the order they were merged (sent after the messages
            // below, an older merge could overwrite a newer one).
            if changed {
                self.worker.send(Change::SetOptions(options));
                // Turned off: the rules answer again.
                if !config.ask_compiler {
                    for path in self.compiles.forget_sent() {
                        self.worker
                            .send(Change::SetCompilerOutput { path, output: None });
                    }
                }
            }
            (changed, rescan, problems)
        };
        for p in problems {
            self.client
                .show_message(MessageType::WARNING, format!("costline: {p}"))
                .await;
        }
        if changed {
            self.refresh().await;
            // Another compiler command, or turned on: the open documents' reports.
            self.ask_compiler();
        }
        if rescan {
            let this = self.clone_for_task();
            tokio::spawn(async move { this.analyze_workspace().await });
        }
    }

    /// Asks the editor for `costline` settings, when it can answer.
    async fn pull_editor_settings(&self) {
        if !self.capabilities().configuration {
            return;
        }
        let items = vec![ConfigurationItem {
            scope_uri: None,
            section: Some("costline".into()),
        }];
        match ask(self.client.configuration(items)).await {
            Ok(values) => {
                let layer = values
                    .first()
                    .map(config::from_json)
                    .unwrap_or(Ok(Layer::default()));
                match layer {
                    Ok(l) => lock(&self.state).settings.editor = l,
                    Err(e) => {
                        self.client
                            .show_message(MessageType::WARNING, format!("costline: {e}"))
                            .await;
                    }
                }
            }
            Err(e) => {
                self.client
                    .log_message(
                        MessageType::WARNING,
                        format!("costline: workspace/configuration failed: {e}"),
                    )
                    .await;
            }
        }
    }

    /// Reads `costline.toml` from the first workspace folder.
    async fn load_settings_file(&self) {
        let root = lock(&self.state).roots.first().cloned();
        let Some(root) = root else { return };
        let layer = match config::read_settings(&root.join("costline.toml")) {
            Ok(text) => match config::from_toml(&text) {
                Ok(l) => l,
                Err(e) => {
                    self.client
                        .show_message(MessageType::WARNING, format!("costline: {e}"))
                        .await;
                    Layer::default()
                }
            },
            Err(_) => Layer::default(),
        };
        lock(&self.state).settings.file = layer;
    }

    /// Asks the editor to request hints, lenses and diagnostics again (what it supports).
    async fn refresh(&self) {
        let caps = self.capabilities();
        if caps.inlay_hint_refresh {
            let _ = ask(self.client.inlay_hint_refresh()).await;
        }
        if caps.code_lens_refresh {
            let _ = ask(self.client.code_lens_refresh()).await;
        }
        if caps.pull_diagnostics && caps.diagnostic_refresh {
            let _ = ask(self.client.workspace_diagnostic_refresh()).await;
        }
        if !caps.pull_diagnostics {
            self.publish_open().await;
        }
    }

    /// Publishes the diagnostics of every open document (clients without pull
    /// diagnostics).
    async fn publish_open(&self) {
        let uris = lock(&self.docs).uris();
        for uri in uris {
            let version = lock(&self.docs).get(&uri).map(|d| d.version);
            // Changed meanwhile (an error): the change's own publication follows.
            if let Ok(Some((diags, lines))) = self.query(&uri, |a, path| a.diagnostics(path)).await
            {
                self.publish(uri, convert::diagnostics(&lines, &diags), version)
                    .await;
            }
        }
    }

    /// After an edit: once edits settle, other documents may need new results (a
    /// module's constants reach its users).
    fn settle_later(&self) {
        let mark = self.edits.fetch_add(1, Ordering::SeqCst) + 1;
        let edits = self.edits.clone();
        let this = self.clone_for_task();
        tokio::spawn(async move {
            tokio::time::sleep(SETTLE).await;
            if edits.load(Ordering::SeqCst) == mark {
                this.refresh().await;
                this.ask_compiler();
            }
        });
    }

    /// Asks the compiler in force about each open document's text (`askCompiler`), in
    /// the background ([`Backend::ask_compiler_about`]).
    fn ask_compiler(&self) {
        if !lock(&self.state).settings.config.ask_compiler {
            return;
        }
        for uri in lock(&self.docs).uris() {
            let this = self.clone_for_task();
            tokio::spawn(async move { this.ask_compiler_about(uri).await });
        }
    }

    /// The compiler's report of the document's current text, when the compiler can be
    /// run: compiled on the blocking pool, one compile at a time, unless that text was
    /// compiled with that command before; a report the analysis does not have yet is
    /// sent to it and the editor asked to refresh its hints, lenses and diagnostics. A
    /// file that does not compile alone sends its first error: the hover says so and
    /// the rules answer.
    async fn ask_compiler_about(&self, uri: Uri) {
        let Ok(turn) = self.compiles.gate.acquire().await else {
            return;
        };
        let (on, command, include_dirs) = {
            let s = lock(&self.state);
            let c = &s.settings;
            (
                c.config.ask_compiler,
                c.compiler_command.clone(),
                c.include_dirs.clone(),
            )
        };
        let path = path_of(&uri);
        let Some(bytes) = lock(&self.docs)
            .get(&uri)
            .map(|d| d.text.clone().into_bytes())
        else {
            return;
        };
        // Fortran sources only (a header is compiled where it is included).
        if !on || !sources::is_fortran(Path::new(&path)) {
            return;
        }
        let key = Key::new(&path, &bytes, &command, &include_dirs);
        let output = match self.compiles.cached(&key) {
            Some(output) => output,
            None => {
                let file = path.clone();
                let asked = tokio::task::spawn_blocking(move || {
                    ask_compiler::available(&command).then(|| {
                        ask_compiler::ask(&command, Path::new(&file), &bytes, &include_dirs, None)
                    })
                })
                .await;
                let Ok(Some(output)) = asked else { return };
                self.compiles.remember(key.clone(), output.clone());
                output
            }
        };
        drop(turn);
        // Turned off while it compiled: the rules answer.
        if !lock(&self.state).settings.config.ask_compiler {
            return;
        }
        if self.compiles.send(&key) {
            self.worker.send(Change::SetCompilerOutput {
                path,
                output: Some(output),
            });
            self.refresh().await;
        }
    }

    fn clone_for_task(&self) -> Backend {
        Backend {
            client: self.client.clone(),
            docs: self.docs.clone(),
            worker: self.worker.clone(),
            state: self.state.clone(),
            shut_down: self.shut_down.clone(),
            edits: self.edits.clone(),
            published: self.published.clone(),
            compiles: self.compiles.clone(),
        }
    }

    /// Reads the workspace's Fortran files into the analysis and analyzes them all,
    /// reporting progress; the editor's open documents keep the editor's text. Files
    /// analyzed before that the scan no longer finds (a changed `exclude`) leave.
    async fn analyze_workspace(&self) {
        let scopes = self.scopes();
        lock(&self.state).scanned = true;
        if scopes.is_empty() {
            return;
        }
        let caps = self.capabilities();
        let token = NumberOrString::String("costline/workspace".into());
        let progress = if caps.progress
            && self
                .client
                .create_work_done_progress(token.clone())
                .await
                .is_ok()
        {
            Some(
                self.client
                    .progress(token, "costline")
                    .with_message("finding Fortran files")
                    .with_percentage(0)
                    .begin()
                    .await,
            )
        } else {
            None
        };
        let found = on_blocking_pool(move || {
            Ok(scopes
                .iter()
                .map(sources::Scope::fortran_files)
                .collect::<Vec<_>>())
        })
        .await
        .unwrap_or_default();
        let mut paths = Vec::new();
        for (files, cut) in found {
            if cut {
                self.client
                    .show_message(
                        MessageType::WARNING,
                        format!("costline: more than {} Fortran files in the workspace; the first {} are analyzed", sources::MAX_FILES, sources::MAX_FILES),
                    )
                    .await;
            }
            paths.extend(files);
        }
        let open: Vec<String> = lock(&self.docs).uris().iter().map(path_of).collect();
        let worker = self.worker.clone();
        let known = on_blocking_pool(move || Ok(worker.snapshot(worker.sent()).paths()))
            .await
            .unwrap_or_default();
        for path in known {
            let kept = paths.iter().any(|p| p.as_os_str() == path.as_str());
            if !kept && !open.contains(&path) {
                self.worker.send(Change::RemoveFile { path });
            }
        }
        let publish = !caps.pull_diagnostics;
        // The text of each file read, kept to place its diagnostics when they are pushed.
        let mut texts = Vec::with_capacity(paths.len());
        for p in &paths {
            let path = p.to_string_lossy().into_owned();
            if open.contains(&path) {
                texts.push(None);
                continue;
            }
            match read_source(p) {
                Ok(bytes) => {
                    texts.push(publish.then(|| String::from_utf8_lossy(&bytes).into_owned()));
                    self.worker.send(Change::SetFile { path, bytes });
                }
                Err(_) => texts.push(None),
            }
        }
        let total = paths.len().max(1);
        for (k, (p, text)) in paths.iter().zip(texts).enumerate() {
            let path = p.to_string_lossy().into_owned();
            let worker = self.worker.clone();
            // A change cancels the warm-up of a file: try again on the newer snapshot.
            let result = on_blocking_pool(move || {
                let mut outcome = Ok(Vec::new());
                for _ in 0..5 {
                    let a = worker.snapshot(worker.sent());
                    outcome = a
                        .diagnostics(&path)
                        .and_then(|d| a.code_lenses(&path).map(|_| d));
                    if outcome.is_ok() {
                        break;
                    }
                }
                outcome
            })
            .await;
            if let (Ok(diags), Some(text), Some(uri)) = (result, text, Uri::from_file_path(p)) {
                let lines = Lines::new(&text, lock(&self.state).encoding);
                self.publish(uri, convert::diagnostics(&lines, &diags), None)
                    .await;
            }
            if let Some(progress) = &progress {
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                progress
                    .report_with_message(
                        format!("{}/{} {name}", k + 1, paths.len()),
                        ((k + 1) * 100 / total) as u32,
                    )
                    .await;
            }
        }
        if let Some(progress) = progress {
            progress
                .finish_with_message(format!("{} files analyzed", paths.len()))
                .await;
        }
        self.refresh().await;
    }

    /// Registers for settings changes and file events the editor watches for us.
    async fn register_watchers(&self) {
        let caps = self.capabilities();
        let mut registrations = Vec::new();
        if caps.configuration_registration {
            registrations.push(Registration {
                id: "costline-configuration".into(),
                method: "workspace/didChangeConfiguration".into(),
                register_options: None,
            });
        }
        if caps.watch_registration {
            let profiles = profile::watched(&self.config());
            let watchers = ["**/costline.toml", sources::WATCHED]
                .iter()
                .copied()
                .chain(profiles.iter().map(String::as_str))
                .map(|g| FileSystemWatcher {
                    glob_pattern: GlobPattern::String(g.to_string()),
                    kind: None,
                })
                .collect();
            registrations.push(Registration {
                id: "costline-files".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
                    watchers,
                })
                .ok(),
            });
        }
        if !registrations.is_empty()
            && let Err(e) = ask(self.client.register_capability(registrations)).await
        {
            self.client
                .log_message(
                    MessageType::WARNING,
                    format!("costline: registration failed: {e}"),
                )
                .await;
        }
    }

    /// `costline/machines`: the valid models the editor can offer, as `costline
    /// machines --format json` lists them, each with whether it is the one in use
    /// (`current`), for a picker.
    pub async fn list_machines(&self, _: Value) -> Result<Value> {
        let (root, current) = {
            let s = lock(&self.state);
            (s.roots.first().cloned(), s.settings.config.machine.clone())
        };
        let cwd = std::env::current_dir().unwrap_or_default();
        let catalog = crate::machines::catalog_from(root.as_deref().unwrap_or(&cwd));
        let current = current.unwrap_or_else(|| costline_ide::machine::DEFAULT.to_string());
        let list: Vec<Value> = crate::machines::listed(&catalog)
            .into_iter()
            .filter(|m| m.error.is_none())
            .map(|m| {
                let is_current = m.name.eq_ignore_ascii_case(&current);
                let mut entry = serde_json::to_value(m).expect("a listed machine serializes");
                entry["current"] = Value::Bool(is_current);
                entry
            })
            .collect();
        Ok(Value::Array(list))
    }

    /// `costline.compare` (see [`COMPARE`]): the document's program as the analysis
    /// has it, compared on the blocking pool under the settings in force.
    async fn compare(&self, argument: Option<&Value>) -> Result<Option<LSPAny>> {
        #[derive(serde::Deserialize)]
        struct Arguments {
            uri: Uri,
            #[serde(default)]
            params: Vec<String>,
            #[serde(default)]
            procs: Option<String>,
            #[serde(default)]
            top: Option<usize>,
        }
        let invalid = |e: String| Error::invalid_params(format!("costline.compare: {e}"));
        let args: Arguments = argument
            .cloned()
            .ok_or_else(|| invalid("takes {\"uri\", \"params\", \"procs\", \"top\"}".into()))
            .and_then(|v| serde_json::from_value(v).map_err(|e| invalid(e.to_string())))?;
        let params = args
            .params
            .iter()
            .filter(|p| !p.trim().is_empty())
            .map(|p| crate::compare::parse_param(p))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(invalid)?;
        let procs = args
            .procs
            .as_deref()
            .filter(|p| !p.trim().is_empty())
            .map(crate::compare::parse_procs)
            .transpose()
            .map_err(invalid)?;
        let path = path_of(&args.uri);
        let options = lock(&self.state).settings.options.clone();
        let worker = self.worker.clone();
        let revision = self.worker.sent();
        let rendered = on_blocking_pool(move || {
            let files = worker.snapshot(revision).program_files(&path)?;
            if files.is_empty() {
                return Ok(Err(format!(
                    "{path} is not a Fortran file of the workspace"
                )));
            }
            let request = crate::compare::Request {
                params: &params,
                procs,
                top: args.top.unwrap_or(4),
                only: Some(path),
            };
            Ok(crate::compare::rendered(&files, options, &request))
        })
        .await?
        .map_err(invalid)?;
        Ok(rendered.map(|r| {
            serde_json::json!({
                "report": serde_json::from_str::<Value>(&r.json).unwrap_or(Value::Null),
                "text": r.text,
                "svg": r.svg,
            })
        }))
    }

    /// `costline/crashAnalysis`: a deliberate panic, in the analysis (on the blocking
    /// pool) or in the handler itself, for the tests that check the server survives
    /// one. Only with `COSTLINE_TEST_CRASH=1` in the environment.
    pub async fn crash_analysis(&self, params: Value) -> Result<Value> {
        if std::env::var("COSTLINE_TEST_CRASH").as_deref() != Ok("1") {
            return Err(Error::method_not_found());
        }
        if params.get("in").and_then(Value::as_str) == Some("handler") {
            panic!("deliberate panic in a request handler");
        }
        on_blocking_pool(|| -> Cancellable<Value> { panic!("deliberate panic in the analysis") })
            .await
    }
}

/// Runs `f` on the blocking pool: a cancellation becomes `ContentModified`, a panic an
/// internal error (and a line on stderr); the server goes on.
async fn on_blocking_pool<T: Send + 'static>(
    f: impl FnOnce() -> Cancellable<T> + Send + 'static,
) -> Result<T> {
    run_blocking(f)
        .await?
        .map_err(|_cancelled| Error::content_modified())
}

/// Runs `f` on the blocking pool and hands back its outcome, cancelled or not; a panic
/// is an internal error (and a line on stderr); the server goes on.
async fn run_blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => Ok(v),
        Err(e) if e.is_panic() => {
            let why = super::panic_message(e.into_panic().as_ref());
            eprintln!("costline: the analysis panicked: {why}");
            let mut error = Error::internal_error();
            error.message = format!("costline: the analysis failed: {why}").into();
            Err(error)
        }
        Err(_) => Err(Error::request_cancelled()),
    }
}

fn negotiate(p: &InitializeParams) -> Encoding {
    let offered = p
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.clone())
        .unwrap_or_default();
    if offered.contains(&PositionEncodingKind::UTF8) {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    }
}

fn client_capabilities(c: &ClientCapabilities) -> Capabilities {
    let ws = c.workspace.as_ref();
    Capabilities {
        pull_diagnostics: c
            .text_document
            .as_ref()
            .and_then(|t| t.diagnostic.as_ref())
            .is_some(),
        configuration: ws.and_then(|w| w.configuration).unwrap_or(false),
        configuration_registration: ws
            .and_then(|w| w.did_change_configuration.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false),
        watch_registration: ws
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false),
        inlay_hint_refresh: ws
            .and_then(|w| w.inlay_hint.as_ref())
            .and_then(|i| i.refresh_support)
            .unwrap_or(false),
        code_lens_refresh: ws
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|i| i.refresh_support)
            .unwrap_or(false),
        diagnostic_refresh: ws
            .and_then(|w| w.diagnostics.as_ref())
            .and_then(|i| i.refresh_support)
            .unwrap_or(false),
        progress: c
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false),
    }
}

fn roots(p: &InitializeParams) -> Vec<PathBuf> {
    #[allow(deprecated)] // rootUri: clients that predate workspace folders send only it
    let root_uri = p.root_uri.clone();
    let uris: Vec<Uri> = match &p.workspace_folders {
        Some(folders) if !folders.is_empty() => folders.iter().map(|f| f.uri.clone()).collect(),
        _ => root_uri.into_iter().collect(),
    };
    uris.iter()
        .filter_map(|u| u.to_file_path().map(|p| p.into_owned()))
        .filter(|p| p.is_dir())
        .collect()
}

impl LanguageServer for Backend {
    async fn initialize(&self, p: InitializeParams) -> Result<InitializeResult> {
        let encoding = negotiate(&p);
        let init = match p.initialization_options.as_ref().map(config::from_json) {
            Some(Ok(l)) => l,
            Some(Err(e)) => {
                self.client
                    .log_message(MessageType::WARNING, format!("costline: {e}"))
                    .await;
                Layer::default()
            }
            None => Layer::default(),
        };
        {
            let mut s = lock(&self.state);
            s.encoding = encoding;
            s.capabilities = client_capabilities(&p.capabilities);
            s.roots = roots(&p);
            s.settings.init = init;
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(match encoding {
                    Encoding::Utf8 => PositionEncodingKind::UTF8,
                    Encoding::Utf16 => PositionEncodingKind::UTF16,
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![
                        SELECT_MACHINE.into(),
                        COMPARE.into(),
                        profile::RUN_PROFILE.into(),
                    ],
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
                inlay_hint_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        ..CodeActionOptions::default()
                    },
                )),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                diagnostic_provider: Some(DiagnosticServerCapabilities::Options(
                    DiagnosticOptions {
                        identifier: Some("costline".into()),
                        // A module's constants reach the files that use it.
                        inter_file_dependencies: true,
                        workspace_diagnostics: false,
                        work_done_progress_options: WorkDoneProgressOptions::default(),
                    },
                )),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "costline".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        // In a task of its own: it waits on the client, and a notification handler still
        // running would keep the server from ending.
        let this = self.clone_for_task();
        tokio::spawn(async move {
            this.load_settings_file().await;
            this.pull_editor_settings().await;
            this.apply_settings().await;
            this.register_watchers().await;
            this.analyze_workspace().await;
        });
    }

    async fn shutdown(&self) -> Result<()> {
        self.shut_down.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, p: DidOpenTextDocumentParams) {
        let d = p.text_document;
        {
            let encoding = lock(&self.state).encoding;
            let mut docs = lock(&self.docs);
            let bytes = d.text.clone().into_bytes();
            docs.open(d.uri.clone(), d.text, d.version, encoding);
            let revision =
                self.worker
                    .send(Backend::set_text(path_of(&d.uri), bytes, d.version, None));
            if let Some(doc) = docs.get_mut(&d.uri) {
                doc.revision = revision;
            }
        }
        self.settle_later();
    }

    async fn did_change(&self, p: DidChangeTextDocumentParams) {
        {
            let mut docs = lock(&self.docs);
            let uri = p.text_document.uri;
            let Some(was) = docs.get(&uri).map(|d| d.version) else {
                return;
            };
            let Some((doc, ends)) = docs.change(&uri, p.text_document.version, p.content_changes)
            else {
                return;
            };
            doc.revision = self.worker.send(Backend::set_text(
                path_of(&uri),
                doc.text.clone().into_bytes(),
                doc.version,
                ends.map(|e| (was, e)),
            ));
        }
        self.settle_later();
    }

    async fn did_close(&self, p: DidCloseTextDocumentParams) {
        let uri = p.text_document.uri;
        lock(&self.docs).close(&uri);
        let path = path_of(&uri);
        // A file of the workspace goes back to what is on disk; another leaves.
        let on_disk = Path::new(&path).is_file() && self.in_workspace(Path::new(&path));
        match read_source(Path::new(&path)) {
            Ok(bytes) if on_disk => {
                self.worker.send(Change::SetFile { path, bytes });
            }
            _ => {
                self.worker.send(Change::RemoveFile { path });
                if !self.capabilities().pull_diagnostics {
                    self.publish(uri, Vec::new(), None).await;
                }
            }
        }
        self.settle_later();
    }

    async fn did_change_configuration(&self, p: DidChangeConfigurationParams) {
        if self.capabilities().configuration {
            self.pull_editor_settings().await;
        } else {
            match config::from_json(&p.settings) {
                Ok(l) => lock(&self.state).settings.editor = l,
                Err(e) => {
                    self.client
                        .show_message(MessageType::WARNING, format!("costline: {e}"))
                        .await;
                }
            }
        }
        self.apply_settings().await;
    }

    async fn did_change_watched_files(&self, p: DidChangeWatchedFilesParams) {
        let open: Vec<String> = lock(&self.docs).uris().iter().map(path_of).collect();
        let (mut settings, mut profile) = (false, false);
        for change in p.changes {
            let path = path_of(&change.uri);
            if Path::new(&path)
                .file_name()
                .is_some_and(|n| n == "costline.toml")
            {
                settings = true;
                continue;
            }
            if self.is_profile(Path::new(&path)) {
                profile = true;
                continue;
            }
            if open.contains(&path) {
                continue;
            }
            if !sources::is_fortran(Path::new(&path)) {
                self.worker.send(Change::Reload { path });
                continue;
            }
            match read_source(Path::new(&path)) {
                Ok(bytes)
                    if change.typ != FileChangeType::DELETED
                        && self.in_workspace(Path::new(&path)) =>
                {
                    self.worker.send(Change::SetFile { path, bytes });
                }
                _ => {
                    self.worker.send(Change::RemoveFile { path });
                }
            }
        }
        if settings {
            let this = self.clone_for_task();
            tokio::spawn(async move {
                this.load_settings_file().await;
                this.apply_settings().await;
            });
        } else if profile {
            let this = self.clone_for_task();
            tokio::spawn(async move { this.reload_profile().await });
        } else {
            self.settle_later();
        }
    }

    async fn inlay_hint(&self, p: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        if !self.config().hints {
            return Ok(Some(Vec::new()));
        }
        let uri = p.text_document.uri;
        let Some(range) = self.span_of(&uri, p.range) else {
            return Ok(None);
        };
        Ok(self
            .query(&uri, move |a, path| a.inlay_hints(path, range))
            .await?
            .map(|(hints, lines)| {
                hints
                    .iter()
                    .map(|h| convert::inlay_hint(&lines, h))
                    .collect()
            }))
    }

    async fn hover(&self, p: HoverParams) -> Result<Option<Hover>> {
        let at = p.text_document_position_params;
        let uri = at.text_document.uri;
        let Some(offset) = lock(&self.docs)
            .get(&uri)
            .map(|d| d.lines.offset(at.position))
        else {
            return Ok(None);
        };
        Ok(self
            .query(&uri, move |a, path| a.hover(path, offset))
            .await?
            .and_then(|(h, lines)| h.map(|h| convert::hover(&lines, &h))))
    }

    /// `costline.selectMachine NAME|PATH`: prices everything on another machine model.
    /// The counts, work and communication records stay; only the prices are recomputed,
    /// and the editor is asked to refresh its hints, lenses and diagnostics.
    async fn execute_command(&self, p: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        match p.command.as_str() {
            SELECT_MACHINE => {
                let Some(name) = p.arguments.first().and_then(Value::as_str) else {
                    return Err(Error::invalid_params(
                        "costline.selectMachine takes the machine's name or path",
                    ));
                };
                lock(&self.state).settings.picked_machine = Some(name.to_string());
                self.apply_settings().await;
                let current = lock(&self.state).settings.config.machine.clone();
                Ok(current.map(Value::String))
            }
            COMPARE => self.compare(p.arguments.first()).await,
            profile::RUN_PROFILE => self.run_profile(p.arguments.first()).await,
            other => Err(Error::invalid_params(format!("unknown command `{other}`"))),
        }
    }

    async fn code_action(&self, p: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = p.text_document.uri;
        let Some(range) = self.span_of(&uri, p.range) else {
            return Ok(None);
        };
        Ok(self
            .query(&uri, move |a, path| a.code_actions(path, range))
            .await?
            .map(|(actions, lines)| {
                actions
                    .iter()
                    .map(|a| convert::code_action(&lines, &uri, a))
                    .collect()
            }))
    }

    async fn code_lens(&self, p: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        if !self.config().code_lens {
            return Ok(Some(Vec::new()));
        }
        Ok(self
            .query(&p.text_document.uri, |a, path| a.code_lenses(path))
            .await?
            .map(|(lenses, lines)| {
                lenses
                    .iter()
                    .map(|l| convert::code_lens(&lines, l))
                    .collect()
            }))
    }

    async fn diagnostic(
        &self,
        p: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        let items = match self
            .query(&p.text_document.uri, |a, path| a.diagnostics(path))
            .await?
        {
            Some((diags, lines)) => convert::diagnostics(&lines, &diags),
            None => Vec::new(),
        };
        // The same diagnostics as the editor's previous result: say so, so that it
        // keeps what it shows.
        let result_id = convert::result_id(&items);
        if p.previous_result_id.as_ref() == Some(&result_id) {
            return Ok(DocumentDiagnosticReportResult::Report(
                DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                    related_documents: None,
                    unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                        result_id,
                    },
                }),
            ));
        }
        Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: Some(result_id),
                    items,
                },
            }),
        ))
    }
}
