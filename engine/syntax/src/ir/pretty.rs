//! A compact Fortran-like rendering of lowered statements, for tests and for `check
//! --format ir`: what the analyses see, with synthetic loops marked by their origin.

use super::stmt::{CaseValue, LoopControl, LoopOrigin, Stmt, StmtKind};
use std::fmt::Write;

/// Renders `stmts` one per line, nested bodies indented by two spaces.
pub fn render(stmts: &[Stmt]) -> String {
    let mut out = String::new();
    for s in stmts {
        write_stmt(&mut out, s, 0);
    }
    out
}

fn write_stmt(out: &mut String, s: &Stmt, indent: usize) {
    let pad = "  ".repeat(indent);
    let label = s.label.map(|l| format!("{l} ")).unwrap_or_default();
    let _ = match &s.kind {
        StmtKind::Assign { lhs, rhs } => writeln!(out, "{pad}{label}{lhs} = {rhs}"),
        StmtKind::Loop(l) => {
            let name = l
                .construct
                .as_ref()
                .map(|c| format!("{c}: "))
                .unwrap_or_default();
            let control = match &l.control {
                LoopControl::Counted {
                    var,
                    lower,
                    upper,
                    step,
                } => match step {
                    Some(st) => format!("do {var} = {lower}, {upper}, {st}"),
                    None => format!("do {var} = {lower}, {upper}"),
                },
                LoopControl::While(c) => format!("do while ({c})"),
                LoopControl::Forever => "do".to_string(),
            };
            let origin = match l.origin {
                LoopOrigin::Do => String::new(),
                o => format!("  [{}]", o.as_str()),
            };
            let independent = match &l.independent {
                Some(i) if i.new.is_empty() => "  [independent]".to_string(),
                Some(i) => format!("  [independent, new: {}]", i.new.join(", ")),
                None => String::new(),
            };
            let _ = writeln!(out, "{pad}{label}{name}{control}{origin}{independent}");
            for b in &l.body {
                write_stmt(out, b, indent + 1);
            }
            writeln!(out, "{pad}end do")
        }
        StmtKind::If(i) => {
            for (k, b) in i.branches.iter().enumerate() {
                let head = match (&b.cond, k) {
                    (Some(c), 0) => format!("{label}if ({c}) then"),
                    (Some(c), _) => format!("else if ({c}) then"),
                    (None, _) => "else".to_string(),
                };
                let _ = writeln!(out, "{pad}{head}");
                for s in &b.body {
                    write_stmt(out, s, indent + 1);
                }
            }
            writeln!(out, "{pad}end if")
        }
        StmtKind::Select(sel) => {
            let _ = writeln!(out, "{pad}{label}select case ({})", sel.selector);
            for c in &sel.cases {
                let values = match &c.values {
                    None => "default".to_string(),
                    Some(vs) => {
                        let vs: Vec<String> = vs
                            .iter()
                            .map(|v| match v {
                                CaseValue::Value(e) => e.to_string(),
                                CaseValue::Range(lo, hi) => format!(
                                    "{}:{}",
                                    lo.as_ref().map(|e| e.to_string()).unwrap_or_default(),
                                    hi.as_ref().map(|e| e.to_string()).unwrap_or_default()
                                ),
                            })
                            .collect();
                        format!("({})", vs.join(", "))
                    }
                };
                let _ = writeln!(out, "{pad}case {values}");
                for s in &c.body {
                    write_stmt(out, s, indent + 1);
                }
            }
            writeln!(out, "{pad}end select")
        }
        StmtKind::Call(c) => writeln!(out, "{pad}{label}call {c}"),
        StmtKind::Goto { targets, selector } => {
            let ts: Vec<String> = targets.iter().map(u32::to_string).collect();
            match selector {
                Some(e) => writeln!(out, "{pad}{label}go to ({}), {e}", ts.join(", ")),
                None => writeln!(out, "{pad}{label}go to {}", ts.join(", ")),
            }
        }
        StmtKind::ArithmeticIf { expr, targets } => {
            let ts: Vec<String> = targets.iter().map(u32::to_string).collect();
            writeln!(out, "{pad}{label}if ({expr}) {}", ts.join(", "))
        }
        StmtKind::Exit { construct } => {
            writeln!(
                out,
                "{pad}{label}exit{}",
                construct
                    .as_ref()
                    .map(|c| format!(" {c}"))
                    .unwrap_or_default()
            )
        }
        StmtKind::Cycle { construct } => {
            writeln!(
                out,
                "{pad}{label}cycle{}",
                construct
                    .as_ref()
                    .map(|c| format!(" {c}"))
                    .unwrap_or_default()
            )
        }
        StmtKind::Return => writeln!(out, "{pad}{label}return"),
        StmtKind::Stop => writeln!(out, "{pad}{label}stop"),
        StmtKind::Continue => writeln!(out, "{pad}{label}continue"),
        StmtKind::Other { what, .. } => writeln!(out, "{pad}{label}<{what}>"),
        StmtKind::Remap { directive } => writeln!(out, "{pad}{label}<remap #{directive}>"),
    };
}
