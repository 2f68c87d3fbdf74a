//! Scalar components of derived-type variables as names of their own: `lc%first`,
//! where `lc` is a scalar of a type the unit defines and `first` a scalar component of
//! intrinsic type, is the name `lc%first` with the component's type, so the count
//! walk and the set-up code it runs follow the integers kept in a structure
//! (`LoopControl%first = k - j - xsize + 1`). Other component references (arrays,
//! nested structures, types defined elsewhere) stay outside the model.

use super::Lowerer;
use super::cst::{self, named_children};
use crate::ir::{Expr, Symbol};
use tree_sitter::Node;

impl Lowerer<'_> {
    /// `TYPE name ... END TYPE`: records the scalar components of intrinsic type.
    pub(super) fn derived_type_definition(&mut self, node: Node) {
        let mut name = None;
        let mut components = Vec::new();
        for c in named_children(node) {
            match c.kind() {
                "derived_type_statement" => {
                    name = cst::child_of_kind(c, "type_name").map(|n| cst::lower_text(n, self.src));
                }
                "variable_declaration" => {
                    let mut ty = None;
                    let mut names = Vec::new();
                    for (field, d) in cst::children_with_fields(c) {
                        match (field, d.kind()) {
                            (Some("type"), _) => ty = Some(self.type_spec(d)),
                            (Some("declarator"), "identifier") => {
                                names.push(cst::lower_text(d, self.src));
                            }
                            (Some("attribute"), _) => {
                                // `dimension(n), pointer, ...`: not a plain scalar.
                                names.clear();
                                ty = None;
                                break;
                            }
                            _ => {}
                        }
                    }
                    if let Some(ty) = ty.filter(|t| t.derived.is_none()) {
                        components.extend(names.into_iter().map(|n| (n, ty.clone())));
                    }
                }
                _ => {}
            }
        }
        if let Some(name) = name {
            self.components.insert(name, components);
        }
    }

    /// `base%component` as the name `base%component` where `base` is a scalar of a
    /// type the unit defines and `component` one of its scalar components of intrinsic
    /// type (its symbol created with the component's type); `None` otherwise.
    pub(super) fn component(&mut self, node: Node) -> Option<Expr> {
        let mut parts = named_children(node);
        let (base, member) = (parts.next()?, parts.next()?);
        if parts.next().is_some() || base.kind() != "identifier" || member.kind() != "type_member" {
            return None;
        }
        let base_name = cst::lower_text(base, self.src);
        let member_name = cst::lower_text(member, self.src);
        let sym = self.symbols.get(&base_name)?;
        if sym.is_array() {
            return None;
        }
        let ty = sym.ty.as_ref()?.derived.as_ref()?;
        let (_, component) = self
            .components
            .get(ty)?
            .iter()
            .find(|(n, _)| *n == member_name)?;
        let key = format!("{base_name}%{member_name}");
        // Neither a dummy nor a COMMON member of its own: a call or a block passes the
        // whole structure.
        let component = component.clone();
        self.symbols
            .entry(key.clone())
            .or_insert_with(|| Symbol::new(key.clone(), cst::span(node)))
            .ty = Some(component);
        Some(Expr::Name(key))
    }
}
