//! Code actions on a DISTRIBUTE written in a header: its alternatives priced for the
//! whole program (see [`super::program_alternatives`]), each an edit of the header's text.

use super::actions::CodeAction;
use super::distribution::{MIN_GAIN, OFFERED, asked, edits, head};
use super::header::{directive_units, file_name, viewed_units};
use super::label::seconds;
use super::program_alternatives::program_alternatives;
use costline_db::alternatives::{Hand, price_share};
use costline_db::{Analysis, Cancellable, File, lower};
use costline_syntax::span::Span;
use std::sync::atomic::AtomicUsize;

/// The code actions replacing the DISTRIBUTEs `range` of the header at `path` asks
/// about with alternatives that make the program faster.
pub(super) fn header_actions(
    a: &Analysis,
    path: &str,
    files: &[File],
    range: Span,
) -> Cancellable<Vec<CodeAction>> {
    // Every including unit's variants priced on all cores first.
    let counter = AtomicUsize::new(0);
    a.on_all_cores(&|db, _, _| {
        let mut hand = Hand::new(&counter);
        for u in viewed_units(db, files, path) {
            let ir = lower(db, u.unit);
            let asked: Vec<usize> = asked(db, &u, &ir, range);
            price_share(db, u.unit, &asked, usize::MAX, &mut hand);
        }
    })?;
    a.with_db(|db| {
        // The directives asked about, by their range in the header.
        let mut directives: Vec<Span> = Vec::new();
        for u in viewed_units(db, files, path) {
            let ir = lower(db, u.unit);
            for i in asked(db, &u, &ir, range) {
                let at = u.original(ir.directives[i].span);
                if !directives.contains(&at) {
                    directives.push(at);
                }
            }
        }
        let mut out = Vec::new();
        for at in directives {
            let units = directive_units(db, files, path, at);
            let Ok(alts) = program_alternatives(db, files, &units) else {
                continue;
            };
            let (u, i) = &units[alts.first];
            let ir = lower(db, u.unit);
            let Some((header, _)) = u.in_view(ir.directives[*i].span) else {
                continue;
            };
            let text = header.original();
            let p = alts.target.processors().unwrap_or(1);
            for (layout, t) in alts
                .ranked
                .iter()
                .filter(|(_, t)| alts.written_s > MIN_GAIN * t)
                .take(OFFERED)
            {
                let Some(edits) = edits(text, u, &ir, &alts.target, layout) else {
                    continue;
                };
                out.push(CodeAction {
                    title: format!(
                        "{} — {:.1}× faster {} at P={p} ({} instead of {}; the {} unit(s) including {} that run)",
                        head(text, u, &ir, &alts.target, layout),
                        alts.written_s / t.max(f64::MIN_POSITIVE),
                        alts.scope.noun(),
                        seconds(*t),
                        seconds(alts.written_s),
                        alts.units,
                        file_name(path),
                    ),
                    fixes: "distribution",
                    diagnostic: at,
                    edits,
                    promised_s: Some(*t),
                });
            }
        }
        out
    })
}
