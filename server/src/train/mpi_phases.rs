//! Phases 5 and 6: the launchers that can run MPI (`--mpirun` for the ranks of this
//! node, `--mpirun-nodes` for a rank per node), the ping-pong under each, and the
//! collectives under the multi-node one where there is one.

use super::TrainArgs;
use super::exec::Tool;
use super::model::Launches;
use super::mpi::{Mpi, Placement};
use super::network;
use super::phases::{self, Ctx};
use super::{collectives, memory, tool_from_env};
use costline_ide::machine::{Collective, NetworkModel};
use std::collections::BTreeMap;

/// The launchers to measure with, each checked and with the MPI programs compiled
/// (phase 1): `--mpirun` (default `mpirun` when `--mpirun-nodes` is not given) and
/// `--mpirun-nodes`. One that cannot run is left out with a note.
pub fn launchers(ctx: &mut Ctx, args: &TrainArgs, flags: &[String], cores: u32) -> Vec<Mpi> {
    if args.no_mpi {
        ctx.notes.push(
            "MPI not measured (--no-mpi): network and collectives from the shipped default model"
                .into(),
        );
        return Vec::new();
    }
    let this_node = match (&args.mpirun, &args.mpirun_nodes) {
        (Some(cmd), _) => Some(cmd.as_str()),
        (None, None) => Some("mpirun"),
        (None, Some(_)) => None,
    };
    let wanted = [
        (this_node, Placement::ThisNode),
        (args.mpirun_nodes.as_deref(), Placement::RankPerNode),
    ];
    let mut out = Vec::new();
    let mut compiled = false;
    for (cmd, placement) in wanted {
        let Some(cmd) = cmd else { continue };
        let mpifc = tool_from_env("MPIFC", "mpif90");
        let found = Mpi::find(
            mpifc,
            Tool::or_default(cmd, "mpirun"),
            placement,
            ctx.dir,
            cores,
        )
        .and_then(|m| {
            if !compiled {
                phases::compile_mpi(ctx, &m, flags)?;
            }
            Ok(m)
        });
        match found {
            Ok(m) => {
                compiled = true;
                ctx.progress
                    .say(&format!("MPI ({}): {}", where_(placement), m.version));
                out.push(m);
            }
            Err(e) => ctx.note(format!(
                "MPI {} not measured ({e}); {}",
                where_(placement),
                match placement {
                    Placement::ThisNode =>
                        "intra-node messages as the other launch or the \
                                            shipped default model",
                    Placement::RankPerNode => "inter-node messages from the shipped default model",
                }
            )),
        }
    }
    out
}

fn where_(placement: Placement) -> &'static str {
    match placement {
        Placement::ThisNode => "between the ranks of this node",
        Placement::RankPerNode => "between nodes",
    }
}

/// What the MPI phases measured (None: the shipped default model's).
pub struct Measured {
    pub launches: Launches,
    pub network: Option<NetworkModel>,
    pub collectives: Option<BTreeMap<String, Collective>>,
}

/// The ping-pong under every launcher, the network model from them, and the
/// collectives under the multi-node launcher (else this node's), fitted against that
/// launch's point-to-point pieces.
pub fn network_and_collectives(ctx: &mut Ctx, launchers: &[Mpi], cores: u32) -> Measured {
    let mut launches = Launches::default();
    let mut fits: Vec<(&Mpi, network::P2p)> = Vec::new();
    if launchers.is_empty() {
        ctx.progress.phase("network: skipped (no MPI)");
    }
    for m in launchers {
        ctx.progress.phase(&format!(
            "network: ping-pong between 2 ranks {} (`{}`), 0 B .. 4 MiB ({} sizes)",
            match m.placement {
                Placement::ThisNode => "of this node",
                Placement::RankPerNode => "on two nodes",
            },
            m.launcher.spec,
            network::sizes(ctx.plan.quick).len()
        ));
        match phases::pingpong(ctx, m) {
            Ok(p) => {
                match m.placement {
                    Placement::ThisNode => launches.this_node = Some(m.launcher.spec.clone()),
                    Placement::RankPerNode => launches.nodes = Some(m.launcher.spec.clone()),
                }
                fits.push((m, p));
            }
            Err(e) => ctx.note(format!(
                "the ping-pong under `{}` failed ({e}): {} not measured",
                m.launcher.spec,
                where_(m.placement)
            )),
        }
        ctx.progress.end_phase();
    }
    let of = |placement| fits.iter().find(|(m, _)| m.placement == placement);
    let intra = of(Placement::ThisNode);
    let inter = of(Placement::RankPerNode);
    // The collectives run where the programs' collectives mostly run: across nodes.
    let Some((mpi, p2p)) = inter.or(intra) else {
        ctx.progress.phase("collectives: skipped (no MPI)");
        return Measured {
            launches,
            network: None,
            collectives: None,
        };
    };
    let library = mpi.library();
    if library == "smpi" && mpi.smpi_selector() != "mpich" {
        ctx.note(format!(
            "smpirun runs SMPI's `{}` collective selector: mpi_library = \"smpi\" prices \
             collectives by MPICH's selection (pass --cfg=smpi/coll-selector:mpich to the \
             launcher for a model that matches)",
            mpi.smpi_selector()
        ));
    }
    let network =
        network::network_model(intra.map(|(_, p)| p), inter.map(|(_, p)| p), cores, library);
    let procs = match mpi.placement {
        Placement::ThisNode => ctx.plan.procs.clone(),
        Placement::RankPerNode => ctx.plan.node_procs.clone(),
    };
    let shown: Vec<String> = procs
        .iter()
        .map(|p| {
            if mpi.oversubscribed(*p) {
                format!("{p} oversubscribed")
            } else {
                p.to_string()
            }
        })
        .collect();
    ctx.progress.phase(&format!(
        "collectives: {} over {} .. {} per process, ranks {} (`{}`)",
        collectives::OPS.join(" "),
        memory::human_bytes(ctx.plan.collective_sizes[0] as f64),
        memory::human_bytes(*ctx.plan.collective_sizes.last().unwrap_or(&0) as f64),
        shown.join(", "),
        mpi.launcher.spec
    ));
    let summary = phases::collectives(ctx, mpi, p2p, &network, &procs);
    ctx.progress.end_phase();
    Measured {
        launches,
        network: Some(network),
        collectives: (!summary.models.is_empty()).then_some(summary.models),
    }
}
