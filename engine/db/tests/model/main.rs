//! The model's analyses (costline-model) on small programs lowered and analysed through
//! the database: counts, mappings and work, remapping, dependence, cache layer
//! conditions, the operations of a statement.

mod cache_share;
mod compiler_report;
mod datatypes;
mod default_grid;
mod dependence;
mod distribution;
mod dynamic;
mod freq;
mod in_core;
mod initial_values;
mod intrinsics;
mod mpi_ranks;
mod ops;
mod program_run;
mod remap;
mod section_calls;
mod set_up_tables;
mod setup_code;
mod vectorize;
mod work;

/// The first unit of `text` (free form), analysed.
fn unit(text: &str) -> costline_db::project::UnitAnalysis {
    let files = costline_db::project::analyze(
        &[("t.f90".into(), text.as_bytes().to_vec())],
        &std::collections::BTreeMap::new(),
    );
    let mut file = files.into_iter().next().unwrap().unwrap();
    file.units.remove(0)
}

/// The value of each loop's count in `u`, in order (`None`: unknown).
fn loop_counts(u: &costline_db::project::UnitAnalysis) -> Vec<Option<f64>> {
    let mut out = Vec::new();
    u.unit.walk(&mut |s, _| {
        if let costline_syntax::ir::StmtKind::Loop(_) = s.kind {
            out.push(u.values.value(s.id));
        }
    });
    out
}
