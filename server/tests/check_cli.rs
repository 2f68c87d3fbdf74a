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
/// the allgather is costed as a ring, (p - 1)·α + n(p - 1)/p·β per iteration, n the
/// gathered bytes, on a machine with α = 1.2 µs, β = 1/24 GB/s.
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
    let expected = iterations * ((p - 1.0) * 1.2e-6 + n * (p - 1.0) / p / 24.0e9);
    let tt = call["metrics"]["tt_s"].as_f64().expect("tt_s");
    assert!((tt - expected).abs() < 1e-12, "{tt} vs {expected}");
}
