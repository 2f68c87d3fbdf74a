//! `costline serve` on damaged input and under floods of requests: what is not a
//! message gets one JSON-RPC error (id null) and the server reads on; lone surrogates
//! in a text become U+FFFD and the edit applies; and however many slow requests are
//! pending, `$/cancelRequest`, `shutdown`, `exit` and the end of input act at once.

#[allow(dead_code)] // the other tests use more of the client
mod lsp_client;

use costline_fixtures::synthetic::workspace_file;
use lsp_client::{Client, capabilities};
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Mutex;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

const URI: &str = "file:///virtual/protocol.f90";

const TRIANGULAR: &str = "program triangular
  integer, parameter :: n = 1000
  real :: a(n, n)
  integer :: i, j
!HPF$ PROCESSORS pr(8)
!HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: a
  do i = 1, n
    do j = 1, i
      a(i, j) = 0.5 * a(i, j)
    end do
  end do
end program triangular
";

/// How many slow requests a flood leaves pending.
const FLOOD: usize = 400;

/// The floods take turns: on a small machine, three at once would measure each other.
static FLOODS: Mutex<()> = Mutex::new(());

/// A server, initialized with `encoding` positions, with [`TRIANGULAR`] open.
fn started(encoding: &str) -> Client {
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&[encoding], true), None);
    c.open(URI, TRIANGULAR);
    c
}

/// The inlay hints of the whole of `uri`.
fn hints(c: &mut Client, uri: &str) -> Vec<Value> {
    let range =
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 100_000, "character": 0}});
    let result = c.result(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": range}),
    );
    result.as_array().cloned().expect("hints")
}

/// Runs `test` on the client in a thread of its own: a write the server does not read
/// or an answer that does not come fails the test after `limit` (and the server is
/// killed) instead of hanging it.
fn within(limit: Duration, c: Client, test: impl FnOnce(Client) + Send + 'static) {
    let pid = c.pid();
    let (done, finished) = channel();
    let runner = thread::spawn(move || {
        test(c);
        let _ = done.send(());
    });
    match finished.recv_timeout(limit) {
        Ok(()) => {}
        Err(RecvTimeoutError::Timeout) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("the test did not finish within {limit:?}");
        }
        Err(RecvTimeoutError::Disconnected) => {
            if let Err(panic) = runner.join() {
                std::panic::resume_unwind(panic);
            }
        }
    }
}

/// Opens a document of about 2,000 lines and asks for its inlay hints [`FLOOD`] times
/// without waiting (each takes a while: the whole document, in a debug build); returns
/// the ids.
fn flood(c: &mut Client) -> Vec<i64> {
    let uri = "file:///virtual/flood.f90";
    c.open(uri, &workspace_file(20));
    let range =
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 100_000, "character": 0}});
    (0..FLOOD)
        .map(|_| {
            c.send_request(
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": range}),
            )
        })
        .collect()
}

/// The JSON-RPC error code of a response.
fn code(response: &Value) -> i64 {
    response["error"]["code"].as_i64().unwrap_or_default()
}

#[test]
fn a_lone_surrogate_in_an_edit_becomes_u_fffd_and_the_edit_applies() {
    // The loop line becomes a comment holding an emoji (a surrogate pair) and a lone
    // low surrogate; then a line break inserted right after them, at a column counted
    // with U+FFFD (3 UTF-8 bytes, 1 UTF-16 unit), makes the loop code again. Had the
    // character been dropped or kept as its escape, the break would cut the loop.
    for (encoding, column) in [("utf-8", 1 + 4 + 3), ("utf-16", 1 + 2 + 1)] {
        let mut c = started(encoding);
        let text = TRIANGULAR.replace("  do i = 1, n", "!SURROGATESdo i = 1, n");
        let change = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": text}]}});
        let body = change
            .to_string()
            .replace("SURROGATES", r"\ud83d\ude00\udc00");
        c.write_frame(body.as_bytes());
        hints(&mut c, URI);
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{
                "range": {"start": {"line": 6, "character": column}, "end": {"line": 6, "character": column}},
                "text": "\n"}]}),
        );
        let h = hints(&mut c, URI);
        assert!(
            h.iter().any(|h| h["position"]["line"] == 7
                && h["label"].as_str().is_some_and(|l| l.starts_with("×1000"))),
            "{encoding}: no hint on the loop: {h:?}"
        );
        assert!(c.take_errors_without_id().is_empty(), "{encoding}");
        assert_eq!(c.shutdown(), 0);
    }
}

#[test]
fn damaged_bodies_get_one_error_each_and_the_server_reads_on() {
    let cases: [(&str, &[u8], i64); 5] = [
        (
            "not JSON",
            br#"{"jsonrpc": "2.0", "id": 7, "method": oops}"#,
            -32700,
        ),
        (
            "not UTF-8",
            b"{\"jsonrpc\": \"2.0\", \"x\": \"\xff\"}",
            -32700,
        ),
        ("empty", b"", -32700),
        ("JSON, not a message", b"[1, 2, 3]", -32600),
        (
            "not JSON-RPC 2.0",
            br#"{"jsonrpc": "1.0", "method": "exit"}"#,
            -32600,
        ),
    ];
    let mut c = started("utf-16");
    for (what, body, expected) in cases {
        c.write_frame(body);
        assert!(!hints(&mut c, URI).is_empty(), "{what}");
        let errors = c.take_errors_without_id();
        assert_eq!(errors.len(), 1, "{what}: {errors:?}");
        assert_eq!(code(&errors[0]), expected, "{what}: {errors:?}");
    }
    // A body cut short by the next frame: its length counts bytes of the frame that
    // follows, which is read at once, without waiting for more input.
    let next = json!({"jsonrpc": "2.0", "id": 1000, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": URI}, "position": {"line": 6, "character": 4}}})
    .to_string();
    let cut = format!(
        "Content-Length: 300\r\n\r\n{{\"jsonrpc\": \"2.0\", \"method\"Content-Length: {}\r\n\r\n{next}",
        next.len()
    );
    c.write_raw(cut.as_bytes());
    let answer = c.response(1000);
    assert!(answer.get("error").is_none(), "{answer}");
    let errors = c.take_errors_without_id();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(code(&errors[0]), -32700, "{errors:?}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn damaged_headers_get_one_parse_error_each_and_the_server_reads_on() {
    let body = r#"{"jsonrpc": "2.0", "method": "initialized", "params": {}}"#;
    let cases = [
        format!("Content-Length: abc\r\n\r\n{body}"),
        format!("Content-Length: -5\r\n\r\n{body}"),
        format!("Content-Type: application/vscode-jsonrpc\r\n\r\n{body}"),
        "garbage line\r\n".to_string(),
        "garbage without a line end".to_string(),
        format!("Content-Length: 10\r\nno colon\r\n\r\n{body}"),
        // A typo: over the limit, and the next frame follows.
        format!("Content-Length: 99999999999\r\n\r\n{body}"),
    ];
    let mut c = started("utf-16");
    for damaged in cases {
        c.write_raw(damaged.as_bytes());
        assert!(!hints(&mut c, URI).is_empty(), "{damaged:?}");
        let errors = c.take_errors_without_id();
        assert_eq!(errors.len(), 1, "{damaged:?}: {errors:?}");
        assert_eq!(code(&errors[0]), -32700, "{damaged:?}: {errors:?}");
    }
    // Other headers, and the name in any case, are fine.
    c.write_raw(
        format!(
            "content-length: {}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    assert!(!hints(&mut c, URI).is_empty());
    assert!(c.take_errors_without_id().is_empty());
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_huge_or_unfinished_frame_does_not_keep_the_server_after_its_input_ends() {
    // Over the limit: refused at once, its body skipped as it comes.
    let mut c = started("utf-16");
    c.write_raw(b"Content-Length: 99999999999\r\n\r\n{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"shutdown\"}");
    let error = c.wait(|m| m["id"].is_null() && m.get("error").is_some());
    assert_eq!(code(&error), -32700, "{error}");
    assert_eq!(c.exit_within(Duration::from_secs(3)), Some(1));
    // Under it, and cut short by the end of input.
    let mut c = started("utf-16");
    c.write_raw(b"Content-Length: 1000000\r\n\r\n{\"jsonrpc\": \"2.0\", \"id\": 9,");
    assert_eq!(c.exit_within(Duration::from_secs(3)), Some(1));
}

#[test]
fn shutdown_and_exit_are_prompt_with_400_slow_requests_pending() {
    let _turn = FLOODS.lock().unwrap_or_else(|e| e.into_inner());
    within(Duration::from_secs(60), started("utf-16"), |mut c| {
        flood(&mut c);
        let t0 = Instant::now();
        c.result("shutdown", Value::Null);
        let answered = t0.elapsed();
        c.notify("exit", Value::Null);
        let code = c.exit_within(Duration::from_secs(3));
        eprintln!(
            "{FLOOD} pending: shutdown answered in {answered:?}, exited {:?} after it",
            t0.elapsed()
        );
        assert!(
            answered < Duration::from_secs(5),
            "shutdown took {answered:?}"
        );
        assert_eq!(code, Some(0));
    });
}

#[test]
fn the_end_of_input_ends_the_server_with_400_slow_requests_pending() {
    let _turn = FLOODS.lock().unwrap_or_else(|e| e.into_inner());
    within(Duration::from_secs(60), started("utf-16"), |mut c| {
        flood(&mut c);
        let t0 = Instant::now();
        let code = c.exit_within(Duration::from_secs(2));
        eprintln!(
            "{FLOOD} pending: exited {:?} after the end of input",
            t0.elapsed()
        );
        assert_eq!(code, Some(1));
    });
}

#[test]
fn a_request_cancelled_behind_400_slow_ones_is_answered_at_once() {
    let _turn = FLOODS.lock().unwrap_or_else(|e| e.into_inner());
    within(Duration::from_secs(60), started("utf-16"), |mut c| {
        let ids = flood(&mut c);
        let last = *ids.last().expect("a flood");
        let t0 = Instant::now();
        c.notify("$/cancelRequest", json!({"id": last}));
        let answer = c.response(last);
        let answered = t0.elapsed();
        eprintln!("{FLOOD} pending: the last one, cancelled, answered in {answered:?}");
        assert_eq!(code(&answer), -32800, "{answer}");
        assert!(answered < Duration::from_secs(2), "took {answered:?}");
        assert_eq!(c.shutdown(), 0);
    });
}
