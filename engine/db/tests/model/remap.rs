//! The remapping records against brute force: every element's owners under both
//! mappings, computed here from the formats by HPF's rules (DESIGN.md section 3),
//! independently of the ownership constraints and of `ValuedMapping`.

use costline_db::project;
use costline_model::comm::remap::*;
use costline_model::distribution::Remap;
use costline_model::distribution::UnitMappings;
use costline_model::freq::FreqOptions;
use costline_symbolic::Sym;
use std::collections::BTreeSet;

/// A format of one dimension, as written.
#[derive(Clone, Copy, Debug)]
enum F {
    Block,
    BlockK(i64),
    Cyclic(i64),
    Star,
}

impl F {
    fn text(self) -> String {
        match self {
            F::Block => "BLOCK".into(),
            F::BlockK(k) => format!("BLOCK({k})"),
            F::Cyclic(1) => "CYCLIC".into(),
            F::Cyclic(k) => format!("CYCLIC({k})"),
            F::Star => "*".into(),
        }
    }

    /// The 0-based grid coordinate of 1-based index `i` of `n` on `p` processors.
    fn coordinate(self, i: i64, n: i64, p: i64) -> Option<i64> {
        match self {
            F::Block => Some((i - 1) / ((n + p - 1) / p)),
            F::BlockK(k) => Some((i - 1) / k),
            F::Cyclic(k) => Some(((i - 1) / k) % p),
            F::Star => None,
        }
    }
}

/// How `a(n, m)` is mapped onto a grid: directly with two formats, or aligned with
/// `t(i, *)` where `t` is distributed with two formats (replicated along the grid
/// dimension of t's second one), or not at all.
#[derive(Clone, Debug)]
enum Spec {
    Direct([F; 2]),
    RowsReplicated([F; 2]),
    None,
}

/// The owners (1-based) of element (i, j) of an `n × m` array under `spec` on `grid`.
fn owners(spec: &Spec, i: i64, j: i64, n: i64, m: i64, grid: &[i64]) -> BTreeSet<usize> {
    let every: Vec<Vec<i64>> = grid.iter().map(|&p| (0..p).collect()).collect();
    let mut choices = every.clone();
    match spec {
        Spec::None => {}
        Spec::Direct(fs) | Spec::RowsReplicated(fs) => {
            let mut k = 0;
            for (d, f) in fs.iter().enumerate() {
                let (x, extent) = if d == 0 { (i, n) } else { (j, m) };
                if matches!(f, F::Star) {
                    continue;
                }
                let replicated = matches!(spec, Spec::RowsReplicated(_)) && d == 1;
                if !replicated {
                    choices[k] = vec![f.coordinate(x, extent, grid[k]).unwrap()];
                }
                k += 1;
            }
        }
    }
    let mut out = BTreeSet::from([0usize]);
    let mut stride = 1;
    for (cs, &p) in choices.iter().zip(grid) {
        out = out
            .iter()
            .flat_map(|&b| cs.iter().map(move |&c| b + stride * c as usize))
            .collect();
        stride *= p as usize;
    }
    out.into_iter().map(|p| p + 1).collect()
}

/// The elements each (sender, receiver) exchanges, by brute force.
fn brute(from: &Spec, to: &Spec, n: i64, m: i64, grid: &[i64]) -> Moved {
    let mut out = Moved::new();
    for i in 1..=n {
        for j in 1..=m {
            let o1 = owners(from, i, j, n, m, grid);
            let o2 = owners(to, i, j, n, m, grid);
            let sender = *o1.iter().next().unwrap();
            for r in o2.difference(&o1) {
                *out.entry((sender, *r)).or_default() += 1.0;
            }
        }
    }
    out
}

/// The directives mapping `name` by `spec` onto `g`.
fn directives(name: &str, spec: &Spec) -> String {
    match spec {
        Spec::Direct([f1, f2]) => {
            format!(
                "!HPF$ DISTRIBUTE {name}({}, {}) ONTO g\n",
                f1.text(),
                f2.text()
            )
        }
        Spec::RowsReplicated([f1, f2]) => format!(
            "!HPF$ TEMPLATE t_{name}(n, m)\n!HPF$ DISTRIBUTE t_{name}({}, {}) ONTO g\n\
             !HPF$ ALIGN {name}(i, j) WITH t_{name}(i, *)\n",
            f1.text(),
            f2.text()
        ),
        Spec::None => String::new(),
    }
}

/// The mappings of `a` (from) and `b` (to) in a unit declaring both.
fn mappings(from: &Spec, to: &Spec, n: i64, m: i64, grid: &[i64]) -> UnitMappings {
    let extents: Vec<String> = grid.iter().map(ToString::to_string).collect();
    let text = format!(
        "subroutine s\n  integer, parameter :: n = {n}, m = {m}\n  integer :: i, j\n  \
         real :: a(n, m), b(n, m)\n!HPF$ PROCESSORS g({})\n{}{}end subroutine s\n",
        extents.join(", "),
        directives("a", from),
        directives("b", to)
    );
    let files = project::analyze(
        &[("t.f90".into(), text.as_bytes().to_vec())],
        &Default::default(),
    );
    let file = files.into_iter().next().unwrap().unwrap();
    (*file.units[0].mappings).clone()
}

fn engine(from: &Spec, to: &Spec, n: i64, m: i64, grid: &[i64]) -> Result<Moved, String> {
    let maps = mappings(from, to, n, m, grid);
    let remap = Remap {
        array: "a".into(),
        shape: vec![
            (Sym::one(), Sym::int(n.into())),
            (Sym::one(), Sym::int(m.into())),
        ],
        from: maps.arrays.get("a").cloned(),
        to: maps.arrays.get("b").cloned(),
    };
    let env = |name: &str| match name {
        "n" => Some(i128::from(n)),
        "m" => Some(i128::from(m)),
        _ => None,
    };
    remap.moved(&env, &FreqOptions::default())
}

/// A deterministic stream of choices (a linear congruential generator).
struct Choices(u64);

impl Choices {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    fn format(&mut self, extent: i64, p: i64) -> F {
        match self.below(4) {
            0 => F::Block,
            1 => F::BlockK((extent + p - 1) / p + self.below(3) as i64),
            2 => F::Cyclic(1 + self.below(3) as i64),
            _ => F::Star,
        }
    }

    /// Two formats for an `n × m` array on `grid`: as many distributed as the grid has
    /// dimensions.
    fn formats(&mut self, n: i64, m: i64, grid: &[i64]) -> [F; 2] {
        loop {
            let f1 = self.format(n, grid[0]);
            let p2 = if matches!(f1, F::Star) || grid.len() == 1 {
                grid[0]
            } else {
                grid[1]
            };
            let f2 = self.format(m, p2);
            let distributed = [f1, f2].iter().filter(|f| !matches!(f, F::Star)).count();
            if distributed == grid.len() {
                // Block sizes were drawn for the grid dimension each lands on.
                let fix = |f: F, extent: i64, p: i64| match f {
                    F::BlockK(k) => F::BlockK(k.max((extent + p - 1) / p)),
                    f => f,
                };
                let g2 = *grid.last().unwrap();
                return match (f1, f2) {
                    (F::Star, f2) => [F::Star, fix(f2, m, grid[0])],
                    (f1, F::Star) => [fix(f1, n, grid[0]), F::Star],
                    (f1, f2) => [fix(f1, n, grid[0]), fix(f2, m, g2)],
                };
            }
        }
    }
}

#[test]
fn remapping_counts_match_brute_force() {
    let mut ch = Choices(7);
    let mut checked = 0;
    for case in 0..120 {
        let grid: Vec<i64> = if ch.below(2) == 0 {
            vec![1 + ch.below(5) as i64]
        } else {
            vec![1 + ch.below(3) as i64, 1 + ch.below(3) as i64]
        };
        let n = 1 + ch.below(11) as i64;
        let m = 1 + ch.below(9) as i64;
        let spec = |ch: &mut Choices| match ch.below(8) {
            0 => Spec::None,
            1 if grid.len() == 2 => {
                let f = ch.formats(n, m, &grid);
                if matches!(f[0], F::Star) || matches!(f[1], F::Star) {
                    Spec::Direct(f)
                } else {
                    Spec::RowsReplicated(f)
                }
            }
            _ => Spec::Direct(ch.formats(n, m, &grid)),
        };
        let from = spec(&mut ch);
        let to = spec(&mut ch);
        let expected = brute(&from, &to, n, m, &grid);
        let got = engine(&from, &to, n, m, &grid)
            .unwrap_or_else(|e| panic!("case {case}: {from:?} -> {to:?}: {e}"));
        assert_eq!(
            got, expected,
            "case {case}: a({n}, {m}) on {grid:?}: {from:?} -> {to:?}"
        );
        checked += expected.len();
    }
    // The cases are not all trivial.
    assert!(checked > 300, "{checked} pairs checked");
}

#[test]
fn a_transposing_redistribution_is_all_to_all() {
    // a(8, 8): (BLOCK, *) to (*, BLOCK) on 4 processors: each processor keeps its 2×2
    // diagonal block and sends 4 elements to each other processor.
    let from = Spec::Direct([F::Block, F::Star]);
    let to = Spec::Direct([F::Star, F::Block]);
    let got = engine(&from, &to, 8, 8, &[4]).unwrap();
    assert_eq!(got.len(), 12);
    assert!(got.values().all(|n| *n == 4.0), "{got:?}");
    let maps = mappings(&from, &to, 8, 8, &[4]);
    let remap = Remap {
        array: "a".into(),
        shape: vec![(Sym::one(), Sym::int(8)), (Sym::one(), Sym::int(8))],
        from: maps.arrays.get("a").cloned(),
        to: maps.arrays.get("b").cloned(),
    };
    let records = remap
        .records(
            4,
            10.0,
            &|v| (v == "n" || v == "m").then_some(8),
            &FreqOptions::default(),
        )
        .unwrap();
    assert_eq!(records.len(), 12);
    assert!(
        records
            .iter()
            .all(|r| r.messages == 10.0 && r.bytes == 10.0 * 4.0 * 4.0)
    );
    // Back and forth is the same exchange reversed; to the same mapping, nothing.
    assert_eq!(engine(&to, &from, 8, 8, &[4]).unwrap(), got);
    assert!(engine(&from, &from, 8, 8, &[4]).unwrap().is_empty());
}

#[test]
fn replicated_sides() {
    let block = Spec::Direct([F::Block, F::Star]);
    // From a replicated array: every processor already holds every element.
    assert!(engine(&Spec::None, &block, 6, 3, &[3]).unwrap().is_empty());
    // To a replicated one: each processor receives the 12 elements it did not own.
    let got = engine(&block, &Spec::None, 6, 3, &[3]).unwrap();
    assert_eq!(got.len(), 6);
    assert!(got.values().all(|n| *n == 6.0), "{got:?}");
}

#[test]
fn unknown_extents_are_named() {
    let maps = mappings(
        &Spec::Direct([F::Block, F::Star]),
        &Spec::Direct([F::Star, F::Block]),
        8,
        8,
        &[4],
    );
    let mut from = maps.arrays.get("a").cloned().unwrap();
    let mut d = (*from.distribution).clone();
    d.onto.extents = vec![Sym::var("p")];
    from.distribution = std::sync::Arc::new(d);
    let remap = Remap {
        array: "a".into(),
        shape: vec![(Sym::one(), Sym::int(8)), (Sym::one(), Sym::int(8))],
        from: Some(from),
        to: maps.arrays.get("b").cloned(),
    };
    let err = remap
        .moved(
            &|v| (v == "n" || v == "m").then_some(8),
            &FreqOptions::default(),
        )
        .unwrap_err();
    assert!(err.contains("`p`"), "{err}");
}
