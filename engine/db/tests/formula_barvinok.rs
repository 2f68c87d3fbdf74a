//! The oracle for printed formulas: random loop nests of depth 1 to 4 over the unknowns
//! `n` and `m` (affine bounds in the parameters and the enclosing loops' variables, MIN
//! and MAX, steps of ±1, 2, 3 and -2) are counted by costline, and every loop's count
//! formula, as the disjoint cases it prints (`Piecewise::cases`, what `display` renders),
//! is compared with barvinok's cardinality (`isl.Set(...).card()`, through
//! `tests/oracles/barvinok_card.py`) of the same iteration set written in isl's syntax, on
//! a grid of parameter values and a few large points. At every point at most one printed
//! case may hold, and a formula printed as a sum (too many cases) is counted apart.
//!
//! Nests the symbolic sum gives up on have no formula: they are counted, reported, and
//! their numeric count (`Count::eval`) is compared with barvinok on part of the grid
//! instead; the large majority must have a formula, and every formula must agree exactly.
//!
//! barvinok comes from PyPI (`islpy-barvinok`) in a virtual environment at
//! `target/oracles/venv`, which `tests/oracles/ensure-barvinok.sh` creates when it is
//! missing; without it the test fails. All sets go to one Python process. Run with
//! `--nocapture` for the numbers.

use costline_db::project;
use costline_model::freq::{self, FreqOptions};
use costline_symbolic::{Cases, Num};
use costline_syntax::ir::{Stmt, StmtKind, Unit};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// How many nests.
const NESTS: usize = 500;

/// The generator's seed.
const SEED: u64 = 0x0024_c057_110e;

const PARAMS: [&str; 2] = ["n", "m"];

/// The small grid: every (n, m) in these ranges (the numeric fallback is checked here).
const GRID: [(i64, i64); 2] = [(-1, 9), (-1, 6)];

/// Where there is no formula, the numeric count (slow: a count per point) is compared on
/// the part of the grid up to these values.
const FALLBACK: [i64; 2] = [6, 4];

/// Large points, for floors, periods and cases that the grid does not reach.
const LARGE: [[i64; 2]; 6] = [[15, 4], [4, 15], [20, 13], [31, 17], [47, 40], [100, 3]];

/// The least share of the loops that must have a formula.
const MIN_FORMULA_SHARE: f64 = 0.9;

// ---------------------------------------------------------------------------------------
// The nests

/// splitmix64: deterministic and good enough for choosing.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    fn pick<T: Clone>(&mut self, options: &[T]) -> T {
        options[self.next() as usize % options.len()].clone()
    }

    /// An index chosen with the given weights.
    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut r = (self.next() % u64::from(total)) as u32;
        for (k, w) in weights.iter().enumerate() {
            if r < *w {
                return k;
            }
            r -= w;
        }
        unreachable!()
    }
}

/// `Σ coef·name + constant`, names being parameters or loop variables `i1..i4`.
#[derive(Clone, Debug)]
struct Affine {
    terms: Vec<(i64, String)>,
    constant: i64,
}

impl fmt::Display for Affine {
    /// The same text in Fortran and in isl: `2*n - i1 + 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        for (k, (c, v)) in self.terms.iter().enumerate() {
            out += match (k == 0, *c < 0) {
                (true, true) => "-",
                (true, false) => "",
                (false, true) => " - ",
                (false, false) => " + ",
            };
            if c.abs() != 1 {
                let _ = write!(out, "{}*", c.abs());
            }
            out += v;
        }
        if self.terms.is_empty() {
            let _ = write!(out, "{}", self.constant);
        } else if self.constant != 0 {
            let sign = if self.constant < 0 { '-' } else { '+' };
            let _ = write!(out, " {sign} {}", self.constant.abs());
        }
        f.write_str(&out)
    }
}

#[derive(Clone, Debug)]
enum Bound {
    Affine(Affine),
    Min(Affine, Affine),
    Max(Affine, Affine),
}

impl fmt::Display for Bound {
    /// The same text in Fortran and in isl (`min(n, i1 + 2)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Affine(a) => write!(f, "{a}"),
            Bound::Min(a, b) => write!(f, "min({a}, {b})"),
            Bound::Max(a, b) => write!(f, "max({a}, {b})"),
        }
    }
}

/// `do iK = first, last, step`.
#[derive(Clone, Debug)]
struct Loop {
    first: Bound,
    last: Bound,
    step: i64,
}

struct Generator(Rng);

impl Generator {
    /// Up to two terms over the parameters and the variables of the `level` enclosing
    /// loops, coefficients mostly 1, constant in [-3, 5].
    fn affine(&mut self, level: usize, outer: bool) -> Affine {
        let mut names: Vec<String> = PARAMS.iter().map(|p| p.to_string()).collect();
        if outer {
            names.extend((1..=level).map(|k| format!("i{k}")));
        }
        let terms = (0..self.0.range(0, 2))
            .map(|_| (self.0.pick(&[1, 1, 1, -1, 2]), self.0.pick(&names)))
            .collect();
        Affine {
            terms,
            constant: self.0.range(-3, 5),
        }
    }

    fn simple(&mut self, name: String, constant: i64) -> Affine {
        Affine {
            terms: vec![(1, name)],
            constant,
        }
    }

    /// A lower bound of the loop at `level`: mostly 1, an enclosing variable plus an
    /// offset, or an affine expression; sometimes a MAX (or a MIN).
    fn lower(&mut self, level: usize) -> Bound {
        let outer = level > 0;
        match self
            .0
            .weighted(&[3, 1, 1, if outer { 3 } else { 0 }, 1, 1, 1])
        {
            0 => Bound::Affine(Affine {
                terms: Vec::new(),
                constant: 1,
            }),
            1 => Bound::Affine(Affine {
                terms: Vec::new(),
                constant: self.0.range(-3, 5),
            }),
            2 => Bound::Affine(self.affine(level, false)),
            3 => {
                let v = format!("i{}", self.0.range(1, level as i64));
                let c = self.0.range(-1, 1);
                Bound::Affine(self.simple(v, c))
            }
            4 => Bound::Affine(self.affine(level, true)),
            5 => Bound::Max(self.affine(level, true), self.affine(level, true)),
            _ => Bound::Min(self.affine(level, true), self.affine(level, true)),
        }
    }

    /// An upper bound: mostly `n` or `m`, an enclosing variable plus an offset, or an
    /// affine expression; sometimes a MIN (or a MAX).
    fn upper(&mut self, level: usize) -> Bound {
        let outer = level > 0;
        match self.0.weighted(&[3, 1, if outer { 3 } else { 0 }, 1, 2, 1]) {
            0 => {
                let p = self.0.pick(&PARAMS).to_string();
                let c = self.0.range(-1, 1);
                Bound::Affine(self.simple(p, c))
            }
            1 => Bound::Affine(self.affine(level, false)),
            2 => {
                let v = format!("i{}", self.0.range(1, level as i64));
                let c = self.0.range(-1, 2);
                Bound::Affine(self.simple(v, c))
            }
            3 => Bound::Affine(self.affine(level, true)),
            4 => {
                let p = self.0.pick(&PARAMS).to_string();
                let c = self.0.range(-1, 1);
                Bound::Min(self.simple(p, c), self.affine(level, true))
            }
            _ => Bound::Max(self.affine(level, true), self.affine(level, true)),
        }
    }

    fn nest(&mut self) -> Vec<Loop> {
        let depth = self.0.range(1, 4) as usize;
        (0..depth)
            .map(|level| {
                let (lo, hi) = (self.lower(level), self.upper(level));
                let step = self.0.pick(&[1, 1, 1, 2, 3, -1, -2]);
                // A negative step usually runs from the upper bound down.
                let (first, last) = if step < 0 && self.0.range(0, 4) > 0 {
                    (hi, lo)
                } else {
                    (lo, hi)
                };
                Loop { first, last, step }
            })
            .collect()
    }
}

/// The nest as a Fortran subroutine, the counter `c1 = c1 + 1` innermost.
fn fortran(nest: &[Loop]) -> String {
    let mut body = String::new();
    for (k, l) in nest.iter().enumerate() {
        let step = if l.step == 1 {
            String::new()
        } else {
            format!(", {}", l.step)
        };
        let _ = writeln!(
            body,
            "{}do i{} = {}, {}{step}",
            "  ".repeat(k + 1),
            k + 1,
            l.first,
            l.last
        );
    }
    let _ = writeln!(body, "{}c1 = c1 + 1", "  ".repeat(nest.len() + 1));
    for k in (0..nest.len()).rev() {
        let _ = writeln!(body, "{}end do", "  ".repeat(k + 1));
    }
    format!(
        "subroutine nest(n, m)\n  implicit none\n  integer :: n, m\n  \
         integer :: i1, i2, i3, i4, c1\n{body}end subroutine\n"
    )
}

/// The iterations of the first `levels` loops in isl's syntax: loop `iK` runs `first,
/// first + step, ...` while within `last`: between the bounds, and `first` plus a
/// multiple of the step (`exists eK`).
fn isl_set(nest: &[Loop], levels: usize) -> String {
    let mut vars = Vec::new();
    let mut constraints = Vec::new();
    for (k, l) in nest[..levels].iter().enumerate() {
        let i = format!("i{}", k + 1);
        let (lo, hi) = if l.step > 0 {
            (&l.first, &l.last)
        } else {
            (&l.last, &l.first)
        };
        constraints.push(format!("{lo} <= {i} <= {hi}"));
        if l.step.abs() != 1 {
            let sign = if l.step > 0 { '+' } else { '-' };
            constraints.push(format!(
                "(exists e{k}: {i} = {} {sign} {}*e{k})",
                l.first,
                l.step.abs()
            ));
        }
        vars.push(i);
    }
    format!(
        "[{}] -> {{ [{}] : {} }}",
        PARAMS.join(", "),
        vars.join(", "),
        constraints.join(" and ")
    )
}

// ---------------------------------------------------------------------------------------
// costline

/// The unit of a Fortran text that must parse cleanly.
fn lower_unit(source: &str) -> Unit {
    let files = project::analyze(
        &[("nest.f90".into(), source.as_bytes().to_vec())],
        &BTreeMap::new(),
    );
    let file = files
        .into_iter()
        .next()
        .expect("one file")
        .unwrap_or_else(|e| panic!("{e:?}\n{source}"));
    let [unit] = <[_; 1]>::try_from(file.units).unwrap_or_else(|_| panic!("one unit\n{source}"));
    let errors: Vec<_> = file
        .diagnostics
        .iter()
        .chain(unit.diagnostics.iter())
        .filter(|d| d.severity == costline_syntax::diagnostics::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "diagnostics {errors:?}\n{source}");
    Unit::clone(&unit.unit)
}

/// What costline says about one loop (or the counter): its formula's cases, or its
/// count to evaluate numerically.
struct Counted {
    cases: Option<Cases>,
    count: freq::Count,
}

fn options() -> FreqOptions {
    FreqOptions {
        unit_max_steps: None,
        ..FreqOptions::default()
    }
}

/// The counts of the loops, outermost first (a loop's count is its iterations: the
/// points of the iteration set of it and its enclosing loops).
fn costline_counts(nest: &[Loop], source: &str) -> Vec<Counted> {
    let unit = lower_unit(source);
    let mut stmts: Vec<&Stmt> = Vec::new();
    unit.walk(&mut |s, _| stmts.push(s));
    assert_eq!(stmts.len(), nest.len() + 1, "{source}");
    let freqs = freq::frequencies(&unit, &options());
    stmts[..nest.len()]
        .iter()
        .map(|s| {
            assert!(matches!(s.kind, StmtKind::Loop(_)), "{source}");
            let count = freqs.of(s.id).expect("a count").clone();
            assert!(count.is_exact(), "{:?}\n{source}", count.assumptions);
            Counted {
                cases: count.symbolic().map(|p| p.cases()),
                count,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// barvinok

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The venv's Python with islpy-barvinok, installed when missing, or `None` when it is missing and the tests are offline
/// (`COSTLINE_OFFLINE`: the test is skipped, saying so).
fn barvinok_python() -> Option<PathBuf> {
    let root = root();
    let out = Command::new("bash")
        .arg(root.join("tests/oracles/ensure-barvinok.sh"))
        .arg(root.join("target/oracles/venv"))
        .output()
        .expect("bash runs");
    if out.status.code() == Some(costline_fixtures::network::OFFLINE_EXIT) {
        costline_fixtures::network::skip(
            "printed_formulas_agree_with_barvinok",
            "islpy-barvinok from PyPI in target/oracles/venv",
            "bash tests/oracles/ensure-barvinok.sh target/oracles/venv",
        );
        return None;
    }
    assert!(
        out.status.success(),
        "barvinok is needed for this test and could not be installed: \
         `bash tests/oracles/ensure-barvinok.sh target/oracles/venv` failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(PathBuf::from(
        String::from_utf8(out.stdout).expect("a path").trim(),
    ))
}

/// barvinok's counts: `values[set][point]`, and the time it took.
fn barvinok(python: PathBuf, sets: &[String], points: &[[i64; 2]]) -> (Vec<Vec<i128>>, f64) {
    let mut child = Command::new(python)
        .arg(root().join("tests/oracles/barvinok_card.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    let request = json!({ "params": PARAMS, "points": points, "sets": sets });
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(request.to_string().as_bytes()));
    let out = child.wait_with_output().expect("python ends");
    writer.join().expect("writer").expect("request written");
    assert!(
        out.status.success(),
        "barvinok_card.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: Value = serde_json::from_slice(&out.stdout).expect("JSON from barvinok_card.py");
    let values = answer["values"]
        .as_array()
        .expect("values")
        .iter()
        .zip(sets)
        .map(|(row, set)| {
            row.as_array()
                .expect("a row")
                .iter()
                .map(|v| {
                    let v = v.as_str().expect("a string");
                    v.parse()
                        .unwrap_or_else(|_| panic!("barvinok counts {v} in {set}"))
                })
                .collect()
        })
        .collect();
    (values, answer["seconds"].as_f64().unwrap_or(0.0))
}

// ---------------------------------------------------------------------------------------
// The oracle

fn exact(n: Num) -> Result<i128, String> {
    match n {
        Num::Exact(r) => r.as_integer().ok_or_else(|| format!("the fraction {r}")),
        Num::Approx(f) => Err(format!("the approximation {f}")),
    }
}

#[test]
fn printed_formulas_agree_with_barvinok() {
    let Some(python) = barvinok_python() else {
        return;
    };
    let start = Instant::now();
    let mut generator = Generator(Rng(SEED));
    let nests: Vec<Vec<Loop>> = (0..NESTS).map(|_| generator.nest()).collect();
    let sources: Vec<String> = nests.iter().map(|n| fortran(n)).collect();

    let mut sets = Vec::new();
    let mut counted = Vec::new();
    // (nest, level) of each set.
    let mut origin = Vec::new();
    for (k, (nest, source)) in nests.iter().zip(&sources).enumerate() {
        for (level, c) in costline_counts(nest, source).into_iter().enumerate() {
            sets.push(isl_set(nest, level + 1));
            counted.push(c);
            origin.push((k, level));
        }
    }
    let analysed = start.elapsed();

    let mut points: Vec<[i64; 2]> = Vec::new();
    for n in GRID[0].0..=GRID[0].1 {
        for m in GRID[1].0..=GRID[1].1 {
            points.push([n, m]);
        }
    }
    let small = points.len();
    points.extend(LARGE);
    let (expected, python_seconds) = barvinok(python, &sets, &points);

    let (mut formulas, mut sums, mut cases_total, mut values) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for (s, c) in counted.iter().enumerate() {
        let (k, level) = origin[s];
        let context = || {
            format!(
                "loop {} of nest {k}, isl {}\n{}",
                level + 1,
                sets[s],
                sources[k]
            )
        };
        let (limit, shown) = match &c.cases {
            Some(cases) => {
                formulas += 1;
                cases_total += cases.len();
                if matches!(cases, Cases::Sum(_)) {
                    sums += 1;
                }
                (
                    points.len(),
                    cases.display(costline_symbolic::Notation::Fortran),
                )
            }
            None => (small, "no formula".to_string()),
        };
        for (p, point) in points[..limit].iter().enumerate() {
            if c.cases.is_none() && (point[0] > FALLBACK[0] || point[1] > FALLBACK[1]) {
                continue;
            }
            let env = |name: &str| {
                PARAMS
                    .iter()
                    .position(|x| *x == name)
                    .map(|i| i128::from(point[i]))
            };
            let got = match &c.cases {
                Some(cases) => {
                    if let Cases::Disjoint(list) = cases {
                        let holding = list
                            .iter()
                            .filter(|case| case.guard.iter().all(|g| g.eval(&env).unwrap()))
                            .count();
                        if holding > 1 {
                            failures.push(format!(
                                "{holding} cases hold at n={} m={}: {shown}\n{}",
                                point[0],
                                point[1],
                                context()
                            ));
                        }
                    }
                    cases.eval(&env).map_err(|e| e.to_string())
                }
                None => c.count.eval(&env, &options()).map_err(|e| e.to_string()),
            }
            .and_then(exact);
            values += 1;
            if got != Ok(expected[s][p]) {
                failures.push(format!(
                    "at n={} m={}: barvinok {}, costline {got:?} ({shown})\n{}",
                    point[0],
                    point[1],
                    expected[s][p],
                    context()
                ));
            }
        }
    }
    let share = formulas as f64 / counted.len() as f64;
    eprintln!(
        "formula_barvinok: {NESTS} nests, {} loops: {formulas} with a formula ({:.1}%; {sums} \
         printed as a sum, {:.2} cases on average), {} without (numeric count checked on the \
         small grid up to {FALLBACK:?}); {values} values compared at {} points; costline {:.1} s, barvinok {:.1} \
         s, in all {:.1} s",
        counted.len(),
        100.0 * share,
        cases_total as f64 / formulas.max(1) as f64,
        counted.len() - formulas,
        points.len(),
        analysed.as_secs_f64(),
        python_seconds,
        start.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} disagreements with barvinok; the first:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n\n")
    );
    assert!(
        share >= MIN_FORMULA_SHARE,
        "only {formulas} of {} loops have a formula",
        counted.len()
    );
}
