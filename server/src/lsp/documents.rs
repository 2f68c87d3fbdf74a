//! The documents the editor has open: their text as the editor holds it (incremental
//! changes applied in order), their version, and the line index that converts LSP
//! positions (UTF-16 by default, UTF-8 when negotiated) to byte offsets and back.

use costline_ide::LineIndex;
use std::collections::HashMap;
use std::sync::Arc;
use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};

/// How LSP columns are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// A text and its line index, for converting positions.
#[derive(Clone)]
pub struct Lines {
    pub index: Arc<LineIndex>,
    pub encoding: Encoding,
}

impl Lines {
    pub fn new(text: &str, encoding: Encoding) -> Lines {
        Lines {
            index: Arc::new(LineIndex::new(text)),
            encoding,
        }
    }

    /// The byte offset of an LSP position (clamped to the text).
    pub fn offset(&self, p: Position) -> u32 {
        let (line, col) = (p.line.saturating_add(1), p.character.saturating_add(1));
        match self.encoding {
            Encoding::Utf16 => self.index.offset_of_utf16(line, col),
            Encoding::Utf8 => self.index.offset_of_utf8(line, col),
        }
    }

    /// The LSP position of a byte offset.
    pub fn position(&self, offset: u32) -> Position {
        let (line, _) = self.index.line_col(offset);
        let col = match self.encoding {
            Encoding::Utf16 => self.index.utf16_col(offset),
            Encoding::Utf8 => self.index.utf8_col(offset),
        };
        Position::new(line - 1, col - 1)
    }

    pub fn range(&self, start: u32, end: u32) -> Range {
        Range::new(self.position(start), self.position(end))
    }
}

/// An open document.
pub struct Document {
    pub text: String,
    pub version: i32,
    pub lines: Lines,
    /// The analysis revision that holds this text.
    pub revision: u64,
}

/// The open documents, by URI.
#[derive(Default)]
pub struct Documents {
    docs: HashMap<Uri, Document>,
}

impl Documents {
    pub fn get(&self, uri: &Uri) -> Option<&Document> {
        self.docs.get(uri)
    }

    pub fn get_mut(&mut self, uri: &Uri) -> Option<&mut Document> {
        self.docs.get_mut(uri)
    }

    pub fn open(&mut self, uri: Uri, text: String, version: i32, encoding: Encoding) {
        let lines = Lines::new(&text, encoding);
        self.docs.insert(
            uri,
            Document {
                text,
                version,
                lines,
                revision: 0,
            },
        );
    }

    /// Applies `changes` in order (each against the text the previous one left);
    /// `None` when the document is not open. With the document, when every change had
    /// a range, the lengths of the text's start and end that no change touched (the
    /// common ends of the old and new texts, [`costline_syntax::text_edit`]: the least
    /// start of a change, and the least length after the end of one).
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> Option<(&mut Document, Option<(usize, usize)>)> {
        let doc = self.docs.get_mut(uri)?;
        let mut ends = Some((doc.text.len(), doc.text.len()));
        for change in changes {
            let encoding = doc.lines.encoding;
            match change.range {
                Some(range) => {
                    let start = doc.lines.offset(range.start) as usize;
                    let end = (doc.lines.offset(range.end) as usize).max(start);
                    let after = doc.text.len() - end;
                    ends = ends.map(|(p, s)| (p.min(start), s.min(after)));
                    doc.text.replace_range(start..end, &change.text);
                    // Lines indexed again only around the change.
                    let index =
                        doc.lines
                            .index
                            .edited(&doc.text, start, end, start + change.text.len());
                    doc.lines = Lines {
                        index: Arc::new(index),
                        encoding,
                    };
                }
                None => {
                    ends = None;
                    doc.text = change.text;
                    doc.lines = Lines::new(&doc.text, encoding);
                }
            }
        }
        doc.version = version;
        Some((doc, ends))
    }

    pub fn close(&mut self, uri: &Uri) -> Option<Document> {
        self.docs.remove(uri)
    }

    pub fn uris(&self) -> Vec<Uri> {
        self.docs.keys().cloned().collect()
    }
}

/// The path a URI is analyzed under: its file path, or the URI itself for documents
/// without one (`untitled:`).
pub fn path_of(uri: &Uri) -> String {
    if uri.scheme().as_str() == "file"
        && let Some(p) = uri.to_file_path()
    {
        return p.to_string_lossy().into_owned();
    }
    uri.as_str().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(
        range: Option<((u32, u32), (u32, u32))>,
        text: &str,
    ) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range
                .map(|((a, b), (c, d))| Range::new(Position::new(a, b), Position::new(c, d))),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn incremental_changes_count_columns_in_the_negotiated_encoding() {
        let uri: Uri = "file:///t.f90".parse().unwrap();
        // `é` is 2 bytes and 1 UTF-16 unit; `😀` 4 bytes and 2 units.
        let text = "! é😀 comment\nx = 1\n";
        for (encoding, col) in [(Encoding::Utf16, 5), (Encoding::Utf8, 8)] {
            let mut docs = Documents::default();
            docs.open(uri.clone(), text.into(), 1, encoding);
            // Insert after the emoji, then replace `1` on line 2.
            docs.change(
                &uri,
                2,
                vec![
                    change(Some(((0, col), (0, col))), "!"),
                    change(Some(((1, 4), (1, 5))), "2"),
                ],
            );
            let doc = docs.get(&uri).unwrap();
            assert_eq!(doc.text, "! é😀! comment\nx = 2\n", "{encoding:?}");
            assert_eq!(doc.version, 2);
            let at = doc.text.find(" comment").unwrap() as u32;
            assert_eq!(doc.lines.position(at), Position::new(0, col + 1));
        }
    }

    #[test]
    fn the_ends_no_change_touched_are_the_texts_common_ends_or_shorter() {
        let uri: Uri = "file:///t.f90".parse().unwrap();
        let text = "x = 1\ny = 2\nz = 3\n";
        let cases: Vec<Vec<TextDocumentContentChangeEvent>> = vec![
            vec![change(Some(((1, 4), (1, 5))), "42")],
            vec![change(Some(((0, 0), (0, 0))), "! a\n")],
            vec![change(Some(((2, 0), (3, 0))), "")],
            vec![
                change(Some(((2, 4), (2, 5))), "7"),
                change(Some(((0, 4), (0, 5))), "8"),
            ],
            vec![change(Some(((1, 0), (1, 1))), "y")],
        ];
        for changes in cases {
            let mut docs = Documents::default();
            docs.open(uri.clone(), text.into(), 1, Encoding::Utf8);
            let (doc, ends) = docs.change(&uri, 2, changes.clone()).unwrap();
            let (p, s) = ends.unwrap();
            let (old, new) = (text.as_bytes(), doc.text.as_bytes());
            let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
            let suffix = old
                .iter()
                .rev()
                .zip(new.iter().rev())
                .take_while(|(a, b)| a == b);
            let longest = (prefix, suffix.count());
            assert!(
                p <= longest.0 && s <= longest.1,
                "{changes:?}: {ends:?} {longest:?}"
            );
            assert!(p + s <= old.len().min(new.len()), "{changes:?}");
        }
        let mut docs = Documents::default();
        docs.open(uri.clone(), text.into(), 1, Encoding::Utf8);
        let (_, ends) = docs.change(&uri, 2, vec![change(None, "a")]).unwrap();
        assert_eq!(ends, None);
    }

    #[test]
    fn a_change_without_range_replaces_the_text() {
        let uri: Uri = "file:///t.f90".parse().unwrap();
        let mut docs = Documents::default();
        docs.open(uri.clone(), "a".into(), 1, Encoding::Utf16);
        docs.change(&uri, 2, vec![change(None, "b\nc")]);
        assert_eq!(docs.get(&uri).unwrap().text, "b\nc");
        assert_eq!(
            path_of(&"untitled:Untitled-1".parse().unwrap()),
            "untitled:Untitled-1"
        );
        assert_eq!(path_of(&uri), "/t.f90");
    }
}
