//! `costline diff BASE HEAD`: how a change moves the predictions, per unit — the
//! predicted time, its communication part, the messages and bytes, and wd — for a
//! pull-request comment ("this change raised the predicted time of `solve` by 18 %").
//! Each side is a report of `costline check --format json` (made on the base branch,
//! say), a Fortran file, or a directory whose Fortran files are analyzed together.
//! Units are matched by name (and host) when the name is unique on both sides, else by
//! path too. Text for a terminal, Markdown for a comment, JSON (versioned) for scripts;
//! `--max-increase PCT` fails (status 3) when a unit's predicted time rises by more.

use crate::AnalysisFlags;
use costline_ide::label;
use costline_ide::report::{Collect, stream};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

/// The version of `diff --format json`.
pub const VERSION: u32 = 1;

/// The exit status when a unit's time rose past `--max-increase`.
const INCREASE_EXIT: u8 = 3;

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The program before the change: a report of `costline check --format json`, a
    /// Fortran file, or a directory of Fortran files analyzed together.
    base: String,
    /// The program after the change (as BASE).
    head: String,
    #[command(flatten)]
    analysis: AnalysisFlags,
    /// Output format: text, Markdown (a pull-request comment) or JSON.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
    /// Exit with status 3 when a unit's predicted time rises by more than PCT percent
    /// (e.g. `--max-increase 10`).
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    max_increase: Option<f64>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DiffFormat {
    Text,
    Markdown,
    Json,
}

fn parse_percent(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a percentage ≥ 0")),
    }
}

/// The figures of a unit that a diff compares (those of the JSON report's metrics).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct Figures {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    /// `lower` when the time leaves something out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_bound: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ct_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nt: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub td_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wd: Option<f64>,
}

/// What a diff reads of a report (`check --format json`); other fields are ignored.
#[derive(Deserialize)]
struct ReportIn {
    machine: String,
    files: Vec<FileIn>,
}

#[derive(Deserialize)]
struct FileIn {
    path: String,
    units: Vec<UnitIn>,
}

#[derive(Deserialize)]
struct UnitIn {
    name: String,
    kind: String,
    line: u32,
    #[serde(default)]
    host: Option<String>,
    metrics: Figures,
}

/// One side of the diff: what it was read from, its machine and its units.
struct Side {
    machine: String,
    units: Vec<Unit>,
}

/// A unit of one side.
#[derive(Clone, Debug)]
struct Unit {
    /// Its file, relative to the side's directory (a file: its name).
    path: String,
    name: String,
    host: Option<String>,
    kind: String,
    line: u32,
    figures: Figures,
}

impl Unit {
    /// `host::name`, or the name.
    fn qualified(&self) -> String {
        match &self.host {
            Some(h) => format!("{h}::{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// `diff --format json`.
#[derive(Serialize)]
struct Document {
    version: u32,
    machine: Machines,
    /// The units whose figures changed, then those added and removed, the largest
    /// change of time first.
    units: Vec<Change>,
}

#[derive(Serialize)]
struct Machines {
    base: String,
    head: String,
}

/// How one unit changed.
#[derive(Serialize)]
struct Change {
    /// `changed`, `added` or `removed`.
    status: &'static str,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    host: Option<String>,
    kind: String,
    /// The unit's file and line on the head side (the base side when removed).
    path: String,
    line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<Figures>,
    #[serde(skip_serializing_if = "Option::is_none")]
    head: Option<Figures>,
    /// Head minus base, for the figures both sides have.
    #[serde(skip_serializing_if = "Option::is_none")]
    delta: Option<Delta>,
}

/// Signed changes, head minus base.
#[derive(Clone, Debug, Default, Serialize)]
struct Delta {
    #[serde(skip_serializing_if = "Option::is_none")]
    time_s: Option<f64>,
    /// The change of time relative to the base's, in percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    time_percent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    comm_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nt: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    td_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wd: Option<f64>,
}

pub fn run(args: &DiffArgs) -> ExitCode {
    let sides = load(&args.base, &args.analysis).and_then(|base| {
        let head = load(&args.head, &args.analysis)?;
        Ok((base, head))
    });
    let (base, head) = match sides {
        Ok(s) => s,
        Err(e) => {
            eprintln!("costline: {e}");
            return ExitCode::from(1);
        }
    };
    if base.machine != head.machine {
        eprintln!(
            "costline: warning: the sides are priced on different machines ({} and {}): \
             the times differ for that too",
            base.machine, head.machine
        );
    }
    let changes = changes(&base, &head);
    // The units whose time rose past --max-increase.
    let over: Vec<String> = match args.max_increase {
        Some(max) => changes
            .iter()
            .filter_map(|c| {
                let pct = c.delta.as_ref()?.time_percent?;
                (pct > max).then(|| format!("{} {}", qualified(c), signed_percent(pct)))
            })
            .collect(),
        None => Vec::new(),
    };
    let out = match args.format {
        DiffFormat::Text => text(&changes),
        DiffFormat::Markdown => markdown(&changes),
        DiffFormat::Json => {
            let doc = Document {
                version: VERSION,
                machine: Machines {
                    base: base.machine,
                    head: head.machine,
                },
                units: changes,
            };
            serde_json::to_string_pretty(&doc).expect("the diff serializes") + "\n"
        }
    };
    crate::stdout::write(&out);
    if over.is_empty() {
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "costline: the predicted time rose by more than {}% (--max-increase): {}",
        args.max_increase.unwrap_or_default(),
        over.join(", ")
    );
    ExitCode::from(INCREASE_EXIT)
}

/// One side read: a report, a Fortran file or a directory of Fortran files (analyzed
/// under the flags and the costline.toml seen from the current directory).
fn load(spec: &str, flags: &AnalysisFlags) -> Result<Side, String> {
    let path = Path::new(spec);
    if path.is_dir() {
        let files = crate::check::files(&[spec.to_string()], flags).map_err(|(_, e)| e)?;
        let mut side = analyze(&files, flags)?;
        for u in &mut side.units {
            if let Ok(relative) = Path::new(&u.path).strip_prefix(path) {
                u.path = relative.display().to_string();
            }
        }
        return Ok(side);
    }
    let bytes = costline_ide::files::read_regular(path, REPORT_LIMIT)
        .map_err(|e| format!("{spec}: cannot read the file: {e}"))?;
    let is_report =
        spec.ends_with(".json") || bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if is_report {
        return report(&bytes)
            .map_err(|e| format!("{spec}: not a report of `costline check --format json`: {e}"));
    }
    let mut side = analyze(&[spec.to_string()], flags)?;
    for u in &mut side.units {
        u.path = file_name(&u.path);
    }
    Ok(side)
}

/// The largest report read (a 200k-line program's is some tens of MiB).
const REPORT_LIMIT: u64 = 1 << 30;

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// A side from the text of a JSON report.
fn report(bytes: &[u8]) -> Result<Side, String> {
    let r: ReportIn = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    Ok(side(r))
}

/// A side from Fortran files, analyzed together as `check` analyzes them.
fn analyze(files: &[String], flags: &AnalysisFlags) -> Result<Side, String> {
    let options = crate::check::options(flags, files)?;
    let (inputs, unreadable) = crate::check::read(files);
    if let Some(failed) = unreadable.values().next() {
        let why = failed
            .diagnostics
            .first()
            .map_or("", |d| d.message.as_str());
        return Err(format!("{}: {why}", failed.path));
    }
    let mut collected = Collect::default();
    stream(&inputs, &options, &mut collected);
    let errors = collected
        .0
        .iter()
        .flat_map(|f| &f.diagnostics)
        .filter(|d| d.severity == costline_ide::Severity::Error)
        .count();
    if errors > 0 {
        eprintln!(
            "costline: warning: {} has {errors} error finding{} (see `costline check`): \
             its figures leave the unread text out",
            files.join(" "),
            if errors == 1 { "" } else { "s" }
        );
    }
    let report = serde_json::json!({
        "machine": options.machine.name,
        "files": collected.0,
    });
    let r: ReportIn = serde_json::from_value(report).map_err(|e| e.to_string())?;
    Ok(side(r))
}

/// The units of a report, each with its file's path.
fn side(r: ReportIn) -> Side {
    Side {
        machine: r.machine,
        units: r
            .files
            .into_iter()
            .flat_map(|f| {
                let path = f.path;
                f.units.into_iter().map(move |u| Unit {
                    path: path.clone(),
                    name: u.name,
                    host: u.host,
                    kind: u.kind,
                    line: u.line,
                    figures: u.metrics,
                })
            })
            .collect(),
    }
}

/// The key a unit is matched by: its kind and qualified name when they are unique on
/// both sides, with its path too otherwise.
fn keys(base: &Side, head: &Side) -> impl Fn(&Unit) -> (String, String, String) {
    let mut count: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    for u in &base.units {
        count.entry((u.kind.clone(), u.qualified())).or_default().0 += 1;
    }
    for u in &head.units {
        count.entry((u.kind.clone(), u.qualified())).or_default().1 += 1;
    }
    move |u: &Unit| {
        let name = (u.kind.clone(), u.qualified());
        let unique = count.get(&name).is_some_and(|&(b, h)| b <= 1 && h <= 1);
        let path = if unique {
            String::new()
        } else {
            u.path.clone()
        };
        (path, name.0, name.1)
    }
}

/// The units that changed, were added or were removed: changed ones by the size of
/// their change of time, largest first, then the added and the removed in order.
fn changes(base: &Side, head: &Side) -> Vec<Change> {
    let key = keys(base, head);
    let before: BTreeMap<_, &Unit> = base.units.iter().map(|u| (key(u), u)).collect();
    let after: BTreeMap<_, &Unit> = head.units.iter().map(|u| (key(u), u)).collect();
    let change = |status, u: &Unit, b: Option<&Unit>, h: Option<&Unit>| Change {
        status,
        name: u.name.clone(),
        host: u.host.clone(),
        kind: u.kind.clone(),
        path: u.path.clone(),
        line: u.line,
        base: b.map(|b| b.figures.clone()),
        head: h.map(|h| h.figures.clone()),
        delta: b.zip(h).map(|(b, h)| delta(&b.figures, &h.figures)),
    };
    let mut changed = Vec::new();
    let mut added = Vec::new();
    for u in &head.units {
        match before.get(&key(u)) {
            Some(b) if differ(&b.figures, &u.figures) => {
                changed.push(change("changed", u, Some(b), Some(u)));
            }
            Some(_) => {}
            None => added.push(change("added", u, None, Some(u))),
        }
    }
    let removed = base
        .units
        .iter()
        .filter(|u| !after.contains_key(&key(u)))
        .map(|u| change("removed", u, Some(u), None));
    let size = |c: &Change| {
        c.delta
            .as_ref()
            .and_then(|d| d.time_s)
            .map_or(0.0, f64::abs)
    };
    changed.sort_by(|a, b| size(b).total_cmp(&size(a)));
    changed.into_iter().chain(added).chain(removed).collect()
}

/// Whether two values differ beyond the last digits of a float.
fn moved(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() > 1e-9 * a.abs().max(b.abs()),
        (a, b) => a.is_some() != b.is_some(),
    }
}

fn differ(a: &Figures, b: &Figures) -> bool {
    moved(a.time_s, b.time_s)
        || moved(a.comm_s, b.comm_s)
        || moved(a.nt, b.nt)
        || moved(a.td_bytes, b.td_bytes)
        || moved(a.wd, b.wd)
        || a.time_bound != b.time_bound
}

fn delta(b: &Figures, h: &Figures) -> Delta {
    let minus = |x: Option<f64>, y: Option<f64>| Some(y? - x?);
    Delta {
        time_s: minus(b.time_s, h.time_s),
        time_percent: b
            .time_s
            .zip(h.time_s)
            .filter(|(b, _)| *b > 0.0)
            .map(|(b, h)| 100.0 * (h - b) / b),
        comm_s: minus(b.comm_s, h.comm_s),
        nt: minus(b.nt, h.nt),
        td_bytes: minus(b.td_bytes, h.td_bytes),
        wd: minus(b.wd, h.wd),
    }
}

fn qualified(c: &Change) -> String {
    match &c.host {
        Some(h) => format!("{h}::{}", c.name),
        None => c.name.clone(),
    }
}

/// `+18.0 %`, `−3.2 %`.
fn signed_percent(p: f64) -> String {
    format!("{}{:.1} %", sign(p), p.abs())
}

fn sign(x: f64) -> &'static str {
    if x < 0.0 { "−" } else { "+" }
}

/// A time with its bound (`≥ 1.2 ms` for a lower bound; `?` when unknown).
fn time(f: &Figures) -> String {
    match f.time_s {
        Some(t) if f.time_bound.is_some() => format!("≥ {}", label::seconds(t)),
        Some(t) => label::seconds(t),
        None => "?".to_string(),
    }
}

/// A figure's `before → after (±change)`, or `None` when neither side has it or it
/// did not move.
fn row(before: Option<f64>, after: Option<f64>, show: impl Fn(f64) -> String) -> Option<String> {
    if !moved(before, after) {
        return None;
    }
    let text = |x: Option<f64>| x.map_or_else(|| "?".to_string(), &show);
    let change = match (before, after) {
        (Some(b), Some(a)) => format!(" ({}{})", sign(a - b), show((a - b).abs())),
        _ => String::new(),
    };
    Some(format!("{} → {}{change}", text(before), text(after)))
}

/// The lines of a changed unit's figures that moved.
fn moved_rows(b: &Figures, h: &Figures) -> Vec<(&'static str, String)> {
    let mut rows = Vec::new();
    if let Some(r) = row(b.time_s, h.time_s, label::seconds) {
        let pct = delta(b, h)
            .time_percent
            .map(|p| format!(", {}", signed_percent(p)))
            .unwrap_or_default();
        let r = match r.strip_suffix(')') {
            Some(open) => format!("{open}{pct})"),
            None => r,
        };
        rows.push(("time", r));
    }
    let rows_of = [
        ("comm", row(b.comm_s, h.comm_s, label::seconds)),
        ("messages", row(b.nt, h.nt, count)),
        ("bytes", row(b.td_bytes, h.td_bytes, label::bytes)),
        ("wd", row(b.wd, h.wd, wd)),
    ];
    rows.extend(rows_of.into_iter().filter_map(|(k, r)| Some((k, r?))));
    rows
}

/// wd to three places: a change of balance shows in the last ones.
fn wd(x: f64) -> String {
    format!("{x:.3}")
}

fn count(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.3e}")
    }
}

/// The headline: the largest rise (or fall) of a unit's predicted time.
fn headline(changes: &[Change]) -> String {
    let (mut changed, mut added, mut removed) = (0, 0, 0);
    for c in changes {
        match c.status {
            "changed" => changed += 1,
            "added" => added += 1,
            _ => removed += 1,
        }
    }
    let units = |n: usize| if n == 1 { "unit" } else { "units" };
    let mut s = format!("{changed} {} changed", units(changed));
    if added > 0 {
        let _ = write!(s, ", {added} added");
    }
    if removed > 0 {
        let _ = write!(s, ", {removed} removed");
    }
    let top = changes
        .iter()
        .find_map(|c| Some((c, c.delta.as_ref()?.time_percent?)));
    if let Some((c, pct)) = top.filter(|(_, p)| p.abs() >= 0.05) {
        let verb = if pct > 0.0 { "raised" } else { "lowered" };
        let _ = write!(
            s,
            "; this change {verb} the predicted time of `{}` by {:.1} %",
            qualified(c),
            pct.abs()
        );
    }
    s
}

fn text(changes: &[Change]) -> String {
    let mut out = format!("costline diff: {}\n", headline(changes));
    for c in changes {
        let _ = writeln!(
            out,
            "{} {} {}  ({}:{})",
            match c.status {
                "changed" => "~",
                "added" => "+",
                _ => "-",
            },
            c.kind,
            qualified(c),
            c.path,
            c.line
        );
        match (&c.base, &c.head) {
            (Some(b), Some(h)) => {
                for (what, r) in moved_rows(b, h) {
                    let _ = writeln!(out, "    {what:<9}{r}");
                }
            }
            (None, Some(f)) | (Some(f), None) => {
                let _ = writeln!(out, "    {:<9}{}", "time", time(f));
            }
            (None, None) => {}
        }
    }
    out
}

fn markdown(changes: &[Change]) -> String {
    let mut out = format!("**costline**: {}\n", headline(changes));
    if changes.is_empty() {
        return out;
    }
    out.push_str(
        "\n| unit | time | Δ time | comm | messages | wd |\n|---|---:|---:|---:|---:|---:|\n",
    );
    let cell = |b: Option<f64>, h: Option<f64>, show: &dyn Fn(f64) -> String| -> String {
        row(b, h, show).unwrap_or_else(|| h.or(b).map_or("–".to_string(), show))
    };
    for c in changes {
        let name = format!("`{}` ({} in {}:{})", qualified(c), c.kind, c.path, c.line);
        let line = match (&c.base, &c.head) {
            (Some(b), Some(h)) => {
                let d = delta(b, h);
                let dt = match (d.time_s, d.time_percent) {
                    (Some(s), Some(p)) => {
                        format!(
                            "{}{} ({})",
                            sign(s),
                            label::seconds(s.abs()),
                            signed_percent(p)
                        )
                    }
                    (Some(s), None) => format!("{}{}", sign(s), label::seconds(s.abs())),
                    _ => "–".to_string(),
                };
                format!(
                    "| {name} | {} → {} | {dt} | {} | {} | {} |",
                    time(b),
                    time(h),
                    cell(b.comm_s, h.comm_s, &label::seconds),
                    cell(b.nt, h.nt, &count),
                    cell(b.wd, h.wd, &wd),
                )
            }
            (None, Some(h)) => format!("| {name} (added) | {} | | | | |", time(h)),
            (Some(b), None) => format!("| ~~{name}~~ (removed) | {} | | | | |", time(b)),
            (None, None) => continue,
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(name: &str, path: &str, time_s: f64, wd: f64) -> Unit {
        Unit {
            path: path.into(),
            name: name.into(),
            host: None,
            kind: "subroutine".into(),
            line: 1,
            figures: Figures {
                time_s: Some(time_s),
                wd: Some(wd),
                ..Figures::default()
            },
        }
    }

    fn side(units: Vec<Unit>) -> Side {
        Side {
            machine: "m".into(),
            units,
        }
    }

    #[test]
    fn units_are_matched_by_name_then_by_path_and_sorted_by_change() {
        let base = side(vec![
            unit("solve", "a.f90", 1.0, 0.1),
            unit("init", "a.f90", 1.0, 0.0),
            unit("x", "p.f90", 1.0, 0.0),
            unit("x", "q.f90", 1.0, 0.0),
            unit("gone", "a.f90", 1.0, 0.0),
        ]);
        let head = side(vec![
            unit("solve", "b.f90", 1.18, 0.4),
            unit("init", "b.f90", 1.0, 0.0),
            unit("x", "p.f90", 3.0, 0.0),
            unit("x", "q.f90", 1.0, 0.0),
            unit("new", "b.f90", 2.0, 0.0),
        ]);
        let c = changes(&base, &head);
        let shown: Vec<(&str, &str, &str)> = c
            .iter()
            .map(|c| (c.status, c.name.as_str(), c.path.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("changed", "x", "p.f90"),
                ("changed", "solve", "b.f90"),
                ("added", "new", "b.f90"),
                ("removed", "gone", "a.f90"),
            ]
        );
        let d = c[1].delta.as_ref().unwrap();
        assert!((d.time_percent.unwrap() - 18.0).abs() < 1e-9);
        assert!((d.wd.unwrap() - 0.3).abs() < 1e-12);
        assert!(headline(&c).ends_with("raised the predicted time of `x` by 200.0 %"));
    }
}
