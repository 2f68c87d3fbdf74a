//! The specification part: USE, IMPLICIT, type declarations, DIMENSION and other
//! attribute statements, PARAMETER, COMMON.

use super::Lowerer;
use crate::cst::{self, named_children};
use crate::diagnostics::Diagnostic;
use crate::ir::{BaseType, Bound, Dim, Expr, ImplicitRules, Intent, Symbol, TypeSpec, Use};
use tree_sitter::Node;

impl Lowerer<'_> {
    /// Records what one specification-part node declares. Returns false if the node is
    /// not part of the specification part.
    pub(super) fn declaration(&mut self, node: Node) -> bool {
        match node.kind() {
            "use_statement" => self.use_statement(node),
            "implicit_statement" => self.implicit_statement(node),
            "variable_declaration" => self.variable_declaration(node),
            "variable_modification" => self.variable_modification(node),
            "parameter_statement" => {
                for assignment in named_children(node) {
                    let mut parts = named_children(assignment);
                    if let (Some(name), Some(value)) = (parts.next(), parts.next()) {
                        let value = self.expr(value);
                        let sym = self.symbol(name);
                        sym.attrs.parameter = true;
                        sym.value = Some(value);
                    }
                }
            }
            "common_statement" => self.common_statement(node),
            // INCLUDE lines are spliced before parsing (`crate::source`); one the parser
            // still sees is not a line of its own.
            "include_statement" => self.diagnostics.push(Diagnostic::warning(
                cst::span(node),
                "include",
                format!(
                    "{} is not followed: an INCLUDE line must stand alone (not continued, nothing after the file name but a comment)",
                    cst::text(node, self.src).trim()
                ),
            )),
            "data_statement" => self.data_statement(node),
            "derived_type_definition" => self.derived_type_definition(node),
            "save_statement"
            | "equivalence_statement"
            | "namelist_statement"
            | "interface"
            | "import_statement"
            | "public_statement"
            | "private_statement"
            | "enum"
            | "enumeration_type"
            | "bind_statement"
            | "cray_pointer_declaration"
            | "format_statement"
            | "procedure_statement"
            | "generic_statement" => {}
            _ => return false,
        }
        true
    }

    /// The symbol named by an identifier node, created on first mention.
    fn symbol(&mut self, name_node: Node) -> &mut Symbol {
        let name = cst::lower_text(name_node, self.src);
        let span = cst::span(name_node);
        self.symbols
            .entry(name.clone())
            .or_insert_with(|| Symbol::new(name, span))
    }

    fn use_statement(&mut self, node: Node) {
        let mut module = String::new();
        let mut only = None;
        let mut renames = Vec::new();
        for c in named_children(node) {
            match c.kind() {
                "module_name" => module = cst::lower_text(c, self.src),
                "use_alias" => renames.push(self.alias(c)),
                "included_items" => {
                    let mut items = Vec::new();
                    for item in named_children(c) {
                        match item.kind() {
                            "use_alias" => items.push(self.alias(item)),
                            "identifier" => {
                                let n = cst::lower_text(item, self.src);
                                items.push((n.clone(), n));
                            }
                            // Generic specs (`operator(+)`, `assignment(=)`) name no constants.
                            _ => {}
                        }
                    }
                    only = Some(items);
                }
                _ => {}
            }
        }
        self.uses.push(Use {
            module,
            only,
            renames,
            span: cst::span(node),
        });
    }

    /// `local => remote`
    fn alias(&self, node: Node) -> (String, String) {
        let mut parts = named_children(node).map(|n| cst::lower_text(n, self.src));
        let local = parts.next().unwrap_or_default();
        let remote = parts.next().unwrap_or_else(|| local.clone());
        (local, remote)
    }

    fn implicit_statement(&mut self, node: Node) {
        let mut current: Option<TypeSpec> = None;
        for c in named_children(node) {
            match c.kind() {
                "none" => self.implicit = ImplicitRules::none(),
                "intrinsic_type" | "derived_type" => current = Some(self.type_spec(c)),
                "implicit_range" => {
                    let text = cst::lower_text(c, self.src);
                    let letters: Vec<char> =
                        text.chars().filter(char::is_ascii_alphabetic).collect();
                    if let (Some(ty), Some(&from)) = (&current, letters.first()) {
                        let to = *letters.last().unwrap_or(&from);
                        self.implicit.set(from, to, ty);
                    }
                }
                _ => {}
            }
        }
    }

    /// A type from an `intrinsic_type` or `derived_type` node: `real*8`, `real(kind=dp)`,
    /// `double precision`, `character(len=8)`, `type(point)`.
    pub(super) fn type_spec(&mut self, node: Node) -> TypeSpec {
        if node.kind() == "derived_type" {
            let name = cst::child_of_kind(node, "type_name")
                .map(|n| cst::lower_text(n, self.src))
                .unwrap_or_default();
            return TypeSpec {
                derived: Some(name),
                ..TypeSpec::of(BaseType::Derived)
            };
        }
        let text = cst::lower_text(node, self.src);
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let base = [
            ("doubleprecision", BaseType::DoublePrecision),
            ("doublecomplex", BaseType::DoubleComplex),
            ("integer", BaseType::Integer),
            ("real", BaseType::Real),
            ("complex", BaseType::Complex),
            ("logical", BaseType::Logical),
            ("character", BaseType::Character),
            ("byte", BaseType::Integer),
        ]
        .into_iter()
        .find(|(k, _)| compact.starts_with(k))
        .map_or(BaseType::Real, |(_, b)| b);
        let mut ty = TypeSpec::of(base);
        if compact.starts_with("byte") {
            ty.kind = Some(Expr::Int(1));
        }
        if let Some(kind) = cst::child_of_kind(node, "kind") {
            for part in named_children(kind) {
                let (keyword, value) = if part.kind() == "keyword_argument" {
                    let name = part
                        .child_by_field_name("name")
                        .map(|n| cst::lower_text(n, self.src));
                    (name, part.child_by_field_name("value"))
                } else {
                    (None, Some(part))
                };
                let Some(value) = value else { continue };
                let value = if value.kind() == "assumed_size" {
                    Expr::Unknown("*".into())
                } else {
                    self.expr(value)
                };
                match (keyword.as_deref(), base) {
                    (Some("len"), _) => ty.len = Some(value),
                    (None, BaseType::Character) if ty.len.is_none() => ty.len = Some(value),
                    _ => ty.kind = Some(value),
                }
            }
        }
        ty
    }

    fn variable_declaration(&mut self, node: Node) {
        let mut ty = None;
        let mut attrs = Vec::new();
        let mut declarators = Vec::new();
        for (field, c) in cst::children_with_fields(node) {
            match field {
                Some("type") => ty = Some(self.type_spec(c)),
                Some("attribute") => attrs.push(c),
                Some("declarator") => declarators.push(c),
                _ => {}
            }
        }
        for d in declarators {
            let name = self.declarator(d);
            let Some(name) = name else { continue };
            if let Some(t) = &ty {
                let t = t.clone();
                if let Some(sym) = self.symbols.get_mut(&name) {
                    // `character c*4` overrides the statement's length.
                    let len = sym.ty.take().and_then(|old| old.len);
                    sym.ty = Some(TypeSpec {
                        len: len.or(t.len.clone()),
                        ..t
                    });
                }
            }
            for a in &attrs {
                self.apply_attribute(&name, *a);
            }
        }
    }

    /// `DIMENSION a(n)`, `ALLOCATABLE :: w(:)`, `EXTERNAL f`, `SAVE x`, ...
    fn variable_modification(&mut self, node: Node) {
        let mut qualifier = None;
        for (field, c) in cst::children_with_fields(node) {
            match (field, c.kind()) {
                (Some("declarator"), _) => {
                    if let Some(name) = self.declarator(c)
                        && let Some(q) = qualifier
                    {
                        self.apply_attribute(&name, q);
                    }
                }
                (_, "type_qualifier") => qualifier = Some(c),
                _ => {}
            }
        }
    }

    /// Applies a `type_qualifier` node (`parameter`, `dimension(...)`, `intent(in)`, ...).
    fn apply_attribute(&mut self, name: &str, qualifier: Node) {
        let text = cst::lower_text(qualifier, self.src);
        let word: String = text.chars().take_while(char::is_ascii_alphabetic).collect();
        let dims = match word.as_str() {
            "dimension" => cst::child_of_kind(qualifier, "argument_list").map(|l| self.dims(l)),
            _ => None,
        };
        let Some(sym) = self.symbols.get_mut(name) else {
            return;
        };
        let a = &mut sym.attrs;
        match word.as_str() {
            "parameter" => a.parameter = true,
            "allocatable" => a.allocatable = true,
            "pointer" => a.pointer = true,
            "target" => a.target = true,
            "save" => a.save = true,
            "external" => a.external = true,
            "intrinsic" => a.intrinsic = true,
            "intent" => {
                let compact: String = text.chars().filter(|c| c.is_ascii_alphabetic()).collect();
                a.intent = Some(match compact.as_str() {
                    "intentin" => Intent::In,
                    "intentout" => Intent::Out,
                    _ => Intent::InOut,
                });
            }
            "dimension" if sym.dims.is_none() => sym.dims = dims,
            _ => {}
        }
    }

    /// Declares the entity of one declarator (`x`, `a(n, 0:m)`, `c*4`, `k = 2*m`) and
    /// returns its name.
    fn declarator(&mut self, node: Node) -> Option<String> {
        match node.kind() {
            "identifier" => {
                let name = cst::lower_text(node, self.src);
                self.symbol(node);
                Some(name)
            }
            "sized_declarator" => {
                let name_node = cst::child_of_kind(node, "identifier")?;
                let name = cst::lower_text(name_node, self.src);
                let dims = cst::child_of_kind(node, "size").map(|s| self.dims(s));
                let len = cst::child_of_kind(node, "character_length").map(|l| {
                    match named_children(l).next() {
                        Some(v) => self.expr(v),
                        None => {
                            // `c*4`: the length is an anonymous token.
                            let t = cst::text(l, self.src).trim_start_matches('*').trim();
                            t.parse()
                                .map_or_else(|_| Expr::Unknown(t.to_string()), Expr::Int)
                        }
                    }
                });
                let sym = self.symbol(name_node);
                if dims.is_some() {
                    sym.dims = dims;
                }
                if let Some(len) = len {
                    let mut ty = sym
                        .ty
                        .take()
                        .unwrap_or_else(|| TypeSpec::of(BaseType::Character));
                    ty.len = Some(len);
                    sym.ty = Some(ty);
                }
                Some(name)
            }
            "init_declarator" | "pointer_init_declarator" => {
                let left = node.child_by_field_name("left")?;
                let name = self.declarator(left)?;
                if let Some(right) = node.child_by_field_name("right") {
                    let value = self.expr(right);
                    if let Some(sym) = self.symbols.get_mut(&name) {
                        sym.value = Some(value);
                    }
                }
                Some(name)
            }
            _ => None,
        }
    }

    /// An array spec: `(n, 0:m+1, *)`, `(:, :)`, `(1:*)`.
    pub(super) fn dims(&mut self, node: Node) -> Vec<Dim> {
        named_children(node)
            .map(|d| match d.kind() {
                "assumed_size" => Dim {
                    lower: None,
                    upper: Bound::Assumed,
                },
                "extent_specifier" => {
                    let t = self.triplet(d);
                    let upper = if cst::child_of_kind(d, "assumed_size").is_some() {
                        Bound::Assumed
                    } else {
                        t.upper.map_or(Bound::Deferred, Bound::Explicit)
                    };
                    Dim {
                        lower: t.lower,
                        upper,
                    }
                }
                _ => Dim {
                    lower: None,
                    upper: Bound::Explicit(self.expr(d)),
                },
            })
            .collect()
    }

    /// `COMMON /blk/ x(10), y /other/ z` and blank COMMON.
    fn common_statement(&mut self, node: Node) {
        let mut block = String::new();
        let mut members = Vec::new();
        for c in named_children(node) {
            if c.kind() == "variable_group" {
                let mut group_block = String::new();
                for m in named_children(c) {
                    if m.kind() == "name" {
                        // `/_/`: blank COMMON's `//` as syntax::repair rewrites it.
                        group_block = cst::lower_text(m, self.src);
                        if group_block.trim() == "_" {
                            group_block.clear();
                        }
                    } else if let Some(name) = self.declarator(m) {
                        members.push((group_block.clone(), name));
                    }
                }
                block = group_block;
            } else if let Some(name) = self.declarator(c) {
                members.push((block.clone(), name));
            }
        }
        for (block, name) in members {
            // A block may be continued by later COMMON statements: positions go on.
            let position = self
                .symbols
                .values()
                .filter(|s| s.common.as_ref().is_some_and(|(b, _)| *b == block))
                .count();
            if let Some(sym) = self.symbols.get_mut(&name)
                && sym.common.is_none()
            {
                sym.common = Some((block, position));
            }
        }
    }

    /// DATA: a scalar's integer initial value ([`super::data`]), kept as its value
    /// where it has none.
    fn data_statement(&mut self, node: Node) {
        let span = cst::span(node);
        for (name, value) in super::data::initial_values(&cst::lower_text(node, self.src)) {
            let sym = self
                .symbols
                .entry(name.clone())
                .or_insert_with(|| Symbol::new(name, span));
            if sym.value.is_none() && !sym.is_array() {
                sym.value = Some(Expr::Int(value));
            }
        }
    }

    /// Marks the dummy arguments as such (declaring the undeclared ones).
    pub(super) fn declare_dummies(&mut self, dummies: &[(String, crate::span::Span)]) {
        for (name, span) in dummies {
            self.symbols
                .entry(name.clone())
                .or_insert_with(|| Symbol::new(name.clone(), *span))
                .attrs
                .dummy = true;
        }
    }
}
