//! The engine's answers as LSP values: byte offsets become positions in the
//! negotiated encoding, severities and codes become the protocol's.

use super::documents::Lines;
use costline_ide as ide;
use costline_ide::Severity;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeLens, Command, Diagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, Hover, HoverContents, InlayHint,
    InlayHintKind, InlayHintLabel, InlayHintTooltip, Location, MarkupContent, MarkupKind,
    NumberOrString, Position, Range, TextEdit, Uri, WorkspaceEdit,
};

pub fn inlay_hint(lines: &Lines, h: &ide::InlayHint) -> InlayHint {
    InlayHint {
        position: lines.position(h.offset),
        label: InlayHintLabel::String(h.label.clone()),
        kind: Some(InlayHintKind::TYPE),
        text_edits: None,
        tooltip: Some(InlayHintTooltip::String(h.tooltip.clone())),
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

pub fn hover(lines: &Lines, h: &ide::Hover) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: h.markdown.clone(),
        }),
        range: Some(lines.range(h.range.start, h.range.end)),
    }
}

pub fn code_lens(lines: &Lines, l: &ide::CodeLens) -> CodeLens {
    let at = lines.position(l.offset);
    CodeLens {
        range: tower_lsp_server::ls_types::Range::new(at, at),
        // No command to run: the title is the information (clients show it inert).
        command: Some(Command {
            title: l.title.clone(),
            command: String::new(),
            arguments: None,
        }),
        data: None,
    }
}

/// The diagnostics of a document whose text `lines` indexes.
///
/// A finding on the text of an included file sits on its INCLUDE line, its message
/// prefixed with where it is (`In included file dist.inc:7:1: ...`), with that place as
/// related information. A finding listed on an included file points, as related
/// information, at the INCLUDE lines that brought it in.
pub fn diagnostics(lines: &Lines, diags: &[ide::FileDiagnostic]) -> Vec<Diagnostic> {
    // The line index of each included file, built once.
    let mut headers: HashMap<&str, Lines> = HashMap::new();
    diags
        .iter()
        .map(|d| {
            let mut out = diagnostic(lines, d);
            if let Some(h) = &d.header {
                let path = h.source.path();
                let at = headers.entry(path).or_insert_with(|| Lines {
                    index: Arc::new(h.source.line_index().clone()),
                    encoding: lines.encoding,
                });
                let range = at.range(h.range.start, h.range.end);
                let (line, column) = h.source.line_index().line_col(h.range.start);
                let name = Path::new(path)
                    .file_name()
                    .map_or(path.into(), |n| n.to_string_lossy());
                out.message = format!("In included file {name}:{line}:{column}: {}", d.message);
                out.related_information = Uri::from_file_path(path).map(|uri| {
                    vec![DiagnosticRelatedInformation {
                        location: Location { uri, range },
                        message: d.message.clone(),
                    }]
                });
            }
            if !d.included_from.is_empty() {
                let sites = d
                    .included_from
                    .iter()
                    .filter_map(|site| {
                        let uri = Uri::from_file_path(&site.path)?;
                        let line = site.line.saturating_sub(1);
                        Some(DiagnosticRelatedInformation {
                            location: Location {
                                uri,
                                range: Range::new(
                                    Position::new(line, 0),
                                    Position::new(line + 1, 0),
                                ),
                            },
                            message: "included here".into(),
                        })
                    })
                    .collect();
                out.related_information = Some(sites);
            }
            out
        })
        .collect()
}

/// An identifier of a document's diagnostics (equal for equal diagnostics; the 64-bit
/// FNV-1a hash of their JSON), for pull clients to learn that nothing changed.
pub fn result_id(items: &[Diagnostic]) -> String {
    let json = serde_json::to_string(items).unwrap_or_default();
    let hash = json.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

fn diagnostic(lines: &Lines, d: &ide::FileDiagnostic) -> Diagnostic {
    Diagnostic {
        range: lines.range(d.range.start, d.range.end),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
            Severity::Hint => DiagnosticSeverity::HINT,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("costline".into()),
        message: d.message.clone(),
        ..Diagnostic::default()
    }
}

/// A quick fix as a code action with a workspace edit on the document (the client
/// applies it only when the user accepts it).
pub fn code_action(lines: &Lines, uri: &Uri, a: &ide::CodeAction) -> CodeActionOrCommand {
    let edits = a
        .edits
        .iter()
        .map(|(span, text)| TextEdit {
            range: lines.range(span.start, span.end),
            new_text: text.clone(),
        })
        .collect();
    CodeActionOrCommand::CodeAction(CodeAction {
        title: a.title.clone(),
        kind: Some(CodeActionKind::QUICKFIX),
        edit: Some(WorkspaceEdit {
            changes: Some([(uri.clone(), edits)].into_iter().collect()),
            ..WorkspaceEdit::default()
        }),
        is_preferred: Some(true),
        data: a
            .promised_s
            .map(|t| serde_json::json!({ "predicted_time_s": t })),
        ..CodeAction::default()
    })
}
