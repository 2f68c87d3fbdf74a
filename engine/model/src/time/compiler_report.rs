//! What the compiler's vectorizer says it did, read from its own report: gfortran's
//! `-fopt-info-vec-all` (GCC 10 and later), per source line of the compiled file.
//!
//! The report is a list of messages `FILE:LINE:COL: KIND: TEXT` (KIND `optimized`,
//! `missed` or `note`), some followed by lines that start with a blank and continue
//! them. What counts here, per line:
//! - `optimized: loop vectorized using 16 byte vectors`: the loop at that line was
//!   vectorized. A loop with an epilogue reports again with narrower vectors for the
//!   same line (`using 32 byte vectors`, then `using 16 byte vectors`): the widest is
//!   the main loop's;
//! - `optimized:  loop versioned for vectorization because of possible aliasing`: a
//!   scalar copy of the loop runs when its arrays overlap at run time;
//! - `missed: couldn't vectorize loop`: the loop at that line was not, and the next
//!   `missed` message (`not vectorized: control flow in loop.`, `statement clobbers
//!   memory: foo (_6);`, on any line, with its continuation lines) is why;
//! - `optimized: basic block part vectorized using 16 byte vectors`: straight-line
//!   code at that line was vectorized (SLP), whether or not a loop around it was.
//!
//! A line may carry messages of several copies of its loop (a procedure inlined at its
//! calls): it counts as vectorized when any copy was, and the first copy's reason is
//! kept otherwise. Notes are ignored.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

/// The longest reason kept, in characters (GCC prints whole GIMPLE statements).
const MAX_REASON: usize = 240;

/// What the compiler says about the loops and blocks that start on one source line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// A loop at this line was vectorized...
    pub vectorized: bool,
    /// ...with vectors of this many bytes, the widest it reported for the line (the
    /// main loop's; an epilogue takes narrower ones); `None` when the report did not
    /// say (compilers before GCC 10).
    pub vector_bytes: Option<u32>,
    /// A loop at this line was not vectorized: the compiler's reason, in its words.
    pub missed: Option<String>,
    /// The vectorized loop is versioned for possible aliasing.
    pub versioned: bool,
    /// Straight-line code at this line was vectorized (SLP) with vectors of this many
    /// bytes.
    pub slp_bytes: Option<u32>,
}

impl Line {
    /// Whether the compiler said what it did with a loop at this line.
    pub fn has_loop(&self) -> bool {
        self.vectorized || self.missed.is_some()
    }
}

/// The compiler's vectorization report of one file, by line (1-based).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    lines: BTreeMap<u32, Line>,
}

impl Report {
    /// The report in `text` (what `-fopt-info-vec-all` wrote) about the file the
    /// compiler was given as `file` (the path as on its command line; messages about
    /// other files, such as included ones, are left out).
    pub fn parse(text: &str, file: &str) -> Report {
        let mut lines: BTreeMap<u32, Line> = BTreeMap::new();
        // The line of a loop that is waiting for its reason, and the reason being read
        // (its continuation lines follow it).
        let mut awaiting: Option<u32> = None;
        let mut reading: Option<u32> = None;
        for raw in text.lines() {
            if raw.starts_with([' ', '\t']) {
                if let Some(at) = reading
                    && let Some(reason) = lines.get_mut(&at).and_then(|l| l.missed.as_mut())
                {
                    append(reason, raw.trim());
                }
                continue;
            }
            reading = None;
            let Some(m) = Message::parse(raw) else {
                continue;
            };
            let here = (m.file == file).then_some(m.line);
            match m.kind {
                "optimized" => {
                    awaiting = None;
                    let Some(at) = here else { continue };
                    let text = m.text.trim_start();
                    if let Some(rest) = text.strip_prefix("loop vectorized") {
                        let line = lines.entry(at).or_default();
                        line.vectorized = true;
                        line.vector_bytes = line.vector_bytes.max(vector_bytes(rest));
                    } else if text.starts_with("loop versioned for vectorization") {
                        lines.entry(at).or_default().versioned = true;
                    } else if let Some(rest) = text.strip_prefix("basic block part vectorized") {
                        let line = lines.entry(at).or_default();
                        line.slp_bytes = line.slp_bytes.max(vector_bytes(rest).or(Some(0)));
                    }
                }
                "missed" if m.text.starts_with("couldn't vectorize loop") => {
                    awaiting = None;
                    let Some(at) = here else { continue };
                    let line = lines.entry(at).or_default();
                    if line.missed.is_none() {
                        line.missed = Some(m.text.to_string());
                        awaiting = Some(at);
                    }
                }
                "missed" => {
                    if let Some(at) = awaiting.take()
                        && let Some(reason) = lines.get_mut(&at).and_then(|l| l.missed.as_mut())
                    {
                        *reason = String::new();
                        append(reason, m.text);
                        reading = Some(at);
                    }
                }
                // `note: vectorized 0 loops in function.` ends a function's messages.
                _ if m.text.starts_with("vectorized ") => awaiting = None,
                _ => {}
            }
        }
        Report { lines }
    }

    /// What the report says about `line`, if anything.
    pub fn line(&self, line: u32) -> Option<&Line> {
        self.lines.get(&line)
    }

    /// The first line of `lines` with a message about a loop, and what it says (a
    /// loop's header may span several lines).
    pub fn loop_at(&self, lines: RangeInclusive<u32>) -> Option<(u32, &Line)> {
        self.lines
            .range(lines)
            .find(|(_, l)| l.has_loop())
            .map(|(n, l)| (*n, l))
    }

    /// The first line of `lines` with straight-line code the compiler vectorized (SLP),
    /// and the bytes of its vectors (0 when the report did not say).
    pub fn slp_within(&self, lines: RangeInclusive<u32>) -> Option<(u32, u32)> {
        self.lines
            .range(lines)
            .find_map(|(n, l)| l.slp_bytes.map(|b| (*n, b)))
    }

    /// The lines the report speaks of, in order.
    pub fn lines(&self) -> impl Iterator<Item = (u32, &Line)> {
        self.lines.iter().map(|(n, l)| (*n, l))
    }
}

/// One message of the report.
struct Message<'a> {
    file: &'a str,
    line: u32,
    kind: &'a str,
    text: &'a str,
}

impl<'a> Message<'a> {
    /// `FILE:LINE:COL: KIND: TEXT` (the file name may itself hold colons).
    fn parse(raw: &'a str) -> Option<Message<'a>> {
        let (kind, at) = ["optimized", "missed", "note"]
            .iter()
            .filter_map(|k| raw.find(&format!(": {k}: ")).map(|at| (*k, at)))
            .min_by_key(|(_, at)| *at)?;
        let text = &raw[at + kind.len() + 4..];
        let mut place = raw[..at].rsplitn(3, ':');
        let _column: u32 = place.next()?.parse().ok()?;
        let line: u32 = place.next()?.parse().ok()?;
        let file = place.next()?;
        Some(Message {
            file,
            line,
            kind,
            text,
        })
    }
}

/// The `N` of `... using N byte vectors`.
fn vector_bytes(text: &str) -> Option<u32> {
    text.split_once("using ")?
        .1
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Appends `more` to `reason` (a space between), at most [`MAX_REASON`] characters.
fn append(reason: &mut String, more: &str) {
    if more.is_empty() || reason.chars().count() >= MAX_REASON {
        return;
    }
    if !reason.is_empty() {
        reason.push(' ');
    }
    reason.push_str(more);
    if reason.chars().count() > MAX_REASON {
        *reason = reason.chars().take(MAX_REASON - 1).collect();
        reason.push('…');
    }
}

/// The first error gfortran printed on `stderr` (`Fatal Error: Cannot open module file
/// 'm.mod' ...`), with the line it is at when it says (`line 4: ...`); the first
/// non-empty line when none reads as an error.
pub fn first_error(stderr: &str) -> String {
    let mut at: Option<&str> = None;
    for l in stderr.lines() {
        let t = l.trim();
        if t.starts_with("Error:") || t.starts_with("Fatal Error:") {
            return match at {
                Some(line) => format!("line {line}: {t}"),
                None => t.to_string(),
            };
        }
        // A location header `FILE:LINE:COL:` (the source excerpt and the message
        // follow).
        if !l.starts_with(' ')
            && let Some(head) = t.strip_suffix(':')
        {
            let mut place = head.rsplitn(3, ':');
            let column = place.next().filter(|c| c.parse::<u32>().is_ok());
            let line = place.next().filter(|c| c.parse::<u32>().is_ok());
            if column.is_some() && line.is_some() {
                at = line;
            }
        }
    }
    stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("the compiler failed without a message")
        .to_string()
}

#[cfg(test)]
mod tests {
    //! Reports gfortran 12.2 wrote on this project's machine (`testdata/gfortran-12`):
    //! `gfortran -O2` and `-O3 -c vectorize_loops.f90 -fopt-info-vec-all=FILE`
    //! (engine/db/tests/model/vectorize_loops.f90) and `-O3 -mavx2` of
    //! `versioned.f90`.

    use super::*;
    use expect_test::expect;

    const O2: &str = include_str!("../../testdata/gfortran-12/vectorize_loops-O2.txt");
    const O3: &str = include_str!("../../testdata/gfortran-12/vectorize_loops-O3.txt");
    const AVX2: &str = include_str!("../../testdata/gfortran-12/versioned-O3-mavx2.txt");
    const MISSING: &str = include_str!("../../testdata/gfortran-12/missing-module.stderr");

    /// The report's lines, one per line: vectorized (bytes), versioned, missed (why),
    /// SLP (bytes).
    fn render(r: &Report) -> String {
        let mut out = String::new();
        for (n, l) in r.lines() {
            let mut parts = Vec::new();
            if l.vectorized {
                parts.push(format!("vectorized {:?}", l.vector_bytes));
            }
            if l.versioned {
                parts.push("versioned".to_string());
            }
            if let Some(why) = &l.missed {
                parts.push(format!("missed: {why}"));
            }
            if let Some(b) = l.slp_bytes {
                parts.push(format!("slp {b}"));
            }
            out.push_str(&format!("{n}: {}\n", parts.join("; ")));
        }
        out
    }

    #[test]
    fn o2_reasons_follow_their_loops_with_their_continuations() {
        expect![[r#"
            4: missed: not vectorized: no vectype for stmt: _4 = (*b_12(D))[_3]; scalar_type: real(kind=8)
            11: missed: not vectorized: no vectype for stmt: _5 = (*a_15(D))[_4]; scalar_type: real(kind=8)
            18: missed: not vectorized: no vectype for stmt: _5 = (*a_15(D))[_4]; scalar_type: real(kind=8)
            25: missed: not vectorized: not suitable for strided load _7 = (*b_18(D))[_6];
            26: missed: not vectorized: no vectype for stmt: _7 = (*b_18(D))[_6]; scalar_type: real(kind=8)
            34: missed: not vectorized: no vectype for stmt: _5 = (*b_13(D))[_4]; scalar_type: real(kind=8)
            42: missed: not vectorized: no vectype for stmt: _5 = (*a_13(D))[_4]; scalar_type: real(kind=8)
            50: missed: not vectorized: unsupported data-type
            57: missed: not vectorized: control flow in loop.
            64: missed: not vectorized: no vectype for stmt: _4 = (*b_12(D))[_3]; scalar_type: real(kind=8)
            71: missed: not vectorized: no vectype for stmt: _12 = (*b_11(D))[_3]; scalar_type: real(kind=8)
            78: vectorized Some(16)
            85: missed: not vectorized: no vectype for stmt: _3 = (*b_8(D))[_2]; scalar_type: real(kind=8)
            92: missed: not vectorized: no vectype for stmt: _7 = (*b_13(D))[_6]; scalar_type: real(kind=8)
            99: missed: not vectorized: no vectype for stmt: _4 = (*b_10(D))[_3]; scalar_type: real(kind=4)
            106: missed: not vectorized: no vectype for stmt: _5 = (*a_14(D))[_4]; scalar_type: real(kind=8)
            113: vectorized Some(16)
            120: missed: not vectorized: no vectype for stmt: _4 = (*b_11(D))[_3]; scalar_type: real(kind=8)
            128: vectorized Some(16)
            136: vectorized Some(16)
            143: vectorized Some(16)
            150: vectorized Some(16)
            157: vectorized Some(16)
            164: missed: not vectorized: no vectype for stmt: _4 = (*b_10(D))[_3]; scalar_type: real(kind=8)
        "#]]
        .assert_eq(&render(&Report::parse(O2, "v.f90")));
    }

    #[test]
    fn o3_epilogues_keep_the_main_loops_width_and_slp_is_apart() {
        let r = Report::parse(O3, "v.f90");
        // real(4) at line 99: 16-byte main loop, 8-byte epilogue.
        assert_eq!(r.line(99).and_then(|l| l.vector_bytes), Some(16));
        // The strided loop at 120 is vectorized; its peeled tail at 121 is SLP.
        let (at, l) = r.loop_at(120..=120).unwrap();
        assert_eq!((at, l.vectorized), (120, true));
        assert_eq!(r.slp_within(120..=122), Some((121, 16)));
        assert!(!r.line(121).unwrap().has_loop());
        // The recurrence (line 11), the row walk (25, 26) and the conditional store
        // (57) stay scalar.
        let missed: Vec<u32> = r
            .lines()
            .filter(|(_, l)| l.missed.is_some() && !l.vectorized)
            .map(|(n, _)| n)
            .collect();
        assert_eq!(missed, [11, 25, 26, 57]);
        // Another file's messages are not this one's.
        assert_eq!(Report::parse(O3, "other.f90"), Report::default());
    }

    #[test]
    fn versioned_loops_wide_vectors_and_a_reason_that_is_not_not_vectorized() {
        expect![[r#"
            4: vectorized Some(32); versioned
            11: missed: statement clobbers memory: foo (_6);
            19: vectorized Some(32)
            25: vectorized Some(32)
        "#]]
        .assert_eq(&render(&Report::parse(AVX2, "w.f90")));
    }

    #[test]
    fn a_file_name_with_colons_and_a_report_without_widths() {
        let text = "/tmp/a:b/x.f90:7:3: optimized: loop vectorized\n\
                    /tmp/a:b/x.f90:9:3: missed: couldn't vectorize loop\n\
                    /tmp/a:b/x.f90:9:3: note: vectorized 1 loops in function.\n\
                    /tmp/a:b/x.f90:12:3: missed: not vectorized: unsupported use in stmt.\n";
        let r = Report::parse(text, "/tmp/a:b/x.f90");
        assert_eq!(
            r.line(7),
            Some(&Line {
                vectorized: true,
                ..Line::default()
            })
        );
        // The function ended before any reason: the message itself is the reason.
        assert_eq!(
            r.line(9).and_then(|l| l.missed.as_deref()),
            Some("couldn't vectorize loop")
        );
        assert_eq!(r.line(12), None);
    }

    #[test]
    fn the_first_error_says_its_line() {
        assert_eq!(
            first_error(MISSING),
            "line 4: Fatal Error: Cannot open module file 'missing_mod.mod' for reading at \
             (1): No such file or directory"
        );
        assert_eq!(
            first_error("gfortran: error: unrecognized command-line option '-fbad'\n"),
            "gfortran: error: unrecognized command-line option '-fbad'"
        );
    }
}
