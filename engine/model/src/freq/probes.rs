//! What a profile run must measure of a unit: the statements whose counts rest on an
//! assumed (or pragma-given) branch probability or trip count. Measuring them and
//! giving the counts back ([`super::Measured`]) replaces each assumption.

use super::{Assumption, UnitFrequencies};
use costline_syntax::ir::{StmtId, StmtKind, Unit};
use costline_syntax::span::Span;
use std::collections::HashSet;

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
}

/// The probes of `unit`, in statement order: one per statement whose count in `freqs`
/// rests on an assumed probability or trip count. A GO TO loop also jumped to by a
/// computed GO TO or an arithmetic IF cannot be measured and has none.
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
    let mut out = Vec::new();
    unit.walk(&mut |s, _| {
        match &s.kind {
            StmtKind::If(_) | StmtKind::Select(_) if decided.contains(&s.span) => {
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
}
