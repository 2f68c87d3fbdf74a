use super::*;
use crate::comm::records::Record;
use crate::comm::remap::Moved;
use crate::distribution::{Format, Layout, LayoutDim, TemplateIndex};
use crate::testing::unit;

/// A 1-D array of extent `n` distributed BLOCK(`b`) onto `p` processors.
fn block(n: i64, b: i64, p: i64) -> ActualMapping {
    ActualMapping::Mapped(Layout {
        arrangement: "pr".into(),
        grid: vec![p],
        dims: vec![LayoutDim {
            lower: 1,
            extent: n,
            format: Format::Block(b),
            grid: Some(0),
            index: TemplateIndex::Affine {
                dim: 0,
                coef: 1,
                offset: 0,
            },
        }],
        lowers: vec![1],
    })
}

const CALLEE: &str = "subroutine s(a, n, m)
  integer n, m
  real a(:)
  a(1) = n + m
end subroutine
";

fn int(v: i64) -> (Option<String>, Actual) {
    (None, Actual::Integer(v))
}

fn array(extent: i64, mapping: ActualMapping) -> (Option<String>, Actual) {
    (
        None,
        Actual::Array {
            name: "x".into(),
            extents: Some(vec![extent]),
            mapping,
        },
    )
}

#[test]
fn actuals_bind_by_position_then_by_keyword() {
    let ir = unit(CALLEE);
    let b = bind(
        &ir,
        &[
            array(10, ActualMapping::Replicated),
            int(4),
            (Some("m".into()), Actual::Integer(7)),
            // After a keyword, a positional actual binds nothing.
            int(99),
        ],
    );
    assert_eq!(
        b.values,
        [
            ("m".to_string(), 7),
            ("n".to_string(), 4),
            // The assumed-shape dummy takes the actual's extent.
            ("size(a,1)".to_string(), 10),
        ]
    );
    assert_eq!(
        b.arrays,
        [("a".to_string(), Some(vec![10]), ActualMapping::Replicated)]
    );
    assert_eq!(b.mapping("a"), Some(&ActualMapping::Replicated));
    // A real actual binds no integer dummy.
    let b = bind(&ir, &[int(1), (None, Actual::Other("2.5".into()))]);
    assert!(b.values.is_empty() && b.arrays.is_empty(), "{b:?}");
}

fn site(caller: &str, rank: usize, count: Option<f64>, n: i64) -> CallerSite {
    let values = vec![("n".to_string(), n)];
    (
        caller.into(),
        rank,
        count,
        Binding {
            values,
            arrays: Vec::new(),
        },
    )
}

#[test]
fn the_site_that_runs_most_is_chosen_and_the_others_are_variants() {
    let ir = unit(CALLEE);
    let incoming = arbitrate(
        &ir,
        "s",
        vec![
            site("main", 1, Some(2.0), 8),
            site("main", 2, Some(10.0), 4),
            // Never runs: neither chosen nor a variant.
            site("other", 1, Some(0.0), 16),
            site("other", 2, None, 8),
        ],
    );
    assert_eq!(incoming.chosen, Some(site("", 0, None, 4).3));
    assert_eq!(incoming.variants, [site("", 0, None, 8).3]);
    assert_eq!(incoming.sites.len(), 4);
    let [note] = incoming.notes.as_slice() else {
        panic!("{:?}", incoming.notes)
    };
    assert_eq!(note.code, "call-binding");
    assert!(
        note.message.starts_with(
            "the calls pass `n` different values: 4 by call 2 from `main` (10 times per run \
             of `main`), 8 by call 1 from `main` (2 times per run of `main`), 8 by call 2 \
             from `other` (an unknown number of times per run of `other`)"
        ),
        "{}",
        note.message
    );
}

#[test]
fn bindings_beyond_the_variant_limit_are_named() {
    let ir = unit(CALLEE);
    let sites = (0..MAX_VARIANTS as i64 + 3)
        .map(|k| site("main", k as usize + 1, Some(1.0), k))
        .collect();
    let incoming = arbitrate(&ir, "s", sites);
    assert_eq!(incoming.variants.len(), MAX_VARIANTS);
    let limit = incoming.notes.last().unwrap();
    assert!(
        limit.message.starts_with(&format!(
            "`s` is called with {} different bindings of its dummies",
            MAX_VARIANTS + 3
        )),
        "{}",
        limit.message
    );
}

#[test]
fn local_parts_group_the_processors_by_the_shape_of_their_part() {
    // 10 elements BLOCK(3) onto 4 processors: 3, 3, 3 and 1.
    let global = bind(&unit(CALLEE), &[array(10, block(10, 3, 4)), int(5)]);
    let parts = local_parts(&global).unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].processors, [1, 2, 3]);
    assert_eq!(parts[1].processors, [4]);
    let size = |p: &LocalPart| {
        p.binding
            .values
            .iter()
            .find(|v| v.0 == "size(a,1)")
            .unwrap()
            .1
    };
    assert_eq!((size(&parts[0]), size(&parts[1])), (3, 1));
    // Integers pass as they are; the parts are not mapped.
    assert!(parts[1].binding.values.contains(&("n".to_string(), 5)));
    assert_eq!(
        parts[1].binding.mapping("a"),
        Some(&ActualMapping::Replicated)
    );
    assert_eq!(LocalPart::heaviest(&parts).processors, [1, 2, 3]);
    assert_eq!(parts[1].describe(), "`a` 1");
    // A mapping without values: the parts are not known.
    let unknown = bind(&unit(CALLEE), &[array(10, ActualMapping::Unknown)]);
    assert_eq!(
        local_parts(&unknown).unwrap_err(),
        "`a`'s mapping has no values"
    );
}

#[test]
fn processors_read_as_ranges() {
    assert_eq!(notes::processors(&[1, 2, 3, 5]), "processors 1–3, 5");
    assert_eq!(notes::processors(&[4]), "processor 4");
}

#[test]
fn a_remapping_sends_one_message_per_pair_and_call_each_way() {
    let entry: Moved = [((1, 2), 3.0), ((1, 3), 0.0)].into_iter().collect();
    let back: Moved = [((2, 1), 3.0), ((1, 2), 1.0)].into_iter().collect();
    let record = |from, to, messages, bytes| Record {
        from,
        to,
        messages,
        bytes,
    };
    assert_eq!(
        remap::records(&entry, &back, 5.0, 8),
        [record(1, 2, 10.0, 160.0), record(2, 1, 5.0, 120.0)]
    );
}

#[test]
fn a_call_closing_a_cycle_is_warned_about() {
    let ir = unit(
        "subroutine f(n)
  integer n
  if (n > 0) call g(n - 1)
  call h(n)
end subroutine
",
    );
    let cycle = vec!["f".to_string(), "g".to_string()];
    let graph = CallGraph {
        callers: Default::default(),
        cycles: [("f".to_string(), cycle.clone()), ("g".to_string(), cycle)]
            .into_iter()
            .collect(),
    };
    let warnings = recursion_warnings(&ir, "f", &graph);
    let [w] = warnings.as_slice() else {
        panic!("{warnings:?}")
    };
    assert_eq!(w.code, "recursion");
    assert!(
        w.message
            .starts_with("recursive call of `g` (cycle: f → g): counted one level deep"),
        "{}",
        w.message
    );
    assert!(recursion_warnings(&ir, "h", &graph).is_empty());
}
