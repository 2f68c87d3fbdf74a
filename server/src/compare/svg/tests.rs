use super::*;

/// Checks that `svg` is well-formed XML as far as this renderer can go wrong: tags balance,
/// attribute values are quoted, and every `&` starts one of the five predefined entities.
fn assert_well_formed(svg: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        assert!(
            !rest[..open].contains('>'),
            "unescaped > in {:.60}",
            &rest[..open]
        );
        let tag_and_rest = &rest[open + 1..];
        let mut in_quote = false;
        let close = tag_and_rest
            .char_indices()
            .find(|&(_, c)| {
                if c == '"' {
                    in_quote = !in_quote;
                }
                c == '>' && !in_quote
            })
            .map(|(i, _)| i)
            .unwrap_or_else(|| panic!("unterminated tag in {tag_and_rest:.60}"));
        let tag = &tag_and_rest[..close];
        assert!(!tag.contains('<'), "`<` inside tag {tag}");
        check_text(tag);
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in {tag}"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().expect("tag name");
            stack.push(name);
        }
        for attr in tag.split_whitespace().skip(1) {
            if let Some((_, value)) = attr.split_once('=') {
                assert!(value.starts_with('"'), "unquoted attribute in {tag}");
            }
        }
        if stack.is_empty() {
            assert!(
                tag_and_rest[close + 1..].trim().is_empty(),
                "content after the root"
            );
        }
        rest = &tag_and_rest[close + 1..];
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed tags {stack:?}");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    for bad in ["NaN", "inf", "-0.0"] {
        assert!(!svg.contains(bad), "{bad} in output: {svg}");
    }
}

/// Every `&` in text or a tag must start an entity.
fn check_text(text: &str) {
    for (i, _) in text.match_indices('&') {
        let entity = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"];
        assert!(
            entity.iter().any(|e| text[i..].starts_with(e)),
            "raw & in {text}"
        );
    }
}

fn series(name: &str, points: &[(f64, f64)], highlight: bool) -> Series {
    Series {
        name: name.into(),
        points: points.to_vec(),
        highlight,
    }
}

#[test]
fn linear_ticks_are_1_2_5_multiples_covering_the_range() {
    assert_eq!(linear_ticks(0.0, 1.0), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
    assert_eq!(
        linear_ticks(3.0, 97.0),
        [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
    );
    assert_eq!(
        linear_ticks(0.0012, 0.0031),
        [0.001, 0.0015, 0.002, 0.0025, 0.003, 0.0035]
    );
    assert_eq!(linear_ticks(-7.0, 7.0), [-10.0, -5.0, 0.0, 5.0, 10.0]);
    // A sweep of ranges: always 4 to 8 ticks, evenly spaced, enclosing the range.
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..2000 {
        let scale = 10f64.powf(next() * 20.0 - 10.0);
        let lo = (next() - 0.3) * scale;
        let hi = lo + next().max(1e-3) * scale;
        let t = linear_ticks(lo, hi);
        assert!((4..=8).contains(&t.len()), "{lo}..{hi}: {t:?}");
        assert!(t[0] <= lo && *t.last().unwrap() >= hi, "{lo}..{hi}: {t:?}");
        let step = t[1] - t[0];
        let mantissa = step / 10f64.powf((step.log10() + 1e-6).floor());
        assert!(
            [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-6),
            "{t:?}"
        );
    }
}

#[test]
fn log_ticks_use_decades_with_2_and_5_when_few() {
    assert_eq!(
        log_ticks(1.0, 64.0),
        [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
    );
    assert_eq!(log_ticks(4.0, 64.0), [2.0, 5.0, 10.0, 20.0, 50.0, 100.0]);
    assert_eq!(log_ticks(1.0, 1e6), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
    assert_eq!(
        log_ticks(3e-7, 2e3),
        [1e-8, 1e-6, 1e-4, 1e-2, 1.0, 1e2, 1e4]
    );
    assert_eq!(log_ticks(1e-100, 1e100).len(), 5);
    // Less than a decade or so: linear ticks.
    assert_eq!(log_ticks(2.0, 3.0), [2.0, 2.2, 2.4, 2.6, 2.8, 3.0]);
    for (lo, hi) in [
        (1.0, 1.5),
        (0.9, 1.1),
        (1e-9, 1e-3),
        (7.0, 300.0),
        (1e-300, 1e300),
    ] {
        let t = log_ticks(lo, hi);
        assert!((4..=8).contains(&t.len()), "{lo}..{hi}: {t:?}");
        assert!(
            t[0] <= lo && *t.last().unwrap() >= hi && t[0] > 0.0,
            "{lo}..{hi}: {t:?}"
        );
    }
}

#[test]
fn minor_ticks_only_between_single_decades() {
    assert_eq!(
        minor_ticks(&[1.0, 10.0], true),
        [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    );
    assert!(minor_ticks(&[1.0, 2.0, 5.0, 10.0], true).is_empty());
    assert!(minor_ticks(&[1.0, 100.0], true).is_empty());
    assert!(minor_ticks(&[1.0, 10.0], false).is_empty());
}

#[test]
fn times_get_a_unit_and_a_short_number() {
    let cases = [
        (0.012, "12 ms"),
        (350e-6, "350 µs"),
        (1.2, "1.2 s"),
        (40e-9, "40 ns"),
        (0.0, "0 s"),
        (1e-3, "1 ms"),
        (0.0015, "1.5 ms"),
        (12.345678, "12.3 s"),
        (1500.0, "1500 s"),
        (0.5e-9, "0.5 ns"),
        (1.00001, "1.00001 s"),
        (-0.002, "-2 ms"),
        (1e7, "1e7 s"),
    ];
    for (v, want) in cases {
        assert_eq!(fmt_time(v), want, "{v}");
    }
    // Ticks computed in floating point still get the round label and the right unit.
    assert_eq!(fmt_time(0.1 * 3.0 * 1e-3), "300 µs");
    assert_eq!(fmt_time(pow10(1, -3)), "1 ms");
}

#[test]
fn x_values_are_compact() {
    let cases = [
        (1000.0, "1k"),
        (20000.0, "20k"),
        (1.5e6, "1.5M"),
        (500.0, "500"),
        (0.5, "0.5"),
        (2.0, "2"),
        (1e9, "1G"),
        (0.0, "0"),
        (-0.0, "0"),
        (1234.0, "1.234k"),
        (3.0 * 0.1, "0.3"),
        (1e15, "1e15"),
        (5e-5, "5e-5"),
    ];
    for (v, want) in cases {
        assert_eq!(fmt_x(v), want, "{v}");
    }
}

#[test]
fn coordinates_have_one_decimal() {
    assert_eq!(num(1.25), "1.3");
    assert_eq!(num(-0.04), "0.0");
    assert_eq!(num(f64::NAN), "0.0");
    assert_eq!(num(720.0), "720.0");
}

#[test]
fn text_is_xml_escaped() {
    assert_eq!(
        esc(r#"a<b & "c" 'd'>"#),
        "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
    );
    let chart = Chart {
        title: "<BLOCK> & \"CYCLIC\"".into(),
        x_label: "P's".into(),
        y_label: "t > 0".into(),
        series: vec![series("(BLOCK,*) & <x>", &[(1.0, 1.0), (2.0, 2.0)], false)],
        markers: vec![Marker {
            x: 1.5,
            label: "a<b".into(),
        }],
        ..Chart::default()
    };
    let svg = render(&[chart]);
    assert_well_formed(&svg);
    assert!(svg.contains("&lt;BLOCK&gt; &amp; &quot;CYCLIC&quot;"));
    assert!(svg.contains("(BLOCK,*) &amp; &lt;x&gt;"));
}

#[test]
fn undrawable_points_split_the_line() {
    let xs = Scale::new(&[1.0, 10.0], false, 0.0, 90.0);
    let ys = Scale::new(&[1.0, 100.0], true, 100.0, 0.0);
    let nan = f64::NAN;
    let points = [
        (nan, 1.0),
        (1.0, 1.0),
        (2.0, 10.0),
        (3.0, nan),
        (4.0, 100.0),
        (5.0, 0.0),
        (6.0, -1.0),
    ];
    let runs = runs(&points, &xs, &ys);
    assert_eq!(runs, [vec![(0.0, 100.0), (10.0, 50.0)], vec![(30.0, 0.0)]]);
    assert!(super::runs(&[(f64::INFINITY, 1.0)], &xs, &ys).is_empty());

    let chart = Chart {
        series: vec![series("a", &points, false)],
        log_y: true,
        ..Chart::default()
    };
    let svg = render(&[chart]);
    assert_well_formed(&svg);
    assert_eq!(svg.matches("<polyline").count(), 1);
    assert_eq!(
        svg.matches("<circle").count(),
        3 + 1,
        "three points and the legend's"
    );
}

#[test]
fn degenerate_charts_render_valid_svg() {
    let nan = f64::NAN;
    let cases: Vec<(bool, bool, Vec<Series>)> = vec![
        (false, false, vec![]),
        (true, true, vec![series("empty", &[], false)]),
        (false, false, vec![series("one", &[(5.0, 0.01)], true)]),
        (true, true, vec![series("one", &[(5.0, 0.01)], true)]),
        (
            false,
            false,
            vec![series(
                "flat",
                &[(1.0, 2e-3), (2.0, 2e-3), (3.0, 2e-3)],
                false,
            )],
        ),
        (
            true,
            true,
            vec![series(
                "flat",
                &[(1.0, 2e-3), (2.0, 2e-3), (3.0, 2e-3)],
                false,
            )],
        ),
        (
            false,
            true,
            vec![series("same x", &[(4.0, 1e-3), (4.0, 2e-3)], false)],
        ),
        (
            false,
            false,
            vec![series("zeros", &[(0.0, 0.0), (0.0, 0.0)], false)],
        ),
        (
            true,
            true,
            vec![series(
                "non-positive",
                &[(0.0, 1.0), (-1.0, 1.0), (1.0, 0.0)],
                false,
            )],
        ),
        (
            false,
            false,
            vec![series(
                "not finite",
                &[(nan, nan), (f64::INFINITY, 1.0)],
                false,
            )],
        ),
        (
            false,
            false,
            vec![series("huge", &[(-1e308, 1e308), (1e308, -1e308)], false)],
        ),
        (
            true,
            true,
            vec![series(
                "extreme",
                &[(5e-324, 5e-324), (1e308, 1e308)],
                false,
            )],
        ),
        (true, true, vec![series("tiny", &[(5e-324, 5e-324)], false)]),
        (
            false,
            false,
            vec![series("tiny", &[(5e-324, 5e-324)], false)],
        ),
    ];
    for (log_x, log_y, series) in cases {
        let name = series.first().map(|s| s.name.clone()).unwrap_or_default();
        let markers = vec![
            Marker {
                x: 4.0,
                label: "in or out".into(),
            },
            Marker {
                x: nan,
                label: "nan".into(),
            },
            Marker {
                x: -1e12,
                label: "negative".into(),
            },
        ];
        let chart = Chart {
            log_x,
            log_y,
            series,
            markers,
            ..Chart::default()
        };
        let svg = render(&[chart]);
        assert_well_formed(&svg);
        assert!(
            !svg.contains(">nan<") && !svg.contains(">negative<"),
            "{name}: {svg}"
        );
    }
    assert_well_formed(&render(&[]));
    let no_data = render(&[Chart::default()]);
    assert!(no_data.contains(">no data<"));
    assert_well_formed(&no_data);
}

#[test]
fn colors_follow_names_across_panels() {
    let a = series("a", &[(1.0, 1.0), (2.0, 2.0)], false);
    let b = series("b", &[(1.0, 2.0), (2.0, 1.0)], false);
    let first = Chart {
        series: vec![a.clone(), b.clone()],
        ..Chart::default()
    };
    let second = Chart {
        series: vec![b, a],
        ..Chart::default()
    };
    let svg = render(&[first, second]);
    assert_well_formed(&svg);
    let polylines: Vec<&str> = svg.lines().filter(|l| l.starts_with("<polyline")).collect();
    assert_eq!(polylines.len(), 4);
    assert!(polylines[0].contains(PALETTE[0]) && polylines[1].contains(PALETTE[1]));
    assert!(polylines[2].contains(PALETTE[1]) && polylines[3].contains(PALETTE[0]));
    assert_eq!(
        svg.matches(">a</text>").count(),
        1,
        "one legend entry per name"
    );

    // Past the palette, colors repeat with a dash pattern.
    let eleventh = stroke(PALETTE.len() + 1, false);
    assert!(eleventh.contains(PALETTE[1]) && eleventh.contains("stroke-dasharray=\"7 4\""));
    assert!(stroke(0, true).contains("stroke-width=\"3.0\""));
}

#[test]
fn close_marker_labels_are_spread() {
    let chart = Chart {
        series: vec![series("a", &[(0.0, 1.0), (100.0, 2.0)], false)],
        markers: vec![
            Marker {
                x: 50.0,
                label: "m1".into(),
            },
            Marker {
                x: 50.1,
                label: "m2".into(),
            },
        ],
        ..Chart::default()
    };
    let svg = render(&[chart]);
    let label_x = |l: &str| l.split('"').nth(1).unwrap().parse::<f64>().unwrap();
    let labels = svg.lines().filter(|l| l.contains("paint-order"));
    let xs: Vec<f64> = labels.map(label_x).collect();
    assert_eq!(xs.len(), 2);
    assert!(xs[1] - xs[0] >= 13.0, "{xs:?}");
}

#[test]
fn two_panel_snapshot() {
    let procs = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
    let block: Vec<(f64, f64)> = procs.iter().map(|&p| (p, 0.8 / p + 2e-4 * p)).collect();
    let cyclic: Vec<(f64, f64)> = procs.iter().map(|&p| (p, 0.5 / p + 1e-3 * p)).collect();
    let sizes = [256.0, 512.0, 1024.0, 2048.0];
    let block_n: Vec<(f64, f64)> = sizes.iter().map(|&n| (n, 2e-8 * n * n + 1e-3)).collect();
    let cyclic_n: Vec<(f64, f64)> = sizes.iter().map(|&n| (n, 1.5e-8 * n * n + 8e-3)).collect();
    let charts = [
        Chart {
            title: "Time vs P (N = 1024)".into(),
            x_label: "processors P".into(),
            y_label: "predicted time".into(),
            log_x: true,
            log_y: true,
            series: vec![
                series("(BLOCK,*)", &block, true),
                series("(CYCLIC,*)", &cyclic, false),
            ],
            markers: vec![Marker {
                x: 19.4,
                label: "P ≈ 19".into(),
            }],
        },
        Chart {
            title: "Time vs N (P = 16)".into(),
            x_label: "problem size N".into(),
            y_label: "predicted time".into(),
            log_x: false,
            log_y: false,
            series: vec![
                series("(BLOCK,*)", &block_n, true),
                series("(CYCLIC,*)", &cyclic_n, false),
            ],
            markers: vec![Marker {
                x: 1183.0,
                label: "N ≈ 1183".into(),
            }],
        },
    ];
    let svg = render(&charts);
    assert_well_formed(&svg);
    insta::assert_snapshot!(svg);
}
