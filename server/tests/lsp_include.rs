//! `costline serve` and INCLUDE'd headers over a real stdio session: three open files,
//! two of which include `dist.inc`. Editing the header — on disk while it is closed
//! (`workspace/didChangeWatchedFiles`), then in the editor (`didOpen`, `didChange`) —
//! republishes the diagnostics of exactly the two including files; pull clients get
//! `unchanged` for the third.

#[allow(dead_code)] // the latency benchmark uses the rest of the client
mod lsp_client;

use lsp_client::{Client, capabilities};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The header: the arrays and their distribution onto `onto`.
fn header(onto: &str) -> String {
    format!(
        "! The grid and its distribution.\n      INTEGER N\n      PARAMETER (N = 64)\n      REAL U(N, N)\n!HPF$ PROCESSORS PR(4)\n!HPF$ DISTRIBUTE U(*, BLOCK) ONTO {onto}\n"
    )
}

const A: &str = "subroutine a\n  include 'dist.inc'\n  integer :: i, j\n  do j = 1, n\n    do i = 1, n\n      u(i, j) = 0.0\n    end do\n  end do\nend subroutine a\n";
const B: &str = "      SUBROUTINE B\n#include \"dist.inc\"\n      INTEGER I, J\n      DO 10 J = 1, N\n      DO 10 I = 1, J\n         U(I, J) = 1.0\n   10 CONTINUE\n      END\n";
const C: &str = "subroutine c(v)\n  real :: v(100)\n  integer :: i\n  do i = 1, 100\n    v(i) = 2.0\n  end do\nend subroutine c\n";

/// A workspace folder holding the three files and the header.
struct Workspace {
    root: PathBuf,
}

impl Workspace {
    fn new(name: &str) -> Workspace {
        let root = std::env::temp_dir().join(format!("costline-lsp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        for (file, text) in [("a.f90", A), ("b.f", B), ("c.f90", C)] {
            std::fs::write(root.join(file), text).unwrap();
        }
        std::fs::write(root.join("dist.inc"), header("PR")).unwrap();
        Workspace { root }
    }

    fn uri(&self, file: &str) -> String {
        format!("file://{}", self.root.join(file).display())
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The diagnostics published so far for `uri`, oldest first.
fn published(c: &mut Client, uri: &str) -> Vec<Value> {
    c.received("textDocument/publishDiagnostics")
        .into_iter()
        .filter(|p| p["uri"] == uri)
        .collect()
}

/// Polls until `check` holds.
fn eventually(c: &mut Client, what: &str, check: impl Fn(&mut Client) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check(c) {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The codes of a publication's diagnostics.
fn codes(publication: &Value) -> Vec<String> {
    publication["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str().map(str::to_string))
        .collect()
}

/// Waits until each of `uris` has a publication after the first `before[i]`, then a
/// while longer (more than the server's settle time); returns how many each has.
fn after_the_dust_settles(
    c: &mut Client,
    uris: &[String],
    expect_new: &[bool],
    before: &[usize],
) -> Vec<usize> {
    eventually(c, "the including files are republished", |c| {
        uris.iter()
            .zip(expect_new)
            .zip(before)
            .all(|((u, &new), &n)| !new || published(c, u).len() > n)
    });
    std::thread::sleep(Duration::from_millis(1500));
    uris.iter().map(|u| published(c, u).len()).collect()
}

#[test]
fn editing_an_included_header_republishes_exactly_its_includers() {
    let ws = Workspace::new("include-push");
    let uris: Vec<String> = ["a.f90", "b.f", "c.f90"]
        .iter()
        .map(|f| ws.uri(f))
        .collect();
    let hdr = ws.uri("dist.inc");
    let mut c = Client::start(&[]);
    // Push diagnostics (no pull), file watching.
    c.initialize(
        capabilities(&["utf-16"], false),
        Some(&ws.root.display().to_string()),
    );
    c.notification("$/progress", |p| p["value"]["kind"] == "end");
    for (uri, text) in uris.iter().zip([A, B, C]) {
        c.open(uri, text);
    }
    eventually(&mut c, "the open files are published", |c| {
        uris.iter()
            .all(|u| published(c, u).iter().any(|p| p["version"] == 1))
    });
    std::thread::sleep(Duration::from_millis(1500));
    let before: Vec<usize> = uris.iter().map(|u| published(&mut c, u).len()).collect();
    assert!(
        uris[..2]
            .iter()
            .all(|u| !codes(published(&mut c, u).last().unwrap())
                .contains(&"unknown-processors".to_string())),
        "a clean start"
    );

    // 1. On disk, the header closed: ONTO names no arrangement.
    std::fs::write(ws.root.join("dist.inc"), header("PRX")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": hdr, "type": 2}]}),
    );
    let now = after_the_dust_settles(&mut c, &uris, &[true, true, false], &before);
    assert_eq!(now[2], before[2], "c.f90 includes nothing: not republished");
    for uri in &uris[..2] {
        let last = published(&mut c, uri).pop().unwrap();
        let finding = last["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"] == "unknown-processors")
            .unwrap_or_else(|| panic!("{uri}: {last}"));
        // On the INCLUDE line (line 2 of both), saying where in the header.
        assert_eq!(finding["range"]["start"]["line"], 1, "{finding}");
        let message = finding["message"].as_str().unwrap();
        assert!(
            message.starts_with("In included file dist.inc:6:"),
            "{message}"
        );
        let related = &finding["relatedInformation"][0];
        assert_eq!(related["location"]["uri"], hdr, "{finding}");
        assert_eq!(
            related["location"]["range"]["start"]["line"], 5,
            "{finding}"
        );
    }

    // 2. Opened in the editor: its own diagnostics are what its includers found in it,
    // pointing back at the INCLUDE lines.
    c.open(&hdr, &header("PRX"));
    eventually(&mut c, "the header is published", |c| {
        published(c, &hdr).iter().any(|p| p["version"] == 1)
    });
    let own = published(&mut c, &hdr).pop().unwrap();
    let finding = own["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "unknown-processors")
        .unwrap_or_else(|| panic!("{own}"))
        .clone();
    assert_eq!(finding["range"]["start"]["line"], 5, "{finding}");
    let sites: Vec<&str> = finding["relatedInformation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["location"]["uri"].as_str().unwrap())
        .collect();
    assert!(
        sites.iter().all(|s| uris[..2].contains(&s.to_string())) && !sites.is_empty(),
        "{finding}"
    );
    std::thread::sleep(Duration::from_millis(1500));

    // 3. Fixed in the editor (not saved): the two includers lose the error.
    let before: Vec<usize> = uris.iter().map(|u| published(&mut c, u).len()).collect();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": hdr, "version": 2}, "contentChanges": [{"text": header("PR")}]}),
    );
    let now = after_the_dust_settles(&mut c, &uris, &[true, true, false], &before);
    assert_eq!(now[2], before[2], "c.f90 includes nothing: not republished");
    for uri in &uris[..2] {
        let last = published(&mut c, uri).pop().unwrap();
        assert!(
            !codes(&last).contains(&"unknown-processors".to_string()),
            "{uri}: {last}"
        );
    }
    let own = published(&mut c, &hdr).pop().unwrap();
    assert_eq!(own["version"], 2, "{own}");
    assert!(
        !codes(&own).contains(&"unknown-processors".to_string()),
        "{own}"
    );

    // 4. The DISTRIBUTE in the header answers for the units that include it: a hover
    // on its line, and distribution actions that edit the header.
    let at = json!({"line": 5, "character": 10});
    let hover = c.result(
        "textDocument/hover",
        json!({"textDocument": {"uri": hdr}, "position": at}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("included by 2 unit(s)"), "{hover}");
    assert_eq!(hover["range"]["start"]["line"], 5, "{hover}");
    let actions = c.result(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": hdr}, "range": {"start": at, "end": at}, "context": {"diagnostics": []}}),
    );
    let actions = actions.as_array().expect("a list of actions");
    assert!(
        !actions.is_empty(),
        "the triangular sweep of b.f asks for another layout"
    );
    for a in actions {
        let changes = &a["edit"]["changes"];
        assert!(changes.get(&hdr).is_some(), "{a}");
    }
    assert_eq!(c.shutdown(), 0);
}

/// The `kind` of a pulled diagnostic report, asked with the previous result id.
fn pull(c: &mut Client, uri: &str, previous: Option<&Value>) -> Value {
    let mut params = json!({"textDocument": {"uri": uri}});
    if let Some(id) = previous {
        params["previousResultId"] = id.clone();
    }
    // A pull overtaken by a change answers ContentModified: ask again.
    loop {
        let r = c.request("textDocument/diagnostic", params.clone());
        if r["error"]["code"] != -32801 {
            assert!(r.get("error").is_none(), "{r}");
            return r["result"].clone();
        }
    }
}

#[test]
fn pull_clients_learn_that_only_the_includers_changed() {
    let ws = Workspace::new("include-pull");
    let uris: Vec<String> = ["a.f90", "b.f", "c.f90"]
        .iter()
        .map(|f| ws.uri(f))
        .collect();
    let mut c = Client::start(&[]);
    c.initialize(
        capabilities(&["utf-16"], true),
        Some(&ws.root.display().to_string()),
    );
    for (uri, text) in uris.iter().zip([A, B, C]) {
        c.open(uri, text);
    }
    let ids: Vec<Value> = uris
        .iter()
        .map(|u| pull(&mut c, u, None)["resultId"].clone())
        .collect();
    std::fs::write(ws.root.join("dist.inc"), header("PRX")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": ws.uri("dist.inc"), "type": 2}]}),
    );
    // Once the change is in (a's report is new), b's is new too and c's unchanged.
    let (a, id) = (uris[0].clone(), ids[0].clone());
    eventually(&mut c, "a's diagnostics change", |c| {
        pull(c, &a, Some(&id))["kind"] == "full"
    });
    let kinds: Vec<Value> = uris[1..]
        .iter()
        .zip(&ids[1..])
        .map(|(u, id)| pull(&mut c, u, Some(id))["kind"].clone())
        .collect();
    assert_eq!(kinds, [json!("full"), json!("unchanged")]);
    // The editor is asked to pull again (the request may trail the new reports: each
    // pull reads what the server sent meanwhile).
    eventually(&mut c, "a workspace/diagnostic/refresh request", |c| {
        pull(c, &a, None);
        c.server_requests
            .iter()
            .any(|(m, _)| m == "workspace/diagnostic/refresh")
    });
    assert_eq!(c.shutdown(), 0);
}
