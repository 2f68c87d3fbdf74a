//! The VS Code extension (editors/vscode): its dependencies install from the lock file
//! (`npm ci`, when node_modules is missing or older than the lock), it type-checks under
//! strict TypeScript, lints clean with ESLint, bundles with esbuild, packages into a
//! .vsix with @vscode/vsce (editors/vscode/dist/costline.vsix, gitignored), and its node
//! tests pass: the bundle loads; the language client's protocol layer
//! (vscode-languageserver-protocol over vscode-jsonrpc) drives the built server with the
//! settings the extension builds; and the bundle is activated against a stand-in for the
//! `vscode` module, so that the real vscode-languageclient starts the built server and the
//! test reads diagnostics, hints, lenses and hover from the providers it registers and runs
//! the extension's commands. VS Code itself cannot be downloaded here.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn extension() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .join("editors/vscode")
}

/// Runs an npm command in editors/vscode; fails the test with its output if it fails.
fn npm(args: &[&str]) -> String {
    let start = Instant::now();
    let out = Command::new("npm")
        .args(args)
        .current_dir(extension())
        .env("COSTLINE_BIN", env!("CARGO_BIN_EXE_costline"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run npm ({e}): the VS Code extension's test needs Node.js >= 20 and npm")
        });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "--- npm {} in {:.1} s, {} ---\n{text}",
        args.join(" "),
        start.elapsed().as_secs_f64(),
        out.status
    );
    assert!(
        out.status.success(),
        "npm {} failed ({}):\n{text}",
        args.join(" "),
        out.status
    );
    text
}

/// Whether node_modules matches package-lock.json (npm writes its own copy of the lock
/// into node_modules on every install).
fn installed() -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let dir = extension();
    match (
        modified(&dir.join("node_modules/.package-lock.json")),
        modified(&dir.join("package-lock.json")),
    ) {
        (Some(installed), Some(lock)) => installed >= lock,
        _ => false,
    }
}

#[test]
fn the_vscode_extension_builds_lints_packages_and_talks_to_the_server() {
    let node = Command::new("node").arg("--version").output();
    let version = match node {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        _ => panic!("Node.js is missing: the VS Code extension's test needs Node.js >= 20 and npm"),
    };
    let major: u32 = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    assert!(
        major >= 20,
        "Node.js {version} is too old: @vscode/vsce needs >= 20"
    );

    if !installed() {
        if costline_fixtures::network::offline() {
            costline_fixtures::network::skip(
                "the_vscode_extension_builds_lints_packages_and_talks_to_the_server",
                "the extension's npm dependencies (editors/vscode/node_modules)",
                "(cd editors/vscode && npm ci)",
            );
            return;
        }
        npm(&["ci", "--no-audit", "--no-fund"]);
    }
    npm(&["run", "typecheck"]);
    npm(&["run", "lint"]);
    npm(&["run", "bundle"]);

    let vsix = extension().join("dist/costline.vsix");
    let _ = std::fs::remove_file(&vsix);
    npm(&["run", "package"]);
    // A .vsix is a zip: the manifest, the bundle and the README are in it, nothing of
    // node_modules or the sources.
    let listing = Command::new("python3")
        .args(["-m", "zipfile", "-l"])
        .arg(&vsix)
        .output()
        .expect("python3 lists the .vsix");
    assert!(listing.status.success(), "{} is not a zip", vsix.display());
    let listing = String::from_utf8_lossy(&listing.stdout);
    for entry in [
        "extension/package.json",
        "extension/dist/extension.js",
        "extension/readme.md",
        "extension/language-configuration.json",
        "extension.vsixmanifest",
    ] {
        assert!(
            listing.contains(entry),
            "{entry} not in the .vsix:\n{listing}"
        );
    }
    for absent in ["node_modules", "/src/", "/test/"] {
        assert!(
            !listing.contains(absent),
            "{absent} should not be in the .vsix:\n{listing}"
        );
    }

    let report = npm(&["test"]);
    assert!(
        report.contains("ℹ fail 0") && !report.contains("ℹ pass 0"),
        "the node tests did not all pass:\n{report}"
    );
}
