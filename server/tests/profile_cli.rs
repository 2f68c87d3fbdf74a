//! `costline profile` as users run it: the real binary builds the fixtures of
//! tests/fixtures/profile with gfortran, runs them once with counters, and `check
//! --profile` counts with what they measured. The expected counts come from running
//! the fixtures' arithmetic here (their data are linear congruential sequences), not
//! from costline. Without gfortran the tests fail, or with `COSTLINE_OFFLINE` set are
//! skipped with a message.

mod pmpi_oracle;
mod report_comm;

use costline_fixtures::network::tools;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether gfortran can be run; `false` (and the test skipped) only offline.
fn gfortran(test: &str) -> bool {
    tools(test, &["gfortran"], "apt-get install gfortran")
}

/// A private copy of the profile fixtures.
fn fixtures() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/profile");
    for entry in std::fs::read_dir(&from).expect("tests/fixtures/profile") {
        let path = entry.expect("an entry").path();
        std::fs::copy(&path, dir.path().join(path.file_name().expect("a name"))).expect("a copy");
    }
    dir
}

/// Runs `costline ARGS` in `dir`: stdout, stderr and the exit code.
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

/// Profiles `files` in `dir` and returns `check --profile --format json`'s report.
fn profiled(dir: &Path, files: &[&str]) -> Value {
    let mut args = vec!["profile"];
    args.extend(files);
    let (out, err, code) = costline(dir, &args);
    assert_eq!(code, 0, "profile failed:\n{out}\n{err}");
    assert!(dir.join(".costline/profile.json").is_file(), "{out}");
    report(dir, files, true)
}

/// `check --format json` of `files` in `dir`, with the profile or without.
fn report(dir: &Path, files: &[&str], with_profile: bool) -> Value {
    let mut args = vec!["check", "--format", "json"];
    if with_profile {
        args.extend(["--profile", ".costline/profile.json"]);
    }
    args.extend(files);
    let (out, err, code) = costline(dir, &args);
    assert_eq!(code, 0, "check failed:\n{err}");
    serde_json::from_str(&out).expect("a JSON report")
}

/// The metrics of the assignment at `line` of unit `unit` in file `file` of `report`.
fn statement<'a>(report: &'a Value, file: &str, unit: &str, line: u64) -> &'a Value {
    let f = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == file)
        .unwrap_or_else(|| panic!("no file {file}"));
    let u = f["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == unit)
        .unwrap_or_else(|| panic!("no unit {unit}"));
    let s = u["statements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["line"] == line && s["kind"] == "assign")
        .unwrap_or_else(|| panic!("no assignment at {file}:{line}"));
    &s["metrics"]
}

/// The count of a statement, and whether it is exact.
fn count(m: &Value) -> (f64, bool) {
    (
        m["freq"].as_f64().unwrap_or(f64::NAN),
        m["exact"].as_bool().unwrap_or(false),
    )
}

/// Whether an assumption of `m` contains `text`.
fn assumes(m: &Value, text: &str) -> bool {
    m["assumptions"].as_array().is_some_and(|a| {
        a.iter()
            .any(|s| s.as_str().is_some_and(|s| s.contains(text)))
    })
}

/// The sequence of branches.f90: v(i) = (37 v(i-1) + 11) mod 101, v(0) = 7.
fn branches_data() -> Vec<i64> {
    let mut seed = 7;
    (0..100)
        .map(|_| {
            seed = (seed * 37 + 11) % 101;
            seed
        })
        .collect()
}

#[test]
fn counts_after_a_profile_are_the_counts_of_the_run() {
    if !gfortran("counts_after_a_profile_are_the_counts_of_the_run") {
        return;
    }
    let dir = fixtures();
    let v = branches_data();
    let n = |f: &dyn Fn(i64) -> bool| v.iter().filter(|&&x| f(x)).count() as f64;
    let r = profiled(dir.path(), &["branches.f90"]);
    let at = |line| count(statement(&r, "branches.f90", "branches", line));
    // IF / ELSE IF / ELSE.
    assert_eq!(at(17), (n(&|x| x < 20), true));
    assert_eq!(at(19), (n(&|x| (20..60).contains(&x)), true));
    assert_eq!(at(21), (n(&|x| x >= 60), true));
    // The logical IF.
    assert_eq!(at(23), (n(&|x| x % 2 == 0), true));
    // SELECT CASE without CASE DEFAULT.
    assert_eq!(at(26), (n(&|x| x % 3 == 0), true));
    assert_eq!(at(28), (n(&|x| x % 3 == 1), true));
    // The DO WHILE halves hits until it is at most 1: as many times as hits has bits.
    let hits: i64 = v
        .iter()
        .map(|&x| {
            let branch = if x < 20 {
                1
            } else if x < 60 {
                2
            } else {
                3
            };
            let even = i64::from(x % 2 == 0);
            let case = match x % 3 {
                0 => 10,
                1 => -1,
                _ => 0,
            };
            branch + even + case
        })
        .sum();
    let bits = (64 - (hits as u64).leading_zeros() - 1) as f64;
    assert_eq!(
        at(35),
        (bits + f64::from(u8::from(hits & (hits - 1) != 0)), true)
    );
    // The GO TO loop adds elements until the sum passes 500.
    let mut sum = 0;
    let added = v.iter().take_while(|&&x| {
        sum += x;
        sum - x < 500
    });
    let m = added.count() as f64;
    assert_eq!(at(42), (m, true));
    // The branch probabilities are the measured ones, and said to be.
    let first = statement(&r, "branches.f90", "branches", 17);
    let p = n(&|x| x < 20) / 100.0;
    assert!(
        assumes(
            first,
            &format!("probability {p} where no earlier one is (measured: profile of")
        ),
        "{first}"
    );
    // `profile` in costline.toml does what `--profile` does (for the editor too).
    std::fs::write(
        dir.path().join("costline.toml"),
        "profile = \".costline/profile.json\"\n",
    )
    .unwrap();
    let from_settings = report(dir.path(), &["branches.f90"], false);
    assert_eq!(
        count(statement(&from_settings, "branches.f90", "branches", 17)),
        (n(&|x| x < 20), true)
    );
    std::fs::remove_file(dir.path().join("costline.toml")).unwrap();
    // Without the profile the same statements are estimates.
    let assumed = report(dir.path(), &["branches.f90"], false);
    let first = statement(&assumed, "branches.f90", "branches", 17);
    assert_eq!(count(first), (50.0, false));
    assert!(assumes(first, "assumed by default"), "{first}");
}

/// The sequence of loops.f: v(1) = 3, v(i) = (13 v(i-1) + 5) mod 97.
fn loops_data() -> Vec<i64> {
    let mut v = vec![3];
    for i in 1..50 {
        v.push((v[i - 1] * 13 + 5) % 97);
    }
    v
}

#[test]
fn fixed_form_include_files_and_several_files_are_profiled() {
    if !gfortran("fixed_form_include_files_and_several_files_are_profiled") {
        return;
    }
    let dir = fixtures();
    let v = loops_data();
    let r = profiled(dir.path(), &["loops.f", "counts.f90"]);
    let at = |file, unit, line| count(statement(&r, file, unit, line));
    // The IF of the included file, counted where it is included.
    let big = v.iter().filter(|&&x| x > 50).count() as f64;
    assert_eq!(at("loops.f", "loops", 12), (big, true));
    // The GO TO loop from label 40: its labelled logical IF and the statements after.
    let (mut j, mut runs, mut taken) = (1usize, 0.0, 0.0);
    loop {
        runs += 1.0;
        if v[j - 1] > 10 {
            j += 2;
            taken += 1.0;
        }
        j += 1;
        if j >= 40 {
            break;
        }
    }
    assert_eq!(at("loops.f", "loops", 15), (taken, true));
    assert_eq!(at("loops.f", "loops", 16), (runs, true));
    // The DO WHILE.
    let mut n = 0;
    while n * n < v[6] * 50 {
        n += 1;
    }
    assert_eq!(at("loops.f", "loops", 20), (n as f64, true));
    // The logical IF of the subroutine in the other file.
    let rising = v.windows(2).filter(|w| w[1] > w[0]).count() as f64;
    assert_eq!(at("counts.f90", "counts", 9), (rising, true));
}

#[test]
fn a_changed_unit_is_stale_and_counts_as_assumed() {
    if !gfortran("a_changed_unit_is_stale_and_counts_as_assumed") {
        return;
    }
    let dir = fixtures();
    profiled(dir.path(), &["loops.f", "counts.f90"]);
    let path = dir.path().join("counts.f90");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("total = total + 1", "total = total + 2"),
    )
    .unwrap();
    let r = report(dir.path(), &["loops.f", "counts.f90"], true);
    // The changed unit: a finding, and its counts assumed again.
    let f = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "counts.f90")
        .unwrap();
    let stale: Vec<&Value> = f["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "stale-profile")
        .collect();
    assert_eq!(stale.len(), 1, "{f}");
    assert_eq!(stale[0]["line"], 2);
    assert_eq!(
        count(statement(&r, "counts.f90", "counts", 9)),
        (24.5, false)
    );
    // The unchanged one keeps its measurements.
    assert!(count(statement(&r, "loops.f", "loops", 12)).1);
}

#[test]
fn a_program_that_does_not_compile_or_run_is_an_error_with_its_message() {
    if !gfortran("a_program_that_does_not_compile_or_run_is_an_error_with_its_message") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| -> PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    write(
        "bad.f90",
        "program bad\n  integer :: x\n  x = = 1\nend program bad\n",
    );
    let (_, err, code) = costline(dir.path(), &["profile", "bad.f90"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("does not compile"), "{err}");
    assert!(
        err.contains("bad.f90:3"),
        "the compiler's message, at the user's file: {err}"
    );
    write(
        "fails.f90",
        "program fails\n  integer :: x\n  read (*, *, iostat=x) x\n  if (x /= 0) error stop 'no input'\nend program fails\n",
    );
    let (_, err, code) = costline(dir.path(), &["profile", "fails.f90"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("the program failed") && err.contains("no input"),
        "{err}"
    );
    write(
        "forever.f90",
        "program forever\n  real :: x\n  x = 1.0\n  do while (x > 0.0)\n    x = x + 1.0\n  end do\n  print *, x\nend program forever\n",
    );
    let start = std::time::Instant::now();
    let (_, err, code) = costline(dir.path(), &["profile", "--timeout", "1", "forever.f90"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("did not finish within 1 s"), "{err}");
    assert!(start.elapsed().as_secs() < 30);
}

#[test]
fn loops_over_bounds_read_from_input_are_measured() {
    if !gfortran("loops_over_bounds_read_from_input_are_measured") {
        return;
    }
    let dir = fixtures();
    let (out, err, code) = costline(
        dir.path(),
        &["profile", "--stdin", "bounds.in", "bounds.f90"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("no arguments, input `bounds.in`"), "{out}");
    let r = report(dir.path(), &["bounds.f90"], true);
    let at = |line| count(statement(&r, "bounds.f90", "bounds", line));
    let n: i64 = std::fs::read_to_string(dir.path().join("bounds.in"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // A DO over 1..n that a GO TO runs 3 times: both measured at one labelled DO.
    assert_eq!(at(10), ((3 * n) as f64, true));
    assert_eq!(at(12), (3.0, true));
    // An inner loop over a bound the outer one computes.
    let inner: i64 = (1..=n).map(|i| (i * 7) % 5).sum();
    assert_eq!(at(15), (n as f64, true));
    assert_eq!(at(17), (inner as f64, true));
}

#[test]
fn values_the_counts_need_are_recorded_and_bind_their_unit_only() {
    if !gfortran("values_the_counts_need_are_recorded_and_bind_their_unit_only") {
        return;
    }
    let dir = fixtures();
    let files = ["values.f90"];
    let before = report(dir.path(), &files, false);
    let needs =
        |r: &Value, unit: &str, line: u64| statement(r, "values.f90", unit, line)["needs"].clone();
    assert_eq!(needs(&before, "work", 30), json!(["n"]));
    assert_eq!(needs(&before, "scaled", 41), json!(["m"]));
    let (out, err, code) = costline(
        dir.path(),
        &["profile", "--stdin", "values.in", "values.f90"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("3 value(s) recorded"), "{out}");
    let n: i64 = std::fs::read_to_string(dir.path().join("values.in"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let m = (n * 7) % 5 + 2;
    // The profile says what each unit recorded, and that `k` varied between calls.
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".costline/profile.json")).unwrap(),
    )
    .unwrap();
    let values = |unit: &str| {
        file["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["name"] == unit)
            .unwrap_or_else(|| panic!("no unit {unit}"))["values"][0]
            .clone()
    };
    assert_eq!(values("work")["sum"], n);
    assert_eq!(values("work")["varied"], false);
    assert_eq!(values("scaled")["min"], m);
    let k = values("vary");
    assert_eq!(
        (&k["min"], &k["max"], &k["varied"]),
        (&json!(n + 1), &json!(n + 2), &Value::Bool(true))
    );
    let r = report(dir.path(), &files, true);
    let at = |unit: &str, line| count(statement(&r, "values.f90", unit, line));
    // Exact where the value was the same at every record.
    assert_eq!(at("work", 30), (n as f64, true));
    assert_eq!(at("scaled", 41), ((m * (m + 1) / 2) as f64, true));
    assert!(assumes(
        statement(&r, "values.f90", "scaled", 41),
        &format!("the value of `m` is {m} (measured: profile of ")
    ));
    // `k` took n + 1 and n + 2: counted with its mean rounded, an estimate; the IF on
    // it runs with its measured probability.
    assert_eq!(at("vary", 52), ((n + 2) as f64, false));
    assert!(assumes(
        statement(&r, "values.f90", "vary", 52),
        &format!("`k` varied from {} to {} where recorded", n + 1, n + 2)
    ));
    assert_eq!(at("vary", 54), (1.0, true));
    // The main program's `n` (read) is not bound: the value is `work`'s only.
    assert!(
        statement(&r, "values.f90", "values", 14)["needs"]
            .as_array()
            .is_none_or(|a| a.is_empty())
    );
    // A value the user binds wins over the measured one.
    let (out, err, code) = costline(
        dir.path(),
        &[
            "check",
            "--format",
            "json",
            "--profile",
            ".costline/profile.json",
            "--param",
            "m=3",
            "values.f90",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let bound: Value = serde_json::from_str(&out).unwrap();
    let m = statement(&bound, "values.f90", "scaled", 41);
    assert_eq!(count(m), (6.0, true));
    assert!(!assumes(m, "measured"), "{m}");
}

/// Whether mpif90, mpicc and mpirun can be run; `false` (and the test skipped) only offline.
fn mpi(test: &str) -> bool {
    tools(
        test,
        &["mpif90", "mpicc", "mpirun"],
        "apt-get install libopenmpi-dev openmpi-bin",
    )
}

/// What mpi_ranks.f90 does on `rank`: the trips of its convergence loop, then how
/// many of the values it draws next are below 30 and how many are not.
fn mpi_ranks_data(rank: u64) -> (u64, u64, u64) {
    let next = |v: u64| (v * 37 + 11) % 101;
    let mut seed = 50 + 13 * rank;
    let mut steps = 0;
    while seed >= 10 {
        seed = next(seed);
        steps += 1;
    }
    let (mut small, mut big) = (0, 0);
    for _ in 0..40 + 20 * rank {
        seed = next(seed);
        if seed < 30 {
            small += 1;
        } else {
            big += 1;
        }
    }
    (steps, small, big)
}

#[test]
fn an_mpi_program_is_profiled_on_each_rank() {
    if !mpi("an_mpi_program_is_profiled_on_each_rank") {
        return;
    }
    let dir = fixtures();
    let (out, err, code) = costline(dir.path(), &["profile", "--ranks", "2", "mpi_ranks.f90"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("2 ranks, no arguments"), "{out}");
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".costline/profile.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(file["ranks"], 2);
    assert_eq!(file["launcher"], "mpirun");
    assert!(file["compiler"].as_str().unwrap().starts_with("mpif90"));
    let points = file["units"][0]["points"].as_array().unwrap();
    // Each counter's count on each rank, and their sum.
    let at = |line: u64, role: &str| -> (u64, Vec<u64>) {
        let p = points
            .iter()
            .find(|p| p["line"] == line && p["role"] == role)
            .unwrap_or_else(|| panic!("no {role} counter at line {line}: {points:?}"));
        let ranks: Vec<u64> = p["ranks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        (p["count"].as_u64().unwrap(), ranks)
    };
    let (r0, r1) = (mpi_ranks_data(0), mpi_ranks_data(1));
    assert_ne!(r0, r1, "the ranks' counts differ");
    assert_eq!(at(14, "entry"), (2, vec![1, 1]));
    assert_eq!(at(14, "iteration"), (r0.0 + r1.0, vec![r0.0, r1.0]));
    assert_eq!(at(23, "branch"), (r0.1 + r1.1, vec![r0.1, r1.1]));
    assert_eq!(at(25, "branch"), (r0.2 + r1.2, vec![r0.2, r1.2]));
    // The analysis counts with the mean over the ranks.
    let r = report(dir.path(), &["mpi_ranks.f90"], true);
    let mean = (r0.0 + r1.0) as f64 / 2.0;
    assert_eq!(
        count(statement(&r, "mpi_ranks.f90", "mpi_ranks", 15)),
        (mean, true)
    );
    assert!(
        r.to_string().contains("2 ranks"),
        "the profile's run is named"
    );
    // `n = 40 + 20 rank`: `rank` is recorded on each rank (0 and 1), and the loop over
    // 1..n counts each rank's trips, averaged: exact.
    let rank = &file["units"][0]["values"][0];
    assert_eq!(
        (&rank["name"], &rank["rank_values"]),
        (&json!("rank"), &json!([0, 1]))
    );
    let draws = statement(&r, "mpi_ranks.f90", "mpi_ranks", 22);
    assert_eq!(count(draws), (50.0, true));
    assert!(assumes(draws, "`rank` is 0, 1 on ranks 0 to 1"), "{draws}");
}

#[test]
fn an_mpi_run_past_its_timeout_is_stopped_with_its_ranks() {
    if !mpi("an_mpi_run_past_its_timeout_is_stopped_with_its_ranks") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("forever.f90"),
        "program forever\n  use mpi\n  integer :: ierr\n  real :: x\n  call MPI_Init(ierr)\n  x = 1.0\n  do while (x > 0.0)\n    x = x + 1.0\n  end do\n  print *, x\n  call MPI_Finalize(ierr)\nend program forever\n",
    )
    .unwrap();
    let start = std::time::Instant::now();
    let (_, err, code) = costline(
        dir.path(),
        &["profile", "--ranks", "2", "--timeout", "2", "forever.f90"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("did not finish within 2 s"), "{err}");
    assert!(start.elapsed().as_secs() < 30);
    let (_, err, code) = costline(
        dir.path(),
        &[
            "profile",
            "--mpirun",
            "no-such-launcher",
            "--ranks",
            "2",
            "forever.f90",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no-such-launcher"), "{err}");
    // Profiled as a serial program, it does not build: the error says so and how.
    let (_, err, code) = costline(dir.path(), &["profile", "forever.f90"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("does not compile") && err.contains("--ranks N"),
        "{err}"
    );
}

type ByRank = pmpi_oracle::ByRank;

#[test]
fn mpi_calls_are_counted_per_call_site_and_rank_as_the_pmpi_layer_sees_them() {
    let test = "mpi_calls_are_counted_per_call_site_and_rank_as_the_pmpi_layer_sees_them";
    if !mpi(test) {
        return;
    }
    let dir = fixtures();
    let (launcher, oracle_files) = pmpi_oracle::launcher(dir.path(), 2);
    let (out, err, code) = costline(
        dir.path(),
        &[
            "profile",
            "--ranks",
            "2",
            "--mpirun",
            &launcher,
            "mpi_calls.f90",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!err.contains("not measured"), "every call site is: {err}");
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".costline/profile.json")).unwrap(),
    )
    .unwrap();
    // Per routine, each rank's calls and elements summed over its call sites; per
    // line, the calls and elements of each rank.
    let (mut calls, mut elements) = (ByRank::new(), ByRank::new());
    let mut sites = BTreeMap::<(u64, String), (String, Vec<u64>)>::new();
    for p in file["units"][0]["points"].as_array().unwrap() {
        let map = match p["role"].as_str() {
            Some("call") => &mut calls,
            Some("elements") => &mut elements,
            _ => continue,
        };
        let ranks: Vec<u64> = p["ranks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        let name = p["callee"].as_str().unwrap().to_string();
        let sum = map.entry(name.clone()).or_insert_with(|| vec![0, 0]);
        sum[0] += ranks[0];
        sum[1] += ranks[1];
        let key = (
            p["line"].as_u64().unwrap(),
            p["role"].as_str().unwrap().to_string(),
        );
        sites.insert(key, (name, ranks));
    }
    // The oracle's files are the last run's: the instrumented program's.
    let oracle = pmpi_oracle::counts(&oracle_files);
    assert_eq!((&calls, &elements), (&oracle.calls, &oracle.elements));
    // And what the fixture's data make them: rank 0 sends the 5 values of the
    // sequence down to 3, rank 1 receives them; 3 + 3 exchanges of one element; 3
    // reductions, the i-th of i elements (the sends and receives of the totals after
    // them are added to the first ones' by routine, and checked by line below).
    let next = |v: u64| (v * 37 + 11) % 101;
    let (mut v, mut sends) = (50, 0);
    while v >= 10 {
        v = next(v);
        sends += 1;
    }
    let site = |line: u64, role: &str, name: &str| {
        let (callee, ranks) = &sites[&(line, role.to_string())];
        assert_eq!(callee, name, "line {line}");
        ranks.clone()
    };
    for role in ["call", "elements"] {
        assert_eq!(site(20, role, "mpi_send"), vec![sends, 0]);
        assert_eq!(site(24, role, "mpi_recv"), vec![0, sends]);
        assert_eq!(site(29, role, "mpi_irecv"), vec![3 + v, 3 + v]);
        assert_eq!(site(30, role, "mpi_isend"), vec![3 + v, 3 + v]);
    }
    assert_eq!(site(31, "call", "mpi_waitall"), vec![3 + v, 3 + v]);
    assert_eq!(site(36, "call", "mpi_allreduce"), vec![v, v]);
    let reduced = v * (v + 1) / 2;
    assert_eq!(
        site(36, "elements", "mpi_allreduce"),
        vec![reduced, reduced]
    );
    assert!(!sites.contains_key(&(31, "elements".to_string())));
    // Calls that are logical IFs' statements: counted under their conditions.
    assert_eq!(site(39, "call", "mpi_send"), vec![0, 1]);
    assert_eq!(site(40, "call", "mpi_recv"), vec![1, 0]);
}

/// The per-rank figures of the main program's run in `report` (`mpi_run`) and of its
/// own calls per run (`mpi_ranks`).
fn runs_of<'a>(report: &'a Value, file: &str) -> (&'a Value, &'a Value) {
    let unit = &report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == file)
        .unwrap_or_else(|| panic!("no file {file}"))["units"][0];
    (&unit["mpi_run"], &unit["mpi_ranks"])
}

#[test]
fn mpi_calls_the_text_cannot_count_are_each_ranks_measured_ones() {
    let test = "mpi_calls_the_text_cannot_count_are_each_ranks_measured_ones";
    if !mpi(test) {
        return;
    }
    let dir = fixtures();
    let file = "mpi_converge.f90";
    // Without a profile the run cannot follow the DO WHILE on a real: left out.
    let (out, err, code) = costline(
        dir.path(),
        &["check", "--format", "json", "--param", "p=2", file],
    );
    assert_eq!(code, 0, "{err}");
    let before: Value = serde_json::from_str(&out).unwrap();
    let (run, _) = runs_of(&before, file);
    assert_eq!(run["complete"], false, "{run}");
    let (launcher, oracle_files) = pmpi_oracle::launcher(dir.path(), 2);
    let (out, err, code) = costline(
        dir.path(),
        &["profile", "--ranks", "2", "--mpirun", &launcher, file],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let oracle = pmpi_oracle::counts(&oracle_files).figures(2);
    assert_ne!(oracle[0], oracle[1], "the ranks differ: {oracle:?}");
    // With it (and the process count it ran on), each rank's figures are what the
    // PMPI layer counted of it.
    let after = report(dir.path(), &[file], true);
    let (run, ranks) = runs_of(&after, file);
    assert_eq!(run["processes"], 2, "{run}");
    assert_eq!(run["complete"], true, "{run}");
    let measured = run["measured"].to_string();
    for what in ["its iterations", "the branch taken", "its count"] {
        assert!(measured.contains(what), "{what}: {run}");
    }
    assert_eq!(
        pmpi_oracle::costline_figures(&run["ranks"]),
        oracle,
        "{run}"
    );
    // The unit's own calls per run (one run) are each rank's measured calls too.
    assert_eq!(ranks["complete"], true, "{ranks}");
    assert!(
        ranks["measured"].to_string().contains("measured"),
        "{ranks}"
    );
    assert_eq!(
        pmpi_oracle::costline_figures(&ranks["ranks"]),
        oracle,
        "{ranks}"
    );
}

/// The records of gather.f90's reads on `p` processors (BLOCK over 40 elements), as
/// (sender, receiver, messages, bytes): of the read into y(i), executed by the owner
/// of y(i), and of the read into s, executed by every processor; each pair with
/// anything to move sends one message per step (3), of the distinct elements the
/// receiver reads that the sender owns (4 bytes each).
fn gather_records(p: usize) -> [Vec<(u64, u64, f64, f64)>; 2] {
    let n: usize = 40;
    let block = n.div_ceil(p);
    let owner = |i: usize| (i - 1) / block + 1;
    let mut v = 7;
    let idx: Vec<usize> = (0..n)
        .map(|_| {
            v = (v * 37 + 11) % 101;
            1 + v % n
        })
        .collect();
    let records = |reads: &[(usize, usize)]| {
        let mut distinct: BTreeMap<(usize, usize), std::collections::BTreeSet<usize>> =
            BTreeMap::new();
        for &(receiver, element) in reads {
            let sender = owner(element);
            if sender != receiver {
                distinct
                    .entry((sender, receiver))
                    .or_default()
                    .insert(element);
            }
        }
        distinct
            .into_iter()
            .map(|((from, to), e)| (from as u64, to as u64, 3.0, 3.0 * 4.0 * e.len() as f64))
            .collect()
    };
    let into_y: Vec<(usize, usize)> = (1..=n).map(|i| (owner(i), idx[i - 1])).collect();
    let into_s: Vec<(usize, usize)> = (1..=n)
        .step_by(4)
        .flat_map(|i| (1..=p).map(move |r| (r, i)))
        .map(|(r, i)| (r, idx[i - 1]))
        .collect();
    [records(&into_y), records(&into_s)]
}

/// `check --format json` of gather.f90 on `p` processors, with the profile or without.
fn gather_report(dir: &Path, p: usize, with_profile: bool) -> Value {
    let param = format!("p={p}");
    let mut args = vec!["check", "--format", "json", "--param", &param];
    if with_profile {
        args.extend(["--profile", ".costline/profile.json"]);
    }
    args.push("gather.f90");
    let (out, err, code) = costline(dir, &args);
    assert_eq!(code, 0, "check failed:\n{err}");
    serde_json::from_str(&out).expect("a JSON report")
}

/// The statement at `line` of gather.f90 in `report`: its records (sender, receiver,
/// messages, bytes) and the whole statement.
fn gather_statement(report: &Value, line: u64) -> (Vec<(u64, u64, f64, f64)>, Value) {
    let s = report["files"][0]["units"][0]["statements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["line"] == line && s["kind"] == "assign")
        .unwrap_or_else(|| panic!("no assignment at line {line}"))
        .clone();
    assert!(s["comm"].is_array(), "no communication records: {s}");
    (report_comm::records(&s), s)
}

#[test]
fn irregular_reads_of_mapped_arrays_are_the_owner_pairs_of_the_elements_read() {
    if !gfortran("irregular_reads_of_mapped_arrays_are_the_owner_pairs_of_the_elements_read") {
        return;
    }
    let dir = fixtures();
    let (into_y, into_s) = (24, 27);
    // Without a profile the reads are an upper bound from the owner sets.
    let before = gather_report(dir.path(), 4, false);
    for line in [into_y, into_s] {
        let (_, s) = gather_statement(&before, line);
        assert_eq!(s["comm_refs"][0]["bound"], "upper", "{s}");
    }
    let (out, err, code) = costline(dir.path(), &["profile", "--param", "p=4", "gather.f90"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("2 irregular read(s)"), "{out}\n{err}");
    let after = gather_report(dir.path(), 4, true);
    let want = gather_records(4);
    for (line, want) in [into_y, into_s].into_iter().zip(&want) {
        let (records, s) = gather_statement(&after, line);
        assert!(!want.is_empty());
        assert_eq!(&records, want, "line {line}: {s}");
        let m = &s["metrics"];
        assert_eq!(m["complete"], true, "{s}");
        assert!(
            assumes(m, "is measured (profile of ") && assumes(m, "onto default(4)"),
            "{s}"
        );
        assert_eq!(s["comm_refs"][0]["measured"], true, "{s}");
        assert!(s["comm_refs"][0]["bound"].is_null(), "{s}");
    }
    // On 2 processors the layouts differ from those measured: still the bound, and why.
    let other = gather_report(dir.path(), 2, true);
    let (_, s) = gather_statement(&other, into_y);
    assert_eq!(s["comm_refs"][0]["bound"], "upper", "{s}");
    let note = s["comm_refs"][0]["note"].as_str().unwrap_or("");
    assert!(
        note.contains("onto default(4), not under") && note.contains("onto default(2)"),
        "{s}"
    );
}

#[test]
fn figures_resting_on_a_value_that_varied_are_estimates() {
    if !gfortran("figures_resting_on_a_value_that_varied_are_estimates") {
        return;
    }
    let dir = fixtures();
    let (out, err, code) = costline(
        dir.path(),
        &[
            "profile",
            "--param",
            "p=4",
            "--stdin",
            "values.in",
            "varied.f90",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let (out, err, code) = costline(
        dir.path(),
        &[
            "check",
            "--format",
            "json",
            "--param",
            "p=4",
            "--profile",
            ".costline/profile.json",
            "varied.f90",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    // `k` was 18 and 19 (values.in holds 17): counted as 19 (18.5 rounded), an
    // estimate, and so is the communication of the shift.
    let s = statement(&r, "varied.f90", "shift", 24);
    assert_eq!(count(s), (18.0, false), "{s}");
    assert!(assumes(s, "`k` varied from 18 to 19 where recorded"), "{s}");
    let f = r["files"][0]["units"][1]["statements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["line"] == 24)
        .unwrap();
    let shift = &f["comm_refs"][0];
    assert_eq!(shift["reference"], "b(i + 1)", "{f}");
    assert_eq!(shift["exact"], false, "{f}");
    assert!(shift["nt"].as_f64().unwrap() > 0.0, "{f}");
}
