//! Declared entities of a program unit: types, array shapes, named constants.

use super::expr::Expr;
use crate::span::Span;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, LazyLock};

/// Every name declared in a unit (lower-case), in a deterministic order.
pub type SymbolTable = BTreeMap<String, Symbol>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Symbol {
    pub name: String,
    /// The declared type; `None` when the entity is typed implicitly.
    pub ty: Option<TypeSpec>,
    /// The array shape; `None` for scalars.
    pub dims: Option<Vec<Dim>>,
    pub attrs: Attrs,
    /// The value of a PARAMETER constant, or an initializer.
    pub value: Option<Expr>,
    /// The COMMON block holding this entity (`""` for blank COMMON) and its position
    /// among the block's members in this unit (0-based: storage association pairs
    /// members by position, not by name).
    pub common: Option<(String, usize)>,
    /// Where the entity is declared (the first declaration naming it).
    pub span: Span,
}

impl Symbol {
    pub fn new(name: impl Into<String>, span: Span) -> Symbol {
        Symbol {
            name: name.into(),
            ty: None,
            dims: None,
            attrs: Attrs::default(),
            value: None,
            common: None,
            span,
        }
    }

    pub fn is_array(&self) -> bool {
        self.dims.is_some()
    }

    pub fn rank(&self) -> usize {
        self.dims.as_ref().map_or(0, Vec::len)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attrs {
    pub parameter: bool,
    pub allocatable: bool,
    pub pointer: bool,
    pub target: bool,
    pub save: bool,
    pub external: bool,
    pub intrinsic: bool,
    pub intent: Option<Intent>,
    /// A dummy argument of the unit.
    pub dummy: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intent {
    In,
    Out,
    InOut,
}

/// One dimension of an array declaration: `lower:upper`, lower defaulting to 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    pub lower: Option<Expr>,
    pub upper: Bound,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    Explicit(Expr),
    /// `*`: assumed size.
    Assumed,
    /// `:`: assumed shape, allocatable or pointer.
    Deferred,
}

impl Dim {
    /// The lower bound as an expression (1 when omitted).
    pub fn lower_expr(&self) -> Expr {
        self.lower.clone().unwrap_or(Expr::Int(1))
    }
}

impl fmt::Display for Dim {
    /// As declared: `n`, `0:n+1`, `*`, `:`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.lower {
            write!(f, "{l}:")?;
        }
        match &self.upper {
            Bound::Explicit(e) => write!(f, "{e}"),
            Bound::Assumed => f.write_str("*"),
            Bound::Deferred if self.lower.is_some() => Ok(()),
            Bound::Deferred => f.write_str(":"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BaseType {
    Integer,
    Real,
    DoublePrecision,
    Complex,
    DoubleComplex,
    Logical,
    Character,
    Derived,
}

/// A type: base type, optional kind (`real(8)`, `real*8`, `real(kind=dp)`), optional
/// character length, and the type name of a derived type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeSpec {
    pub base: BaseType,
    pub kind: Option<Expr>,
    pub len: Option<Expr>,
    pub derived: Option<String>,
}

impl TypeSpec {
    pub fn of(base: BaseType) -> TypeSpec {
        TypeSpec {
            base,
            kind: None,
            len: None,
            derived: None,
        }
    }

    /// Bytes per element, given the kind's value when it has one (gfortran's kinds are
    /// byte counts; complex kinds count one part). `None` for derived types and for
    /// kinds that are not known.
    pub fn element_bytes(&self, kind: Option<i64>, len: Option<i64>) -> Option<u64> {
        let kind = match (&self.kind, kind) {
            (None, _) => None,
            (Some(_), Some(k)) if k > 0 => Some(k as u64),
            (Some(_), _) => return None,
        };
        Some(match self.base {
            BaseType::Integer | BaseType::Real | BaseType::Logical => kind.unwrap_or(4),
            BaseType::DoublePrecision => 8,
            BaseType::Complex => 2 * kind.unwrap_or(4),
            BaseType::DoubleComplex => 16,
            BaseType::Character => kind.unwrap_or(1) * len.map_or(1, |l| l.max(0) as u64),
            BaseType::Derived => return None,
        })
    }

    pub fn name(&self) -> String {
        match self.base {
            BaseType::Integer => "integer",
            BaseType::Real => "real",
            BaseType::DoublePrecision => "double precision",
            BaseType::Complex => "complex",
            BaseType::DoubleComplex => "double complex",
            BaseType::Logical => "logical",
            BaseType::Character => "character",
            BaseType::Derived => {
                return format!("type({})", self.derived.as_deref().unwrap_or("?"));
            }
        }
        .to_string()
    }
}

impl fmt::Display for TypeSpec {
    /// `real(8)`, `character*4`, `type(point)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())?;
        if let Some(k) = &self.kind {
            write!(f, "({k})")?;
        }
        if let Some(l) = &self.len {
            write!(f, "*{l}")?;
        }
        Ok(())
    }
}

/// The implicit typing rules in force: a type per initial letter, or none after
/// `IMPLICIT NONE`. Shared: the 26 types take 4 KB, and almost every unit has the
/// default or none (one allocation each for all); an IMPLICIT statement copies them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImplicitRules {
    letters: Arc<[Option<TypeSpec>; 26]>,
}

impl Default for ImplicitRules {
    /// Fortran's default: I–N integer, everything else real.
    fn default() -> ImplicitRules {
        static DEFAULT: LazyLock<ImplicitRules> = LazyLock::new(|| {
            let letters = std::array::from_fn(|i| {
                let base = if (8..=13).contains(&i) {
                    BaseType::Integer
                } else {
                    BaseType::Real
                };
                Some(TypeSpec::of(base))
            });
            ImplicitRules {
                letters: Arc::new(letters),
            }
        });
        DEFAULT.clone()
    }
}

impl ImplicitRules {
    pub fn none() -> ImplicitRules {
        static NONE: LazyLock<ImplicitRules> = LazyLock::new(|| ImplicitRules {
            letters: Arc::new(std::array::from_fn(|_| None)),
        });
        NONE.clone()
    }

    /// `IMPLICIT type (from-to)`.
    pub fn set(&mut self, from: char, to: char, ty: &TypeSpec) {
        let (a, b) = (letter_index(from), letter_index(to));
        if let (Some(a), Some(b)) = (a, b) {
            for slot in &mut Arc::make_mut(&mut self.letters)[a.min(b)..=a.max(b)] {
                *slot = Some(ty.clone());
            }
        }
    }

    /// The implicit type of `name`, if any.
    pub fn type_of(&self, name: &str) -> Option<&TypeSpec> {
        let first = name.chars().next()?;
        self.letters[letter_index(first)?].as_ref()
    }
}

fn letter_index(c: char) -> Option<usize> {
    let c = c.to_ascii_lowercase();
    c.is_ascii_lowercase().then(|| (c as u8 - b'a') as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_implicit_typing() {
        let rules = ImplicitRules::default();
        assert_eq!(rules.type_of("i").unwrap().base, BaseType::Integer);
        assert_eq!(rules.type_of("n2").unwrap().base, BaseType::Integer);
        assert_eq!(rules.type_of("x").unwrap().base, BaseType::Real);
        assert!(ImplicitRules::none().type_of("i").is_none());
    }

    #[test]
    fn implicit_double_precision_ranges() {
        let mut rules = ImplicitRules::default();
        rules.set('a', 'h', &TypeSpec::of(BaseType::DoublePrecision));
        rules.set('o', 'z', &TypeSpec::of(BaseType::DoublePrecision));
        assert_eq!(rules.type_of("b").unwrap().base, BaseType::DoublePrecision);
        assert_eq!(rules.type_of("k").unwrap().base, BaseType::Integer);
    }

    #[test]
    fn element_sizes() {
        let real = TypeSpec::of(BaseType::Real);
        assert_eq!(real.element_bytes(None, None), Some(4));
        let real8 = TypeSpec {
            kind: Some(Expr::Int(8)),
            ..real.clone()
        };
        assert_eq!(real8.element_bytes(Some(8), None), Some(8));
        assert_eq!(real8.element_bytes(None, None), None);
        let complex = TypeSpec::of(BaseType::DoubleComplex);
        assert_eq!(complex.element_bytes(None, None), Some(16));
    }
}
