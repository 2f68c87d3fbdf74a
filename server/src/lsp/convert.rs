//! The engine's answers as LSP values: byte offsets become positions in the
//! negotiated encoding, severities and codes become the protocol's.

use super::documents::Lines;
use costline_engine::diagnostics::Severity;
use costline_engine::ide;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeLens, Command, Diagnostic,
    DiagnosticSeverity, Hover, HoverContents, InlayHint, InlayHintKind, InlayHintLabel,
    InlayHintTooltip, MarkupContent, MarkupKind, NumberOrString, TextEdit, Uri, WorkspaceEdit,
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

pub fn diagnostic(lines: &Lines, d: &ide::FileDiagnostic) -> Diagnostic {
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
