//! `costline machines` and `--machine NAME|PATH`: finding machine models.

use costline_ide::machine::{Catalog, Machine, MachineError, Source};
use std::fmt::Write;
use std::process::ExitCode;

/// The catalog seen from the current directory.
pub fn catalog() -> Catalog {
    let cwd = std::env::current_dir().unwrap_or_default();
    Catalog::discover(&Catalog::default_dirs(&cwd))
}

/// The model `spec` names, or the default one.
pub fn resolve(spec: Option<&str>) -> Result<Machine, MachineError> {
    match spec {
        Some(s) => catalog().resolve(s),
        None => Ok(Catalog::default_machine()),
    }
}

/// Prints every model with where it comes from and its provenance; exit 1 when a
/// machine file in a machine directory is invalid (it is listed with its error).
pub fn list() -> ExitCode {
    let catalog = catalog();
    let mut failed = false;
    let mut listing = String::new();
    for e in &catalog.entries {
        let origin = match &e.source {
            Source::Shipped => "shipped".to_string(),
            Source::File(p) => p.display().to_string(),
        };
        match &e.machine {
            Ok(m) => {
                let default = if m.name == costline_ide::machine::DEFAULT {
                    " (default)"
                } else {
                    ""
                };
                let _ = writeln!(listing, "{}{default}  [{origin}]", m.name);
                let _ = writeln!(listing, "    {}", m.description);
                let _ = writeln!(listing, "    provenance: {}", m.provenance);
            }
            Err(err) => {
                failed = true;
                let _ = writeln!(listing, "{}  [{origin}]", e.name);
                let _ = writeln!(listing, "    invalid: {err}");
            }
        }
    }
    crate::stdout::write(&listing);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
