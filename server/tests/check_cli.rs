//! `costline check` as users run it: the real binary on the fixtures in tests/fixtures,
//! its JSON and text reports snapshotted (insta; review changes with `cargo insta
//! review`, or accept them with `INSTA_UPDATE=always cargo test`), its exit codes checked.

use std::path::Path;
use std::process::Command;

/// Runs `costline check ARGS` from the workspace root; returns stdout and the exit code.
fn check(args: &[&str]) -> (String, i32) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let out = Command::new(env!("CARGO_BIN_EXE_costline"))
        .arg("check")
        .args(args)
        .current_dir(root)
        .output()
        .expect("costline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "costline panicked:\n{stderr}");
    (
        String::from_utf8(out.stdout).expect("UTF-8 output"),
        out.status.code().expect("exited normally"),
    )
}

/// Snapshots both report formats of `files` and checks the exit code.
fn snapshot(name: &str, files: &[&str], exit: i32) {
    let mut json_args = files.to_vec();
    json_args.extend(["--format", "json"]);
    let (json, code) = check(&json_args);
    assert_eq!(code, exit, "exit code of check {files:?}");
    let parsed: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    insta::assert_json_snapshot!(format!("{name}.json"), parsed);
    let (text, code) = check(files);
    assert_eq!(code, exit, "exit code of check {files:?} (text)");
    insta::assert_snapshot!(format!("{name}.txt"), text);
}

/// An EXTRINSIC(HPF_LOCAL) kernel: each of the 2×2 processors smooths its own part of
/// the (BLOCK, BLOCK) 101×101 actuals (51×51, 50×51, 51×50, 50×50): the CALL's work is
/// 10 × 49·49, 48·49, 49·48, 48·48 assignments, without communication, and it costs
/// the busiest processor's time; the interface block's directives stay out of the main
/// program.
#[test]
fn local_procedures_run_on_each_processors_part() {
    snapshot("hpf_local", &["tests/fixtures/free/hpf_local.f90"], 0);
    let (json, _) = check(&["tests/fixtures/free/hpf_local.f90", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let main = &report["files"][0]["units"][0];
    let call = main["statements"]
        .as_array()
        .expect("statements")
        .iter()
        .find(|s| s["kind"] == "call")
        .expect("the call");
    assert_eq!(
        call["work"],
        serde_json::json!([24010, 23520, 23520, 23040])
    );
    // No communication is zero, not absent (DESIGN.md section 5).
    assert_eq!(main["metrics"]["nt"], 0.0, "{}", main["metrics"]);
    // The kernel is reported on the largest part; each call costs that plus the call
    // itself (the smallest part is 4% cheaper: a wrong part would show).
    let kernel = report["files"][0]["units"][1]["metrics"]["ct_s"]
        .as_f64()
        .expect("a time");
    let per_call = call["metrics"]["ct_s"].as_f64().expect("a time") / 10.0;
    let over = (per_call - kernel) / kernel;
    assert!((0.0..0.005).contains(&over), "{per_call} vs {kernel}");
}

#[test]
fn free_form_hpf_program_using_a_module_from_another_file() {
    snapshot(
        "jacobi_hpf",
        &[
            "tests/fixtures/free/jacobi_hpf.f90",
            "tests/fixtures/free/grid_params.f90",
        ],
        0,
    );
}

/// Row 0's one-element boundary update `u(0, :) = 1` is owned by one processor (wd
/// 1.73) but is a sliver of the program's time: at the default finding share (2%) it
/// earns no warning, with `--finding-share 0` it does, on the statement and on the
/// two directives that map `u`; a share above 1 is refused.
#[test]
fn findings_are_weighed_by_their_share_of_the_time() {
    let files = [
        "tests/fixtures/free/jacobi_hpf.f90",
        "tests/fixtures/free/grid_params.f90",
    ];
    let lines = |extra: &[&str]| -> Vec<u64> {
        let mut args = files.to_vec();
        args.extend(["--format", "json"]);
        args.extend(extra);
        let (json, code) = check(&args);
        assert_eq!(code, 0);
        let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        report["files"][0]["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["code"] == "imbalance")
            .map(|d| d["line"].as_u64().expect("line"))
            .collect()
    };
    assert_eq!(lines(&[]), Vec::<u64>::new());
    assert_eq!(lines(&["--finding-share", "0"]), vec![10, 11, 15]);
    assert_eq!(lines(&["--finding-share", "0.5"]), Vec::<u64>::new());
    let (_, code) = check(&[files[0], "--finding-share", "1.5"]);
    assert_eq!(code, 2, "clap refuses a share outside [0, 1]");
}

/// NUMBER_OF_PROCESSORS() takes the `p` binding (without it, a warning says so); each
/// REDISTRIBUTE of the time loop is an all-to-all exchange (12 pairs × 10 iterations ×
/// 16·16 reals) and the statements between them use the (*, BLOCK) mapping, so `b` is
/// read locally; the INHERIT dummy takes the actual's mapping and extent.
#[test]
fn number_of_processors_and_remapping() {
    snapshot(
        "remap_in_time_loop",
        &[
            "tests/fixtures/free/remap_in_time_loop.f90",
            "--param",
            "p=4",
        ],
        0,
    );
    let (text, _) = check(&["tests/fixtures/free/remap_in_time_loop.f90"]);
    assert!(text.contains("warning[processors-unknown]"), "{text}");
}

/// REALIGN inside a loop (undone before its end) and REDISTRIBUTE of a template in the
/// branches of an IF: the arrays aligned with it follow, and the branches leaving
/// different mappings are diagnosed.
#[test]
fn realign_and_remapping_branches() {
    snapshot(
        "realign_branches",
        &["tests/fixtures/free/realign_branches.f90"],
        0,
    );
    let (text, _) = check(&["tests/fixtures/free/realign_branches.f90"]);
    assert!(text.contains("warning[remap-in-branch]"), "{text}");
    assert!(!text.contains("remap-in-loop"), "{text}");
}

/// Calls bind their callee's dummies: `m` takes `n`'s value; the INHERIT dummy takes
/// each call's actual mapping (BLOCK ten times, CYCLIC once: the report shows the first
/// and says so); the prescriptive `(*, BLOCK)` dummy gets its `(BLOCK, *)` actual
/// remapped on entry and back (3072 elements each way: 24 messages of 1 KiB among 4
/// processors); the descriptive dummy's assertion holds.
#[test]
fn calls_bind_dummies_and_remap_prescriptive_ones() {
    snapshot(
        "inherit_calls",
        &["tests/fixtures/free/inherit_calls.f90"],
        0,
    );
    let (json, _) = check(&["tests/fixtures/free/inherit_calls.f90", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let main = &report["files"][0]["units"][0];
    assert_eq!(main["metrics"]["nt"], 24.0);
    assert_eq!(main["metrics"]["td_bytes"], 24576.0);
    let diagnostics = report["files"][0]["diagnostics"]
        .as_array()
        .expect("diagnostics");
    let codes: Vec<&str> = diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"call-remap"), "{codes:?}");
    assert!(codes.contains(&"call-binding"), "{codes:?}");
    assert!(!codes.contains(&"descriptive-mismatch"), "{codes:?}");
}

#[test]
fn counts_under_bindings() {
    snapshot(
        "array_syntax_bound",
        &[
            "tests/fixtures/free/array_syntax.f90",
            "--param",
            "n=100",
            "--param",
            "m=50",
        ],
        0,
    );
    snapshot(
        "daxpy_bound",
        &[
            "tests/fixtures/fixed/daxpy.f",
            "--param",
            "n=1003",
            "--param",
            "incx=1",
            "--param",
            "incy=1",
        ],
        0,
    );
}

#[test]
fn p3t_plus_section_4_1_nests() {
    snapshot(
        "p3t_section41",
        &[
            "tests/fixtures/free/p3t_section41.f90",
            "--param",
            "n1=5",
            "--param",
            "n2=3",
        ],
        0,
    );
}

#[test]
fn a_block_distributed_triangular_update_is_imbalanced_a_cyclic_one_is_not() {
    snapshot(
        "triangular_update",
        &["tests/fixtures/free/triangular_update.f90"],
        0,
    );
    let (json, _) = check(&[
        "tests/fixtures/free/triangular_update.f90",
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let flagged: Vec<i64> = report["files"][0]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "imbalance")
        .filter_map(|d| d["line"].as_i64())
        .collect();
    // The (BLOCK, *) directive and its assignment; nothing about b.
    assert_eq!(flagged, [8, 12]);
}

#[test]
fn shifts_transposes_and_reductions_communicate() {
    snapshot(
        "shifts_reductions",
        &["tests/fixtures/free/shifts_reductions.f90"],
        0,
    );
}

#[test]
fn control_flow_constructs() {
    snapshot("control_flow", &["tests/fixtures/free/control_flow.f90"], 0);
}

#[test]
fn array_syntax_forall_and_where_become_loop_nests() {
    snapshot("array_syntax", &["tests/fixtures/free/array_syntax.f90"], 0);
}

#[test]
fn mpi_calls_with_their_arguments() {
    snapshot("mpi_ring", &["tests/fixtures/free/mpi_ring.f90"], 0);
}

#[test]
fn every_directive_form() {
    snapshot("directives", &["tests/fixtures/free/directives.f90"], 0);
}

#[test]
fn fixed_form_hpf_with_labeled_do_and_continuations() {
    snapshot("redblack", &["tests/fixtures/fixed/redblack.f"], 0);
}

#[test]
fn fixed_form_lapack_style_with_sequence_numbers_and_tabs() {
    snapshot("daxpy", &["tests/fixtures/fixed/daxpy.f"], 0);
}

#[test]
fn fixed_form_array_syntax_and_directive_sentinels() {
    snapshot("shift", &["tests/fixtures/fixed/shift.f"], 0);
}

#[test]
fn malformed_directives_are_positioned_errors() {
    snapshot(
        "broken_directive",
        &["tests/fixtures/malformed/broken_directive.f90"],
        1,
    );
}

#[test]
fn directives_naming_unknown_arrays() {
    snapshot(
        "unknown_array",
        &["tests/fixtures/malformed/unknown_array.f90"],
        1,
    );
}

#[test]
fn unterminated_constructs() {
    snapshot(
        "unterminated_loop",
        &["tests/fixtures/malformed/unterminated_loop.f90"],
        1,
    );
    snapshot(
        "missing_end",
        &["tests/fixtures/malformed/missing_end.f90"],
        1,
    );
}

#[test]
fn binary_garbage_empty_files_and_bad_encodings() {
    snapshot("binary", &["tests/fixtures/malformed/binary.f90"], 1);
    snapshot("empty", &["tests/fixtures/malformed/empty.f90"], 0);
    snapshot("latin1", &["tests/fixtures/malformed/latin1.f90"], 0);
}

/// The branches cpp would take are analyzed: `--define` (and `defines` in
/// costline.toml, under the flags) choose the problem size, the processor count and the
/// distribution of `cpp_branches.F90`.
#[test]
fn preprocessor_conditionals_take_the_branches_the_defines_choose() {
    let fixture = "tests/fixtures/free/cpp_branches.F90";
    let figures = |args: &[&str], dir: Option<&Path>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_costline"));
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        cmd.arg("check")
            .arg(root.join(fixture))
            .args(args)
            .args(["--format", "json"])
            .current_dir(dir.unwrap_or(root));
        let out = cmd.output().expect("costline runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let unit = &report["files"][0]["units"][0];
        let assignment = unit["statements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["text"] == "a(i, j) = 1.0")
            .expect("the assignment")
            .clone();
        let directives: Vec<String> = unit["directives"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["text"].as_str().unwrap().to_string())
            .collect();
        (
            assignment["metrics"]["freq"].as_i64().unwrap(),
            unit["processors"].as_i64().unwrap(),
            directives,
        )
    };
    assert_eq!(
        figures(&[], None),
        (
            2080,
            4,
            vec![
                "PROCESSORS pr(4)".to_string(),
                "DISTRIBUTE (BLOCK, *) ONTO pr :: a".to_string()
            ]
        )
    );
    let (freq, procs, directives) =
        figures(&["-D", "BIG", "--define", "CYCLIC", "-D", "NP=8"], None);
    assert_eq!((freq, procs), (1024 * 1025 / 2, 8));
    assert_eq!(directives[1], "DISTRIBUTE (CYCLIC, *) ONTO pr :: a");
    // SMALL wins over BIG (`defined(BIG) && !defined(SMALL)`); NP=4 is not >= 8.
    assert_eq!(
        figures(&["-D", "BIG", "-D", "SMALL", "-D", "NP=4"], None).0,
        2080
    );
    // costline.toml's defines, a flag over one of them.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("costline.toml"),
        "defines = [\"BIG\", \"NP=8\"]\n",
    )
    .unwrap();
    assert_eq!(figures(&[], Some(dir.path())).0, 524800);
    assert_eq!(figures(&["-D", "NP=2"], Some(dir.path())).1, 4);
    let (_, code) = check(&[fixture, "-D", "1BAD"]);
    assert_eq!(code, 2, "a bad macro name is a usage error");
}

#[test]
fn preprocessor_lines_are_skipped_with_a_note() {
    snapshot(
        "preprocessor",
        &["tests/fixtures/malformed/preprocessor.F90"],
        0,
    );
}

#[test]
fn unreadable_files_are_reported_and_the_rest_still_analyzed() {
    let (text, code) = check(&[
        "tests/fixtures/does-not-exist.f90",
        "tests/fixtures/free/control_flow.f90",
    ]);
    assert_eq!(code, 1);
    assert!(
        text.contains("does-not-exist.f90:1:1: error[io]: cannot read the file"),
        "{text}"
    );
    assert!(text.contains("subroutine control"), "{text}");
}

#[test]
fn usage_errors_exit_with_2() {
    for args in [
        vec![],
        vec!["--param", "N"],
        vec!["--param", "N=x", "a.f90"],
        vec!["--format", "xml", "a.f90"],
    ] {
        let (_, code) = check(&args);
        assert_eq!(code, 2, "check {args:?}");
    }
}

#[test]
fn bindings_supply_unknowns_and_override_parameters_through_use() {
    let files = [
        "tests/fixtures/free/jacobi_hpf.f90",
        "tests/fixtures/free/grid_params.f90",
    ];
    let (json, code) = check(&[files[0], files[1], "--param", "N=512", "--format", "json"]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    assert_eq!(report["params"]["n"], 512);
    let jacobi = &report["files"][0]["units"][0];
    assert_eq!(jacobi["constants"]["n"], 512, "the module's n, overridden");
    assert_eq!(
        jacobi["constants"]["steps"], 100,
        "renamed on USE, untouched"
    );
    let module = &report["files"][1];
    assert_eq!(module["units"][0]["constants"]["ncheck"], 10);
    let notes: Vec<&str> = module["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(notes, ["binding"]);

    // A dummy argument gets its value from a binding.
    let (json, _) = check(&[
        "tests/fixtures/fixed/daxpy.f",
        "--param",
        "n=1000",
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    assert_eq!(report["files"][0]["units"][0]["constants"]["n"], 1000);
}

/// The row-wise Jacobi iteration with MPI_ALLGATHER (the source-code-analyzer paper):
/// the allgather is costed as MPICH runs 8 KiB gathered among 8 processes, by recursive
/// doubling, ⌈log2 p⌉·α + n(p - 1)/p·β per iteration, n the gathered bytes, on a
/// machine with α = 1.2 µs, β = 1/24 GB/s.
#[test]
fn mpi_allgather_is_costed_per_iteration() {
    let (json, code) = check(&[
        "tests/fixtures/free/jacobi_row_mpi.f90",
        "--machine",
        "tests/fixtures/machines/hockney.toml",
        "--param",
        "p=8",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let statements = report["files"][0]["units"][0]["statements"]
        .as_array()
        .expect("statements");
    let call = statements
        .iter()
        .find(|s| s["mpi"].is_object())
        .expect("the MPI_ALLGATHER call");
    insta::assert_json_snapshot!("jacobi_row_mpi_allgather", call);
    let (n, p, iterations) = (1024.0 * 8.0, 8.0, 100.0);
    let expected = iterations * (3.0 * 1.2e-6 + n * (p - 1.0) / p / 24.0e9);
    let tt = call["metrics"]["tt_s"].as_f64().expect("tt_s");
    assert!((tt - expected).abs() < 1e-12, "{tt} vs {expected}");
}

/// Where the include fixtures are (from the workspace root), and their header dir.
const INCLUDE: &str = "tests/fixtures/include";
const SIZES: &str = "tests/fixtures/include/sizes";

/// A solver whose grid (PARAMETERs, arrays in COMMON, PROCESSORS, DISTRIBUTE, ALIGN)
/// is in `dist.inc`, which includes `sizes/params.h`: a free-form program and a
/// fixed-form subroutine INCLUDE it, a free-form subroutine `#include`s it.
#[test]
fn included_headers_declare_and_distribute_for_their_includers() {
    let files = ["solver.f90", "jacobi.f", "update.f90"].map(|f| format!("{INCLUDE}/{f}"));
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["--include", SIZES]);
    snapshot("include", &args, 0);
}

/// The text of the file at `path` with each INCLUDE line replaced by the (likewise
/// pasted) text of the file it names, found next to it or in `dirs`.
fn pasted(path: &Path, dirs: &[&Path]) -> String {
    let text = std::fs::read_to_string(path).expect("a fixture");
    let mut out = String::new();
    for line in text.lines() {
        let code = line.trim_start();
        let lower = code.to_ascii_lowercase();
        let name = ["#include", "include"]
            .iter()
            .find_map(|k| lower.strip_prefix(k))
            .and_then(|rest| {
                let rest = rest.trim_start();
                let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
                let end = rest[1..].find(quote)?;
                Some(code[code.len() - rest.len() + 1..][..end].to_string())
            });
        match name {
            Some(name) => {
                let here = path.parent().unwrap();
                let header = std::iter::once(here)
                    .chain(dirs.iter().copied())
                    .map(|d| d.join(&name))
                    .find(|p| p.is_file())
                    .unwrap_or_else(|| panic!("{name} not found"));
                out.push_str(&pasted(&header, dirs));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Per unit, what its statements do regardless of where they are written: the lowered
/// text and work vector of each statement, the unit's wd, constants, arrays and
/// directives.
fn unit_work(report: &serde_json::Value) -> Vec<serde_json::Value> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["units"].as_array().unwrap().iter())
        .map(|u| {
            let statements: Vec<serde_json::Value> = u["statements"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| serde_json::json!([s["text"], s["work"]]))
                .collect();
            let directives: Vec<&serde_json::Value> = u["directives"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| &d["text"])
                .collect();
            serde_json::json!({
                "name": u["name"],
                "wd": u["metrics"]["wd"],
                "constants": u["constants"],
                "arrays": u["arrays"],
                "directives": directives,
                "statements": statements,
            })
        })
        .collect()
}

/// Including the header is the same as pasting its text: the same work per processor
/// for every statement, the same wd, constants, arrays and directives.
#[test]
fn an_included_header_counts_as_if_its_text_were_pasted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = std::env::temp_dir().join(format!("costline-pasted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let names = ["solver.f90", "jacobi.f", "update.f90"];
    let mut pasted_paths = Vec::new();
    for name in names {
        let text = pasted(&root.join(INCLUDE).join(name), &[&root.join(SIZES)]);
        assert!(
            text.contains("PARAMETER (N = 256") && text.contains("!HPF$ DISTRIBUTE"),
            "{text}"
        );
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        pasted_paths.push(path.display().to_string());
    }
    let included: Vec<String> = names.iter().map(|n| format!("{INCLUDE}/{n}")).collect();
    let mut args: Vec<&str> = included.iter().map(String::as_str).collect();
    args.extend(["--include", SIZES, "--format", "json"]);
    let (json, code) = check(&args);
    assert_eq!(code, 0);
    let with_includes = unit_work(&serde_json::from_str(&json).unwrap());
    let mut args: Vec<&str> = pasted_paths.iter().map(String::as_str).collect();
    args.extend(["--format", "json"]);
    let (json, code) = check(&args);
    assert_eq!(code, 0);
    let with_text = unit_work(&serde_json::from_str(&json).unwrap());
    assert_eq!(with_includes, with_text);
    // The work was distributed at all: 4 processors share the sweep and the copy.
    let update = &with_includes[2]["statements"][0][1];
    assert_eq!(update.as_array().map(Vec::len), Some(4), "{update}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without `--include`, the header `dist.inc` includes is missing: a warning at its
/// INCLUDE line, in `dist.inc`, included from the program.
#[test]
fn a_nested_header_not_found_is_a_warning_where_it_is_included() {
    let (json, code) = check(&[&format!("{INCLUDE}/solver.f90"), "--format", "json"]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let missing: Vec<&serde_json::Value> = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "include")
        .collect();
    assert_eq!(missing.len(), 1, "{missing:?}");
    let d = missing[0];
    assert_eq!(
        (&d["file"], &d["line"], &d["severity"]),
        (
            &serde_json::json!(format!("{INCLUDE}/dist.inc")),
            &serde_json::json!(3),
            &serde_json::json!("warning")
        ),
        "{d}"
    );
    assert_eq!(
        d["included_from"],
        serde_json::json!([{"path": format!("{INCLUDE}/solver.f90"), "line": 5, "column": 3}])
    );
}

/// A missing file, a file including itself, a cycle of two and a binary file: each a
/// warning at its INCLUDE line, the program still analyzed.
#[test]
fn includes_that_cannot_be_followed() {
    snapshot(
        "bad_includes",
        &["tests/fixtures/include/malformed/bad_includes.f90"],
        0,
    );
}

/// A 10,000-line header and includes nested 20 deep: analyzed fast; past 16 levels a
/// warning.
#[test]
fn a_large_header_and_deep_nesting_are_fast() {
    let dir = std::env::temp_dir().join(format!("costline-big-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut big = String::from("      INTEGER N\n      PARAMETER (N = 100)\n");
    for k in 0..10_000 {
        big.push_str(&format!("      REAL V{k}(N)\n"));
    }
    std::fs::write(dir.join("big.inc"), big).unwrap();
    std::fs::write(
        dir.join("big.f"),
        "      PROGRAM BIG\n      INCLUDE 'big.inc'\n      INTEGER I\n      DO 10 I = 1, N\n         V9999(I) = 0.0\n   10 CONTINUE\n      END\n",
    )
    .unwrap();
    for k in 0..20 {
        let next = if k < 19 {
            format!("      INCLUDE 'deep{}.inc'\n", k + 1)
        } else {
            String::new()
        };
        std::fs::write(
            dir.join(format!("deep{k}.inc")),
            format!("{next}      INTEGER D{k}\n"),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("deep.f"),
        "      PROGRAM DEEP\n      INCLUDE 'deep0.inc'\n      D0 = 1\n      END\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (big, deep) = (dir.join("big.f"), dir.join("deep.f"));
    let (json, code) = check(&[
        big.to_str().unwrap(),
        deep.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let elapsed = started.elapsed();
    assert_eq!(code, 0);
    assert!(elapsed.as_secs_f64() < 5.0, "{elapsed:?}");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let big = &report["files"][0]["units"][0];
    assert_eq!(big["arrays"].as_array().map(Vec::len), Some(10_000));
    assert_eq!(big["statements"][0]["metrics"]["freq"], 100);
    let deep = &report["files"][1]["diagnostics"];
    let nested: Vec<&str> = deep
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "include")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        nested,
        ["includes nest deeper than 16 files: 'deep16.inc' is not included"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Module variables keep their mappings in the units that USE them (ONLY with a
/// rename, a plain USE, a local array ALIGNed with the module's TEMPLATE) and in a
/// host's contained procedure; a local declaration hides the module's array.
#[test]
fn module_variables_and_host_association_carry_mappings() {
    snapshot(
        "modules_carry_mappings",
        &[
            "tests/fixtures/modules/grid.f90",
            "tests/fixtures/modules/solver.f90",
        ],
        0,
    );
}

/// The work and communication of each statement of `unit` in a JSON report.
fn unit_statements(report: &serde_json::Value, unit: &str) -> Vec<serde_json::Value> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["units"].as_array().unwrap().iter())
        .filter(|u| u["name"] == unit)
        .flat_map(|u| u["statements"].as_array().unwrap().iter())
        .map(|s| serde_json::json!([s["work"], s["comm"]]))
        .collect()
}

/// USE of a module's distributed arrays is the same as declaring and distributing them
/// in the unit: the same work per processor and the same communication records.
#[test]
fn a_used_module_array_counts_as_if_declared_in_the_unit() {
    let run = |files: &[&str]| {
        let mut args = files.to_vec();
        args.extend(["--format", "json"]);
        let (json, code) = check(&args);
        assert_eq!(code, 0);
        unit_statements(&serde_json::from_str(&json).unwrap(), "relax")
    };
    let used = run(&[
        "tests/fixtures/modules/grid.f90",
        "tests/fixtures/modules/solver.f90",
    ]);
    let local = run(&["tests/fixtures/modules/relax_local.f90"]);
    assert_eq!(used, local);
    assert_eq!(used[0][0], serde_json::json!([15, 16, 16, 15]));
    assert_eq!(
        used[0][1].as_array().map(Vec::len),
        Some(6),
        "{}",
        used[0][1]
    );
}

/// A header with PARAMETERs, COMMON (blocks separated by commas, blank COMMON) and
/// PROCESSORS/DISTRIBUTE/ALIGN included by fixed-form files, and a file declaring the
/// blocks with other mappings: each unit analysed with its own, the disagreement
/// warned about in every unit that declares it.
#[test]
fn a_common_header_and_units_that_disagree_on_its_mapping() {
    snapshot(
        "common_header",
        &[
            "tests/fixtures/common/init.f",
            "tests/fixtures/common/relax.f",
            "tests/fixtures/common/report.f",
        ],
        0,
    );
}

/// Values across calls, as the NAS benchmarks set them: sizes read from an input file
/// when it opens, else compiled defaults (taken, and said so); COMMON values reach the
/// solver through a driver that does not declare the block (nz2 = 62, 238,328
/// updates); the call after `shrink`, which sets nz2, passes no nz2.
#[test]
fn common_values_flow_from_the_main_program_to_the_solver() {
    snapshot(
        "common_values",
        &[
            "tests/fixtures/common_values/main.f",
            "tests/fixtures/common_values/solve.f",
            "--param",
            "p=4",
        ],
        0,
    );
}

/// Values a callee sets come back to its caller: `read_input` takes the default
/// nx0 = 33, `domain` sets nx = nx0 and iend = nx - 1, `getn` returns 2·nx through its
/// dummy; `sweep` then runs j = 2..32 and i = 1..66 (31 × 66 = 2,046 assignments).
#[test]
fn values_a_callee_sets_come_back_to_the_caller() {
    snapshot(
        "callee_sets",
        &[
            "tests/fixtures/common_values/callee_sets.f",
            "--param",
            "p=4",
        ],
        0,
    );
}

/// A 6-D array distributed (*, BLOCK, BLOCK, *, *, *) onto a 2-D grid.
#[test]
fn a_six_dimensional_distribution() {
    snapshot("six_d", &["tests/fixtures/free/six_d.f90"], 0);
}

/// `C costline: fixed-form 132`: a statement past column 72 (after a tab) is read
/// whole; `!HPF$&` continues a directive.
#[test]
fn fixed_form_with_132_columns_by_file_pragma() {
    snapshot("wide132", &["tests/fixtures/fixed/wide132.f"], 0);
}

/// Runs `costline check ARGS` from `dir`; returns stdout, stderr and the exit code.
fn check_in(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_costline"))
        .arg("check")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("costline runs");
    (
        String::from_utf8(out.stdout).expect("UTF-8 output"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().expect("exited normally"),
    )
}

/// `check` reads the nearest costline.toml from the current directory up, as the
/// server reads the workspace's: its include directories find the nested header, its
/// machine and params apply; the flags win key by key; a broken file is an error that
/// names it.
#[test]
fn check_reads_the_projects_costline_toml_and_the_flags_win() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = std::env::temp_dir().join(format!("costline-toml-{}", std::process::id()));
    let sub = dir.join("src");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        dir.join("costline.toml"),
        format!(
            "machine = \"ipsc860\"\ninclude = [\"{}\"]\n[params]\nnsteps = 7\n",
            root.join(SIZES).display()
        ),
    )
    .unwrap();
    let solver = root.join(INCLUDE).join("solver.f90").display().to_string();
    let report = |args: &[&str]| -> serde_json::Value {
        let (json, stderr, code) = check_in(&sub, args);
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str(&json).unwrap()
    };
    let r = report(&[&solver, "--format", "json"]);
    assert_eq!(r["machine"], "ipsc860");
    assert_eq!(r["params"]["nsteps"], 7, "{}", r["params"]);
    let includes = r["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "include")
        .count();
    assert_eq!(includes, 0, "the header is found through costline.toml");
    let r = report(&[
        &solver,
        "--format",
        "json",
        "--machine",
        "multicore",
        "--param",
        "nsteps=9",
    ]);
    assert_eq!(r["machine"], "multicore");
    assert_eq!(r["params"]["nsteps"], 9);
    std::fs::write(dir.join("costline.toml"), "params = {N = }\n").unwrap();
    let (_, stderr, code) = check_in(&sub, &[&solver]);
    assert_eq!(code, 1);
    assert!(stderr.contains("costline.toml"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A section of a mapped array passed to a procedure is not followed with its
/// mapping: a warning at the call names the section, the array and the dummy.
#[test]
fn a_mapped_section_passed_to_a_procedure_is_named() {
    let dir = std::env::temp_dir().join(format!("costline-section-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sect.f90");
    std::fs::write(
        &file,
        "program main\n  integer, parameter :: n = 64\n  real :: a(n, n), b(n)\n  integer :: k\n\
         !HPF$ PROCESSORS pr(4)\n!HPF$ DISTRIBUTE a(*, BLOCK) ONTO pr\n  do k = 1, n\n\
         \x20   call col(m=n, v=a(:, k))\n    call col(b(1:n), n)\n  end do\nend program main\n\n\
         subroutine col(v, m)\n  integer :: m\n  real :: v(m)\n  v = 2.0 * v\nend subroutine col\n",
    )
    .unwrap();
    let (json, code) = check(&[&file.display().to_string(), "--format", "json"]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let notes: Vec<String> = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "not-modelled")
        .map(|d| format!("{}: {}", d["line"], d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(notes.len(), 1, "only the mapped section: {notes:?}");
    assert!(
        notes[0].starts_with("8: `a(:, k)` is a section of the mapped array `a`")
            && notes[0].contains("`v` counts as not mapped"),
        "{notes:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Hostile input gets a diagnostic, never a hang or a silent figure: INCLUDE of a
/// device, a FIFO or a file outside the project is not read; constructs nested 200
/// deep are analyzed to a depth of 32 and the rest is unread; lone CR line ends read
/// as lines; processor counts below 1 or beyond what is enumerated are findings and
/// leave the unit incomplete; a bad threshold is refused.
#[test]
fn hostile_input_gets_a_diagnostic_not_a_hang() {
    let dir = std::env::temp_dir().join(format!("costline-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.inc");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let nest = 200;
    let deep: String = (0..nest)
        .map(|k| format!("  do i{k} = 1, 2\n"))
        .collect::<String>()
        + "  a(1) = a(1) + 1\n"
        + &"  end do\n".repeat(nest);
    let files = [
        ("zero.f90", "program p\n  include '/dev/zero'\nend program p\n".to_string()),
        ("stdin.f90", "program p\n  include '/dev/stdin'\nend program p\n".to_string()),
        ("fifo.f90", format!("program p\n  include '{}'\nend program p\n", fifo.display())),
        ("passwd.f90", "program p\n  include '/etc/passwd'\nend program p\n".to_string()),
        ("deep.f90", format!("program p\n  real :: a(10)\n{deep}end program p\n")),
        ("cr.f90", "program p\r  integer :: i\r  do i = 1, 10\r  end do\rend program p\r".to_string()),
        ("neg.f90", "program p\n  real :: a(100)\n!HPF$ PROCESSORS pr(-4)\n!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a\n  a = 1\nend program p\n".to_string()),
        ("huge.f90", "program p\n  real :: a(100)\n!HPF$ PROCESSORS pr(2**40)\n!HPF$ DISTRIBUTE (BLOCK) ONTO pr :: a\n  a = 1\nend program p\n".to_string()),
    ];
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let report_with = |name: &str, extra: &[&str]| -> serde_json::Value {
        let path = dir.join(name).display().to_string();
        let mut args = vec![path.as_str(), "--format", "json"];
        args.extend(extra);
        let (json, _) = check(&args);
        serde_json::from_str(&json).expect("valid JSON")
    };
    let report = |name: &str| report_with(name, &[]);
    let messages = |r: &serde_json::Value| -> Vec<String> {
        r["files"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                format!(
                    "{}: {}",
                    d["code"].as_str().unwrap(),
                    d["message"].as_str().unwrap()
                )
            })
            .collect()
    };
    // Outside the project (the FIFO is beside the file), then (when allowed anywhere)
    // not regular files: never opened.
    for name in ["zero.f90", "stdin.f90", "fifo.f90"] {
        if name != "fifo.f90" {
            let m = messages(&report(name));
            assert!(
                m.iter().any(|m| m.contains("outside the workspace")),
                "{name}: {m:?}"
            );
        }
        let m = messages(&report_with(name, &["--include-anywhere"]));
        assert!(
            m.iter()
                .any(|m| m.starts_with("include:") && m.contains("not a regular file")),
            "{name}: {m:?}"
        );
    }
    let m = messages(&report("passwd.f90"));
    assert!(
        m.iter().any(|m| m.contains("outside the workspace")),
        "{m:?}"
    );
    assert!(
        !m.iter().any(|m| m.contains("root:")),
        "nothing of /etc/passwd is echoed: {m:?}"
    );
    let deep = report("deep.f90");
    let m = messages(&deep);
    assert!(
        m.iter()
            .any(|m| m.starts_with("too-complex: constructs nested deeper than 32")),
        "{m:?}"
    );
    assert!(
        m.iter().any(|m| m.starts_with("unread-statements:")),
        "{m:?}"
    );
    assert_eq!(deep["files"][0]["units"][0]["metrics"]["complete"], false);
    let cr = report("cr.f90");
    assert_eq!(messages(&cr), Vec::<String>::new());
    assert_eq!(
        cr["files"][0]["units"][0]["loops"][0]["metrics"]["freq"],
        10.0
    );
    for (name, code) in [
        ("neg.f90", "processors-invalid"),
        ("huge.f90", "processors-too-many"),
    ] {
        let r = report(name);
        let m = messages(&r);
        assert!(m.iter().any(|m| m.starts_with(code)), "{name}: {m:?}");
        let unit = &r["files"][0]["units"][0]["metrics"];
        assert_eq!(unit["complete"], false, "{name}: {unit}");
    }
    let (_, code) = check(&[
        &dir.join("cr.f90").display().to_string(),
        "--imbalance-threshold",
        "nan",
    ]);
    assert_eq!(code, 2, "a threshold that is not a number ≥ 0 is refused");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every reproduction the LSP fuzzer kept (`tests/fuzz/findings/*.f90`) is checked to
/// the end without a panic or an abort (`check` asserts both), with a report; the ones
/// that were wedges or panics say what they leave out.
#[test]
fn the_fuzz_findings_are_reported_not_crashed_on() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .join("tests/fuzz/findings");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fuzz/findings")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "f90"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "{paths:?}");
    for path in &paths {
        let shown = path.display().to_string();
        let (json, code) = check(&[&shown, "--format", "json"]);
        assert!(code == 0 || code == 1, "{shown}: exit {code}");
        let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        let diagnostics = |code: &str| -> Vec<String> {
            report["files"][0]["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .filter(|d| d["code"] == code)
                .map(|d| d["message"].as_str().unwrap_or("").to_string())
                .collect()
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        match name {
            "unterminated_double_assignment.f90" => assert!(
                diagnostics("syntax")
                    .iter()
                    .any(|m| m.contains("longer than Fortran's limit of 10000")),
                "{shown}: {:?}",
                diagnostics("syntax")
            ),
            "deep_do_nest.f90" => assert!(
                !diagnostics("too-complex").is_empty(),
                "{shown}: no too-complex warning"
            ),
            "cshift_block_linear.f90" => {
                let metrics = &report["files"][0]["units"][0]["metrics"];
                assert_eq!(metrics["complete"], false, "{shown}: {metrics}");
            }
            _ => {}
        }
    }
}

/// NEW variables of an INDEPENDENT loop run where their iteration runs: in
/// `new_private.f90` every processor does 4 of the 16 planes (128 of the 512 iterations
/// of each private assignment, 4 of the 16 of `fac`), and the private arrays' reads of
/// the distributed `rho` are local, not an all-gather.
#[test]
fn new_variables_are_private_to_the_owner_of_their_iteration() {
    let (json, code) = check(&[
        "tests/fixtures/free/new_private.f90",
        "--param",
        "p=4",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let statements: Vec<&serde_json::Value> = report["files"][0]["units"][0]["statements"]
        .as_array()
        .expect("statements")
        .iter()
        .collect();
    let at = |line: u64| {
        statements
            .iter()
            .find(|s| s["line"] == line && s["kind"] == "assign")
            .unwrap_or_else(|| panic!("an assignment at line {line}"))
    };
    for (line, each) in [(15, 128), (17, 4), (20, 128), (22, 4), (24, 128)] {
        assert_eq!(
            at(line)["work"],
            serde_json::json!([each, each, each, each]),
            "line {line}"
        );
        assert_eq!(at(line)["metrics"]["nt"], 0.0, "line {line}");
    }
}

/// `--fixed-line-length 132` (or `fixedLineLength` in costline.toml) reads fixed-form
/// text up to column 132: the loop bound `10 + 5` continues past column 72, so the loop
/// runs 10 times at the standard 72 columns and 15 at 132; a length outside 72..=1024
/// is refused.
#[test]
fn fixed_form_lines_longer_than_72_columns_on_request() {
    let trips = |extra: &[&str]| -> u64 {
        let mut args = vec!["tests/fixtures/fixed/wide_lines.f", "--format", "json"];
        args.extend(extra);
        let (json, code) = check(&args);
        assert_eq!(code, 0);
        let report: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        report["files"][0]["units"][0]["statements"]
            .as_array()
            .expect("statements")
            .iter()
            .find(|s| s["kind"] == "assign")
            .and_then(|s| s["metrics"]["freq"].as_u64())
            .expect("the assignment's count")
    };
    assert_eq!(trips(&[]), 10);
    assert_eq!(trips(&["--fixed-line-length", "132"]), 15);
    let (_, code) = check(&[
        "tests/fixtures/fixed/wide_lines.f",
        "--fixed-line-length",
        "40",
    ]);
    assert_eq!(code, 2, "clap refuses a length outside 72..=1024");
}

/// `--ask-compiler`: the compiler's own report answers for the loops of the files it
/// compiles (a module another file provides is found: the files are compiled again
/// after the modules they wait for), a file it cannot compile keeps the rules with a
/// note on stderr, and a compiler that cannot be run leaves everything to the rules.
/// Skipped, with a note, where gfortran is not installed.
#[test]
fn ask_compiler_takes_the_compilers_word_where_it_can() {
    if Command::new("gfortran").arg("--version").output().is_err() {
        eprintln!("gfortran not found: --ask-compiler is not tested");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_costline"))
            .args(["check", "--format", "json", "--compiler", "gfortran -O2"])
            .args(args)
            .current_dir(root)
            .output()
            .expect("costline runs");
        assert_eq!(out.status.code(), Some(0));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        // Per loop with a verdict: its line, source and whether vectorized.
        let loops: Vec<(u64, String, bool)> = report["files"][0]["units"][0]["loops"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["compiler"].is_object())
            .map(|l| {
                let c = &l["compiler"];
                (
                    l["line"].as_u64().unwrap(),
                    c["source"].as_str().unwrap().to_string(),
                    c["vectorized"].as_bool().unwrap(),
                )
            })
            .collect();
        (loops, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let jacobi = "tests/fixtures/free/jacobi_hpf.f90";
    let params = "tests/fixtures/free/grid_params.f90";
    let s = |source: &str| source.to_string();
    // The module comes second: jacobi is compiled again once it is built. Line 14 is
    // a memset and line 24's column copies are memcpy's (gfortran says nothing of
    // them as loops); the stencil's inner loop (19) is vectorized.
    let (loops, stderr) = run(&["--ask-compiler", jacobi, params]);
    assert_eq!(stderr, "");
    assert_eq!(
        loops,
        [
            (14, s("rules"), false),
            (15, s("compiler"), false),
            (19, s("compiler"), true),
            (24, s("rules"), false),
        ]
    );
    // Alone, jacobi does not compile: the rules, and a note.
    let (loops, stderr) = run(&["--ask-compiler", jacobi]);
    assert!(loops.iter().all(|(_, source, _)| source == "rules"));
    assert!(
        stderr.contains(
            "jacobi_hpf.f90: compiler report unavailable (line 3: Fatal Error: Cannot open \
             module file 'grid_params.mod' for reading at (1): No such file or directory)"
        ),
        "{stderr}"
    );
    // A compiler that is not there.
    let out = Command::new(env!("CARGO_BIN_EXE_costline"))
        .args([
            "check",
            "--ask-compiler",
            "--compiler",
            "no-such-fc -O2",
            jacobi,
        ])
        .current_dir(root)
        .output()
        .expect("costline runs");
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--ask-compiler: `no-such-fc -O2` cannot be run"),
        "{stderr}"
    );
    // Without the flag, nothing is compiled: the rules.
    let (loops, stderr) = run(&[jacobi, params]);
    assert_eq!(stderr, "");
    assert!(loops.iter().all(|(_, source, _)| source == "rules"));
}
