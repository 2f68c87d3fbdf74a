//! Profiles from the editor, through the real server over stdio: the command
//! `costline.runProfile` builds and runs the workspace's program with the arguments
//! of the setting `profileArguments` (reporting `$/progress`), writes
//! `.costline/profile.json` and counts with it at once (a hover says the value was
//! measured); a profile written again on disk is read again when the editor says it
//! changed; a program that does not compile is reported with `window/showMessage`
//! and the compiler's message. Without gfortran the test fails, or with
//! `COSTLINE_OFFLINE` set is skipped with a message.

#[allow(dead_code)] // the other tests use more of the client
mod lsp_client;

use costline_fixtures::network::tools;
use lsp_client::{Client, capabilities};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// A program whose loop runs as often as its first argument says: a value read at
/// run time, passed to `work`.
const TINY: &str = "program tiny
  implicit none
  character(len=16) :: arg
  integer :: n, total
  call get_command_argument(1, arg)
  read (arg, *) n
  total = 0
  call work(n, total)
  print *, total
end program tiny

subroutine work(n, total)
  implicit none
  integer, intent(in) :: n
  integer, intent(inout) :: total
  integer :: i
  do i = 1, n
    total = total + i
  end do
end subroutine work
";

/// The markdown of the hover at `line`, `character` of `uri`.
fn hover(client: &mut Client, uri: &str, line: u32, character: u32) -> String {
    let h = client.result(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
    );
    h["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn run_profile_measures_the_workspace_program_and_the_hover_says_so() {
    let test = "run_profile_measures_the_workspace_program_and_the_hover_says_so";
    if !tools(test, &["gfortran"], "apt-get install gfortran") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap().to_string();
    std::fs::write(dir.path().join("tiny.f90"), TINY).unwrap();
    let uri = format!("file://{root}/tiny.f90");
    let mut client = Client::start(&[]);
    client.settings = json!({"askCompiler": false, "profileArguments": ["7"]});
    let caps = client.initialize_with(
        capabilities(&["utf-16"], true),
        Some(&root),
        client.settings.clone(),
    );
    assert!(
        caps["executeCommandProvider"]["commands"]
            .as_array()
            .unwrap()
            .contains(&json!("costline.runProfile")),
        "{caps}"
    );
    client.open(&uri, TINY);
    // `total = total + i`: its count needs `n` before the profile.
    let before = hover(&mut client, &uri, 17, 6);
    assert!(before.contains("unknown number of times"), "{before}");
    let result = client.result(
        "workspace/executeCommand",
        json!({"command": "costline.runProfile", "arguments": []}),
    );
    assert_eq!(result["ok"], true, "{result}");
    assert!(
        dir.path().join(".costline/profile.json").is_file(),
        "{result}"
    );
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .contains("1 value(s) recorded"),
        "{result}"
    );
    // The run was reported as progress, begun and ended.
    let progress = client.received("$/progress");
    let kinds: Vec<&str> = progress
        .iter()
        .filter(|p| p["token"] == "costline/profile")
        .filter_map(|p| p["value"]["kind"].as_str())
        .collect();
    assert_eq!(kinds.first(), Some(&"begin"), "{progress:?}");
    assert_eq!(kinds.last(), Some(&"end"), "{progress:?}");
    let after = hover(&mut client, &uri, 17, 6);
    assert!(after.contains("runs **7** times"), "{after}");
    assert!(
        after.contains("the value of `n` is 7 (measured: profile of ")
            && after.contains("arguments `7`"),
        "{after}"
    );

    // A profile made again outside the editor (another argument) is read again when
    // the editor says the file changed.
    let out = Command::new(env!("CARGO_BIN_EXE_costline"))
        .args(["profile", "tiny.f90", "--", "9"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": format!("file://{root}/.costline/profile.json"), "type": 2}]}),
    );
    let mut again = String::new();
    for _ in 0..100 {
        again = hover(&mut client, &uri, 17, 6);
        if again.contains("runs **9** times") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        again.contains("the value of `n` is 9 (measured: profile of "),
        "{again}"
    );

    // A program that does not compile: the compiler's message, shown.
    std::fs::write(
        dir.path().join("broken.f90"),
        "program broken\n  x = = 1\nend program broken\n",
    )
    .unwrap();
    let failed = client.result(
        "workspace/executeCommand",
        json!({"command": "costline.runProfile", "arguments": [{"files": ["broken.f90"]}]}),
    );
    assert_eq!(failed["ok"], false, "{failed}");
    let shown = client.notification("window/showMessage", |p| {
        p["type"] == 1 && p["message"].as_str().unwrap_or("").contains("broken.f90")
    });
    assert!(
        shown["message"].as_str().unwrap().contains("Error"),
        "{shown}"
    );
    // The profile written before is left as it was.
    let text = std::fs::read_to_string(dir.path().join(".costline/profile.json")).unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["args"], json!(["9"]));
    assert!(Path::new(&dir.path().join("tiny.f90")).is_file());
    assert_eq!(client.shutdown(), 0);
}
