//! A bounded map of remembered answers of a pure function, one per thread (no locks on
//! the analysis's hot path). Real programs ask the same questions over and over (every
//! `do j = 1, n; do i = 2, n - 1` nest of a stencil code sums one iteration space), and
//! the answers here depend on their inputs alone. Full, the map starts over: memory
//! stays bounded, and the recent shapes come back within a few calls. Keys are hashed
//! with FxHash (deep expressions among them; SipHash was a few per cent of a cold run).

use rustc_hash::FxHashMap;
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
    answers: FxHashMap<K, V>,
    capacity: usize,
    generation: u64,
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    pub(crate) fn new(capacity: usize) -> Memo<K, V> {
        Memo {
            answers: FxHashMap::default(),
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
            self.answers = FxHashMap::default();
            self.generation = generation;
        }
        self.answers.insert(key, answer);
    }
}

/// A [`Memo`] shared by every thread, for answers that take milliseconds and recur
/// across the analysis threads (the cases of a count printed in every unit's report):
/// the lock is held to look up and to insert, never while an answer is computed.
pub(crate) struct SharedMemo<K, V> {
    memo: std::sync::Mutex<Option<Memo<K, V>>>,
    capacity: usize,
}

impl<K: Hash + Eq, V: Clone> SharedMemo<K, V> {
    pub(crate) const fn new(capacity: usize) -> SharedMemo<K, V> {
        SharedMemo {
            memo: std::sync::Mutex::new(None),
            capacity,
        }
    }

    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.memo.lock().ok()?.as_ref()?.get(key)
    }

    pub(crate) fn insert(&self, key: K, answer: V) {
        if let Ok(mut memo) = self.memo.lock() {
            memo.get_or_insert_with(|| Memo::new(self.capacity))
                .insert(key, answer);
        }
    }

    /// The answer remembered for `key`, else `answer()` remembered (computed without
    /// holding the lock: another thread may compute the same answer meanwhile).
    pub(crate) fn get_or_insert_with(&self, key: K, answer: impl FnOnce() -> V) -> V {
        if let Some(known) = self.get(&key) {
            return known;
        }
        let known = answer();
        self.insert(key, known.clone());
        known
    }
}
