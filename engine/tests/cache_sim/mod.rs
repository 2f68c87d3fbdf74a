//! A cache simulator independent of the engine's cache-line model (engine/src/cache):
//! the address trace of a unit's loops ([`trace`]) run through set-associative LRU
//! caches of the machine's sizes ([`lru`]). Only the front end (IR, constants, element
//! sizes) and the machine file are shared with the engine.

pub mod lru;
pub mod trace;

use costline_engine::machine::Machine;
use costline_engine::project::UnitAnalysis;
use std::collections::{BTreeMap, HashSet};
use trace::Program;

/// What one run of a unit did to the caches.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// Element accesses (reads and writes).
    pub accesses: u64,
    /// Distinct lines touched: the compulsory misses of every level.
    pub distinct: u64,
    /// Lines loaded into each level, innermost first.
    pub misses: Vec<u64>,
    /// The same with fully associative LRU levels of the same capacities (no set
    /// conflicts): a diagnostic, not what the machine does.
    pub full_misses: Vec<u64>,
    /// Per array: distinct lines, lines loaded into each level, and the same for the
    /// fully associative levels.
    pub by_array: BTreeMap<String, ArrayCounts>,
}

/// One array's part of a simulation.
#[derive(Clone, Debug, Default)]
pub struct ArrayCounts {
    pub distinct: u64,
    pub misses: Vec<u64>,
    pub full_misses: Vec<u64>,
}

/// The compiled trace of a unit, with its constants and element sizes.
pub fn program(u: &UnitAnalysis) -> Result<Program, String> {
    let unit = &u.unit;
    Program::new(unit, &u.constants.values, &|a| {
        costline_engine::comm::element_bytes(unit, a)
    })
}

/// The unit's run through the caches of `machine` (LRU, with its associativities; a
/// level without one is taken as fully associative).
pub fn simulate(u: &UnitAnalysis, machine: &Machine) -> Result<Simulation, String> {
    let program = program(u)?;
    let line = machine.memory.cache_line_bytes;
    let levels: Vec<(u64, usize)> = machine
        .memory
        .levels
        .iter()
        .map(|l| {
            let lines = (l.bytes / line) as usize;
            let ways = l.associativity.map_or(lines, |a| a as usize);
            (l.bytes, ways)
        })
        .collect();
    let mut caches = lru::Hierarchy::new(line, &levels);
    let mut full = lru::Hierarchy::fully_associative(line, &levels);
    let mut seen = HashSet::new();
    let mut accesses = 0u64;
    let zero = ArrayCounts {
        distinct: 0,
        misses: vec![0; levels.len()],
        full_misses: vec![0; levels.len()],
    };
    let mut per = vec![zero; program.arrays.len()];
    program.run(&mut |address, _write| {
        accesses += 1;
        let fresh = seen.insert(address / line);
        let missed = caches.access(address);
        let missed_full = full.access(address);
        if let Some(c) = program.array_index(address).map(|k| &mut per[k]) {
            c.distinct += u64::from(fresh);
            c.misses.iter_mut().take(missed).for_each(|x| *x += 1);
            c.full_misses
                .iter_mut()
                .take(missed_full)
                .for_each(|x| *x += 1);
        }
    });
    let by_array = program
        .arrays
        .iter()
        .cloned()
        .zip(per)
        .filter(|(_, c)| c.distinct > 0)
        .collect();
    Ok(Simulation {
        accesses,
        distinct: seen.len() as u64,
        misses: caches.misses(),
        full_misses: full.misses(),
        by_array,
    })
}

/// Distinct lines only (an infinite cache): faster, for the property test.
pub fn distinct_lines(u: &UnitAnalysis, line: u64) -> Result<u64, String> {
    let program = program(u)?;
    let mut seen = HashSet::new();
    program.run(&mut |address, _| {
        seen.insert(address / line);
    });
    Ok(seen.len() as u64)
}
