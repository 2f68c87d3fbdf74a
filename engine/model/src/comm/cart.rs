//! MPI process topologies as program values, rank by rank: what MPI_COMM_RANK,
//! MPI_CART_CREATE, MPI_DIMS_CREATE, MPI_CART_COORDS and MPI_CART_SHIFT store in a
//! unit's variables on each process.
//!
//! A Cartesian communicator of `dims` (d_0, …, d_{k−1}) numbers its processes in row-major
//! order (MPI 3.1 §7.5: the last coordinate varies fastest): rank r has coordinates
//! c_{k−1} = r mod d_{k−1}, c_{k−2} = (r div d_{k−1}) mod d_{k−2}, …. MPI_CART_SHIFT(dir,
//! disp) gives dest = the rank at c_dir + disp and source = the rank at c_dir − disp,
//! wrapped where the dimension is periodic, MPI_PROC_NULL where it falls off a
//! non-periodic edge. MPI_DIMS_CREATE(n, k, dims) fills the zero entries with a
//! factorization of n as balanced as possible, in non-increasing order. A process's rank
//! in the new communicator is taken to be its rank in the old one (MPICH and Open MPI do
//! not reorder on a flat network).
//!
//! The analysis reads these values as unknowns named after the variables (`west`,
//! `coords(1)`); [`Carts::bindings`] gives their values on rank r, with MPI_PROC_NULL as
//! [`PROC_NULL`], so a count, a peer or a branch on the rank evaluates per process.

use super::integer_at;
use crate::freq::UnitFrequencies;
use crate::freq::convert::element_key;
use costline_symbolic::{Env, Num, Sym};
use costline_syntax::ir::{Expr, StmtKind, Unit};
use std::collections::{BTreeMap, HashMap};

/// The value MPI_PROC_NULL takes in the per-rank bindings (MPICH's).
pub const PROC_NULL: i128 = -1;

/// The name MPI_PROC_NULL goes by in the program.
pub const PROC_NULL_NAME: &str = "mpi_proc_null";

/// A unit's process topology calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Carts {
    /// Variables MPI_COMM_RANK stores the calling process's rank in.
    pub rank_vars: Vec<String>,
    /// Cartesian communicators, by the variable MPI_CART_CREATE stores them in.
    grids: HashMap<String, Grid>,
    shifts: Vec<Shift>,
    coords: Vec<Coords>,
}

/// A Cartesian communicator: its dimensions and which of them wrap around.
#[derive(Clone, Debug, PartialEq)]
struct Grid {
    dims: Result<Vec<Dim>, String>,
    periods: Vec<bool>,
}

/// One extent of a grid: a formula, or one MPI_DIMS_CREATE chooses.
#[derive(Clone, Debug, PartialEq)]
enum Dim {
    Given(Sym),
    /// Entry `index` of MPI_DIMS_CREATE(nodes, count, …) with every entry free.
    Created {
        nodes: Sym,
        count: usize,
        index: usize,
    },
}

/// MPI_CART_SHIFT(comm, direction, disp, source, dest).
#[derive(Clone, Debug, PartialEq)]
struct Shift {
    comm: String,
    direction: Result<Sym, String>,
    disp: Result<Sym, String>,
    source: String,
    dest: String,
}

/// MPI_CART_COORDS(comm, rank, maxdims, coords) with the calling process's rank.
#[derive(Clone, Debug, PartialEq)]
struct Coords {
    comm: String,
    array: String,
}

/// What an integer array's elements were set to, by literal subscript.
type Elements = HashMap<String, BTreeMap<i64, Result<Dim, String>>>;

impl Carts {
    /// The topology calls of `unit`, in statement order.
    pub fn of(unit: &Unit, freqs: &UnitFrequencies) -> Carts {
        let mut out = Carts::default();
        let mut ints: Elements = HashMap::new();
        let mut logicals: HashMap<String, (Option<bool>, BTreeMap<i64, bool>)> = HashMap::new();
        unit.walk(&mut |s, _| {
            let sym = |e: &Expr| integer_at(unit, freqs, s.id, e);
            match &s.kind {
                StmtKind::Assign {
                    lhs: Expr::Array(a),
                    rhs,
                } => match (rhs, a.literal_subscripts().as_deref()) {
                    (Expr::Logical(v), Some([k])) => {
                        logicals.entry(a.name.clone()).or_default().1.insert(*k, *v);
                    }
                    // `periods = .false.`, lowered to a loop over the elements.
                    (Expr::Logical(v), _) => {
                        let entry = logicals.entry(a.name.clone()).or_default();
                        entry.0 = Some(*v);
                        entry.1.clear();
                    }
                    (_, Some([k])) => {
                        ints.entry(a.name.clone())
                            .or_default()
                            .insert(*k, sym(rhs).map(Dim::Given));
                    }
                    _ => {}
                },
                StmtKind::Call(c) => {
                    let arg = |k: usize| c.args.get(k).map(|a| &a.value);
                    // A variable, or a whole array (`dims`, `coords`).
                    let name_at = |k: usize| match arg(k) {
                        Some(Expr::Name(n)) => Some(n.clone()),
                        Some(Expr::Array(a)) if a.subscripts.is_empty() => Some(a.name.clone()),
                        _ => None,
                    };
                    match c.name.as_str() {
                        "mpi_comm_rank" => out.rank_vars.extend(name_at(1)),
                        "mpi_dims_create" => {
                            if let (Some(nodes), Some(count), Some(array)) =
                                (arg(0), arg(1).and_then(literal), name_at(2))
                            {
                                let nodes = sym(nodes);
                                let created = ints.entry(array).or_default();
                                for index in 0..count {
                                    let dim = nodes.clone().map(|nodes| Dim::Created {
                                        nodes,
                                        count,
                                        index,
                                    });
                                    created.insert(index as i64 + 1, dim);
                                }
                            }
                        }
                        "mpi_cart_create" => {
                            if let Some(comm) = name_at(5) {
                                let ndims = arg(1).and_then(literal);
                                let grid = Grid {
                                    dims: dims_of(arg(2), ndims, &ints),
                                    periods: periods_of(arg(3), ndims, &logicals),
                                };
                                out.grids.insert(comm, grid);
                            }
                        }
                        "mpi_cart_shift" => {
                            if let (Some(comm), Some(source), Some(dest)) =
                                (name_at(0), name_at(3), name_at(4))
                            {
                                out.shifts.push(Shift {
                                    comm,
                                    direction: arg(1).map_or(Err("no direction".into()), sym),
                                    disp: arg(2).map_or(Err("no displacement".into()), sym),
                                    source,
                                    dest,
                                });
                            }
                        }
                        "mpi_cart_coords" => {
                            let own =
                                matches!(arg(1), Some(Expr::Name(r)) if out.rank_vars.contains(r));
                            if let (true, Some(comm), Some(array)) = (own, name_at(0), name_at(3)) {
                                out.coords.push(Coords { comm, array });
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        });
        out
    }

    /// Whether the unit calls none of the topology routines.
    pub fn is_empty(&self) -> bool {
        self.rank_vars.is_empty() && self.grids.is_empty()
    }

    /// The number of processes of Cartesian communicator `comm` under `env`.
    pub fn size_of(&self, comm: &str, env: Env) -> Option<Result<i128, String>> {
        let grid = self.grids.get(comm)?;
        Some(grid.extents(env).and_then(|d| {
            d.iter()
                .try_fold(1i128, |size, e| size.checked_mul(*e))
                .ok_or_else(|| "the grid has more processes than can be counted".to_string())
        }))
    }

    /// The values the topology calls store on process `rank` (0-based), by the names
    /// the analysis reads them as; an error says what has no value.
    pub fn bindings(&self, rank: i128, env: Env) -> Result<HashMap<String, i128>, String> {
        let mut out = HashMap::from([(PROC_NULL_NAME.to_string(), PROC_NULL)]);
        for v in &self.rank_vars {
            out.insert(v.clone(), rank);
        }
        for c in &self.coords {
            let Some(grid) = self.grids.get(&c.comm) else {
                continue;
            };
            let dims = grid.extents(env)?;
            for (k, x) in coordinates(rank, &dims).into_iter().enumerate() {
                out.insert(element_key(&c.array, &[k as i64 + 1]), x);
            }
        }
        for s in &self.shifts {
            let Some(grid) = self.grids.get(&s.comm) else {
                continue;
            };
            let dims = grid.extents(env)?;
            let value = |v: &Result<Sym, String>| -> Result<i128, String> {
                let v = v.as_ref().map_err(Clone::clone)?;
                integer(v, env).ok_or_else(|| format!("MPI_CART_SHIFT's `{v}` has no value"))
            };
            let direction = usize::try_from(value(&s.direction)?)
                .ok()
                .filter(|d| *d < dims.len())
                .ok_or("MPI_CART_SHIFT's direction is not a dimension of its grid")?;
            let disp = value(&s.disp)?;
            let here = coordinates(rank, &dims);
            let periodic = grid.periods.get(direction).copied().unwrap_or(false);
            let neighbour = |step: i128| {
                let mut at = here.clone();
                let c = at[direction] + step;
                let d = dims[direction];
                at[direction] = if periodic {
                    c.rem_euclid(d)
                } else if (0..d).contains(&c) {
                    c
                } else {
                    return PROC_NULL;
                };
                rank_at(&at, &dims)
            };
            out.insert(s.dest.clone(), neighbour(disp));
            out.insert(s.source.clone(), neighbour(-disp));
        }
        Ok(out)
    }
}

impl Grid {
    fn extents(&self, env: Env) -> Result<Vec<i128>, String> {
        let dims = self.dims.as_ref().map_err(Clone::clone)?;
        dims.iter()
            .map(|d| match d {
                Dim::Given(s) => integer(s, env)
                    .filter(|v| *v >= 1)
                    .ok_or_else(|| format!("the grid extent `{s}` has no positive value")),
                Dim::Created {
                    nodes,
                    count,
                    index,
                } => {
                    let n = integer(nodes, env)
                        .filter(|v| *v >= 1)
                        .ok_or_else(|| format!("MPI_DIMS_CREATE's `{nodes}` has no value"))?;
                    Ok(dims_create(n, *count)[*index])
                }
            })
            .collect()
    }
}

/// The grid extents MPI_CART_CREATE is given: the elements of its `dims` argument.
fn dims_of(arg: Option<&Expr>, ndims: Option<usize>, ints: &Elements) -> Result<Vec<Dim>, String> {
    let ndims = ndims.ok_or("MPI_CART_CREATE's dimension count is not a literal")?;
    match arg {
        Some(Expr::Name(a) | Expr::Array(costline_syntax::ir::ArrayRef { name: a, .. })) => {
            let set = ints
                .get(a)
                .ok_or_else(|| format!("the elements of `{a}` are not set in the unit"))?;
            (1..=ndims as i64)
                .map(|k| match set.get(&k) {
                    Some(d) => d.clone(),
                    None => Err(format!("`{a}({k})` is not set in the unit")),
                })
                .collect()
        }
        Some(other) => Err(format!("`{other}` is not an array the analysis reads")),
        None => Err("MPI_CART_CREATE has no dims argument".into()),
    }
}

/// Which dimensions wrap: the logical elements of MPI_CART_CREATE's `periods` argument
/// (a scalar literal for all of them; unset elements do not wrap).
fn periods_of(
    arg: Option<&Expr>,
    ndims: Option<usize>,
    logicals: &HashMap<String, (Option<bool>, BTreeMap<i64, bool>)>,
) -> Vec<bool> {
    let n = ndims.unwrap_or(0);
    match arg {
        Some(Expr::Logical(v)) => vec![*v; n],
        Some(Expr::Unknown(text)) => text
            .trim_start_matches(['(', '/', '['])
            .trim_end_matches([')', '/', ']'])
            .split(',')
            .map(|t| t.trim().eq_ignore_ascii_case(".true."))
            .collect(),
        Some(Expr::Name(a) | Expr::Array(costline_syntax::ir::ArrayRef { name: a, .. })) => {
            match logicals.get(a) {
                Some((all, set)) => (1..=n as i64)
                    .map(|k| set.get(&k).copied().or(*all).unwrap_or(false))
                    .collect(),
                None => vec![false; n],
            }
        }
        _ => vec![false; n],
    }
}

fn literal(e: &Expr) -> Option<usize> {
    match e {
        Expr::Int(v) => usize::try_from(*v).ok(),
        _ => None,
    }
}

/// The integer value of `s` under `env`, if it has one.
pub(crate) fn integer(s: &Sym, env: Env) -> Option<i128> {
    match s.eval(env).ok()? {
        Num::Exact(r) => r.as_integer(),
        Num::Approx(_) => None,
    }
}

/// Row-major coordinates of `rank` in a grid of `dims`.
fn coordinates(rank: i128, dims: &[i128]) -> Vec<i128> {
    let mut out = vec![0; dims.len()];
    let mut r = rank;
    for (k, d) in dims.iter().enumerate().rev() {
        out[k] = r.rem_euclid(*d);
        r = r.div_euclid(*d);
    }
    out
}

/// The row-major rank at `coords` in a grid of `dims`.
fn rank_at(coords: &[i128], dims: &[i128]) -> i128 {
    coords.iter().zip(dims).fold(0, |r, (c, d)| r * d + c)
}

/// MPI_DIMS_CREATE(n, k) with every entry free: the prime factors of n, largest first,
/// each multiplied into the currently smallest extent, sorted non-increasing (16 → 4×4,
/// 12 → 4×3, 8 in 3 → 2×2×2).
pub fn dims_create(n: i128, k: usize) -> Vec<i128> {
    let mut factors = Vec::new();
    let mut rest = n.max(1);
    let mut f = 2;
    while f * f <= rest {
        while rest % f == 0 {
            factors.push(f);
            rest /= f;
        }
        f += 1;
    }
    if rest > 1 {
        factors.push(rest);
    }
    let mut dims = vec![1i128; k.max(1)];
    for f in factors.into_iter().rev() {
        let smallest = (0..dims.len()).min_by_key(|&i| dims[i]).unwrap_or(0);
        dims[smallest] *= f;
    }
    dims.sort_unstable_by(|a, b| b.cmp(a));
    dims
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_create_balances_as_mpi_does() {
        assert_eq!(dims_create(16, 2), vec![4, 4]);
        assert_eq!(dims_create(12, 2), vec![4, 3]);
        assert_eq!(dims_create(8, 3), vec![2, 2, 2]);
        assert_eq!(dims_create(7, 2), vec![7, 1]);
        assert_eq!(dims_create(64, 3), vec![4, 4, 4]);
    }

    #[test]
    fn coordinates_are_row_major() {
        assert_eq!(coordinates(5, &[2, 3]), vec![1, 2]);
        assert_eq!(rank_at(&[1, 2], &[2, 3]), 5);
    }
}
