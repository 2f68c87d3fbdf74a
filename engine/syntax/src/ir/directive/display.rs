//! Directives printed back in canonical HPF form, for reports and hovers.

use super::*;
use crate::ir::Triplet;
use std::fmt::{self, Write};

impl fmt::Display for DirectiveKind {
    /// The directive in canonical HPF form: upper-case keywords, lower-case names, the
    /// `::` form for lists of names.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&canonical(self))
    }
}

fn canonical(kind: &DirectiveKind) -> String {
    match kind {
        DirectiveKind::Processors(d) => format!("PROCESSORS {}", decls(d)),
        DirectiveKind::Template(d) => format!("TEMPLATE {}", decls(d)),
        DirectiveKind::Distribute(d) => format!("DISTRIBUTE{}", distribute(d)),
        DirectiveKind::Redistribute(d) => format!("REDISTRIBUTE{}", distribute(d)),
        DirectiveKind::Align(a) => format!("ALIGN{}", align(a)),
        DirectiveKind::Realign(a) => format!("REALIGN{}", align(a)),
        DirectiveKind::Independent(i) => {
            let mut s = "INDEPENDENT".to_string();
            if !i.indices.is_empty() {
                write!(s, " ({})", list(&i.indices)).unwrap();
            }
            if !i.new.is_empty() {
                write!(s, ", NEW({})", list(&i.new)).unwrap();
            }
            if !i.reduction.is_empty() {
                write!(s, ", REDUCTION({})", list(&i.reduction)).unwrap();
            }
            if let Some(home) = &i.on_home {
                write!(s, ", ON HOME({})", Expr::Array(home.clone())).unwrap();
            }
            s
        }
        DirectiveKind::Dynamic(n) => format!("DYNAMIC :: {}", list(n)),
        DirectiveKind::Inherit(n) => format!("INHERIT :: {}", list(n)),
        DirectiveKind::Sequence { names, sequence } => {
            let keyword = if *sequence { "SEQUENCE" } else { "NO SEQUENCE" };
            if names.is_empty() {
                keyword.to_string()
            } else {
                format!("{keyword} :: {}", list(names))
            }
        }
        DirectiveKind::Unmodelled(k) => format!("unmodelled {k}"),
    }
}

fn list(names: &[Named]) -> String {
    names
        .iter()
        .map(|n| n.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn joined<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(", ")
}

fn decls(decls: &[ShapeDecl]) -> String {
    joined(decls, |d| {
        if d.shape.is_empty() {
            d.name.name.clone()
        } else {
            let shape = joined(&d.shape, |e| match &e.lower {
                Some(l) => format!("{l}:{}", e.upper),
                None => e.upper.to_string(),
            });
            format!("{}({shape})", d.name.name)
        }
    })
}

fn distribute(d: &Distribute) -> String {
    let formats = |f: &[DistFormat]| {
        joined(f, |f| match f {
            DistFormat::Block(None) => "BLOCK".to_string(),
            DistFormat::Block(Some(e)) => format!("BLOCK({e})"),
            DistFormat::Cyclic(None) => "CYCLIC".to_string(),
            DistFormat::Cyclic(Some(e)) => format!("CYCLIC({e})"),
            DistFormat::Collapsed => "*".to_string(),
            DistFormat::GenBlock(e) => format!("GEN_BLOCK({e})"),
            DistFormat::Indirect(e) => format!("INDIRECT({e})"),
        })
    };
    let mut s = match &d.formats {
        FormatClause::Absent => String::new(),
        FormatClause::Prescriptive(f) => format!(" ({})", formats(f)),
        FormatClause::Descriptive(f) => format!(" *({})", formats(f)),
        FormatClause::Transcriptive => " *".to_string(),
    };
    match &d.onto {
        None => {}
        Some(Onto::Transcriptive) => s.push_str(" ONTO *"),
        Some(Onto::Target {
            name,
            section,
            descriptive,
        }) => {
            let star = if *descriptive { "*" } else { "" };
            write!(s, " ONTO {star}{}", name.name).unwrap();
            if !section.is_empty() {
                write!(s, "({})", joined(section, Triplet::to_string)).unwrap();
            }
        }
    }
    write!(s, " :: {}", list(&d.distributees)).unwrap();
    s
}

fn align(a: &Align) -> String {
    let mut s = String::new();
    if let Some(sources) = &a.sources {
        let sources = joined(sources, |s| match s {
            AlignSource::Colon => ":".to_string(),
            AlignSource::Star => "*".to_string(),
            AlignSource::Dummy(d) => d.clone(),
        });
        write!(s, " ({sources})").unwrap();
    }
    let star = if a.descriptive { "*" } else { "" };
    write!(s, " WITH {star}{}", a.target.name).unwrap();
    if let Some(subscripts) = &a.subscripts {
        let subscripts = joined(subscripts, |s| match s {
            AlignSubscript::Expr(e) => e.to_string(),
            AlignSubscript::Triplet(t) => t.to_string(),
            AlignSubscript::Star => "*".to_string(),
        });
        write!(s, "({subscripts})").unwrap();
    }
    write!(s, " :: {}", list(&a.alignees)).unwrap();
    s
}
