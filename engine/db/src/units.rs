//! A file as units: loaded (decoded, fixed form normalized) and split by a scan of its
//! statements, without parsing. Each unit becomes a [`UnitText`] whose identity is its
//! content, so the per-unit queries of a unit nobody edited are reused whatever
//! happened around it.

use super::calls::Binding;
use super::inputs::{File, Split};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::UnitKind;
use costline_syntax::ir::directive::Directive;
use costline_syntax::source::{LoadError, SourceFile};
use costline_syntax::span::Span;
use costline_syntax::unit_source::UnitSource;
use costline_syntax::{UnitChunk, resplit, split_units};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One program unit's own text (contained units left out) and what it needs to be
/// analyzed: its file (where its host is), kind, name and host's name. Never its
/// position: moving a unit, or editing another, keeps its identity.
///
/// A *variant* of a unit carries HPF directives that replace its own (a distribution
/// alternative, see `crate::alternatives`): it shares the parse, counts and constants
/// of the unit as written ([`base`]) and recomputes only what the directives decide.
#[salsa::interned(debug)]
pub struct UnitText<'db> {
    #[returns(copy)]
    pub file: File,
    #[returns(copy)]
    pub kind: UnitKind,
    #[returns(ref)]
    pub name: String,
    #[returns(ref)]
    pub host: Option<String>,
    #[returns(ref)]
    pub text: UnitSource,
    /// The directives replacing the unit's own; `None` for the unit as written.
    #[returns(ref)]
    pub directives: Option<Vec<Directive>>,
    /// What a call site binds the dummies to, for the procedure as called from there
    /// (see `super::calls`); `None` for the unit as its callers agree on it.
    #[returns(ref)]
    pub site: Option<Binding>,
}

/// The unit as written, of a variant (the unit itself when it is not one).
pub fn base<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> UnitText<'db> {
    if unit.directives(db).is_none() && unit.site(db).is_none() {
        return unit;
    }
    with_directives(db, unit, None)
}

/// The variant of `unit` as called with `binding` (its own directives).
pub fn at_site<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
    binding: Binding,
) -> UnitText<'db> {
    keyed(db, unit, None, Some(binding))
}

/// The variant of `unit` whose HPF directives are `directives` (of the unit as its
/// callers agree on it).
pub fn variant<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
    directives: Vec<Directive>,
) -> UnitText<'db> {
    with_directives(db, unit, Some(directives))
}

/// `unit` with `directives` in place of its own (`None`: as written).
fn with_directives<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
    directives: Option<Vec<Directive>>,
) -> UnitText<'db> {
    keyed(db, unit, directives, None)
}

/// `unit`'s text keyed with `directives` in place of its own and analysed as called
/// with `site`.
fn keyed<'db>(
    db: &'db dyn salsa::Database,
    unit: UnitText<'db>,
    directives: Option<Vec<Directive>>,
    site: Option<Binding>,
) -> UnitText<'db> {
    UnitText::new(
        db,
        unit.file(db),
        unit.kind(db),
        unit.name(db).clone(),
        unit.host(db).clone(),
        unit.text(db).clone(),
        directives,
        site,
    )
}

/// A file's units, in order of their start.
#[derive(Debug, PartialEq, Eq, salsa::SalsaValue)]
pub struct FileUnits<'db> {
    pub source: Arc<SourceFile>,
    /// Where each unit is (spans into the normalized text).
    pub chunks: Arc<Vec<UnitChunk>>,
    pub units: Vec<UnitText<'db>>,
    /// The units in blocks ([`Block`]), in order.
    pub blocks: Vec<Block<'db>>,
    /// File-level findings (loading, preprocessor lines, includes, missing END
    /// statements, an empty file); spans are offsets into the normalized text.
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a file could not be loaded (a [`LoadError`] the database can keep).
#[derive(Clone, Debug, PartialEq, Eq, salsa::SalsaValue)]
pub struct LoadFailed(pub LoadError);

/// Loads `file`, splices in the files it includes, and splits the text into units.
/// Not compared with the value it replaces (`no_eq`): it runs again mostly after an edit
/// of the file, and then differs (comparing two versions of a large text cost more than
/// an equal value saves).
#[salsa::tracked(returns(ref), no_eq)]
pub fn file_units<'db>(
    db: &'db dyn salsa::Database,
    file: File,
) -> Result<FileUnits<'db>, LoadFailed> {
    // After an edit, the units around it split again (when that is exact), else all.
    let again = file.previous(db).as_ref().and_then(|p| {
        resplit::after_edit(&p.split.source, &p.split.chunks, file.bytes(db), p.ends)
    });
    let (source, chunks, split_diagnostics) = match again {
        Some((source, chunks)) => (Arc::new(source), Arc::new(chunks), Vec::new()),
        None => {
            let source = super::splice::spliced_source(db, file).map_err(LoadFailed)?;
            let (chunks, diagnostics) = split_units(source.normalized());
            (Arc::new(source), Arc::new(chunks), diagnostics)
        }
    };
    if split_diagnostics.is_empty() && source.diagnostics().is_empty() {
        file.split(db).set(Split {
            source: source.clone(),
            chunks: chunks.clone(),
        });
    }
    let blocks: Vec<Block> = blocks(&chunks)
        .into_iter()
        .map(|b| Block::new(db, file, b))
        .collect();
    let mut units = Vec::with_capacity(chunks.len());
    for &block in &blocks {
        units.extend(block_units(db, block));
    }
    let mut diagnostics = source.diagnostics().to_vec();
    diagnostics.extend(split_diagnostics);
    if chunks.is_empty() {
        diagnostics.push(Diagnostic::info(
            Span::default(),
            "empty",
            "no program unit in this file",
        ));
    }
    Ok(FileUnits {
        source,
        chunks,
        units,
        blocks,
        diagnostics,
    })
}

/// A unit of a [`Block`]: its kind, name and text, and its host's index in the block
/// (a host and the units it contains are in one block).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockUnit {
    source: UnitSource,
    parent: Option<u32>,
}

/// Consecutive top-level units of a file with the units they contain, a block ended
/// before a top-level unit when the top-level unit before it has a hash whose top six
/// bits are zero (one unit in [`BLOCK`]), or when it holds `4 × BLOCK` units already:
/// an edit inside a unit changes its block only, and inserting a unit changes the block
/// it goes into, not the blocks after it (the ends depend on the units' texts, not on
/// their count).
#[salsa::interned(debug)]
pub struct Block<'db> {
    #[returns(copy)]
    file: File,
    #[returns(ref)]
    units: Vec<BlockUnit>,
}

/// Units per block on average.
const BLOCK: u64 = 64;

/// `chunks` in blocks (see [`Block`]).
fn blocks(chunks: &[UnitChunk]) -> Vec<Vec<BlockUnit>> {
    let mut out = Vec::new();
    let mut block: Vec<BlockUnit> = Vec::new();
    // The index of the block's first chunk, and whether the last top-level unit ends
    // the block.
    let mut first = 0;
    let mut ends = false;
    for (i, c) in chunks.iter().enumerate() {
        if c.parent.is_none() {
            if !block.is_empty() && (ends || block.len() as u64 >= 4 * BLOCK) {
                out.push(std::mem::take(&mut block));
                first = i;
            }
            // One unit in BLOCK ends a block: its hash's top bits zero.
            ends = c.source.digest() >> (64 - BLOCK.trailing_zeros()) == 0;
        }
        block.push(BlockUnit {
            source: c.source.clone(),
            parent: c.parent.map(|p| (p - first) as u32),
        });
    }
    if !block.is_empty() {
        out.push(block);
    }
    out
}

/// The units of a block, interned. After an edit, the blocks it did not touch are the
/// blocks they were and keep their units without interning them again: the edit of a
/// 100k-line file interns a hundred-odd blocks, not thousands of units.
#[salsa::tracked(returns(ref))]
pub fn block_units<'db>(db: &'db dyn salsa::Database, block: Block<'db>) -> Vec<UnitText<'db>> {
    let file = block.file(db);
    let units = block.units(db);
    units
        .iter()
        .map(|u| {
            let host = u
                .parent
                .map(|p| units[p as usize].source.name().to_string());
            UnitText::new(
                db,
                file,
                u.source.kind(),
                u.source.name(),
                host,
                u.source.clone(),
                None,
                None,
            )
        })
        .collect()
}

/// The units of `file` that contain others, by name (the first of a name): where a
/// contained unit finds its host. Unchanged by edits inside the contained units, whose
/// text is not part of their host's.
#[salsa::tracked(returns(ref))]
pub fn hosts<'db>(db: &'db dyn salsa::Database, file: File) -> BTreeMap<String, UnitText<'db>> {
    let mut out = BTreeMap::new();
    if let Ok(f) = file_units(db, file) {
        for (chunk, unit) in f.chunks.iter().zip(&f.units) {
            if !chunk.nested.is_empty() {
                out.entry(chunk.name.to_string()).or_insert(*unit);
            }
        }
    }
    out
}

/// The host of a contained or module procedure.
pub fn host_of<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Option<UnitText<'db>> {
    let name = unit.host(db).as_ref()?;
    hosts(db, unit.file(db)).get(name).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use costline_fixtures::synthetic::{small_procedure, small_procedures_file};

    fn split(text: &str) -> Vec<Vec<BlockUnit>> {
        let (chunks, diagnostics) = split_units(text);
        assert!(diagnostics.is_empty());
        blocks(&chunks)
    }

    /// How many blocks of `after` are not among those of `before` (two when the unit
    /// edited or inserted comes to end a block, splitting one).
    fn changed(before: &[Vec<BlockUnit>], after: &[Vec<BlockUnit>]) -> usize {
        after.iter().filter(|b| !before.contains(b)).count()
    }

    #[test]
    fn an_edit_or_an_inserted_unit_changes_its_block_only() {
        let text = small_procedures_file(2000);
        let before = split(&text);
        // About 64 units a block, none above 256.
        assert!((15..=60).contains(&before.len()), "{} blocks", before.len());
        assert!(before.iter().all(|b| b.len() <= 256));
        assert_eq!(before.iter().map(Vec::len).sum::<usize>(), 2000);
        let edited = text.replacen("! procedure 1000\n", "! procedure 1000 x\n", 1);
        assert!(changed(&before, &split(&edited)) <= 2);
        // A unit inserted in the middle, and one deleted.
        let at = text.find(&small_procedure(1000)).unwrap();
        let mut inserted = text.clone();
        inserted.insert_str(at, &small_procedure(9999));
        assert!(changed(&before, &split(&inserted)) <= 2);
        let deleted = text.replacen(&small_procedure(1000), "", 1);
        assert!(changed(&before, &split(&deleted)) <= 1);
    }

    #[test]
    fn a_host_and_the_units_it_contains_share_a_block() {
        let mut text = String::new();
        for k in 0..300 {
            text += &format!(
                "module m{k}\ncontains\n  subroutine s{k}()\n  end subroutine s{k}\nend module m{k}\n"
            );
        }
        let blocks = split(&text);
        assert!(blocks.len() > 1, "several blocks");
        let mut contained = 0;
        for block in &blocks {
            for u in block {
                if let Some(p) = u.parent {
                    let host = &block[p as usize].source;
                    assert_eq!(host.name(), u.source.name().replacen('s', "m", 1));
                    contained += 1;
                }
            }
        }
        assert_eq!(contained, 300);
    }
}
