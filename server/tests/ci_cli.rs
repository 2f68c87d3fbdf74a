//! costline in continuous integration: `check --format sarif` validated against the
//! SARIF 2.1.0 JSON schema (tests/sarif/sarif-schema-2.1.0.json, from the npm package
//! @microsoft/sarif-multitool-linux 5.7.0, MIT, its `sarif-2.1.0.json`), and
//! `--fail-on` deciding the exit status.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Runs `costline ARGS` from the workspace root: stdout, stderr and the exit code.
fn costline(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_costline"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("costline runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "costline panicked:\n{stderr}");
    (
        String::from_utf8(out.stdout).expect("UTF-8 output"),
        stderr,
        out.status.code().expect("exited normally"),
    )
}

/// The SARIF log of `check ARGS --format sarif`, validated against the schema, and
/// the exit code.
fn sarif(args: &[&str]) -> (Value, i32) {
    let mut all = vec!["check"];
    all.extend(args);
    all.extend(["--format", "sarif"]);
    let (out, stderr, code) = costline(&all);
    let log: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}:\n{out}{stderr}"));
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("server/tests/sarif/sarif-schema-2.1.0.json"))
            .expect("the vendored schema"),
    )
    .expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "check {args:?} --format sarif is not valid SARIF 2.1.0:\n{}",
        errors.join("\n")
    );
    (log, code)
}

/// The schema catches what is not SARIF: the validation is not vacuous.
#[test]
fn the_vendored_schema_rejects_what_is_not_sarif() {
    let (mut log, _) = sarif(&["tests/fixtures/free/triangular_update.f90"]);
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("server/tests/sarif/sarif-schema-2.1.0.json"))
            .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&log));
    log["runs"][0]["results"][0]["level"] = Value::from("severe");
    assert!(!validator.is_valid(&log));
    log["runs"][0]["results"][0]["level"] = Value::from("warning");
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        Value::from(0);
    assert!(!validator.is_valid(&log));
    let mut wrong_version = log.clone();
    wrong_version["version"] = Value::from("2.0.0");
    assert!(!validator.is_valid(&wrong_version));
}

/// The triangular update's BLOCK distribution is imbalanced: results on the
/// DISTRIBUTE and on the assignment, each with its region's end, its rule (title and
/// help) and the predicted figures of its unit and statement as properties.
#[test]
fn findings_are_sarif_results_with_rules_regions_and_figures() {
    let (log, code) = sarif(&["tests/fixtures/free/triangular_update.f90"]);
    assert_eq!(code, 0);
    insta::assert_json_snapshot!("sarif_triangular_update", log);
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["imbalance", "poor-locality"]);
    for r in rules {
        assert!(r["help"]["text"].as_str().unwrap().len() > 40, "{r}");
    }
    let results = run["results"].as_array().expect("results");
    let statement = results
        .iter()
        .find(|r| {
            r["ruleId"] == "imbalance"
                && r["locations"][0]["physicalLocation"]["region"]["startLine"] == 12
        })
        .expect("the assignment's imbalance");
    let region = &statement["locations"][0]["physicalLocation"]["region"];
    assert!(
        region["endColumn"].as_u64() > region["startColumn"].as_u64(),
        "{region}"
    );
    assert_eq!(statement["level"], "warning");
    assert_eq!(
        run["tool"]["driver"]["rules"][statement["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "imbalance"
    );
    let props = &statement["properties"];
    assert_eq!(props["unit"], "triangular");
    assert_eq!(props["at_line"], "statement");
    let wd = props["metrics"]["wd"].as_f64().expect("the statement's wd");
    assert!((wd - 0.57).abs() < 0.01, "{props}");
    assert!(
        props["unit_metrics"]["time_s"].as_f64().unwrap() > 0.0,
        "{props}"
    );
    let units = run["properties"]["units"]
        .as_array()
        .expect("every unit's figures");
    assert_eq!(units[0]["name"], "triangular");
    assert_eq!(run["properties"]["machine"], "ib-hdr");
}

/// A finding in an included file is located there, with the INCLUDE line as a
/// related location; an unreadable file is an error result and an unsuccessful run.
#[test]
fn included_and_unreadable_files_in_sarif() {
    let (log, code) = sarif(&[
        "tests/fixtures/include/update.f90",
        "tests/fixtures/no-such-file.f90",
    ]);
    assert_eq!(code, 1);
    let run = &log["runs"][0];
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    let results = run["results"].as_array().unwrap();
    let header = results
        .iter()
        .find(|r| r["ruleId"] == "include")
        .expect("the missing params.h");
    assert_eq!(
        header["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "tests/fixtures/include/dist.inc"
    );
    let via = &header["relatedLocations"][0]["physicalLocation"];
    assert_eq!(
        via["artifactLocation"]["uri"],
        "tests/fixtures/include/update.f90"
    );
    assert_eq!(via["region"]["startLine"], 3);
    let io = results.iter().find(|r| r["ruleId"] == "io").expect("io");
    assert_eq!(io["level"], "error");
    // Every artifact a result names is listed at its index.
    let artifacts = run["artifacts"].as_array().unwrap();
    for r in results {
        let location = &r["locations"][0]["physicalLocation"]["artifactLocation"];
        let index = location["index"].as_u64().unwrap() as usize;
        assert_eq!(artifacts[index]["location"]["uri"], location["uri"]);
    }
}

/// `--fail-on warning` fails (status 3) on the imbalanced program and not on the
/// Jacobi relaxation, which has no warning at the default finding share; a code fails
/// only on its findings; a word that is neither is a usage error.
#[test]
fn fail_on_decides_the_exit_status() {
    let imbalanced = "tests/fixtures/free/triangular_update.f90";
    let jacobi = [
        "tests/fixtures/free/jacobi_hpf.f90",
        "tests/fixtures/free/grid_params.f90",
    ];
    let status = |args: &[&str]| {
        let mut all = vec!["check"];
        all.extend(args);
        costline(&all)
    };
    let (_, stderr, code) = status(&[imbalanced, "--fail-on", "warning"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("triangular_update.f90:8:1: warning[imbalance]"),
        "{stderr}"
    );
    assert_eq!(status(&[imbalanced]).2, 0, "findings alone do not fail");
    assert_eq!(status(&[imbalanced, "--fail-on", "error"]).2, 0);
    assert_eq!(status(&[imbalanced, "--fail-on", "imbalance"]).2, 3);
    assert_eq!(
        status(&[imbalanced, "--fail-on", "error,poor-locality"]).2,
        3
    );
    assert_eq!(status(&[imbalanced, "--fail-on", "use-cycle"]).2, 0);
    assert_eq!(status(&[jacobi[0], jacobi[1], "--fail-on", "warning"]).2, 0);
    // The same, whatever the format.
    let (_, _, code) = status(&[imbalanced, "--fail-on", "warning", "--format", "sarif"]);
    assert_eq!(code, 3);
    let (_, stderr, code) = status(&[imbalanced, "--fail-on", "severe"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("neither a severity"), "{stderr}");
    // An unreadable input is status 1, before --fail-on.
    let (_, _, code) = status(&["no-such.f90", "--fail-on", "warning"]);
    assert_eq!(code, 1);
}
