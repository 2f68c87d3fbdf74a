//! What a unit sees from outside: its host's entities and those of the modules it USEs
//! (ONLY lists and renames applied). Lowering reads only the entities the unit's text
//! mentions, so a declaration added to a module or host re-lowers the units that name
//! it, not every user.

use super::analysis::{lower, uses};
use super::mapped::outer_directive_names;
use super::modules::module_graph;
use super::units::{UnitText, host_of};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::{Expr, SymbolTable, UnitKind};
use costline_syntax::lower::Scope;
use costline_syntax::span::Span;
use std::collections::BTreeSet;

/// Modules every Fortran or HPF system provides: using them is not a missing input.
const INTRINSIC_MODULES: &[&str] = &[
    "mpi",
    "mpi_f08",
    "iso_c_binding",
    "iso_fortran_env",
    "ieee_arithmetic",
    "ieee_exceptions",
    "ieee_features",
    "omp_lib",
    "omp_lib_kinds",
    "openacc",
    "hpf_library",
    "hpf_local_library",
];

/// Every entity visible from outside a unit, and the notes on USE statements that could
/// not be followed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Imports {
    pub symbols: SymbolTable,
    pub notes: Vec<Diagnostic>,
}

/// The entities `unit` sees from its host and its modules (a module's win over the
/// host's of the same name, as a local declaration wins over both).
#[salsa::tracked(returns(ref))]
pub fn imports<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Imports {
    let mut out = Imports::default();
    if let Some(host) = host_of(db, unit) {
        out.symbols = exports(db, host).clone();
    }
    let used_modules = uses(db, unit);
    if used_modules.is_empty() {
        // The module graph (the whole workspace's) only for a unit that uses one.
        return out;
    }
    let graph = module_graph(db);
    for used in used_modules {
        let module = used.module.as_str();
        if unit.kind(db) == UnitKind::Module && graph.in_cycle(unit.name(db), module) {
            out.notes.push(Diagnostic::warning(
                used.span,
                "use-cycle",
                format!("module `{module}` uses itself (directly or through other modules)"),
            ));
            continue;
        }
        let Some(&defined) = graph.modules.get(module) else {
            if !INTRINSIC_MODULES.contains(&module) {
                out.notes.push(Diagnostic::info(
                    used.span,
                    "unresolved-module",
                    format!(
                        "module `{module}` is not among the inputs: its constants and arrays are unknown (give its file on the command line)"
                    ),
                ));
            }
            continue;
        };
        for (remote, sym) in exports(db, defined) {
            if let Some(local) = used.local_name(remote) {
                let mut sym = sym.clone();
                sym.name = local.to_string();
                out.symbols.insert(local.to_string(), sym);
            }
        }
    }
    out
}

/// Everything a unit makes visible to its contained procedures (or, for a module, to
/// its users): what it sees and its own entities. Declaration spans are dropped: they
/// point into another unit's text, and moving a declaration changes nothing outside.
#[salsa::tracked(returns(ref))]
pub fn exports<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> SymbolTable {
    let mut symbols = imports(db, unit).symbols.clone();
    for (name, sym) in &lower(db, unit).symbols {
        let mut sym = sym.clone();
        sym.span = Span::default();
        symbols.insert(name.clone(), sym);
    }
    symbols
}

/// The lower-case words of a unit's text (directives and comments included): a superset
/// of the names it refers to.
#[salsa::tracked(returns(ref))]
pub fn identifiers<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> BTreeSet<String> {
    words(unit.text(db))
}

fn words(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            // A word glued to a number (`1e5`, `2d0`) is no name; a name may not follow
            // a digit.
            let glued = start > 0 && bytes[start - 1].is_ascii_digit();
            if !glued {
                out.insert(text[start..i].to_ascii_lowercase());
            }
        } else {
            i += 1;
        }
    }
    out
}

/// What lowering `unit` reads from outside: the visible entities its text mentions,
/// without their values (constants reach the unit through
/// [`super::analysis::constants`], so a new value re-evaluates it without re-lowering).
#[salsa::tracked(returns(ref))]
pub fn scope<'db>(db: &'db dyn salsa::Database, unit: UnitText<'db>) -> Scope {
    let visible = &imports(db, unit).symbols;
    let symbols = identifiers(db, unit)
        .iter()
        .filter_map(|n| {
            let mut sym = visible.get(n)?.clone();
            // Values reach the unit through its constants, so that a changed value
            // re-evaluates it without lowering it again; a logical PARAMETER's stays,
            // since the conditions that test it (`if (.not. convertdouble)`) decide
            // branches as the unit is counted.
            if !matches!(sym.value, Some(Expr::Logical(_))) {
                sym.value = None;
            }
            Some((n.clone(), sym))
        })
        .collect();
    let (processors, templates) = outer_directive_names(db, unit).clone();
    Scope {
        symbols,
        processors,
        templates,
    }
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_are_names_not_number_suffixes() {
        let w = words("x = 1.0e5 * N_2 + a1(2d0) ! Comment\n!HPF$ DISTRIBUTE B(BLOCK)");
        let w: Vec<&str> = w.iter().map(String::as_str).collect();
        assert_eq!(
            w,
            [
                "a1",
                "b",
                "block",
                "comment",
                "distribute",
                "hpf",
                "n_2",
                "x"
            ]
        );
    }
}
