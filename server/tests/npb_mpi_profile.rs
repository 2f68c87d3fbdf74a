//! `costline profile --ranks 2` on NPB3.4-MPI CG (class S): the benchmark is built with
//! mpif90 and run under mpirun on 2 ranks, twice (as written and instrumented), with
//! a PMPI interposer preloaded (tests/fixtures/profile/mpi_oracle.c, built here with
//! mpicc) that counts each rank's MPI calls by routine, and the elements of those that
//! move one buffer (sends, receives, broadcasts, reductions). The profile's call and
//! element counts (per call site and rank, summed by routine) must equal the
//! interposer's for every rank, and every MPI call site must be measured. The corpus is prepared by
//! tests/npb/prepare.sh (as in npb.rs); `npbparams.h` is made again with NPB's own
//! `config/make.def` template (mpif90). Without mpif90, mpicc or mpirun the test
//! fails, or with `COSTLINE_OFFLINE` set is skipped with a message.

mod npb_copy;

use costline_fixtures::network::{offline, skip};
use npb_copy::{private_copy, root, set_params};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// Whether mpif90, mpicc and mpirun can be run; `false` (and the test skipped) only
/// offline.
fn mpi(test: &str) -> bool {
    let runs = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let found = runs("mpif90") && runs("mpicc") && runs("mpirun");
    if !found && offline() {
        skip(
            test,
            "mpif90, mpicc and mpirun",
            "apt-get install libopenmpi-dev openmpi-bin",
        );
        return false;
    }
    assert!(
        found,
        "{test} needs mpif90, mpicc and mpirun (apt-get install libopenmpi-dev openmpi-bin)"
    );
    true
}

/// A private copy of NPB3.4-MPI (class S) whose CG builds with mpif90.
fn mpi_suite() -> tempfile::TempDir {
    let dir = private_copy("NPB3.4-MPI");
    let config = dir.path().join("config");
    std::fs::copy(config.join("make.def.template"), config.join("make.def")).expect("make.def");
    set_params(dir.path(), "cg");
    dir
}

/// Per routine, how many times each rank called it and, for a routine that moves one
/// buffer, how many elements it passed, from `rank_files` (`routine calls [elements]`
/// lines, by rank).
type ByRank = BTreeMap<String, Vec<u64>>;
fn oracle_counts(rank_files: &[PathBuf]) -> (ByRank, ByRank) {
    let (mut calls, mut elements) = (ByRank::new(), ByRank::new());
    for (r, path) in rank_files.iter().enumerate() {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("the oracle wrote no {}: {e}", path.display()));
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            for (map, word) in [(&mut calls, words.get(1)), (&mut elements, words.get(2))] {
                if let Some(w) = word {
                    map.entry(words[0].to_string())
                        .or_insert_with(|| vec![0; rank_files.len()])[r] = w.parse().unwrap();
                }
            }
        }
    }
    (calls, elements)
}

#[test]
fn npb_mpi_cg_call_counts_per_rank_are_the_pmpi_layers() {
    let test = "npb_mpi_cg_call_counts_per_rank_are_the_pmpi_layers";
    if !mpi(test) {
        return;
    }
    let suite = mpi_suite();
    let dir = suite.path().join("CG");
    let oracle = suite.path().join("liboracle.so");
    let built = Command::new("mpicc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&oracle)
        .arg(root().join("tests/fixtures/profile/mpi_oracle.c"))
        .output()
        .expect("mpicc runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let counts_to = suite.path().join("oracle");
    let launcher = format!(
        "mpirun -x LD_PRELOAD={} -x COSTLINE_ORACLE_OUT={}",
        oracle.display(),
        counts_to.display()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_costline"))
        .args(["profile", "--ranks", "2", "--mpirun", &launcher])
        // NPB's mpif.h calls pass scalars and arrays to one routine.
        .args(["--compiler", "mpif90 -O2 -fallow-argument-mismatch"])
        .args(["mpinpb.f", "cg_data.f", "cg.f"])
        .args(["print_results.f", "randdp.f", "timers.f"].map(|f| format!("../common/{f}")))
        .current_dir(&dir)
        .output()
        .expect("costline runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "profile failed:\n{err}");
    let profile: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".costline/profile.json")).unwrap())
            .unwrap();
    assert_eq!(profile["ranks"], 2);
    // Per routine, each rank's calls and elements summed over its call sites.
    let (mut calls, mut elements) = (ByRank::new(), ByRank::new());
    let mut sites = 0;
    for u in profile["units"].as_array().unwrap() {
        for p in u["points"].as_array().unwrap() {
            let map = match p["role"].as_str() {
                Some("call") => {
                    sites += 1;
                    &mut calls
                }
                Some("elements") => &mut elements,
                _ => continue,
            };
            let sum = map
                .entry(p["callee"].as_str().unwrap().to_string())
                .or_insert_with(|| vec![0, 0]);
            for (r, c) in p["ranks"].as_array().unwrap().iter().enumerate() {
                sum[r] += c.as_u64().unwrap();
            }
        }
    }
    // Every CALL MPI_... of the sources has a counter.
    let written: usize = ["mpinpb.f", "cg_data.f", "cg.f"]
        .iter()
        .map(|f| {
            std::fs::read_to_string(dir.join(f))
                .unwrap()
                .lines()
                .filter(|l| !l.starts_with(['c', 'C', '!', '*']))
                .filter(|l| l.to_lowercase().contains("call mpi_"))
                .count()
        })
        .sum();
    assert_eq!(sites, written, "{err}");
    // The routines never called (MPI_ABORT) are not in the oracle's files.
    let never: Vec<String> = calls
        .iter()
        .filter(|(_, c)| c.iter().all(|&n| n == 0))
        .map(|(name, _)| name.clone())
        .collect();
    for name in &never {
        calls.remove(name);
        elements.remove(name);
    }
    // The oracle's files are the last run's: the instrumented program's.
    let oracle = oracle_counts(&[counts_to.with_extension("0"), counts_to.with_extension("1")]);
    assert_eq!((&calls, &elements), (&oracle.0, &oracle.1));
    assert!(calls["mpi_send"][0] > 1000, "{calls:?}");
    assert!(
        elements["mpi_send"][0] > calls["mpi_send"][0],
        "{elements:?}"
    );
}
