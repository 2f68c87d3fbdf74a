//! What a profile run must measure of a unit: the statements whose counts rest on an
//! assumed (or pragma-given) branch probability or trip count, and the integer
//! scalars whose values the counts need but the text does not give. Measuring them
//! and giving the counts back ([`super::Measured`]) replaces each assumption and
//! binds each such unknown.

use super::{Assumption, UnitFrequencies};
use costline_syntax::ir::{Stmt, StmtId, StmtKind, Unit, walk};
use costline_syntax::span::Span;
use std::collections::{BTreeSet, HashSet};

/// One statement to measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Probe {
    /// The IF or SELECT `stmt` with a data-dependent condition: how often each branch
    /// runs, and how often none does.
    Branches { stmt: StmtId },
    /// The loop `stmt` whose trip count is not known: how often it is entered and how
    /// often its body begins.
    Loop { stmt: StmtId },
    /// The GO TO loop from the labelled statement `label` to the GO TOs `jumps` back to
    /// it: how often the label is reached and how often each jump is taken.
    Repeat { label: StmtId, jumps: Vec<StmtId> },
    /// The values of the unknowns `names` (scalars, elements at constant subscripts,
    /// extents `size(x,k)`: each a Fortran expression the unit can evaluate) just
    /// before the statement `before` of the unit's body, whose counts need them.
    Values { before: StmtId, names: Vec<String> },
}

/// The probes of `unit`: first one per statement of the unit's body (not nested)
/// whose counts, or its statements', need unknowns the run can record
/// ([`Probe::Values`]); then, in statement order, one per statement whose count in
/// `freqs` rests on an assumed probability or trip count and one per IF or SELECT
/// whose conditions bring in such an unknown (its branches are counted too: where the
/// value varies, its mean does not say how often a branch runs). A GO TO loop also
/// jumped to by a computed GO TO or an arithmetic IF cannot be measured and has none.
pub fn probes(unit: &Unit, freqs: &UnitFrequencies) -> Vec<Probe> {
    let mut decided: HashSet<Span> = HashSet::new();
    let mut repeated: HashSet<Span> = HashSet::new();
    unit.walk(&mut |s, _| {
        for a in freqs.of(s.id).map_or(&[][..], |c| &c.assumptions) {
            match a {
                Assumption::Probability { at, .. } | Assumption::ColdPath { at } => {
                    decided.insert(*at);
                }
                Assumption::Trips { at, .. } => {
                    repeated.insert(*at);
                }
                _ => {}
            }
        }
    });
    let unknowns = |s: &Stmt| -> BTreeSet<String> {
        freqs.of(s.id).map_or_else(BTreeSet::new, |c| {
            c.unknowns()
                .iter()
                .map(|n| n.to_string())
                .filter(|n| recordable(unit, n))
                .collect()
        })
    };
    // The IFs and SELECTs whose branches' counts need unknowns their own does not.
    let mut valued: HashSet<StmtId> = HashSet::new();
    unit.walk(&mut |s, _| {
        if matches!(s.kind, StmtKind::If(_) | StmtKind::Select(_)) {
            let own = unknowns(s);
            let new = s
                .children()
                .filter(|c| !matches!(c.kind, StmtKind::Loop(_)))
                .any(|c| unknowns(c).difference(&own).next().is_some());
            if new {
                valued.insert(s.id);
            }
        }
    });
    let mut out = Vec::new();
    for top in &unit.body {
        let mut names: BTreeSet<String> = BTreeSet::new();
        walk(std::slice::from_ref(top), &mut |s, _| {
            names.extend(unknowns(s))
        });
        if !names.is_empty() {
            out.push(Probe::Values {
                before: top.id,
                names: names.into_iter().collect(),
            });
        }
    }
    unit.walk(&mut |s, _| {
        match &s.kind {
            StmtKind::If(_) | StmtKind::Select(_)
                if decided.contains(&s.span) || valued.contains(&s.id) =>
            {
                out.push(Probe::Branches { stmt: s.id });
            }
            StmtKind::Loop(l) if repeated.contains(&l.header) => {
                out.push(Probe::Loop { stmt: s.id });
            }
            _ => {}
        }
        // A labelled statement (of any kind) may start a GO TO loop.
        if let Some(label) = s.label
            && repeated.contains(&s.span)
            && let Some(jumps) = jumps_back(unit, s.id, label)
        {
            out.push(Probe::Repeat { label: s.id, jumps });
        }
    });
    out
}

/// Whether the run can record the unknown `name` of `unit`'s counts where they need
/// it: a variable the unit sees (not a constant) that is an integer scalar, an element
/// of an array at constant subscripts (`m(2,3)`), or an array's extent `size(x,k)`;
/// not of an allocatable or pointer (it may not be allocated or associated there, and
/// reading it could end the program).
fn recordable(unit: &Unit, name: &str) -> bool {
    let symbol = |n: &str| unit.symbols.get(n).or_else(|| unit.outer.get(n));
    let variable = |n: &str, array: bool| {
        symbol(n).is_some_and(|s| {
            !s.attrs.parameter && !s.attrs.allocatable && !s.attrs.pointer && s.is_array() == array
        })
    };
    let Some((head, rest)) = name.split_once('(') else {
        return variable(name, false);
    };
    let Some(args) = rest.strip_suffix(')') else {
        return false;
    };
    let numbers = |a: &str| {
        a.split(',').all(|x| {
            !x.is_empty()
                && x.trim_start_matches('-')
                    .bytes()
                    .all(|b| b.is_ascii_digit())
        })
    };
    match (head, args.split_once(',')) {
        ("size", Some((array, k))) => variable(array, true) && numbers(k),
        _ => variable(head, true) && numbers(args),
    }
}

/// The plain GO TOs to `label` after statement `from`; `None` when a computed GO TO or
/// an arithmetic IF jumps there too.
fn jumps_back(unit: &Unit, from: StmtId, label: u32) -> Option<Vec<StmtId>> {
    let mut jumps = Vec::new();
    let mut measurable = true;
    unit.walk(&mut |s, _| match &s.kind {
        StmtKind::Goto { targets, selector } if targets.contains(&label) => {
            if selector.is_some() || targets.len() > 1 {
                measurable = false;
            } else if s.id.0 > from.0 {
                jumps.push(s.id);
            }
        }
        StmtKind::ArithmeticIf { targets, .. } if targets.contains(&label) => {
            measurable = false;
        }
        _ => {}
    });
    (measurable && !jumps.is_empty()).then_some(jumps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::freq::{FreqOptions, frequencies};

    #[test]
    fn data_dependent_branches_and_unknown_trips_are_probed() {
        let text = "program p\n  integer :: i, n, k\n  real :: x(10)\n  read *, n\n  do i = 1, 10\n    if (x(i) > 0) then\n      k = 1\n    end if\n    if (i > 5) k = 2\n  end do\n  do while (x(1) > 0)\n    x(1) = x(1) - 1\n  end do\n  do i = 1, n\n    k = 3\n  end do\n10 continue\n  k = k + 1\n  if (k < 5) goto 10\nend program\n";
        let unit = crate::testing::unit(text);
        let freqs = frequencies(&unit, &FreqOptions::default());
        let probes = probes(&unit, &freqs);
        let kinds: Vec<String> = probes
            .iter()
            .map(|p| match p {
                Probe::Branches { stmt } => format!("branches {}", stmt.0),
                Probe::Loop { stmt } => format!("loop {}", stmt.0),
                Probe::Repeat { label, jumps } => format!("repeat {} {:?}", label.0, jumps),
                Probe::Values { before, names } => format!("values {} {names:?}", before.0),
            })
            .collect();
        // The affine IF (i > 5) is counted exactly: no probe.
        assert_eq!(
            kinds,
            [
                "branches 2",
                "loop 6",
                "loop 8",
                "repeat 10 [StmtId(13)]",
                "branches 12"
            ]
        );
    }

    #[test]
    fn unknowns_the_counts_need_are_recorded_before_their_outermost_statement() {
        // `y` may not be allocated before its loop: its extent is not recorded.
        let text = "subroutine s(n, m, x)\n  integer :: n, m, i, k, j\n  real :: x(:)\n  real, allocatable :: y(:)\n  common /c/ k\n  k = 0\n  do i = 1, n\n    if (m > 3) k = k + 1\n  end do\n  do i = 1, size(x)\n    j = j + 1\n  end do\n  do i = 1, size(y)\n    j = j + 1\n  end do\nend subroutine\n";
        let unit = crate::testing::unit(text);
        let freqs = frequencies(&unit, &FreqOptions::default());
        assert_eq!(
            probes(&unit, &freqs),
            [
                Probe::Values {
                    before: StmtId(1),
                    names: vec!["m".into(), "n".into()]
                },
                Probe::Values {
                    before: StmtId(4),
                    names: vec!["size(x,1)".into()]
                },
                // The IF on `m` is counted: `m` may vary between calls.
                Probe::Branches { stmt: StmtId(2) },
            ]
        );
    }
}
