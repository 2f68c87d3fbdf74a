//! What each finding code means: a title and a paragraph of help for every code a
//! finding may carry (`imbalance`, `syntax`, ...), for the front ends that describe
//! them apart from the findings' own messages (SARIF's rules, `--fail-on`'s check of
//! its argument). A test reads the engine's sources and checks that every code a
//! finding is made with is described here.

/// A finding code and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    /// The stable kebab-case code findings carry.
    pub code: &'static str,
    /// One line: what the finding is about.
    pub title: &'static str,
    /// What it means for the figures and what to do about it.
    pub help: &'static str,
}

/// Every finding code, sorted by code.
pub const CODES: &[Code] = &[
    Code {
        code: "binary",
        title: "The file is not source text",
        help: "The file holds a NUL byte or mostly bytes that are not text, so it is not \
               analyzed. Leave it out of the files given, or check that it is the source \
               you meant.",
    },
    Code {
        code: "binding",
        title: "A binding overrides a PARAMETER",
        help: "A `--param NAME=VALUE` (or `params` setting) replaces the value the program \
               gives a named constant: a what-if. The constants derived from it follow.",
    },
    Code {
        code: "call-binding",
        title: "A procedure is called with several bindings of its dummies",
        help: "The procedure is analysed as called from its most frequent call site; the \
               other bindings of its dummy arguments are analysed as variants up to a \
               limit, and the rest take the first one's figures.",
    },
    Code {
        code: "call-remap",
        title: "A call remaps an actual argument",
        help: "The dummy argument's prescriptive mapping differs from the actual's, so the \
               array is redistributed on entry to the procedure (and back on return unless \
               it is INTENT(IN)); the messages are counted at the CALL. Align the mappings \
               to avoid the exchange.",
    },
    Code {
        code: "common-mapping",
        title: "Units map a COMMON member differently",
        help: "Two program units give the same member of a COMMON block different HPF \
               mappings; each unit is analysed with its own. HPF requires them to agree.",
    },
    Code {
        code: "communication-in-loop",
        title: "Communication inside a loop",
        help: "The fetch of remote data cannot be hoisted out of an enclosing loop (a \
               dependence carried by the loop), so its messages are sent on every iteration. \
               The finding is weighed by its share of the unit's predicted time. A \
               different distribution (see the code actions on the directive) or a loop \
               restructuring may let it move out.",
    },
    Code {
        code: "descriptive-mismatch",
        title: "A descriptive mapping does not hold",
        help: "A dummy argument's descriptive mapping (`DISTRIBUTE *(...)`) asserts the \
               actual's mapping, and the actual passed here is mapped otherwise. HPF makes \
               this an error; costline counts the remapping a compiler would do.",
    },
    Code {
        code: "duplicate-module",
        title: "A module is defined twice",
        help: "Two files (or one file twice) define a module of the same name; USE \
               statements take the first one. Leave one of them out of the files analyzed \
               together.",
    },
    Code {
        code: "empty",
        title: "No program unit in the file",
        help: "The file holds no program, procedure or module (it may be empty, or all \
               comments); nothing in it is analyzed.",
    },
    Code {
        code: "encoding",
        title: "Invalid UTF-8",
        help: "Bytes that are not UTF-8 are read as `?`; positions are kept. Save the file \
               as UTF-8 (or ASCII) for exact text in messages.",
    },
    Code {
        code: "fine-grained-communication",
        title: "Element-wise communication",
        help: "A remote reference is fetched one element at a time inside every enclosing \
               loop: the messages are many and small, each paying the network latency. \
               Distribute the arrays so that the reference is local, or restructure the \
               loop so that the fetch can be vectorized.",
    },
    Code {
        code: "fixed-form",
        title: "Text beyond the fixed-form line length",
        help: "Fixed form ignores the text after column 72 (or the line length in force), \
               as compilers do. If the code is written past it, set `--fixed-line-length \
               132` (`fixedLineLength`) or a `!costline: fixed-form 132` pragma.",
    },
    Code {
        code: "hpf-independent",
        title: "INDEPENDENT applies to nothing",
        help: "An INDEPENDENT directive must precede the DO or FORALL it asserts; none \
               follows it here, so it is ignored.",
    },
    Code {
        code: "hpf-local",
        title: "An EXTRINSIC(HPF_LOCAL) call",
        help: "A note on how a call of a local procedure is analysed: each processor runs \
               it on its own part of the actuals, and the call costs the busiest \
               processor's time.",
    },
    Code {
        code: "hpf-remap",
        title: "An invalid REDISTRIBUTE or REALIGN",
        help: "A remapping breaks a rule of HPF (for instance an array that is not DYNAMIC, \
               or an alignee realigned); it is not applied.",
    },
    Code {
        code: "hpf-syntax",
        title: "Malformed HPF directive",
        help: "An `!HPF$` directive does not follow the HPF 2.0 grammar; it is left out of \
               the analysis. The message says what was expected.",
    },
    Code {
        code: "hpf-unknown-directive",
        title: "Unknown HPF directive",
        help: "The word after `!HPF$` names no HPF directive; the line is ignored. Check \
               the spelling (the message suggests the closest directive).",
    },
    Code {
        code: "hpf-unmodelled",
        title: "HPF directive not modelled",
        help: "The directive is valid HPF but costline does not model it (ON, SHADOW, ...); \
               the estimates do not take it into account.",
    },
    Code {
        code: "imbalance",
        title: "Work spread unevenly over the processors",
        help: "Under owner computes the processors execute different numbers of this \
               assignment: its work distribution (wd, the standard deviation over the mean \
               of the work per processor) is above the threshold (`--imbalance-threshold`, \
               `imbalanceThreshold`, default 0.25), and the statement is a large enough \
               share of its unit's predicted time (`--finding-share`). The same warning \
               sits on the DISTRIBUTE or ALIGN behind it, whose code actions offer faster \
               distributions.",
    },
    Code {
        code: "include",
        title: "An INCLUDE that cannot be followed",
        help: "The included file was not found, cannot be read, is not text, lies outside \
               the workspace, or the includes nest too deeply or form a cycle. Its \
               declarations and directives are missing from the analysis: add its \
               directory with `--include DIR` or `include` in costline.toml.",
    },
    Code {
        code: "io",
        title: "The file cannot be read",
        help: "The file does not exist, is not a regular file, or cannot be opened; it is \
               not analyzed and `check` exits with status 1.",
    },
    Code {
        code: "mapping",
        title: "A note or warning on a data mapping",
        help: "How a PROCESSORS, TEMPLATE, DISTRIBUTE or ALIGN directive was read: a \
               mapping given twice, a size that cannot be evaluated, a default taken. The \
               message says what was assumed.",
    },
    Code {
        code: "no-closed-form",
        title: "A count without a closed form",
        help: "The symbolic sum gave up on this statement's execution count (too many \
               cases); the number is counted for the current bindings instead, and the \
               hover shows no formula.",
    },
    Code {
        code: "nonconformable",
        title: "Array expressions of different shapes",
        help: "The arrays of an array assignment do not conform (different ranks or \
               extents); the statement is analyzed as one assignment, not as a loop nest.",
    },
    Code {
        code: "not-an-array",
        title: "A scalar in a mapping directive",
        help: "Only arrays and templates can be distributed or aligned; the directive's \
               entry is ignored.",
    },
    Code {
        code: "not-modelled",
        title: "Something the figures leave out",
        help: "A quantity costline does not model (an irregular gather, a remapping whose \
               size is unknown, ...) is left out, and the figures that would include it \
               are marked incomplete (`complete: false`, a time that is a lower bound).",
    },
    Code {
        code: "on-home",
        title: "ON HOME read as owner computes",
        help: "An ON HOME directive is read as owner computes: each assignment runs on \
               the owner of the element it assigns.",
    },
    Code {
        code: "poor-locality",
        title: "An innermost loop strides through memory",
        help: "The innermost loop varies a slow (non-contiguous) dimension of an array, so \
               each iteration touches a different cache line. Its quick fix interchanges \
               the loops when a dependence test allows it.",
    },
    Code {
        code: "pragma",
        title: "A costline pragma that does not apply",
        help: "A `!costline:` pragma (probability, trips, fixed-form) is malformed or has \
               nothing to apply to on its line or the next; it is ignored.",
    },
    Code {
        code: "preprocessor",
        title: "C preprocessor lines",
        help: "Preprocessor conditionals are evaluated as cpp does, with the macros defined \
               by `--define NAME[=VALUE]` (`defines` in costline.toml and the editor \
               settings) and by the file's own `#define` and `#undef` lines; an undefined \
               macro is 0. The lines of the branches not taken are not analyzed; macros \
               in Fortran lines are not expanded. A group left open, a stray \
               `#else`/`#endif` or a condition that cannot be evaluated is a warning.",
    },
    Code {
        code: "processors-invalid",
        title: "An invalid processor arrangement",
        help: "A PROCESSORS arrangement has a dimension of fewer than one processor: no \
               work is spread over it and its communication is not modelled.",
    },
    Code {
        code: "processors-too-many",
        title: "A processor arrangement too large to model",
        help: "The arrangement has more processors than costline counts one by one: \
               beyond that limit, its work and communication are not modelled (left out of \
               every figure).",
    },
    Code {
        code: "processors-unknown",
        title: "A processor count without a value",
        help: "The size of a PROCESSORS arrangement (or NUMBER_OF_PROCESSORS(), which is \
               `p`) has no value, so no work is spread over it: bind it with `--param \
               p=16` (`params`).",
    },
    Code {
        code: "rank-mismatch",
        title: "A directive's rank does not match",
        help: "A DISTRIBUTE or ALIGN gives a number of dimensions that differs from the \
               array's, template's or arrangement's rank; the directive is ignored.",
    },
    Code {
        code: "recursion",
        title: "A recursive call",
        help: "The call closes a cycle of the call graph: it is counted one level deep \
               (the call adds the callee's own costs once per call, not its further \
               calls), and the procedures of the cycle count their runs per call.",
    },
    Code {
        code: "remap-in-branch",
        title: "Branches leave different mappings",
        help: "The branches of an IF or SELECT leave an array mapped differently; the \
               statements after it are analysed with the mapping the message names.",
    },
    Code {
        code: "remap-in-loop",
        title: "A loop changes a mapping",
        help: "A REDISTRIBUTE or REALIGN inside a loop changes the mapping from one \
               iteration to the next; the iterations are analysed with the mapping the \
               message names.",
    },
    Code {
        code: "stale-profile",
        title: "A profile of another version of the unit",
        help: "The profile given with `--profile` measured this unit when its text (its \
               included files too) was different: its measured branch probabilities, \
               trip counts and values are not applied, and its counts are assumed again. \
               Run \
               `costline profile` again.",
    },
    Code {
        code: "statement-function",
        title: "A statement function",
        help: "A statement function's definition executes nothing by itself and is not \
               analyzed; what it computes where it is used is not priced.",
    },
    Code {
        code: "syntax",
        title: "A statement costline cannot parse",
        help: "The statement (or construct) is left out of the analysis and the rest of the \
               unit is still analyzed; figures that would include it are incomplete. A \
               unit with such statements is reported with `unread-statements`.",
    },
    Code {
        code: "too-complex",
        title: "Nesting too deep to analyze",
        help: "Expressions nested deeper than 200 levels or constructs deeper than 32 are \
               left out of the analysis, with their statements.",
    },
    Code {
        code: "unknown-array",
        title: "A directive names no array",
        help: "A DISTRIBUTE or ALIGN names something that is not a declared array or \
               template in scope; that entry is ignored.",
    },
    Code {
        code: "unknown-processors",
        title: "ONTO an undeclared arrangement",
        help: "The DISTRIBUTE names a processor arrangement no PROCESSORS directive \
               declares; the distribution is ignored.",
    },
    Code {
        code: "unknown-trips",
        title: "An assumed trip count",
        help: "The loop's trip count cannot be derived (DO WHILE, bounds read from data): \
               it is assumed (100 trips, or `!costline: trips N` on the DO) and the counts \
               inside it are estimates (`×~`).",
    },
    Code {
        code: "unread-statements",
        title: "A unit with statements left out",
        help: "Some of the unit's statements could not be parsed (see the `syntax` \
               findings); its figures leave them out.",
    },
    Code {
        code: "unresolved-module",
        title: "A USEd module not found",
        help: "No file analyzed together defines the module; its constants, declarations \
               and mappings are missing. Give the file that defines it too.",
    },
    Code {
        code: "unsupported",
        title: "A construct analyzed in part",
        help: "A construct costline reads only in part (a computed GO TO's branches, DO \
               CONCURRENT with several indices or a mask): the message says what is \
               modelled.",
    },
    Code {
        code: "use-cycle",
        title: "Modules that USE each other",
        help: "Modules form a cycle of USE statements, which Fortran forbids; the cycle's \
               declarations are not followed.",
    },
];

/// What `code` means, when it is a finding code.
pub fn describe(code: &str) -> Option<&'static Code> {
    CODES
        .binary_search_by(|c| c.code.cmp(code))
        .ok()
        .map(|i| &CODES[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::Path;

    /// The top-level arguments of the call whose argument list starts at `text[at..]`
    /// (after its opening parenthesis), as written.
    fn arguments(text: &str, at: usize) -> Vec<&str> {
        let bytes = text.as_bytes();
        let (mut depth, mut start, mut out) = (0usize, at, Vec::new());
        let mut i = at;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                }
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' if depth == 0 => {
                    out.push(text[start..i].trim());
                    return out;
                }
                b')' | b']' | b'}' => depth -= 1,
                b',' if depth == 0 => {
                    out.push(text[start..i].trim());
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        out
    }

    /// Every code the engine's sources make a finding with: the code argument of
    /// `Diagnostic::{error, warning, info, new}` and of `FileReport::failed`, a
    /// literal or a `CODE_*` constant.
    fn codes_in_sources() -> BTreeSet<String> {
        let engine = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let root = engine.parent().unwrap();
        let mut files = Vec::new();
        let mut dirs = vec![engine.to_path_buf(), root.join("server/src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(std::fs::read_to_string(&path).unwrap());
                }
            }
        }
        let mut constants = std::collections::BTreeMap::new();
        for text in &files {
            for line in text.lines() {
                if let Some(rest) = line.trim().strip_prefix("pub const CODE_")
                    && let Some((name, value)) = rest.split_once(": &str = ")
                {
                    constants.insert(
                        format!("CODE_{name}"),
                        value.trim_end_matches(';').trim_matches('"').to_string(),
                    );
                }
            }
        }
        let mut out = BTreeSet::new();
        let calls = [
            ("Diagnostic::error(", 1),
            ("Diagnostic::warning(", 1),
            ("Diagnostic::info(", 1),
            ("Diagnostic::new(", 2),
            ("FileReport::failed(", 3),
        ];
        for text in &files {
            for (call, index) in calls {
                for (at, _) in text.match_indices(call) {
                    let args = arguments(text, at + call.len());
                    let Some(arg) = args.get(index) else { continue };
                    if let Some(literal) = arg.strip_prefix('"') {
                        out.insert(literal.trim_end_matches('"').to_string());
                    } else if let Some(value) = constants.get(*arg) {
                        out.insert(value.clone());
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_code_the_engine_makes_findings_with_is_described() {
        let used = codes_in_sources();
        assert!(used.len() > 40, "the scan found too few codes: {used:?}");
        let missing: Vec<&String> = used.iter().filter(|c| describe(c).is_none()).collect();
        assert!(
            missing.is_empty(),
            "codes without a description: {missing:?}"
        );
        let unused: Vec<&str> = CODES
            .iter()
            .map(|c| c.code)
            .filter(|c| !used.contains(*c))
            .collect();
        assert!(
            unused.is_empty(),
            "described codes no finding uses: {unused:?}"
        );
    }

    #[test]
    fn the_codes_are_sorted_and_each_has_a_title_and_help() {
        assert!(CODES.windows(2).all(|w| w[0].code < w[1].code));
        for c in CODES {
            assert!(!c.title.is_empty() && !c.title.ends_with('.'), "{c:?}");
            assert!(c.help.len() > 40 && c.help.ends_with('.'), "{c:?}");
        }
        assert_eq!(describe("imbalance").map(|c| c.code), Some("imbalance"));
        assert_eq!(describe("no-such-code"), None);
    }
}
