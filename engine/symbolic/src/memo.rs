//! A bounded map of remembered answers of a pure function, one per thread (no locks on
//! the analysis's hot path). Real programs ask the same questions over and over (every
//! `do j = 1, n; do i = 2, n - 1` nest of a stencil code sums one iteration space), and
//! the answers here depend on their inputs alone. Full, the map starts over: memory
//! stays bounded, and the recent shapes come back within a few calls.

use std::collections::HashMap;
use std::hash::Hash;

pub(crate) struct Memo<K, V> {
    answers: HashMap<K, V>,
    capacity: usize,
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    pub(crate) fn new(capacity: usize) -> Memo<K, V> {
        Memo {
            answers: HashMap::new(),
            capacity,
        }
    }

    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.answers.get(key).cloned()
    }

    pub(crate) fn insert(&mut self, key: K, answer: V) {
        if self.answers.len() >= self.capacity {
            self.answers.clear();
        }
        self.answers.insert(key, answer);
    }
}
