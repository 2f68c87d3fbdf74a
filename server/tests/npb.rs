//! The NAS Parallel Benchmarks (NPB3.0-HPF and NPB3.4-MPI, class S on 4 processors;
//! the HPF ones also at class W and on 16) as a user runs them: `costline coverage`
//! must not get worse than the figures stored in
//! tests/npb/coverage.json (a ratchet: improve them, then store them with
//! `COSTLINE_RATCHET=update cargo test -p costline-server --test npb`), and `costline
//! check` must give byte-identical output run after run and on 1 or many threads.
//! The corpus is read from `../shared/corpus/npb` (or `COSTLINE_NPB`) and prepared by
//! tests/npb/prepare.sh (a copy per class with each benchmark's npbparams.h).

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The process count the programs are analyzed for: HPF's `p`, and the variables the
/// MPI benchmarks store MPI_COMM_SIZE's result in.
const HPF_PARAMS: &[&str] = &["p=4"];
const MPI_PARAMS: &[&str] = &[
    "nprocs=4",
    "no_nodes=4",
    "total_nodes=4",
    "np=4",
    "nnodes=4",
    "nprocs_total=4",
];

/// (suite, benchmark) of every Fortran benchmark of both suites.
const PROGRAMS: &[(&str, &str)] = &[
    ("NPB3.0-HPF", "BT"),
    ("NPB3.0-HPF", "CG"),
    ("NPB3.0-HPF", "FT"),
    ("NPB3.0-HPF", "LU"),
    ("NPB3.0-HPF", "MG"),
    ("NPB3.0-HPF", "SP"),
    ("NPB3.4-MPI", "BT"),
    ("NPB3.4-MPI", "CG"),
    ("NPB3.4-MPI", "EP"),
    ("NPB3.4-MPI", "FT"),
    ("NPB3.4-MPI", "LU"),
    ("NPB3.4-MPI", "MG"),
    ("NPB3.4-MPI", "SP"),
];

/// The common files the benchmarks' Makefiles link (RAND = randdp).
const COMMON: &[&str] = &["print_results.f", "randdp.f", "timers.f", "wtime.f"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// The prepared copy of the corpus at class S (target/npb), prepared once for all tests.
fn corpus() -> PathBuf {
    static PREPARED: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PREPARED.get_or_init(|| prepare("S", "target/npb")).clone()
}

/// The prepared copy of the corpus at class W (target/npb-w).
fn corpus_w() -> PathBuf {
    static PREPARED: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PREPARED
        .get_or_init(|| prepare("W", "target/npb-w"))
        .clone()
}

fn prepare(class: &str, dest: &str) -> PathBuf {
    let dest = root().join(dest);
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("tests/npb/prepare.sh"))
        .arg(&dest)
        .env("NPB_CLASS", class);
    if let Ok(src) = std::env::var("COSTLINE_NPB") {
        cmd.arg(src);
    }
    let out = cmd.output().expect("bash runs");
    assert!(
        out.status.success(),
        "preparing the NPB corpus failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dest
}

/// The program's files, relative to its directory, in a fixed order.
fn files(dir: &Path) -> Vec<String> {
    let mut own: Vec<String> = std::fs::read_dir(dir)
        .expect("the benchmark's directory")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            (name.ends_with(".f") || name.ends_with(".f90")).then_some(name)
        })
        .collect();
    own.sort();
    let common = dir.join("../common");
    own.extend(
        COMMON
            .iter()
            .filter(|f| common.join(f).exists())
            .map(|f| format!("../common/{f}")),
    );
    own
}

/// Runs `costline ARGS` in `dir` (with `threads` worker threads when given); stdout.
fn costline(dir: &Path, args: &[String], threads: Option<usize>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_costline"));
    cmd.current_dir(dir).args(args);
    if let Some(n) = threads {
        cmd.env("COSTLINE_THREADS", n.to_string());
    }
    let out = cmd.output().expect("costline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "costline panicked:\n{stderr}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn args(command: &str, suite: &str, files: &[String], format: &str) -> Vec<String> {
    let params = if suite.contains("HPF") {
        HPF_PARAMS
    } else {
        MPI_PARAMS
    };
    let mut out = vec![command.to_string()];
    out.extend(files.iter().cloned());
    for p in params {
        out.push("--param".into());
        out.push(p.to_string());
    }
    out.extend(["--format".to_string(), format.to_string()]);
    out
}

#[test]
fn check_output_is_byte_identical_run_after_run_and_on_any_thread_count() {
    let corpus = corpus();
    for (suite, bench) in PROGRAMS {
        let dir = corpus.join(suite).join(bench);
        let files = files(&dir);
        for format in ["json", "text"] {
            let a = args("check", suite, &files, format);
            let first = costline(&dir, &a, None);
            assert!(!first.is_empty(), "{suite}/{bench}: no output");
            for (run, threads) in [(2, None), (3, None), (4, Some(1)), (5, Some(4))] {
                let again = costline(&dir, &a, threads);
                assert!(
                    again == first,
                    "{suite}/{bench} --format {format}: run {run} ({threads:?} threads) differs from run 1"
                );
            }
        }
    }
}

/// (field, done, total) of a coverage report's shares.
fn shares(c: &Value) -> Vec<(String, u64, u64)> {
    c.as_object()
        .expect("the figures")
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v["done"].as_u64()?, v["total"].as_u64()?)))
        .collect()
}

#[test]
fn coverage_of_the_nas_parallel_benchmarks_never_gets_worse() {
    let corpus = corpus();
    let stored_path = root().join("tests/npb/coverage.json");
    let stored: BTreeMap<String, Value> = std::fs::read_to_string(&stored_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let mut now = BTreeMap::new();
    let mut worse = Vec::new();
    let mut better = Vec::new();
    // Class S on 4 processors, and the HPF programs at class W and on 16 as well.
    let mut runs: Vec<(String, PathBuf, &str, &str, Vec<String>)> = PROGRAMS
        .iter()
        .map(|&(suite, bench)| {
            (
                format!("{suite}/{bench}"),
                corpus.clone(),
                suite,
                bench,
                vec![],
            )
        })
        .collect();
    for &(suite, bench) in PROGRAMS.iter().filter(|(s, _)| s.contains("HPF")) {
        for (class, root, p) in [
            ("S", &corpus, 16),
            ("W", &corpus_w(), 4),
            ("W", &corpus_w(), 16),
        ] {
            let key = format!("{suite}/{bench} class {class} p={p}");
            let params = vec!["--param".to_string(), format!("p={p}")];
            runs.push((key, root.clone(), suite, bench, params));
        }
    }
    for (key, corpus, suite, bench, params) in runs {
        let dir = corpus.join(suite).join(bench);
        let files = files(&dir);
        let mut args = args("coverage", suite, &files, "json");
        args.extend(params);
        let out = costline(&dir, &args, None);
        let report: Value = serde_json::from_str(&out).expect("coverage JSON");
        let c = report["coverage"].clone();
        match stored.get(&key) {
            None => worse.push(format!("{key}: no stored figures")),
            Some(old) => {
                for ((field, done, total), (_, old_done, old_total)) in
                    shares(&c).into_iter().zip(shares(old))
                {
                    if done < old_done {
                        worse.push(format!(
                            "{key} {field}: {done} of {total}, was {old_done} of {old_total}"
                        ));
                    } else if done > old_done {
                        better.push(format!("{key} {field}: {done}, was {old_done}"));
                    }
                }
                // Counts known exactly, and known at all, must not fall.
                let count = |v: &Value, k: &str| v["counts"][k].as_u64().unwrap_or(0);
                let exact = |v: &Value| count(v, "exact");
                let known = |v: &Value| count(v, "exact") + count(v, "estimated");
                for (what, f) in [
                    ("exact", &exact as &dyn Fn(&Value) -> u64),
                    ("known", &known),
                ] {
                    if f(&c) < f(old) {
                        worse.push(format!("{key} counts {what}: {}, was {}", f(&c), f(old)));
                    }
                }
            }
        }
        now.insert(key, c);
    }
    if std::env::var("COSTLINE_RATCHET").as_deref() == Ok("update") {
        let text = serde_json::to_string_pretty(&now).expect("serializes") + "\n";
        std::fs::write(&stored_path, text).expect("writes the stored figures");
        return;
    }
    assert!(
        worse.is_empty(),
        "coverage got worse:\n{}\n(after a deliberate change, store the new figures with \
         COSTLINE_RATCHET=update)",
        worse.join("\n")
    );
    if !better.is_empty() {
        eprintln!(
            "coverage improved (store it with COSTLINE_RATCHET=update):\n{}",
            better.join("\n")
        );
    }
}

/// Hand check: SP's `x_solve` at class S (12³ grid, nz2 = 10 planes k = 1..10) with
/// p = 4: `gridz(0:11)` is BLOCK in blocks of 3, so the processors own 2, 3, 3 and 2 of
/// the planes the INDEPENDENT loop runs, and every assignment of it, private (NEW)
/// ones included, does that share: `rhs(m,i,j,k) = fac1*rhs(m,i,j,k)` runs 3 m × 10 i ×
/// 10 j = 300 times per plane, `ru1 = c3c4*rho_i(i,j,k)` 12 i × 10 j = 120.
#[test]
fn sp_x_solve_works_on_the_planes_each_processor_owns() {
    let x_solve = hpf_unit("SP", "x_solve");
    let work = |start: &str| assignment(&x_solve, start)["work"].clone();
    assert_eq!(
        work("rhs(m, i, j, k) = fac1"),
        serde_json::json!([600, 900, 900, 600])
    );
    assert_eq!(work("ru1 = c3c4"), serde_json::json!([240, 360, 360, 240]));
}

/// CG's sparse matrix-vector product (class S, na = 1400, p = 4), checked by hand.
/// `z(na+2)` is BLOCK in blocks of 351 and `pd` is aligned with it, so of
/// `pd(1:1400)` the processors own 351, 351, 351 and 347 elements; `p` is replicated.
/// Each of the 25 iterations of `conj_grad` gathers `pd` into `p`
/// (`p(1:colnum) = pd(1:colnum)`): every processor sends its part to the 3 others, 12
/// messages and 3 × 1400 × 8 = 33,600 bytes per iteration. The product itself,
/// `q(j) = q(j) + adistr(k,j)*p(colidxd(k,j))`, then reads only local data (`p` is
/// everywhere, `adistr` is aligned with `q`). The residual's product through `z`, a
/// BLOCK array read at `colidxd(k,j)`, is an upper bound from the owner sets: each
/// processor may need all of each other's `z` (351, 351, 351, 349 elements of
/// `z(1402)`), Σ_p (1402 − n_p) × 8 = 4206 × 8 = 33,648 bytes in 12 messages.
#[test]
fn cg_gathers_the_vector_of_its_product_every_iteration() {
    let conj_grad = hpf_unit("CG", "conj_grad");
    let reference = |start: &str, array: &str| {
        assignment(&conj_grad, start)["comm_refs"]
            .as_array()
            .expect("comm_refs")
            .iter()
            .find(|r| r["array"] == array)
            .unwrap_or_else(|| panic!("a read of `{array}` in `{start}`"))
            .clone()
    };
    let gather = reference("p($1) = pd($1)", "pd");
    assert_eq!(gather["exact"], true);
    assert_eq!(
        (gather["nt"].as_f64(), gather["td_bytes"].as_f64()),
        (Some(300.0), Some(840_000.0))
    );
    assert_eq!(reference("q(j) = q(j) + adistr", "p")["pattern"], "local");
    assert_eq!(
        reference("q(j) = q(j) + adistr", "adistr")["pattern"],
        "local"
    );
    let residual = reference("r(j) = r(j) + adistr", "z");
    assert_eq!(residual["bound"], "upper");
    assert_eq!(residual["exact"], false);
    assert_eq!(
        (residual["nt"].as_f64(), residual["td_bytes"].as_f64()),
        (Some(12.0), Some(33_648.0))
    );
}

/// MG's halo exchanges per level (class S, p = 16), checked by hand. `u` and `r` are
/// aligned `(*,:,:)` with `grid(262,262)`, distributed `(*,BLOCK)`: planes i3 = 1..17
/// are processor 1's, 18..34 processor 2's. At the top level (n = 34) `psinv` reads
/// across the 17|18 boundary in 6 references of its stencil (`r1`: i3±1, `r2`: four
/// i3±1 corners), each 34 i1 × 32 i2 = 1088 elements, one message each, and its
/// periodic copies `u(:,:,n3) = u(:,:,2)` and `u(:,:,1) = u(:,:,n3-1)` move a whole
/// 66 × 66 plane each way: 8 messages, (6 × 1088 + 2 × 4356) × 8 = 121,920 bytes. In
/// the V-cycle's loop over levels k = 2..4 (n = 6, 10, 18) only n = 18 reaches plane
/// 18: 3 stencil reads of 18 × 16 = 288 elements and the copy of an 18 × 18 plane,
/// 4 messages, (864 + 324) × 8 = 9504 bytes per V-cycle; the other levels none.
#[test]
fn mg_exchanges_halos_only_at_the_levels_that_cross_a_block() {
    let mg3p = hpf_unit_with("MG", "mg3p", &["p=16"]);
    let call = |start: &str, nth: usize| {
        let calls: Vec<&Value> = mg3p["statements"]
            .as_array()
            .expect("statements")
            .iter()
            .filter(|s| {
                s["kind"] == "call" && s["text"].as_str().is_some_and(|t| t.starts_with(start))
            })
            .collect();
        let m = &calls[nth]["metrics"];
        (
            m["nt"].as_f64(),
            m["td_bytes"].as_f64(),
            m["complete"].as_bool(),
        )
    };
    // The coarsest level (n = 4), the loop over levels, the top level.
    assert_eq!(call("call psinv", 0), (Some(0.0), Some(0.0), Some(true)));
    assert_eq!(call("call psinv", 1), (Some(4.0), Some(9504.0), Some(true)));
    assert_eq!(
        call("call psinv", 2),
        (Some(8.0), Some(121_920.0), Some(true))
    );
}

/// `compare` on CG and MG (class S, p = 4 and 16): the main DISTRIBUTE of each has
/// alternatives priced with non-zero times that differ from the distribution as written.
#[test]
fn compare_prices_the_alternatives_of_cg_and_mg() {
    for (bench, unit) in [("CG", "cg"), ("MG", "mg")] {
        let dir = corpus().join("NPB3.0-HPF").join(bench);
        let files = files(&dir);
        let mut args = args("compare", "NPB3.0-HPF", &files, "json");
        args.extend(["--procs".to_string(), "4,16".to_string()]);
        let report: Value = serde_json::from_str(&costline(&dir, &args, None)).expect("JSON");
        let c = report["comparisons"]
            .as_array()
            .expect("comparisons")
            .iter()
            .find(|c| c["unit"] == unit)
            .unwrap_or_else(|| panic!("{bench}: no comparison in `{unit}`"));
        for (k, p) in [4, 16].iter().enumerate() {
            let times: Vec<(bool, f64)> = c["alternatives"]
                .as_array()
                .expect("alternatives")
                .iter()
                .map(|a| {
                    let t = a["time_s"][k][0].as_f64();
                    (a["as_written"] == true, t.unwrap_or(0.0))
                })
                .collect();
            let written = times.iter().find(|(w, _)| *w).expect("as written").1;
            let others: Vec<f64> = times.iter().filter(|(w, _)| !w).map(|t| t.1).collect();
            assert!(
                written > 0.0 && others.len() >= 2 && others.iter().all(|t| *t > 0.0),
                "{bench} P={p}: {times:?}"
            );
            assert!(
                others.iter().any(|t| (t - written).abs() > 1e-3 * written),
                "{bench} P={p}: every alternative takes the time as written: {times:?}"
            );
        }
    }
}

/// The JSON report of unit `name` of NPB3.0-HPF benchmark `bench` (class S, p = 4).
fn hpf_unit(bench: &str, name: &str) -> Value {
    hpf_unit_with(bench, name, &[])
}

/// [`hpf_unit`] with `params` bound over the defaults.
fn hpf_unit_with(bench: &str, name: &str, params: &[&str]) -> Value {
    let dir = corpus().join("NPB3.0-HPF").join(bench);
    let files = files(&dir);
    let mut args = args("check", "NPB3.0-HPF", &files, "json");
    for p in params {
        args.extend(["--param".to_string(), p.to_string()]);
    }
    let out = costline(&dir, &args, None);
    let report: Value = serde_json::from_str(&out).expect("check JSON");
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["units"].as_array().expect("units").iter())
        .find(|u| u["name"] == name)
        .unwrap_or_else(|| panic!("unit `{name}`"))
        .clone()
}

/// The report of the first assignment of `unit` whose text starts with `start`.
fn assignment<'a>(unit: &'a Value, start: &str) -> &'a Value {
    unit["statements"]
        .as_array()
        .expect("statements")
        .iter()
        .find(|s| s["kind"] == "assign" && s["text"].as_str().is_some_and(|t| t.starts_with(start)))
        .unwrap_or_else(|| panic!("an assignment `{start}`"))
}
