//! Machine models as users meet them: `costline machines`, `--machine NAME|PATH`, a
//! malformed machine file (its path, line and key in the error), and `costline train
//! --quick` on this machine (what CI runs: under 3 minutes, a model that loads).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn costline(args: &[&str], dir: &Path) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_costline"))
        .args(args)
        .current_dir(dir)
        .env_remove("COSTLINE_MACHINES")
        .output()
        .expect("costline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "costline panicked:\n{stderr}");
    out
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("costline-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_shipped_models_are_listed_with_their_provenance() {
    let dir = temp_dir("machines-list");
    let out = costline(&["machines"], &dir);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for name in ["ib-hdr (default)", "eth-25g", "multicore", "ipsc860"] {
        assert!(text.contains(name), "{name} missing:\n{text}");
    }
    assert_eq!(text.matches("provenance: ").count(), 4, "{text}");
    assert!(text.contains("[shipped]"), "{text}");
}

/// `--format json`: versioned, in the catalog's order, each model with its source,
/// whether it is the default, its description and provenance; the text says the same.
#[test]
fn the_models_are_listed_as_json_for_scripts_and_editors() {
    let dir = temp_dir("machines-json");
    let out = costline(&["machines", "--format", "json"], &dir);
    assert_eq!(out.status.code(), Some(0));
    let listing: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(listing["version"], 1);
    assert_eq!(listing["default"], "ib-hdr");
    let machines = listing["machines"].as_array().expect("machines");
    let names: Vec<&str> = machines
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ib-hdr", "eth-25g", "multicore", "ipsc860"]);
    let defaults: Vec<&str> = machines
        .iter()
        .filter(|m| m["default"] == true)
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(defaults, ["ib-hdr"]);
    let text = String::from_utf8(costline(&["machines"], &dir).stdout).unwrap();
    for m in machines {
        assert_eq!(m["source"], "shipped");
        let description = m["description"].as_str().expect("a description");
        let provenance = m["provenance"].as_str().expect("a provenance");
        assert!(
            text.contains(description) && text.contains(provenance),
            "{m}"
        );
    }
    // The keys in the order the contract lists them, not alphabetically.
    let raw = String::from_utf8(out.stdout).unwrap();
    let at = |key: &str| raw.find(&format!("\"{key}\"")).expect(key);
    assert!(at("version") < at("default") && at("default") < at("machines"));
}

#[test]
fn a_malformed_machine_file_names_path_line_and_key() {
    let dir = temp_dir("machines-bad");
    let good =
        std::fs::read_to_string(root().join("tests/fixtures/machines/hockney.toml")).unwrap();
    let bad = good.replace("mul_f64 = 1.0e-9", "mul_f64 = \"fast\"");
    let line = bad.lines().position(|l| l.starts_with("mul_f64")).unwrap() + 1;
    std::fs::write(dir.join("bad.toml"), bad).unwrap();
    let fixture = root().join("tests/fixtures/free/jacobi_hpf.f90");
    let out = costline(
        &["check", fixture.to_str().unwrap(), "--machine", "bad.toml"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("bad.toml:{line}:"))
            && stderr.contains("key `processor.ops.mul_f64`"),
        "{stderr}"
    );
    // A bad file in a machine directory is listed with its error.
    std::fs::create_dir_all(dir.join("machines")).unwrap();
    std::fs::rename(dir.join("bad.toml"), dir.join("machines/bad.toml")).unwrap();
    let out = costline(&["machines"], &dir);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("invalid: ") && text.contains("processor.ops.mul_f64"),
        "{text}"
    );
    let out = costline(&["machines", "--format", "json"], &dir);
    assert_eq!(out.status.code(), Some(1));
    let listing: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let bad = listing["machines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "bad")
        .expect("the bad model is listed");
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("processor.ops.mul_f64")
            && bad["source"]
                .as_str()
                .unwrap()
                .ends_with("machines/bad.toml")
            && bad.get("description").is_none(),
        "{bad}"
    );
}

#[test]
fn a_machine_by_name_prices_the_report() {
    let fixture = root().join("tests/fixtures/free/jacobi_hpf.f90");
    let module = root().join("tests/fixtures/free/grid_params.f90");
    let time_on = |machine: &str| {
        let out = costline(
            &[
                "check",
                fixture.to_str().unwrap(),
                module.to_str().unwrap(),
                "--machine",
                machine,
                "--format",
                "json",
            ],
            &root(),
        );
        assert_eq!(out.status.code(), Some(0));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["machine"], machine);
        r["files"][0]["units"][0]["metrics"]["time_s"]
            .as_f64()
            .expect("a predicted time")
    };
    let modern = time_on("ib-hdr");
    let old = time_on("ipsc860");
    assert!(old > 20.0 * modern, "{old} vs {modern}");
    let out = costline(
        &["check", fixture.to_str().unwrap(), "--machine", "cray-1"],
        &root(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("known: ib-hdr"));
}

/// What CI runs: the quick training set on this machine. Without a Fortran compiler the
/// command says so and fails cleanly.
#[test]
fn train_quick_writes_a_valid_model_in_under_three_minutes() {
    let dir = temp_dir("train");
    let out_path = dir.join("local.toml");
    let start = Instant::now();
    let out = costline(
        &["train", "--quick", "--out", out_path.to_str().unwrap()],
        &dir,
    );
    let elapsed = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let fc = std::env::var("FC").unwrap_or_else(|_| "gfortran".into());
    let has_fc = Command::new(&fc).arg("--version").output().is_ok();
    if !has_fc {
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&fc), "{stderr}");
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(elapsed < Duration::from_secs(180), "took {elapsed:?}");
    let model = costline_ide::machine::read(&out_path).expect("the written model loads");
    let training = model.training.expect("training section");
    assert!(training.quick);
    assert!(
        training.fit_rel_rms.contains_key("ops"),
        "{:?}",
        training.fit_rel_rms
    );
    assert!(
        model
            .provenance
            .starts_with("measured by costline train on ")
    );
    for op in [
        "add_f64",
        "mul_f64",
        "div_f64",
        "loop_iter",
        "intrinsic_sqrt",
    ] {
        assert!(model.processor.ops[op] > 0.0, "{op}");
    }
    // Divisions cost more than additions on every machine since the 1950s.
    assert!(model.processor.ops["div_f64"] > model.processor.ops["add_f64"]);
    assert!(!model.memory.levels.is_empty());
    // The model prices a report.
    let fixture = root().join("tests/fixtures/free/jacobi_hpf.f90");
    let out = costline(
        &[
            "check",
            fixture.to_str().unwrap(),
            "--machine",
            out_path.to_str().unwrap(),
            "--format",
            "json",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["machine"], "local");
}
