//! Random HPF programs for the oracle, within the subset the simulator runs: one
//! subroutine, a processor grid of rank 1 or 2, an array `a` of rank 1 or 2 with
//! arbitrary lower bounds, mapped directly, through an ALIGN with a template or an
//! array (offsets, strides, reversal, transposition, `*` collapse and replication,
//! `:` sections, a chain of two ALIGNs), or not at all; assignments to it in loop
//! nests (rectangular with steps, triangular, banded, the nonlinear nest of P^3T+
//! section 4.1), under integer guards and SELECT CASE, in FORALL with masks and as
//! array sections. Every subscript stays inside the declared bounds.
//!
//! A case is built from a stream of choices, each option 0 the simplest, so that
//! proptest shrinks a failure toward a small program.

use std::fmt::Write;

/// A generated program and the bindings of its unknowns.
#[derive(Clone, Debug)]
pub struct Case {
    pub source: String,
    pub bindings: Vec<(&'static str, i64)>,
}

/// Choices drawn from proptest's raw numbers; past the end, every choice is 0.
struct Choices<'a> {
    raw: &'a [u32],
    at: usize,
}

impl Choices<'_> {
    /// A number in 0..k.
    fn pick(&mut self, k: usize) -> usize {
        let v = self.raw.get(self.at).map_or(0, |&r| r as usize % k);
        self.at += 1;
        v
    }

    /// One of `options`.
    fn one<T: Copy>(&mut self, options: &[T]) -> T {
        options[self.pick(options.len())]
    }

    fn flag(&mut self) -> bool {
        self.pick(2) == 1
    }
}

/// `sum of coef*name + constant`, as Fortran (`2*i - n + 3`).
fn affine(terms: &[(i64, &str)], constant: i64) -> String {
    let mut out = String::new();
    for &(k, name) in terms.iter().filter(|(k, _)| *k != 0) {
        let sign = if k < 0 { "-" } else { "+" };
        if out.is_empty() {
            out.push_str(if k < 0 { "-" } else { "" });
        } else {
            let _ = write!(out, " {sign} ");
        }
        if k.abs() == 1 {
            out.push_str(name);
        } else {
            let _ = write!(out, "{}*{name}", k.abs());
        }
    }
    match (out.is_empty(), constant) {
        (true, c) => c.to_string(),
        (false, 0) => out,
        (false, c) if c < 0 => format!("{out} - {}", -c),
        (false, c) => format!("{out} + {c}"),
    }
}

/// `k*n + c`: a bound that grows with the problem size n.
#[derive(Clone, Copy, Debug)]
struct Lin {
    n: i64,
    c: i64,
}

impl Lin {
    fn of(n: i64, c: i64) -> Lin {
        Lin { n, c }
    }

    fn plus(self, c: i64) -> Lin {
        Lin {
            c: self.c + c,
            ..self
        }
    }

    fn text(self) -> String {
        affine(&[(self.n, "n")], self.c)
    }
}

/// The number of indices in `lower..=upper` for problem size `n`.
fn extent(lower: Lin, upper: Lin, n: i64) -> i64 {
    (upper.n - lower.n) * n + upper.c - lower.c + 1
}

/// `lower:upper` of a declaration, or just `upper` when lower is 1.
fn bounds_text(lower: Lin, upper: Lin) -> String {
    if lower.n == 0 && lower.c == 1 {
        upper.text()
    } else {
        format!("{}:{}", lower.text(), upper.text())
    }
}

/// One dimension of `a`: `lower : n + lower - 1 + slack`.
#[derive(Clone, Copy, Debug)]
struct ArrayDim {
    lower: i64,
    slack: i64,
}

impl ArrayDim {
    fn upper(self) -> Lin {
        Lin::of(1, self.lower - 1 + self.slack)
    }

    /// A subscript placing position `var` (which runs within 1..n) inside the
    /// dimension: shifted by up to the slack, or reversed.
    fn subscript(self, var: &str, ch: &mut Choices) -> String {
        let shift = ch.pick(self.slack as usize + 1) as i64;
        if ch.pick(4) == 3 {
            affine(&[(-1, var), (1, "n")], self.lower + shift)
        } else {
            affine(&[(1, var)], self.lower - 1 + shift)
        }
    }
}

/// One dimension of an align target (template or array).
#[derive(Clone, Copy, Debug)]
enum TargetDim {
    /// Aligned with dimension `dim` of `a` by `coef*index + offset`.
    Affine { dim: usize, coef: i64, offset: i64 },
    /// Aligned with dimension `dim` of `a` by `:` sources: the triplet starts `skip`
    /// elements after the target's lower bound.
    Colon { dim: usize, skip: i64 },
    /// `*`: `a` is replicated along it.
    Star,
    /// A constant subscript (the target's first or last index).
    Fixed { last: bool },
}

/// Builds a case from proptest's raw numbers.
pub fn build(raw: &[u32]) -> Case {
    let ch = &mut Choices { raw, at: 0 };
    let n = 1 + ch.pick(12) as i64;
    let (grid, names): (Vec<i64>, &[&'static str]) = match ch.pick(3) {
        0 | 1 => (vec![1 + ch.pick(5) as i64], &["p"]),
        _ => (
            vec![1 + ch.pick(3) as i64, 1 + ch.pick(3) as i64],
            &["p1", "p2"],
        ),
    };
    // The grid's extents as literals, or as unknowns bound like n.
    let literal = ch.pick(4) == 3;
    let shape: Vec<String> = match literal {
        true => grid.iter().map(i64::to_string).collect(),
        false => names.iter().map(|s| s.to_string()).collect(),
    };
    let rank = 1 + ch.pick(2);
    let dims: Vec<ArrayDim> = (0..rank)
        .map(|_| ArrayDim {
            lower: ch.one(&[1, 0, -1, 2]),
            slack: ch.pick(3) as i64,
        })
        .collect();
    let mut decls = vec![format!(
        "  real :: a({})",
        dims.iter()
            .map(|d| bounds_text(Lin::of(0, d.lower), d.upper()))
            .collect::<Vec<_>>()
            .join(", ")
    )];
    let mut directives = vec![format!("!HPF$ PROCESSORS pr({})", shape.join(", "))];
    // An array `b` mapped like a's align target, when there is one, with its bounds.
    let target = map_a(ch, n, &grid, &dims, &mut decls, &mut directives);

    let mut body = Vec::new();
    if ch.pick(4) == 3 {
        let first: Vec<String> = dims.iter().map(|d| d.lower.to_string()).collect();
        body.push(format!("  a({}) = 0.0", first.join(", ")));
    }
    let mut uses_m = false;
    let mut scalars = Vec::new();
    nest(
        ch,
        &dims,
        target.as_deref(),
        &mut body,
        &mut uses_m,
        &mut scalars,
    );

    let mut source = String::new();
    let mut args = vec!["n"];
    let mut bindings = vec![("n", n)];
    if uses_m {
        args.push("m");
        bindings.push(("m", 1 + ch.pick(4) as i64));
    }
    if !literal {
        for (&name, &extent) in names.iter().zip(&grid) {
            args.push(name);
            bindings.push((name, extent));
        }
    }
    let _ = writeln!(source, "subroutine work_case({})", args.join(", "));
    let _ = writeln!(source, "  integer :: {}", args.join(", "));
    let _ = writeln!(source, "  integer :: i, j, k");
    for s in &scalars {
        let _ = writeln!(source, "  real :: {s}");
    }
    for line in decls.iter().chain(&directives).chain(&body) {
        let _ = writeln!(source, "{line}");
    }
    source.push_str("end subroutine work_case\n");
    Case { source, bindings }
}

/// The DISTRIBUTE formats of an object with `extents` on `grid`: exactly as many
/// non-`*` formats as the grid has dimensions (the others `*`), BLOCK(m) with m*P_k at
/// least the extent.
fn formats(ch: &mut Choices, extents: &[i64], grid: &[i64]) -> String {
    let mut distributed = vec![true; extents.len()];
    for _ in grid.len()..extents.len() {
        let free: Vec<usize> = (0..extents.len()).filter(|&d| distributed[d]).collect();
        distributed[ch.one(&free)] = false;
    }
    let mut grid_dims = grid.iter();
    let out: Vec<String> = extents
        .iter()
        .zip(distributed)
        .map(|(&extent, on)| {
            if !on {
                return "*".to_string();
            }
            let p = *grid_dims
                .next()
                .expect("as many distributed dimensions as grid dimensions");
            match ch.pick(4) {
                0 => "BLOCK".to_string(),
                1 => "CYCLIC".to_string(),
                2 => format!("BLOCK({})", (extent + p - 1) / p + ch.pick(3) as i64),
                _ => format!("CYCLIC({})", 1 + ch.pick(3)),
            }
        })
        .collect();
    out.join(", ")
}

/// `DISTRIBUTE name(formats) ONTO pr`, in one of its spellings.
/// Without ONTO, the unit's one arrangement `pr` is meant.
fn distribute(ch: &mut Choices, name: &str, formats: &str) -> String {
    match ch.pick(4) {
        0 => format!("!HPF$ DISTRIBUTE {name}({formats}) ONTO pr"),
        1 => format!("!HPF$ DISTRIBUTE ({formats}) ONTO pr :: {name}"),
        2 => format!("!HPF$ DISTRIBUTE {name}({formats}) ONTO pr  ! mapping of {name}"),
        _ => format!("!HPF$ DISTRIBUTE {name}({formats})"),
    }
}

/// Maps `a` (directly, through ALIGN, or not at all) and returns the name of a
/// distributed array whose dimensions hold at least n elements each, if there is one
/// (`b`), for a second assignment.
fn map_a(
    ch: &mut Choices,
    n: i64,
    grid: &[i64],
    dims: &[ArrayDim],
    decls: &mut Vec<String>,
    directives: &mut Vec<String>,
) -> Option<Vec<(Lin, Lin)>> {
    let extents: Vec<i64> = dims.iter().map(|d| n + d.slack).collect();
    match ch.pick(6) {
        // DISTRIBUTE a directly (a 1-D array cannot use a 2-D grid).
        0 | 1 if dims.len() >= grid.len() => {
            let f = formats(ch, &extents, grid);
            directives.push(distribute(ch, "a", &f));
            None
        }
        // Not mapped: replicated.
        5 => None,
        _ => align_a(ch, n, grid, dims, decls, directives),
    }
}

/// ALIGNs `a` with a template `t` or an array `b` (itself distributed or aligned with
/// `t`); returns b's bounds when a is aligned with `b`.
fn align_a(
    ch: &mut Choices,
    n: i64,
    grid: &[i64],
    dims: &[ArrayDim],
    decls: &mut Vec<String>,
    directives: &mut Vec<String>,
) -> Option<Vec<(Lin, Lin)>> {
    // Which dimensions of a are aligned, and in which order they appear in the target.
    let mut aligned: Vec<usize> = (0..dims.len()).collect();
    if dims.len() == 2 {
        match ch.pick(4) {
            1 => aligned.swap(0, 1),
            2 => aligned = vec![ch.pick(2)],
            _ => {}
        }
    }
    let swapped = aligned.len() == 2 && aligned[0] == 1;
    let mut target: Vec<TargetDim> = aligned
        .iter()
        .map(|&dim| {
            if !swapped && ch.pick(3) == 2 {
                TargetDim::Colon {
                    dim,
                    skip: ch.pick(3) as i64,
                }
            } else {
                TargetDim::Affine {
                    dim,
                    coef: ch.one(&[1, 2, -1, 3]),
                    offset: ch.pick(5) as i64 - 2,
                }
            }
        })
        .collect();
    let rank = ch.one(&[target.len(), 2]).max(grid.len()).max(target.len());
    while target.len() < rank {
        let extra = if ch.flag() {
            TargetDim::Star
        } else {
            TargetDim::Fixed { last: ch.flag() }
        };
        target.insert(ch.pick(target.len() + 1), extra);
    }
    // Each target dimension's bounds: the image of a's index range, plus slack.
    let bounds: Vec<(Lin, Lin)> = target
        .iter()
        .map(|t| {
            let (lo, hi) = match *t {
                TargetDim::Affine { dim, coef, offset } => {
                    let d = dims[dim];
                    let first = Lin::of(0, coef * d.lower + offset);
                    let last = Lin::of(coef, coef * (d.lower - 1 + d.slack) + offset);
                    if coef > 0 {
                        (first, last)
                    } else {
                        (last, first)
                    }
                }
                TargetDim::Colon { dim, skip } => {
                    let lower = ch.one(&[1, 0, -2, 3]);
                    (
                        Lin::of(0, lower),
                        Lin::of(1, lower + skip + dims[dim].slack - 1),
                    )
                }
                TargetDim::Star | TargetDim::Fixed { .. } => (Lin::of(0, 1), Lin::of(1, 0)),
            };
            (lo.plus(-(ch.pick(3) as i64)), hi.plus(ch.pick(3) as i64))
        })
        .collect();
    let dummies = ["i", "j"];
    let sources: Vec<String> = (0..dims.len())
        .map(|d| match target.iter().find(|t| matches!(t, TargetDim::Affine { dim, .. } | TargetDim::Colon { dim, .. } if *dim == d)) {
            Some(TargetDim::Colon { .. }) => ":".to_string(),
            Some(_) => dummies[d].to_string(),
            None => "*".to_string(),
        })
        .collect();
    let subscripts: Vec<String> = target
        .iter()
        .zip(&bounds)
        .map(|(t, &(lo, hi))| match *t {
            TargetDim::Affine { dim, coef, offset } => affine(&[(coef, dummies[dim])], offset),
            TargetDim::Colon { skip: 0, .. } if ch.flag() => ":".to_string(),
            TargetDim::Colon { skip, .. } => format!("{}:", lo.plus(skip).text()),
            TargetDim::Star => "*".to_string(),
            TargetDim::Fixed { last: false } => lo.text(),
            TargetDim::Fixed { last: true } => hi.text(),
        })
        .collect();
    let extents: Vec<i64> = bounds.iter().map(|&(lo, hi)| extent(lo, hi, n)).collect();
    let shape: Vec<String> = bounds.iter().map(|&(lo, hi)| bounds_text(lo, hi)).collect();
    let shape = shape.join(", ");
    let (name, b) = match ch.pick(4) {
        // A template.
        0 | 1 => {
            let f = formats(ch, &extents, grid);
            if ch.flag() {
                directives.push(format!("!HPF$ TEMPLATE t({shape})"));
                directives.push(distribute(ch, "t", &f));
            } else {
                directives.push(format!(
                    "!HPF$ TEMPLATE, DISTRIBUTE({f}) ONTO pr :: t({shape})"
                ));
            }
            ("t", None)
        }
        // A distributed array.
        2 => {
            decls.push(format!("  real :: b({shape})"));
            let f = formats(ch, &extents, grid);
            directives.push(distribute(ch, "b", &f));
            ("b", Some(bounds.clone()))
        }
        // An array aligned with a template by a shift: a chain of two ALIGNs.
        _ => {
            decls.push(format!("  real :: b({shape})"));
            let shifts: Vec<i64> = bounds.iter().map(|_| ch.pick(3) as i64).collect();
            let t_bounds: Vec<(Lin, Lin)> = bounds
                .iter()
                .zip(&shifts)
                .map(|(&(lo, hi), &s)| (lo.plus(s), hi.plus(s + ch.pick(2) as i64)))
                .collect();
            let t_shape: Vec<String> = t_bounds
                .iter()
                .map(|&(lo, hi)| bounds_text(lo, hi))
                .collect();
            let t_extents: Vec<i64> = t_bounds.iter().map(|&(lo, hi)| extent(lo, hi, n)).collect();
            directives.push(format!("!HPF$ TEMPLATE t({})", t_shape.join(", ")));
            let f = formats(ch, &t_extents, grid);
            directives.push(distribute(ch, "t", &f));
            let b_dummies = ["k1", "k2"];
            let b_sources = b_dummies[..bounds.len()].join(", ");
            let b_subs: Vec<String> = shifts
                .iter()
                .zip(b_dummies)
                .map(|(&s, d)| affine(&[(1, d)], s))
                .collect();
            directives.push(format!(
                "!HPF$ ALIGN b({b_sources}) WITH t({})",
                b_subs.join(", ")
            ));
            ("b", Some(bounds.clone()))
        }
    };
    let sources = sources.join(", ");
    let subscripts = subscripts.join(", ");
    directives.push(if ch.flag() {
        format!("!HPF$ ALIGN a({sources}) WITH {name}({subscripts})")
    } else {
        format!("!HPF$ ALIGN ({sources}) WITH {name}({subscripts}) :: a")
    });
    b
}

/// A DO range within 1..n: `lo, hi[, step]`, or downward for a negative step.
fn do_range(ch: &mut Choices) -> String {
    let lo = 1 + ch.pick(3) as i64;
    let hi = affine(&[(1, "n")], -(ch.pick(3) as i64));
    match ch.one(&[1, 1, 2, 3, -1, -2]) {
        1 => format!("{lo}, {hi}"),
        s if s > 0 => format!("{lo}, {hi}, {s}"),
        s => format!("{hi}, {lo}, {s}"),
    }
}

/// A FORALL triplet within 1..n: `lo:hi[:stride]`.
fn forall_range(ch: &mut Choices) -> String {
    let lo = 1 + ch.pick(3) as i64;
    let hi = affine(&[(1, "n")], -(ch.pick(3) as i64));
    match ch.one(&[1, 1, 2, 3, -1]) {
        1 => format!("{lo}:{hi}"),
        s if s > 0 => format!("{lo}:{hi}:{s}"),
        s => format!("{hi}:{lo}:{s}"),
    }
}

/// An integer condition on positions `i` (and `j`) in 1..n.
fn condition(ch: &mut Choices, two: bool) -> &'static str {
    if two {
        ch.one(&[
            "j <= i",
            "i + j <= n + 1",
            "mod(i + j, 2) == 0",
            "i /= j",
            "(i - 1)/2 == (j - 1)/2",
            "mod(i, 3) == 1 .or. j == n",
            ".not. (i == j)",
            "i > 2 .and. j < n - 1",
            "max(i, j) <= n/2 + 1",
        ])
    } else {
        ch.one(&[
            "i > 3",
            "mod(i, 2) == 1",
            "i <= n/2",
            "mod(i - 4, 3) == -1",
            "i /= 2 .and. i /= n",
            "min(i, n - i) >= 2",
        ])
    }
}

/// Subscripts of `a` placing positions of `vars` (each within 1..n) in its bounds,
/// or its first index now and then.
fn a_subscripts(ch: &mut Choices, dims: &[ArrayDim], vars: &[&str]) -> String {
    let subs: Vec<String> = dims
        .iter()
        .map(|d| {
            if ch.pick(6) == 5 {
                d.lower.to_string()
            } else {
                d.subscript(ch.one(vars), ch)
            }
        })
        .collect();
    subs.join(", ")
}

/// The assignments inside a loop nest whose variables `vars` run within 1..n: one to
/// `a`, sometimes through an integer temporary, sometimes with a scalar update and an
/// assignment to `b`.
fn assignments(
    ch: &mut Choices,
    pad: &str,
    dims: &[ArrayDim],
    b: Option<&[(Lin, Lin)]>,
    vars: &[&str],
    body: &mut Vec<String>,
    scalars: &mut Vec<&'static str>,
) {
    let subs = if ch.pick(5) == 4 {
        // Through an integer scalar: forward substitution in the analysis.
        let var = ch.one(vars);
        body.push(format!("{pad}k = {var} + 1"));
        let rest: Vec<String> = dims[1..]
            .iter()
            .map(|d| d.subscript(ch.one(vars), ch))
            .collect();
        let first = affine(&[(1, "k")], dims[0].lower - 2);
        [vec![first], rest].concat().join(", ")
    } else {
        a_subscripts(ch, dims, vars)
    };
    body.push(match ch.pick(2) {
        0 => format!("{pad}a({subs}) = 1.0"),
        _ => format!("{pad}a({subs}) = a({subs}) + 1.0"),
    });
    if ch.pick(4) == 3 {
        body.push(format!("{pad}s = s + 1.0"));
        if !scalars.contains(&"s") {
            scalars.push("s");
        }
    }
    if let Some(b) = b
        && ch.flag()
    {
        let subs: Vec<String> = b
            .iter()
            .map(|&(lo, _)| affine(&[(1, ch.one(vars)), (lo.n, "n")], lo.c - 1))
            .collect();
        body.push(format!("{pad}b({}) = 2.0", subs.join(", ")));
    }
}

/// A loop nest (or FORALL, or array assignment) writing `a`, appended to `body`;
/// `uses_m` is set when it uses the second unknown m.
fn nest(
    ch: &mut Choices,
    dims: &[ArrayDim],
    b: Option<&[(Lin, Lin)]>,
    body: &mut Vec<String>,
    uses_m: &mut bool,
    scalars: &mut Vec<&'static str>,
) {
    match ch.pick(8) {
        // A single DO loop.
        0 => {
            body.push(format!("  do i = {}", do_range(ch)));
            assignments(ch, "    ", dims, b, &["i"], body, scalars);
            body.push("  end do".to_string());
        }
        // A rectangular nest.
        1 => {
            body.push(format!("  do i = {}", do_range(ch)));
            body.push(format!("    do j = {}", do_range(ch)));
            assignments(ch, "      ", dims, b, &["i", "j"], body, scalars);
            body.push("    end do".to_string());
            body.push("  end do".to_string());
        }
        // A triangular or banded nest.
        2 => {
            let inner = ch.one(&[
                "1, i",
                "i, n",
                "i + 1, n",
                "1, i - 1",
                "1, n - i + 1",
                "max(1, i - 1), min(n, i + 1)",
                "max(1, i - 2), min(n, i + 2)",
            ]);
            body.push(format!("  do i = {}", do_range(ch)));
            body.push(format!("    do j = {inner}"));
            assignments(ch, "      ", dims, b, &["i", "j"], body, scalars);
            body.push("    end do".to_string());
            body.push("  end do".to_string());
        }
        // The nonlinear nest of P^3T+ section 4.1 (N1 = m, N2 = n).
        3 => {
            *uses_m = true;
            body.push("  do i = 1, m".to_string());
            body.push("    do j = 1, i*m".to_string());
            body.push("      if (j <= n) then".to_string());
            assignments(ch, "        ", dims, b, &["j"], body, scalars);
            body.push("      end if".to_string());
            body.push("    end do".to_string());
            body.push("  end do".to_string());
        }
        // Loops under an integer guard, with an ELSE now and then.
        4 => {
            let two = ch.flag();
            body.push(format!("  do i = {}", do_range(ch)));
            let (vars, pad): (&[&str], &str) = if two {
                body.push(format!("    do j = {}", do_range(ch)));
                (&["i", "j"], "        ")
            } else {
                (&["i"], "      ")
            };
            let cond = condition(ch, two);
            body.push(format!("{}if ({cond}) then", &pad[2..]));
            assignments(ch, pad, dims, b, vars, body, scalars);
            // No ELSE after `.or.`: the engine's frequencies of such an ELSE are not
            // exact yet (it assumes probability 0.5), which is no matter of work.
            if !cond.contains(".or.") && ch.flag() {
                body.push(format!("{}else", &pad[2..]));
                assignments(ch, pad, dims, b, vars, body, scalars);
            }
            body.push(format!("{}end if", &pad[2..]));
            if two {
                body.push("    end do".to_string());
            }
            body.push("  end do".to_string());
        }
        // FORALL, with a mask now and then: every element assigned at most once.
        5 => {
            let two = dims.len() == 2 && ch.flag();
            let mut header = format!("forall (i = {}", forall_range(ch));
            if two {
                let _ = write!(header, ", j = {}", forall_range(ch));
            }
            if ch.pick(3) > 0 {
                let _ = write!(header, ", {}", condition(ch, two));
            }
            header.push(')');
            let subs = |ch: &mut Choices| -> String {
                let order = if two && ch.flag() {
                    ["j", "i"]
                } else {
                    ["i", "j"]
                };
                let subs: Vec<String> = dims
                    .iter()
                    .zip(order)
                    .enumerate()
                    .map(|(k, (d, v))| {
                        if k > 0 && !two {
                            d.lower.to_string()
                        } else {
                            d.subscript(v, ch)
                        }
                    })
                    .collect();
                subs.join(", ")
            };
            if ch.flag() {
                let s = subs(ch);
                body.push(format!("  {header} a({s}) = 1.0"));
            } else {
                body.push(format!("  {header}"));
                for _ in 0..1 + ch.pick(2) {
                    let s = subs(ch);
                    body.push(format!("    a({s}) = a({s}) + 1.0"));
                }
                body.push("  end forall".to_string());
            }
        }
        // An array assignment: sections, strides, whole arrays.
        6 => {
            if ch.pick(5) == 4 {
                body.push("  a = 0.0".to_string());
                return;
            }
            let subs: Vec<String> = dims
                .iter()
                .map(|d| {
                    let lo = d.lower + ch.pick(3) as i64;
                    let hi = d.upper().plus(-(ch.pick(3) as i64)).text();
                    match ch.pick(5) {
                        0 => ":".to_string(),
                        1 => format!("{lo}:{hi}"),
                        2 => format!("{lo}:{hi}:{}", 2 + ch.pick(2)),
                        3 => format!("{hi}:{lo}:-1"),
                        _ => d.lower.to_string(),
                    }
                })
                .collect();
            body.push(format!("  a({}) = 1.0", subs.join(", ")));
        }
        // SELECT CASE on an integer of the loop variable.
        _ => {
            body.push(format!("  do i = {}", do_range(ch)));
            body.push("    select case (mod(i, 3))".to_string());
            // Case values never overlap (Fortran 95 section 8.1.3.2).
            let (first, second) = ch.one(&[
                ("0", "default"),
                ("1:2", "default"),
                ("2", "(1)"),
                ("0", "(1)"),
                ("1:2", "(0)"),
            ]);
            body.push(format!("    case ({first})"));
            assignments(ch, "      ", dims, b, &["i"], body, scalars);
            body.push(format!("    case {second}"));
            assignments(ch, "      ", dims, b, &["i"], body, scalars);
            body.push("    end select".to_string());
            body.push("  end do".to_string());
        }
    }
}
