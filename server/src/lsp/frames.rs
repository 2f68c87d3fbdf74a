//! LSP framing (`Content-Length: N\r\n` [other headers] `\r\n` body), tolerant of
//! damage: bytes that are not a frame are reported once and skipped, and reading
//! goes on from the next `Content-Length:` header.
//!
//! - A header line that is not `Name: value`, a `Content-Length` that is not a
//!   number, or a header block without one: reported; the next `Content-Length:`
//!   found afterwards starts the next frame.
//! - A length over [`MAX_BODY`]: reported, and that many bytes are skipped without
//!   being held (up to a header line, as below: the length may be a typo).
//! - A body cut short (its length counts bytes of the next frame): a complete
//!   `Content-Length: N\r\n` line inside it cannot be JSON (JSON strings hold no raw
//!   line ends, and outside strings the name would be quoted), so the body ends
//!   there, is reported, and the next frame is read from that line, without waiting
//!   for bytes that would never come.

/// The largest body accepted (64 MiB: far beyond any document; a larger length is
/// taken for damage, so that it cannot make the server hold that much).
pub const MAX_BODY: usize = 64 << 20;

/// How many bytes may precede the blank line that ends a header block.
const MAX_HEADERS: usize = 16 << 10;

/// The header that starts a frame, matched without regard to case.
const LENGTH: &[u8] = b"content-length:";

/// How far back an incremental search must look again: a complete
/// `Content-Length: N\r\n` line is shorter than this.
const OVERLAP: usize = 64;

/// What [`Splitter::next`] found.
#[derive(Debug, PartialEq)]
pub enum Split {
    /// The body of a frame.
    Body(Vec<u8>),
    /// Bytes that are not a frame, and what was wrong with them.
    Damaged(String),
}

/// Where the splitter is in the stream.
#[derive(Debug)]
enum State {
    /// In a header block, searched for its end up to `scanned`.
    Headers { scanned: usize },
    /// Inside a body of `len` bytes, searched for a header up to `scanned`.
    Body { len: usize, scanned: usize },
    /// Skipping this many bytes of a body too large to hold.
    Skip(usize),
    /// After damage: looking for the next `Content-Length:`.
    Resync,
}

/// Splits a byte stream, pushed in pieces, into frames.
#[derive(Debug)]
pub struct Splitter {
    /// Bytes pushed and not split off yet.
    buf: Vec<u8>,
    state: State,
}

impl Default for Splitter {
    fn default() -> Splitter {
        Splitter {
            buf: Vec::new(),
            state: State::HEADERS,
        }
    }
}

impl State {
    /// At the start of a header block.
    const HEADERS: State = State::Headers { scanned: 0 };
}

/// What one step of the splitter did.
enum Step {
    /// More bytes are needed.
    Wait,
    /// The state changed: step again.
    Go,
    /// A frame or damage.
    Out(Split),
}

impl Splitter {
    /// Appends bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next frame or piece of damage; `None` when more bytes are needed.
    pub fn next(&mut self) -> Option<Split> {
        loop {
            let step = match self.state {
                State::Headers { scanned } => self.headers(scanned),
                State::Body { len, scanned } => self.body(len, scanned),
                State::Skip(left) => self.skip(left),
                State::Resync => self.resync(),
            };
            match step {
                Step::Wait => return None,
                Step::Go => {}
                Step::Out(split) => return Some(split),
            }
        }
    }

    /// Reads a header block, searched for its end up to `scanned`.
    fn headers(&mut self, scanned: usize) -> Step {
        // Line ends between frames are harmless.
        let blank = self
            .buf
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        self.consume(blank);
        let window = &self.buf[..self.buf.len().min(MAX_HEADERS + 4)];
        let from = scanned.saturating_sub(3);
        let Some(end) = find(&window[from..], b"\r\n\r\n").map(|at| from + at) else {
            if window.len() < MAX_HEADERS + 4 {
                self.state = State::Headers {
                    scanned: window.len(),
                };
                return Step::Wait;
            }
            return self.damaged(format!("no end of the headers within {MAX_HEADERS} bytes"));
        };
        match content_length(&self.buf[..end]) {
            Ok(len) if len > MAX_BODY => {
                self.consume(end + 4);
                self.state = State::Skip(len);
                Step::Out(Split::Damaged(format!(
                    "a body of {len} bytes (more than {MAX_BODY}): skipped"
                )))
            }
            Ok(len) => {
                self.consume(end + 4);
                self.state = State::Body { len, scanned: 0 };
                Step::Go
            }
            Err(why) => self.damaged(why),
        }
    }

    /// Damage at the start of the buffer: the search for the next `Content-Length:`
    /// starts one byte on (the header at hand may be glued to garbage).
    fn damaged(&mut self, why: String) -> Step {
        self.consume(1);
        self.state = State::Resync;
        Step::Out(Split::Damaged(why))
    }

    /// Reads a body of `len` bytes, searched for a header up to `scanned`.
    fn body(&mut self, len: usize, scanned: usize) -> Step {
        if let Some(at) = find_header_line(&self.buf, scanned.saturating_sub(OVERLAP), len) {
            let why = format!(
                "a body cut short after {at} of its {len} bytes by the next header:{}",
                excerpt(&self.buf[..at])
            );
            self.consume(at);
            self.state = State::HEADERS;
            return Step::Out(Split::Damaged(why));
        }
        if self.buf.len() < len {
            self.state = State::Body {
                len,
                scanned: self.buf.len(),
            };
            return Step::Wait;
        }
        let body = self.buf.drain(..len).collect();
        self.state = State::HEADERS;
        Step::Out(Split::Body(body))
    }

    /// Drops up to `left` bytes of a body too large to hold, or up to a header line
    /// among them.
    fn skip(&mut self, left: usize) -> Step {
        if let Some(at) = find_header_line(&self.buf, 0, left) {
            self.consume(at);
            self.state = State::HEADERS;
            return Step::Go;
        }
        if left <= self.buf.len() {
            self.consume(left);
            self.state = State::HEADERS;
            return Step::Go;
        }
        // Keep what could be the start of a header line cut by the read.
        let n = self.buf.len().saturating_sub(OVERLAP);
        self.consume(n);
        self.state = State::Skip(left - n);
        Step::Wait
    }

    /// Drops bytes up to the next `Content-Length:`.
    fn resync(&mut self) -> Step {
        match find_length(&self.buf, 0) {
            Some(at) => {
                self.consume(at);
                self.state = State::HEADERS;
                Step::Go
            }
            None => {
                // Keep what could be the start of a header cut by the read.
                self.consume(self.buf.len().saturating_sub(LENGTH.len() - 1));
                Step::Wait
            }
        }
    }

    /// Drops the first `n` bytes.
    fn consume(&mut self, n: usize) {
        self.buf.drain(..n);
    }
}

/// The `Content-Length` of a header block (without its final blank line), or what is
/// wrong with the block.
fn content_length(block: &[u8]) -> Result<usize, String> {
    let mut length = None;
    for line in block.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // No colon leaves the name empty.
        let colon = line.iter().position(|&b| b == b':').unwrap_or(0);
        let (name, value) = (&line[..colon], line.get(colon + 1..).unwrap_or_default());
        if name.is_empty() || !name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-') {
            return Err(format!("not a header:{}", excerpt(line)));
        }
        if name.eq_ignore_ascii_case(b"content-length") {
            let n = std::str::from_utf8(value)
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok());
            match n {
                Some(n) => length = Some(n),
                None => {
                    return Err(format!("Content-Length is not a number:{}", excerpt(value)));
                }
            }
        }
    }
    length.ok_or_else(|| "no Content-Length header".to_string())
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Where a `Content-Length:` (in any case) first starts at or after `from`.
fn find_length(hay: &[u8], from: usize) -> Option<usize> {
    let last = hay.len().checked_sub(LENGTH.len())?;
    (from..=last).find(|&i| {
        hay[i].eq_ignore_ascii_case(&LENGTH[0])
            && hay[i..i + LENGTH.len()].eq_ignore_ascii_case(LENGTH)
    })
}

/// Where a complete `Content-Length: N\r\n` line starts, at or after `from` and
/// before `before`.
fn find_header_line(hay: &[u8], from: usize, before: usize) -> Option<usize> {
    let mut from = from;
    while let Some(at) = find_length(hay, from) {
        if at >= before {
            return None;
        }
        let rest = &hay[at + LENGTH.len()..];
        let spaces = rest.iter().take_while(|&&b| b == b' ').count();
        let digits = rest[spaces..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        // Short enough to be found again by a search that starts OVERLAP bytes back.
        let short = spaces <= 8 && (1..=20).contains(&digits);
        if short && rest[spaces + digits..].starts_with(b"\r\n") {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The start of `bytes`, quoted, for a message.
fn excerpt(bytes: &[u8]) -> String {
    const SHOWN: usize = 60;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]);
    let more = if bytes.len() > SHOWN { "…" } else { "" };
    format!(" {text:?}{more}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// Everything `input` splits into, pushed `chunk` bytes at a time.
    fn split(input: &[u8], chunk: usize) -> Vec<Split> {
        let mut s = Splitter::default();
        let mut out = Vec::new();
        for piece in input.chunks(chunk) {
            s.push(piece);
            while let Some(split) = s.next() {
                out.push(split);
            }
        }
        out
    }

    fn body(text: &str) -> Split {
        Split::Body(text.as_bytes().to_vec())
    }

    fn damaged(splits: &[Split]) -> usize {
        splits
            .iter()
            .filter(|s| matches!(s, Split::Damaged(_)))
            .count()
    }

    #[test]
    fn frames_split_whole_or_byte_by_byte() {
        let input = format!(
            "{}Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n{}\r\n{}",
            frame("{\"a\":1}"),
            frame("{\"b\":[2]}"),
            frame("{}")
        );
        for chunk in [1, 3, input.len()] {
            assert_eq!(
                split(input.as_bytes(), chunk),
                vec![body("{\"a\":1}"), body("{\"b\":[2]}"), body("{}")],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn bad_headers_are_reported_once_and_the_next_frame_is_found() {
        for bad in [
            "Content-Length: abc\r\n\r\n{\"x\":1}".to_string(),
            "Content-Type: text/plain\r\n\r\n{\"x\":1}".to_string(),
            "garbage line\r\n".to_string(),
            "}{ no newline at all ".to_string(),
            "x".repeat(MAX_HEADERS + 10),
        ] {
            let input = format!("{bad}{}", frame("{\"ok\":true}"));
            for chunk in [1, 7, input.len()] {
                let splits = split(input.as_bytes(), chunk);
                assert_eq!(damaged(&splits), 1, "{bad:?} chunk {chunk}: {splits:?}");
                assert_eq!(splits.last(), Some(&body("{\"ok\":true}")), "{bad:?}");
            }
        }
    }

    #[test]
    fn a_body_cut_short_ends_at_the_next_header() {
        let input = format!(
            "Content-Length: 500\r\n\r\n{{\"short\":1}}{}",
            frame("{\"next\":2}")
        );
        for chunk in [1, input.len()] {
            let splits = split(input.as_bytes(), chunk);
            assert_eq!(damaged(&splits), 1, "{splits:?}");
            assert_eq!(splits.last(), Some(&body("{\"next\":2}")));
        }
        // The header's text inside a JSON string is not a header.
        let quoted = "{\"text\":\"Content-Length: 12\\r\\n\"}";
        assert_eq!(split(frame(quoted).as_bytes(), 1), vec![body(quoted)]);
    }

    #[test]
    fn a_huge_length_is_damage_and_its_body_is_skipped_not_held() {
        let len = MAX_BODY + 1;
        let mut s = Splitter::default();
        s.push(format!("Content-Length: {len}\r\n\r\n").as_bytes());
        assert!(matches!(s.next(), Some(Split::Damaged(_))));
        let block = vec![b'x'; 1 << 20];
        for _ in 0..64 {
            s.push(&block);
            assert_eq!(s.next(), None);
            assert!(s.buf.len() <= OVERLAP);
        }
        s.push(b"x");
        s.push(frame("{}").as_bytes());
        assert_eq!(s.next(), Some(body("{}")));
    }

    #[test]
    fn a_huge_length_followed_by_frames_was_a_typo() {
        let input = format!(
            "Content-Length: 99999999999\r\n\r\n{{\"short\":1}}{}",
            frame("{\"next\":2}")
        );
        for chunk in [1, 5, input.len()] {
            let splits = split(input.as_bytes(), chunk);
            assert_eq!(damaged(&splits), 1, "{splits:?}");
            assert_eq!(splits.last(), Some(&body("{\"next\":2}")), "chunk {chunk}");
        }
    }
}
