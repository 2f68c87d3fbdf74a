//! The vectorization rules (`costline_model::time::vectorize`) against the real
//! compiler: for every innermost loop of `vectorize_loops.f90` (unit stride, carried
//! dependences at distances 1 and 2, an anti-dependence, a row of a column-major array,
//! stride 2, FP and integer reductions, a conditional store, vector math, constant trip
//! counts that are and are not a multiple of the vector, a gather, real(4); and the same
//! kinds with constant trip counts, for -O2's very cheap cost model) and for
//! several flag sets, the verdict and its vector width equal what `gfortran
//! -fopt-info-vec-all` reports. Skipped, with a note, where gfortran is not installed.

use costline_db::project;
use costline_model::time::vectorize::{Compiler, verdict};
use costline_syntax::ir::StmtKind;
use std::collections::BTreeMap;
use std::process::Command;

const SOURCE: &str = include_str!("vectorize_loops.f90");

/// gfortran's verdict per subroutine: Some(bytes of the main vector) or None.
fn gfortran(flags: &str) -> Option<BTreeMap<String, Option<u32>>> {
    let dir = std::env::temp_dir().join(format!("costline-vec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join("v.f90");
    std::fs::write(&file, SOURCE).ok()?;
    let out = Command::new("gfortran")
        .args(flags.split_whitespace())
        .args(["-c", "v.f90", "-o", "v.o", "-fopt-info-vec-all"])
        .current_dir(&dir)
        .output()
        .ok()?;
    let _ = std::fs::remove_dir_all(&dir);
    let report = String::from_utf8_lossy(&out.stderr);
    // The subroutine each line is in.
    let mut starts: Vec<(usize, String)> = Vec::new();
    for (i, line) in SOURCE.lines().enumerate() {
        if let Some(rest) = line.trim().strip_prefix("subroutine ") {
            let name = rest.split('(').next().unwrap_or("").trim().to_string();
            starts.push((i + 1, name));
        }
    }
    let unit_of = |line: usize| {
        starts
            .iter()
            .rev()
            .find(|(start, _)| *start <= line)
            .map(|(_, n)| n.clone())
    };
    let mut out: BTreeMap<String, Option<u32>> =
        starts.iter().map(|(_, n)| (n.clone(), None)).collect();
    for l in report.lines() {
        let Some(rest) = l.strip_prefix("v.f90:") else {
            continue;
        };
        let line: usize = rest.split(':').next()?.parse().ok()?;
        if let Some(bytes) = rest
            .split("optimized: loop vectorized using ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|b| b.parse::<u32>().ok())
        {
            let entry = out.entry(unit_of(line)?).or_insert(None);
            // The main loop's vector (an epilogue may take a narrower one after it).
            if entry.is_none() {
                *entry = Some(bytes);
            }
        }
    }
    Some(out)
}

/// The rules' verdict per subroutine: Some(bytes of the vector) or None.
fn rules(flags: &str) -> BTreeMap<String, Option<u32>> {
    let files = project::analyze(&[("v.f90".into(), SOURCE.into())], &Default::default());
    let file = files.into_iter().next().unwrap().unwrap();
    let compiler = Compiler::gnu("gfortran", flags);
    let mut out = BTreeMap::new();
    for u in &file.units {
        let mut found = None;
        u.unit.walk(&mut |s, _| {
            if matches!(s.kind, StmtKind::Loop(_))
                && let Some(v) = verdict(&u.unit, s, &compiler)
            {
                found = v.vectorized.then_some(v.vector_bytes);
            }
        });
        out.insert(u.unit.name.clone(), found);
    }
    out
}

#[test]
fn the_rules_agree_with_gfortran_on_which_loops_vectorize_and_how_wide() {
    if Command::new("gfortran").arg("--version").output().is_err() {
        eprintln!("gfortran not found: the vectorization rules are not compared with it");
        return;
    }
    for flags in [
        "-O1",
        "-O2",
        "-O3",
        "-O3 -mavx2",
        "-O2 -ftree-vectorize -fvect-cost-model=dynamic",
        "-O3 -fno-tree-vectorize",
    ] {
        let truth = gfortran(flags).expect("gfortran runs");
        let mine = rules(flags);
        assert_eq!(
            mine, truth,
            "with {flags}: the rules (left) against gfortran (right)"
        );
    }
}

/// The time of each unit of `text` with n = 1000, built with `compiler`.
fn times(text: &str, compiler: &str) -> BTreeMap<String, f64> {
    let options = costline_db::Options {
        bindings: [("n".to_string(), 1000)].into_iter().collect(),
        compiler: Some(compiler.to_string()),
        ..Default::default()
    };
    let files = project::analyze_with(&[("t.f90".into(), text.as_bytes().to_vec())], &options);
    let file = files.into_iter().next().unwrap().unwrap();
    file.units
        .iter()
        .map(|u| (u.unit.name.clone(), u.times.unit.time_s))
        .collect()
}

#[test]
fn a_vectorized_loop_costs_a_lane_s_share_and_a_recurrence_its_latencies() {
    let text = "subroutine l1(n, a, b, c)\n  integer :: n, i\n  real(8) :: a(n), b(n), c(n)\n  \
                do i = 1, n\n    a(i) = b(i) * c(i) + 1.0d0\n  end do\nend subroutine\n\
                subroutine l2(n, a, b, c)\n  integer :: n, i\n  real(8) :: a(n), b(n), c(n)\n  \
                do i = 2, n\n    a(i) = a(i-1) * c(i) + b(i)\n  end do\nend subroutine\n";
    let o2 = times(text, "gfortran -O2");
    let o3 = times(text, "gfortran -O3");
    // -O3 vectorizes l1 two doubles wide: half the time (all in L1).
    let ratio = o3["l1"] / o2["l1"];
    assert!((0.49..0.51).contains(&ratio), "{ratio}");
    // l2 waits for the previous element: neither level vectorizes it, and each
    // iteration takes at least a multiplication's and an addition's latency.
    assert_eq!(o2["l2"], o3["l2"]);
    let machine = costline_model::machine::Catalog::default_machine();
    let floor = 999.0 * 2.0 * machine.processor.ops["latency_add_f64"];
    assert!(o2["l2"] >= floor, "{} < {floor}", o2["l2"]);
}
