//! The profile file (`.costline/profile.json`): when and how the program ran, the
//! digest of each file's bytes, and per unit (with the digest of its text) every
//! counter's count, keyed by the statement measured and where the counter was. Read
//! back, it is what the analysis counts with ([`Profile`]): a unit whose text changed
//! since is stale, and its counts are not applied.

use super::{Instrumented, Role};
use costline_db::{Profile, UnitKey, UnitProfile, text_digest};
use costline_model::freq::Measured;
use costline_model::freq::measured::Counters;
use costline_syntax::ir::{StmtId, UnitKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The version of the file's layout.
pub const VERSION: u32 = 1;

/// A profile run, as written to and read from the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileFile {
    pub version: u32,
    /// When the program ran (UTC, `2026-11-29 02:30 UTC`).
    pub date: String,
    /// The arguments it ran with...
    pub args: Vec<String>,
    /// ...and the file it read as its standard input.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stdin: Option<String>,
    /// The compiler command it was built with.
    pub compiler: String,
    /// The MPI launcher it ran under (`mpirun`), for an MPI program...
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub launcher: Option<String>,
    /// ...and how many ranks it ran on.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ranks: Option<u32>,
    pub files: Vec<FileDigest>,
    pub units: Vec<UnitCounts>,
}

/// A source file's path and the digest of its bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileDigest {
    pub path: String,
    pub digest: String,
}

/// The counts of one unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitCounts {
    pub file: String,
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub host: Option<String>,
    /// The digest of the unit's text (included files spliced in) when it was measured.
    pub digest: String,
    pub points: Vec<PointCount>,
}

/// One counter's count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointCount {
    /// The statement measured (its number in the unit, in pre-order).
    pub stmt: u32,
    /// `branch` (with `branch`: which, from 0), `none`, `entry`, `iteration`,
    /// `arrival`, `jump`, `call` and `elements` (the count arguments summed; with
    /// `callee`).
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub branch: Option<usize>,
    /// The MPI routine a `call` or `elements` counter's statement calls.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub callee: Option<String>,
    /// Where the counter was.
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// The count (of an MPI program: the sum over its ranks, so that the branch
    /// probabilities and mean trip counts read from it are those of the ranks' mean
    /// counts).
    pub count: u64,
    /// An MPI program's count on each rank, by rank.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ranks: Option<Vec<u64>>,
}

/// When and how the program ran, for [`ProfileFile::new`].
pub struct Run {
    pub date: String,
    pub args: Vec<String>,
    pub stdin: Option<String>,
    pub compiler: String,
    /// An MPI program's launcher and number of ranks.
    pub mpi: Option<(String, u32)>,
}

impl ProfileFile {
    /// The profile of a run of `program` whose counters came out as `counts`
    /// (`counts[r][k - 1]` for counter k on rank r: one rank for a serial program),
    /// `files` being the program's sources.
    pub fn new(
        run: Run,
        program: &Instrumented,
        counts: &[Vec<u64>],
        files: &[(String, Vec<u8>)],
    ) -> ProfileFile {
        let mut units: BTreeMap<(String, UnitKey), UnitCounts> = BTreeMap::new();
        for p in &program.points {
            let entry = units
                .entry((p.file.clone(), p.unit.clone()))
                .or_insert_with(|| UnitCounts {
                    file: p.file.clone(),
                    kind: p.unit.kind.as_str().to_string(),
                    name: p.unit.name.clone(),
                    host: p.unit.host.clone(),
                    digest: hex(p.digest),
                    points: Vec::new(),
                });
            let (role, branch) = match p.role {
                Role::Branch(k) => ("branch", Some(k)),
                Role::None => ("none", None),
                Role::Entry => ("entry", None),
                Role::Arrival => ("arrival", None),
                Role::Iteration => ("iteration", None),
                Role::Jump => ("jump", None),
                Role::Call => ("call", None),
                Role::Elements => ("elements", None),
            };
            entry.points.push(PointCount {
                stmt: p.stmt,
                role: role.to_string(),
                branch,
                callee: p.callee.clone(),
                path: p.path.clone(),
                line: p.line,
                column: p.column,
                count: counts
                    .iter()
                    .map(|rank| rank.get(p.counter - 1).copied().unwrap_or(0))
                    .sum(),
                ranks: run.mpi.as_ref().map(|_| {
                    counts
                        .iter()
                        .map(|rank| rank.get(p.counter - 1).copied().unwrap_or(0))
                        .collect()
                }),
            });
        }
        ProfileFile {
            version: VERSION,
            date: run.date,
            args: run.args,
            stdin: run.stdin,
            compiler: run.compiler,
            launcher: run.mpi.as_ref().map(|(l, _)| l.clone()),
            ranks: run.mpi.as_ref().map(|&(_, n)| n),
            files: files
                .iter()
                .map(|(path, bytes)| FileDigest {
                    path: path.clone(),
                    digest: hex(text_digest(&String::from_utf8_lossy(bytes))),
                })
                .collect(),
            units: units.into_values().collect(),
        }
    }

    /// The file's text (pretty JSON, ending in a newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Reads a profile file; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<ProfileFile, String> {
        let file: ProfileFile =
            serde_json::from_str(text).map_err(|e| format!("not a costline profile: {e}"))?;
        if file.version != VERSION {
            return Err(format!(
                "a profile of version {} (this costline reads version {VERSION})",
                file.version
            ));
        }
        Ok(file)
    }

    /// The run in words: `profile of DATE, 2 ranks, arguments `A B`, input `in.txt``.
    pub fn run(&self) -> String {
        let ranks = self.ranks.map_or(String::new(), |n| {
            format!(", {n} rank{}", if n == 1 { "" } else { "s" })
        });
        let mut out = if self.args.is_empty() {
            format!("profile of {}{ranks}, no arguments", self.date)
        } else {
            format!(
                "profile of {}{ranks}, arguments `{}`",
                self.date,
                self.args.join(" ")
            )
        };
        if let Some(input) = &self.stdin {
            out.push_str(&format!(", input `{input}`"));
        }
        out
    }

    /// What the analysis counts with: per unit, the measured branch probabilities and
    /// trip counts of the statements that ran.
    pub fn profile(&self) -> Profile {
        let run: Arc<str> = self.run().into();
        let mut units = BTreeMap::new();
        for u in &self.units {
            let (Some(kind), Ok(digest)) = (unit_kind(&u.kind), u64::from_str_radix(&u.digest, 16))
            else {
                continue;
            };
            // Per statement: its branch, loop and GO TO loop counters.
            let mut decided: BTreeMap<u32, Counters> = BTreeMap::new();
            let mut looped: BTreeMap<u32, Counters> = BTreeMap::new();
            let mut repeated: BTreeMap<u32, Counters> = BTreeMap::new();
            for p in &u.points {
                match (p.role.as_str(), p.branch) {
                    ("branch", Some(k)) => {
                        let c = decided.entry(p.stmt).or_default();
                        if c.branches.len() <= k {
                            c.branches.resize(k + 1, 0);
                        }
                        c.branches[k] += p.count;
                    }
                    ("none", _) => decided.entry(p.stmt).or_default().none += p.count,
                    ("entry", _) => looped.entry(p.stmt).or_default().entries += p.count,
                    ("iteration", _) => looped.entry(p.stmt).or_default().iterations += p.count,
                    ("arrival", _) => repeated.entry(p.stmt).or_default().entries += p.count,
                    ("jump", _) => repeated.entry(p.stmt).or_default().jumps += p.count,
                    _ => {}
                }
            }
            let measured = Measured {
                run: run.clone(),
                branches: decided
                    .iter()
                    .filter_map(|(&stmt, c)| Some((StmtId(stmt), c.branch_probabilities()?)))
                    .collect(),
                trips: looped
                    .iter()
                    .filter_map(|(&stmt, c)| Some((StmtId(stmt), c.mean_trips()?)))
                    .collect(),
                repeats: repeated
                    .iter()
                    .filter_map(|(&stmt, c)| Some((StmtId(stmt), c.mean_repeats()?)))
                    .collect(),
            };
            units.insert(
                UnitKey {
                    kind,
                    name: u.name.clone(),
                    host: u.host.clone(),
                },
                UnitProfile {
                    digest,
                    measured: Arc::new(measured),
                },
            );
        }
        Profile { run, units }
    }
}

/// A digest as 16 hexadecimal digits.
fn hex(digest: u64) -> String {
    format!("{digest:016x}")
}

/// The unit kind named as reports name it.
fn unit_kind(name: &str) -> Option<UnitKind> {
    [
        UnitKind::Program,
        UnitKind::Subroutine,
        UnitKind::Function,
        UnitKind::Module,
        UnitKind::Submodule,
        UnitKind::BlockData,
    ]
    .into_iter()
    .find(|k| k.as_str() == name)
}
