//! The MPI side of training: finding the wrapper compiler and the launcher, and the
//! mpirun command line (oversubscription, Open MPI's refusal to run as root).

use super::exec::Tool;
use std::path::Path;
use std::process::Command;

/// A usable MPI installation.
#[derive(Clone, Debug)]
pub struct Mpi {
    /// `$MPIFC` (default mpif90).
    pub fc: Tool,
    /// `--mpirun` (default mpirun).
    pub launcher: Tool,
    /// First line of `mpirun --version`.
    pub version: String,
    /// Open MPI (needs `--oversubscribe` for more ranks than cores).
    pub open_mpi: bool,
    pub as_root: bool,
    pub cores: u32,
}

impl Mpi {
    /// Checks that both tools run (`--version`); the error says which one does not.
    pub fn find(fc: Tool, launcher: Tool, dir: &Path, cores: u32) -> Result<Mpi, String> {
        fc.version(dir)
            .map_err(|e| format!("the MPI compiler `{}` ($MPIFC) cannot run: {e}", fc.spec))?;
        let version = launcher.version(dir).map_err(|e| {
            format!(
                "the MPI launcher `{}` (--mpirun) cannot run: {e}",
                launcher.spec
            )
        })?;
        let open_mpi = version.contains("Open MPI") || version.contains("OpenRTE");
        Ok(Mpi {
            fc,
            launcher,
            version,
            open_mpi,
            as_root: super::sysinfo::is_root(),
            cores,
        })
    }

    /// Whether `p` ranks are more than the cores.
    pub fn oversubscribed(&self, p: u32) -> bool {
        p > self.cores
    }

    /// `mpirun [--oversubscribe] -n P ./PROGRAM ARGS...`; as root, Open MPI's
    /// OMPI_ALLOW_RUN_AS_ROOT and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM are set (unless the
    /// user set them).
    pub fn command(&self, p: u32, program: &str, args: &[String]) -> Command {
        let mut c = self.launcher.command();
        if self.open_mpi && self.oversubscribed(p) {
            c.arg("--oversubscribe");
        }
        c.arg("-n")
            .arg(p.to_string())
            .arg(format!("./{program}"))
            .args(args);
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
