//! Lines a loop nest loads into a cache of a given capacity: reuse counts only while
//! what is touched between two uses fits (the layer conditions of Kerncraft, applied
//! per loop and per cache level).
//!
//! For a class R and the loops on its path, innermost first, let U_k(w) be the distinct
//! lines R touches in w consecutive iterations of loop k (the loops inside k running
//! fully) and F_k(w) the same summed over every class inside loop k: what passes
//! through the cache between a use in iteration t and a reuse in iteration t + w
//! (LRU stack distance). With M the misses of R during one iteration of loop k:
//! - the loops inside k already lost reuse (M > U_k(1)): each iteration of k misses
//!   again, M ← n_k·M;
//! - no window fits (F_k(1) > C): M ← n_k·U_k(1);
//! - the largest window w ≤ n_k with F_k(w) ≤ C: the lines of w iterations, then the new
//!   lines each further iteration brings with w iterations cached, averaged over the
//!   next d = max(w, iterations to cross a line) iterations (one iteration's increment
//!   jumps with line boundaries): M ← U_k(w) + (n_k − w)·(U_k(w + d) − U_k(w))/d
//!   (U_k(n_k) when w = n_k). A class that the loop directly inside k does not move is
//!   touched again in every iteration of that loop: its reuse across k needs only that
//!   one inner iteration fits (w = 1 then, even when F_k(1) does not fit).
//!
//! The misses of a level are Σ_R M over the outermost loop; with C = ∞ they are the
//! distinct lines of the nest (its compulsory misses).
//!
//! "Fits" means within the capacity C and, when the level's associativity is known,
//! within each slot of sets (see [`super::slots`]): lines 4 KiB apart compete for 1/64
//! of a cache however small their footprint is.

use super::lines::{Window, distinct_lines};
use super::nest::Nest;
use super::slots::{Slots, occupied};
use std::collections::HashMap;

/// What a cache level holds: `lines` in all (`f64::INFINITY`: no limit), and, when its
/// sets are known, the room of each slot of lines that compete for the same sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Room {
    pub lines: f64,
    pub slots: Option<Slots>,
}

impl Room {
    /// A level without a limit: what counts every line once.
    pub const UNLIMITED: Room = Room {
        lines: f64::INFINITY,
        slots: None,
    };
}

/// Counts lines for one nest under one set of trip counts (one processor's share).
pub struct Counter<'a> {
    nest: &'a Nest,
    /// Iterations per entry of each nest loop (rounded, ≥ 1).
    trips: Vec<i64>,
    line_bytes: u64,
    memo: HashMap<(usize, usize, i64), f64>,
    /// The slot mask of (class, path position, window, slots), when known.
    slot_memo: HashMap<(usize, usize, i64, u64), Option<Vec<bool>>>,
}

impl<'a> Counter<'a> {
    pub fn new(nest: &'a Nest, trips: Vec<i64>, line_bytes: u64) -> Counter<'a> {
        Counter {
            nest,
            trips,
            line_bytes,
            memo: HashMap::new(),
            slot_memo: HashMap::new(),
        }
    }

    /// U_k(w) of class `c` (`k` a position on its path; `k` = the path's length: one
    /// execution of the body).
    pub fn lines(&mut self, c: usize, k: usize, w: i64) -> f64 {
        if let Some(v) = self.memo.get(&(c, k, w)) {
            return *v;
        }
        let (counts, first, step) = self.window(c, k, w);
        let v = distinct_lines(
            &self.nest.classes[c],
            &Window {
                counts: &counts,
                first: &first,
                step: &step,
                line_bytes: self.line_bytes,
            },
        );
        self.memo.insert((c, k, w), v);
        v
    }

    /// The iterations of class `c`'s path loops in a window of `w` iterations of the
    /// loop at path position `k` (the loops outside it at their first iteration, those
    /// inside it running fully): counts, first values and steps.
    fn window(&self, c: usize, k: usize, w: i64) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
        let class = &self.nest.classes[c];
        let counts = class
            .path
            .iter()
            .enumerate()
            .map(|(j, &l)| match j.cmp(&k) {
                std::cmp::Ordering::Less => 1,
                std::cmp::Ordering::Equal => w.max(1),
                std::cmp::Ordering::Greater => self.trips[l],
            })
            .collect();
        let first = class
            .path
            .iter()
            .map(|&l| self.nest.loops[l].lower.unwrap_or(0))
            .collect();
        let step = class
            .path
            .iter()
            .map(|&l| self.nest.loops[l].step)
            .collect();
        (counts, first, step)
    }

    /// Which of the slots class `c` touches in the window of [`Counter::lines`].
    fn slots_touched(&mut self, c: usize, k: usize, w: i64, slots: Slots) -> Option<Vec<bool>> {
        let key = (c, k, w, slots.count);
        if let Some(v) = self.slot_memo.get(&key) {
            return v.clone();
        }
        let (counts, first, step) = self.window(c, k, w);
        let v = occupied(
            &self.nest.classes[c],
            &Window {
                counts: &counts,
                first: &first,
                step: &step,
                line_bytes: self.line_bytes,
            },
            slots,
        );
        self.slot_memo.insert(key, v.clone());
        v
    }

    /// F(w): the lines of every class inside nest loop `l` over w of its iterations.
    pub fn footprint(&mut self, l: usize, w: i64) -> f64 {
        let mut total = 0.0;
        for c in 0..self.nest.classes.len() {
            if let Some(k) = self.nest.classes[c].path.iter().position(|&x| x == l) {
                total += self.lines(c, k, w);
            }
        }
        total
    }

    /// Lines per slot of class `c`'s own lines in the window of [`Counter::lines`]:
    /// spread over the slots they touch (over all of them when that is unknown).
    fn crowding(&mut self, c: usize, k: usize, w: i64, slots: Slots) -> f64 {
        let u = self.lines(c, k, w);
        let touched = self
            .slots_touched(c, k, w, slots)
            .map_or(slots.count as usize, |mask| {
                mask.iter().filter(|&&b| b).count()
            });
        u / touched.max(1) as f64
    }

    /// Whether class `c`'s lines stay over w iterations of nest loop `l` in `room`:
    /// the lines of every class inside the loop fit in all, and its own lines fit in
    /// the slots they crowd into ([`Counter::uncrowded`]).
    pub fn fits_class(&mut self, c: usize, l: usize, w: i64, room: Room) -> bool {
        self.footprint(l, w) <= room.lines && self.uncrowded(c, l, w, room)
    }

    /// Whether class `c`'s own lines over w iterations of nest loop `l` fit in the
    /// slots of sets they crowd into (always, when the level's sets are unknown or the
    /// class is not inside the loop). The classes' starting addresses relative to each
    /// other are unknown, so a class is not stacked on the others: they count only
    /// through the capacity (where they spread evenly over the slots).
    pub fn uncrowded(&mut self, c: usize, l: usize, w: i64, room: Room) -> bool {
        let Some(k) = self.nest.classes[c].path.iter().position(|&x| x == l) else {
            return true;
        };
        // Lines that fit in one slot cannot crowd any.
        room.slots.is_none_or(|s| {
            self.lines(c, k, w) <= s.room || self.crowding(c, k, w, s) <= s.room * (1.0 + 1e-9)
        })
    }

    /// Whether the lines of every class inside nest loop `l` stay over w of its
    /// iterations in `room` ([`Counter::fits_class`] for each).
    pub fn fits(&mut self, l: usize, w: i64, room: Room) -> bool {
        (0..self.nest.classes.len()).all(|c| self.fits_class(c, l, w, room))
    }

    /// The largest window of nest loop `l` over which class `c`'s lines stay in `room`
    /// (0 when one iteration does not fit).
    pub fn fitting_window(&mut self, c: usize, l: usize, room: Room) -> i64 {
        let n = self.trips[l];
        if !self.fits_class(c, l, 1, room) {
            return 0;
        }
        if self.fits_class(c, l, n, room) {
            return n;
        }
        let (mut lo, mut hi) = (1, n);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.fits_class(c, l, mid, room) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Whether class `c` does not move with the loop directly inside path position `k`
    /// and one iteration of that loop fits: its lines are then touched again in every
    /// iteration of that loop, so what passes between the last use in one iteration of
    /// loop k and the first in the next is about one inner iteration, not a whole
    /// iteration of k (`a(i,k)` under `do i / do j / do k` keeps its row of lines).
    fn touched_every_inner_iteration(&mut self, c: usize, k: usize, room: Room) -> bool {
        let class = &self.nest.classes[c];
        match class.path.get(k + 1) {
            Some(&inner) if !class.varies_with(k + 1) => self.fits_class(c, inner, 1, room),
            _ => false,
        }
    }

    /// Iterations of the loop at path position `k` it takes class `c` to move past a
    /// line (1 when each iteration moves a line or more, or not at all).
    fn line_crossing(&self, c: usize, k: usize) -> i64 {
        let class = &self.nest.classes[c];
        let step = self.nest.loops[class.path[k]].step;
        match class
            .stride_bytes(k)
            .map(|s| s.saturating_mul(step).saturating_abs())
        {
            Some(s) if s > 0 && s < self.line_bytes as i64 => (self.line_bytes as i64 + s - 1) / s,
            _ => 1,
        }
    }

    /// Lines class `c` loads into a cache of `room` during one entry of the nest
    /// ([`Room::UNLIMITED`]: its distinct lines).
    pub fn misses(&mut self, c: usize, room: Room) -> f64 {
        let path = self.nest.classes[c].path.clone();
        let mut m = self.lines(c, path.len(), 1);
        for k in (0..path.len()).rev() {
            let l = path[k];
            let n = self.trips[l];
            let one = self.lines(c, k, 1);
            if m > one * (1.0 + 1e-9) {
                m *= n as f64;
                continue;
            }
            let w = if room.lines.is_infinite() {
                n
            } else {
                let w = self.fitting_window(c, l, room);
                if w == 0 && self.touched_every_inner_iteration(c, k, room) {
                    1
                } else {
                    w
                }
            };
            m = if w == 0 {
                n as f64 * one
            } else if w >= n {
                self.lines(c, k, n)
            } else {
                // New lines per further iteration, averaged over the next w iterations
                // (one iteration's increment jumps with line boundaries).
                let uw = self.lines(c, k, w);
                let ahead = w.max(self.line_crossing(c, k)).min(n - w);
                let next = self.lines(c, k, w + ahead);
                uw + (n - w) as f64 * (next - uw).max(0.0) / ahead as f64
            };
        }
        m
    }
}
