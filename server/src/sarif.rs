//! `check --format sarif`: the findings as a SARIF 2.1.0 log, for code-scanning
//! dashboards (GitHub's `upload-sarif`, ...). One run of the `costline` tool: a rule
//! per finding code that occurs (its title and help from `costline_ide::codes`), a
//! result per finding with its region (start and end, columns in code points), the
//! INCLUDE lines that brought an included file's text in as related locations, and the
//! predicted figures as properties: those of the unit (and of the statement or loop)
//! at the finding's line on each result, every unit's on the run.

use costline_ide::Severity;
use costline_ide::codes;
use costline_ide::report::{DiagnosticReport, Metrics, Output, ReportSink, UnitReport, Value};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// The SARIF schema the log declares.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// A [`ReportSink`] that collects the findings and the units' figures and writes the
/// SARIF log at the end.
pub struct SarifReport<W: Write> {
    out: Output<W>,
    machine: String,
    params: BTreeMap<String, i64>,
    /// Per file, in order: its path, its units' figures and its findings.
    files: Vec<FileSeen>,
}

/// What the log needs of a file.
struct FileSeen {
    path: String,
    units: Vec<UnitSeen>,
    diagnostics: Vec<DiagnosticReport>,
}

/// What the log needs of a unit: where it is and its figures, and those of its
/// statements and loops by line.
struct UnitSeen {
    name: String,
    kind: &'static str,
    host: Option<String>,
    line: u32,
    end_line: u32,
    metrics: Figures,
    /// The first statement (else loop) on each line.
    at_line: BTreeMap<u32, (&'static str, Figures)>,
}

/// A SARIF log of one run (SARIF 2.1.0, section 3.13).
#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    invocations: Vec<Invocation>,
    /// Columns count Unicode code points, as the report's do.
    column_kind: &'static str,
    artifacts: Vec<Artifact>,
    results: Vec<SarifResult>,
    properties: RunProperties,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    rules: Vec<Rule>,
}

/// A reporting descriptor: one per finding code that occurs.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    name: String,
    short_description: Message,
    full_description: Message,
    help: Message,
}

#[derive(Serialize)]
struct Message {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Artifact {
    location: ArtifactLocation,
    source_language: &'static str,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Message,
    locations: Vec<Location>,
    /// The INCLUDE lines an included file's text came through, outermost first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<ResultProperties>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<u32>,
}

/// A result's predicted figures: of the innermost unit holding its line, and of the
/// statement or loop on that line.
#[derive(Serialize)]
struct ResultProperties {
    unit: String,
    unit_kind: &'static str,
    unit_metrics: Figures,
    /// `statement` or `loop`: what `metrics` are of.
    #[serde(skip_serializing_if = "Option::is_none")]
    at_line: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metrics: Option<Figures>,
}

/// The run's properties: what the figures were priced with, and every unit's.
#[derive(Serialize)]
struct RunProperties {
    machine: String,
    params: BTreeMap<String, i64>,
    units: Vec<UnitProperties>,
}

#[derive(Serialize)]
struct UnitProperties {
    file: String,
    name: String,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    host: Option<String>,
    line: u32,
    #[serde(flatten)]
    metrics: Figures,
}

/// The predicted figures of a unit, loop or statement (those of the JSON report).
#[derive(Clone, Debug, Serialize)]
struct Figures {
    #[serde(skip_serializing_if = "Option::is_none")]
    freq: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nt: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    td_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    comm_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ct_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_bound: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    complete: Option<bool>,
}

impl Figures {
    fn of(m: &Metrics) -> Figures {
        Figures {
            freq: m.freq,
            wd: m.wd,
            nt: m.nt,
            td_bytes: m.td_bytes,
            comm_s: m.comm_s,
            ct_s: m.ct_s,
            time_s: m.time_s,
            time_bound: m.time_bound,
            complete: m.complete,
        }
    }
}

/// The artifacts of a log: each path once, by its index.
#[derive(Default)]
struct Artifacts(Vec<String>);

impl Artifacts {
    /// The location of `path`, with its index (added when new).
    fn location(&mut self, path: &str) -> ArtifactLocation {
        let index = match self.0.iter().position(|a| a == path) {
            Some(i) => i,
            None => {
                self.0.push(path.to_string());
                self.0.len() - 1
            }
        };
        ArtifactLocation {
            index: Some(index),
            ..artifact_location(path)
        }
    }
}

impl<W: Write> SarifReport<W> {
    pub fn new(out: W, machine: &str, params: &BTreeMap<String, i64>) -> SarifReport<W> {
        SarifReport {
            out: Output::new(out),
            machine: machine.to_string(),
            params: params.clone(),
            files: Vec::new(),
        }
    }

    /// Writes the log (`successful`: whether every input could be read and parsed)
    /// and hands back the writer, or the first write error.
    pub fn finish(mut self, successful: bool) -> Result<W, std::io::Error> {
        let log = self.log(successful);
        let text = serde_json::to_string_pretty(&log).expect("the SARIF log serializes");
        self.out.write(&text);
        self.out.write("\n");
        self.out.finish()
    }

    fn log(&mut self, successful: bool) -> Log {
        let files = std::mem::take(&mut self.files);
        let mut used: Vec<&'static str> = files
            .iter()
            .flat_map(|f| f.diagnostics.iter().map(|d| d.code))
            .collect();
        used.sort_unstable();
        used.dedup();
        let mut artifacts = Artifacts::default();
        let mut results = Vec::new();
        for file in &files {
            artifacts.location(&file.path);
            for d in &file.diagnostics {
                let path = d.file.as_deref().unwrap_or(&file.path);
                let location = Location {
                    id: None,
                    physical_location: PhysicalLocation {
                        artifact_location: artifacts.location(path),
                        region: region(d),
                    },
                    message: None,
                };
                let related_locations = d
                    .included_from
                    .iter()
                    .enumerate()
                    .map(|(k, site)| Location {
                        id: Some(k),
                        physical_location: PhysicalLocation {
                            artifact_location: artifacts.location(&site.path),
                            region: Region {
                                start_line: site.line,
                                start_column: site.column,
                                end_line: None,
                                end_column: None,
                            },
                        },
                        message: Some(Message {
                            text: format!("included from {}:{}", site.path, site.line),
                        }),
                    })
                    .collect();
                // An included file's finding belongs to the unit of its INCLUDE line.
                let line = d.included_from.first().map_or(d.line, |s| s.line);
                results.push(SarifResult {
                    rule_id: d.code,
                    rule_index: used.binary_search(&d.code).unwrap_or(0),
                    level: level(d.severity),
                    message: Message {
                        text: d.message.clone(),
                    },
                    locations: vec![location],
                    related_locations,
                    properties: file.figures_at(line),
                });
            }
        }
        let units = files
            .iter()
            .flat_map(|f| {
                f.units.iter().map(|u| UnitProperties {
                    file: f.path.clone(),
                    name: u.name.clone(),
                    kind: u.kind,
                    host: u.host.clone(),
                    line: u.line,
                    metrics: u.metrics.clone(),
                })
            })
            .collect();
        Log {
            schema: SCHEMA,
            version: "2.1.0",
            runs: vec![Run {
                tool: Tool {
                    driver: Driver {
                        name: "costline",
                        version: env!("CARGO_PKG_VERSION"),
                        semantic_version: env!("CARGO_PKG_VERSION"),
                        rules: used.iter().map(|code| rule(code)).collect(),
                    },
                },
                invocations: vec![Invocation {
                    execution_successful: successful,
                }],
                column_kind: "unicodeCodePoints",
                artifacts: artifacts
                    .0
                    .iter()
                    .map(|p| Artifact {
                        location: artifact_location(p),
                        source_language: "fortran",
                    })
                    .collect(),
                results,
                properties: RunProperties {
                    machine: self.machine.clone(),
                    params: self.params.clone(),
                    units,
                },
            }],
        }
    }
}

impl FileSeen {
    /// The figures of the innermost unit holding `line`, and of the statement or loop
    /// on it.
    fn figures_at(&self, line: u32) -> Option<ResultProperties> {
        let unit = self
            .units
            .iter()
            .filter(|u| (u.line..=u.end_line).contains(&line))
            .min_by_key(|u| u.end_line - u.line)?;
        let at = unit.at_line.get(&line);
        Some(ResultProperties {
            unit: unit.name.clone(),
            unit_kind: unit.kind,
            unit_metrics: unit.metrics.clone(),
            at_line: at.map(|(kind, _)| *kind),
            metrics: at.map(|(_, f)| f.clone()),
        })
    }
}

/// The reporting descriptor of a finding code (every code is described: a test in
/// `costline_ide::codes` reads the sources; one that is not gets its code as title).
fn rule(code: &'static str) -> Rule {
    let (title, help) = codes::describe(code).map_or((code, code), |c| (c.title, c.help));
    Rule {
        id: code,
        name: pascal_case(code),
        short_description: Message {
            text: title.to_string(),
        },
        full_description: Message {
            text: help.to_string(),
        },
        help: Message {
            text: help.to_string(),
        },
    }
}

/// `poor-locality` → `PoorLocality`.
fn pascal_case(code: &str) -> String {
    code.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info | Severity::Hint => "note",
    }
}

/// The region of a finding; an empty range (a position) is a one-position region.
fn region(d: &DiagnosticReport) -> Region {
    let end = if (d.end_line, d.end_column) > (d.line, d.column) {
        (d.end_line, d.end_column)
    } else {
        (d.line, d.column)
    };
    Region {
        start_line: d.line,
        start_column: d.column,
        end_line: Some(end.0),
        end_column: Some(end.1),
    }
}

/// The artifact location of a path as given: a relative reference from the source
/// root (`%SRCROOT%`, where the command ran), or a `file:` URI for an absolute path.
fn artifact_location(path: &str) -> ArtifactLocation {
    let clean = path.strip_prefix("./").unwrap_or(path);
    if clean.starts_with('/') {
        ArtifactLocation {
            uri: format!("file://{}", uri_path(clean)),
            uri_base_id: None,
            index: None,
        }
    } else {
        ArtifactLocation {
            uri: uri_path(clean),
            uri_base_id: Some("%SRCROOT%"),
            index: None,
        }
    }
}

/// A path with the bytes a URI path may not hold percent-encoded.
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl<W: Write> ReportSink for SarifReport<W> {
    fn file(&mut self, path: &str, _form: &'static str) {
        self.files.push(FileSeen {
            path: path.to_string(),
            units: Vec::new(),
            diagnostics: Vec::new(),
        });
    }

    fn unit(&mut self, unit: UnitReport) {
        // A statement before a loop on its line (array syntax is a loop nest on the
        // assignment's line; its findings are the assignment's).
        let mut at_line = BTreeMap::new();
        for s in &unit.statements {
            at_line
                .entry(s.line)
                .or_insert(("statement", Figures::of(&s.metrics)));
        }
        for l in &unit.loops {
            at_line
                .entry(l.line)
                .or_insert(("loop", Figures::of(&l.metrics)));
        }
        if let Some(file) = self.files.last_mut() {
            file.units.push(UnitSeen {
                name: unit.name,
                kind: unit.kind,
                host: unit.host,
                line: unit.line,
                end_line: unit.end_line,
                metrics: Figures::of(&unit.metrics),
                at_line,
            });
        }
    }

    fn end_file(&mut self, diagnostics: Vec<DiagnosticReport>) {
        if let Some(file) = self.files.last_mut() {
            file.diagnostics = diagnostics;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        let relative = artifact_location("./src/a b.f90");
        assert_eq!(
            (relative.uri.as_str(), relative.uri_base_id),
            ("src/a%20b.f90", Some("%SRCROOT%"))
        );
        let absolute = artifact_location("/w/x#1.f");
        assert_eq!(
            (absolute.uri.as_str(), absolute.uri_base_id),
            ("file:///w/x%231.f", None)
        );
        assert_eq!(
            pascal_case("fine-grained-communication"),
            "FineGrainedCommunication"
        );
    }
}
