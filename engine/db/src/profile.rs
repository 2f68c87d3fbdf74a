//! A profile run's measurements (`costline profile`) as the analysis takes them: per
//! program unit, the digest of the unit's text they were measured on and what was
//! measured ([`Measured`]). A unit whose text is still the one measured counts with
//! them (its values bind its unknowns: `analysis::constants`); a unit whose text changed since is *stale*: its measurements are never
//! applied, and a finding says so at its header.

use super::inputs::Settings;
use super::units::{UnitText, base};
use costline_model::freq::Measured;
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::UnitKind;
use costline_syntax::span::Span;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The measurements of a profile run, by unit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The run in words (`profile of 2026-11-29 02:00 UTC, arguments `S``).
    pub run: Arc<str>,
    /// The processes an MPI program ran on: the process count an analysis that binds
    /// none takes, and the one whose per-rank counts apply.
    pub ranks: Option<usize>,
    pub units: BTreeMap<UnitKey, UnitProfile>,
}

/// A program unit as a profile names it: its kind, name and host's name (lower-case).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitKey {
    pub kind: UnitKind,
    pub name: String,
    pub host: Option<String>,
}

/// What a profile measured of one unit, and the [`text_digest`] of the unit's text
/// (included files spliced in) it was measured on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitProfile {
    pub digest: u64,
    pub measured: Arc<Measured>,
}

/// A digest of a unit's text that is the same in every build and on every machine
/// (FNV-1a, 64 bits): what a profile file keeps to recognize the text it measured.
pub fn text_digest(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Whether a profile answers for a unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileState {
    /// No profile, or one that did not measure the unit.
    None,
    /// The profile measured another text of the unit.
    Stale { run: Arc<str> },
    /// The profile measured the unit as it is.
    Fresh(Arc<Measured>),
}

/// Whether the profile in force answers for `unit` (as written: a variant's
/// measurements are its unit's).
#[salsa::tracked(returns(clone))]
pub fn profile_state<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> ProfileState {
    let unit = base(db, unit);
    let Some(profile) = Settings::get(db).profile(db) else {
        return ProfileState::None;
    };
    let key = UnitKey {
        kind: unit.kind(db),
        name: unit.name(db).clone(),
        host: unit.host(db).clone(),
    };
    match profile.units.get(&key) {
        None => ProfileState::None,
        Some(p) if p.digest == text_digest(unit.text(db)) => {
            ProfileState::Fresh(p.measured.clone())
        }
        Some(_) => ProfileState::Stale {
            run: profile.run.clone(),
        },
    }
}

/// The finding on a stale unit, at its header.
pub fn stale_note(state: &ProfileState, header: Span) -> Option<Diagnostic> {
    let ProfileState::Stale { run } = state else {
        return None;
    };
    Some(Diagnostic::warning(
        header,
        "stale-profile",
        format!(
            "this unit changed since its {run}: the measured branch probabilities, trip \
             counts and values are not applied (run `costline profile` again)"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_fnv_1a() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(text_digest(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(text_digest("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(text_digest("foobar"), 0x8594_4171_f739_67e8);
    }
}
