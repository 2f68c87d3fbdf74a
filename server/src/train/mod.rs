//! `costline train`: measures this machine into a machine model (DESIGN.md section 6)
//! by Balasundaram et al.'s training-set method — time small kernels whose operation
//! counts are known and solve for the cost of each operation — plus the memory
//! hierarchy (pointer chase, triad) and MPI (ping-pong, collectives).
//!
//! The Fortran programs (machines/training/) are built into the binary, written to a
//! scratch directory, compiled with `$FC` (and `$MPIFC`) and the flags the user's
//! programs are compiled with, run, and deleted again.

mod collectives;
mod date;
mod exec;
mod fit;
mod kernels;
mod memory;
mod model;
mod mpi;
mod network;
mod nnls;
mod ops;
mod phases;
mod plan;
mod progress;
mod segmented;
mod sources;
mod sysinfo;

use costline_ide::machine::Catalog;
use exec::Tool;
use phases::Ctx;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of `costline train`.
#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// Where to write the machine model.
    #[arg(long, value_name = "PATH", default_value = "machines/local.toml")]
    pub out: PathBuf,
    /// Measure less (fewer sizes, samples and process counts): under 3 minutes.
    #[arg(long)]
    pub quick: bool,
    /// The model's name (what `--machine NAME` selects).
    #[arg(long, value_name = "NAME", default_value = "local")]
    pub name: String,
    /// The optimization flags your programs are compiled with; the kernels get the
    /// same. The compilers come from $FC (default gfortran) and $MPIFC (default mpif90).
    #[arg(
        long,
        value_name = "FLAGS",
        default_value = "-O2",
        allow_hyphen_values = true
    )]
    pub flags: String,
    /// The MPI launcher.
    #[arg(long, value_name = "CMD", default_value = "mpirun")]
    pub mpirun: String,
    /// Do not measure MPI: the network comes from the shipped default model.
    #[arg(long)]
    pub no_mpi: bool,
}

/// Runs the training; 0 when a model was written, 1 when none could be.
pub fn run(args: &TrainArgs) -> ExitCode {
    match train(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            progress::err(&format!("costline train: {e}"));
            ExitCode::from(1)
        }
    }
}

/// A command from an environment variable, or its default.
fn tool_from_env(var: &str, default: &str) -> Tool {
    Tool::or_default(&std::env::var(var).unwrap_or_default(), default)
}

fn train(args: &TrainArgs) -> Result<(), String> {
    let plan = plan::Plan::new(args.quick);
    let flags: Vec<String> = args.flags.split_whitespace().map(str::to_string).collect();
    let fc = tool_from_env("FC", "gfortran");
    let work = sources::Workdir::create()?;
    let compiler = fc.version(work.path()).map_err(|e| {
        format!(
            "no Fortran compiler: `{}` (from $FC, default gfortran) cannot run ({e}). \
             Nothing can be measured without one: install gfortran or set FC to your \
             Fortran compiler.",
            fc.spec
        )
    })?;
    let default = Catalog::default_machine();
    let cores = sysinfo::cores();
    let host = sysinfo::hostname();
    let mut ctx = Ctx {
        dir: work.path(),
        plan: &plan,
        progress: progress::Progress::new(7),
        notes: Vec::new(),
        fit_rel_rms: BTreeMap::new(),
    };
    let (clock_hz, clock_source) = sysinfo::clock_hz().unwrap_or((1e9, "nothing"));
    if clock_source == "nothing" {
        ctx.notes
            .push("clock_hz unknown (no /proc/cpuinfo, cpufreq or BogoMIPS): 1 GHz assumed".into());
    }
    progress::err(&format!(
        "costline train{}: {} ({} cores, {:.2} GHz by {clock_source}), {compiler}, flags {}",
        if plan.quick { " --quick" } else { "" },
        host,
        cores,
        clock_hz / 1e9,
        args.flags
    ));

    let cpu_at_start = sysinfo::cpu_sample();

    // 1. Compile.
    ctx.progress.phase(&format!(
        "compile: training kernels and drivers with `{} {}`{}",
        fc.spec,
        args.flags,
        if args.no_mpi {
            ""
        } else {
            ", MPI programs with $MPIFC"
        }
    ));
    let placements = phases::compile_serial(&mut ctx, &fc, &flags)?;
    let mpi = if args.no_mpi {
        ctx.notes.push(
            "MPI not measured (--no-mpi): network and collectives from the shipped default model"
                .into(),
        );
        None
    } else {
        let mpifc = tool_from_env("MPIFC", "mpif90");
        let launcher = Tool::or_default(&args.mpirun, "mpirun");
        match mpi::Mpi::find(mpifc, launcher, ctx.dir, cores)
            .and_then(|m| phases::compile_mpi(&ctx, &m, &flags).map(|()| m))
        {
            Ok(m) => {
                ctx.progress.say(&format!("MPI: {}", m.version));
                Some(m)
            }
            Err(e) => {
                ctx.note(format!(
                    "MPI not measured ({e}); network and collectives from the shipped default model"
                ));
                None
            }
        }
    };
    ctx.progress.end_phase();

    // 2. Operations.
    ctx.progress.phase(&format!(
        "operations: {} training kernels on L1-resident arrays at {} code placements, {} rounds \
         of one {} ms sample each",
        kernels::KERNELS.len(),
        placements.len(),
        plan.ops_rounds,
        plan.ops_seconds * 1e3
    ));
    let ops = phases::operations(&mut ctx, &placements, clock_hz)?;
    for req in costline_ide::machine::ops::REQUIRED {
        if !ops.costs.contains_key(*req) {
            return Err(format!("the training set did not determine `{req}`"));
        }
    }
    ctx.progress.end_phase();

    // 3. Memory latency.
    let sizes = memory::chase_sizes(plan.chase_max_bytes, plan.chase_midpoints);
    ctx.progress.phase(&format!(
        "memory: pointer chase 4 KiB .. {} ({} working sets, {} dependent loads each)",
        memory::human_bytes(plan.chase_max_bytes as f64),
        sizes.len(),
        plan.chase_hops
    ));
    let chase = phases::chase(&mut ctx);
    let levels = phases::levels(&mut ctx, &chase);
    ctx.progress.end_phase();

    // 4. Line size and bandwidth.
    ctx.progress.phase(
        "memory: cache line (stride sweep 8 .. 512 B) and triad bandwidth per level and of memory",
    );
    let memory = phases::memory_model(&mut ctx, &placements, &chase, &levels, &default.memory);
    ctx.progress.end_phase();

    // 5. Point to point.
    let mut network = default.network.clone();
    let mut collectives = default.collectives.clone();
    let mut network_measured = false;
    let p2p = match &mpi {
        Some(m) => {
            ctx.progress.phase(&format!(
                "network: ping-pong between 2 ranks, 0 B .. 4 MiB ({} sizes)",
                network::sizes(plan.quick).len()
            ));
            let r = phases::pingpong(&mut ctx, m);
            let r = match r {
                Ok(p) => Some(p),
                Err(e) => {
                    ctx.note(format!(
                        "MPI not measured ({e}); network and collectives from the shipped default model"
                    ));
                    None
                }
            };
            ctx.progress.end_phase();
            r
        }
        None => {
            ctx.progress.phase("network: skipped (no MPI)");
            None
        }
    };
    if let Some(p2p) = &p2p {
        network = network::network_model(p2p, cores);
        network_measured = true;
    }

    // 6. Collectives.
    match (&mpi, &p2p) {
        (Some(m), Some(p2p)) => {
            let procs: Vec<String> = plan
                .procs
                .iter()
                .map(|p| {
                    if m.oversubscribed(*p) {
                        format!("{p} oversubscribed")
                    } else {
                        p.to_string()
                    }
                })
                .collect();
            ctx.progress.phase(&format!(
                "collectives: {} over {} .. {} per process, ranks {}",
                collectives::OPS.join(" "),
                memory::human_bytes(plan.collective_sizes[0] as f64),
                memory::human_bytes(*plan.collective_sizes.last().unwrap_or(&0) as f64),
                procs.join(", ")
            ));
            let summary = phases::collectives(&mut ctx, m, p2p);
            if !summary.models.is_empty() {
                collectives = summary.models;
            }
            ctx.progress.end_phase();
        }
        _ => ctx.progress.phase("collectives: skipped (no MPI)"),
    }

    // Other work on the machine meanwhile.
    let others = cpu_at_start
        .zip(sysinfo::cpu_sample())
        .and_then(|(a, b)| sysinfo::others_share(a, b));
    if let Some(share) = others.filter(|s| *s > 0.15) {
        ctx.note(format!(
            "other work used {:.0}% of the {cores} cores while training ran: it slows the \
             kernels and above all the MPI ranks, so the times are pessimistic; train on an \
             idle machine for a model of the machine itself",
            share * 100.0
        ));
    }

    // 7. The model.
    ctx.progress
        .phase(&format!("model: write {}", args.out.display()));
    let date = date::today();
    let parts = model::Parts {
        name: args.name.clone(),
        host: host.clone(),
        date: date.clone(),
        cpu_model: sysinfo::cpu_model(),
        cores,
        clock_hz,
        compiler,
        fc: fc.spec.clone(),
        flags: args.flags.clone(),
        quick: plan.quick,
        ops: ops.costs.clone(),
        overlap: Some(ops.overlap.to_string()),
        memory,
        network,
        network_measured,
        collectives,
        notes: ctx.notes.clone(),
        fit_rel_rms: ctx.fit_rel_rms.clone(),
    };
    let machine = model::assemble(&parts);
    let header = vec![
        format!(
            "Machine model `{}` of {host}, measured by `costline train{}` on {date} ({} {}).",
            args.name,
            if plan.quick { " --quick" } else { "" },
            fc.spec,
            args.flags
        ),
        format!(
            "Operation costs: average seconds per operation in compiled loops, fitted to {} \
             training kernels",
            ops.rows.len()
        ),
        format!(
            "(non-negative least squares on relative error, RMS {:.1}%). Cache bytes are per core.",
            ops.rel_rms * 100.0
        ),
        "Measure again with `costline train`; the fields are described in DESIGN.md section 6."
            .into(),
    ];
    let shown = args.out.display().to_string();
    let text = model::render(&machine, &header, &shown)?;
    model::write(&args.out, &text)?;
    ctx.progress.say(&format!(
        "wrote {shown} ({} operations, {} cache levels, {} network segments, {} collectives)",
        machine.processor.ops.len(),
        machine.memory.levels.len(),
        machine.network.segments.len(),
        machine.collectives.len()
    ));
    progress::err(&format!(
        "costline train: done in {:.1} s",
        ctx.progress.elapsed_s()
    ));
    Ok(())
}
