//! Cache lines per loop nest (P^3T+ section 4.4, Definitions 4.10–4.11): the lines a
//! nest touches on each processor, and how many of them each level of the machine's
//! cache hierarchy has to load, given its capacity.
//!
//! - [`nest`]: loops and array access classes of a nest;
//! - [`lines`]: distinct lines of a class over some iterations (column-major layout,
//!   element size, strides and offsets, the processor's local block);
//! - [`misses`]: reuse that survives per cache level (layer conditions);
//! - [`locality`]: an innermost loop striding through a slow dimension, and the loop
//!   interchange that fixes it;
//!
//! Per nest and processor p: cmL^p = the lines loaded into the first cache level during
//! one entry of the nest; the report's `cache_lines` of a loop is Definition 4.10,
//! freq-weighted: entries · mean_p cmL^p (plus what its calls load, by the call graph).

pub mod lines;
pub mod locality;
pub mod misses;
pub mod nest;
pub mod share;
pub mod slots;

use crate::machine::{Machine, tlb_miss_share};
use costline_syntax::ir::StmtId;
use misses::{Counter, Room};
use nest::Nest;
use slots::Slots;
use std::collections::HashMap;
use std::sync::Arc;

/// The cache behaviour of one nest (one entry of its outermost loop).
#[derive(Clone, Debug, PartialEq)]
pub struct NestCache {
    /// The nest's loop.
    pub loop_id: StmtId,
    /// Whether no other loop contains it.
    pub outermost: bool,
    /// Entries into the nest per run of the unit.
    pub entries: f64,
    /// Whether the processors divide the nest's iterations (else each runs all of it).
    pub divided: bool,
    /// Distinct lines per entry, mean over the processors (an infinite cache).
    pub distinct: f64,
    /// Lines loaded into each cache level of the machine per entry, mean over the
    /// processors, in the machine's order (innermost level first).
    pub misses: Vec<f64>,
    /// Lines loaded into the first level per entry, by processor.
    pub per_processor: Vec<f64>,
    /// Seconds of memory traffic per entry in the steady state of a nest run again and
    /// again, by processor: the lines each level supplies at that level's bandwidth
    /// (see [`warm`] and [`memory_seconds`]).
    pub memory_s: Vec<f64>,
    /// Whether the reuse each loop carries survives, per loop and level.
    pub conditions: Vec<LayerCondition>,
    /// The classes with their references and lines per level (mean over processors).
    pub classes: Vec<ClassLines>,
}

impl NestCache {
    /// cmL of Definition 4.10 without calls: entries · mean_p cmL^p, with cmL^p the
    /// lines loaded into the first cache level (the distinct lines on a machine
    /// without caches).
    pub fn lines_per_run(&self) -> f64 {
        self.entries * self.misses.first().copied().unwrap_or(self.distinct)
    }
}

/// The layer condition of a loop: the lines one of its iterations touches (what must
/// stay cached for the next iteration to reuse them) against each level.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerCondition {
    pub loop_id: StmtId,
    pub var: String,
    /// Bytes of one iteration's footprint (all classes inside the loop), on the
    /// busiest processor.
    pub bytes: f64,
    /// Per level: whether the footprint fits.
    pub holds: Vec<bool>,
    /// The references whose reuse the loop carries (those it does not move, or moves
    /// by less than a line).
    pub reused: Vec<String>,
    /// The trip count of the loop inside it up to which the condition holds in each
    /// level (the footprint grows in proportion to it), when there is such a loop.
    pub inner: Option<(String, Vec<f64>)>,
}

/// One access class's lines per entry of the nest.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassLines {
    pub array: String,
    pub refs: Vec<String>,
    pub distinct: f64,
    pub misses: Vec<f64>,
}

/// The nests of a unit, by outermost loop.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitCache {
    /// The machine's cache levels, innermost first (the order of every `misses`).
    pub levels: Vec<String>,
    pub nests: Vec<NestCache>,
    by_loop: HashMap<StmtId, usize>,
}

impl UnitCache {
    /// Lines the unit's own nests load into the first cache level per run (the first
    /// sum of Definition 4.11): Σ over outermost nests of entries · mean_p cmL^p.
    pub fn own_lines(&self) -> f64 {
        self.nests
            .iter()
            .filter(|n| n.outermost)
            .map(NestCache::lines_per_run)
            .sum()
    }

    /// The nest rooted at `loop_id` (every loop roots the nest of its body).
    pub fn of(&self, loop_id: StmtId) -> Option<&NestCache> {
        self.by_loop.get(&loop_id).map(|&i| &self.nests[i])
    }
}

/// What the cache model reads besides the nests.
pub struct CacheInputs<'a> {
    pub machine: &'a Machine,
    /// |P| of the unit.
    pub processors: usize,
    /// How each nest's loops are divided among the processors (each processor's
    /// fraction of every loop's iterations); `None` when every processor runs the
    /// whole nest.
    pub share: &'a dyn Fn(&Nest) -> Option<share::Share>,
    /// One processor's counts ([`counts`], or a memo of it: distribution alternatives
    /// that leave a nest's local extents and trips alone share them).
    pub count: &'a dyn Fn(CountKey) -> Arc<Counts>,
}

/// What one processor's line counts of a nest depend on: the nest's loops and classes
/// (trip counts and entries left out: they come as `trips`), the processor's trips,
/// the line size and the levels' room (capacities in lines, slots of their sets).
#[derive(Clone, Debug, PartialEq)]
pub struct CountKey {
    nest: Nest,
    trips: Vec<i64>,
    line: u64,
    caps: Vec<Room>,
}

impl CountKey {
    fn new(nest: &Nest, trips: Vec<i64>, line: u64, caps: &[Room]) -> CountKey {
        let mut nest = nest.clone();
        nest.entries = 0.0;
        nest.known = true;
        nest.loops.iter_mut().for_each(|l| l.trips = 0.0);
        CountKey {
            nest,
            trips,
            line,
            caps: caps.to_vec(),
        }
    }
}

// Capacities are whole numbers of lines and the nest's own f64 fields are zeroed, so
// equality is an equivalence.
impl Eq for CountKey {}

impl std::hash::Hash for CountKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.nest.id.hash(h);
        for l in &self.nest.loops {
            (l.id, &l.var, l.lower, l.step).hash(h);
        }
        self.nest.classes.hash(h);
        self.trips.hash(h);
        self.line.hash(h);
        for c in &self.caps {
            c.lines.to_bits().hash(h);
            c.slots.map(|s| (s.count, s.room.to_bits())).hash(h);
        }
    }
}

/// The cache behaviour of every nest.
pub fn unit_cache(nests: &[Nest], inputs: &CacheInputs) -> UnitCache {
    let mut out = UnitCache {
        levels: inputs
            .machine
            .memory
            .levels
            .iter()
            .map(|l| l.name.clone())
            .collect(),
        ..UnitCache::default()
    };
    for nest in nests.iter().filter(|n| n.known && n.entries > 0.0) {
        let n = nest_cache(nest, inputs);
        out.by_loop.insert(nest.id, out.nests.len());
        out.nests.push(n);
    }
    out
}

/// The page size the model assumes when the machine has no TLB to say it.
const DEFAULT_PAGE_BYTES: u64 = 4096;

/// The room of the machine's levels: capacities in lines and, for a level whose
/// associativity is given, the slots of its sets ([`Slots::of_level`], pages of the TLB's
/// size).
fn capacities(machine: &Machine) -> Vec<Room> {
    let line = machine.memory.cache_line_bytes.max(1);
    let page = machine
        .memory
        .tlb
        .as_ref()
        .map_or(DEFAULT_PAGE_BYTES, |t| t.page_bytes);
    machine
        .memory
        .levels
        .iter()
        .map(|l| Room {
            lines: (l.bytes as f64 / line as f64).floor(),
            slots: Slots::of_level(l.bytes, l.associativity, line, page),
        })
        .collect()
}

fn nest_cache(nest: &Nest, inputs: &CacheInputs) -> NestCache {
    let machine = inputs.machine;
    let line = machine.memory.cache_line_bytes.max(1);
    let caps = capacities(machine);
    let p = inputs.processors.max(1);
    let base: Vec<f64> = nest.loops.iter().map(|l| l.trips).collect();
    let share = (inputs.share)(nest).filter(|s| s.shares.len() == p);
    // Processors with the same trips have the same lines: count each once.
    let mut by_trips: HashMap<Vec<i64>, Arc<Counts>> = HashMap::new();
    let mut per_proc_results = Vec::with_capacity(p);
    for q in 0..p {
        costline_symbolic::interrupt::point();
        let trips: Vec<i64> = base
            .iter()
            .enumerate()
            .map(|(l, t)| {
                let f = share.as_ref().map_or(1.0, |s| s.factor(l, q));
                ((t * f).round() as i64).max(1)
            })
            .collect();
        by_trips
            .entry(trips.clone())
            .or_insert_with(|| (inputs.count)(CountKey::new(nest, trips.clone(), line, &caps)));
        per_proc_results.push(trips);
    }
    let results: Vec<&Counts> = per_proc_results.iter().map(|k| &*by_trips[k]).collect();
    // The pages each processor's share touches, against the TLB's entries.
    let tlb = machine.memory.tlb.as_ref();
    let mut pages: HashMap<Vec<i64>, Arc<Counts>> = HashMap::new();
    if let Some(t) = tlb {
        let room = Room {
            lines: t.entries as f64,
            slots: None,
        };
        for trips in &per_proc_results {
            pages.entry(trips.clone()).or_insert_with(|| {
                (inputs.count)(CountKey::new(
                    nest,
                    trips.clone(),
                    t.page_bytes.max(1),
                    &[room],
                ))
            });
        }
    }
    let mean = |f: &dyn Fn(&Counts) -> f64| results.iter().map(|r| f(r)).sum::<f64>() / p as f64;
    let levels = caps.len();
    let misses = (0..levels).map(|i| mean(&|r| r.misses[i])).collect();
    let classes = nest
        .classes
        .iter()
        .enumerate()
        .map(|(c, class)| ClassLines {
            array: class.array.clone(),
            refs: class.refs.clone(),
            distinct: mean(&|r| r.class_distinct[c]),
            misses: (0..levels)
                .map(|i| mean(&|r| r.class_misses[c][i]))
                .collect(),
        })
        .collect();
    let busiest = results
        .iter()
        .copied()
        .max_by(|a, b| a.distinct.total_cmp(&b.distinct));
    NestCache {
        loop_id: nest.id,
        outermost: nest.outermost,
        entries: nest.entries,
        divided: share.is_some(),
        distinct: mean(&|r| r.distinct),
        misses,
        per_processor: results
            .iter()
            .map(|r| r.misses.first().copied().unwrap_or(r.distinct))
            .collect(),
        memory_s: results
            .iter()
            .zip(&per_proc_results)
            .map(|(r, trips)| {
                memory_seconds(machine, &warm(&r.misses, r.distinct, &r.holds))
                    + demand_misses_s(machine, nest, r)
                    + tlb
                        .zip(pages.get(trips))
                        .map_or(0.0, |(t, p)| translation_misses_s(machine, nest, r, p, t))
            })
            .collect(),
        conditions: busiest.map(|r| r.conditions.clone()).unwrap_or_default(),
        classes,
    }
}

/// The counts on one processor.
#[derive(Clone, Debug, PartialEq)]
pub struct Counts {
    distinct: f64,
    misses: Vec<f64>,
    class_distinct: Vec<f64>,
    class_misses: Vec<Vec<f64>>,
    conditions: Vec<LayerCondition>,
    /// Per level: whether all the nest's lines fit in it.
    holds: Vec<bool>,
}

/// The line counts of one processor's share of a nest.
pub fn counts(key: &CountKey) -> Counts {
    let CountKey {
        nest,
        trips,
        line,
        caps,
    } = key;
    let (line, caps) = (*line, caps.as_slice());
    let mut counter = Counter::new(nest, trips.clone(), line);
    let classes = nest.classes.len();
    let class_distinct: Vec<f64> = (0..classes)
        .map(|c| counter.misses(c, Room::UNLIMITED))
        .collect();
    // Every level loads a class's distinct lines at least once and no more than the
    // level above it does (an LRU hierarchy is inclusive in what it misses); the
    // windowed estimate can stray past either bound by a few lines.
    let class_misses: Vec<Vec<f64>> = (0..classes)
        .map(|c| {
            let mut above = f64::INFINITY;
            caps.iter()
                .map(|&room| {
                    let m = counter.misses(c, room).min(above).max(class_distinct[c]);
                    above = m;
                    m
                })
                .collect()
        })
        .collect();
    let conditions = conditions(nest, trips, &mut counter, line, caps);
    // Whether a level holds the nest's distinct lines: within its capacity and, when
    // its sets are known, no class crowding its slots over the whole nest.
    let distinct: f64 = class_distinct.iter().sum();
    let outermost = trips.first().copied().unwrap_or(1);
    let holds = caps
        .iter()
        .map(|&room| {
            distinct <= room.lines && (0..classes).all(|c| counter.uncrowded(c, 0, outermost, room))
        })
        .collect();
    Counts {
        distinct,
        misses: (0..caps.len())
            .map(|i| class_misses.iter().map(|m| m[i]).sum())
            .collect(),
        class_distinct,
        class_misses,
        conditions,
        holds,
    }
}

/// The layer condition of every loop that carries reuse.
fn conditions(
    nest: &Nest,
    trips: &[i64],
    counter: &mut Counter,
    line: u64,
    caps: &[Room],
) -> Vec<LayerCondition> {
    let mut out = Vec::new();
    for (l, lp) in nest.loops.iter().enumerate() {
        let Some(var) = lp.var.clone() else { continue };
        if trips[l] < 2 {
            continue;
        }
        // References whose lines the next iteration touches again.
        let mut reused = Vec::new();
        for (c, class) in nest.classes.iter().enumerate() {
            let Some(k) = class.path.iter().position(|&x| x == l) else {
                continue;
            };
            let one = counter.lines(c, k, 1);
            let two = counter.lines(c, k, 2);
            if two < 2.0 * one - 1e-9 {
                reused.extend(class.refs.iter().cloned());
            }
        }
        if reused.is_empty() {
            continue;
        }
        let lines = counter.footprint(l, 1);
        let bytes = lines * line as f64;
        // The loop directly inside, whose trip count the footprint grows with.
        let inner = nest
            .loops
            .iter()
            .enumerate()
            .skip(l + 1)
            .find(|(j, _)| {
                nest.classes
                    .iter()
                    .any(|c| c.path.windows(2).any(|w| w == [l, *j]))
            })
            .and_then(|(j, inner)| {
                let var = inner.var.clone()?;
                let n = trips[j] as f64;
                Some((
                    var,
                    caps.iter()
                        .map(|cap| (n * cap.lines / lines).floor())
                        .collect(),
                ))
            });
        out.push(LayerCondition {
            loop_id: lp.id,
            var,
            bytes,
            holds: caps.iter().map(|&room| counter.fits(l, 1, room)).collect(),
            reused,
            inner,
        });
    }
    out
}

/// The misses of an entry when the nest runs again and again (steady state): its
/// distinct lines stay in the innermost level that holds them all between entries
/// (`holds`, per level), so the levels from there outward do not load them again; only
/// capacity misses remain.
fn warm(misses: &[f64], distinct: f64, holds: &[bool]) -> Vec<f64> {
    let Some(holds) = holds.iter().position(|&h| h) else {
        return misses.to_vec();
    };
    misses
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if i >= holds {
                (m - distinct).max(0.0)
            } else {
                *m
            }
        })
        .collect()
}

/// The stride (bytes) from which a class's lines come from main memory as demand
/// misses: the prefetchers follow a stream only within a page, a few lines apart.
pub const DEMAND_STRIDE_BYTES: i64 = 1024;

/// What a nest's lines cost beyond their bytes at each level's bandwidth when its
/// innermost accesses are too far apart to be prefetched (a stride of at least
/// [`DEMAND_STRIDE_BYTES`] in the class's innermost loop): each such line a level
/// supplies takes that level's `strided_line_s` (the latency over the misses in
/// flight) instead of line / bandwidth, main memory's `memory.strided_line_s`. The
/// lines each level supplies are counted as [`memory_seconds`] counts them, in the
/// steady state of a nest run again and again ([`warm`]): none below a level that holds
/// all the class's lines. Nothing for a level the model has no such figure for.
fn demand_misses_s(machine: &Machine, nest: &Nest, r: &Counts) -> f64 {
    let m = &machine.memory;
    let line = m.cache_line_bytes as f64;
    // (strided, streamed) seconds per line of each supplier: the levels after the
    // first, then main memory.
    let extra = |strided: Option<f64>, bandwidth: Option<f64>| match (strided, bandwidth) {
        (Some(s), Some(b)) if b > 0.0 => (s - line / b).max(0.0),
        _ => 0.0,
    };
    let levels = r.misses.len();
    let per_line: Vec<f64> = (1..=levels)
        .map(|j| match m.levels.get(j).filter(|_| j < levels) {
            Some(l) => extra(l.strided_line_s, l.bandwidth_bytes_per_s),
            None => extra(m.strided_line_s, Some(m.bandwidth_bytes_per_s)),
        })
        .collect();
    if per_line.iter().all(|x| *x == 0.0) {
        return 0.0;
    }
    nest.classes
        .iter()
        .enumerate()
        .filter(|(_, c)| demand_class(c))
        .map(|(c, _)| {
            let missed = warm(&r.class_misses[c], r.class_distinct[c], &r.holds);
            (0..levels)
                .map(|i| {
                    let supplied = match missed.get(i + 1) {
                        Some(below) => (missed[i] - below).max(0.0),
                        None => missed[i],
                    };
                    supplied * per_line[i]
                })
                .sum::<f64>()
        })
        .sum()
}

/// What the accesses whose translations miss the TLB cost per entry of a nest (`pages`:
/// the nest's page counts against the TLB's entries, the page as the line): `walk_s`
/// each, in the steady state of a nest run again and again (no misses when all its
/// pages fit). The layer conditions count as an LRU would, all or nothing; of the
/// accesses that lose their reuse over a footprint of P pages the TLB misses the share
/// [`tlb_miss_share`]`(P)`, P the footprint of the innermost loop whose reuse it
/// loses. A line [`demand_misses_s`] prices already paid its walk (the stride sweep
/// that measured `strided_line_s` crossed a page per access), so a class's demand lines
/// from memory are taken off its translation misses.
fn translation_misses_s(
    machine: &Machine,
    nest: &Nest,
    lines: &Counts,
    pages: &Counts,
    tlb: &crate::machine::Tlb,
) -> f64 {
    let entries = tlb.entries as f64;
    if pages.distinct <= entries {
        return 0.0;
    }
    let footprint = pages
        .conditions
        .iter()
        .filter(|c| !c.holds.first().copied().unwrap_or(true))
        .map(|c| c.bytes / tlb.page_bytes.max(1) as f64)
        .fold(f64::INFINITY, f64::min);
    let share = if footprint.is_finite() {
        tlb_miss_share(footprint, entries)
    } else {
        1.0
    };
    let demand = machine.memory.strided_line_s.is_some() && !lines.holds.iter().any(|&h| h);
    nest.classes
        .iter()
        .enumerate()
        .map(|(c, class)| {
            let missed = pages.class_misses[c].first().copied().unwrap_or(0.0);
            let paid = if demand && demand_class(class) {
                lines.class_misses[c].last().copied().unwrap_or(0.0)
            } else {
                0.0
            };
            (missed - paid).max(0.0) * share * tlb.walk_s
        })
        .sum()
}

/// Whether a class's lines from main memory are demand misses: regular, with an
/// innermost stride of at least [`DEMAND_STRIDE_BYTES`].
fn demand_class(c: &nest::Class) -> bool {
    !c.irregular
        && c.path.len().checked_sub(1).is_some_and(|k| {
            c.stride_bytes(k)
                .is_some_and(|b| b.saturating_abs() >= DEMAND_STRIDE_BYTES)
        })
}

/// Seconds to bring one entry's lines through the hierarchy: the lines each level
/// supplies (those the level above misses and it holds, its own misses for main
/// memory) times the line size over that level's sustained bandwidth. Lines that hit
/// in the first level cost nothing here (the operations' loads pay for them).
/// Transfers between levels add up, as in the ECM model for cores whose caches do not
/// overlap their transfers; the time of a statement is then the larger of this and its
/// operations (see `time::compute`).
pub fn memory_seconds(machine: &Machine, misses: &[f64]) -> f64 {
    let m = &machine.memory;
    let line = m.cache_line_bytes as f64;
    let levels = &m.levels;
    let mut total = 0.0;
    for (i, missed) in misses.iter().enumerate() {
        let below = misses.get(i + 1).copied();
        let supplied = match below {
            Some(b) => (missed - b).max(0.0),
            None => *missed,
        };
        let bandwidth = match levels.get(i + 1) {
            Some(l) if below.is_some() => l
                .bandwidth_bytes_per_s
                .unwrap_or(line / l.latency_s.max(1e-12)),
            _ => m.bandwidth_bytes_per_s,
        };
        if bandwidth > 0.0 {
            total += supplied * line / bandwidth;
        }
    }
    total
}
