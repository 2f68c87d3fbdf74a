//! A distribution alternative as written: one format per dimension of the distributee
//! and the shape of the processor grid as a rule of the processor count P.

use std::fmt;

/// One dimension's distribution format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fmt {
    /// `BLOCK`: contiguous blocks of ⌈n/P⌉.
    Block,
    /// `CYCLIC` (k = 1) or `CYCLIC(k)`: blocks of k dealt round-robin.
    Cyclic(u32),
    /// `*`: not distributed.
    Star,
}

impl Fmt {
    /// The format's HPF spelling, upper or lower case.
    pub fn text(self, upper: bool) -> String {
        let s = match self {
            Fmt::Block => "BLOCK".to_string(),
            Fmt::Cyclic(1) => "CYCLIC".to_string(),
            Fmt::Cyclic(k) => format!("CYCLIC({k})"),
            Fmt::Star => "*".to_string(),
        };
        if upper { s } else { s.to_ascii_lowercase() }
    }
}

/// How the grid's extents follow from the processor count P.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grid {
    /// One dimension of P processors.
    Line,
    /// Two dimensions r × c, r·c = P, as near square as P allows: r ≥ c when `tall`,
    /// else c × r.
    Square { tall: bool },
    /// The extents as written, whatever P is (an arrangement other directives share).
    Fixed(Vec<i64>),
    /// No PROCESSORS arrangement: HPF's default one-dimensional arrangement of P.
    Default,
}

impl Grid {
    /// The extents for `p` processors (`None` for a fixed grid of another size or a
    /// square rule that degenerates to one dimension).
    pub fn extents(&self, p: i64) -> Option<Vec<i64>> {
        match self {
            Grid::Line | Grid::Default => (p >= 1).then(|| vec![p]),
            Grid::Square { tall } => {
                let (r, c) = near_square(p)?;
                (c > 1).then(|| if *tall { vec![r, c] } else { vec![c, r] })
            }
            Grid::Fixed(e) => (e.iter().product::<i64>() == p).then(|| e.clone()),
        }
    }
}

/// The factorization r × c of `p` with r ≥ c and c the largest divisor of p not above
/// √p.
pub fn near_square(p: i64) -> Option<(i64, i64)> {
    if p < 1 {
        return None;
    }
    let mut c = (p as f64).sqrt() as i64 + 1;
    while c > 1 && (c * c > p || p % c != 0) {
        c -= 1;
    }
    Some((p / c, c))
}

/// A distribution alternative: a format per dimension and a grid rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Layout {
    pub formats: Vec<Fmt>,
    pub grid: Grid,
}

impl Layout {
    /// How many dimensions are distributed (the rank of the grid it needs).
    pub fn distributed(&self) -> usize {
        self.formats.iter().filter(|f| **f != Fmt::Star).count()
    }

    /// The format list as HPF writes it: `(BLOCK, *)`, in the case and spacing asked.
    pub fn formats_text(&self, upper: bool, spaced: bool) -> String {
        let sep = if spaced { ", " } else { "," };
        let parts: Vec<String> = self.formats.iter().map(|f| f.text(upper)).collect();
        format!("({})", parts.join(sep))
    }

    /// The grid's shape for `p` as HPF writes it: `(4, 4)`.
    pub fn shape_text(&self, p: i64, spaced: bool) -> Option<String> {
        let sep = if spaced { ", " } else { "," };
        let e = self.grid.extents(p)?;
        let parts: Vec<String> = e.iter().map(|x| x.to_string()).collect();
        Some(format!("({})", parts.join(sep)))
    }

    /// What a user reads: `(BLOCK, *) onto 16` or `(BLOCK, BLOCK) onto 4×4`.
    pub fn label(&self, p: i64) -> String {
        let grid = match self.grid.extents(p) {
            Some(e) if e.len() > 1 => {
                let parts: Vec<String> = e.iter().map(|x| x.to_string()).collect();
                parts.join("×")
            }
            _ => p.to_string(),
        };
        format!("{} onto {grid}", self.formats_text(true, true))
    }
}

impl fmt::Display for Layout {
    /// The format list with the grid rule: `(BLOCK, BLOCK) onto a near-square grid`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = match &self.grid {
            Grid::Line | Grid::Default => String::new(),
            Grid::Square { tall: true } => " onto a near-square grid".into(),
            Grid::Square { tall: false } => " onto a near-square grid, transposed".into(),
            Grid::Fixed(e) => {
                let parts: Vec<String> = e.iter().map(|x| x.to_string()).collect();
                format!(" onto {}", parts.join("×"))
            }
        };
        write!(f, "{}{rule}", self.formats_text(true, true))
    }
}
