//! MPI datatypes as the bytes one element carries: the predefined types, variables
//! that hold one (`dp_type = MPI_DOUBLE_PRECISION`), and the derived types a unit
//! builds. A message of `count` elements of type T moves count · size(T) bytes
//! (MPI's `MPI_TYPE_SIZE`: the data, not the extent the strides span).
//!
//! - CONTIGUOUS(n, old): n · size(old)
//! - VECTOR / HVECTOR / CREATE_HVECTOR(n, blocklen, stride, old), and
//!   CREATE_INDEXED_BLOCK / CREATE_HINDEXED_BLOCK(n, blocklen, displs, old):
//!   n · blocklen · size(old)
//! - INDEXED / HINDEXED / CREATE_HINDEXED(n, blocklens, displs, old):
//!   Σ_k blocklens(k) · size(old)
//! - CREATE_SUBARRAY(ndims, sizes, subsizes, starts, order, old): Π_k subsizes(k) · size(old)
//! - CREATE_STRUCT / STRUCT(n, blocklens, displs, types): Σ_k blocklens(k) · size(types(k))
//! - CREATE_RESIZED(old, lb, extent) and DUP(old): size(old)
//!
//! Arrays of block lengths, sizes and types are read from the unit's element
//! assignments with literal subscripts (`subsizes(1) = nx`) and from array constructors
//! written in the call. Statements that never run (a branch on a constant that is
//! false) define nothing. COMMIT and FREE change no size.

use super::integer_at;
use super::mpi::datatype_bytes;
use crate::freq::UnitFrequencies;
use costline_symbolic::Sym;
use costline_syntax::ir::{Expr, Stmt, StmtKind, Unit};
use std::collections::{BTreeMap, HashMap};

/// The size of each datatype variable of a unit, bytes (a formula in the unit's
/// unknowns), or why it has none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Datatypes {
    defs: HashMap<String, Result<Sym, String>>,
}

/// The sizes of datatype variables defined outside the unit (module and COMMON
/// variables), by name.
pub type Outer<'a> = &'a dyn Fn(&str) -> Option<Result<Sym, String>>;

impl Datatypes {
    /// The datatypes `unit` defines, in statement order; `outer` gives those it reads
    /// from its modules or COMMON.
    pub fn of_unit(unit: &Unit, freqs: &UnitFrequencies, outer: Outer) -> Datatypes {
        let mut out = Datatypes::default();
        let mut arrays: HashMap<String, BTreeMap<i64, Expr>> = HashMap::new();
        unit.walk(&mut |s, _| {
            if never_runs(freqs, s) {
                return;
            }
            match &s.kind {
                StmtKind::Assign { lhs, rhs } => match lhs {
                    Expr::Array(a) => {
                        if let Some([k]) = a.literal_subscripts().as_deref() {
                            arrays
                                .entry(a.name.clone())
                                .or_default()
                                .insert(*k, rhs.clone());
                        }
                    }
                    Expr::Name(v) => {
                        let size = match rhs {
                            Expr::Name(t) if is_type_name(t, &out, outer) => {
                                Some(out.size_of(rhs, outer))
                            }
                            _ => None,
                        };
                        if let Some(size) = size {
                            out.define(v, size);
                        }
                    }
                    _ => {}
                },
                StmtKind::Call(c) if c.name.starts_with("mpi_type_") => {
                    let args: Vec<&Expr> = c.args.iter().map(|a| &a.value).collect();
                    let sym = |e: &Expr| integer_at(unit, freqs, s.id, e);
                    let ctx = Constructor {
                        args: &args,
                        sym: &sym,
                        arrays: &arrays,
                        types: &out,
                        outer,
                    };
                    let defined = ctx
                        .define(&c.name)
                        .map(|(new, size)| (new.to_string(), size));
                    if let Some((new, size)) = defined {
                        out.define(&new, size);
                    }
                }
                _ => {}
            }
        });
        out
    }

    /// Records a definition; a second one of another size leaves the variable without
    /// a size.
    fn define(&mut self, name: &str, size: Result<Sym, String>) {
        let merged = merge(self.defs.remove(name), size, || {
            format!("datatype `{name}` is defined with different sizes in the unit")
        });
        self.defs.insert(name.to_string(), merged);
    }

    /// The size of the datatype `e` names: a predefined type, a variable the unit (or
    /// `outer`) defines.
    pub fn size_of(&self, e: &Expr, outer: Outer) -> Result<Sym, String> {
        let Expr::Name(n) = e else {
            return Err(format!("datatype `{e}` is not a name"));
        };
        if let Some(b) = datatype_bytes(n) {
            return Ok(Sym::int(i128::from(b)));
        }
        if let Some(d) = self.defs.get(n) {
            return d.clone();
        }
        outer(n).unwrap_or_else(|| {
            Err(format!(
                "datatype `{n}` has no definition the analysis sees"
            ))
        })
    }

    /// The variables the unit defines, with their sizes.
    pub fn definitions(&self) -> impl Iterator<Item = (&str, &Result<Sym, String>)> {
        self.defs.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Two definitions of one datatype variable as one: the size they agree on; the first
/// reason one has none; `conflict` when their sizes differ.
pub fn merge(
    old: Option<Result<Sym, String>>,
    new: Result<Sym, String>,
    conflict: impl FnOnce() -> String,
) -> Result<Sym, String> {
    match (old, new) {
        (None, new) => new,
        (Some(Err(e)), _) | (Some(Ok(_)), Err(e)) => Err(e),
        (Some(Ok(a)), Ok(b)) if a == b => Ok(a),
        (Some(Ok(_)), Ok(_)) => Err(conflict()),
    }
}

/// Whether `t` names a datatype: predefined, defined already, or from outside.
fn is_type_name(t: &str, types: &Datatypes, outer: Outer) -> bool {
    datatype_bytes(t).is_some() || types.defs.contains_key(t) || outer(t).is_some()
}

/// Whether the statement's count is exactly zero (a branch that never runs).
fn never_runs(freqs: &UnitFrequencies, s: &Stmt) -> bool {
    freqs.of(s.id).is_some_and(|c| {
        c.is_exact()
            && c.symbolic()
                .is_some_and(|p| p.pieces.is_empty() || p.as_single().is_some_and(Sym::is_zero))
    })
}

/// One type constructor call's arguments and what they are read with.
struct Constructor<'a> {
    args: &'a [&'a Expr],
    sym: &'a dyn Fn(&Expr) -> Result<Sym, String>,
    arrays: &'a HashMap<String, BTreeMap<i64, Expr>>,
    types: &'a Datatypes,
    outer: Outer<'a>,
}

impl Constructor<'_> {
    /// The new type's variable and its size, for the constructor `name`.
    fn define(&self, name: &str) -> Option<(&str, Result<Sym, String>)> {
        let (new, size) = match name {
            "mpi_type_contiguous" => (2, self.product(&[0], 1)),
            "mpi_type_vector" | "mpi_type_hvector" | "mpi_type_create_hvector" => {
                (4, self.product(&[0, 1], 3))
            }
            "mpi_type_create_indexed_block" | "mpi_type_create_hindexed_block" => {
                (4, self.product(&[0, 1], 3))
            }
            "mpi_type_indexed" | "mpi_type_hindexed" | "mpi_type_create_hindexed" => {
                (4, self.indexed())
            }
            "mpi_type_create_subarray" => (6, self.subarray()),
            "mpi_type_create_struct" | "mpi_type_struct" => (4, self.structure()),
            "mpi_type_create_resized" => (3, self.old(0)),
            "mpi_type_dup" => (1, self.old(0)),
            _ => return None,
        };
        match self.args.get(new) {
            Some(Expr::Name(v)) => Some((v.as_str(), size)),
            _ => None,
        }
    }

    fn arg(&self, k: usize) -> Result<&Expr, String> {
        self.args
            .get(k)
            .copied()
            .ok_or_else(|| format!("argument {} is missing", k + 1))
    }

    fn old(&self, k: usize) -> Result<Sym, String> {
        self.types.size_of(self.arg(k)?, self.outer)
    }

    /// Π of the integer arguments at `factors` · size(the type at `old`).
    fn product(&self, factors: &[usize], old: usize) -> Result<Sym, String> {
        let mut size = self.old(old)?;
        for &k in factors {
            size = mul(&size, &(self.sym)(self.arg(k)?)?)?;
        }
        Ok(size)
    }

    /// The `n` elements (1-based) of the array argument `k`: an array constructor
    /// written in the call, or an array whose elements the unit assigned.
    fn elements(&self, k: usize, n: usize) -> Result<Vec<Expr>, String> {
        let arg = self.arg(k)?;
        let items: Vec<Expr> = match arg {
            Expr::Unknown(text) => constructor_items(text)
                .ok_or_else(|| format!("`{text}` is not a list of names and integers"))?,
            Expr::Name(a) | Expr::Array(costline_syntax::ir::ArrayRef { name: a, .. }) => {
                let assigned = self
                    .arrays
                    .get(a)
                    .ok_or_else(|| format!("the elements of `{a}` are not assigned in the unit"))?;
                (1..=n as i64)
                    .map(|i| {
                        assigned
                            .get(&i)
                            .cloned()
                            .ok_or_else(|| format!("`{a}({i})` is not assigned in the unit"))
                    })
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("`{other}` is not an array the analysis reads")),
        };
        if items.len() < n {
            return Err(format!("`{arg}` has fewer than {n} elements"));
        }
        Ok(items.into_iter().take(n).collect())
    }

    /// The count argument 0 as a number.
    fn count(&self, k: usize) -> Result<usize, String> {
        let n = (self.sym)(self.arg(k)?)?;
        n.as_int()
            .and_then(|v| usize::try_from(v).ok())
            .filter(|v| *v <= 4096)
            .ok_or_else(|| format!("its count `{n}` is not a known number"))
    }

    fn indexed(&self) -> Result<Sym, String> {
        let n = self.count(0)?;
        let mut total = Sym::zero();
        for b in self.elements(1, n)? {
            total = add(&total, &(self.sym)(&b)?)?;
        }
        mul(&total, &self.old(3)?)
    }

    fn subarray(&self) -> Result<Sym, String> {
        let n = self.count(0)?;
        let mut size = self.old(5)?;
        for s in self.elements(2, n)? {
            size = mul(&size, &(self.sym)(&s)?)?;
        }
        Ok(size)
    }

    fn structure(&self) -> Result<Sym, String> {
        let n = self.count(0)?;
        let lens = self.elements(1, n)?;
        let types = self.elements(3, n)?;
        let mut total = Sym::zero();
        for (b, t) in lens.iter().zip(&types) {
            let size = self.types.size_of(t, self.outer)?;
            total = add(&total, &mul(&(self.sym)(b)?, &size)?)?;
        }
        Ok(total)
    }
}

fn mul(a: &Sym, b: &Sym) -> Result<Sym, String> {
    a.mul(b)
        .map_err(|e| format!("its size is too large a formula ({e:?})"))
}

fn add(a: &Sym, b: &Sym) -> Result<Sym, String> {
    a.add(b)
        .map_err(|e| format!("its size is too large a formula ({e:?})"))
}

/// The items of an array constructor `(/ a, 2 /)` or `[a, 2]` when each is a name or
/// an integer literal.
fn constructor_items(text: &str) -> Option<Vec<Expr>> {
    let t = text.trim();
    let inner = t
        .strip_prefix("(/")
        .and_then(|r| r.strip_suffix("/)"))
        .or_else(|| t.strip_prefix('[').and_then(|r| r.strip_suffix(']')))?;
    inner
        .split(',')
        .map(|item| {
            let item = item.trim().to_ascii_lowercase();
            if let Ok(v) = item.parse::<i64>() {
                Some(Expr::Int(v))
            } else if !item.is_empty()
                && item.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && item.starts_with(|c: char| c.is_ascii_alphabetic())
            {
                Some(Expr::Name(item))
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_read_names_and_integers() {
        assert_eq!(
            constructor_items("(/ NX, 1 /)"),
            Some(vec![Expr::Name("nx".into()), Expr::Int(1)])
        );
        assert_eq!(
            constructor_items("[2, 3]"),
            Some(vec![Expr::Int(2), Expr::Int(3)])
        );
        assert_eq!(constructor_items("(/ a(1), 2 /)"), None);
    }
}
