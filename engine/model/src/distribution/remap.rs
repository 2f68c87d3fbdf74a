//! A remapping: moving an array from one mapping to another (REDISTRIBUTE, REALIGN,
//! and the implicit remapping of an actual argument at a call). What it sends is
//! counted by `crate::comm::remap`.

use super::{Arrangement, Mapping};
use costline_symbolic::Sym;

/// Moving one array from one mapping to another (`None`: replicated on every processor).
#[derive(Clone, Debug)]
pub struct Remap {
    pub array: String,
    /// The declared (lower bound, extent) of each dimension.
    pub shape: Vec<(Sym, Sym)>,
    pub from: Option<Mapping>,
    pub to: Option<Mapping>,
}

impl Remap {
    /// The arrangement the senders are numbered on (the receivers', when the array was
    /// replicated), if either side has a mapping.
    pub fn senders(&self) -> Option<&Arrangement> {
        self.from
            .as_ref()
            .or(self.to.as_ref())
            .map(|m| &m.distribution.onto)
    }

    /// The arrangement the receivers are numbered on (the senders', when the array
    /// becomes replicated).
    pub fn receivers(&self) -> Option<&Arrangement> {
        self.to
            .as_ref()
            .or(self.from.as_ref())
            .map(|m| &m.distribution.onto)
    }

    /// Whether the remapping leaves every element where it is (same mapping, or from
    /// a replicated array).
    pub fn is_identity(&self) -> bool {
        match (&self.from, &self.to) {
            (None, _) => true,
            (Some(a), Some(b)) => a.same_placement(b),
            (Some(_), None) => false,
        }
    }
}
