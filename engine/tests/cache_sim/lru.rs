//! LRU cache hierarchies: every access goes to the first level, a miss in a level goes
//! on to the next (non-inclusive, write-allocate; write-backs are not counted). Each
//! level counts the lines loaded into it (its misses).
//!
//! A level is set-associative (the machine's caches) or fully associative (the same
//! capacity without set conflicts: what a model that knows only capacities describes,
//! used to tell conflict misses from capacity misses).

use std::collections::{BTreeMap, HashMap};

/// One set-associative LRU cache.
pub struct Cache {
    line_bytes: u64,
    sets: u64,
    ways: usize,
    /// Per set, the lines it holds, least recently used first.
    lines: Vec<Vec<u64>>,
    pub misses: u64,
}

impl Cache {
    /// A cache of `bytes` with `ways`-way sets of `line_bytes` lines.
    pub fn new(bytes: u64, ways: usize, line_bytes: u64) -> Cache {
        let ways = ways.max(1);
        let sets = (bytes / (line_bytes * ways as u64)).max(1);
        Cache {
            line_bytes,
            sets,
            ways,
            lines: (0..sets).map(|_| Vec::with_capacity(ways)).collect(),
            misses: 0,
        }
    }

    /// Touches the line holding `address`; whether it was cached (a miss loads it,
    /// evicting its set's least recently used line when the set is full).
    pub fn access(&mut self, address: u64) -> bool {
        self.touch(address / self.line_bytes)
    }

    /// Touches line number `line` (address / line size).
    pub fn touch(&mut self, line: u64) -> bool {
        let set = &mut self.lines[(line % self.sets) as usize];
        if let Some(pos) = set.iter().position(|&l| l == line) {
            let l = set.remove(pos);
            set.push(l);
            return true;
        }
        self.misses += 1;
        if set.len() == self.ways {
            set.remove(0);
        }
        set.push(line);
        false
    }
}

/// One fully associative LRU cache of a number of lines.
pub struct FullCache {
    capacity: usize,
    clock: u64,
    /// Line → time of its last use, and back.
    last: HashMap<u64, u64>,
    by_time: BTreeMap<u64, u64>,
    pub misses: u64,
}

impl FullCache {
    pub fn new(lines: usize) -> FullCache {
        FullCache {
            capacity: lines.max(1),
            clock: 0,
            last: HashMap::new(),
            by_time: BTreeMap::new(),
            misses: 0,
        }
    }

    /// Touches line number `line`; whether it was cached.
    pub fn touch(&mut self, line: u64) -> bool {
        self.clock += 1;
        let hit = match self.last.insert(line, self.clock) {
            Some(t) => {
                self.by_time.remove(&t);
                true
            }
            None => false,
        };
        self.by_time.insert(self.clock, line);
        if !hit {
            self.misses += 1;
            if self.last.len() > self.capacity {
                let (_, old) = self.by_time.pop_first().expect("not empty");
                self.last.remove(&old);
            }
        }
        hit
    }
}

/// One level of a hierarchy.
pub enum Level {
    Set(Cache),
    Full(FullCache),
}

impl Level {
    fn touch(&mut self, line: u64) -> bool {
        match self {
            Level::Set(c) => c.touch(line),
            Level::Full(c) => c.touch(line),
        }
    }

    fn misses(&self) -> u64 {
        match self {
            Level::Set(c) => c.misses,
            Level::Full(c) => c.misses,
        }
    }
}

/// Levels of caches, innermost first.
pub struct Hierarchy {
    pub line_bytes: u64,
    pub levels: Vec<Level>,
}

impl Hierarchy {
    /// Set-associative levels of (bytes, associativity), all with `line_bytes` lines.
    pub fn new(line_bytes: u64, levels: &[(u64, usize)]) -> Hierarchy {
        Hierarchy {
            line_bytes,
            levels: levels
                .iter()
                .map(|&(bytes, ways)| Level::Set(Cache::new(bytes, ways, line_bytes)))
                .collect(),
        }
    }

    /// Fully associative levels of the same capacities.
    pub fn fully_associative(line_bytes: u64, levels: &[(u64, usize)]) -> Hierarchy {
        Hierarchy {
            line_bytes,
            levels: levels
                .iter()
                .map(|&(bytes, _)| Level::Full(FullCache::new((bytes / line_bytes) as usize)))
                .collect(),
        }
    }

    /// One access: down the levels until one holds the line; the number of levels
    /// that missed it.
    pub fn access(&mut self, address: u64) -> usize {
        let line = address / self.line_bytes;
        for (i, level) in self.levels.iter_mut().enumerate() {
            if level.touch(line) {
                return i;
            }
        }
        self.levels.len()
    }

    /// Misses of each level, innermost first.
    pub fn misses(&self) -> Vec<u64> {
        self.levels.iter().map(Level::misses).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_the_least_recently_used_line_of_a_set() {
        // One set of two ways.
        let mut c = Cache::new(128, 2, 64);
        assert!(!c.access(0));
        assert!(!c.access(64));
        assert!(c.access(0));
        // 128 evicts 64, the least recently used.
        assert!(!c.access(128));
        assert!(c.access(0));
        assert!(!c.access(64));
        assert_eq!(c.misses, 4);
    }

    #[test]
    fn sets_are_chosen_by_line_number() {
        // Two sets of one way: lines 0 and 2 conflict, 1 does not.
        let mut c = Cache::new(128, 1, 64);
        assert!(!c.access(0));
        assert!(!c.access(64));
        assert!(!c.access(128));
        assert!(c.access(64 + 32));
        assert!(!c.access(0));
    }

    #[test]
    fn fully_associative_lru_is_a_set_associative_one_with_one_set() {
        let mut full = FullCache::new(3);
        let mut one_set = Cache::new(3 * 64, 3, 64);
        let lines = [0u64, 1, 2, 0, 3, 1, 4, 0, 2, 2, 5, 3, 0, 1];
        for &l in &lines {
            assert_eq!(full.touch(l), one_set.touch(l), "line {l}");
        }
        assert_eq!(full.misses, one_set.misses);
    }

    #[test]
    fn a_miss_goes_on_to_the_next_level() {
        let mut h = Hierarchy::new(64, &[(64, 1), (256, 4)]);
        for a in [0, 64, 0, 64, 8] {
            h.access(a);
        }
        // L1 (one line) misses on every change of line (five); L2 holds both.
        assert_eq!(h.misses(), vec![5, 2]);
    }
}
