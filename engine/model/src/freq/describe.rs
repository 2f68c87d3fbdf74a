//! Assumptions in words, for reports and hovers.

use super::{Assumption, Source};
use costline_symbolic::Rational;
use costline_syntax::span::Span;

impl Assumption {
    /// Whether the value was measured by a profile run rather than assumed.
    pub fn is_measured(&self) -> bool {
        matches!(
            self,
            Assumption::Probability {
                source: Source::Measured { .. },
                ..
            } | Assumption::Trips {
                source: Source::Measured { .. },
                ..
            }
        )
    }

    /// The assumption in words; `line` gives the line of a span of the unit's text.
    pub fn describe(&self, line: &dyn Fn(Span) -> u32) -> String {
        match self {
            Assumption::Probability {
                at,
                p,
                source: Source::Measured { run },
            } => format!(
                "the branch at line {} is taken with probability {} where no earlier one is \
                 (measured: {run})",
                line(*at),
                decimal(*p)
            ),
            Assumption::Probability { at, p, source } => {
                let how = match source {
                    Source::Pragma => "set by pragma",
                    _ => "assumed by default; set it with `!costline: probability P`",
                };
                format!(
                    "the data-dependent condition at line {} holds with probability {} ({how})",
                    line(*at),
                    decimal(*p)
                )
            }
            Assumption::Trips {
                at,
                trips,
                source,
                why,
            } => {
                let how = match source {
                    Source::Measured { run } => format!("measured: {run}"),
                    Source::Pragma => "set by pragma".to_string(),
                    Source::Default => {
                        "assumed by default; set it with `!costline: trips N`".to_string()
                    }
                };
                let mean = if trips.den() == 1 { "" } else { "on average " };
                format!(
                    "the loop at line {} runs {mean}{} times: {why} ({how})",
                    line(*at),
                    decimal(*trips)
                )
            }
            Assumption::EarlyExit { at } => {
                format!(
                    "the loop at line {} may exit early: its count is an upper bound",
                    line(*at)
                )
            }
            Assumption::Complex { at } => format!(
                "the conditions on the path to line {} are too many to count exactly: estimated with probability 1/2",
                line(*at)
            ),
            Assumption::ColdPath { at } => format!(
                "the branch at line {} ends the program: taken not to run (probability 0; \
                 set another with `!costline: probability P`)",
                line(*at)
            ),
            Assumption::InputDefault { at, names } => {
                let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                let (is, its) = if names.len() == 1 {
                    ("is", "its value")
                } else {
                    ("are", "their values")
                };
                format!(
                    "{} {is} read at run time on one path of line {}: {its} on the other \
                     (the program's default, without input) taken",
                    list.join(", "),
                    line(*at)
                )
            }
            Assumption::JumpTarget { at } => {
                format!(
                    "line {} is a GO TO target: counted as if always reached (an upper bound)",
                    line(*at)
                )
            }
        }
    }
}

/// A probability as a short decimal (0.5, 0.125) or a fraction (1/3).
fn decimal(p: Rational) -> String {
    let mut d = p.den();
    while d % 2 == 0 {
        d /= 2;
    }
    while d % 5 == 0 {
        d /= 5;
    }
    if d == 1 && p.den() <= 1_000_000 {
        let s = format!("{:.6}", p.to_f64());
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        p.to_string()
    }
}
