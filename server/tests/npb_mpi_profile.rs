//! `costline profile --ranks 2` on NPB3.4-MPI CG (class S): the benchmark is built with
//! mpif90 and run under mpirun on 2 ranks, twice (as written and instrumented), with
//! a PMPI interposer preloaded (tests/fixtures/profile/mpi_oracle.c, built here with
//! mpicc) that counts each rank's MPI calls by routine, and the elements of those that
//! move one buffer (sends, receives, broadcasts, reductions). The profile's call and
//! element counts (per call site and rank, summed by routine) must equal the
//! interposer's for every rank, and every MPI call site must be measured. After the
//! profile, the timed part (`conj_grad` and the main program's lines between
//! `timer_start(1)` and `timer_stop(1)`) has no count that needs a value and nothing
//! assumed: `naa`, `l2npcols`, `exch_recv_length`, `firstrow`/`lastrow` and `root`
//! are the same on both ranks and bind exactly; `me`, `firstcol` and `lastcol` differ
//! by rank (0/1, 1/701, 700/1400), one value on each: the IF on `me` counts with its
//! measured branch probability (1/2), and a loop over `lastcol-firstcol+1` counts
//! each rank's 700 columns, averaged (exact). And costline's own per-rank figures
//! after the profile (`check --profile`, the process count the profile's: the main
//! program's `mpi_run`, the whole program run on every process) equal the
//! interposer's: per rank the messages sent and received (MPI_SEND and MPI_ISEND
//! calls, MPI_RECV and MPI_IRECV calls), their bytes, the collective calls and their
//! bytes. The corpus is prepared by
//! tests/npb/prepare.sh (as in npb.rs); `npbparams.h` is made again with NPB's own
//! `config/make.def` template (mpif90). Without mpif90, mpicc or mpirun the test
//! fails, or with `COSTLINE_OFFLINE` set is skipped with a message.

mod npb_copy;
mod pmpi_oracle;

use costline_fixtures::network::tools;
use npb_copy::{private_copy, set_params};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

/// Whether mpif90, mpicc and mpirun can be run; `false` (and the test skipped) only
/// offline.
fn mpi(test: &str) -> bool {
    tools(
        test,
        &["mpif90", "mpicc", "mpirun"],
        "apt-get install libopenmpi-dev openmpi-bin",
    )
}

/// A private copy of NPB3.4-MPI (class S) whose CG builds with mpif90.
fn mpi_suite() -> tempfile::TempDir {
    let dir = private_copy("NPB3.4-MPI");
    let config = dir.path().join("config");
    std::fs::copy(config.join("make.def.template"), config.join("make.def")).expect("make.def");
    set_params(dir.path(), "cg");
    dir
}

type ByRank = BTreeMap<String, Vec<u64>>;

#[test]
fn npb_mpi_cg_call_counts_per_rank_are_the_pmpi_layers() {
    let test = "npb_mpi_cg_call_counts_per_rank_are_the_pmpi_layers";
    if !mpi(test) {
        return;
    }
    let suite = mpi_suite();
    let dir = suite.path().join("CG");
    let (launcher, oracle_files) = pmpi_oracle::launcher(suite.path(), 2);
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
    let oracle = pmpi_oracle::counts(&oracle_files);
    assert_eq!((&calls, &elements), (&oracle.calls, &oracle.elements));
    assert!(calls["mpi_send"][0] > 1000, "{calls:?}");
    assert!(
        elements["mpi_send"][0] > calls["mpi_send"][0],
        "{elements:?}"
    );
    let after = report(&dir, true);
    let main = after["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["units"].as_array().unwrap())
        .find(|u| u["name"] == "cg" && u["kind"] == "program")
        .expect("the main program");
    let run = &main["mpi_run"];
    assert_eq!(run["processes"], 2, "the profile's process count: {run}");
    assert_eq!(run["complete"], true, "{run}");
    let want = oracle.figures(2);
    eprintln!("PMPI per rank: {want:?}");
    assert_eq!(pmpi_oracle::costline_figures(&run["ranks"]), want, "{run}");
    timed_part_after_the_profile(&dir);
}

/// `check --format json` of CG-MPI in `dir`, with the profile or without.
fn report(dir: &std::path::Path, profile: bool) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_costline"));
    cmd.args(["check", "--format", "json", "mpinpb.f", "cg_data.f", "cg.f"])
        .args(["print_results.f", "randdp.f", "timers.f"].map(|f| format!("../common/{f}")))
        .current_dir(dir);
    if profile {
        cmd.args(["--profile", ".costline/profile.json"]);
    }
    let out = cmd.output().expect("costline runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

/// The statements of cg.f's timed part in `report` (`conj_grad`'s, and the main
/// program's between `lines`), as (line, metrics); IFs left out (a logical IF
/// shares its line with its statement).
fn timed(report: &Value, lines: (u64, u64)) -> Vec<(u64, Value)> {
    let file = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "cg.f")
        .expect("cg.f");
    let mut out = Vec::new();
    for u in file["units"].as_array().unwrap() {
        for s in u["statements"].as_array().unwrap() {
            let line = s["line"].as_u64().unwrap();
            let main = u["name"] == "cg" && (lines.0..=lines.1).contains(&line);
            if (main || u["name"] == "conj_grad") && s["kind"] != "if" {
                out.push((line, s["metrics"].clone()));
            }
        }
    }
    out
}

/// What in `statements` needs a value or rests on a default, as `line: why`.
fn unknown(statements: &[(u64, Value)]) -> Vec<String> {
    let mut out = Vec::new();
    for (line, m) in statements {
        for x in m["missing"].as_array().into_iter().flatten() {
            if x["code"] == "unknown-count" {
                out.push(format!("{line}: {}", x["what"]));
            }
        }
        for a in m["assumptions"].as_array().into_iter().flatten() {
            let a = a.as_str().unwrap_or("");
            if a.contains("assumed by default") || a.contains("100 assumed") {
                out.push(format!("{line}: {a}"));
            }
        }
    }
    out
}

/// The timed part of the profiled CG-MPI in `dir` (see the module's comment).
fn timed_part_after_the_profile(dir: &std::path::Path) {
    let text = std::fs::read_to_string(dir.join("cg.f")).unwrap();
    // The first line from line `from` holding `what` (blanks and case aside).
    let line_from = |from: usize, what: &str| {
        text.lines()
            .skip(from)
            .position(|l| l.replace(' ', "").to_lowercase().contains(what))
            .unwrap_or_else(|| panic!("cg.f has no `{what}`")) as u64
            + 1
            + from as u64
    };
    let line_of = |what: &str| line_from(0, what);
    let lines = (line_of("calltimer_start(1)"), line_of("calltimer_stop(1)"));
    let conj_grad = line_of("subroutineconj_grad") as usize;
    let before = unknown(&timed(&report(dir, false), lines));
    assert!(
        before.iter().any(|u| u.contains("naa")),
        "{}",
        before.join("\n")
    );
    let after = timed(&report(dir, true), lines);
    let left = unknown(&after);
    assert!(left.is_empty(), "after the profile:\n{}", left.join("\n"));
    let at = |line: u64| {
        after
            .iter()
            .find(|(l, m)| *l == line && m["freq"].is_number())
            .unwrap_or_else(|| panic!("no statement at line {line}"))
            .1
            .clone()
    };
    let says = |m: &Value, text: &str| {
        m["assumptions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|a| a.as_str().unwrap_or("").contains(text))
    };
    // `me` is 0 on one rank, 1 on the other: its IF runs on one rank of two.
    let root = at(line_of("if(me.eq.root)rnorm=sqrt(d)"));
    assert_eq!(
        (root["freq"].as_f64(), &root["exact"]),
        (Some(0.5), &Value::Bool(true)),
        "{root}"
    );
    assert!(
        says(
            &root,
            "with probability 0.5 where no earlier one is (measured"
        ),
        "{root}"
    );
    // `naa` is the same on both ranks: exact.
    let naa = at(line_from(conj_grad, "doj=1,naa+1") + 1);
    assert_eq!(
        (naa["freq"].as_f64(), &naa["exact"]),
        (Some(1401.0), &Value::Bool(true)),
        "{naa}"
    );
    assert!(
        says(&naa, "the value of `naa` is 1400 (measured: profile of "),
        "{naa}"
    );
    // Each rank's 700 columns, counted on each rank and averaged: exact.
    let cols = at(line_from(conj_grad, "doj=1,lastcol-firstcol+1") + 1);
    assert_eq!(
        (cols["freq"].as_f64(), &cols["exact"]),
        (Some(700.0), &Value::Bool(true)),
        "{cols}"
    );
    assert!(
        says(&cols, "`firstcol` is 1, 701 on ranks 0 to 1"),
        "{cols}"
    );
}
