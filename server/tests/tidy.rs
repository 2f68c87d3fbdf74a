//! The architecture's rules (ARCHITECTURE.md, "Invariants"), checked on the workspace's
//! dependency graph as `cargo metadata` reports it, after rust-analyzer's tidy tests:
//! - each crate depends only on the crates of the layers below it (symbolic, syntax,
//!   model, db, ide), and the binary on the ide crate alone: no cycle, nothing upward
//!   (a planted cycle, say syntax -> db, `cargo` itself refuses: "cyclic package
//!   dependency"; the layer rule also catches upward edges that make no cycle, such as
//!   the binary reaching past the ide crate);
//! - salsa only from the database crate up, LSP types and the async runtime only in
//!   the binary — in the whole graph of a crate's (non-dev) dependencies, not only the
//!   direct ones;
//! - the fixtures crate (test generators and simulators) is a dev-dependency only.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// The layers, lowest first, and the workspace crates each may depend on.
const LAYERS: &[(&str, &[&str])] = &[
    ("costline-symbolic", &[]),
    ("costline-syntax", &["costline-symbolic"]),
    ("costline-model", &["costline-symbolic", "costline-syntax"]),
    (
        "costline-db",
        &["costline-symbolic", "costline-syntax", "costline-model"],
    ),
    (
        "costline-ide",
        &[
            "costline-symbolic",
            "costline-syntax",
            "costline-model",
            "costline-db",
        ],
    ),
    ("costline-server", &["costline-ide"]),
];

/// Test-only: no crate may depend on it outside its dev-dependencies.
const DEV_ONLY: &str = "costline-fixtures";

/// External crates and the workspace crates allowed to reach them (directly or not).
const GATED: &[(&str, &[&str])] = &[
    ("salsa", &["costline-db", "costline-ide", "costline-server"]),
    ("tower-lsp-server", &["costline-server"]),
    ("ls-types", &["costline-server"]),
    ("tokio", &["costline-server"]),
];

/// The workspace as the rules see it: per crate, its direct dependencies on workspace
/// crates and every crate (external or not) its non-dev dependencies reach.
#[derive(Clone, Debug, Default)]
struct Graph {
    /// Workspace crate -> its direct normal (non-dev, non-build) workspace dependencies.
    direct: BTreeMap<String, BTreeSet<String>>,
    /// Workspace crate -> every crate its normal dependencies reach, transitively.
    reach: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    /// From the output of `cargo metadata --format-version 1` (with the resolve graph).
    fn from_metadata(meta: &Value) -> Graph {
        let name_of: BTreeMap<&str, &str> = meta["packages"]
            .as_array()
            .expect("packages")
            .iter()
            .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
            .collect();
        let members: BTreeSet<&str> = meta["workspace_members"]
            .as_array()
            .expect("workspace_members")
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        // Normal edges between packages (a dependency kind of `null`).
        let mut edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for node in meta["resolve"]["nodes"].as_array().expect("resolve") {
            let id = node["id"].as_str().unwrap();
            for dep in node["deps"].as_array().unwrap() {
                let normal = dep["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k["kind"].is_null());
                if normal {
                    edges
                        .entry(id)
                        .or_default()
                        .push(dep["pkg"].as_str().unwrap());
                }
            }
        }
        let mut graph = Graph::default();
        for &m in &members {
            let name = name_of[m].to_string();
            let direct = edges
                .get(m)
                .into_iter()
                .flatten()
                .filter(|d| members.contains(*d))
                .map(|d| name_of[d].to_string())
                .collect();
            let mut reach = BTreeSet::new();
            let mut stack: Vec<&str> = edges.get(m).cloned().unwrap_or_default();
            let mut seen = BTreeSet::new();
            while let Some(p) = stack.pop() {
                if seen.insert(p) {
                    reach.insert(name_of[p].to_string());
                    stack.extend(edges.get(p).into_iter().flatten());
                }
            }
            graph.direct.insert(name.clone(), direct);
            graph.reach.insert(name, reach);
        }
        graph
    }

    /// Every broken rule, as a sentence.
    fn violations(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (krate, deps) in &self.direct {
            let allowed = LAYERS.iter().find(|(n, _)| n == krate);
            match allowed {
                Some((_, allowed)) => {
                    for d in deps {
                        if !allowed.contains(&d.as_str()) && d != DEV_ONLY {
                            out.push(format!(
                                "{krate} depends on {d}, which is not a layer below it \
                                 (allowed: {})",
                                if allowed.is_empty() {
                                    "none".to_string()
                                } else {
                                    allowed.join(", ")
                                }
                            ));
                        }
                    }
                }
                None if krate == DEV_ONLY => {}
                None => out.push(format!(
                    "{krate} is in no layer: add it to LAYERS (tidy.rs) and ARCHITECTURE.md"
                )),
            }
            if deps.contains(DEV_ONLY) {
                out.push(format!(
                    "{krate} depends on {DEV_ONLY} outside its dev-dependencies"
                ));
            }
        }
        for (krate, reach) in &self.reach {
            for (gated, allowed) in GATED {
                if reach.contains(*gated) && !allowed.contains(&krate.as_str()) && krate != DEV_ONLY
                {
                    out.push(format!(
                        "{krate} reaches {gated}, which only {} may use",
                        allowed.join(", ")
                    ));
                }
            }
        }
        out
    }
}

fn workspace_graph() -> Graph {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--manifest-path",
        ])
        .arg(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Graph::from_metadata(&serde_json::from_slice(&out.stdout).expect("metadata is JSON"))
}

#[test]
fn every_crate_depends_only_on_the_layers_below_it() {
    let graph = workspace_graph();
    let layers: BTreeSet<&str> = LAYERS.iter().map(|(n, _)| *n).collect();
    let found: BTreeSet<&str> = graph.direct.keys().map(String::as_str).collect();
    assert!(
        layers.is_subset(&found),
        "crates of LAYERS missing from the workspace: {:?}",
        layers.difference(&found).collect::<Vec<_>>()
    );
    let violations = graph.violations();
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The check itself: an upward dependency, salsa below the database, LSP types in the
/// ide crate and the fixtures as a normal dependency are each caught.
#[test]
fn a_planted_upward_dependency_is_caught() {
    let graph = workspace_graph();
    let already = graph.violations();
    let planted = |krate: &str, dep: &str| {
        let mut g = graph.clone();
        if g.direct.contains_key(dep) {
            g.direct.get_mut(krate).unwrap().insert(dep.to_string());
        }
        g.reach.get_mut(krate).unwrap().insert(dep.to_string());
        let mut new = g.violations();
        new.retain(|v| !already.contains(v));
        new
    };
    assert_eq!(
        planted("costline-syntax", "costline-db"),
        [
            "costline-syntax depends on costline-db, which is not a layer below it (allowed: \
          costline-symbolic)"
        ]
    );
    assert_eq!(
        planted("costline-model", "salsa"),
        [
            "costline-model reaches salsa, which only costline-db, costline-ide, costline-server \
          may use"
        ]
    );
    assert_eq!(
        planted("costline-ide", "tower-lsp-server"),
        ["costline-ide reaches tower-lsp-server, which only costline-server may use"]
    );
    assert_eq!(
        planted("costline-server", "costline-db"),
        [
            "costline-server depends on costline-db, which is not a layer below it (allowed: \
          costline-ide)"
        ]
    );
    assert_eq!(
        planted("costline-db", "costline-fixtures"),
        ["costline-db depends on costline-fixtures outside its dev-dependencies"]
    );
}
