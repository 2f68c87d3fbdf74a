//! `costline serve` over a real stdio session: initialize, open, edit, every surface
//! (inlay hints, hover, code lenses, pull and pushed diagnostics, configuration,
//! progress), malformed requests and panics in a handler and in the analysis. The
//! answers are snapshotted (insta) with hints and lenses rendered into the source.

#[allow(dead_code)] // the latency benchmark uses the rest of the client
mod lsp_client;

use lsp_client::{Client, capabilities};
use serde_json::{Value, json};
use std::path::Path;

const URI: &str = "file:///virtual/triangular.f90";

const TRIANGULAR: &str = "program triangular
  integer, parameter :: n = 1000
  real :: a(n, n), b(n, n)
  integer :: i, j
!HPF$ PROCESSORS pr(8)
!HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: a
!HPF$ DISTRIBUTE (CYCLIC, *) ONTO pr :: b
  do i = 1, n
    do j = 1, i
      a(i, j) = 0.5 * a(i, j)
    end do
  end do
  do i = 1, n
    do j = 1, i
      b(i, j) = 0.5 * b(i, j)
    end do
  end do
end program triangular
";

/// The byte offset of an LSP position in `text` (`utf16`: columns in UTF-16 units).
fn offset(text: &str, p: &Value, utf16: bool) -> usize {
    let (line, col) = (
        p["line"].as_u64().unwrap() as usize,
        p["character"].as_u64().unwrap() as usize,
    );
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let rest = &text[start..];
    if !utf16 {
        return start + col;
    }
    let mut units = 0;
    for (i, c) in rest.char_indices() {
        if units >= col {
            return start + i;
        }
        units += c.len_utf16();
    }
    start + rest.len()
}

/// `text` with every hint's label inserted at its position.
fn render_hints(text: &str, hints: &Value, utf16: bool) -> String {
    let mut at: Vec<(usize, String)> = hints
        .as_array()
        .expect("hints")
        .iter()
        .map(|h| {
            (
                offset(text, &h["position"], utf16),
                h["label"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    at.sort();
    let mut out = text.to_string();
    for (o, label) in at.iter().rev() {
        out.insert_str(*o, &format!(" ⟨{label}⟩"));
    }
    out
}

fn whole(text: &str) -> Value {
    json!({"start": {"line": 0, "character": 0}, "end": {"line": text.lines().count() + 1, "character": 0}})
}

fn hints(client: &mut Client, uri: &str, text: &str) -> Value {
    client.result(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": whole(text)}),
    )
}

/// Polls `check` until it holds (the server applies settings asynchronously).
fn eventually(c: &mut Client, what: &str, check: impl Fn(&mut Client) -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !check(c) {
        assert!(std::time::Instant::now() < deadline, "never: {what}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_session_answers_every_surface_and_follows_edits() {
    let mut c = Client::start(&[]);
    let caps = c.initialize(capabilities(&["utf-16"], true), None);
    insta::assert_json_snapshot!("capabilities", caps);
    c.open(URI, TRIANGULAR);

    let h = hints(&mut c, URI, TRIANGULAR);
    insta::assert_snapshot!("hints", render_hints(TRIANGULAR, &h, true));

    // Hover on the first assignment, on the BLOCK directive and on the program.
    for (name, line, character) in [
        ("hover_assignment", 9, 8),
        ("hover_directive", 5, 8),
        ("hover_unit", 0, 10),
    ] {
        let hover = c.result(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}}),
        );
        insta::assert_json_snapshot!(name, hover);
    }

    let lenses = c.result(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": URI}}),
    );
    insta::assert_json_snapshot!("code_lenses", lenses);

    let diags = c.result(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": URI}}),
    );
    insta::assert_json_snapshot!("diagnostics", diags);

    // An edit: n = 1000 becomes n = 40 (one character replaced, one deleted).
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 1, "character": 28}, "end": {"line": 1, "character": 29}}, "text": "4"},
            {"range": {"start": {"line": 1, "character": 29}, "end": {"line": 1, "character": 31}}, "text": ""}
        ]}),
    );
    let edited = TRIANGULAR.replace("n = 1000", "n = 40");
    let h = hints(&mut c, URI, &edited);
    insta::assert_snapshot!("hints_after_edit", render_hints(&edited, &h, true));

    assert_eq!(c.shutdown(), 0);
}

/// Program `gather` over `a`, `b` and the index array `idx`, BLOCK on 4 processors,
/// with the statements `$body`.
macro_rules! gather_program {
    ($body:literal) => {
        concat!(
            "program gather
  integer, parameter :: n = 4096
  real :: a(n), b(n)
  integer :: idx(n), i, k
!HPF$ PROCESSORS pr(4)
!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a, b, idx
",
            $body,
            "end program gather
"
        )
    };
}

/// A program costline cannot fully model: a scatter `a(idx(i))` (who writes is
/// unknown, so its communication is not modelled), a call of a procedure it was not
/// given and a statement it cannot read.
const INCOMPLETE: &str = gather_program!(
    "  do k = 1, 10
    do i = 1, n
      a(idx(i)) = a(idx(i)) + b(i)
    end do
    call smooth(a, n)
  end do
  b = a + * 2
"
);

/// A gather through an index array: who reads is known, what is not.
const GATHER: &str = gather_program!(
    "  do k = 1, 10
    do i = 1, n
      a(i) = a(i) + b(idx(i))
    end do
  end do
"
);

/// The hover of a read through an index array says its records are an upper bound
/// from the owner sets, and the statement says it among its assumptions.
#[test]
fn a_gather_through_an_index_array_is_an_upper_bound() {
    const URI: &str = "file:///virtual/gather_bound.f90";
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&["utf-16"], true), None);
    c.open(URI, GATHER);
    let hover = c.result(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": {"line": 8, "character": 8}}),
    );
    let text = hover["contents"]["value"].as_str().expect("markdown");
    assert!(text.contains("upper bound"), "{text}");
    insta::assert_snapshot!("gather_bound_hover", text);
}

/// Every surface says what an incomplete figure leaves out: hints `≥` and `comm ?`,
/// the lens `≥ … · incomplete: leaves out …`, the hovers' lists of missing places,
/// and an error on the unit naming the statements that could not be read.
#[test]
fn an_incomplete_unit_says_so_on_every_surface() {
    const URI: &str = "file:///virtual/gather.f90";
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&["utf-16"], true), None);
    c.open(URI, INCOMPLETE);
    let h = hints(&mut c, URI, INCOMPLETE);
    let rendered = render_hints(INCOMPLETE, &h, true);
    assert!(rendered.contains("comm ?"), "{rendered}");
    assert!(rendered.contains("≥ "), "{rendered}");
    insta::assert_snapshot!("incomplete_hints", rendered);
    let lenses = c.result(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": URI}}),
    );
    let title = lenses[0]["command"]["title"].as_str().expect("a lens");
    assert!(title.contains("incomplete: leaves out"), "{title}");
    insta::assert_json_snapshot!("incomplete_code_lenses", lenses);
    for (name, line, character) in [
        ("incomplete_hover_unit", 0, 10),
        ("incomplete_hover_gather", 8, 8),
    ] {
        let hover = c.result(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}}),
        );
        let text = hover["contents"]["value"].as_str().expect("markdown");
        assert!(text.contains("incomplete"), "{name}: {text}");
        insta::assert_snapshot!(name, text);
    }
    let diags = c.result(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": URI}}),
    );
    assert!(
        diags["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|d| d["code"] == "unread-statements" && d["severity"] == 1),
        "{diags}"
    );
    insta::assert_json_snapshot!("incomplete_diagnostics", diags);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn positions_count_utf8_bytes_or_utf16_units_as_negotiated() {
    // Non-ASCII before the assignment on its line shifts the hint's column differently
    // in the two encodings.
    let text = "subroutine s(a)\n  real :: a(8)\n  integer :: i\n  do i = 1, 8\n    print *, 'é😀'; a(i) = 0\n  end do\nend subroutine\n";
    for (encoding, utf16) in [("utf-8", false), ("utf-16", true)] {
        let mut c = Client::start(&[]);
        let caps = c.initialize(capabilities(&[encoding], true), None);
        assert_eq!(caps["positionEncoding"], encoding);
        c.open(URI, text);
        let h = hints(&mut c, URI, text);
        let rendered = render_hints(text, &h, utf16);
        assert!(
            rendered.contains("a(i) = 0 ⟨×8⟩\n"),
            "{encoding}:\n{rendered}"
        );
        assert!(
            rendered.contains("do i = 1, 8 ⟨×8 · ≈ "),
            "{encoding}:\n{rendered}"
        );
        // Hover on `a(i)` after the emoji.
        let line = text.lines().nth(4).unwrap();
        let byte = line.find("a(i)").unwrap();
        let character = if utf16 {
            line[..byte].encode_utf16().count()
        } else {
            byte
        };
        let hover = c.result(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": character + 1}}),
        );
        let value = hover["contents"]["value"].as_str().unwrap_or_default();
        assert!(
            value.contains("**assignment** (line 5)"),
            "{encoding}: {hover}"
        );
        assert_eq!(
            hover["range"]["start"]["character"],
            json!(character),
            "{encoding}"
        );
        assert_eq!(c.shutdown(), 0);
    }
}

#[test]
fn malformed_requests_get_errors_and_the_server_keeps_serving() {
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&["utf-16"], true), None);
    c.open(URI, TRIANGULAR);
    // Wrong parameter types, missing parameters, an unknown method, a document that is
    // not open, a position far past the end.
    let bad = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": 5}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let missing = c.request("textDocument/inlayHint", Value::Null);
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    let unknown = c.request("costline/noSuchMethod", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let closed = c.result(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///not/open.f90"}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(closed, Value::Null);
    let far = c.result(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": {"line": 9999, "character": 9999}}),
    );
    assert_eq!(far, Value::Null);
    // An edit with a range past the end is clamped, not fatal.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 500, "character": 3}, "end": {"line": 900, "character": 0}}, "text": "! appended\n"}
        ]}),
    );
    let h = hints(&mut c, URI, TRIANGULAR);
    assert!(h.as_array().is_some_and(|a| !a.is_empty()), "{h}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_frame_that_is_not_json_gets_a_parse_error_and_the_server_reads_on() {
    // The input answers -32700 with id null and goes on with the next frame (more
    // kinds of damage in lsp_protocol.rs).
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&["utf-16"], true), None);
    c.open(URI, TRIANGULAR);
    let body = "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": oops}";
    c.write_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let error = c.wait(|m| m.get("error").is_some());
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert_eq!(error["id"], Value::Null, "{error}");
    let h = hints(&mut c, URI, TRIANGULAR);
    assert!(h.as_array().is_some_and(|a| !a.is_empty()), "{h}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_panic_in_a_handler_or_in_the_analysis_is_an_error_response() {
    let mut c = Client::start(&[("COSTLINE_TEST_CRASH", "1")]);
    c.initialize(capabilities(&["utf-16"], true), None);
    c.open(URI, TRIANGULAR);
    for place in ["analysis", "handler"] {
        let r = c.request("costline/crashAnalysis", json!({"in": place}));
        assert_eq!(r["error"]["code"], -32603, "{place}: {r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("deliberate panic"),
            "{r}"
        );
        // Still serving.
        let h = hints(&mut c, URI, TRIANGULAR);
        assert!(
            h.as_array().is_some_and(|a| a.len() == 6),
            "after a panic in the {place}: {h}"
        );
    }
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn without_the_crash_switch_the_crash_method_does_not_exist() {
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&["utf-16"], true), None);
    let r = c.request("costline/crashAnalysis", json!({"in": "analysis"}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn settings_from_the_editor_and_costline_toml_bind_the_unknowns() {
    let root = std::env::temp_dir().join(format!("costline-lsp-settings-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("costline.toml"), "[params]\nn = 100\np = 4\n").unwrap();
    let text = "subroutine s(a, n, p)\n  integer :: n, p, i\n  real :: a(n)\n!HPF$ PROCESSORS pr(p)\n!HPF$ DISTRIBUTE a(BLOCK) ONTO pr\n  do i = 1, n\n    a(i) = 0\n  end do\nend subroutine\n";
    let path = root.join("s.f90");
    std::fs::write(&path, text).unwrap();
    let uri = format!("file://{}", path.display());

    let mut c = Client::start(&[]);
    c.settings = json!({"params": {"n": 1000}});
    c.initialize(
        capabilities(&["utf-16"], true),
        Some(&root.display().to_string()),
    );
    c.open(&uri, text);
    // Settings arrive while the editor already asks: poll until they are in.
    // costline.toml gives p = 4, the editor n = 1000 (over the file's 100).
    // A request overtaken by a settings change answers ContentModified: an editor asks
    // again, and so does the poll.
    let current = |c: &mut Client, method: &str, params: Value| {
        let response = c.request(method, params);
        match response["error"]["code"].as_i64() {
            Some(-32801) => None,
            Some(_) => panic!("{method} failed: {response}"),
            None => Some(response["result"].clone()),
        }
    };
    let hints_now = |c: &mut Client| {
        current(
            c,
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": whole(text)}),
        )
    };
    eventually(&mut c, "the first settings", |c| {
        hints_now(c)
            .is_some_and(|h| render_hints(text, &h, true).contains("a(i) = 0 ⟨×1000 · wd 0.00⟩"))
    });

    // A settings change re-evaluates: p = 3 spreads 1000 rows as 334, 334, 332.
    c.settings = json!({"params": {"n": 1000, "p": 3}});
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    );
    eventually(&mut c, "p = 3", |c| {
        let hover = current(
            c,
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 6, "character": 5}}),
        );
        hover.is_some_and(|h| {
            h["contents"]["value"]
                .as_str()
                .is_some_and(|v| v.contains("| 3 | 332 |"))
        })
    });

    // Hints switched off.
    c.settings = json!({"params": {"n": 1000, "p": 3}, "hints": {"enable": false}});
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    );
    eventually(&mut c, "hints off", |c| hints_now(c) == Some(json!([])));
    // The server asked the editor to refresh its hints after each change (the last
    // request may come after the hints it refreshes were already answered).
    let refreshes = |c: &Client| {
        c.server_requests
            .iter()
            .filter(|(m, _)| m == "workspace/inlayHint/refresh")
            .count()
    };
    eventually(&mut c, "a hint refresh after each change", |c| {
        hints_now(c);
        refreshes(c) >= 3
    });
    assert_eq!(c.shutdown(), 0);
    std::fs::remove_dir_all(&root).unwrap();
}

/// `defines` choose the branches of the preprocessor's conditionals: costline.toml's
/// at first (n = 1024, CYCLIC), then the editor's, which replace them (n = 64,
/// BLOCK: an imbalance warning appears); the hints follow each change.
#[test]
fn defines_from_the_settings_choose_the_preprocessed_branches() {
    let root = std::env::temp_dir().join(format!("costline-lsp-defines-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("costline.toml"),
        "[defines]\nBIG = 1\nCYCLIC = true\n",
    )
    .unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/free/cpp_branches.F90");
    let text = std::fs::read_to_string(fixture).unwrap();
    let path = root.join("cpp_branches.F90");
    std::fs::write(&path, &text).unwrap();
    let uri = format!("file://{}", path.display());

    let mut c = Client::start(&[]);
    c.initialize(
        capabilities(&["utf-16"], true),
        Some(&root.display().to_string()),
    );
    c.open(&uri, &text);
    let answer = |c: &mut Client, method: &str, params: Value| {
        let response = c.request(method, params);
        match response["error"]["code"].as_i64() {
            Some(-32801) => None,
            Some(_) => panic!("{method} failed: {response}"),
            None => Some(response["result"].clone()),
        }
    };
    let hint_of_the_assignment = |c: &mut Client| {
        answer(
            c,
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": whole(&text)}),
        )
        .map(|h| render_hints(&text, &h, true))
        .and_then(|r| {
            r.lines()
                .find(|l| l.contains("a(i, j) = 1.0"))
                .map(str::to_string)
        })
        .unwrap_or_default()
    };
    let imbalance = |c: &mut Client| {
        answer(
            c,
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri}}),
        )
        .is_some_and(|r| {
            r["items"]
                .as_array()
                .is_some_and(|items| items.iter().any(|d| d["code"] == "imbalance"))
        })
    };
    eventually(&mut c, "costline.toml's defines: n = 1024, CYCLIC", |c| {
        hint_of_the_assignment(c).contains("⟨×5.2e5 · wd 0.00")
    });
    assert!(!imbalance(&mut c));
    c.settings = json!({"defines": {"NP": "8"}});
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    );
    eventually(&mut c, "the editor's defines: n = 64, BLOCK over 8", |c| {
        hint_of_the_assignment(c).contains("⟨×2080 · wd ")
    });
    eventually(&mut c, "the imbalance of (BLOCK, *)", |c| imbalance(c));
    let hover = answer(
        &mut c,
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 26, "character": 8}}),
    )
    .unwrap();
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("over 8 processors"),
        "{hover}"
    );
    assert_eq!(c.shutdown(), 0);
    std::fs::remove_dir_all(&root).unwrap();
}

/// `costline.compare` compares the document as the editor has it (an unsaved edit of
/// its DISTRIBUTE included), with the module it uses from another file of the
/// workspace, which the server finds itself: the versioned report, its text and the
/// plot.
#[test]
fn the_compare_command_compares_the_documents_program() {
    let root = std::env::temp_dir().join(format!("costline-lsp-compare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/free");
    for f in ["jacobi_hpf.f90", "grid_params.f90", "triangular_update.f90"] {
        std::fs::copy(fixtures.join(f), root.join(f)).unwrap();
    }
    let path = root.join("jacobi_hpf.f90");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("DISTRIBUTE t(BLOCK, *)", "DISTRIBUTE t(CYCLIC, *)");
    assert!(
        text.contains("t(CYCLIC, *)"),
        "the fixture's directive moved"
    );
    let uri = format!("file://{}", path.display());
    let mut c = Client::start(&[]);
    c.initialize(
        capabilities(&["utf-16"], true),
        Some(&root.display().to_string()),
    );
    c.open(&uri, &text);
    let result = c.result(
        "workspace/executeCommand",
        json!({"command": "costline.compare", "arguments": [
            {"uri": uri, "params": ["n=64..256"], "procs": "2..8", "top": 2}
        ]}),
    );
    let report = &result["report"];
    assert_eq!(report["version"], 1, "{result}");
    let comparisons = report["comparisons"].as_array().unwrap();
    // The document's DISTRIBUTE only (the triangular update's is not compared), as
    // edited, its size from the module of the other file.
    assert_eq!(comparisons.len(), 1, "{report}");
    assert_eq!(comparisons[0]["path"], path.display().to_string());
    assert_eq!(
        comparisons[0]["directive"],
        "!HPF$ DISTRIBUTE (CYCLIC, *) ONTO pr :: t"
    );
    assert_eq!(comparisons[0]["param"], "n");
    assert_eq!(comparisons[0]["procs"], json!([2, 4, 8]));
    assert!(
        result["text"]
            .as_str()
            .unwrap()
            .contains("DISTRIBUTE (CYCLIC, *) ONTO pr :: t"),
        "{result}"
    );
    assert!(
        result["svg"].as_str().unwrap().starts_with("<svg"),
        "{result}"
    );
    let bad = c.request(
        "workspace/executeCommand",
        json!({"command": "costline.compare", "arguments": [{"uri": uri, "params": ["n=1..2", "m=1..3"]}]}),
    );
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert_eq!(c.shutdown(), 0);
    std::fs::remove_dir_all(&root).unwrap();
}

/// The seconds in the first `≈ …` of a hint label (`×64 · ≈ 1.2 µs`).
fn predicted(label: &str) -> f64 {
    let t = label.split("≈ ").nth(1).expect("a predicted time");
    let mut parts = t.split_whitespace();
    let value: f64 = parts.next().unwrap().parse().unwrap();
    let scale = match parts.next().unwrap() {
        "s" => 1.0,
        "ms" => 1e-3,
        "µs" => 1e-6,
        "ns" => 1e-9,
        u => panic!("unit {u}"),
    };
    value * scale
}

#[test]
fn selecting_a_machine_reprices_hints_and_lenses() {
    let text = "subroutine s(a, b, n)\n  integer, parameter :: m = 4096\n  integer :: n, i\n  real(8) :: a(m), b(m)\n  do i = 2, m\n    a(i) = b(i-1) * 2.0d0 + sqrt(b(i))\n  end do\nend subroutine\n";
    let uri = "file:///tmp/costline-machine-switch.f90";
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&["utf-16"], true), None);
    c.open(uri, text);
    let loop_time = |c: &mut Client| {
        let h = hints(c, uri, text);
        let label = h
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["label"].as_str().unwrap().to_string())
            .find(|l| l.contains('≈'))
            .expect("a timed loop hint");
        predicted(&label)
    };
    let modern = loop_time(&mut c);
    let machines = c.result("costline/machines", json!({}));
    let names: Vec<&str> = machines
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"ipsc860"), "{machines}");
    let picked = c.result(
        "workspace/executeCommand",
        json!({"command": "costline.selectMachine", "arguments": ["ipsc860"]}),
    );
    assert_eq!(picked, json!("ipsc860"));
    let old = loop_time(&mut c);
    assert!(old > 20.0 * modern, "{old} vs {modern}");
    let lenses = c.result(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let title = lenses[0]["command"]["title"].as_str().unwrap().to_string();
    assert!(title.ends_with("on ipsc860"), "{title}");
    assert!(
        c.server_requests
            .iter()
            .any(|(m, _)| m == "workspace/inlayHint/refresh"),
        "{:?}",
        c.server_requests
    );
    // An unknown machine is an error message; the model in use stays.
    let r = c.request(
        "workspace/executeCommand",
        json!({"command": "costline.selectMachine", "arguments": []}),
    );
    assert!(r["error"].is_object(), "{r}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_workspace_is_analyzed_with_progress_and_pushed_diagnostics_without_pull() {
    let root = std::env::temp_dir().join(format!("costline-lsp-ws-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/sizes.f90"),
        "module sizes\n  integer, parameter :: n = 64\nend module\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/tri.f90"),
        "program tri\n  use sizes\n  real :: a(n, n)\n  integer :: i, j\n!HPF$ PROCESSORS pr(4)\n!HPF$ DISTRIBUTE a(BLOCK, *) ONTO pr\n  do i = 1, n\n    do j = 1, i\n      a(i, j) = 0\n    end do\n  end do\nend program\n",
    )
    .unwrap();
    let mut c = Client::start(&[]);
    // A client without pull diagnostics.
    c.initialize(
        capabilities(&["utf-16"], false),
        Some(&root.display().to_string()),
    );
    let end = c.notification("$/progress", |p| p["value"]["kind"] == "end");
    assert_eq!(
        end["value"]["message"],
        "2 files analyzed",
        "{:#?}",
        c.received("$/progress")
    );
    let begin = &c.received("$/progress")[0];
    assert_eq!(begin["value"]["kind"], "begin", "{begin}");
    // The workspace's diagnostics were pushed, with the imbalance of the BLOCK rows,
    // which needed the module's n from the other file.
    let tri = c.notification("textDocument/publishDiagnostics", |p| {
        p["uri"].as_str().is_some_and(|u| u.ends_with("tri.f90"))
    });
    let codes: Vec<&str> = tri["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"imbalance"), "{tri}");
    assert_eq!(c.shutdown(), 0);
    std::fs::remove_dir_all(&root).unwrap();
}

/// A client that goes away while a long request runs (pricing every distribution of a
/// 512×512 red-black relaxation) does not leave the server running.
#[test]
fn the_server_ends_with_its_client_even_mid_request() {
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&["utf-16"], true), None);
    let uri = "file:///tmp/costline-gone/redblack.f";
    c.open(uri, include_str!("../../tests/fixtures/fixed/redblack.f"));
    c.send_request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 7, "character": 8}, "end": {"line": 7, "character": 8}},
            "context": {"diagnostics": []},
        }),
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        c.exit_within(std::time::Duration::from_secs(5)).is_some(),
        "the server outlived its client"
    );
}

/// Language clients append `--stdio` (vscode-languageclient's stdio transport).
#[test]
fn serve_accepts_the_stdio_flag() {
    let mut c = Client::spawn(env!("CARGO_BIN_EXE_costline"), &["serve", "--stdio"], &[]);
    c.initialize(capabilities(&["utf-16"], true), None);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn exit_without_shutdown_is_code_1() {
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&["utf-16"], true), None);
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(), 1);
}

/// The unit's predicted time per run from `costline check --format json` on `text`.
fn checked_time(text: &str, machine: &str, name: &str) -> f64 {
    let dir = std::env::temp_dir().join(format!("costline-action-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_costline"))
        .args(["check", "--format", "json", "--machine", machine])
        .arg(&path)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["files"][0]["units"][0]["metrics"]["time_s"]
        .as_f64()
        .unwrap()
}

/// `text` with the LSP edits applied (UTF-8 columns, non-overlapping).
fn apply(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"], false),
                offset(text, &e["range"]["end"], false),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (start, end, new) in spans {
        out.replace_range(start..end, new);
    }
    out
}

#[test]
fn distribution_actions_deliver_the_time_they_promise() {
    let text = include_str!("../../tests/fixtures/fixed/redblack.f")
        .replace("N = 512", "N = 32")
        .replace("NITER = 50", "NITER = 4");
    let uri = "file:///tmp/costline-redblack-actions.f";
    let mut c = Client::start(&[]);
    c.initialize(capabilities(&["utf-8"], true), None);
    let picked = c.result(
        "workspace/executeCommand",
        json!({"command": "costline.selectMachine", "arguments": ["ipsc860"]}),
    );
    assert_eq!(picked, json!("ipsc860"));
    c.open(uri, &text);
    // On the DISTRIBUTE (its continuation line).
    let actions = c.result(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri},
               "range": {"start": {"line": 9, "character": 20}, "end": {"line": 9, "character": 20}},
               "context": {"diagnostics": []}}),
    );
    let actions = actions.as_array().unwrap();
    assert!(!actions.is_empty(), "no alternative offered");
    let written = checked_time(&text, "ipsc860", "written.f");
    for a in actions {
        let title = a["title"].as_str().unwrap();
        assert!(title.starts_with("DISTRIBUTE A("), "{title}");
        assert!(title.contains("faster at N=32, P=16"), "{title}");
        let promised = a["data"]["predicted_time_s"].as_f64().unwrap();
        assert!(promised < written, "{title}: {promised} vs {written}");
        let edits = a["edit"]["changes"][uri].as_array().unwrap();
        let edited = apply(&text, edits);
        // Only the directive lines change; fixed form and upper case stay.
        assert!(edited.contains("CHPF$ DISTRIBUTE A("), "{edited}");
        assert!(edited.contains("      DO 30 IT = 1, NITER"), "{edited}");
        let got = checked_time(&edited, "ipsc860", "edited.f");
        assert!(
            (got - promised).abs() <= 1e-9 * promised,
            "{title}: promised {promised}, the edited file predicts {got}\n{edited}"
        );
    }
    assert_eq!(c.shutdown(), 0);
}

/// With `askCompiler` (the editor's default) the server compiles an open document in
/// the background: the loop's hover then says what gfortran itself reported, the editor
/// is asked to refresh its hints, and a text that does not compile alone leaves the
/// rules with a word in the hover (never a message window). Skipped, with a note,
/// where gfortran is not installed.
#[test]
fn the_compilers_own_report_reaches_the_hover() {
    if std::process::Command::new("gfortran")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("gfortran not found: the server's compiler reports are not tested");
        return;
    }
    let dir = std::env::temp_dir().join(format!("costline-lsp-cc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scale.f90");
    let uri = format!("file://{}", path.display());
    // -O2 vectorizes a constant trip count that is a multiple of the vector.
    let text = "subroutine scale(a, b)\n  real(8) :: a(1000), b(1000)\n  integer :: i\n  do i = 1, 1000\n    a(i) = b(i) * 2.0d0\n  end do\nend subroutine\n";
    std::fs::write(&path, text).unwrap();
    let mut c = Client::start(&[]);
    c.initialize_with(
        capabilities(&["utf-16"], true),
        None,
        json!({"askCompiler": true, "compiler": "gfortran -O2"}),
    );
    c.open(&uri, text);
    // The hover of the DO line `line`, its line about the compiler.
    let compiler_line = |c: &mut Client, line: u32| -> String {
        let response = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 4}}),
        );
        let value = response["result"]["contents"]["value"]
            .as_str()
            .unwrap_or("");
        value
            .lines()
            .find(|l| l.starts_with("compiler"))
            .unwrap_or("")
            .to_string()
    };
    eventually(&mut c, "the hover names the compiler's report", |c| {
        compiler_line(c, 3).contains("compiler report")
    });
    assert_eq!(
        compiler_line(&mut c, 3),
        "compiler (`costline.compiler`): **vectorized** by `gfortran -O2` (16-byte vectors, 2 \
         lanes) — compiler report: loop vectorized using 16 byte vectors"
    );
    eventually(&mut c, "the editor is asked to refresh its hints", |c| {
        c.received("workspace/inlayHint/refresh");
        c.server_requests
            .iter()
            .any(|(m, _)| m == "workspace/inlayHint/refresh")
    });
    // A module no file provides: the rules answer, and the hover says why.
    let broken = text.replace("  real(8)", "  use no_such_module\n  real(8)");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    let unavailable = "(compiler report unavailable: line 2: Fatal Error: Cannot open module \
                       file 'no_such_module.mod' for reading at (1): No such file or directory)";
    eventually(&mut c, "the hover says the report is unavailable", |c| {
        compiler_line(c, 4).ends_with(unavailable)
    });
    let line = compiler_line(&mut c, 4);
    assert!(line.contains("costline's rules of gfortran -O2"), "{line}");
    assert!(c.received("window/showMessage").is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
