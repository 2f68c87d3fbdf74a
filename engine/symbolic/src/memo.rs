//! A bounded map of remembered answers of a pure function, one per thread (no locks on
//! the analysis's hot path). Real programs ask the same questions over and over (every
//! `do j = 1, n; do i = 2, n - 1` nest of a stencil code sums one iteration space), and
//! the answers here depend on their inputs alone. Full, the map starts over: memory
//! stays bounded, and the recent shapes come back within a few calls.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bumped by [`forget_all`]: a map that sees a newer value than its own starts over.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Every thread's remembered answers are dropped at that thread's next question (what a
/// long-running server does when it moves to a fresh database: nothing it remembered
/// is wrong, but it holds memory the fresh start means to give back).
pub fn forget_all() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

pub(crate) struct Memo<K, V> {
    answers: HashMap<K, V>,
    capacity: usize,
    generation: u64,
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    pub(crate) fn new(capacity: usize) -> Memo<K, V> {
        Memo {
            answers: HashMap::new(),
            capacity,
            generation: GENERATION.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn get(&self, key: &K) -> Option<V> {
        if self.generation != GENERATION.load(Ordering::Relaxed) {
            return None;
        }
        self.answers.get(key).cloned()
    }

    pub(crate) fn insert(&mut self, key: K, answer: V) {
        let generation = GENERATION.load(Ordering::Relaxed);
        if self.answers.len() >= self.capacity || self.generation != generation {
            self.answers = HashMap::new();
            self.generation = generation;
        }
        self.answers.insert(key, answer);
    }
}
