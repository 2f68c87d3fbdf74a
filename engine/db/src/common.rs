//! COMMON blocks across units. HPF requires a COMMON member to have the same mapping
//! in every unit that declares its block (storage association pairs members by
//! position). When a unit maps a member differently from another unit, or not at all
//! while another maps it, each such unit gets a warning at the member's declaration.
//! What is analysed is what each unit declares: its statements use its own mapping of
//! the member (replicated when it has none); costline does not guess which unit is
//! right. Mappings are compared as written (formats, sizes and offsets as expressions
//! in the units' constants; array and arrangement names ignored).

use super::analysis::{lower, mappings};
use super::inputs::Workspace;
use super::units::file_units;
use costline_model::distribution::Mapping;
use costline_syntax::diagnostics::Diagnostic;
use std::collections::BTreeMap;

/// One unit's declaration of a COMMON member: the unit, the member's name there, and
/// its mapping there (canonical: see [`Mapping::canonical`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub unit: String,
    pub name: String,
    pub mapping: Option<Mapping>,
}

/// Every unit's declaration of every COMMON member, by block name and position.
pub type CommonBlocks = BTreeMap<String, BTreeMap<usize, Vec<Member>>>;

/// The COMMON blocks of the workspace (cut off when no unit's COMMON declarations or
/// their mappings changed).
#[salsa::tracked(returns(ref))]
pub fn common_blocks(db: &dyn salsa::Database) -> CommonBlocks {
    let mut out = CommonBlocks::new();
    for &file in Workspace::get(db).files(db) {
        let Ok(units) = file_units(db, file) else {
            continue;
        };
        for &unit in &units.units {
            let ir = lower(db, unit);
            if !ir.symbols.values().any(|s| s.common.is_some()) {
                continue;
            }
            let maps = mappings(db, unit);
            for s in ir.symbols.values() {
                let Some((block, position)) = &s.common else {
                    continue;
                };
                out.entry(block.clone())
                    .or_default()
                    .entry(*position)
                    .or_default()
                    .push(Member {
                        unit: ir.name.clone(),
                        name: s.name.clone(),
                        mapping: maps.arrays.get(&s.name).map(Mapping::canonical),
                    });
            }
        }
    }
    out
}

/// Warnings on the COMMON members of `unit` whose mapping differs from another unit's.
#[salsa::tracked(returns(ref))]
pub fn common_notes<'db>(
    db: &'db dyn salsa::Database,
    unit: super::units::UnitText<'db>,
) -> Vec<Diagnostic> {
    let ir = lower(db, unit);
    let mut out = Vec::new();
    let mut members: Vec<_> = ir
        .symbols
        .values()
        .filter_map(|s| Some((s, s.common.as_ref()?)))
        .collect();
    if members.is_empty() {
        // A unit without COMMON members does not wait on every unit's lowering.
        return out;
    }
    let blocks = common_blocks(db);
    members.sort_by_key(|(_, (b, p))| (b.clone(), *p));
    for (sym, (block, position)) in members {
        let Some(all) = blocks.get(block).and_then(|b| b.get(position)) else {
            continue;
        };
        let Some(mine) = all.iter().find(|m| m.unit == ir.name && m.name == sym.name) else {
            continue;
        };
        let Some(other) = all
            .iter()
            .find(|m| m.unit != ir.name && m.mapping != mine.mapping)
        else {
            continue;
        };
        let shown = if block.is_empty() {
            "blank COMMON".to_string()
        } else {
            format!("COMMON /{block}/")
        };
        let how = match (&mine.mapping, &other.mapping) {
            (None, _) => format!(
                "is not mapped here but `{}` in `{}` is distributed",
                other.name, other.unit
            ),
            (Some(_), None) => format!(
                "is distributed here but `{}` in `{}` is not mapped",
                other.name, other.unit
            ),
            (Some(_), Some(_)) => format!(
                "is mapped here differently from `{}` in `{}`",
                other.name, other.unit
            ),
        };
        out.push(Diagnostic::warning(
            sym.span,
            "common-mapping",
            format!(
                "`{}` (member {} of {shown}) {how}: HPF requires the same mapping in every \
                 unit that declares the block; this unit is analysed with its own{}",
                sym.name,
                position + 1,
                if mine.mapping.is_none() {
                    " (replicated)"
                } else {
                    ""
                }
            ),
        ));
    }
    out
}
