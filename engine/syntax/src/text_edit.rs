//! Where an edit changed a text: the common prefix and suffix of its two versions, and
//! the whole lines around the change. What keeps the work after an edit of a large
//! file to the lines it touched (`crate::resplit`, the host's INCLUDE search).

/// The lengths of the longest common prefix and suffix of `a` and `b` (not
/// overlapping in either), compared in blocks of 4 KiB, then 64 bytes, then bytes: a
/// few hundred comparisons for a file of megabytes.
pub fn common_ends(a: &[u8], b: &[u8]) -> (usize, usize) {
    let n = a.len().min(b.len());
    let mut p = 0;
    for block in [4096, 64, 1] {
        while p + block <= n && a[p..p + block] == b[p..p + block] {
            p += block;
        }
    }
    let room = n - p;
    let (a_end, b_end) = (a.len(), b.len());
    let mut s = 0;
    for block in [4096, 64, 1] {
        while s + block <= room
            && a[a_end - s - block..a_end - s] == b[b_end - s - block..b_end - s]
        {
            s += block;
        }
    }
    (p, s)
}

/// The lines of `old` and of `new` that differ: from the start of the line holding the
/// first changed byte to the end (after the `\n`) of the line holding the last one, in
/// each; `None` when the texts are equal. `(p, s)`: the texts' [`common_ends`].
pub fn lines_between<'a, 'b>(
    old: &'a [u8],
    new: &'b [u8],
    (p, s): (usize, usize),
) -> Option<(&'a [u8], &'b [u8])> {
    if p == old.len() && p == new.len() {
        return None;
    }
    let from = old[..p]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let to = |text: &[u8], at: usize| {
        text[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| at + i + 1)
    };
    Some((
        &old[from..to(old, old.len() - s)],
        &new[from..to(new, new.len() - s)],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn changed_lines<'a, 'b>(old: &'a [u8], new: &'b [u8]) -> Option<(&'a [u8], &'b [u8])> {
        lines_between(old, new, common_ends(old, new))
    }

    /// The common ends, one byte at a time.
    fn by_bytes(a: &[u8], b: &[u8]) -> (usize, usize) {
        let n = a.len().min(b.len());
        let p = (0..n).take_while(|&i| a[i] == b[i]).count();
        let s = (0..n - p)
            .take_while(|&i| a[a.len() - 1 - i] == b[b.len() - 1 - i])
            .count();
        (p, s)
    }

    proptest! {
        #[test]
        fn blocks_find_the_ends_bytes_find(
            base in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'\n'), Just(b'x')], 0..9000),
            at in 0usize..9000,
            cut in 0usize..40,
            put in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'y')], 0..40),
        ) {
            let at = at.min(base.len());
            let cut = cut.min(base.len() - at);
            let mut edited = base[..at].to_vec();
            edited.extend(&put);
            edited.extend(&base[at + cut..]);
            prop_assert_eq!(common_ends(&base, &edited), by_bytes(&base, &edited));
        }
    }

    #[test]
    fn changed_lines_are_whole_lines_in_both_versions() {
        let old = b"one\ntwo three\nfour\n";
        let new = b"one\ntwo 3 three\nfour\n";
        assert_eq!(
            changed_lines(old, new),
            Some((&b"two three\n"[..], &b"two 3 three\n"[..]))
        );
        assert_eq!(changed_lines(old, old), None);
        // A line joined with the next: both lines in the old version.
        assert_eq!(
            changed_lines(b"a\nb\n", b"ab\n"),
            Some((&b"a\nb\n"[..], &b"ab\n"[..]))
        );
    }
}
