//! The profile file (`.costline/profile.json`): when and how the program ran, the
//! digest of each file's bytes, and per unit (with the digest of its text) every
//! counter's count, keyed by the statement measured and where the counter was, and
//! the values of the scalars its counts need (each record point's, and per name
//! their mean and extremes over the unit: `varied` when they differ). Read back, it
//! is what the analysis counts with ([`Profile`]): a unit whose text changed since is
//! stale, and its counts and values are not applied.

use super::counters::RunCounts;
use super::{GatherPoint, Instrumented, Role};
use costline_db::{Profile, UnitKey, UnitProfile, text_digest};
use costline_model::comm::gather::{GatherLayouts, MeasuredGather};
use costline_model::distribution::Layout;
use costline_model::freq::Measured;
use costline_model::freq::measured::{Counters, MeasuredValue, PerRank};
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
    /// The values recorded, by name (over all its record points and ranks).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub values: Vec<ValueSummary>,
    /// The irregular reads of mapped arrays recorded.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub gathers: Vec<GatherCount>,
}

/// What the run read at one irregular read of a mapped array, under the layouts it
/// was recorded with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GatherCount {
    /// The statement reading (its number in the unit, in pre-order)...
    pub stmt: u32,
    /// ...and the reference as the analysis writes it.
    pub reference: String,
    /// The layout of the array read, and of the left-hand side's array (absent when
    /// every processor executes the statement).
    pub read: Layout,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lhs: Option<Layout>,
    /// Executions of the read, and those whose element fell outside its bounds or
    /// template (not counted).
    pub reads: u64,
    pub outside: u64,
    /// Per (sender, receiver) that moved anything, over the run.
    pub pairs: Vec<PairCount>,
    /// Where the read is.
    pub path: String,
    pub line: u32,
    pub column: u32,
}

/// What one processor sent another at an irregular read, over the run: one message
/// per instance of the fetch that moved anything, and the distinct elements of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairCount {
    pub from: usize,
    pub to: usize,
    pub messages: u64,
    pub elements: u64,
}

/// What a unit's records of one scalar found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueSummary {
    /// The unknown as the counts name it (`n`, `m(2)`, `size(x,1)`).
    pub name: String,
    /// How often it was recorded, the sum of the values, the least and the greatest.
    pub records: u64,
    pub sum: i64,
    pub min: i64,
    pub max: i64,
    /// Whether it took more than one value (between executions or ranks).
    pub varied: bool,
    /// Of an MPI run where each rank recorded one value only, and they differ: the
    /// value on each rank.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rank_values: Option<Vec<i64>>,
}

/// What one record point found on one rank (or over all): the sum of the values,
/// the least and the greatest (its `count` is how often it recorded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    pub sum: i64,
    pub min: i64,
    pub max: i64,
}

/// One counter's count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointCount {
    /// The statement measured (its number in the unit, in pre-order).
    pub stmt: u32,
    /// `branch` (with `branch`: which, from 0), `none`, `entry`, `iteration`,
    /// `arrival`, `jump`, `call`, `elements` (the count arguments summed; with
    /// `callee`), `value` (with `name` and `value`; its count is the records) and
    /// `runs` (of the unit).
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub branch: Option<usize>,
    /// The MPI routine a `call` or `elements` counter's statement calls.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub callee: Option<String>,
    /// The scalar a `value` point records...
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub name: Option<String>,
    /// ...what it found over all ranks (absent when it never recorded)...
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<Recorded>,
    /// ...and on each rank of an MPI program (`null` for a rank that never recorded).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rank_values: Option<Vec<Option<Recorded>>>,
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
    /// The profile of a run of `program` whose counters came out as `counts` (one
    /// per rank: one for a serial program), `files` being the program's sources.
    pub fn new(
        run: Run,
        program: &Instrumented,
        counts: &[RunCounts],
        files: &[(String, Vec<u8>)],
    ) -> ProfileFile {
        let at = |rank: &RunCounts, k: usize| rank.counts.get(k - 1).copied().unwrap_or(0);
        let mut units: BTreeMap<(String, UnitKey), UnitCounts> = BTreeMap::new();
        let new_unit = |file: &str, unit: &UnitKey, digest: u64| UnitCounts {
            file: file.to_string(),
            kind: unit.kind.as_str().to_string(),
            name: unit.name.clone(),
            host: unit.host.clone(),
            digest: hex(digest),
            points: Vec::new(),
            values: Vec::new(),
            gathers: Vec::new(),
        };
        for g in &program.gathers {
            let entry = units
                .entry((g.file.clone(), g.unit.clone()))
                .or_insert_with(|| new_unit(&g.file, &g.unit, g.digest));
            entry.gathers.push(gather_count(g, counts));
        }
        for p in &program.points {
            let entry = units
                .entry((p.file.clone(), p.unit.clone()))
                .or_insert_with(|| new_unit(&p.file, &p.unit, p.digest));
            let (role, branch) = match p.role {
                Role::Branch(k) => ("branch", Some(k)),
                Role::None => ("none", None),
                Role::Entry => ("entry", None),
                Role::Arrival => ("arrival", None),
                Role::Iteration => ("iteration", None),
                Role::Jump => ("jump", None),
                Role::Call => ("call", None),
                Role::Elements => ("elements", None),
                Role::Value => ("value", None),
                Role::Runs => ("runs", None),
            };
            let per_rank: Vec<u64> = counts
                .iter()
                .map(|rank| at(rank, p.counter).max(0) as u64)
                .collect();
            let recorded: Vec<Option<Recorded>> = counts
                .iter()
                .map(|rank| {
                    (p.role == Role::Value && at(rank, p.counter) > 0).then(|| Recorded {
                        sum: at(rank, p.counter + 1),
                        min: at(rank, p.counter + 2),
                        max: at(rank, p.counter + 3),
                    })
                })
                .collect();
            let value = recorded.iter().flatten().copied().reduce(|a, b| Recorded {
                sum: a.sum.saturating_add(b.sum),
                min: a.min.min(b.min),
                max: a.max.max(b.max),
            });
            entry.points.push(PointCount {
                stmt: p.stmt,
                role: role.to_string(),
                branch,
                callee: p.callee.clone(),
                name: p.name.clone(),
                value,
                rank_values: (p.role == Role::Value && run.mpi.is_some()).then_some(recorded),
                path: p.path.clone(),
                line: p.line,
                column: p.column,
                count: per_rank.iter().sum(),
                ranks: run.mpi.as_ref().map(|_| per_rank),
            });
        }
        for unit in units.values_mut() {
            unit.values = summaries(&unit.points);
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
    /// trip counts of the statements that ran, and the values recorded.
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
            let values = u
                .values
                .iter()
                .filter_map(|v| {
                    let m = MeasuredValue::new(v.records, v.sum, v.min, v.max)?
                        .with_ranks(v.rank_values.clone().unwrap_or_default());
                    Some((v.name.clone(), m))
                })
                .collect();
            let gathers = u.gathers.iter().map(GatherCount::measured).collect();
            let measured = Measured {
                run: run.clone(),
                per_rank: self
                    .ranks
                    .map(|n| Arc::new(per_rank(&u.points, n as usize))),
                gathers,
                values,
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
        Profile {
            run,
            ranks: self.ranks.map(|n| n as usize),
            units,
        }
    }
}

/// What the read site `g` recorded in `counts` (its ranks' records summed).
fn gather_count(g: &GatherPoint, counts: &[RunCounts]) -> GatherCount {
    let mut pairs: BTreeMap<(usize, usize), (u64, u64)> = BTreeMap::new();
    let (mut reads, mut outside) = (0, 0);
    for site in counts.iter().filter_map(|rank| rank.gathers.get(&g.site)) {
        reads += site.reads;
        outside += site.outside;
        for &(from, to, messages, elements) in &site.pairs {
            let pair = pairs.entry((from, to)).or_default();
            pair.0 += messages;
            pair.1 += elements;
        }
    }
    GatherCount {
        stmt: g.stmt,
        reference: g.reference.clone(),
        read: g.table.layouts.read.clone(),
        lhs: g.table.layouts.lhs.clone(),
        reads,
        outside,
        pairs: pairs
            .into_iter()
            .map(|((from, to), (messages, elements))| PairCount {
                from,
                to,
                messages,
                elements,
            })
            .collect(),
        path: g.path.clone(),
        line: g.line,
        column: g.column,
    }
}

impl GatherCount {
    /// The read as the analysis takes it.
    fn measured(&self) -> MeasuredGather {
        MeasuredGather {
            stmt: StmtId(self.stmt),
            reference: self.reference.clone(),
            layouts: GatherLayouts {
                read: self.read.clone(),
                lhs: self.lhs.clone(),
            },
            reads: self.reads,
            pairs: self
                .pairs
                .iter()
                .map(|p| (p.from, p.to, p.messages, p.elements))
                .collect(),
        }
    }
}

/// What each of the `ranks` ranks counted of one unit's `points`.
fn per_rank(points: &[PointCount], ranks: usize) -> PerRank {
    let mut out = PerRank {
        ranks,
        ..PerRank::default()
    };
    for p in points {
        let Some(counts) = p.ranks.as_ref().filter(|c| c.len() == ranks) else {
            continue;
        };
        let stmt = StmtId(p.stmt);
        let mut each = |f: &dyn Fn(&mut Counters, u64)| {
            let c = out
                .counters
                .entry(stmt)
                .or_insert_with(|| vec![Counters::default(); ranks]);
            for (c, &n) in c.iter_mut().zip(counts) {
                f(c, n);
            }
        };
        match (p.role.as_str(), p.branch) {
            ("branch", Some(k)) => each(&|c, n| {
                if c.branches.len() <= k {
                    c.branches.resize(k + 1, 0);
                }
                c.branches[k] += n;
            }),
            ("none", _) => each(&|c, n| c.none += n),
            ("entry", _) => each(&|c, n| c.entries += n),
            ("iteration", _) => each(&|c, n| c.iterations += n),
            ("call", _) => {
                out.calls.insert(stmt, counts.clone());
            }
            ("elements", _) => {
                out.elements.insert(stmt, counts.clone());
            }
            ("runs", _) => out.runs = counts.clone(),
            _ => {}
        }
    }
    out
}

/// Per name, what the `value` points among `points` recorded together.
fn summaries(points: &[PointCount]) -> Vec<ValueSummary> {
    let mut by_name: BTreeMap<&str, ValueSummary> = BTreeMap::new();
    // Per name and rank, the least and greatest value recorded there.
    let mut by_rank: BTreeMap<&str, Vec<Option<(i64, i64)>>> = BTreeMap::new();
    for p in points {
        let (Some(name), Some(v)) = (&p.name, p.value) else {
            continue;
        };
        let s = by_name.entry(name).or_insert(ValueSummary {
            name: name.clone(),
            records: 0,
            sum: 0,
            min: v.min,
            max: v.max,
            varied: false,
            rank_values: None,
        });
        s.records += p.count;
        s.sum = s.sum.saturating_add(v.sum);
        s.min = s.min.min(v.min);
        s.max = s.max.max(v.max);
        s.varied = s.min != s.max;
        for (r, recorded) in p.rank_values.iter().flatten().enumerate() {
            let ranks = by_rank.entry(name).or_default();
            if ranks.len() <= r {
                ranks.resize(r + 1, None);
            }
            if let Some(v) = recorded {
                ranks[r] = Some(
                    ranks[r].map_or((v.min, v.max), |(lo, hi)| (lo.min(v.min), hi.max(v.max))),
                );
            }
        }
    }
    for (name, ranks) in by_rank {
        let one_each: Option<Vec<i64>> = ranks
            .iter()
            .map(|r| r.filter(|(lo, hi)| lo == hi).map(|(v, _)| v))
            .collect();
        if let Some(s) = by_name.get_mut(name).filter(|s| s.varied) {
            s.rank_values = one_each;
        }
    }
    by_name.into_values().collect()
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
