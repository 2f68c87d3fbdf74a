//! The PMPI oracle of the MPI profile tests: tests/fixtures/profile/mpi_oracle.c built
//! with mpicc and preloaded under mpirun, it counts each rank's calls of each MPI
//! routine and, for the routines that move one buffer, the elements and bytes they
//! pass; and the comparison of what it counted with costline's per-rank figures.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Per routine, a figure of each rank.
pub type ByRank = BTreeMap<String, Vec<u64>>;

/// The oracle built in `dir`: the launcher that preloads it (`mpirun -x ...`) and
/// the files it writes, by rank, for `ranks` ranks.
pub fn launcher(dir: &Path, ranks: usize) -> (String, Vec<PathBuf>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lib = dir.join("liboracle.so");
    let built = Command::new("mpicc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(root.join("tests/fixtures/profile/mpi_oracle.c"))
        .output()
        .expect("mpicc runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let counts_to = dir.join("oracle");
    let launcher = format!(
        "mpirun -x LD_PRELOAD={} -x COSTLINE_ORACLE_OUT={}",
        lib.display(),
        counts_to.display()
    );
    let files = (0..ranks)
        .map(|r| counts_to.with_extension(r.to_string()))
        .collect();
    (launcher, files)
}

/// What the oracle counted: per routine and rank the calls, and of the routines that
/// move one buffer the elements and bytes.
pub struct Oracle {
    pub calls: ByRank,
    pub elements: ByRank,
    pub bytes: ByRank,
}

/// The oracle's counts from `rank_files` (`routine calls [elements bytes]` lines).
pub fn counts(rank_files: &[PathBuf]) -> Oracle {
    let mut o = Oracle {
        calls: ByRank::new(),
        elements: ByRank::new(),
        bytes: ByRank::new(),
    };
    for (r, path) in rank_files.iter().enumerate() {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("the oracle wrote no {}: {e}", path.display()));
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            for (map, word) in [
                (&mut o.calls, words.get(1)),
                (&mut o.elements, words.get(2)),
                (&mut o.bytes, words.get(3)),
            ] {
                if let Some(w) = word {
                    map.entry(words[0].to_string())
                        .or_insert_with(|| vec![0; rank_files.len()])[r] = w.parse().unwrap();
                }
            }
        }
    }
    o
}

/// The per-rank figures costline reports (`RankComm`), by name.
pub type Figures = BTreeMap<&'static str, u64>;

const FIGURES: [&str; 6] = [
    "sends",
    "send_bytes",
    "recvs",
    "recv_bytes",
    "collectives",
    "collective_bytes",
];

impl Oracle {
    /// What the oracle counted of each of `ranks` ranks, as costline names it: the
    /// messages sent (MPI_SEND, MPI_ISEND calls) and received (MPI_RECV, MPI_IRECV),
    /// their bytes, the collective calls (BARRIER, BCAST, REDUCE, ALLREDUCE) and their
    /// bytes.
    pub fn figures(&self, ranks: usize) -> Vec<Figures> {
        let sum = |map: &ByRank, names: &[&str], r: usize| -> u64 {
            names.iter().filter_map(|n| map.get(*n)).map(|v| v[r]).sum()
        };
        let (sends, recvs) = (["mpi_send", "mpi_isend"], ["mpi_recv", "mpi_irecv"]);
        let collectives = ["mpi_barrier", "mpi_bcast", "mpi_reduce", "mpi_allreduce"];
        (0..ranks)
            .map(|r| {
                let values = [
                    sum(&self.calls, &sends, r),
                    sum(&self.bytes, &sends, r),
                    sum(&self.calls, &recvs, r),
                    sum(&self.bytes, &recvs, r),
                    sum(&self.calls, &collectives, r),
                    sum(&self.bytes, &collectives, r),
                ];
                FIGURES.into_iter().zip(values).collect()
            })
            .collect()
    }
}

/// costline's figures of each rank in `ranks` (a report's `mpi_run` or `mpi_ranks`
/// `ranks`), each a whole number but for floating-point rounding (a per-run figure is
/// a quotient).
pub fn costline_figures(ranks: &Value) -> Vec<Figures> {
    ranks
        .as_array()
        .expect("per-rank figures")
        .iter()
        .map(|r| {
            FIGURES
                .into_iter()
                .map(|k| {
                    let v = r[k].as_f64().unwrap_or_else(|| panic!("no {k}: {r}"));
                    let whole = v.round();
                    assert!(
                        (v - whole).abs() <= 1e-9 * whole.max(1.0),
                        "{k} is a whole number: {r}"
                    );
                    (k, whole as u64)
                })
                .collect()
        })
        .collect()
}
