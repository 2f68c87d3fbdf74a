//! `costline machines` and `--machine NAME|PATH`: finding machine models, and listing
//! them for people (text) and for scripts and the editors (`--format json`, and the
//! language server's `costline/machines`, from the same [`Listed`] entries).

use costline_ide::machine::{Catalog, Machine, MachineError, Source};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

/// The version of `costline machines --format json`: fields may be added, none renamed.
pub const VERSION: u32 = 1;

/// The catalog seen from the current directory.
pub fn catalog() -> Catalog {
    let cwd = std::env::current_dir().unwrap_or_default();
    catalog_from(&cwd)
}

/// The catalog seen from `dir` (its `machines/`, the user's and `$COSTLINE_MACHINES`).
pub fn catalog_from(dir: &Path) -> Catalog {
    Catalog::discover(&Catalog::default_dirs(dir))
}

/// The model `spec` names, or the default one.
pub fn resolve(spec: Option<&str>) -> Result<Machine, MachineError> {
    match spec {
        Some(s) => catalog().resolve(s),
        None => Ok(Catalog::default_machine()),
    }
}

/// `costline machines --format json`.
#[derive(Debug, Serialize)]
pub struct Listing {
    pub version: u32,
    /// The model used when none is named.
    pub default: &'static str,
    pub machines: Vec<Listed>,
}

/// One model of the catalog, as listed.
#[derive(Clone, Debug, Serialize)]
pub struct Listed {
    pub name: String,
    /// `shipped` (built into costline) or the path of its file.
    pub source: String,
    /// Whether it is the model used when none is named.
    pub default: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<String>,
    /// Why the file is not a valid model (then there is no description or provenance).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every model of `catalog`, in its order.
pub fn listed(catalog: &Catalog) -> Vec<Listed> {
    catalog
        .entries
        .iter()
        .map(|e| {
            let source = match &e.source {
                Source::Shipped => "shipped".to_string(),
                Source::File(p) => p.display().to_string(),
            };
            match &e.machine {
                Ok(m) => Listed {
                    name: m.name.clone(),
                    source,
                    default: m.name == costline_ide::machine::DEFAULT,
                    description: Some(m.description.clone()),
                    provenance: Some(m.provenance.clone()),
                    error: None,
                },
                Err(err) => Listed {
                    name: e.name.clone(),
                    source,
                    default: false,
                    description: None,
                    provenance: None,
                    error: Some(err.to_string()),
                },
            }
        })
        .collect()
}

/// The models for people: name, where it comes from, description and provenance.
fn text(entries: &[Listed]) -> String {
    let mut listing = String::new();
    for e in entries {
        let default = if e.default { " (default)" } else { "" };
        let _ = writeln!(listing, "{}{default}  [{}]", e.name, e.source);
        match &e.error {
            Some(err) => {
                let _ = writeln!(listing, "    invalid: {err}");
            }
            None => {
                let _ = writeln!(
                    listing,
                    "    {}",
                    e.description.as_deref().unwrap_or_default()
                );
                let _ = writeln!(
                    listing,
                    "    provenance: {}",
                    e.provenance.as_deref().unwrap_or_default()
                );
            }
        }
    }
    listing
}

/// Prints every model with where it comes from and its provenance, as text or JSON;
/// exit 1 when a machine file in a machine directory is invalid (it is listed with its
/// error).
pub fn list(format: crate::Format) -> ExitCode {
    let entries = listed(&catalog());
    let failed = entries.iter().any(|e| e.error.is_some());
    let out = match format {
        crate::Format::Text => text(&entries),
        crate::Format::Json => {
            let listing = Listing {
                version: VERSION,
                default: costline_ide::machine::DEFAULT,
                machines: entries,
            };
            serde_json::to_string_pretty(&listing).expect("the listing serializes") + "\n"
        }
    };
    crate::stdout::write(&out);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
