//! The modules of the workspace: where each is defined (the first definition of a name
//! wins) and which USE each other in a cycle. One query over every file, cheap (it
//! reads the unit lists and the USE statements, both memoized), re-run on every edit
//! and cut off when the modules and their USEs stay the same.

use super::analysis::uses;
use super::inputs::{File, Workspace};
use super::units::{UnitText, file_units};
use costline_syntax::diagnostics::Diagnostic;
use costline_syntax::ir::UnitKind;
use costline_syntax::span::Span;
use std::collections::{BTreeMap, BTreeSet};

/// The modules of the workspace.
#[derive(Debug, Default, PartialEq, Eq, salsa::SalsaValue)]
pub struct ModuleGraph<'db> {
    /// Each module's definition.
    pub modules: BTreeMap<String, UnitText<'db>>,
    /// Later definitions of a module name: (file, index of the unit in its file).
    pub duplicates: Vec<(File, usize)>,
    /// For each module in a USE cycle, the modules of its cycle (itself included).
    pub cycles: BTreeMap<String, BTreeSet<String>>,
}

impl ModuleGraph<'_> {
    /// Whether `module`'s USE of `used` closes a cycle.
    pub fn in_cycle(&self, module: &str, used: &str) -> bool {
        self.cycles.get(module).is_some_and(|c| c.contains(used))
    }
}

/// The modules of the workspace and their USE cycles.
#[salsa::tracked(returns(ref))]
pub fn module_graph(db: &dyn salsa::Database) -> ModuleGraph<'_> {
    let mut graph = ModuleGraph::default();
    for &file in Workspace::get(db).files(db) {
        let Ok(units) = file_units(db, file) else {
            continue;
        };
        // The kinds and names from the chunks, not the interned units: a plain scan of
        // the file's units, which an edit anywhere repeats.
        for (i, (chunk, &unit)) in units.chunks.iter().zip(&units.units).enumerate() {
            if chunk.kind != UnitKind::Module {
                continue;
            }
            if graph.modules.contains_key(&*chunk.name) {
                graph.duplicates.push((file, i));
            } else {
                graph.modules.insert(chunk.name.to_string(), unit);
            }
        }
    }
    let edges: BTreeMap<&str, Vec<String>> = graph
        .modules
        .iter()
        .map(|(name, &unit)| {
            let used = uses(db, unit)
                .iter()
                .map(|u| u.module.clone())
                .filter(|m| graph.modules.contains_key(m))
                .collect();
            (name.as_str(), used)
        })
        .collect();
    graph.cycles = cycles(&edges);
    graph
}

/// Warnings on the definitions in `file` of module names defined before (the first
/// definition is the one used).
pub fn duplicate_modules(db: &dyn salsa::Database, file: File) -> Vec<Diagnostic> {
    let Ok(units) = file_units(db, file) else {
        return Vec::new();
    };
    let text = units.source.normalized();
    module_graph(db)
        .duplicates
        .iter()
        .filter(|(f, _)| *f == file)
        .filter_map(|&(_, i)| {
            let chunk = units.chunks.get(i)?;
            let start = chunk.range.start as usize;
            let line = text[start..].lines().next().unwrap_or("");
            Some(Diagnostic::warning(
                Span::new(start, start + line.trim_end().len()),
                "duplicate-module",
                format!(
                    "module `{}` is defined more than once; the first definition is used",
                    chunk.name
                ),
            ))
        })
        .collect()
}

/// The strongly connected components of the USE graph that are cycles (more than one
/// module, or a module using itself), by member (Tarjan's algorithm, iterative).
pub(super) fn cycles(edges: &BTreeMap<&str, Vec<String>>) -> BTreeMap<String, BTreeSet<String>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: BTreeMap<String, BTreeSet<String>>,
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: BTreeMap::new(),
    };
    for &root in edges.keys() {
        if s.index.contains_key(root) {
            continue;
        }
        // (node, next edge to follow)
        let mut work: Vec<(&str, usize)> = vec![(root, 0)];
        while let Some(&(node, next)) = work.last() {
            if next == 0 && !s.index.contains_key(node) {
                let i = s.index.len();
                s.index.insert(node, i);
                s.low.insert(node, i);
                s.stack.push(node);
                s.on_stack.insert(node);
            }
            let succ = &edges[node];
            if next < succ.len() {
                let m = edges.get_key_value(succ[next].as_str()).map(|(k, _)| *k);
                if let Some(top) = work.last_mut() {
                    top.1 += 1;
                }
                let Some(m) = m else { continue };
                if !s.index.contains_key(m) {
                    work.push((m, 0));
                } else if s.on_stack.contains(m) {
                    let low = s.low[node].min(s.index[m]);
                    s.low.insert(node, low);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                let low = s.low[parent].min(s.low[node]);
                s.low.insert(parent, low);
            }
            if s.low[node] == s.index[node] {
                let mut members = BTreeSet::new();
                while let Some(m) = s.stack.pop() {
                    s.on_stack.remove(m);
                    members.insert(m.to_string());
                    if m == node {
                        break;
                    }
                }
                let self_use = edges[node].iter().any(|m| m == node);
                if members.len() > 1 || self_use {
                    for m in &members {
                        s.out.insert(m.clone(), members.clone());
                    }
                }
            }
        }
    }
    s.out
}

#[cfg(test)]
mod tests {
    use super::cycles;
    use std::collections::BTreeMap;

    #[test]
    fn finds_use_cycles_and_only_them() {
        let e = |pairs: &[(&'static str, &[&str])]| -> BTreeMap<&'static str, Vec<String>> {
            pairs
                .iter()
                .map(|(k, v)| (*k, v.iter().map(|s| s.to_string()).collect()))
                .collect()
        };
        let g = e(&[
            ("a", &["b"]),
            ("b", &["c"]),
            ("c", &["a", "d"]),
            ("d", &[]),
            ("e", &["e"]),
            ("f", &["d", "a"]),
        ]);
        let found = cycles(&g);
        let show: Vec<String> = found
            .iter()
            .map(|(k, v)| format!("{k}:{}", v.iter().cloned().collect::<Vec<_>>().join(",")))
            .collect();
        assert_eq!(show, ["a:a,b,c", "b:a,b,c", "c:a,b,c", "e:e"]);
    }
}
