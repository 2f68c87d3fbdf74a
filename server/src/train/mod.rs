//! `costline train`: measures this machine into a machine model (DESIGN.md section 6)
//! by Balasundaram et al.'s training-set method — time small kernels whose operation
//! counts are known and solve for the cost of each operation — plus the memory
//! hierarchy (pointer chase, triad) and MPI (ping-pong, collectives).
//!
//! The Fortran programs (machines/training/) are built into the binary, written to a
//! scratch directory, compiled with `$FC` (and `$MPIFC`) and the flags the user's
//! programs are compiled with, run, and deleted again.

mod collectives;
pub(crate) mod date;
pub(crate) mod exec;
mod fit;
mod kernels;
mod memory;
mod model;
pub(crate) mod mpi;
mod mpi_phases;
mod network;
mod nnls;
mod ops;
mod phases;
mod plan;
mod processor;
mod progress;
mod segmented;
mod sources;
pub(crate) mod sysinfo;

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
    /// The MPI launcher for ranks on this node (the intra-node segments); `mpirun`
    /// unless only --mpirun-nodes is given.
    #[arg(long, value_name = "CMD")]
    pub mpirun: Option<String>,
    /// A launch that puts each rank on a node of its own — `mpirun --map-by node
    /// --hostfile H`, or SimGrid's `smpirun -platform P -hostfile H
    /// --cfg=smpi/simulate-computation:0` with MPIFC=smpif90: the inter-node segments
    /// and the collectives are measured with it.
    #[arg(long, value_name = "CMD")]
    pub mpirun_nodes: Option<String>,
    /// Do not measure MPI: the network comes from the shipped default model.
    #[arg(long, conflicts_with_all = ["mpirun", "mpirun_nodes", "network_only"])]
    pub no_mpi: bool,
    /// Measure MPI only: the processor and memory are kept from the model at --out
    /// when there is one, else from the shipped default model.
    #[arg(long)]
    pub network_only: bool,
    /// How the operations of an iteration combine in the model: `ports` (an
    /// out-of-order core: each port's operations overlap the others', the busiest
    /// decides), `sum` (an in-order core: they add up), or `auto`, the one whose fit
    /// of the training kernels is closer. The training kernels are mostly one
    /// statement per loop, where the two fit about equally well (17.2 % and 17.3 %
    /// RMS on an AMD EPYC VM); on loops with several statements only `ports`
    /// generalizes (64 % against 46 % of the random validation kernels of seeds 1-3
    /// within 25 % there, cache-resident sizes).
    #[arg(long, value_enum, default_value_t = Overlap::Ports)]
    pub overlap: Overlap,
}

/// The overlap model `costline train` fits (`--overlap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Overlap {
    Auto,
    Ports,
    Sum,
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
pub(crate) fn tool_from_env(var: &str, default: &str) -> Tool {
    Tool::or_default(&std::env::var(var).unwrap_or_default(), default)
}

/// How many phases the run has: compile, operations and memory (three, unless
/// `--network-only`), a ping-pong per launcher (or the skipped network), collectives,
/// the model.
fn phases_of(args: &TrainArgs) -> usize {
    let pingpongs = if args.no_mpi {
        1
    } else {
        usize::from(args.mpirun_nodes.is_some())
            + usize::from(args.mpirun.is_some() || args.mpirun_nodes.is_none())
    };
    let measured = if args.network_only { 0 } else { 3 };
    1 + measured + pingpongs + 2
}

fn train(args: &TrainArgs) -> Result<(), String> {
    let plan = plan::Plan::new(args.quick, args.overlap);
    let flags: Vec<String> = args.flags.split_whitespace().map(str::to_string).collect();
    let fc = tool_from_env("FC", "gfortran");
    let work = sources::Workdir::create()?;
    let default = Catalog::default_machine();
    let cores = sysinfo::cores();
    let host = sysinfo::hostname();
    let mut ctx = Ctx {
        dir: work.path(),
        plan: &plan,
        progress: progress::Progress::new(phases_of(args)),
        notes: Vec::new(),
        fit_rel_rms: BTreeMap::new(),
    };
    let compiler = if args.network_only {
        None
    } else {
        Some(fc.version(work.path()).map_err(|e| {
            format!(
                "no Fortran compiler: `{}` (from $FC, default gfortran) cannot run ({e}). \
                 Nothing can be measured without one: install gfortran or set FC to your \
                 Fortran compiler.",
                fc.spec
            )
        })?)
    };
    let (clock_hz, clock_source) = sysinfo::clock_hz().unwrap_or((1e9, "nothing"));
    if clock_source == "nothing" && !args.network_only {
        ctx.notes
            .push("clock_hz unknown (no /proc/cpuinfo, cpufreq or BogoMIPS): 1 GHz assumed".into());
    }
    progress::err(&format!(
        "costline train{}{}: {} ({} cores, {:.2} GHz by {clock_source}), {}, flags {}",
        if plan.quick { " --quick" } else { "" },
        if args.network_only {
            " --network-only"
        } else {
            ""
        },
        host,
        cores,
        clock_hz / 1e9,
        compiler.as_deref().unwrap_or("MPI only"),
        args.flags
    ));

    let cpu_at_start = sysinfo::cpu_sample();

    // 1. Compile.
    ctx.progress.phase(&format!(
        "compile: {}{}",
        if args.network_only {
            String::new()
        } else {
            format!(
                "training kernels and drivers with `{} {}`, ",
                fc.spec, args.flags
            )
        },
        if args.no_mpi {
            "MPI not measured"
        } else {
            "MPI programs with $MPIFC"
        }
    ));
    let placements = match &compiler {
        Some(version) => {
            let gnu = version.contains("GNU Fortran");
            if gnu {
                ctx.notes.push(
                    "operation costs measured on scalar code (kernels built with \
                     -fno-tree-vectorize): a loop the compiler vectorizes is priced at 1/lanes \
                     of them"
                        .into(),
                );
            }
            phases::compile_serial(&mut ctx, &fc, &flags, gnu)?
        }
        None => Vec::new(),
    };
    let launchers = mpi_phases::launchers(&mut ctx, args, &flags, cores);
    if args.network_only && launchers.is_empty() {
        return Err("--network-only, but MPI cannot be measured (see the note above)".into());
    }
    ctx.progress.end_phase();

    // 2.–4. Operations and memory, or the model they are kept from.
    let processor = match compiler {
        Some(compiler) => {
            processor::measure(&mut ctx, &placements, clock_hz, compiler, &default.memory)?
        }
        None => {
            let kept = processor::kept(&args.out);
            ctx.progress.say(&format!(
                "processor and memory kept from {}",
                kept.kept_from.as_deref().unwrap_or("?")
            ));
            kept
        }
    };

    // 5.–6. The network and the collectives.
    let measured = mpi_phases::network_and_collectives(&mut ctx, &launchers, cores);
    let launches = measured.launches.clone();
    let network = measured.network.unwrap_or_else(|| default.network.clone());
    let collectives = measured
        .collectives
        .unwrap_or_else(|| default.collectives.clone());

    // Other work on the machine meanwhile (a simulated network is not slowed by it).
    let simulated = args.network_only && launchers.iter().all(|m| m.version.contains("SimGrid"));
    let others = cpu_at_start
        .filter(|_| !simulated)
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
        clock_hz: processor.clock_hz,
        compiler: processor.compiler,
        fc: fc.spec.clone(),
        flags: args.flags.clone(),
        quick: plan.quick,
        ops: processor.ops,
        overlap: processor.overlap,
        window_iterations: processor.window_iterations,
        memory: processor.memory,
        network,
        launches,
        kept_from: processor.kept_from,
        collectives,
        notes: ctx.notes.clone(),
        fit_rel_rms: ctx.fit_rel_rms.clone(),
    };
    let machine = model::assemble(&parts);
    let mut header = vec![format!(
        "Machine model `{}` of {host}, measured by `costline train{}{}` on {date} ({} {}).",
        args.name,
        if plan.quick { " --quick" } else { "" },
        if args.network_only {
            " --network-only"
        } else {
            ""
        },
        fc.spec,
        args.flags
    )];
    header.extend(processor.header);
    header.push(
        "Measure again with `costline train`; the fields are described in DESIGN.md section 6."
            .into(),
    );
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
