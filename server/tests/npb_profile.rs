//! `costline profile` on NPB3.0-HPF CG and MG (class S): the programs are built with
//! gfortran from their ported text (EXTRINSIC prefixes, NUMBER_OF_PROCESSORS(), ...:
//! `costline_ide::profile`'s port), run serially, and profiled; `profile` succeeding
//! means the instrumented run printed what the original did (save the lines that
//! differ between two runs of the original: its timings). After the profile, the
//! timed part of each benchmark (its timed procedures, and the main program's lines
//! between `timer_start(T_bench)` and `timer_stop(T_bench)`) counts with nothing
//! assumed: no unknown trip count, no assumed probability, no count that needs a
//! value. Before it, both had unknown trip counts there. Nor does any count of the
//! benchmark's file need a value after it (the set-up's too: CG's `sparse` needs
//! `nnza`, which the run records). The profile runs on 4 processors' mappings
//! (`--param p=4`), so CG's irregular gather `z(colidxd(k,j))` (the residual's
//! product, the one read of a mapped array the analysis cannot follow) is recorded:
//! before the profile an upper bound, after it the owner pairs of the elements the
//! run read, complete — one message per pair and run of `conj_grad` (the fetch runs
//! once per run), at most as many elements as the receiver does not own. The corpus
//! is prepared by
//! tests/npb/prepare.sh (as in npb.rs); `npbparams.h` is made again with a
//! `config/make.def` for gfortran, as the NPB build does. Without gfortran the test
//! fails, or with `COSTLINE_OFFLINE` set is skipped with a message.

mod npb_copy;
mod report_comm;

use costline_fixtures::network::tools;
use npb_copy::{private_copy, set_params};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The common files the benchmarks link: the timer as C (`wtime.f` calls a routine
/// gfortran lacks; the NPB Makefiles build `wtime.c`).
const COMMON: &[&str] = &["print_results.f", "randdp.f", "timers.f", "wtime.c"];

/// NPB's `config/make.def` for gfortran (setparams writes the compiler into
/// npbparams.h from it).
const MAKE_DEF: &str = "F77 = gfortran\nFLINK = gfortran\nF_LIB =\nF_INC =\nFFLAGS = -O2\n\
FLINKFLAGS =\nCC = cc\nCLINK = cc\nC_LIB =\nC_INC =\nCFLAGS = -O2\nCLINKFLAGS =\n\
BINDIR = ../bin\nRAND = randdp\nWTIME = wtime.c\n";

/// A private copy of NPB3.0-HPF (class S) whose CG and MG build with gfortran.
fn hpf_suite() -> tempfile::TempDir {
    let dir = private_copy("NPB3.0-HPF");
    std::fs::write(dir.path().join("config/make.def"), MAKE_DEF).expect("make.def");
    for bench in ["cg", "mg"] {
        set_params(dir.path(), bench);
    }
    dir
}

/// Runs `costline ARGS` in `dir`: stdout, stderr, exit code.
fn costline(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_costline"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("costline runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stderr.contains("panicked"), "costline panicked:\n{stderr}");
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        stderr,
        out.status.code().expect("exited normally"),
    )
}

/// `check --format json` of `bench` (its Fortran files; `wtime.f` analyzed in place
/// of `wtime.c`), with the profile or without.
fn report(dir: &Path, bench: &str, profile: bool) -> Value {
    let mut args = vec![format!("{bench}.f")];
    args.extend(
        COMMON
            .iter()
            .map(|f| format!("../common/{}", f.replace(".c", ".f"))),
    );
    args.extend(["--param", "p=4", "--format", "json"].map(String::from));
    if profile {
        args.extend(["--profile", ".costline/profile.json"].map(String::from));
    }
    let mut all = vec!["check"];
    all.extend(args.iter().map(String::as_str));
    let (out, err, code) = costline(dir, &all);
    assert_eq!(code, 0, "check failed:\n{err}");
    serde_json::from_str(&out).expect("a JSON report")
}

/// What in the timed part of `report`'s first file rests on an assumption or an
/// unknown: `unknown-trips` findings and statements whose assumptions say
/// "assumed" or whose metrics miss a count (`unknown-count`), as `line: why`.
fn unknowns(report: &Value, timed_units: &[&str], main_lines: (u64, u64)) -> Vec<String> {
    let file = &report["files"][0];
    let mut ranges: Vec<(u64, u64)> = vec![main_lines];
    for u in file["units"].as_array().expect("units") {
        if timed_units.contains(&u["name"].as_str().unwrap_or("")) {
            ranges.push((u["line"].as_u64().unwrap(), u["end_line"].as_u64().unwrap()));
        }
    }
    let timed = |line: u64| ranges.iter().any(|&(a, b)| (a..=b).contains(&line));
    let mut out = Vec::new();
    for d in file["diagnostics"].as_array().expect("diagnostics") {
        let line = d["line"].as_u64().unwrap();
        if d["code"] == "unknown-trips" && timed(line) {
            out.push(format!("{line}: {}", d["message"]));
        }
    }
    for u in file["units"].as_array().expect("units") {
        for s in u["statements"].as_array().expect("statements") {
            let line = s["line"].as_u64().unwrap();
            if !timed(line) {
                continue;
            }
            let m = &s["metrics"];
            for a in m["assumptions"].as_array().into_iter().flatten() {
                let a = a.as_str().unwrap_or("");
                if a.contains("assumed by default") || a.contains("100 assumed") {
                    out.push(format!("{line}: {a}"));
                }
            }
            for x in m["missing"].as_array().into_iter().flatten() {
                if x["code"] == "unknown-count" {
                    out.push(format!("{line}: {}", x["what"]));
                }
            }
        }
    }
    out
}

/// A communication record: sender, receiver, messages, bytes.
type Record = (u64, u64, f64, f64);

/// The read of `z` at `line` of unit `unit` in `report`'s first file: its reference
/// report, the statement's records and metrics.
fn gathered(report: &Value, unit: &str, line: u64) -> (Value, Vec<Record>, Value) {
    let u = report["files"][0]["units"]
        .as_array()
        .expect("units")
        .iter()
        .find(|u| u["name"] == unit)
        .unwrap_or_else(|| panic!("no unit {unit}"));
    let s = u["statements"]
        .as_array()
        .expect("statements")
        .iter()
        .find(|s| s["line"] == line && s["kind"] == "assign")
        .unwrap_or_else(|| panic!("no assignment at line {line}"));
    let read = s["comm_refs"]
        .as_array()
        .expect("references")
        .iter()
        .find(|r| r["array"] == "z")
        .unwrap_or_else(|| panic!("no read of z: {s}"))
        .clone();
    let records = report_comm::records(s);
    (read, records, s["metrics"].clone())
}

/// The values the counts of `report`'s first file need, as `unit line: what`.
fn needed_values(report: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for u in report["files"][0]["units"].as_array().expect("units") {
        for s in u["statements"].as_array().expect("statements") {
            for x in s["metrics"]["missing"].as_array().into_iter().flatten() {
                if x["code"] == "unknown-count" {
                    out.push(format!("{} {}: {}", u["name"], s["line"], x["what"]));
                }
            }
        }
    }
    out
}

#[test]
fn a_profile_of_cg_and_mg_leaves_nothing_assumed_in_their_timed_parts() {
    let test = "a_profile_of_cg_and_mg_leaves_nothing_assumed_in_their_timed_parts";
    if !tools(test, &["gfortran"], "apt-get install gfortran") {
        return;
    }
    let suite = hpf_suite();
    // (benchmark, its timed procedures, the main program's timed lines).
    let cases: [(&str, &[&str], &str); 2] = [
        ("cg", &["conj_grad"], "t_bench"),
        (
            "mg",
            &[
                "mg3p", "psinv", "resid", "rprj3", "interp", "comm3", "norm2u3",
            ],
            "t_bench",
        ),
    ];
    for (bench, timed_units, timer) in cases {
        let dir = suite.path().join(bench.to_uppercase());
        let text = std::fs::read_to_string(dir.join(format!("{bench}.f"))).unwrap();
        // The line calling `what` (blanks and case aside).
        let line_of = |what: &str| {
            text.lines()
                .position(|l| l.replace(' ', "").to_lowercase().contains(what))
                .unwrap_or_else(|| panic!("{bench}.f has no `{what}`")) as u64
                + 1
        };
        let main_lines = (
            line_of(&format!("calltimer_start({timer})")),
            line_of(&format!("calltimer_stop({timer})")),
        );
        let unprofiled = report(&dir, bench, false);
        let before = unknowns(&unprofiled, timed_units, main_lines);
        assert!(
            !before.is_empty(),
            "{bench}: nothing unknown before the profile"
        );
        let mut args: Vec<String> = ["profile", "--param", "p=4"].map(String::from).to_vec();
        args.push(format!("{bench}.f"));
        args.extend(COMMON.iter().map(|f| format!("../common/{f}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (out, err, code) = costline(&dir, &args);
        assert_eq!(code, 0, "{bench}: profile failed:\n{out}\n{err}");
        let profiled = report(&dir, bench, true);
        let after = unknowns(&profiled, timed_units, main_lines);
        assert!(
            after.is_empty(),
            "{bench}: still unknown after the profile ({} before):\n{}",
            before.len(),
            after.join("\n")
        );
        if bench == "cg" {
            let gather = line_of("r(j)=r(j)+adistr(k,j)*z(colidxd(k,j))");
            let z = |r: &Value| gathered(r, "conj_grad", gather);
            assert_eq!(z(&unprofiled).0["bound"], "upper");
            let (read, records, metrics) = z(&profiled);
            assert_eq!(
                (&read["measured"], &metrics["complete"]),
                (&Value::Bool(true), &Value::Bool(true)),
                "{read}\n{metrics}"
            );
            // BLOCK over 1402 elements on 4: blocks of 351.
            assert!(records.len() >= 4, "{records:?}");
            for &(from, to, messages, bytes) in &records {
                assert!(from != to && messages == 1.0, "{records:?}");
                let owned = if to == 4 { 1402 - 3 * 351 } else { 351 };
                assert!(bytes / 8.0 <= (1402 - owned) as f64, "{records:?}");
            }
            let needed = needed_values(&unprofiled);
            assert!(
                needed.iter().any(|n| n.contains("nnza")),
                "{}",
                needed.join("\n")
            );
        }
        let needed = needed_values(&profiled);
        assert!(
            needed.is_empty(),
            "{bench}: values still needed after the profile:\n{}",
            needed.join("\n")
        );
    }
}
