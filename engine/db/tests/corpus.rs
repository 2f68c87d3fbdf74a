//! The front end over a large body of real Fortran nobody here wrote: the Debian
//! source packages of LAPACK (fixed and free form) and MUMPS (free-form Fortran 90 with
//! MPI calls and cpp conditionals), fetched on first use by tests/corpus/fetch.sh.
//! Every file must load and lower without a panic, each in under a second (a file over
//! it is timed twice more, and its fastest run counts).

use costline_db::project;
use costline_syntax::diagnostics::Severity;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The per-file bound of the issue: no file slower than this.
const MAX_PER_FILE: Duration = Duration::from_secs(1);

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("workspace root")
        .to_path_buf()
}

/// The corpus directory, fetched if it is not there yet; `None` when it is missing and
/// the tests are offline (`COSTLINE_OFFLINE`: the test is skipped, saying so).
fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("COSTLINE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/corpus"));
    if !dir.join(".complete").exists() {
        let status = Command::new("bash")
            .arg(workspace().join("tests/corpus/fetch.sh"))
            .arg(&dir)
            .status()
            .expect("bash runs");
        if status.code() == Some(costline_fixtures::network::OFFLINE_EXIT) {
            costline_fixtures::network::skip(
                "real_fortran_loads_without_panics_within_a_second_per_file",
                "the LAPACK and MUMPS sources (Debian source packages, apt-get source)",
                &format!("bash tests/corpus/fetch.sh {}", dir.display()),
            );
            return None;
        }
        assert!(
            status.success(),
            "fetching the corpus failed (tests/corpus/fetch.sh {}): it needs apt-get and the Debian mirror",
            dir.display()
        );
    }
    Some(dir)
}

fn fortran_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            fortran_files(&path, out);
        } else if let Some(ext) = path.extension().and_then(|e| e.to_str())
            && matches!(
                ext,
                "f" | "F" | "for" | "f77" | "f90" | "F90" | "f95" | "f03" | "f08"
            )
        {
            out.push(path);
        }
    }
}

#[test]
fn real_fortran_loads_without_panics_within_a_second_per_file() {
    let Some(dir) = corpus() else {
        return;
    };
    let mut files = Vec::new();
    fortran_files(&dir, &mut files);
    assert!(
        files.len() > 1000,
        "the corpus should hold thousands of files, found {}",
        files.len()
    );

    let mut panics = Vec::new();
    let mut slow = Vec::new();
    let mut times = Vec::with_capacity(files.len());
    let mut by_file: Vec<(Duration, String)> = Vec::with_capacity(files.len());
    let (mut bytes_total, mut lines_total, mut units_total) = (0usize, 0usize, 0usize);
    let mut findings: BTreeMap<(Severity, &'static str), usize> = BTreeMap::new();
    let start = Instant::now();
    for path in &files {
        let bytes = std::fs::read(path).expect("corpus file readable");
        bytes_total += bytes.len();
        lines_total += bytes.iter().filter(|&&b| b == b'\n').count();
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let input = [(name.clone(), bytes)];
        let t = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| {
            project::analyze(&input, &BTreeMap::new())
        }));
        let mut elapsed = t.elapsed();
        if elapsed > MAX_PER_FILE && result.is_ok() {
            // A time over the bound is measured again: the file is slow if its fastest
            // of three runs is (one run on a shared 2-core machine can be preempted).
            for _ in 0..2 {
                let t = Instant::now();
                drop(project::analyze(&input, &BTreeMap::new()));
                elapsed = elapsed.min(t.elapsed());
            }
        }
        times.push(elapsed);
        by_file.push((elapsed, name.clone()));
        if elapsed > MAX_PER_FILE {
            slow.push(format!("{name}: {elapsed:?} (fastest of 3 runs)"));
        }
        match result {
            Err(_) => panics.push(name),
            Ok(analyses) => {
                for file in analyses.into_iter().flatten() {
                    units_total += file.units.len();
                    let unit_diags = file.units.iter().flat_map(|u| u.diagnostics.iter());
                    for d in file.diagnostics.iter().chain(unit_diags) {
                        *findings.entry((d.severity, d.code)).or_default() += 1;
                    }
                }
            }
        }
    }
    let total = start.elapsed();
    times.sort();
    let pct = |p: usize| times[(times.len() - 1) * p / 100];
    eprintln!(
        "corpus: {} files, {} lines, {:.1} MB, {units_total} units in {total:.2?} \
         (per file: median {:?}, p99 {:?}, max {:?})",
        files.len(),
        lines_total,
        bytes_total as f64 / 1e6,
        pct(50),
        pct(99),
        times.last().expect("files"),
    );
    by_file.sort();
    for (t, name) in by_file.iter().rev().take(5) {
        eprintln!("  slowest: {t:?} {name}");
    }
    for ((severity, code), n) in &findings {
        eprintln!("  {n:>6} {}[{code}]", severity.as_str());
    }
    assert!(
        panics.is_empty(),
        "panicked on {} files: {panics:?}",
        panics.len()
    );
    assert!(slow.is_empty(), "slower than {MAX_PER_FILE:?}: {slow:?}");
}
