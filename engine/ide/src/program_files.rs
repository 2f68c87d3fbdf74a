//! The files a program in the workspace is made of, as far as one file needs them: the
//! file and the workspace's files that define the modules it USEs, and the modules
//! those use, in turn (`costline compare` from the editor is given these, where a
//! client would otherwise search the file system for the modules itself).

use costline_db::{File, file_units, lower};
use std::collections::{BTreeMap, HashSet};

/// `file` first, then the files defining the modules it needs, in workspace order.
pub(super) fn program_files(db: &dyn salsa::Database, file: File, workspace: &[File]) -> Vec<File> {
    // Which file defines each module (the first, as USE takes the first).
    let mut defined: BTreeMap<String, File> = BTreeMap::new();
    for &f in workspace {
        let Ok(units) = file_units(db, f) else {
            continue;
        };
        for &u in &units.units {
            if u.kind(db) == costline_syntax::ir::UnitKind::Module {
                defined.entry(u.name(db).clone()).or_insert(f);
            }
        }
    }
    let mut needed = HashSet::from([file]);
    let mut pending = vec![file];
    while let Some(f) = pending.pop() {
        let Ok(units) = file_units(db, f) else {
            continue;
        };
        for &u in &units.units {
            for used in &lower(db, u).uses {
                if let Some(&g) = defined.get(&used.module)
                    && needed.insert(g)
                {
                    pending.push(g);
                }
            }
        }
    }
    std::iter::once(file)
        .chain(
            workspace
                .iter()
                .copied()
                .filter(|f| *f != file && needed.contains(f)),
        )
        .collect()
}
