//! `costline compare` as users run it: the real binary on the Jacobi fixture over a
//! small grid, its JSON report snapshotted and held to the text report's crossings.

use std::path::Path;
use std::process::Command;

/// Runs `costline compare ARGS` from the workspace root; returns stdout.
fn compare(args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let out = Command::new(env!("CARGO_BIN_EXE_costline"))
        .arg("compare")
        .args(args)
        .current_dir(root)
        .output()
        .expect("costline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "compare failed:\n{stderr}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

const ARGS: [&str; 10] = [
    "tests/fixtures/free/grid_params.f90",
    "tests/fixtures/free/jacobi_hpf.f90",
    "--param",
    "n=8..64",
    "--procs",
    "2,4",
    "--machine",
    "ipsc860",
    "--top",
    "2",
];

#[test]
fn compare_json_carries_the_grid_the_times_and_the_crossings_of_the_text_report() {
    let text = compare(&ARGS);
    let mut json_args = ARGS.to_vec();
    json_args.extend(["--format", "json"]);
    let raw = compare(&json_args);
    let doc: serde_json::Value = serde_json::from_str(&raw).expect("valid JSON");
    assert_eq!(doc["version"], 1);
    // Typed: the keys in the order of the contract, not alphabetical.
    let at = |key: &str| raw.find(&format!("\"{key}\"")).expect(key);
    assert!(at("version") < at("machine") && at("machine") < at("comparisons"));
    assert!(at("path") < at("unit") && at("sizes") < at("alternatives"));
    assert!(at("alternatives") < at("crossings_n") && at("crossings_p") < at("isospeed"));
    let c = &doc["comparisons"][0];
    let (sizes, procs) = (
        c["sizes"].as_array().unwrap(),
        c["procs"].as_array().unwrap(),
    );
    assert_eq!((sizes.len(), procs.len()), (9, 2));
    let alternatives = c["alternatives"].as_array().unwrap();
    assert_eq!(alternatives[0]["as_written"], true);
    for a in alternatives {
        let times = a["time_s"].as_array().unwrap();
        assert_eq!(times.len(), procs.len(), "{}", a["label"]);
        assert!(
            times
                .iter()
                .all(|t| t.as_array().unwrap().len() == sizes.len())
        );
    }
    // Every crossing the text names over N is in the JSON, and no other.
    let mut from_text: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("crossing: from N = "))
        .map(|rest| rest.split(" on, ").next().unwrap().to_string())
        .collect();
    let mut from_json: Vec<String> = c["crossings_n"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|x| x["crossings"].as_array().unwrap())
        .map(|x| x["at"].to_string())
        .collect();
    from_text.sort();
    from_json.sort();
    assert!(!from_json.is_empty());
    assert_eq!(from_text, from_json);
    insta::assert_json_snapshot!("compare_jacobi.json", doc);
}

/// A distribution whose communication is not modelled (a reduction with DIM=) gets
/// times that are lower bounds: `≥` in the table with its legend, `complete: false`
/// in JSON, never a plain number.
#[test]
fn times_that_leave_communication_out_are_marked_lower_bounds() {
    let args = [
        "tests/fixtures/free/dim_reduction_hpf.f90",
        "--param",
        "n=16..64",
        "--procs",
        "4",
        "--top",
        "1",
    ];
    let text = compare(&args);
    assert!(text.contains("≥ "), "{text}");
    assert!(text.contains("≥: a lower bound"), "{text}");
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&compare(&json_args)).expect("JSON");
    for a in doc["comparisons"][0]["alternatives"].as_array().unwrap() {
        let (times, complete) = (&a["time_s"][0], &a["complete"][0]);
        let n = times.as_array().unwrap().len();
        assert_eq!(complete.as_array().unwrap().len(), n, "{a}");
        for k in 0..n {
            assert!(times[k].is_f64(), "{a}");
            assert_eq!(complete[k], false, "{a}");
        }
    }
    // Where nothing is left out, nothing is marked.
    let jacobi = compare(&ARGS);
    assert!(!jacobi.contains("lower bound"), "{jacobi}");
    let cells = jacobi
        .lines()
        .filter(|l| l.contains(" ms") || l.contains(" µs"));
    assert!(cells.clone().count() > 0);
    for line in cells.filter(|l| !l.contains(" faster ")) {
        assert!(!line.contains('≥'), "{line}");
    }
}
