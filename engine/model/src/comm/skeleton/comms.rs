//! Communicators in a skeleton run: each one's processes (world ranks, in the order of
//! their ranks in it) and Cartesian topology, with an identifier every member computes
//! alike (from its parent, the collective's place among the parent's collectives, and
//! the color), so that the replay can tell which processes meet in a collective.
//!
//! What a process cannot know alone — the colors other processes pass to
//! MPI_COMM_SPLIT, the values a root broadcasts or all processes reduce — is taken from
//! the previous pass over all processes ([`Shared::rotate`]); the run makes passes
//! until nothing it took changes.

use super::value::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// MPI_COMM_WORLD's identifier and handle.
pub const WORLD: u64 = 0;

/// A communicator.
#[derive(Clone, Debug, PartialEq)]
pub struct Comm {
    pub id: u64,
    /// World ranks of its processes, by their rank in it.
    pub group: Arc<Vec<usize>>,
    /// Dimensions and periodicity of a Cartesian communicator.
    pub cart: Option<(Vec<i64>, Vec<bool>)>,
}

impl Comm {
    pub fn world(p: usize) -> Comm {
        Comm {
            id: WORLD,
            group: Arc::new((0..p).collect()),
            cart: None,
        }
    }

    /// The rank of world process `world` in this communicator.
    pub fn rank_of(&self, world: usize) -> Option<usize> {
        self.group.iter().position(|&w| w == world)
    }

    /// The coordinates of rank `r` (row-major: the last dimension varies fastest).
    pub fn coords(&self, r: i64) -> Option<Vec<i64>> {
        let (dims, _) = self.cart.as_ref()?;
        let mut left = r;
        let mut out = vec![0; dims.len()];
        for (i, &d) in dims.iter().enumerate().rev() {
            if d <= 0 {
                return None;
            }
            out[i] = left % d;
            left /= d;
        }
        Some(out)
    }

    /// The rank at `coords` (periodic dimensions wrap; `None` off a non-periodic edge).
    pub fn rank_at(&self, coords: &[i64]) -> Option<i64> {
        let (dims, periods) = self.cart.as_ref()?;
        let mut r = 0;
        for ((&c, &d), &p) in coords.iter().zip(dims).zip(periods) {
            let c = if p { c.rem_euclid(d) } else { c };
            if !(0..d).contains(&c) {
                return None;
            }
            r = r * d + c;
        }
        Some(r)
    }
}

/// What the processes of a run share: the communicators made so far and the values of
/// the collectives that carry program values, from this pass and the previous one.
#[derive(Debug, Default)]
pub struct Shared {
    pub comms: HashMap<u64, Comm>,
    ids: HashMap<(u64, u64, i64), u64>,
    /// Each process's contribution to a collective that carries values, by
    /// (communicator, its place among the communicator's collectives).
    now: HashMap<(u64, u64), BTreeMap<usize, Vec<Value>>>,
    before: HashMap<(u64, u64), BTreeMap<usize, Vec<Value>>>,
    /// Whether a process read a contribution the previous pass did not have.
    pub short: bool,
}

impl Shared {
    pub fn new(p: usize) -> Shared {
        let mut s = Shared::default();
        s.comms.insert(WORLD, Comm::world(p));
        s
    }

    /// The identifier of the communicator made at `parent`'s `seq`-th collective with
    /// `color`.
    pub fn id(&mut self, parent: u64, seq: u64, color: i64) -> u64 {
        let next = self.ids.len() as u64 + 1;
        *self.ids.entry((parent, seq, color)).or_insert(next)
    }

    /// Records process `world`'s contribution to collective `at`.
    pub fn contribute(&mut self, at: (u64, u64), world: usize, values: Vec<Value>) {
        self.now.entry(at).or_default().insert(world, values);
    }

    /// Every member's contribution to collective `at` as the previous pass saw it
    /// (`None` for a member it did not see, which makes another pass needed).
    pub fn contributions(&mut self, at: (u64, u64), group: &[usize]) -> Vec<Option<Vec<Value>>> {
        let seen = self.before.get(&at);
        let out: Vec<_> = group
            .iter()
            .map(|w| seen.and_then(|m| m.get(w)).cloned())
            .collect();
        if out.iter().any(Option::is_none) {
            self.short = true;
        }
        out
    }

    /// Ends a pass: whether another one is needed (a process read what the previous
    /// pass had not seen, or the contributions changed).
    pub fn rotate(&mut self) -> bool {
        let again = self.short || self.now != self.before;
        self.before = std::mem::take(&mut self.now);
        self.short = false;
        again
    }
}
