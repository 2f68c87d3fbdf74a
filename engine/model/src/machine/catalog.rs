//! Finding machine models: the models shipped in `machines/` (built into the binary,
//! so they work from any directory) and the files in the machine directories
//! (`$COSTLINE_MACHINES`, `./machines`, `~/.config/costline/machines`), by name or by path.

use super::load::{MachineError, parse, read};
use super::model::Machine;
use std::path::{Path, PathBuf};

/// The shipped models: (file name, text).
const SHIPPED: &[(&str, &str)] = &[
    (
        "machines/ib-hdr.toml",
        include_str!("../../../../machines/ib-hdr.toml"),
    ),
    (
        "machines/eth-25g.toml",
        include_str!("../../../../machines/eth-25g.toml"),
    ),
    (
        "machines/multicore.toml",
        include_str!("../../../../machines/multicore.toml"),
    ),
    (
        "machines/ipsc860.toml",
        include_str!("../../../../machines/ipsc860.toml"),
    ),
];

/// The model used when none is named: a node of a modern InfiniBand HDR cluster.
pub const DEFAULT: &str = "ib-hdr";

/// Where a model came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Shipped,
    File(PathBuf),
}

/// One model of the catalog (or the error that keeps it from loading).
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub source: Source,
    pub machine: Result<Machine, MachineError>,
}

/// The models costline knows: shipped ones, then files (a file overrides the shipped
/// model of the same name).
#[derive(Clone, Debug)]
pub struct Catalog {
    pub entries: Vec<Entry>,
}

impl Catalog {
    /// The shipped models and the `*.toml` files of `dirs`.
    pub fn discover(dirs: &[PathBuf]) -> Catalog {
        let mut entries: Vec<Entry> = SHIPPED
            .iter()
            .map(|(file, text)| {
                let machine = parse(text, file);
                Entry {
                    name: machine
                        .as_ref()
                        .map_or_else(|_| stem(Path::new(file)), |m| m.name.clone()),
                    source: Source::Shipped,
                    machine,
                }
            })
            .collect();
        for dir in dirs {
            let Ok(listing) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut files: Vec<PathBuf> = listing
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            files.sort();
            for path in files {
                let machine = read(&path);
                let name = machine
                    .as_ref()
                    .map_or_else(|_| stem(&path), |m| m.name.clone());
                let source = Source::File(path);
                match entries.iter_mut().find(|e| e.name == name) {
                    // The same file seen through two directories.
                    Some(e) if e.source == source => {}
                    Some(e) if e.source == Source::Shipped => {
                        *e = Entry {
                            name,
                            source,
                            machine,
                        }
                    }
                    Some(_) => {}
                    None => entries.push(Entry {
                        name,
                        source,
                        machine,
                    }),
                }
            }
        }
        Catalog { entries }
    }

    /// The machine directories: `$COSTLINE_MACHINES` (separated like PATH), `machines/`
    /// under `cwd`, and the user's `~/.config/costline/machines` (where `costline train`
    /// can put models).
    pub fn default_dirs(cwd: &Path) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = std::env::var_os("COSTLINE_MACHINES")
            .map(|v| std::env::split_paths(&v).collect())
            .unwrap_or_default();
        dirs.push(cwd.join("machines"));
        if let Some(config) = user_dir() {
            dirs.push(config);
        }
        dirs
    }

    /// The model `spec` names: a path (it contains a path separator or ends in `.toml`)
    /// or the name of a model in the catalog (case-insensitive).
    pub fn resolve(&self, spec: &str) -> Result<Machine, MachineError> {
        let path = Path::new(spec);
        if spec.ends_with(".toml") || spec.contains(std::path::MAIN_SEPARATOR) || path.is_file() {
            return read(path);
        }
        match self
            .entries
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(spec))
        {
            Some(e) => e.machine.clone(),
            None => Err(MachineError {
                path: spec.to_string(),
                line: 0,
                column: 0,
                key: None,
                message: format!(
                    "no machine model of that name; known: {}",
                    self.entries
                        .iter()
                        .map(|e| e.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }),
        }
    }

    /// The shipped default model.
    pub fn default_machine() -> Machine {
        let (file, text) = SHIPPED[0];
        parse(text, file).expect("the shipped default machine model is valid")
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// `$XDG_CONFIG_HOME/costline/machines`, else `~/.config/costline/machines`.
pub fn user_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("costline").join("machines"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_model_loads() {
        let c = Catalog::discover(&[]);
        for e in &c.entries {
            assert!(
                e.machine.is_ok(),
                "{}: {}",
                e.name,
                e.machine.as_ref().unwrap_err()
            );
        }
        let names: Vec<&str> = c.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["ib-hdr", "eth-25g", "multicore", "ipsc860"]);
        assert_eq!(Catalog::default_machine().name, DEFAULT);
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let e = Catalog::discover(&[]).resolve("cray-1").unwrap_err();
        assert!(e.message.contains("ipsc860"), "{e}");
        assert!(Catalog::discover(&[]).resolve("IPSC860").is_ok());
    }
}
