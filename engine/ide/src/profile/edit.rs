//! Edits of a source file's original text that add statements on lines of their own,
//! written as the file's form wants them: fixed form's statements from column 7 and
//! labels in columns 1–5, free form's anywhere.

use costline_syntax::source::SourceForm;

/// Replace `start..end` (byte offsets into the original text) by `text`; an insertion
/// when the range is empty.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// `text` with `edits` applied; edits at the same offset in the order given. `None`
/// when two edits overlap.
pub fn apply(text: &str, edits: &[Edit]) -> Option<String> {
    let mut order: Vec<(usize, &Edit)> = edits.iter().enumerate().collect();
    order.sort_by_key(|(i, e)| (e.start, e.end, *i));
    let mut out = String::with_capacity(text.len() + edits.len() * 32);
    let mut at = 0;
    for (_, e) in order {
        if e.start < at || e.end > text.len() || e.end < e.start {
            return None;
        }
        out.push_str(&text[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// The statement `stmt` as a line of its own in `form`, continued on more lines when
/// it is longer than a line holds (fixed form's 72 columns, free form's 132).
pub fn line(form: SourceForm, stmt: &str) -> String {
    let chars: Vec<char> = stmt.chars().collect();
    let (width, first, next, end) = match form {
        SourceForm::Fixed { .. } => (66, "      ", "     &", ""),
        SourceForm::Free => (120, "", "&", "&"),
    };
    let mut out = String::new();
    for (k, piece) in chars.chunks(width).enumerate() {
        if k > 0 {
            out.push_str(end);
            out.push('\n');
        }
        out.push_str(if k == 0 { first } else { next });
        out.extend(piece);
    }
    out.push('\n');
    out
}

/// A `CONTINUE` statement labelled `label`, as a line of its own in `form`.
pub fn labelled_continue(form: SourceForm, label: u32) -> String {
    match form {
        SourceForm::Fixed { .. } => format!("{label:<5} continue\n"),
        SourceForm::Free => format!("{label} continue\n"),
    }
}

/// The call that adds `n` (an integer expression of kind 8) to counter `k`.
pub fn add(k: usize, n: &str) -> String {
    format!("call costline_add({k}, {n})")
}

/// The call that records the value of the integer expression `v` in the four
/// counters from `k` (records, sum, least, greatest).
pub fn record(k: usize, v: &str) -> String {
    format!("call costline_value({k}, int({v},8))")
}

/// The call that counts one more run of counter `k`.
pub fn hit(k: usize) -> String {
    format!("call costline_hit({k})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_order_and_overlaps_are_refused() {
        let text = "a\nb\n";
        let edits = [
            Edit {
                start: 2,
                end: 2,
                text: "x\n".into(),
            },
            Edit {
                start: 2,
                end: 2,
                text: "y\n".into(),
            },
            Edit {
                start: 0,
                end: 1,
                text: " ".into(),
            },
        ];
        assert_eq!(apply(text, &edits).as_deref(), Some(" \nx\ny\nb\n"));
        let overlapping = [
            Edit {
                start: 0,
                end: 2,
                text: String::new(),
            },
            Edit {
                start: 1,
                end: 1,
                text: "z".into(),
            },
        ];
        assert_eq!(apply(text, &overlapping), None);
    }

    #[test]
    fn lines_in_each_form() {
        let fixed = SourceForm::Fixed { line_length: 72 };
        assert_eq!(line(fixed, &hit(3)), "      call costline_hit(3)\n");
        assert_eq!(labelled_continue(fixed, 10), "10    continue\n");
        assert_eq!(labelled_continue(SourceForm::Free, 10), "10 continue\n");
        // Long statements are continued.
        let long = format!("call f({})", "x".repeat(70));
        assert_eq!(
            line(fixed, &long),
            format!(
                "      call f({}\n     &{})\n",
                "x".repeat(59),
                "x".repeat(11)
            )
        );
        let long = format!("call f({})", "y".repeat(130));
        assert_eq!(
            line(SourceForm::Free, &long),
            format!("call f({}&\n&{})\n", "y".repeat(113), "y".repeat(17))
        );
    }
}
