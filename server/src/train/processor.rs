//! The processor and memory parts of a trained model: measured by the training set and
//! the memory programs, or (`--network-only`) kept from an existing model.

use super::kernels;
use super::memory;
use super::phases::{self, Ctx};
use costline_ide::machine::{Catalog, Memory, parse};
use std::collections::BTreeMap;
use std::path::Path;

/// The processor and memory of the model.
#[derive(Clone, Debug)]
pub struct Core {
    pub ops: BTreeMap<String, f64>,
    pub overlap: Option<String>,
    pub window_iterations: Option<f64>,
    pub clock_hz: f64,
    /// The compiler the operation costs were measured with.
    pub compiler: String,
    pub memory: Memory,
    /// The file header's lines about the operation costs.
    pub header: Vec<String>,
    /// The model they were kept from (None: measured now).
    pub kept_from: Option<String>,
}

/// Phases 2–4: the operation costs from the training kernels, the memory latency by
/// pointer chase, the line size and bandwidths.
pub fn measure(
    ctx: &mut Ctx,
    placements: &[String],
    clock_hz: f64,
    compiler: String,
    fallback: &Memory,
) -> Result<Core, String> {
    let plan = ctx.plan;
    ctx.progress.phase(&format!(
        "operations: {} training kernels on L1-resident arrays at {} code placements, {} rounds \
         of one {} ms sample each",
        kernels::KERNELS.len(),
        placements.len(),
        plan.ops_rounds,
        plan.ops_seconds * 1e3
    ));
    let ops = phases::operations(ctx, placements, clock_hz)?;
    for req in costline_ide::machine::ops::REQUIRED {
        if !ops.costs.contains_key(*req) {
            return Err(format!("the training set did not determine `{req}`"));
        }
    }
    ctx.progress.end_phase();

    let sizes = memory::chase_sizes(plan.chase_max_bytes, plan.chase_midpoints);
    ctx.progress.phase(&format!(
        "memory: pointer chase 4 KiB .. {} ({} working sets, {} dependent loads each)",
        memory::human_bytes(plan.chase_max_bytes as f64),
        sizes.len(),
        plan.chase_hops
    ));
    let chase = phases::chase(ctx);
    let levels = phases::levels(ctx, &chase);
    ctx.progress.end_phase();

    ctx.progress.phase(
        "memory: cache line (stride sweep 8 .. 512 B) and triad bandwidth per level and of memory",
    );
    let memory = phases::memory_model(ctx, placements, &chase, &levels, fallback);
    ctx.progress.end_phase();
    Ok(Core {
        header: vec![
            format!(
                "Operation costs: average seconds per operation in compiled loops, fitted to {} \
                 training kernels",
                ops.rows.len()
            ),
            format!(
                "(non-negative least squares on relative error, RMS {:.1}%). Cache bytes are per \
                 core.",
                ops.rel_rms * 100.0
            ),
        ],
        ops: ops.costs,
        overlap: Some(ops.overlap.to_string()),
        window_iterations: ops.window_iterations,
        clock_hz,
        compiler,
        memory,
        kept_from: None,
    })
}

/// The processor and memory of the model at `path` when it is a valid one (a network
/// re-measured into the model it belongs to), else of the shipped default model.
pub fn kept(path: &Path) -> Core {
    let shown = path.display().to_string();
    let (machine, from) = match std::fs::read_to_string(path)
        .ok()
        .and_then(|text| parse(&text, &shown).ok())
    {
        Some(m) => (m, shown),
        None => (
            Catalog::default_machine(),
            "the shipped default model".to_string(),
        ),
    };
    let compiler = machine
        .training
        .as_ref()
        .map_or_else(|| "not measured".to_string(), |t| t.compiler.clone());
    Core {
        header: vec![format!(
            "Operation costs and memory kept from {from} (--network-only)."
        )],
        ops: machine.processor.ops,
        overlap: machine.processor.overlap,
        window_iterations: machine.processor.window_iterations,
        clock_hz: machine.processor.clock_hz,
        compiler,
        memory: machine.memory,
        kept_from: Some(from),
    }
}
