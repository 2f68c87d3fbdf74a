//! A small LSP client for the tests: it runs the real `costline serve` binary, frames
//! JSON-RPC messages over its stdin and stdout, answers the server's own requests
//! (configuration, progress tokens, registrations, refreshes) and records everything
//! the server sent, so tests can wait for a response or a notification.

mod raw;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

/// How long to wait for any one message before the test fails.
const TIMEOUT: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Messages received and not consumed yet.
    backlog: Vec<Value>,
    next_id: i64,
    /// What to answer `workspace/configuration` with (the `costline` section).
    pub settings: Value,
    /// Every request the server sent, in order (method and params).
    pub server_requests: Vec<(String, Value)>,
}

impl Client {
    /// Starts `costline serve` with extra environment variables.
    pub fn start(env: &[(&str, &str)]) -> Client {
        Client::spawn(env!("CARGO_BIN_EXE_costline"), &["serve"], env)
    }

    /// Starts any language server on stdio.
    pub fn spawn(program: &str, args: &[&str], env: &[(&str, &str)]) -> Client {
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("costline serve starts");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, incoming) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        // Drain stderr so the server never blocks on it; keep it visible for failures.
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[server stderr] {line}");
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            incoming,
            backlog: Vec::new(),
            next_id: 1,
            settings: Value::Null,
            server_requests: Vec::new(),
        }
    }

    fn write(&mut self, message: &Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to server");
        stdin.flush().expect("flush");
    }

    /// Writes raw bytes (for malformed input).
    pub fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Sends a request and waits for its response (the whole message: `result` or
    /// `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    /// The `result` of a request, failing the test on an error.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// Waits for the response to request `id`.
    pub fn response(&mut self, id: i64) -> Value {
        self.wait(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// Waits for a notification of `method` whose params satisfy `accept`; returns the
    /// params.
    pub fn notification(&mut self, method: &str, accept: impl Fn(&Value) -> bool) -> Value {
        self.wait(|m| m["method"] == method && m.get("id").is_none() && accept(&m["params"]))["params"]
            .clone()
    }

    /// Waits for the first message that satisfies `accept`, answering the server's
    /// requests meanwhile.
    pub fn wait(&mut self, accept: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&accept) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.incoming.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no awaited message within {TIMEOUT:?}; received: {:#?}",
                    self.backlog
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the server closed its output; received: {:#?}",
                    self.backlog
                ),
            };
            if message.get("method").is_some() && message.get("id").is_some() {
                self.answer(&message);
                continue;
            }
            if accept(&message) {
                return message;
            }
            self.backlog.push(message);
        }
    }

    /// Answers a request from the server as a client that supports it would.
    fn answer(&mut self, request: &Value) {
        let method = request["method"].as_str().unwrap_or_default().to_string();
        self.server_requests
            .push((method.clone(), request["params"].clone()));
        let result = match method.as_str() {
            "workspace/configuration" => {
                let n = request["params"]["items"].as_array().map_or(1, Vec::len);
                Value::Array(vec![self.settings.clone(); n])
            }
            _ => Value::Null,
        };
        let id = request["id"].clone();
        self.write(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// Every notification of `method` received so far, without waiting.
    pub fn received(&mut self, method: &str) -> Vec<Value> {
        while let Ok(m) = self.incoming.try_recv() {
            if m.get("method").is_some() && m.get("id").is_some() {
                self.answer(&m);
            } else {
                self.backlog.push(m);
            }
        }
        self.backlog
            .iter()
            .filter(|m| m["method"] == method)
            .map(|m| m["params"].clone())
            .collect()
    }

    /// `initialize` with `capabilities` and `initialized`; returns the server's
    /// capabilities. The server does not ask the compiler (`askCompiler: false`): a
    /// report arriving in the background would change times while a test reads them.
    pub fn initialize(&mut self, capabilities: Value, root: Option<&str>) -> Value {
        self.initialize_with(capabilities, root, json!({"askCompiler": false}))
    }

    /// `initialize` with `capabilities` and the initialization options `options`.
    pub fn initialize_with(
        &mut self,
        capabilities: Value,
        root: Option<&str>,
        options: Value,
    ) -> Value {
        let root_uri = root.map(|r| format!("file://{r}"));
        let folders = root_uri
            .as_ref()
            .map(|u| json!([{"uri": u, "name": "ws"}]))
            .unwrap_or(Value::Null);
        let result = self.result(
            "initialize",
            json!({"processId": null, "rootUri": root_uri, "workspaceFolders": folders, "capabilities": capabilities, "initializationOptions": options}),
        );
        self.notify("initialized", json!({}));
        result["capabilities"].clone()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "fortran", "version": 1, "text": text}}),
        );
    }

    /// The server's process id (to read its memory use).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `shutdown`, `exit`; returns the exit code.
    pub fn shutdown(mut self) -> i32 {
        self.result("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.wait_exit()
    }

    /// Closes the server's input and waits for it to end; returns the exit code.
    pub fn wait_exit(&mut self) -> i32 {
        self.exit_within(TIMEOUT).expect("the server did not exit")
    }

    /// Closes the server's input; its exit code if it ends within `limit`.
    pub fn exit_within(&mut self, limit: Duration) -> Option<i32> {
        drop(self.stdin.take());
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return Some(status.code().unwrap_or(-1));
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one framed message; `None` at the end of the stream.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            length = v.trim().parse().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// Full client capabilities: pull diagnostics, configuration, refreshes, progress,
/// UTF-16 positions unless told otherwise.
pub fn capabilities(encodings: &[&str], pull_diagnostics: bool) -> Value {
    let mut caps = json!({
        "general": {"positionEncodings": encodings},
        "workspace": {
            "configuration": true,
            "didChangeConfiguration": {"dynamicRegistration": true},
            "didChangeWatchedFiles": {"dynamicRegistration": true},
            "inlayHint": {"refreshSupport": true},
            "codeLens": {"refreshSupport": true},
            "diagnostics": {"refreshSupport": true}
        },
        "textDocument": {
            "inlayHint": {},
            "hover": {"contentFormat": ["markdown"]},
            "codeLens": {},
            "publishDiagnostics": {"versionSupport": true}
        },
        "window": {"workDoneProgress": true}
    });
    if pull_diagnostics {
        caps["textDocument"]["diagnostic"] = json!({"dynamicRegistration": false});
    }
    caps
}
