//! The MPI side of training: finding the wrapper compiler and the launchers (one for
//! the ranks of this node, one that puts each rank on its own node), the library they
//! run, and the mpirun command line (oversubscription, Open MPI's refusal to run as
//! root).

use super::exec::Tool;
use std::path::Path;
use std::process::Command;

/// Where a launcher puts its ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// All ranks on this node (`--mpirun`): the intra-node messages.
    ThisNode,
    /// Each rank on a node of its own (`--mpirun-nodes`: a multi-node launch, or
    /// SimGrid's `smpirun` on a platform): the inter-node messages.
    RankPerNode,
}

/// A usable MPI installation.
#[derive(Clone, Debug)]
pub struct Mpi {
    /// `$MPIFC` (default mpif90).
    pub fc: Tool,
    /// `--mpirun` (default mpirun) or `--mpirun-nodes`.
    pub launcher: Tool,
    pub placement: Placement,
    /// First line of `mpirun --version`.
    pub version: String,
    /// Open MPI (needs `--oversubscribe` for more ranks than cores).
    pub open_mpi: bool,
    pub as_root: bool,
    pub cores: u32,
}

impl Mpi {
    /// Checks that both tools run (`--version`); the error says which one does not.
    pub fn find(
        fc: Tool,
        launcher: Tool,
        placement: Placement,
        dir: &Path,
        cores: u32,
    ) -> Result<Mpi, String> {
        fc.version(dir)
            .map_err(|e| format!("the MPI compiler `{}` ($MPIFC) cannot run: {e}", fc.spec))?;
        let option = match placement {
            Placement::ThisNode => "--mpirun",
            Placement::RankPerNode => "--mpirun-nodes",
        };
        let version = launcher.version(dir).map_err(|e| {
            format!(
                "the MPI launcher `{}` ({option}) cannot run: {e}",
                launcher.spec
            )
        })?;
        let open_mpi = version.contains("Open MPI") || version.contains("OpenRTE");
        Ok(Mpi {
            fc,
            launcher,
            placement,
            version,
            open_mpi,
            as_root: super::sysinfo::is_root(),
            cores,
        })
    }

    /// Whether `p` ranks are more than the cores of this node they all run on.
    pub fn oversubscribed(&self, p: u32) -> bool {
        self.placement == Placement::ThisNode && p > self.cores
    }

    /// The `mpi_library` of a machine model measured with this launcher: for SimGrid's
    /// smpirun, `openmpi` with its Open MPI selector (`--cfg=smpi/coll-selector:ompi`)
    /// and `smpi` otherwise (MPICH's selection, which matches SMPI only with
    /// `--cfg=smpi/coll-selector:mpich`: [`Mpi::smpi_selector`]); `openmpi` for Open
    /// MPI; else `mpich` (MPICH and its derivatives: Intel MPI, MVAPICH, Cray MPICH).
    pub fn library(&self) -> &'static str {
        if self.version.contains("SimGrid") {
            if self.smpi_selector() == "ompi" {
                "openmpi"
            } else {
                "smpi"
            }
        } else if self.open_mpi {
            "openmpi"
        } else {
            "mpich"
        }
    }

    /// The collective selector an smpirun launch names (`--cfg=smpi/coll-selector:X`),
    /// else SMPI's `default`.
    pub fn smpi_selector(&self) -> String {
        self.launcher
            .args
            .iter()
            .find_map(|a| a.split_once("smpi/coll-selector:").map(|(_, v)| v))
            .unwrap_or("default")
            .to_string()
    }

    /// `mpirun [--oversubscribe] -n P ./PROGRAM ARGS...`; as root, Open MPI's
    /// OMPI_ALLOW_RUN_AS_ROOT and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM are set (unless the
    /// user set them).
    pub fn command(&self, p: u32, program: &str, args: &[String]) -> Command {
        self.launch(p, &Path::new(".").join(program), args)
    }

    /// `mpirun [--oversubscribe] -n P PROGRAM ARGS...` of the program at `program`,
    /// set up as [`Mpi::command`]'s.
    pub fn launch(&self, p: u32, program: &Path, args: &[String]) -> Command {
        let mut c = self.launcher.command();
        if self.open_mpi && self.oversubscribed(p) {
            c.arg("--oversubscribe");
        }
        c.arg("-n").arg(p.to_string()).arg(program).args(args);
        if self.as_root && self.open_mpi {
            for var in ["OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] {
                if std::env::var_os(var).is_none() {
                    c.env(var, "1");
                }
            }
        }
        c
    }
}
