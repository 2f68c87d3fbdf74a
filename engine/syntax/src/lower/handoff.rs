//! A parse tree handed from the parse of a unit to its lowering once, then dropped.

use std::sync::Mutex;
use tree_sitter::Tree;

/// The tree a unit's parse built, kept for the first lowering to take
/// ([`super::RepairedUnit::reparse`]): the repaired text is parsed once in a cold
/// analysis, not twice, and no tree outlives its lowering (a kept tree per unit was a
/// third of the memory of a cold analysis). Not part of the unit's value: two
/// [`super::RepairedUnit`]s are equal whatever their handoffs hold, and a clone holds
/// none.
#[derive(Default)]
pub struct Handoff(Mutex<Option<Tree>>);

impl Handoff {
    pub fn new(tree: Tree) -> Handoff {
        Handoff(Mutex::new(Some(tree)))
    }

    /// The tree, the first time it is asked for.
    pub fn take(&self) -> Option<Tree> {
        self.0.lock().ok()?.take()
    }
}

impl Clone for Handoff {
    fn clone(&self) -> Handoff {
        Handoff::default()
    }
}

impl PartialEq for Handoff {
    fn eq(&self, _: &Handoff) -> bool {
        true
    }
}

impl Eq for Handoff {}

impl std::fmt::Debug for Handoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Handoff")
    }
}
