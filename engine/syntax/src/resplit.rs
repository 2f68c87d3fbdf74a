//! A file's load and unit split after an edit, from the ones before it: what keeps an
//! edit's cost proportional to the edit, not to the file. Only the program units the
//! edit touches are split again; the others keep their chunks, moved by the edit's
//! change of length.
//!
//! It answers only where that is exactly what loading and splitting the whole new text
//! gives ([`SourceFile::with_defines`], [`split_units`]), and says `None` otherwise (the
//! caller then does the whole): a plain free-form file ([`SourceFile::is_plain`], by
//! its extension) without findings, edited in lines without a preprocessor `#`, an
//! INCLUDE, a form pragma, a carriage return or another control character, and whose
//! units around the edit split again cleanly (no finding, the units after the edit
//! starting at line starts in a clean state).

use crate::ir::UnitKind;
use crate::source::{SourceFile, free_by_extension};
use crate::span::Span;
use crate::units::{UnitChunk, split_units};

/// The load and split of `bytes`, the new text of the file loaded as `previous` and
/// split into `chunks` (without findings); `None` when only loading and splitting the
/// whole text answers exactly. `(p, s)`: the lengths of the common prefix and suffix
/// of the old text and `bytes` ([`crate::text_edit::common_ends`]), which whoever
/// made the change found already.
pub fn after_edit(
    previous: &SourceFile,
    chunks: &[UnitChunk],
    bytes: &[u8],
    (p, s): (usize, usize),
) -> Option<(SourceFile, Vec<UnitChunk>)> {
    if !free_by_extension(previous.path()) || !previous.is_plain() || chunks.is_empty() {
        return None;
    }
    let old = previous.original();
    if p + s > old.len().min(bytes.len()) {
        return None;
    }
    let (old_end, new_end) = (old.len() - s, bytes.len() - s);
    // The lines the edit touched, before and after it (whole lines: the edit may have
    // changed a byte inside a character). The new text is the old one's lines around
    // them and the new lines, decoded alone.
    let from = line_start(old.as_bytes(), p);
    let old_to = line_end(old.as_bytes(), old_end);
    let new_to = new_end + (old_to - old_end);
    let edited = std::str::from_utf8(&bytes[from..new_to]).ok()?;
    if !quiet(&old[from..old_to]) || !quiet(edited) {
        return None;
    }
    let mut text = String::with_capacity(bytes.len());
    text.push_str(&old[..from]);
    text.push_str(edited);
    text.push_str(&old[old_to..]);
    let new = text.as_str();
    if new.starts_with('\u{feff}') {
        return None;
    }
    // The top-level units: the region to split again runs from the start of the last
    // one starting at or before the edit (the file's start when none does) to the
    // start of the first one after it (the end of the file when none is). The chunks
    // are in order of their start, each host before the units it contains, so binary
    // searches find them: the edit of a file of thousands of units reads a few.
    let start_of = |i: usize| chunks[i].range.start as usize;
    let top_of = |mut i: usize| {
        while let Some(host) = chunks[i].parent {
            i = host;
        }
        i
    };
    let starting_by = |at: usize| chunks.partition_point(|c| c.range.start as usize <= at);
    let first = starting_by(p).checked_sub(1).map(top_of);
    let region_start = first.map_or(0, start_of);
    let beyond = starting_by(old_end);
    let next = chunks[beyond..]
        .iter()
        .position(|c| c.parent.is_none())
        .map(|k| beyond + k);
    let region_end = next.map_or(old.len(), start_of);
    let before = chunks.partition_point(|c| (c.range.start as usize) < region_start);
    let after = chunks.partition_point(|c| (c.range.start as usize) < region_end);
    // Units before the region must end before it, at a line start (top-level units do
    // not overlap and contain their units: the last one before the region decides).
    if !at_line_start(old, region_start)
        || !at_line_start(old, region_end)
        || before
            .checked_sub(1)
            .map(top_of)
            .is_some_and(|t| chunks[t].range.end as usize > region_start)
    {
        return None;
    }
    let delta = new.len() as i64 - old.len() as i64;
    let new_region_end = (region_end as i64 + delta) as usize;
    let region = &new[region_start..new_region_end];
    let (mut split, diagnostics) = split_units(region);
    if !diagnostics.is_empty() {
        return None;
    }
    // After the region's last unit, only blank and comment lines: the units after it
    // start in a clean state, as they did.
    if next.is_some() {
        let tail_from = split
            .iter()
            .filter(|c| c.parent.is_none())
            .map(|c| c.range.end as usize)
            .max()
            .unwrap_or(0);
        if !blank_or_comments(&region[tail_from.min(region.len())..]) || continued(region) {
            return None;
        }
    }
    // A main program without a PROGRAM statement starts where the unit before it
    // ended, outside the region or not: split the whole text.
    let implicit = |c: &UnitChunk| c.kind == UnitKind::Program && &*c.name == "main";
    if split.iter().any(implicit) || next.is_some_and(|k| implicit(&chunks[k])) {
        return None;
    }
    let mut out: Vec<UnitChunk> = Vec::with_capacity(chunks.len() + split.len());
    out.extend_from_slice(&chunks[..before]);
    for c in &mut split {
        moved(c, region_start as i64, before as i64);
    }
    let added = split.len() as i64 - (after - before) as i64;
    out.append(&mut split);
    out.extend(chunks[after..].iter().cloned().map(|mut c| {
        moved(&mut c, delta, added);
        c
    }));
    let source = previous.plain_edited(text, p, old_end, new_end);
    Some((source, out))
}

/// `chunk` moved by `by` bytes, its host's index by `index_by`.
fn moved(chunk: &mut UnitChunk, by: i64, index_by: i64) {
    let shift = |o: u32| (o as i64 + by) as u32;
    chunk.range = Span {
        start: shift(chunk.range.start),
        end: shift(chunk.range.end),
    };
    for n in &mut chunk.nested {
        *n = Span {
            start: shift(n.start),
            end: shift(n.end),
        };
    }
    if let Some(p) = &mut chunk.parent {
        *p = (*p as i64 + index_by) as usize;
    }
}

/// Whether edited lines leave loading as it was: no preprocessor `#`, no INCLUDE, no
/// form pragma (`costline:`), no control character but tab, vertical tab and form feed.
fn quiet(lines: &str) -> bool {
    let lower = lines.to_ascii_lowercase();
    !lower.contains('#')
        && !lower.contains("include")
        && !lower.contains("costline:")
        && lines
            .bytes()
            .all(|b| b >= 0x20 || matches!(b, b'\t' | b'\n' | 0x0b | 0x0c))
}

/// Whether `text` has only blank lines and comment lines.
fn blank_or_comments(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim_start();
        l.is_empty() || l.starts_with('!')
    })
}

/// Whether the last code line of `text` may continue onto the text after it (it holds
/// an `&`).
fn continued(text: &str) -> bool {
    text.lines()
        .rev()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with('!'))
        .is_some_and(|l| l.contains('&'))
}

fn at_line_start(text: &str, at: usize) -> bool {
    at == 0 || text.as_bytes().get(at - 1) == Some(&b'\n')
}

/// The start of the line holding byte `at` (a character boundary wherever `at` is).
fn line_start(text: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1)
}

/// The end of the line holding byte `at` (after its `\n`, or the end of the text).
fn line_end(text: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text_edit::common_ends;

    /// [`after_edit`] with the ends found here.
    fn resplit(
        previous: &SourceFile,
        chunks: &[UnitChunk],
        bytes: &[u8],
    ) -> Option<(SourceFile, Vec<UnitChunk>)> {
        let ends = common_ends(previous.original().as_bytes(), bytes);
        after_edit(previous, chunks, bytes, ends)
    }

    /// The load and split of the whole text, as the fast path must give them.
    fn whole(path: &str, text: &str) -> (SourceFile, Vec<UnitChunk>, bool) {
        let source = SourceFile::new(path, text.as_bytes(), None).unwrap();
        let (chunks, diagnostics) = split_units(source.normalized());
        (source, chunks, diagnostics.is_empty())
    }

    fn program(units: usize) -> String {
        let mut s = String::from("! a file of units\n");
        for k in 0..units {
            s += &format!(
                "subroutine s{k}(a, n)\n  integer :: n\n  real :: a(n)\n  a(1) = {k}.0\ncontains\n  \
                 subroutine inner{k}()\n  end subroutine inner{k}\nend subroutine s{k}\n\n! between\n"
            );
        }
        s += "module m\n  integer, parameter :: n = 4\nend module m\nprogram p\n  call s0(x, 1)\nend program p\n";
        s
    }

    /// A small deterministic generator (xorshift), so a failure repeats.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const SNIPPETS: &[&str] = &[
        "x",
        "\n",
        " ",
        "&",
        "&\n",
        "end",
        "end subroutine\n",
        "\nend subroutine s0\n",
        "subroutine q\n",
        "\nsubroutine q\nend\n",
        "contains\n",
        "function f()\nend function f\n",
        "! comment\n",
        "'",
        "\"",
        ";",
        "module z\nend module\n",
        "program r\n",
        "interface\n",
        "end interface\n",
        "do i = 1, n\n",
        "end do\n",
        "#define X\n",
        "include 'h.inc'\n",
        "!costline: fixed-form\n",
        "\r\n",
    ];

    #[test]
    fn the_fast_path_gives_what_loading_and_splitting_the_whole_text_gives() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut fast, mut both_clean) = (0, 0);
        for round in 0..3000 {
            let mut text = program(1 + round % 5);
            let (mut source, mut chunks, mut clean) = whole("t.f90", &text);
            // A run of edits, each from the state the one before left.
            for _ in 0..6 {
                let at = rng.below(text.len() + 1);
                let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap();
                let len = rng.below(12).min(text.len() - at);
                let len = (0..=len)
                    .rev()
                    .find(|&l| text.is_char_boundary(at + l))
                    .unwrap();
                let insert = if rng.below(3) == 0 {
                    ""
                } else {
                    SNIPPETS[rng.below(SNIPPETS.len())]
                };
                let mut edited = text.clone();
                edited.replace_range(at..at + len, insert);
                let expected = whole("t.f90", &edited);
                both_clean += usize::from(clean && expected.2);
                if clean && let Some((s, c)) = resplit(&source, &chunks, edited.as_bytes()) {
                    fast += 1;
                    assert!(
                        expected.2,
                        "the fast path answered where splitting finds problems:\n{edited}"
                    );
                    assert_eq!(s, expected.0, "source of\n{edited}");
                    assert_eq!(c, expected.1, "chunks of\n{edited}\nafter\n{text}");
                }
                text = edited;
                (source, chunks, clean) = expected;
            }
        }
        // Most edits that leave a clean file clean take the fast path.
        assert!(fast * 2 > both_clean, "{fast} fast edits of {both_clean}");
    }

    #[test]
    fn a_character_changed_in_its_last_byte_is_a_whole_line_edit() {
        // 'é' (C3 A9) to 'è' (C3 A8): the texts differ from inside a character on.
        let text = program(2).replacen("! between", "! entre é", 1);
        let (source, chunks, _) = whole("t.f90", &text);
        let edited = text.replacen('é', "è", 1);
        let expected = whole("t.f90", &edited);
        let (s, c) = resplit(&source, &chunks, edited.as_bytes()).expect("a plain edit");
        assert_eq!((s, c), (expected.0, expected.1));
        // Bytes that are not UTF-8 any more: the whole load says so.
        let mut broken = text.clone().into_bytes();
        let at = text.find('é').unwrap() + 1;
        broken[at] = b'x';
        assert!(resplit(&source, &chunks, &broken).is_none());
    }

    #[test]
    fn files_it_does_not_answer_for() {
        let text = program(2);
        let (source, chunks, _) = whole("t.f90", &text);
        let edit = |from: &str, to: &str| text.replacen(from, to, 1);
        // A preprocessor line, an INCLUDE line, a form pragma.
        for (from, to) in [
            ("! between", "#define A"),
            ("! between", "include 'x.h'"),
            ("! between", "!costline: fixed-form"),
        ] {
            assert!(resplit(&source, &chunks, edit(from, to).as_bytes()).is_none());
        }
        // An END deleted: the split finds an unclosed unit.
        assert!(resplit(&source, &chunks, edit("end subroutine s0\n", "").as_bytes()).is_none());
        // Fixed form by extension, or sniffed.
        let (fixed, fixed_chunks, _) = whole("t.hpf", &text);
        assert!(resplit(&fixed, &fixed_chunks, edit("a(1)", "a(2)").as_bytes()).is_none());
        // A plain edit inside a procedure does answer.
        assert!(
            resplit(
                &source,
                &chunks,
                edit("a(1) = 1.0", "a(1) = 2.0").as_bytes()
            )
            .is_some()
        );
    }
}
