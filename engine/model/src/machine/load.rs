//! Reading machine files: TOML into [`Machine`], then checked (units, ranges, known
//! operation keys); every error names the file, the line and the key.

use super::model::Machine;
use super::ops::{OpKey, REQUIRED};
use costline_syntax::source::file::read_regular;
use std::fmt;

/// What is wrong with a machine file, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineError {
    pub path: String,
    /// 1-based; 0 when the error is not about the text (the file cannot be read).
    pub line: usize,
    pub column: usize,
    /// The dotted key (`processor.ops.add_f64`), when the error is about one.
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for MachineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if let Some(k) = &self.key {
            write!(f, ": key `{k}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for MachineError {}

/// Parses and checks a machine file's text; `path` is what errors call it.
pub fn parse(text: &str, path: &str) -> Result<Machine, MachineError> {
    let machine: Machine = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        let (line, column) = line_col(text, offset);
        let message = e.message().trim().to_string();
        let key = key_at(text, offset, &message);
        MachineError {
            path: path.to_string(),
            line,
            column,
            key,
            message,
        }
    })?;
    if let Some((key, message)) = problems(&machine).into_iter().next() {
        let (line, column) = locate(text, &key);
        return Err(MachineError {
            path: path.to_string(),
            line,
            column,
            key: Some(key),
            message,
        });
    }
    Ok(machine)
}

/// The largest machine file read (the shipped ones are a few KiB).
const MAX_MACHINE_BYTES: u64 = 1 << 20;

/// Reads and checks a machine file: a regular file (a device or FIFO is never opened)
/// of at most [`MAX_MACHINE_BYTES`].
pub fn read(path: &std::path::Path) -> Result<Machine, MachineError> {
    let shown = path.display().to_string();
    let bytes = read_regular(path, MAX_MACHINE_BYTES).map_err(|e| MachineError {
        path: shown.clone(),
        line: 0,
        column: 0,
        key: None,
        message: format!("cannot read the machine file: {e}"),
    })?;
    parse(&String::from_utf8_lossy(&bytes), &shown)
}

/// What the schema cannot say: numbers in range, known names, required operations.
fn problems(m: &Machine) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut positive = |key: String, v: f64| {
        if !(v.is_finite() && v > 0.0) {
            out.push((
                key,
                format!("must be a positive number of its unit, got {v}"),
            ));
        }
    };
    positive("processor.clock_hz".into(), m.processor.clock_hz);
    positive("memory.latency_s".into(), m.memory.latency_s);
    positive(
        "memory.bandwidth_bytes_per_s".into(),
        m.memory.bandwidth_bytes_per_s,
    );
    positive(
        "memory.cache_line_bytes".into(),
        m.memory.cache_line_bytes as f64,
    );
    if let Some(w) = m.processor.window_iterations {
        positive("processor.window_iterations".into(), w);
    }
    if let Some(s) = m.memory.strided_line_s {
        positive("memory.strided_line_s".into(), s);
    }
    if let Some(t) = &m.memory.tlb {
        positive("memory.tlb.page_bytes".into(), t.page_bytes as f64);
        positive("memory.tlb.entries".into(), t.entries as f64);
        positive("memory.tlb.walk_s".into(), t.walk_s);
    }
    for (i, l) in m.memory.levels.iter().enumerate() {
        positive(format!("memory.levels[{i}].bytes"), l.bytes as f64);
        positive(format!("memory.levels[{i}].latency_s"), l.latency_s);
        if let Some(b) = l.bandwidth_bytes_per_s {
            positive(format!("memory.levels[{i}].bandwidth_bytes_per_s"), b);
        }
        if let Some(s) = l.strided_line_s {
            positive(format!("memory.levels[{i}].strided_line_s"), s);
        }
    }
    positive("network.alpha_s".into(), m.network.alpha_s);
    positive("network.beta_s_per_byte".into(), m.network.beta_s_per_byte);
    positive(
        "network.cores_per_node".into(),
        m.network.cores_per_node as f64,
    );
    for (i, s) in m.network.segments.iter().enumerate() {
        positive(format!("network.segments[{i}].up_to_bytes"), s.up_to_bytes);
        positive(format!("network.segments[{i}].alpha_s"), s.alpha_s);
        positive(
            format!("network.segments[{i}].beta_s_per_byte"),
            s.beta_s_per_byte,
        );
    }
    let mut out2 = Vec::new();
    for (key, v) in &m.processor.ops {
        if OpKey::parse(key).is_none() {
            out2.push((
                format!("processor.ops.{key}"),
                format!("unknown operation; expected one of {}", OpKey::examples()),
            ));
        } else if !(v.is_finite() && *v >= 0.0) {
            out2.push((
                format!("processor.ops.{key}"),
                format!("must be seconds per operation (≥ 0), got {v}"),
            ));
        }
    }
    for req in REQUIRED {
        if !m.processor.ops.contains_key(*req) {
            out2.push((
                "processor.ops".into(),
                format!(
                    "missing operation `{req}` (required: {})",
                    REQUIRED.join(", ")
                ),
            ));
        }
    }
    if let Some(o) = &m.processor.overlap
        && !["sum", "ports"].contains(&o.as_str())
    {
        out2.push((
            "processor.overlap".into(),
            format!("unknown overlap model `{o}`; expected sum or ports"),
        ));
    }
    if !["full", "ring", "mesh", "hypercube"].contains(&m.network.topology.as_str()) {
        out2.push((
            "network.topology".into(),
            format!(
                "unknown topology `{}`; expected full, ring, mesh or hypercube",
                m.network.topology
            ),
        ));
    }
    if !["mpich", "smpi", "openmpi"].contains(&m.network.mpi_library.as_str()) {
        out2.push((
            "network.mpi_library".into(),
            format!(
                "unknown MPI library `{}`; expected mpich, openmpi or smpi",
                m.network.mpi_library
            ),
        ));
    }
    if m.network.topology == "mesh" && m.network.mesh_width.is_none_or(|w| w == 0) {
        out2.push((
            "network.mesh_width".into(),
            "a mesh needs its width (processors per row), at least 1".into(),
        ));
    }
    for (op, c) in &m.collectives {
        let key = format!("collectives.{op}");
        if !super::COLLECTIVES.contains(&op.as_str()) {
            out2.push((
                key.clone(),
                format!(
                    "unknown collective; expected one of {}",
                    super::COLLECTIVES.join(", ")
                ),
            ));
        }
        let fitted = c.tau1_s.is_some() || c.tau2_s.is_some() || c.tc_s_per_byte.is_some();
        match (&c.algorithm, fitted) {
            (Some(a), _) if !super::ALGORITHMS.contains(&a.as_str()) => out2.push((
                format!("{key}.algorithm"),
                format!(
                    "unknown algorithm `{a}`; expected one of {}",
                    super::ALGORITHMS.join(", ")
                ),
            )),
            (None, false) => out2.push((
                key.clone(),
                "give either `algorithm` or the runtime function tau1_s, tau2_s, tc_s_per_byte"
                    .into(),
            )),
            _ => {}
        }
        for (name, v) in [
            ("tau1_s", c.tau1_s),
            ("tau2_s", c.tau2_s),
            ("tc_s_per_byte", c.tc_s_per_byte),
        ] {
            if let Some(v) = v.filter(|v| !v.is_finite()) {
                out2.push((format!("{key}.{name}"), format!("must be finite, got {v}")));
            }
        }
    }
    out.extend(out2);
    out
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, column)
}

/// The dotted key at `offset`: the table header above it and the key on its line (or
/// the field a "missing field" message names).
fn key_at(text: &str, offset: usize, message: &str) -> Option<String> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    let table = header_above(&text[..line_start]);
    let own = line.trim_start();
    let leaf = if own.starts_with('[') {
        // The error is about the table itself: a missing field names itself.
        let header = own
            .trim_start_matches('[')
            .split(']')
            .next()
            .unwrap_or("")
            .trim();
        let missing = message
            .split("missing field `")
            .nth(1)
            .and_then(|s| s.split('`').next());
        return Some(match missing {
            Some(f) => format!("{header}.{f}"),
            None => header.to_string(),
        });
    } else {
        own.split('=')
            .next()
            .map(str::trim)
            .filter(|k| !k.is_empty())
    };
    let missing = message
        .split("missing field `")
        .nth(1)
        .and_then(|s| s.split('`').next());
    match (table, leaf, missing) {
        (t, _, Some(f)) if offset == 0 || t.is_none() => Some(f.to_string()).map(|f| match t {
            Some(t) => format!("{t}.{f}"),
            None => f,
        }),
        (Some(t), Some(k), _) => Some(format!("{t}.{k}")),
        (None, Some(k), _) => Some(k.to_string()),
        (t, None, _) => t,
    }
}

/// The last `[table]` or `[[array]]` header in `text`.
fn header_above(text: &str) -> Option<String> {
    text.lines().rev().find_map(|l| {
        let l = l.trim();
        l.starts_with('[').then(|| {
            l.trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
    })
}

/// The line and column of a dotted key (`network.segments[2].alpha_s`) in the text:
/// the line that sets its last component under its table, else its table's header.
fn locate(text: &str, key: &str) -> (usize, usize) {
    let (table, leaf) = match key.rsplit_once('.') {
        Some((t, l)) => (t, l),
        None => ("", key),
    };
    // `segments[2]` → the third `[[network.segments]]` header.
    let (table, index) = match table.rsplit_once('[') {
        Some((t, i)) => (t.to_string(), i.trim_end_matches(']').parse::<usize>().ok()),
        None => (table.to_string(), None),
    };
    let mut current = String::new();
    let mut seen = 0usize;
    let mut header_line = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            current = t
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            if current == table {
                seen += 1;
                if index.is_none_or(|i| i + 1 == seen) {
                    header_line = Some(n + 1);
                }
            }
            continue;
        }
        let in_table = current == table && index.is_none_or(|i| i + 1 == seen);
        let Some((k, _)) = t.split_once('=') else {
            continue;
        };
        let k = k.trim().trim_matches('"');
        let dotted = if current.is_empty() {
            k.to_string()
        } else {
            format!("{current}.{k}")
        };
        if (in_table && k == leaf) || (index.is_none() && dotted == key) {
            let column = line.find(k).map_or(1, |c| c + 1);
            return (n + 1, column);
        }
    }
    (header_line.unwrap_or(1), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const GOOD: &str = r#"
name = "test"
description = "a test machine"
provenance = "made up"

[processor]
clock_hz = 1e9
[processor.ops]
add_i32 = 1e-9
add_f64 = 1e-9
mul_f64 = 1e-9
div_f64 = 4e-9
load = 1e-9
store = 1e-9
branch = 1e-9
loop_iter = 1e-9
call = 5e-9

[memory]
cache_line_bytes = 64
latency_s = 8e-8
bandwidth_bytes_per_s = 1e10

[[memory.levels]]
name = "L1"
bytes = 32768
latency_s = 1e-9

[network]
alpha_s = 1e-6
beta_s_per_byte = 1e-10
topology = "hypercube"

[[network.segments]]
up_to_bytes = 4096
alpha_s = 5e-7
beta_s_per_byte = 2e-10

[[network.segments]]
up_to_bytes = 65536
alpha_s = 2e-6
beta_s_per_byte = 1e-10

[collectives.bcast]
algorithm = "binomial"
"#;

    fn err(text: &str) -> MachineError {
        parse(text, "m.toml").unwrap_err()
    }

    #[test]
    fn a_good_file_loads() {
        let m = parse(GOOD, "m.toml").unwrap();
        assert_eq!(m.name, "test");
        assert_eq!(m.network.segments.len(), 2);
    }

    #[test]
    fn a_wrong_type_names_line_and_key() {
        let e = err(&GOOD.replace("mul_f64 = 1e-9", "mul_f64 = \"fast\""));
        assert_eq!(
            (e.line, e.key.as_deref()),
            (11, Some("processor.ops.mul_f64"))
        );
        assert!(e.message.contains("expected"), "{e}");
        assert!(e.to_string().starts_with("m.toml:11:"), "{e}");
    }

    #[test]
    fn an_unknown_operation_names_its_line() {
        let e = err(&GOOD.replace("call = 5e-9", "call = 5e-9\nfma_f64 = 1e-9"));
        assert_eq!(
            (e.line, e.key.as_deref()),
            (18, Some("processor.ops.fma_f64"))
        );
    }

    #[test]
    fn an_unknown_field_and_a_missing_one() {
        let e = err(&GOOD.replace("clock_hz = 1e9", "clock_hz = 1e9\nclock = 2"));
        assert_eq!((e.line, e.key.as_deref()), (8, Some("processor.clock")));
        let e = err(&GOOD.replace("latency_s = 8e-8\n", ""));
        assert!(e.message.contains("latency_s"), "{e}");
        assert_eq!(e.key.as_deref(), Some("memory.latency_s"), "{e}");
    }

    #[test]
    fn a_negative_number_in_an_array_of_tables() {
        let e = err(&GOOD.replace("alpha_s = 2e-6", "alpha_s = -2e-6"));
        assert_eq!(
            (e.line, e.key.as_deref()),
            (41, Some("network.segments[1].alpha_s")),
            "{e}"
        );
    }

    #[test]
    fn bad_names() {
        let e = err(&GOOD.replace("\"hypercube\"", "\"torus\""));
        assert_eq!((e.line, e.key.as_deref()), (32, Some("network.topology")));
        let e = err(&GOOD.replace("\"binomial\"", "\"magic\""));
        assert_eq!(e.key.as_deref(), Some("collectives.bcast.algorithm"));
        assert_eq!(e.line, 45);
        let e = err(&GOOD.replace("branch = 1e-9\n", ""));
        assert!(e.message.contains("`branch`"), "{e}");
    }

    #[test]
    fn syntax_errors_have_positions() {
        let e = err(&GOOD.replace("[memory]", "[memory"));
        assert_eq!((e.line, e.key.as_deref()), (19, Some("memory")), "{e}");
    }
}
