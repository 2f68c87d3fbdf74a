//! The owner routine a profile run records irregular reads with (the Fortran of
//! `costline_ide::profile::counters`, its gathers module) against the analysis's own rule
//! (`Layout::owners`): random layouts — BLOCK(b), CYCLIC(k) and collapsed template
//! dimensions on grids of one to three dimensions, affine alignments with offsets and
//! strides, constant and replicated template indices — compiled with gfortran, and
//! every element of a box around each array (inside and outside its template) asked
//! of both. Without gfortran the test fails, or with `COSTLINE_OFFLINE` set is skipped.

use costline_fixtures::network::tools;
use costline_ide::profile::counters::counters_source;
use costline_ide::profile::gathers::GatherTable;
use costline_model::comm::gather::GatherLayouts;
use costline_model::distribution::{Format, Layout, LayoutDim, TemplateIndex};
use std::collections::BTreeMap;
use std::process::Command;

/// A small deterministic generator (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> i64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n) as i64
    }
}

/// A random layout of an array of `rank` dimensions.
fn layout(rng: &mut Lcg, rank: usize) -> Layout {
    let grid: Vec<i64> = (0..1 + rng.below(3)).map(|_| 1 + rng.below(4)).collect();
    let mut free: Vec<usize> = (0..grid.len()).collect();
    let dims = (0..1 + rng.below(3))
        .map(|_| {
            let g = (!free.is_empty() && rng.below(5) > 0)
                .then(|| free.remove(rng.below(free.len() as u64) as usize));
            let format = match rng.below(3) {
                0 => Format::Block(1 + rng.below(5)),
                1 => Format::Cyclic(1 + rng.below(3)),
                _ => Format::Collapsed,
            };
            let index = match rng.below(5) {
                0 => TemplateIndex::Replicated,
                1 => TemplateIndex::Constant(rng.below(8)),
                _ => TemplateIndex::Affine {
                    dim: rng.below(rank as u64) as usize,
                    coef: 1 + rng.below(2),
                    offset: rng.below(5) - 2,
                },
            };
            LayoutDim {
                lower: rng.below(3),
                extent: 12,
                format,
                grid: g,
                index,
            }
        })
        .collect();
    Layout {
        arrangement: "pr".into(),
        grid,
        dims,
        lowers: Vec::new(),
    }
}

#[test]
fn the_recorded_owners_are_the_analysis_owners() {
    if !tools(
        "the_recorded_owners_are_the_analysis_owners",
        &["gfortran"],
        "apt-get install gfortran",
    ) {
        return;
    }
    let mut rng = Lcg(29);
    // (rank, layout) of each site; each asked over subscripts -2..=10 per dimension.
    let sites: Vec<(usize, Layout)> = (0..60)
        .map(|k| {
            let rank = 1 + k % 2;
            (rank, layout(&mut rng, rank))
        })
        .collect();
    let tables: Vec<GatherTable> = sites
        .iter()
        .map(|(rank, l)| GatherTable {
            layouts: GatherLayouts {
                read: l.clone(),
                lhs: None,
            },
            bounds: vec![(1, 1); *rank],
        })
        .collect();
    let mut main = String::from(
        "program owners_test\n  use costline_profile_gathers, only: owners, site_read\n  implicit none\n  integer(8) :: own(64), idx(2), i, j\n  integer :: count\n",
    );
    for (g, (rank, _)) in sites.iter().enumerate() {
        let g = g + 1;
        let (inner, close) = if *rank == 2 {
            ("    do j = -2, 10\n", "    end do\n")
        } else {
            ("    j = 0\n", "")
        };
        main.push_str(&format!(
            "  do i = -2, 10\n{inner}      idx = [i, j]\n      call owners(site_read({g}), idx, {rank}, own, count)\n      write(*, '(*(i0,1x))') {g}, i, j, own(1:count)\n{close}  end do\n"
        ));
    }
    main.push_str("end program owners_test\n");
    let source = counters_source(1, &tables) + &main;
    // Cargo's scratch directory for integration tests.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("gather_owners");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("owners.f90"), &source).unwrap();
    let built = Command::new("gfortran")
        .args(["-o", "owners", "owners.f90"])
        .current_dir(&dir)
        .output()
        .expect("gfortran runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let ran = Command::new(dir.join("owners")).output().expect("it runs");
    assert!(ran.status.success());
    let mut fortran: BTreeMap<(usize, i128, i128), Vec<usize>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&ran.stdout).lines() {
        let w: Vec<i128> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        let mut own: Vec<usize> = w[3..].iter().map(|&x| x as usize).collect();
        own.sort_unstable();
        fortran.insert((w[0] as usize, w[1], w[2]), own);
    }
    let mut asked = 0;
    for (g, (rank, l)) in sites.iter().enumerate() {
        for i in -2..=10i128 {
            for j in if *rank == 2 { -2..=10 } else { 0..=0 } {
                let index: Vec<i128> = [i, j][..*rank].to_vec();
                let want = l.owners(&index).map(|o| o.to_vec()).unwrap_or_default();
                let got = &fortran[&(g + 1, i, j)];
                assert_eq!(got, &want, "site {} {l:?} at {index:?}", g + 1);
                asked += 1;
            }
        }
    }
    assert!(asked > 5000, "{asked}");
    // The layouts drawn own some elements on part of the grid and some nowhere.
    assert!(fortran.values().any(|o| o.is_empty()));
    assert!(fortran.values().any(|o| o.len() > 1));
}
