//! Putting the measurements together into a [`Machine`], rendering it as a commented
//! TOML file, checking it with the same parser `costline check` uses, and writing it.

use costline_ide::machine::{
    Collective, Machine, Memory, NetworkModel, Processor, Training, parse,
};
use std::collections::BTreeMap;
use std::path::Path;

/// Everything a trained model is made of.
#[derive(Clone, Debug)]
pub struct Parts {
    pub name: String,
    pub host: String,
    pub date: String,
    pub cpu_model: Option<String>,
    pub cores: u32,
    pub clock_hz: f64,
    /// The first line of `$FC --version`.
    pub compiler: String,
    /// `$FC` as the user named it.
    pub fc: String,
    pub flags: String,
    pub quick: bool,
    pub ops: BTreeMap<String, f64>,
    /// How the operations combine: `ports` or `sum` (the better fit).
    pub overlap: Option<String>,
    /// Iterations the out-of-order core runs ahead (fitted with `ports`).
    pub window_iterations: Option<f64>,
    pub memory: Memory,
    pub network: NetworkModel,
    /// The launches that measured `network` (none: it is the shipped default's).
    pub launches: Launches,
    /// Where the processor and memory come from when they were not measured
    /// (`--network-only`): a model's path, or the shipped default.
    pub kept_from: Option<String>,
    pub collectives: BTreeMap<String, Collective>,
    pub notes: Vec<String>,
    pub fit_rel_rms: BTreeMap<String, f64>,
}

/// The launchers whose ping-pongs the network was fitted to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launches {
    /// `--mpirun`: ranks on this node (intra-node segments).
    pub this_node: Option<String>,
    /// `--mpirun-nodes`: a rank per node (inter-node segments, collectives).
    pub nodes: Option<String>,
}

impl Launches {
    pub fn measured(&self) -> bool {
        self.this_node.is_some() || self.nodes.is_some()
    }

    /// What the description says about the network.
    fn describe(&self) -> String {
        match (&self.this_node, &self.nodes) {
            (None, None) => "network: the shipped default model's (MPI was not measured)".into(),
            (Some(_), None) => "network: MPI between the ranks of this node (intra-node \
                 segments); inter-node messages were not measured here and keep the shipped \
                 default model's α, β and hop cost (published InfiniBand HDR figures)"
                .into(),
            (None, Some(cmd)) => format!(
                "network: MPI between ranks on different nodes (inter-node segments, `{cmd}`); \
                 ranks sharing a node were not measured: one rank per node"
            ),
            (Some(_), Some(cmd)) => format!(
                "network: MPI between the ranks of this node (intra-node segments) and between \
                 ranks on different nodes (inter-node segments, `{cmd}`)"
            ),
        }
    }
}

/// The machine model of `parts`.
pub fn assemble(parts: &Parts) -> Machine {
    let cpu = parts
        .cpu_model
        .clone()
        .unwrap_or_else(|| "unknown processor".into());
    let network = parts.launches.describe();
    let mut provenance = format!(
        "measured by costline train on {} ({}, {} {})",
        parts.date, parts.host, parts.fc, parts.flags
    );
    if !parts.launches.measured() {
        provenance.push_str(
            "; network and collectives from the shipped default model (MPI not measured)",
        );
    }
    let measured = match &parts.kept_from {
        Some(from) => {
            provenance.push_str(&format!("; processor and memory kept from {from}"));
            format!("operations and memory from {from}")
        }
        None => "operations and memory measured by costline train".into(),
    };
    Machine {
        name: parts.name.clone(),
        description: format!(
            "{cpu}, {} cores ({}): {measured}; {network}",
            parts.cores, parts.host
        ),
        provenance,
        processor: Processor {
            clock_hz: parts.clock_hz,
            cores: Some(parts.cores),
            overlap: parts.overlap.clone(),
            window_iterations: parts.window_iterations,
            ops: parts.ops.clone(),
        },
        memory: parts.memory.clone(),
        network: parts.network.clone(),
        collectives: parts.collectives.clone(),
        training: Some(Training {
            date: parts.date.clone(),
            compiler: parts.compiler.clone(),
            flags: parts.flags.clone(),
            quick: parts.quick,
            notes: parts.notes.clone(),
            fit_rel_rms: parts.fit_rel_rms.clone(),
        }),
    }
}

/// The file's text: `header` as comment lines, then the model as TOML; parsed back
/// with `costline_ide::machine::parse` so that only a valid model is returned.
pub fn render(machine: &Machine, header: &[String], path: &str) -> Result<String, String> {
    let body = toml::to_string_pretty(machine)
        .map_err(|e| format!("cannot write the model as TOML: {e}"))?;
    let mut text = String::new();
    for line in header {
        text.push_str("# ");
        text.push_str(line);
        text.push('\n');
    }
    text.push('\n');
    text.push_str(&tidy_floats(&body));
    parse(&text, path).map_err(|e| format!("the trained model is not valid: {e}"))?;
    Ok(text)
}

/// Every `key = FLOAT` line with a fractional float to 4 significant digits, in
/// exponent notation outside [10⁻³, 10⁶) (`add_f64 = 2.197e-10` rather than
/// `0.00000000021969058475220656`); whole numbers (`up_to_bytes = 4194304.0`) and
/// other lines unchanged.
pub fn tidy_floats(toml: &str) -> String {
    let mut out = String::with_capacity(toml.len());
    for line in toml.lines() {
        let tidy = line.split_once(" = ").and_then(|(key, value)| {
            let is_float = value.contains(['.', 'e', 'E'])
                && value
                    .chars()
                    .all(|c| c.is_ascii_digit() || "+-.eE".contains(c));
            let v: f64 = value.parse().ok().filter(|_| is_float)?;
            if v.fract() == 0.0 && v.abs() < 1e15 {
                return None;
            }
            Some(format!("{key} = {}", four_digits(v)))
        });
        out.push_str(tidy.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

/// `v` to 4 significant digits as a TOML float.
fn four_digits(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0.0".into();
    }
    let mag = v.abs().log10().floor();
    if (-3.0..6.0).contains(&mag) {
        let decimals = (3.0 - mag).max(1.0) as usize;
        let s = format!("{v:.decimals$}");
        let s = s.trim_end_matches('0');
        if s.ends_with('.') {
            format!("{s}0")
        } else {
            s.to_string()
        }
    } else {
        format!("{v:.3e}")
    }
}

/// Writes `text` to `path`, creating its directory.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use costline_ide::machine::{CacheLevel, Catalog};

    fn parts() -> Parts {
        let default = Catalog::default_machine();
        let ops = costline_ide::machine::ops::REQUIRED
            .iter()
            .map(|k| ((*k).to_string(), 3e-10))
            .collect();
        Parts {
            name: "local".into(),
            host: "vm".into(),
            date: "2026-01-02".into(),
            cpu_model: Some("AMD EPYC".into()),
            cores: 2,
            clock_hz: 2.6e9,
            compiler: "GNU Fortran (Debian 12.2.0-14) 12.2.0".into(),
            fc: "gfortran".into(),
            flags: "-O2".into(),
            quick: true,
            ops,
            overlap: Some("ports".into()),
            window_iterations: Some(12.0),
            memory: Memory {
                cache_line_bytes: 64,
                latency_s: 2e-7,
                bandwidth_bytes_per_s: 3e10,
                strided_line_s: Some(5e-9),
                tlb: None,
                levels: vec![CacheLevel {
                    name: "L1".into(),
                    bytes: 32768,
                    latency_s: 1.3e-9,
                    bandwidth_bytes_per_s: Some(8e10),
                    associativity: Some(8),
                    strided_line_s: None,
                }],
            },
            network: default.network,
            launches: Launches::default(),
            kept_from: None,
            collectives: BTreeMap::new(),
            notes: vec!["MPI not found".into()],
            fit_rel_rms: [("ops".to_string(), 0.1)].into_iter().collect(),
        }
    }

    #[test]
    fn a_rendered_model_parses_back_to_itself() {
        let m = assemble(&parts());
        assert!(
            m.provenance
                .starts_with("measured by costline train on 2026-01-02 (vm, gfortran -O2)")
        );
        assert!(m.provenance.contains("default model"));
        let text = render(&m, &["a header".into()], "x.toml").unwrap();
        assert!(text.starts_with("# a header\n"));
        // The same model, to the 4 digits written.
        let back = parse(&text, "x.toml").unwrap();
        assert_eq!(back.name, m.name);
        assert_eq!(back.training, m.training);
        assert_eq!(back.memory.levels[0].latency_s, 1.3e-9);
        assert_eq!(back.processor.clock_hz, 2.6e9);
    }

    #[test]
    fn floats_are_written_short() {
        let t = tidy_floats(
            "a = 0.00000000021969058475220656\nb = 2596140000.5\nc = 0.216\nn = 32768\ns = \"1.5\"\nz = 0.0\nu = 4194304.0\n",
        );
        assert_eq!(
            t,
            "a = 2.197e-10\nb = 2.596e9\nc = 0.216\nn = 32768\ns = \"1.5\"\nz = 0.0\nu = 4194304.0\n"
        );
        assert_eq!(four_digits(1.0), "1.0");
        assert_eq!(four_digits(123.456), "123.5");
    }

    #[test]
    fn an_invalid_model_is_refused() {
        let mut p = parts();
        p.ops.remove("call");
        let e = render(&assemble(&p), &[], "x.toml").unwrap_err();
        assert!(e.contains("call"), "{e}");
    }
}
