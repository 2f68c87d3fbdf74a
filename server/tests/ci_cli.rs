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

/// A directory holding copies of fixtures, `edit` applied to the text of each.
fn edited_copy(files: &[&str], edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        let name = Path::new(f).file_name().unwrap();
        std::fs::write(dir.path().join(name), edit(&text)).unwrap();
    }
    dir
}

/// The triangular update and its copy with (CYCLIC, *) instead of (BLOCK, *): the
/// program is the one unit that changed, its time and wd fall (signed deltas, in
/// text, Markdown and JSON), and `--max-increase` fails only the way back up.
#[test]
fn diff_reports_the_changed_units_with_signed_deltas() {
    let fixture = "tests/fixtures/free/triangular_update.f90";
    let copy = edited_copy(&[fixture], |t| t.replace("(BLOCK, *)", "(CYCLIC, *)"));
    let edited = copy.path().join("triangular_update.f90");
    let edited = edited.to_str().unwrap();
    let (text, stderr, code) = costline(&["diff", fixture, edited]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        text.starts_with("costline diff: 1 unit changed; this change lowered the predicted time of `triangular` by "),
        "{text}"
    );
    assert!(
        text.contains("\n~ program triangular  (triangular_update.f90:3)\n"),
        "{text}"
    );
    let time_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("time"))
        .unwrap();
    assert!(
        time_line.contains(" → ") && time_line.contains("(−"),
        "{time_line}"
    );
    let wd_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("wd"))
        .unwrap();
    assert!(
        wd_line.contains("0.288 → ") && wd_line.contains("(−0.28"),
        "{wd_line}"
    );

    let (json, _, _) = costline(&["diff", fixture, edited, "--format", "json"]);
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["version"], 1);
    let units = doc["units"].as_array().unwrap();
    assert_eq!(units.len(), 1, "{doc}");
    let u = &units[0];
    assert_eq!(
        (u["status"].as_str(), u["name"].as_str()),
        (Some("changed"), Some("triangular"))
    );
    let (base, head) = (
        u["base"]["time_s"].as_f64().unwrap(),
        u["head"]["time_s"].as_f64().unwrap(),
    );
    let delta = u["delta"]["time_s"].as_f64().unwrap();
    assert!(delta < 0.0 && (delta - (head - base)).abs() < 1e-15, "{u}");
    let pct = u["delta"]["time_percent"].as_f64().unwrap();
    assert!((pct - 100.0 * (head - base) / base).abs() < 1e-9, "{u}");
    assert!(u["delta"]["wd"].as_f64().unwrap() < -0.2, "{u}");

    let (md, _, _) = costline(&["diff", fixture, edited, "--format", "markdown"]);
    assert!(md.starts_with("**costline**: 1 unit changed"), "{md}");
    assert!(
        md.contains("| `triangular` (program in triangular_update.f90:3) | "),
        "{md}"
    );

    // Back from CYCLIC to BLOCK raises the time by more than 10 %: status 3.
    assert_eq!(
        costline(&["diff", fixture, edited, "--max-increase", "10"]).2,
        0
    );
    let (_, stderr, code) = costline(&["diff", edited, fixture, "--max-increase", "10"]);
    assert_eq!(code, 3);
    assert!(stderr.contains("triangular +"), "{stderr}");
}

/// A report of `check --format json` as the base, a directory as the head: the Jacobi
/// program with a larger grid (its module in the other file) changes, the module does
/// not; a unit only in one side is added or removed.
#[test]
fn diff_takes_reports_and_directories() {
    let files = [
        "tests/fixtures/free/jacobi_hpf.f90",
        "tests/fixtures/free/grid_params.f90",
    ];
    let (report, _, code) = costline(&["check", files[0], files[1], "--format", "json"]);
    assert_eq!(code, 0);
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.json");
    std::fs::write(&base, report).unwrap();
    let head = edited_copy(&files, |t| {
        t.replace("n = 256", "n = 512").replace(
            "end module grid_params",
            "contains\n  subroutine extra\n  end subroutine extra\nend module grid_params",
        )
    });
    let (json, stderr, code) = costline(&[
        "diff",
        base.to_str().unwrap(),
        head.path().to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&json).unwrap();
    let shown: Vec<(&str, &str)> = doc["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["status"].as_str().unwrap(), u["name"].as_str().unwrap()))
        .collect();
    assert_eq!(shown, [("changed", "jacobi"), ("added", "extra")], "{doc}");
    assert!(doc["units"][0]["delta"]["time_percent"].as_f64().unwrap() > 50.0);
    // The same program on both sides: nothing changed.
    let (text, _, _) = costline(&["diff", base.to_str().unwrap(), base.to_str().unwrap()]);
    assert_eq!(text, "costline diff: 0 units changed\n");
    let (_, stderr, code) = costline(&["diff", "no-such.json", base.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no-such.json"), "{stderr}");
}
