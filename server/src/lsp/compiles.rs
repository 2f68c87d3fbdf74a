//! The compiler's reports of the open documents (`askCompiler`), as the backend asks
//! for them in the background: the outputs kept by what they were made from (path,
//! content, compiler command, include directories), so that the same text is never
//! compiled twice; one compile at a time; and what the analysis was last sent per
//! path, so that the editor is asked to refresh only when a report changes.

use costline_ide::{CompilerOutput, content_hash};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Mutex;
use tokio::sync::Semaphore;

/// Outputs kept (the oldest is dropped first).
const CACHED: usize = 64;

/// What a compile is made from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    path: String,
    content: u64,
    command: String,
    include_dirs: Vec<PathBuf>,
}

impl Key {
    /// The compile of `bytes` as the file at `path` by `command`, searching
    /// `include_dirs`.
    pub fn new(path: &str, bytes: &[u8], command: &str, include_dirs: &[PathBuf]) -> Key {
        Key {
            path: path.to_string(),
            content: content_hash(bytes),
            command: command.to_string(),
            include_dirs: include_dirs.to_vec(),
        }
    }
}

pub struct Compiles {
    /// One compile at a time: the cores are the analysis's.
    pub gate: Semaphore,
    cache: Mutex<(HashMap<Key, CompilerOutput>, VecDeque<Key>)>,
    /// The key of the output last sent to the analysis, by path.
    sent: Mutex<HashMap<String, Key>>,
}

impl Default for Compiles {
    fn default() -> Compiles {
        Compiles {
            gate: Semaphore::new(1),
            cache: Mutex::new((HashMap::new(), VecDeque::new())),
            sent: Mutex::new(HashMap::new()),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Compiles {
    /// The output of the compile `key`, if it was made.
    pub fn cached(&self, key: &Key) -> Option<CompilerOutput> {
        lock(&self.cache).0.get(key).cloned()
    }

    /// Keeps the output of the compile `key` (past [`CACHED`], the oldest goes).
    pub fn remember(&self, key: Key, output: CompilerOutput) {
        let (map, order) = &mut *lock(&self.cache);
        if map.insert(key.clone(), output).is_none() {
            order.push_back(key);
        }
        while order.len() > CACHED {
            if let Some(old) = order.pop_front() {
                map.remove(&old);
            }
        }
    }

    /// Records that the analysis gets the output of `key` for its path; false when it
    /// has it already.
    pub fn send(&self, key: &Key) -> bool {
        lock(&self.sent)
            .insert(key.path.clone(), key.clone())
            .as_ref()
            != Some(key)
    }

    /// The paths the analysis has an output for, forgotten (`askCompiler` turned off:
    /// they are to be cleared).
    pub fn forget_sent(&self) -> Vec<String> {
        let mut paths: Vec<String> = lock(&self.sent).drain().map(|(p, _)| p).collect();
        paths.sort();
        paths
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(n: u64) -> CompilerOutput {
        CompilerOutput {
            content: n,
            compiler: "gfortran -O2".into(),
            report: Err("no".into()),
        }
    }

    #[test]
    fn the_cache_keeps_the_newest_and_a_send_is_said_once() {
        let c = Compiles::default();
        let key = |n: u8| Key::new("a.f90", &[n], "gfortran -O2", &[]);
        for n in 0..=CACHED as u8 {
            c.remember(key(n), output(u64::from(n)));
        }
        assert_eq!(c.cached(&key(0)), None);
        assert_eq!(c.cached(&key(1)), Some(output(1)));
        assert!(c.send(&key(1)));
        assert!(!c.send(&key(1)));
        assert!(c.send(&key(2)));
        assert_eq!(c.forget_sent(), ["a.f90"]);
        assert!(c.send(&key(2)));
    }
}
