//! Bytes to text: UTF-8 with every byte of an invalid sequence read as `?` (so byte
//! offsets are preserved), and rejection of binary input.

use std::fmt;

use super::line_index::LineIndex;

/// Why a file could not be loaded as source text: it is binary. Names the first
/// offending byte by offset and by 1-based line and column (in Unicode scalar values,
/// every invalid UTF-8 byte counting as one).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoadError {
    /// Byte offset of the first offending byte.
    pub offset: usize,
    /// 1-based line of the first offending byte.
    pub line: u32,
    /// 1-based column of the first offending byte, in Unicode scalar values.
    pub column: u32,
    /// What is wrong, naming the line and column.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

/// Invalid UTF-8 found while decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InvalidUtf8 {
    /// The first invalid byte and the length of its sequence.
    pub first: usize,
    pub first_len: usize,
    /// How many bytes in all were read as `?`.
    pub bytes: usize,
}

/// A decoded file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// Same byte length as the input.
    pub text: String,
    pub invalid: Option<InvalidUtf8>,
}

/// A file is binary when more than this share of its bytes are not text.
const BINARY_SHARE_PERCENT: usize = 30;

/// Decodes `bytes` as UTF-8, reading each byte of an invalid sequence as `?`.
///
/// Rejects binary input: a NUL byte anywhere, or more than 30% of the bytes being
/// non-text (ASCII control characters other than tab, line feed, vertical tab, form
/// feed and carriage return, or bytes of invalid UTF-8 sequences).
pub(crate) fn decode(bytes: &[u8]) -> Result<Decoded, LoadError> {
    let mut text = String::with_capacity(bytes.len());
    let mut invalid: Option<InvalidUtf8> = None;
    let mut non_text = 0usize;
    let mut first_non_text: Option<usize> = None;
    let mut rest = bytes;
    while !rest.is_empty() {
        let at = bytes.len() - rest.len();
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                text.push_str(valid);
                rest = &[];
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                // `valid` is valid UTF-8 by the contract of `valid_up_to`.
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                let bad = e.error_len().unwrap_or(after.len()).min(after.len());
                let bad_at = at + valid.len();
                text.extend(std::iter::repeat_n('?', bad));
                let info = invalid.get_or_insert(InvalidUtf8 {
                    first: bad_at,
                    first_len: bad,
                    bytes: 0,
                });
                info.bytes += bad;
                non_text += bad;
                first_non_text.get_or_insert(bad_at);
                rest = &after[bad..];
            }
        }
    }
    // Control characters are rare: look for them byte by byte only in the 64-byte
    // blocks that have a byte below 0x20 other than tab, line feed or carriage return
    // (a branch-free test per block), or a DEL.
    for (k, block) in bytes.chunks(64).enumerate() {
        let suspicious = block.iter().fold(false, |any, &b| {
            any | ((b < 0x20) & !matches!(b, b'\t' | b'\n' | b'\r')) | (b == 0x7f)
        });
        if !suspicious {
            continue;
        }
        for (j, &b) in block.iter().enumerate() {
            if is_control(b) {
                let i = k * 64 + j;
                non_text += 1;
                if first_non_text.is_none_or(|first| i < first) {
                    first_non_text = Some(i);
                }
            }
        }
    }
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        let (line, column) = LineIndex::new(&text).line_col(to_u32(nul));
        return Err(LoadError {
            offset: nul,
            line,
            column,
            message: format!("binary file: NUL byte at line {line}, column {column}"),
        });
    }
    if non_text * 100 > bytes.len() * BINARY_SHARE_PERCENT
        && let Some(first) = first_non_text
    {
        let (line, column) = LineIndex::new(&text).line_col(to_u32(first));
        return Err(LoadError {
            offset: first,
            line,
            column,
            message: format!(
                "binary file: {non_text} of {} bytes are not text (the first at line {line}, column {column})",
                bytes.len()
            ),
        });
    }
    Ok(Decoded { text, invalid })
}

/// An ASCII control character that does not occur in text files.
fn is_control(b: u8) -> bool {
    (b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r')) || b == 0x7f
}

fn to_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_utf8_is_kept() {
        let d = decode("x = 'é'\n".as_bytes()).unwrap();
        assert_eq!(d.text, "x = 'é'\n");
        assert_eq!(d.invalid, None);
    }

    #[test]
    fn invalid_bytes_become_question_marks() {
        let d = decode(b"ab\xe9cd = 1\nx = \xff\xfe\ny = 2\n\xe2\x82").unwrap();
        assert_eq!(d.text, "ab?cd = 1\nx = ??\ny = 2\n??");
        assert_eq!(
            d.invalid,
            Some(InvalidUtf8 {
                first: 2,
                first_len: 1,
                bytes: 5
            })
        );
    }

    #[test]
    fn nul_is_binary() {
        let e = decode(b"ab\ncd\xc3\xa9e\0").unwrap_err();
        assert_eq!((e.offset, e.line, e.column), (8, 2, 5));
        assert_eq!(e.to_string(), "binary file: NUL byte at line 2, column 5");
    }

    #[test]
    fn mostly_control_bytes_is_binary() {
        let e = decode(b"ab\n\x01\x02\x03\x04\x05").unwrap_err();
        assert_eq!((e.offset, e.line, e.column), (3, 2, 1));
        assert_eq!(
            e.message,
            "binary file: 5 of 8 bytes are not text (the first at line 2, column 1)"
        );
        // A few stray bytes in text are not binary.
        assert!(decode(b"      X = 1\x1a\n      Y = '\xe9'\n").is_ok());
    }
}
