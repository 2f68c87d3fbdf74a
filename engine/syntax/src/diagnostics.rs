//! Findings reported to the user: parse errors, directive errors, and (later) analysis
//! warnings such as imbalance or communication inside loops.

use crate::span::Span;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }
}

/// One finding. `code` is a stable kebab-case identifier (`syntax`, `unknown-array`, ...)
/// that tests, editors and users can filter on; `message` is for people.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// Relative to the owner's text (see [`Span`]).
    pub span: Span,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

impl Diagnostic {
    pub fn error(span: Span, code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(span, Severity::Error, code, message)
    }

    pub fn warning(span: Span, code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(span, Severity::Warning, code, message)
    }

    pub fn info(span: Span, code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(span, Severity::Info, code, message)
    }

    pub fn new(
        span: Span,
        severity: Severity,
        code: &'static str,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            span,
            severity,
            code,
            message: message.into(),
        }
    }
}
