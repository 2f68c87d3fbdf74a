//! Who calls a procedure, and what it reaches, without the whole call graph: what the
//! analysis of one procedure asks (the bindings its callers pass, whether a call closes
//! a cycle), so that an edit of one procedure reaches another's analysis only through
//! its own calls, and a procedure's first analysis lowers its callers, not the program.
//!
//! The workspace's procedures are grouped in shards, the [`Block`]s of consecutive units
//! its files are interned in; each shard indexes the words its units' texts mention. A procedure's callers are the
//! units of the shards mentioning its name whose calls name it; an edit re-indexes one
//! shard. Shards are grouped ([`ShardGroup`], [`GROUP`] consecutive shards), each group
//! with the union of its shards' keys: a search reads one index per group, then the
//! shard indexes of the groups that have its word, not every shard's (130 for each
//! procedure of a 100k-line file).

use super::calls::{ProcName, called_names, procedure_named};
use super::inputs::Workspace;
use super::scope::identifiers;
use super::units::{Block, UnitText, block_units, file_units};
use costline_syntax::ir::UnitKind;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasher;

/// The workspace's units in shards: the [`Block`]s of its files, in order. An edit
/// inside a procedure changes one block; the others keep their indexes.
#[salsa::tracked(returns(ref))]
pub fn shards(db: &dyn salsa::Database) -> Vec<Block<'_>> {
    let mut all = Vec::new();
    for &file in Workspace::get(db).files(db) {
        if let Ok(f) = file_units(db, file) {
            all.extend(f.blocks.iter().copied());
        }
    }
    all
}

/// Shards per [`ShardGroup`]: near the square root of a 100k-line file's 130 shards,
/// so that a search reads about as many group indexes as shard indexes of one group.
const GROUP: usize = 16;

/// [`GROUP`] consecutive shards of [`shards`]. An edit that changes one shard makes
/// its group a new one; the others are the same interned groups, with their indexes.
#[salsa::interned(debug)]
pub struct ShardGroup<'db> {
    #[returns(ref)]
    pub blocks: Vec<Block<'db>>,
}

/// The shards in groups, in order.
#[salsa::tracked(returns(ref))]
pub fn shard_groups(db: &dyn salsa::Database) -> Vec<ShardGroup<'_>> {
    shards(db)
        .chunks(GROUP)
        .map(|c| ShardGroup::new(db, c.to_vec()))
        .collect()
}

/// What the shards of a group have: the keys ([`word_key`]) of their words and of
/// their procedures' names.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct GroupIndex {
    pub words: FxHashSet<u64>,
    pub procedures: FxHashSet<u64>,
}

/// The index of `group`: the union of its shards' [`shard_words`] keys and of their
/// procedures' names (read off the units: a shard's [`shard_procedures`] map is built
/// only when a search reaches it).
#[salsa::tracked(returns(ref))]
pub fn group_index<'db>(db: &'db dyn salsa::Database, group: ShardGroup<'db>) -> GroupIndex {
    let mut out = GroupIndex::default();
    for &s in group.blocks(db) {
        out.words.extend(shard_words(db, s).keys().copied());
        out.procedures
            .extend(procedures(db, s).map(|u| word_key(u.name(db))));
    }
    out
}

/// The shards, in order, of the groups whose index `has` what is searched.
pub fn shards_where<'db>(
    db: &'db dyn salsa::Database,
    has: impl Fn(&GroupIndex) -> bool + 'db,
) -> impl Iterator<Item = Block<'db>> {
    shard_groups(db)
        .iter()
        .filter(move |&&g| has(group_index(db, g)))
        .flat_map(move |g| g.blocks(db).iter().copied())
}

/// The procedures of a shard (its units but modules).
fn procedures<'db>(
    db: &'db dyn salsa::Database,
    shard: Block<'db>,
) -> impl Iterator<Item = UnitText<'db>> {
    block_units(db, shard)
        .iter()
        .copied()
        .filter(move |&u| u.kind(db) != UnitKind::Module)
}

/// The procedures of a shard by name (the first of a name).
#[salsa::tracked(returns(ref))]
pub fn shard_procedures<'db>(
    db: &'db dyn salsa::Database,
    shard: Block<'db>,
) -> HashMap<String, UnitText<'db>> {
    let mut out = HashMap::new();
    for u in procedures(db, shard) {
        out.entry(u.name(db).clone()).or_insert(u);
    }
    out
}

/// The words a shard's units mention (their [`identifiers`]), each by its hash
/// ([`word_key`]) with the units mentioning it: a superset of the units mentioning a
/// word (two words may share a hash), which [`callers_of`] narrows to the callers by
/// their calls. Keyed by hash, the index of a block of a few hundred units is built
/// again after an edit without copying its thousands of words.
#[salsa::tracked(returns(ref))]
pub fn shard_words<'db>(
    db: &'db dyn salsa::Database,
    shard: Block<'db>,
) -> FxHashMap<u64, Vec<UnitText<'db>>> {
    let mut out: FxHashMap<u64, Vec<UnitText>> = FxHashMap::default();
    for u in procedures(db, shard) {
        for word in identifiers(db, u) {
            out.entry(word_key(word)).or_default().push(u);
        }
    }
    out
}

/// The key of a word in [`shard_words`].
pub fn word_key(word: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(word)
}

/// The procedures that call the procedure `name` (CALL statements and function
/// references), in order of their names: the callers `call_graph` lists (each the
/// procedure of its name, [`procedure_named`]). A caller mentions the name in its
/// text; only those units are lowered.
#[salsa::tracked(returns(ref))]
pub fn callers_of<'db>(db: &'db dyn salsa::Database, name: ProcName<'db>) -> Vec<String> {
    let name = name.name(db);
    let key = word_key(name);
    let mut out: Vec<String> = shards_where(db, move |g| g.words.contains(&key))
        .filter_map(|s| shard_words(db, s).get(&key))
        .flatten()
        .filter(|&&u| {
            called_names(db, u).binary_search(name).is_ok()
                && procedure_named(db, u.name(db)) == Some(u)
        })
        .map(|u| u.name(db).clone())
        .collect();
    out.sort();
    // A unit is listed once under each of its words of the same hash.
    out.dedup();
    out
}

/// The procedures the procedure `name` reaches through its calls at any depth (itself
/// only when it is recursive). A caller of `name` among them closes a recursive cycle
/// with it: what `CallGraph::recursive` tells from the whole graph.
#[salsa::tracked(returns(ref))]
pub fn reachable<'db>(db: &'db dyn salsa::Database, name: ProcName<'db>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![name.name(db).clone()];
    while let Some(n) = stack.pop() {
        let Some(u) = procedure_named(db, &n) else {
            continue;
        };
        for c in called_names(db, u) {
            if procedure_named(db, c).is_some() && out.insert(c.clone()) {
                stack.push(c.clone());
            }
        }
    }
    out
}
