//! The grammar of one HPF directive, after extraction and lexing: HPF 2.0 §3 (PROCESSORS,
//! TEMPLATE, DISTRIBUTE, ALIGN and combined directives, H301–H331), §4 (INHERIT), §5
//! (INDEPENDENT), §7 (SEQUENCE) and the approved extensions of §8 (DYNAMIC, REDISTRIBUTE,
//! REALIGN, GEN_BLOCK, INDIRECT, sections after ONTO). Directives of §8–§9 that costline
//! does not model (ON, RESIDENT, TASK_REGION, SHADOW, RANGE, SUBSET) are recognized by
//! keyword only.
//!
//! A directive either parses completely or yields exactly one error, so one mistake never
//! produces a cascade and never hides the other directives of a unit.

use super::lexer::{Token, TokenKind};
use super::{CODE_SYNTAX, CODE_UNKNOWN_DIRECTIVE, CODE_UNMODELLED};
use crate::diagnostics::Diagnostic;
use crate::ir::directive::{
    Align, AlignSource, AlignSubscript, DirectiveKind, DistFormat, Distribute, Extent,
    FormatClause, IndependentDirective, Named, Onto, ShapeDecl,
};
use crate::ir::{Arg, ArrayRef, BinaryOp, Call, Expr, Subscript, Triplet, UnaryOp};
use crate::span::Span;

/// The deepest nesting of expressions accepted, so hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 200;

/// Directive keywords, for "did you mean" suggestions.
const DIRECTIVE_KEYWORDS: [&str; 18] = [
    "PROCESSORS",
    "TEMPLATE",
    "DISTRIBUTE",
    "ALIGN",
    "REDISTRIBUTE",
    "REALIGN",
    "INDEPENDENT",
    "DYNAMIC",
    "INHERIT",
    "SEQUENCE",
    "NOSEQUENCE",
    "ON",
    "RESIDENT",
    "TASK_REGION",
    "SHADOW",
    "RANGE",
    "SUBSET",
    "END",
];

/// Attributes of a combined directive (H302 with the extensions of H801).
const ATTRIBUTE_KEYWORDS: [&str; 10] = [
    "PROCESSORS",
    "TEMPLATE",
    "DIMENSION",
    "DISTRIBUTE",
    "ALIGN",
    "DYNAMIC",
    "INHERIT",
    "SHADOW",
    "RANGE",
    "SUBSET",
];

/// Approved extensions recognized by their leading keyword but not modelled.
const UNMODELLED_KEYWORDS: [&str; 6] =
    ["ON", "RESIDENT", "TASK_REGION", "SHADOW", "RANGE", "SUBSET"];

const FORMAT_KEYWORDS: [&str; 4] = ["BLOCK", "CYCLIC", "GEN_BLOCK", "INDIRECT"];

/// What one directive parsed into: one kind per attribute, and informational notes
/// (directives recognized but not modelled).
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub kinds: Vec<DirectiveKind>,
    pub notes: Vec<Diagnostic>,
}

/// Parses the tokens of one directive (`end`: the byte offset where it ends).
pub(super) fn parse_directive(tokens: Vec<Token<'_>>, end: usize) -> Result<Parsed, Diagnostic> {
    Parser::new(tokens, end, "the end of the directive").directive()
}

/// Parses the tokens of a whole expression (`end`: the byte offset where it ends).
pub(super) fn parse_expression(tokens: Vec<Token<'_>>, end: usize) -> Result<Expr, Diagnostic> {
    let mut p = Parser::new(tokens, end, "the end of the expression");
    let e = p.expr("an expression")?;
    p.expect_end("an operator or the end of the expression")?;
    Ok(e)
}

type PResult<T> = Result<T, Diagnostic>;

/// One attribute of a combined directive, or the attribute part of a single directive.
enum Attr {
    Processors,
    Template,
    Dimension(Vec<Extent>),
    Distribute(FormatClause, Option<Onto>),
    Align(AlignSpec),
    Dynamic,
    Inherit,
    Unmodelled(&'static str),
}

/// `[(align-source-list)] WITH [*]align-target[(align-subscript-list)]` (H313–H321).
struct AlignSpec {
    sources: Option<Vec<AlignSource>>,
    target: Named,
    descriptive: bool,
    subscripts: Option<Vec<AlignSubscript>>,
}

impl AlignSpec {
    fn into_align(self, alignees: Vec<Named>) -> Align {
        Align {
            alignees,
            sources: self.sources,
            target: self.target,
            descriptive: self.descriptive,
            subscripts: self.subscripts,
        }
    }
}

/// `name [(explicit-shape-spec-list)]` after `::` (H303), with the span of the shape.
struct Entity {
    name: Named,
    shape: Option<(Vec<Extent>, Span)>,
}

struct Parser<'a> {
    tokens: Vec<Token<'a>>,
    pos: usize,
    /// Byte offset of the end of the input: where "expected ..." errors at the end point.
    end: usize,
    /// How the end of the input is called in messages.
    eof: &'static str,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(tokens: Vec<Token<'a>>, end: usize, eof: &'static str) -> Parser<'a> {
        Parser {
            tokens,
            pos: 0,
            end,
            eof,
            depth: 0,
        }
    }

    // ---- token plumbing -------------------------------------------------------------

    fn peek(&self) -> Option<Token<'a>> {
        self.tokens.get(self.pos).copied()
    }

    fn peek_nth(&self, n: usize) -> Option<Token<'a>> {
        self.tokens.get(self.pos + n).copied()
    }

    fn at(&self, kind: TokenKind) -> bool {
        self.peek().is_some_and(|t| t.kind == kind)
    }

    fn at_end(&self) -> bool {
        self.pos >= self.tokens.len()
    }

    fn at_keyword(&self, keyword: &str) -> bool {
        self.peek()
            .is_some_and(|t| t.kind == TokenKind::Name && t.text.eq_ignore_ascii_case(keyword))
    }

    /// The current token, upper-cased, when it is a name.
    fn peek_word(&self) -> Option<(String, Span)> {
        self.peek()
            .filter(|t| t.kind == TokenKind::Name)
            .map(|t| (t.text.to_ascii_uppercase(), t.span))
    }

    fn bump(&mut self) -> Option<Token<'a>> {
        let t = self.peek();
        self.pos += 1;
        t
    }

    fn eat(&mut self, kind: TokenKind) -> Option<Token<'a>> {
        if self.at(kind) { self.bump() } else { None }
    }

    fn expect(&mut self, kind: TokenKind, expected: &str) -> PResult<Token<'a>> {
        self.eat(kind).ok_or_else(|| self.unexpected(expected))
    }

    fn expect_keyword(&mut self, keyword: &str, expected: &str) -> PResult<()> {
        if self.at_keyword(keyword) {
            self.bump();
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn expect_end(&self, expected: &str) -> PResult<()> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn at_colon(&self) -> bool {
        self.at(TokenKind::Colon) || self.at(TokenKind::DoubleColon)
    }

    /// Consumes one `:`; a `::` inside parentheses (`P(::2)`) is two colons, so it is
    /// split and its second half left for the next call.
    fn eat_colon(&mut self) -> bool {
        match self.peek() {
            Some(t) if t.kind == TokenKind::Colon => {
                self.pos += 1;
                true
            }
            Some(t) if t.kind == TokenKind::DoubleColon => {
                self.tokens[self.pos] = Token {
                    kind: TokenKind::Colon,
                    text: &t.text[1..],
                    span: Span::new(t.span.start as usize + 1, t.span.end as usize),
                };
                true
            }
            _ => false,
        }
    }

    /// The end of the last consumed token.
    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(self.end, |t| t.span.end as usize)
    }

    fn here(&self) -> Span {
        self.peek().map_or(Span::at(self.end), |t| t.span)
    }

    /// Whether a `::` appears outside parentheses: the attribute form of a directive.
    fn has_top_level_double_colon(&self) -> bool {
        let mut depth = 0usize;
        self.tokens[self.pos..].iter().any(|t| {
            match t.kind {
                TokenKind::LParen => depth += 1,
                TokenKind::RParen => depth = depth.saturating_sub(1),
                _ => {}
            }
            depth == 0 && t.kind == TokenKind::DoubleColon
        })
    }

    // ---- diagnostics ----------------------------------------------------------------

    fn describe_current(&self) -> String {
        match self.peek() {
            None => self.eof.to_string(),
            Some(t) if t.kind == TokenKind::Str => {
                "quoted text (character strings cannot appear in HPF directives)".to_string()
            }
            Some(t) => format!("`{}`", shorten(t.text)),
        }
    }

    /// "expected X, found Y" at the current token, or at the end of the input.
    fn unexpected(&self, expected: &str) -> Diagnostic {
        let mut message = format!("expected {expected}, found {}", self.describe_current());
        if self.at(TokenKind::Unknown) && self.peek().is_some_and(|t| t.text == "&") {
            message.push_str(" (`&` may only end a line, to continue the directive on the next)");
        }
        Diagnostic::error(self.here(), CODE_SYNTAX, message)
    }

    /// Like [`Parser::unexpected`], suggesting the closest of `candidates` to a misspelt word.
    fn unexpected_word(&self, expected: &str, candidates: &[&str]) -> Diagnostic {
        let mut d = self.unexpected(expected);
        if let Some(s) = self
            .peek_word()
            .and_then(|(w, _)| closest_keyword(&w, candidates))
        {
            d.message.push_str(&format!("; did you mean {s}?"));
        }
        d
    }

    // ---- directives -----------------------------------------------------------------

    fn directive(&mut self) -> PResult<Parsed> {
        if self.at_end() {
            return Ok(Parsed::default());
        }
        let Some((word, span)) = self.peek_word() else {
            return Err(self.unexpected("an HPF directive keyword"));
        };
        if let Some(&keyword) = UNMODELLED_KEYWORDS.iter().find(|k| **k == word) {
            // SHADOW, RANGE and SUBSET are also attributes: in a combined directive the
            // attributes costline models must not be lost. Their own syntax is not
            // checked, so when the combined form does not parse the directive is simply
            // unmodelled.
            if ATTRIBUTE_KEYWORDS.contains(&keyword)
                && self.has_top_level_double_colon()
                && let Ok(parsed) = self.combined()
            {
                return Ok(parsed);
            }
            return Ok(unmodelled(keyword, span));
        }
        let single = |kind| Parsed {
            kinds: vec![kind],
            notes: Vec::new(),
        };
        match word.as_str() {
            "END" => {
                self.bump();
                let Some((second, second_span)) = self.peek_word() else {
                    return Err(self.unexpected("`ON` or `TASK_REGION` after `END`"));
                };
                match second.as_str() {
                    "ON" => Ok(unmodelled("END ON", span.cover(second_span))),
                    "TASK_REGION" => Ok(unmodelled("END TASK_REGION", span.cover(second_span))),
                    _ => Err(self.unexpected("`ON` or `TASK_REGION` after `END`")),
                }
            }
            "PROCESSORS" | "TEMPLATE" | "DISTRIBUTE" | "ALIGN" | "DYNAMIC" | "INHERIT"
            | "DIMENSION"
                if self.has_top_level_double_colon() =>
            {
                self.combined()
            }
            "PROCESSORS" | "TEMPLATE" => {
                self.bump();
                let decls = self.comma_list(Parser::shape_decl)?;
                self.expect_end("`,` or the end of the directive")?;
                Ok(single(if word == "PROCESSORS" {
                    DirectiveKind::Processors(decls)
                } else {
                    DirectiveKind::Template(decls)
                }))
            }
            "DISTRIBUTE" => {
                self.bump();
                Ok(single(DirectiveKind::Distribute(
                    self.distribute_statement("DISTRIBUTE")?,
                )))
            }
            "REDISTRIBUTE" => {
                self.bump();
                let d = if self.has_top_level_double_colon() {
                    self.distribute_attributed("REDISTRIBUTE")?
                } else {
                    self.distribute_statement("REDISTRIBUTE")?
                };
                Ok(single(DirectiveKind::Redistribute(d)))
            }
            "ALIGN" => {
                self.bump();
                Ok(single(DirectiveKind::Align(self.align_statement()?)))
            }
            "REALIGN" => {
                self.bump();
                let a = if self.has_top_level_double_colon() {
                    self.align_attributed()?
                } else {
                    self.align_statement()?
                };
                Ok(single(DirectiveKind::Realign(a)))
            }
            "INDEPENDENT" => {
                self.bump();
                Ok(single(DirectiveKind::Independent(self.independent()?)))
            }
            "DYNAMIC" | "INHERIT" => {
                self.bump();
                let names = self.comma_list(|p| p.name("a name"))?;
                self.expect_end("`,` or the end of the directive")?;
                Ok(single(if word == "DYNAMIC" {
                    DirectiveKind::Dynamic(names)
                } else {
                    DirectiveKind::Inherit(names)
                }))
            }
            "DIMENSION" => Err(Diagnostic::error(
                span,
                CODE_SYNTAX,
                "DIMENSION is an attribute: it needs `::` and PROCESSORS or TEMPLATE \
                 (`PROCESSORS, DIMENSION(4) :: P`)",
            )),
            "SEQUENCE" | "NOSEQUENCE" => {
                self.bump();
                Ok(single(self.sequence(word == "SEQUENCE")?))
            }
            "NO" => {
                self.bump();
                if !self.at_keyword("SEQUENCE") {
                    return Err(self.unexpected("`SEQUENCE` after `NO`"));
                }
                self.bump();
                Ok(single(self.sequence(false)?))
            }
            _ => {
                let mut message = format!("unknown HPF directive `{}`", shorten(&word));
                if let Some(s) = closest_keyword(&word, &DIRECTIVE_KEYWORDS) {
                    let s = if s == "NOSEQUENCE" { "NO SEQUENCE" } else { s };
                    message.push_str(&format!("; did you mean {s}?"));
                }
                Err(Diagnostic::error(span, CODE_UNKNOWN_DIRECTIVE, message))
            }
        }
    }

    /// `combined-attribute-list :: combined-decl-list` (H301–H303, H801), also covering
    /// the `::` forms of PROCESSORS, TEMPLATE, DISTRIBUTE, ALIGN, DYNAMIC and INHERIT.
    fn combined(&mut self) -> PResult<Parsed> {
        let mut attrs: Vec<(Attr, &'static str, Span)> = Vec::new();
        loop {
            let Some((word, span)) = self.peek_word() else {
                return Err(self.unexpected("a directive attribute"));
            };
            let Some(&keyword) = ATTRIBUTE_KEYWORDS.iter().find(|k| **k == word) else {
                return Err(self.unexpected_word(
                    "a directive attribute (PROCESSORS, TEMPLATE, DIMENSION, DISTRIBUTE, \
                     ALIGN, DYNAMIC or INHERIT)",
                    &ATTRIBUTE_KEYWORDS,
                ));
            };
            if attrs.iter().any(|(_, k, _)| *k == keyword) {
                return Err(Diagnostic::error(
                    span,
                    CODE_SYNTAX,
                    format!("{keyword} appears twice in this directive"),
                ));
            }
            self.bump();
            let attr = match keyword {
                "PROCESSORS" => Attr::Processors,
                "TEMPLATE" => Attr::Template,
                "DIMENSION" => {
                    self.expect(TokenKind::LParen, "`(` and the shape after DIMENSION")?;
                    let shape = self.comma_list(Parser::extent)?;
                    self.expect(TokenKind::RParen, "`)` to close the shape of DIMENSION")?;
                    Attr::Dimension(shape)
                }
                "DISTRIBUTE" => {
                    let formats = self.format_clause("DISTRIBUTE")?;
                    Attr::Distribute(formats, self.onto()?)
                }
                "ALIGN" => Attr::Align(self.align_spec()?),
                "DYNAMIC" => Attr::Dynamic,
                "INHERIT" => Attr::Inherit,
                _ => {
                    self.skip_attribute();
                    Attr::Unmodelled(keyword)
                }
            };
            attrs.push((attr, keyword, span));
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect(
            TokenKind::DoubleColon,
            "`,` and another attribute, or `::` before the names",
        )?;
        let entities = self.comma_list(Parser::entity)?;
        self.expect_end("`,` or the end of the directive")?;
        build_combined(attrs, entities)
    }

    /// Skips the operands of an attribute costline does not model: up to `::` or a comma
    /// followed by another attribute keyword, outside parentheses.
    fn skip_attribute(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.peek() {
            match t.kind {
                TokenKind::LParen => depth += 1,
                TokenKind::RParen => depth = depth.saturating_sub(1),
                TokenKind::DoubleColon if depth == 0 => return,
                TokenKind::Comma if depth == 0 => {
                    let next_is_attribute = self.peek_nth(1).is_some_and(|n| {
                        n.kind == TokenKind::Name
                            && ATTRIBUTE_KEYWORDS
                                .iter()
                                .any(|k| n.text.eq_ignore_ascii_case(k))
                    });
                    if next_is_attribute {
                        return;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// `hpf-entity [(explicit-shape-spec-list)]` or `object-name` (H303).
    fn entity(&mut self) -> PResult<Entity> {
        let name = self.name("a name")?;
        let shape = match self.eat(TokenKind::LParen) {
            Some(open) => {
                let shape = self.comma_list(Parser::extent)?;
                self.expect(
                    TokenKind::RParen,
                    &format!("`)` to close the shape of `{}`", name.name),
                )?;
                Some((shape, open.span.cover(Span::at(self.prev_end()))))
            }
            None => None,
        };
        Ok(Entity { name, shape })
    }

    /// `name [(explicit-shape-spec-list)]` (H323 processors-decl, H326 template-decl).
    fn shape_decl(&mut self) -> PResult<ShapeDecl> {
        let name = self.name("a name")?;
        let mut shape = Vec::new();
        if self.eat(TokenKind::LParen).is_some() {
            shape = self.comma_list(Parser::extent)?;
            self.expect(
                TokenKind::RParen,
                &format!("`)` to close the shape of `{}`", name.name),
            )?;
        }
        Ok(ShapeDecl { name, shape })
    }

    /// `[lower-bound :] upper-bound` (explicit-shape-spec, F95 R513).
    fn extent(&mut self) -> PResult<Extent> {
        let first = self.expr("an extent (`upper` or `lower:upper`)")?;
        if self.eat_colon() {
            let upper = self.expr("an upper bound after `:`")?;
            Ok(Extent {
                lower: Some(first),
                upper,
            })
        } else {
            Ok(Extent {
                lower: None,
                upper: first,
            })
        }
    }

    /// `distributee [dist-format-clause] [ONTO dist-target]` (H301–H302, HPF 1 form included).
    fn distribute_statement(&mut self, directive: &str) -> PResult<Distribute> {
        let distributee = self.name(&format!("the array or template to {directive}"))?;
        let formats = self.format_clause(directive)?;
        let onto = self.onto()?;
        let expected = match (&formats, &onto) {
            (FormatClause::Absent, None) => "a format list, `ONTO` or the end of the directive",
            (_, None) => "`ONTO` or the end of the directive",
            (_, Some(_)) => "the end of the directive",
        };
        self.expect_end(expected)?;
        Ok(Distribute {
            distributees: vec![distributee],
            formats,
            onto,
        })
    }

    /// `dist-attribute-stuff :: distributee-list` (the `::` form of REDISTRIBUTE).
    fn distribute_attributed(&mut self, directive: &str) -> PResult<Distribute> {
        let formats = self.format_clause(directive)?;
        let onto = self.onto()?;
        self.expect(TokenKind::DoubleColon, "`::` before the names")?;
        let distributees = self.comma_list(|p| p.name("a name"))?;
        self.expect_end("`,` or the end of the directive")?;
        Ok(Distribute {
            distributees,
            formats,
            onto,
        })
    }

    /// `(dist-format-list)` | `*(dist-format-list)` | `*` | nothing (H305).
    fn format_clause(&mut self, directive: &str) -> PResult<FormatClause> {
        if self.at(TokenKind::LParen) {
            Ok(FormatClause::Prescriptive(self.format_list(directive)?))
        } else if self.eat(TokenKind::Star).is_some() {
            if self.at(TokenKind::LParen) {
                Ok(FormatClause::Descriptive(self.format_list(directive)?))
            } else {
                Ok(FormatClause::Transcriptive)
            }
        } else {
            Ok(FormatClause::Absent)
        }
    }

    fn format_list(&mut self, directive: &str) -> PResult<Vec<DistFormat>> {
        self.expect(TokenKind::LParen, "`(`")?;
        let formats = self.comma_list(Parser::dist_format)?;
        self.expect(
            TokenKind::RParen,
            &format!("`)` to close the format list of {directive}"),
        )?;
        Ok(formats)
    }

    /// `BLOCK [(int-expr)]` | `CYCLIC [(int-expr)]` | `*` (H306), and the approved
    /// extensions `GEN_BLOCK(int-array)` and `INDIRECT(int-array)` (H806).
    fn dist_format(&mut self) -> PResult<DistFormat> {
        if self.eat(TokenKind::Star).is_some() {
            return Ok(DistFormat::Collapsed);
        }
        let expected = "a distribution format (BLOCK, CYCLIC, *)";
        let Some((word, _)) = self.peek_word() else {
            return Err(self.unexpected(expected));
        };
        let format = match word.as_str() {
            "BLOCK" => {
                self.bump();
                DistFormat::Block(self.format_argument("BLOCK", false)?)
            }
            "CYCLIC" => {
                self.bump();
                DistFormat::Cyclic(self.format_argument("CYCLIC", false)?)
            }
            "GEN_BLOCK" | "INDIRECT" => {
                self.bump();
                let argument = self.format_argument(&word, true)?;
                let Some(argument) = argument else {
                    return Err(self.unexpected(&format!("`(` after {word}")));
                };
                if word == "GEN_BLOCK" {
                    DistFormat::GenBlock(argument)
                } else {
                    DistFormat::Indirect(argument)
                }
            }
            _ => return Err(self.unexpected_word(expected, &FORMAT_KEYWORDS)),
        };
        Ok(format)
    }

    /// `(int-expr)` after a format keyword; `None` when absent and not `required`.
    fn format_argument(&mut self, format: &str, required: bool) -> PResult<Option<Expr>> {
        if self.eat(TokenKind::LParen).is_none() {
            return if required {
                Err(self.unexpected(&format!("`(` after {format}")))
            } else {
                Ok(None)
            };
        }
        let what = if required {
            format!("the array argument of {format}")
        } else {
            format!("the block size of {format}")
        };
        let e = self.expr(&what)?;
        self.expect(
            TokenKind::RParen,
            &format!("`)` to close the argument of {format}"),
        )?;
        Ok(Some(e))
    }

    /// `[ONTO dist-target]`: `name`, `name(section)`, `*name` or `*` (H307–H308, H808).
    fn onto(&mut self) -> PResult<Option<Onto>> {
        if !self.at_keyword("ONTO") {
            return Ok(None);
        }
        self.bump();
        let descriptive = self.eat(TokenKind::Star).is_some();
        if descriptive && !self.at(TokenKind::Name) {
            return Ok(Some(Onto::Transcriptive));
        }
        let name = self.name("a processors arrangement after ONTO")?;
        let mut section = Vec::new();
        if self.eat(TokenKind::LParen).is_some() {
            section = self.comma_list(Parser::section_triplet)?;
            self.expect(
                TokenKind::RParen,
                &format!("`)` to close the section of `{}`", name.name),
            )?;
        }
        Ok(Some(Onto::Target {
            name,
            section,
            descriptive,
        }))
    }

    /// A subscript triplet of a processors section after ONTO.
    fn section_triplet(&mut self) -> PResult<Triplet> {
        let start = self.here().start as usize;
        match self.subscript("a subscript triplet (`lower:upper`)")? {
            Subscript::Range(t) => Ok(t),
            Subscript::Index(_) => Err(Diagnostic::error(
                Span::new(start, self.prev_end()),
                CODE_SYNTAX,
                "costline supports only subscript triplets (`lower:upper[:stride]`) in a \
                 processors section after ONTO, not single subscripts",
            )),
        }
    }

    /// `alignee align-directive-stuff` (H312–H313); also `a, b, c WITH t`, several
    /// alignees of one spec, as compilers take it.
    fn align_statement(&mut self) -> PResult<Align> {
        let mut alignees = vec![self.name("the array to align")?];
        while self.eat(TokenKind::Comma).is_some() {
            alignees.push(self.name("an array to align")?);
        }
        let spec = self.align_spec()?;
        self.expect_end("the end of the directive")?;
        Ok(spec.into_align(alignees))
    }

    /// `align-attribute-stuff :: alignee-list` (the `::` form of REALIGN).
    fn align_attributed(&mut self) -> PResult<Align> {
        let spec = self.align_spec()?;
        self.expect(TokenKind::DoubleColon, "`::` before the names")?;
        let alignees = self.comma_list(|p| p.name("a name"))?;
        self.expect_end("`,` or the end of the directive")?;
        Ok(spec.into_align(alignees))
    }

    /// `[(align-source-list)] WITH [*]align-target[(align-subscript-list)]` (H314–H321).
    fn align_spec(&mut self) -> PResult<AlignSpec> {
        let sources = if self.eat(TokenKind::LParen).is_some() {
            let sources = self.comma_list(Parser::align_source)?;
            self.expect(TokenKind::RParen, "`)` to close the align-source list")?;
            Some(sources)
        } else {
            None
        };
        self.expect_keyword("WITH", "`WITH` and the align target")?;
        let descriptive = self.eat(TokenKind::Star).is_some();
        let target = self.name("the align target (an array or template)")?;
        let subscripts = if self.eat(TokenKind::LParen).is_some() {
            let subscripts = self.comma_list(Parser::align_subscript)?;
            self.expect(
                TokenKind::RParen,
                &format!("`)` to close the subscripts of `{}`", target.name),
            )?;
            Some(subscripts)
        } else {
            None
        };
        Ok(AlignSpec {
            sources,
            target,
            descriptive,
            subscripts,
        })
    }

    /// `:` | `*` | align-dummy (H316).
    fn align_source(&mut self) -> PResult<AlignSource> {
        match self.peek() {
            Some(t) if t.kind == TokenKind::Colon => {
                self.bump();
                Ok(AlignSource::Colon)
            }
            Some(t) if t.kind == TokenKind::Star => {
                self.bump();
                Ok(AlignSource::Star)
            }
            Some(t) if t.kind == TokenKind::Name => {
                self.bump();
                Ok(AlignSource::Dummy(t.text.to_ascii_lowercase()))
            }
            _ => Err(self.unexpected("an align dummy, `:` or `*`")),
        }
    }

    /// `*` | subscript-triplet | int-expr (H321).
    fn align_subscript(&mut self) -> PResult<AlignSubscript> {
        if self.eat(TokenKind::Star).is_some() {
            return Ok(AlignSubscript::Star);
        }
        Ok(
            match self.subscript("an align subscript (an expression, a triplet or `*`)")? {
                Subscript::Index(e) => AlignSubscript::Expr(e),
                Subscript::Range(t) => AlignSubscript::Triplet(t),
            },
        )
    }

    /// `expr` | `[lower] : [upper] [: stride]` (F95 R618–R620).
    fn subscript(&mut self, expected: &str) -> PResult<Subscript> {
        let lower = if self.at_colon() {
            None
        } else {
            Some(self.expr(expected)?)
        };
        if !self.eat_colon() {
            return Ok(match lower {
                Some(e) => Subscript::Index(e),
                None => return Err(self.unexpected(expected)),
            });
        }
        let upper = if self.starts_expr() {
            Some(self.expr("an upper bound")?)
        } else {
            None
        };
        let stride = if self.eat_colon() {
            Some(self.expr("a stride after the second `:`")?)
        } else {
            None
        };
        Ok(Subscript::Range(Triplet {
            lower,
            upper,
            stride,
        }))
    }

    /// `INDEPENDENT [(index-list)] [, NEW(name-list)] [, REDUCTION(name-list)]
    /// [, ON HOME(home)]` (H501–H503 and the approved extension's ON HOME, also spelt
    /// `ONHOME`), the clauses in any order, each comma optional as compilers take them
    /// (`INDEPENDENT NEW(i)`).
    fn independent(&mut self) -> PResult<IndependentDirective> {
        let mut d = IndependentDirective::default();
        if self.eat(TokenKind::LParen).is_some() {
            d.indices = self.comma_list(|p| p.name("a FORALL index name"))?;
            self.expect(
                TokenKind::RParen,
                "`)` to close the index list of INDEPENDENT",
            )?;
        }
        let mut seen: Vec<String> = Vec::new();
        loop {
            let comma = self.eat(TokenKind::Comma).is_some();
            let clause = self
                .peek_word()
                .filter(|(w, _)| ["NEW", "REDUCTION", "ON", "ONHOME"].contains(&w.as_str()));
            let Some((word, span)) = clause else {
                if comma {
                    return Err(self.unexpected_word(
                        "`NEW`, `REDUCTION` or `ON HOME` after `,` in INDEPENDENT",
                        &["NEW", "REDUCTION", "ONHOME"],
                    ));
                }
                break;
            };
            let word = if word == "ON" {
                "ONHOME".to_string()
            } else {
                word
            };
            if seen.contains(&word) {
                return Err(Diagnostic::error(
                    span,
                    CODE_SYNTAX,
                    format!("{word} appears twice in this INDEPENDENT directive"),
                ));
            }
            seen.push(word.clone());
            if self
                .bump()
                .is_some_and(|t| t.text.eq_ignore_ascii_case("on"))
            {
                self.expect_keyword("HOME", "`HOME` after `ON`")?;
            }
            self.expect(TokenKind::LParen, &format!("`(` after {word}"))?;
            match word.as_str() {
                "NEW" => d.new = self.comma_list(|p| p.name("a variable name"))?,
                "REDUCTION" => d.reduction = self.comma_list(Parser::reduction_variable)?,
                _ => d.on_home = Some(self.home()?),
            }
            self.expect(
                TokenKind::RParen,
                &format!("`)` to close the list of {word}"),
            )?;
        }
        self.expect_end("`,` or the end of the directive")?;
        Ok(d)
    }

    /// The home of ON HOME: an array element or section, `a(i, j)` or `a(:, j)`.
    fn home(&mut self) -> PResult<ArrayRef> {
        let name = self.name("the array whose owner executes each iteration")?;
        let mut subscripts = Vec::new();
        if self.eat(TokenKind::LParen).is_some() {
            subscripts = self.comma_list(|p| p.subscript("a subscript"))?;
            self.expect(
                TokenKind::RParen,
                &format!("`)` to close the subscripts of `{}`", name.name),
            )?;
        }
        Ok(ArrayRef {
            name: name.name,
            subscripts,
            span: name.span.cover(Span::at(self.prev_end())),
        })
    }

    /// A reduction variable (H504): a name. Operator prefixes (`+: s`) are not HPF 2.0.
    fn reduction_variable(&mut self) -> PResult<Named> {
        let operator_prefix = match self.peek() {
            Some(t) if t.kind == TokenKind::Name => {
                self.peek_nth(1).is_some_and(|n| n.kind == TokenKind::Colon)
            }
            Some(t) => matches!(
                t.kind,
                TokenKind::Plus | TokenKind::Minus | TokenKind::Star | TokenKind::Dotted
            ),
            None => false,
        };
        if operator_prefix {
            return Err(Diagnostic::error(
                self.here(),
                CODE_SYNTAX,
                "HPF 2.0 REDUCTION lists only variables (`REDUCTION(s)`): the reduction \
                 operator comes from the statements in the loop",
            ));
        }
        self.name("a reduction variable name")
    }

    /// `[[::] association-name-list]` after SEQUENCE or NO SEQUENCE (H702); a common
    /// block `/name/` keeps its slashes in [`Named::name`].
    fn sequence(&mut self, sequence: bool) -> PResult<DirectiveKind> {
        let mut names = Vec::new();
        if !self.at_end() {
            self.eat(TokenKind::DoubleColon);
            names = self.comma_list(Parser::association_name)?;
            self.expect_end("`,` or the end of the directive")?;
        }
        Ok(DirectiveKind::Sequence { names, sequence })
    }

    fn association_name(&mut self) -> PResult<Named> {
        let Some(open) = self.eat(TokenKind::Slash) else {
            return self.name("a variable name or `/common-block/`");
        };
        let block = self.name("a common block name after `/`")?;
        let close = self.expect(TokenKind::Slash, "`/` to close the common block name")?;
        Ok(Named {
            name: format!("/{}/", block.name),
            span: open.span.cover(close.span),
        })
    }

    // ---- small pieces ---------------------------------------------------------------

    fn name(&mut self, expected: &str) -> PResult<Named> {
        match self.eat(TokenKind::Name) {
            Some(t) => Ok(Named {
                name: t.text.to_ascii_lowercase(),
                span: t.span,
            }),
            None => Err(self.unexpected(expected)),
        }
    }

    /// `item {, item}`.
    fn comma_list<T>(&mut self, mut item: impl FnMut(&mut Self) -> PResult<T>) -> PResult<Vec<T>> {
        let mut items = vec![item(self)?];
        while self.eat(TokenKind::Comma).is_some() {
            items.push(item(self)?);
        }
        Ok(items)
    }

    // ---- expressions ----------------------------------------------------------------

    fn starts_expr(&self) -> bool {
        self.peek().is_some_and(|t| match t.kind {
            TokenKind::Name
            | TokenKind::Int
            | TokenKind::Real
            | TokenKind::LParen
            | TokenKind::Plus
            | TokenKind::Minus => true,
            TokenKind::Dotted => [".not.", ".true.", ".false."]
                .iter()
                .any(|w| t.text.eq_ignore_ascii_case(w)),
            _ => false,
        })
    }

    /// An expression; `expected` names it in the error when none starts here.
    fn expr(&mut self, expected: &str) -> PResult<Expr> {
        if !self.starts_expr() {
            return Err(self.unexpected(expected));
        }
        self.expr_bp(0)
    }

    /// Precedence climbing over [`BinaryOp::precedence`]: parses operators binding at
    /// least as tightly as `min`. `**` is right-associative, relational operators do not
    /// chain (F95 R714), every other operator is left-associative.
    fn expr_bp(&mut self, min: u8) -> PResult<Expr> {
        if self.depth >= MAX_DEPTH {
            return Err(Diagnostic::error(
                self.here(),
                CODE_SYNTAX,
                format!("expression nested too deeply (more than {MAX_DEPTH} levels)"),
            ));
        }
        self.depth += 1;
        let result = self.expr_bp_inner(min);
        self.depth -= 1;
        result
    }

    fn expr_bp_inner(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.prefix()?;
        let mut after_relational = false;
        while let Some(op) = self.binary_op()? {
            let precedence = op.precedence();
            if precedence < min {
                break;
            }
            if op.is_relational() && after_relational {
                return Err(Diagnostic::error(
                    self.here(),
                    CODE_SYNTAX,
                    "relational operators cannot be chained: add parentheses",
                ));
            }
            self.bump();
            let rhs = if op == BinaryOp::Pow {
                self.expr_bp(precedence)?
            } else {
                self.expr_bp(precedence + 1)?
            };
            lhs = Expr::binary(op, lhs, rhs);
            after_relational = op.is_relational();
        }
        Ok(lhs)
    }

    /// The binary operator at the current token, if any.
    fn binary_op(&self) -> PResult<Option<BinaryOp>> {
        let Some(t) = self.peek() else {
            return Ok(None);
        };
        match t.kind {
            TokenKind::Star
            | TokenKind::Slash
            | TokenKind::Plus
            | TokenKind::Minus
            | TokenKind::Operator => Ok(BinaryOp::from_token(t.text)),
            TokenKind::Dotted => match BinaryOp::from_token(t.text) {
                Some(op) => Ok(Some(op)),
                None if self.starts_expr() => Ok(None),
                None => Err(Diagnostic::error(
                    t.span,
                    CODE_SYNTAX,
                    format!("unknown operator `{}`", shorten(t.text)),
                )),
            },
            _ => Ok(None),
        }
    }

    /// A primary, or a unary operator and its operand: `+`/`-` apply to a whole
    /// multiplication (F95 R706: `-a*b` is `-(a*b)`), `.NOT.` to a relational expression.
    fn prefix(&mut self) -> PResult<Expr> {
        let Some(t) = self.peek() else {
            return Err(self.unexpected("an expression"));
        };
        match t.kind {
            TokenKind::Int => {
                self.bump();
                let digits = t.text.split('_').next().unwrap_or(t.text);
                digits.parse::<i64>().map(Expr::Int).map_err(|_| {
                    Diagnostic::error(
                        t.span,
                        CODE_SYNTAX,
                        format!("integer literal `{}` is too large", shorten(t.text)),
                    )
                })
            }
            TokenKind::Real => {
                self.bump();
                Ok(Expr::Real(t.text.to_string()))
            }
            TokenKind::Plus | TokenKind::Minus => {
                self.bump();
                let operand = self.expr_bp(BinaryOp::Mul.precedence())?;
                let op = if t.kind == TokenKind::Minus {
                    UnaryOp::Neg
                } else {
                    UnaryOp::Plus
                };
                Ok(Expr::Unary(op, Box::new(operand)))
            }
            TokenKind::Dotted if t.text.eq_ignore_ascii_case(".not.") => {
                self.bump();
                let operand = self.expr_bp(BinaryOp::Eq.precedence())?;
                Ok(Expr::Unary(UnaryOp::Not, Box::new(operand)))
            }
            TokenKind::Dotted if t.text.eq_ignore_ascii_case(".true.") => {
                self.bump();
                Ok(Expr::Logical(true))
            }
            TokenKind::Dotted if t.text.eq_ignore_ascii_case(".false.") => {
                self.bump();
                Ok(Expr::Logical(false))
            }
            TokenKind::LParen => {
                self.bump();
                let inner = self.expr_bp(0)?;
                self.expect(
                    TokenKind::RParen,
                    "`)` to close the parenthesized expression",
                )?;
                Ok(inner)
            }
            TokenKind::Name => {
                self.bump();
                let name = t.text.to_ascii_lowercase();
                if self.at(TokenKind::LParen) {
                    self.reference(name, t.span)
                } else {
                    Ok(Expr::Name(name))
                }
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    /// `name(args)`: a [`Call`] (directives cannot tell arrays from functions), or an
    /// [`ArrayRef`] once a subscript is a triplet and so cannot be an argument.
    fn reference(&mut self, name: String, name_span: Span) -> PResult<Expr> {
        self.expect(TokenKind::LParen, "`(`")?;
        let mut args: Vec<Arg> = Vec::new();
        let mut section: Option<Vec<Subscript>> = None;
        let mut keyword_span = None;
        let mut item = 0usize;
        while !self.at(TokenKind::RParen) && (item == 0 || self.eat(TokenKind::Comma).is_some()) {
            item += 1;
            let keyword = match (self.peek(), self.peek_nth(1)) {
                (Some(k), Some(eq))
                    if k.kind == TokenKind::Name && eq.kind == TokenKind::Equals =>
                {
                    self.pos += 2;
                    keyword_span = keyword_span.or(Some(k.span));
                    Some(k.text.to_ascii_lowercase())
                }
                _ => None,
            };
            let value = if keyword.is_some() {
                Subscript::Index(self.expr("an argument after `=`")?)
            } else {
                self.subscript("an argument")?
            };
            match (value, &mut section) {
                (Subscript::Index(value), None) => args.push(Arg { keyword, value }),
                (value, Some(subscripts)) => subscripts.push(value),
                (Subscript::Range(triplet), None) => {
                    let mut subscripts: Vec<Subscript> =
                        args.drain(..).map(|a| Subscript::Index(a.value)).collect();
                    subscripts.push(Subscript::Range(triplet));
                    section = Some(subscripts);
                }
            }
            if let (Some(span), Some(_)) = (keyword_span, &section) {
                return Err(Diagnostic::error(
                    span,
                    CODE_SYNTAX,
                    format!(
                        "`{name}` has a subscript triplet, so it is an array section and \
                         cannot take keyword arguments"
                    ),
                ));
            }
        }
        self.expect(
            TokenKind::RParen,
            &format!("`)` to close the argument list of `{name}`"),
        )?;
        let span = name_span.cover(Span::at(self.prev_end()));
        Ok(match section {
            Some(subscripts) => Expr::Array(ArrayRef {
                name,
                subscripts,
                span,
            }),
            None => Expr::Call(Call { name, args, span }),
        })
    }
}

fn unmodelled(keyword: &'static str, span: Span) -> Parsed {
    Parsed {
        kinds: vec![DirectiveKind::Unmodelled(keyword.to_string())],
        notes: vec![unmodelled_note(keyword, span)],
    }
}

fn unmodelled_note(keyword: &str, span: Span) -> Diagnostic {
    Diagnostic::info(
        span,
        CODE_UNMODELLED,
        format!(
            "{keyword} is valid HPF but costline does not model it; it does not affect the estimates"
        ),
    )
}

/// Checks the constraints of H301–H303 and splits a combined directive into one kind per
/// attribute; DIMENSION gives its shape to the PROCESSORS or TEMPLATE entities without one.
fn build_combined(
    attrs: Vec<(Attr, &'static str, Span)>,
    entities: Vec<Entity>,
) -> PResult<Parsed> {
    let declares = |k: &str| {
        attrs
            .iter()
            .find(|(_, key, _)| *key == k)
            .map(|(_, _, s)| *s)
    };
    let (processors, template) = (declares("PROCESSORS"), declares("TEMPLATE"));
    if let (Some(a), Some(b)) = (processors, template) {
        return Err(Diagnostic::error(
            a.max(b),
            CODE_SYNTAX,
            "an entity cannot be both a processors arrangement and a template",
        ));
    }
    let shaped = processors.is_some() || template.is_some();
    if let Some(span) = declares("DIMENSION").filter(|_| !shaped) {
        return Err(Diagnostic::error(
            span,
            CODE_SYNTAX,
            "DIMENSION gives the shape of processors arrangements and templates: it needs \
             PROCESSORS or TEMPLATE in the same directive",
        ));
    }
    if let Some((_, span)) = entities
        .iter()
        .find_map(|e| e.shape.as_ref())
        .filter(|_| !shaped)
    {
        return Err(Diagnostic::error(
            *span,
            CODE_SYNTAX,
            "only processors arrangements and templates are declared with a shape here: \
             add PROCESSORS or TEMPLATE, or declare the array's shape in Fortran",
        ));
    }
    let dimension = attrs.iter().find_map(|(a, _, _)| match a {
        Attr::Dimension(shape) => Some(shape.clone()),
        _ => None,
    });
    let names = || entities.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
    let decls = || {
        entities
            .iter()
            .map(|e| ShapeDecl {
                name: e.name.clone(),
                shape: e
                    .shape
                    .as_ref()
                    .map(|(s, _)| s.clone())
                    .or_else(|| dimension.clone())
                    .unwrap_or_default(),
            })
            .collect::<Vec<_>>()
    };
    let mut parsed = Parsed::default();
    for (attr, _, span) in attrs {
        let kind = match attr {
            Attr::Processors => DirectiveKind::Processors(decls()),
            Attr::Template => DirectiveKind::Template(decls()),
            Attr::Dimension(_) => continue,
            Attr::Distribute(formats, onto) => DirectiveKind::Distribute(Distribute {
                distributees: names(),
                formats,
                onto,
            }),
            Attr::Align(spec) => DirectiveKind::Align(spec.into_align(names())),
            Attr::Dynamic => DirectiveKind::Dynamic(names()),
            Attr::Inherit => DirectiveKind::Inherit(names()),
            Attr::Unmodelled(keyword) => {
                parsed.notes.push(unmodelled_note(keyword, span));
                DirectiveKind::Unmodelled(keyword.to_string())
            }
        };
        parsed.kinds.push(kind);
    }
    Ok(parsed)
}

/// The keyword closest to `word` (upper-case) within edit distance 2, when that is a
/// plausible misspelling rather than a different word (at most one edit per three letters).
fn closest_keyword<'k>(word: &str, candidates: &[&'k str]) -> Option<&'k str> {
    if word.len() > 24 {
        return None;
    }
    candidates
        .iter()
        .map(|c| (edit_distance(word.as_bytes(), c.as_bytes()), *c))
        .filter(|&(d, _)| d <= 2 && 3 * d <= word.len())
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Levenshtein distance between two byte strings.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// Token text for messages, cut to a readable length on a char boundary.
fn shorten(text: &str) -> String {
    const MAX_CHARS: usize = 40;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::hpf::parse_expr;
    use crate::hpf::testing::{render, render_diagnostics};
    use crate::ir::{Expr, Subscript, UnaryOp};
    use expect_test::{Expect, expect};

    fn check(text: &str, expect: Expect) {
        expect.assert_eq(&render(text));
    }

    /// Fully parenthesized prefix form, so a reviewer sees the tree, not just the text.
    fn tree(e: &Expr) -> String {
        let list = |items: Vec<String>| items.join(" ");
        match e {
            Expr::Int(v) => v.to_string(),
            Expr::Real(r) => r.clone(),
            Expr::Logical(b) => format!(".{b}."),
            Expr::Str(s) => format!("{s:?}"),
            Expr::Name(n) => n.clone(),
            Expr::Unknown(u) => format!("?{u}"),
            Expr::Call(c) => {
                let args = c
                    .args
                    .iter()
                    .map(|a| match &a.keyword {
                        Some(k) => format!("{k}={}", tree(&a.value)),
                        None => tree(&a.value),
                    })
                    .collect();
                format!("(call {} {})", c.name, list(args)).replace(" )", ")")
            }
            Expr::Array(a) => {
                let subscripts = a
                    .subscripts
                    .iter()
                    .map(|s| match s {
                        Subscript::Index(e) => tree(e),
                        Subscript::Range(t) => format!("[{t}]"),
                    })
                    .collect();
                format!("(array {} {})", a.name, list(subscripts))
            }
            Expr::Unary(op, e) => {
                let op = match op {
                    UnaryOp::Neg => "neg",
                    UnaryOp::Plus => "plus",
                    UnaryOp::Not => ".not.",
                };
                format!("({op} {})", tree(e))
            }
            Expr::Binary(op, a, b) => format!("({} {} {})", op.symbol(), tree(a), tree(b)),
        }
    }

    fn check_expr(text: &str, expect: Expect) {
        let out = match parse_expr(text, 0) {
            Ok(e) => format!("{}  =>  {e}\n", tree(&e)),
            Err(d) => render_diagnostics(text, &[d]),
        };
        expect.assert_eq(&out);
    }

    #[test]
    fn processors() {
        check(
            "!HPF$ PROCESSORS :: PR(P)
!HPF$ PROCESSORS Q(4, NP/4), R(0:3), S
!HPF$ PROCESSORS P1(NUMBER_OF_PROCESSORS()), P2(NUMBER_OF_PROCESSORS()/2)
!hpf$ processors P3(Number_Of_Processors(DIM=1), 2)
",
            expect![[r#"
                1:1-1:26 PROCESSORS pr(p)
                2:1-2:39 PROCESSORS q(4, np/4), r(0:3), s
                3:1-3:74 PROCESSORS p1(number_of_processors()), p2(number_of_processors()/2)
                4:1-4:52 PROCESSORS p3(number_of_processors(dim=1), 2)
            "#]],
        );
    }

    #[test]
    fn templates() {
        check(
            "!HPF$ TEMPLATE T(N, 0:M)
!HPF$ TEMPLATE :: U(2*N), V(-1:N+1)
!HPF$ TEMPLATE S
",
            expect![[r#"
                1:1-1:25 TEMPLATE t(n, 0:m)
                2:1-2:36 TEMPLATE u(2*n), v(-1:n + 1)
                3:1-3:17 TEMPLATE s
            "#]],
        );
    }

    #[test]
    fn distribute_forms() {
        check(
            "!HPF$ DISTRIBUTE (BLOCK) ONTO PR :: A
!HPF$ DISTRIBUTE A(BLOCK, CYCLIC, *) ONTO P
!HPF$ DISTRIBUTE B(BLOCK(N/P), CYCLIC(2))
!HPF$ DISTRIBUTE C ONTO P
!HPF$ DISTRIBUTE D *(BLOCK) ONTO *Q
!HPF$ DISTRIBUTE E * ONTO *
!HPF$ DISTRIBUTE F(GEN_BLOCK(SIZES), INDIRECT(MAP))
!HPF$ DISTRIBUTE (CYCLIC, BLOCK) ONTO P(1:4, ::2) :: G, H
!HPF$ DISTRIBUTE :: X
!HPF$ DISTRIBUTE *(BLOCK) :: Y
!HPF$ DISTRIBUTE * ONTO * :: Z
!HPF$ DISTRIBUTE K(BLOCK)ONTO P
!HPF$ distribute l (cyclic(3)) onto p
",
            expect![[r#"
                1:1-1:38 DISTRIBUTE (BLOCK) ONTO pr :: a
                2:1-2:44 DISTRIBUTE (BLOCK, CYCLIC, *) ONTO p :: a
                3:1-3:42 DISTRIBUTE (BLOCK(n/p), CYCLIC(2)) :: b
                4:1-4:26 DISTRIBUTE ONTO p :: c
                5:1-5:36 DISTRIBUTE *(BLOCK) ONTO *q :: d
                6:1-6:28 DISTRIBUTE * ONTO * :: e
                7:1-7:52 DISTRIBUTE (GEN_BLOCK(sizes), INDIRECT(map)) :: f
                8:1-8:58 DISTRIBUTE (CYCLIC, BLOCK) ONTO p(1:4, ::2) :: g, h
                9:1-9:22 DISTRIBUTE :: x
                10:1-10:31 DISTRIBUTE *(BLOCK) :: y
                11:1-11:31 DISTRIBUTE * ONTO * :: z
                12:1-12:32 DISTRIBUTE (BLOCK) ONTO p :: k
                13:1-13:38 DISTRIBUTE (CYCLIC(3)) ONTO p :: l
            "#]],
        );
    }

    #[test]
    fn align_forms() {
        check(
            "!HPF$ ALIGN A(I, J) WITH T(I, J+1)
!HPF$ ALIGN (I) WITH T(2*I-1) :: A, B
!HPF$ ALIGN B(:, *) WITH *T(:, 1:N:2, *)
!HPF$ ALIGN C WITH D
!HPF$ ALIGN E(I) WITH T(N-I+1, I+1)
!HPF$ ALIGN WITH T :: F
!HPF$ ALIGN X(I) WITH T(::2, 2:, :N)
!HPF$ ALIGN a, b, c WITH t
",
            expect![[r#"
                1:1-1:35 ALIGN (i, j) WITH t(i, j + 1) :: a
                2:1-2:38 ALIGN (i) WITH t(2*i - 1) :: a, b
                3:1-3:41 ALIGN (:, *) WITH *t(:, 1:n:2, *) :: b
                4:1-4:21 ALIGN WITH d :: c
                5:1-5:36 ALIGN (i) WITH t(n - i + 1, i + 1) :: e
                6:1-6:24 ALIGN WITH t :: f
                7:1-7:37 ALIGN (i) WITH t(::2, 2:, :n) :: x
                8:1-8:27 ALIGN WITH t :: a, b, c
            "#]],
        );
    }

    #[test]
    fn executable_remapping() {
        check(
            "!HPF$ REDISTRIBUTE A(CYCLIC(K))
!HPF$ REDISTRIBUTE (BLOCK) ONTO Q :: A, B
!HPF$ REALIGN A(I) WITH T(I+K)
!HPF$ REALIGN (:) WITH T(:) :: A, B
",
            expect![[r#"
                1:1-1:32 REDISTRIBUTE (CYCLIC(k)) :: a
                2:1-2:42 REDISTRIBUTE (BLOCK) ONTO q :: a, b
                3:1-3:31 REALIGN (i) WITH t(i + k) :: a
                4:1-4:36 REALIGN (:) WITH t(:) :: a, b
            "#]],
        );
    }

    #[test]
    fn independent() {
        check(
            "!HPF$ INDEPENDENT
!HPF$ INDEPENDENT, NEW(I, J)
!HPF$ INDEPENDENT (I, J), REDUCTION(S), NEW(K)
!HPF$ independent, reduction(s, t)
!HPF$ independent  new(tmp1, tmp2)
!HPF$ independent, new(u1,u2), onhome(u(i1,i2,i3))
!HPF$ independent, on home(w(i1, :))
!HPF$ independent, onhome(u(i)), onhome(v(i))
!HPF$ independent on (u(i))
",
            expect![[r#"
                1:1-1:18 INDEPENDENT
                2:1-2:29 INDEPENDENT, NEW(i, j)
                3:1-3:47 INDEPENDENT (i, j), NEW(k), REDUCTION(s)
                4:1-4:35 INDEPENDENT, REDUCTION(s, t)
                5:1-5:35 INDEPENDENT, NEW(tmp1, tmp2)
                6:1-6:51 INDEPENDENT, NEW(u1, u2), ON HOME(u(i1, i2, i3))
                7:1-7:37 INDEPENDENT, ON HOME(w(i1, :))
                error[hpf-syntax] 8:34-8:40 "onhome": ONHOME appears twice in this INDEPENDENT directive
                error[hpf-syntax] 9:22-9:23 "(": expected `HOME` after `ON`, found `(`
            "#]],
        );
    }

    #[test]
    fn name_list_directives() {
        check(
            "!HPF$ DYNAMIC A, B
!HPF$ DYNAMIC :: C
!HPF$ INHERIT :: X
!HPF$ INHERIT Y, Z
!HPF$ SEQUENCE
!HPF$ SEQUENCE :: A, / BLK /
!HPF$ NO SEQUENCE
!HPF$ NOSEQUENCE B
",
            expect![[r#"
                1:1-1:19 DYNAMIC :: a, b
                2:1-2:19 DYNAMIC :: c
                3:1-3:19 INHERIT :: x
                4:1-4:19 INHERIT :: y, z
                5:1-5:15 SEQUENCE
                6:1-6:29 SEQUENCE :: a, /blk/
                7:1-7:18 NO SEQUENCE
                8:1-8:19 NO SEQUENCE :: b
            "#]],
        );
    }

    #[test]
    fn combined_directives() {
        check(
            "!HPF$ TEMPLATE, DISTRIBUTE(BLOCK, BLOCK) :: T(N, N)
!HPF$ PROCESSORS, DIMENSION(4) :: P, Q(2, 2)
!HPF$ DISTRIBUTE(BLOCK), DYNAMIC :: A, B
!HPF$ ALIGN (I) WITH T(I), DYNAMIC :: C
!HPF$ TEMPLATE, DIMENSION(91, 91), DISTRIBUTE(BLOCK, *) ONTO P :: B2, W2
!HPF$ INHERIT, DYNAMIC :: D
",
            expect![[r#"
                1:1-1:52 TEMPLATE t(n, n)
                1:1-1:52 DISTRIBUTE (BLOCK, BLOCK) :: t
                2:1-2:45 PROCESSORS p(4), q(2, 2)
                3:1-3:41 DISTRIBUTE (BLOCK) :: a, b
                3:1-3:41 DYNAMIC :: a, b
                4:1-4:40 ALIGN (i) WITH t(i) :: c
                4:1-4:40 DYNAMIC :: c
                5:1-5:73 TEMPLATE b2(91, 91), w2(91, 91)
                5:1-5:73 DISTRIBUTE (BLOCK, *) ONTO p :: b2, w2
                6:1-6:28 INHERIT :: d
                6:1-6:28 DYNAMIC :: d
            "#]],
        );
    }

    #[test]
    fn unmodelled_directives() {
        check(
            "!HPF$ ON HOME(A(I)), RESIDENT
!HPF$ END ON
!HPF$ TASK_REGION
!HPF$ END TASK_REGION
!HPF$ RESIDENT(A)
!HPF$ SHADOW A(1, 2)
!HPF$ RANGE A(BLOCK)
!HPF$ SUBSET P
!HPF$ PROCESSORS, SUBSET :: P(NP/4, 4)
!HPF$ DISTRIBUTE(BLOCK), SHADOW(1:2), DYNAMIC :: A
!HPF$ SHADOW(1), DISTRIBUTE(BLOCK) :: B
!HPF$ SHADOW (3, 2, 0) :: C
!HPF$ RANGE :: D(BLOCK
",
            expect![[r#"
                1:1-1:30 unmodelled ON
                2:1-2:13 unmodelled END ON
                3:1-3:18 unmodelled TASK_REGION
                4:1-4:22 unmodelled END TASK_REGION
                5:1-5:18 unmodelled RESIDENT
                6:1-6:21 unmodelled SHADOW
                7:1-7:21 unmodelled RANGE
                8:1-8:15 unmodelled SUBSET
                9:1-9:39 PROCESSORS p(np/4, 4)
                9:1-9:39 unmodelled SUBSET
                10:1-10:51 DISTRIBUTE (BLOCK) :: a
                10:1-10:51 unmodelled SHADOW
                10:1-10:51 DYNAMIC :: a
                11:1-11:40 unmodelled SHADOW
                11:1-11:40 DISTRIBUTE (BLOCK) :: b
                12:1-12:28 unmodelled SHADOW
                13:1-13:23 unmodelled RANGE
                info[hpf-unmodelled] 1:7-1:9 "ON": ON is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 2:7-2:13 "END ON": END ON is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 3:7-3:18 "TASK_REGION": TASK_REGION is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 4:7-4:22 "END TASK_REGION": END TASK_REGION is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 5:7-5:15 "RESIDENT": RESIDENT is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 6:7-6:13 "SHADOW": SHADOW is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 7:7-7:12 "RANGE": RANGE is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 8:7-8:13 "SUBSET": SUBSET is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 9:19-9:25 "SUBSET": SUBSET is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 10:26-10:32 "SHADOW": SHADOW is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 11:7-11:13 "SHADOW": SHADOW is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 12:7-12:13 "SHADOW": SHADOW is valid HPF but costline does not model it; it does not affect the estimates
                info[hpf-unmodelled] 13:7-13:12 "RANGE": RANGE is valid HPF but costline does not model it; it does not affect the estimates
            "#]],
        );
    }

    #[test]
    fn continued_directives_span_their_lines() {
        check(
            "      REAL A(N, N)
!HPF$ ALIGN A(I, J) &   ! rows first
!     a comment line
!HPF$   & WITH T(J, &
!HPF$      I)
!HPF$ DISTRIBUTE T(BLOCK,
!HPF$+ CYCLIC)
      A = 0
",
            expect![[r#"
                2:1-5:14 ALIGN (i, j) WITH t(j, i) :: a
                6:1-7:15 DISTRIBUTE (BLOCK, CYCLIC) :: t
            "#]],
        );
    }

    #[test]
    fn distribute_errors() {
        check(
            "!HPF$ DISTRIBUTE A(BLOK)
!HPF$ DISTRIBUTE A(BLOCK
!HPF$ DISTRIBUTE A(BLOCK CYCLIC)
!HPF$ DISTRIBUTE A(GEN_BLOCK)
!HPF$ DISTRIBUTE A(BLOCK) ONTO P(2)
!HPF$ DISTRIBUTE A(BLOCK) ONTO
!HPF$ DISTRIBUTE A(BLOCK) & B
!HPF$ DISTRIBUTE A('BLOCK')
!HPF$ DISTRIBUTE A(BLOCK) ONTO P Q
!HPF$ DISTRIBUTE A(BLOCK(N)
!HPF$ DISTRIBUTE A()
!HPF$ REDISTRIBUTE (BLOCK) :: 
",
            expect![[r#"
                error[hpf-syntax] 1:20-1:24 "BLOK": expected a distribution format (BLOCK, CYCLIC, *), found `BLOK`; did you mean BLOCK?
                error[hpf-syntax] 2:25: expected `)` to close the format list of DISTRIBUTE, found the end of the directive
                error[hpf-syntax] 3:26-3:32 "CYCLIC": expected `)` to close the format list of DISTRIBUTE, found `CYCLIC`
                error[hpf-syntax] 4:29-4:30 ")": expected `(` after GEN_BLOCK, found `)`
                error[hpf-syntax] 5:34-5:35 "2": costline supports only subscript triplets (`lower:upper[:stride]`) in a processors section after ONTO, not single subscripts
                error[hpf-syntax] 6:31: expected a processors arrangement after ONTO, found the end of the directive
                error[hpf-syntax] 7:27-7:28 "&": expected `ONTO` or the end of the directive, found `&` (`&` may only end a line, to continue the directive on the next)
                error[hpf-syntax] 8:20-8:27 "'BLOCK'": expected a distribution format (BLOCK, CYCLIC, *), found quoted text (character strings cannot appear in HPF directives)
                error[hpf-syntax] 9:34-9:35 "Q": expected the end of the directive, found `Q`
                error[hpf-syntax] 10:28: expected `)` to close the format list of DISTRIBUTE, found the end of the directive
                error[hpf-syntax] 11:20-11:21 ")": expected a distribution format (BLOCK, CYCLIC, *), found `)`
                error[hpf-syntax] 12:30: expected a name, found the end of the directive
            "#]],
        );
    }

    #[test]
    fn unknown_directives_and_keywords() {
        check(
            "!HPF$ DISTRIBUT A(BLOCK)
!HPF$ FOO
!HPF$ ALLIGN A WITH B
!HPF$ (BLOCK)
!HPF$ NO FOO
!HPF$ END
!HPF$ DIMENSION(4) :: A
!HPF$ TEMPLATE, DISTRIBUT(BLOCK) :: T(4)
",
            expect![[r#"
                error[hpf-unknown-directive] 1:7-1:16 "DISTRIBUT": unknown HPF directive `DISTRIBUT`; did you mean DISTRIBUTE?
                error[hpf-unknown-directive] 2:7-2:10 "FOO": unknown HPF directive `FOO`
                error[hpf-unknown-directive] 3:7-3:13 "ALLIGN": unknown HPF directive `ALLIGN`; did you mean ALIGN?
                error[hpf-syntax] 4:7-4:8 "(": expected an HPF directive keyword, found `(`
                error[hpf-syntax] 5:10-5:13 "FOO": expected `SEQUENCE` after `NO`, found `FOO`
                error[hpf-syntax] 6:10: expected `ON` or `TASK_REGION` after `END`, found the end of the directive
                error[hpf-syntax] 7:7-7:16 "DIMENSION": DIMENSION gives the shape of processors arrangements and templates: it needs PROCESSORS or TEMPLATE in the same directive
                error[hpf-syntax] 8:17-8:26 "DISTRIBUT": expected a directive attribute (PROCESSORS, TEMPLATE, DIMENSION, DISTRIBUTE, ALIGN, DYNAMIC or INHERIT), found `DISTRIBUT`; did you mean DISTRIBUTE?
            "#]],
        );
    }

    #[test]
    fn align_and_list_errors() {
        check(
            "!HPF$ ALIGN A(I) T(I)
!HPF$ ALIGN A(I+1) WITH T(I)
!HPF$ ALIGN A(I) WITH T(I
!HPF$ ALIGN A(:) WITH T(X(1:2, DIM=1))
!HPF$ PROCESSORS P(4,)
!HPF$ TEMPLATE T(:)
!HPF$ TEMPLATE T(N) M(2)
!HPF$ DYNAMIC
!HPF$ INDEPENDENT, NEWW(I)
!HPF$ INDEPENDENT, NEW(I), NEW(J)
!HPF$ INDEPENDENT, REDUCTION(+:S)
!HPF$ INDEPENDENT, REDUCTION(MAX:S)
!HPF$ SEQUENCE :: /BLK
",
            expect![[r#"
                error[hpf-syntax] 1:18-1:19 "T": expected `WITH` and the align target, found `T`
                error[hpf-syntax] 2:16-2:17 "+": expected `)` to close the align-source list, found `+`
                error[hpf-syntax] 3:26: expected `)` to close the subscripts of `t`, found the end of the directive
                error[hpf-syntax] 4:32-4:35 "DIM": `x` has a subscript triplet, so it is an array section and cannot take keyword arguments
                error[hpf-syntax] 5:22-5:23 ")": expected an extent (`upper` or `lower:upper`), found `)`
                error[hpf-syntax] 6:18-6:19 ":": expected an extent (`upper` or `lower:upper`), found `:`
                error[hpf-syntax] 7:21-7:22 "M": expected `,` or the end of the directive, found `M`
                error[hpf-syntax] 8:14: expected a name, found the end of the directive
                error[hpf-syntax] 9:20-9:24 "NEWW": expected `NEW`, `REDUCTION` or `ON HOME` after `,` in INDEPENDENT, found `NEWW`; did you mean NEW?
                error[hpf-syntax] 10:28-10:31 "NEW": NEW appears twice in this INDEPENDENT directive
                error[hpf-syntax] 11:30-11:31 "+": HPF 2.0 REDUCTION lists only variables (`REDUCTION(s)`): the reduction operator comes from the statements in the loop
                error[hpf-syntax] 12:30-12:33 "MAX": HPF 2.0 REDUCTION lists only variables (`REDUCTION(s)`): the reduction operator comes from the statements in the loop
                error[hpf-syntax] 13:23: expected `/` to close the common block name, found the end of the directive
            "#]],
        );
    }

    #[test]
    fn combined_directive_errors() {
        check(
            "!HPF$ DISTRIBUTE(BLOCK), DIMENSION(4) :: A
!HPF$ DISTRIBUTE(BLOCK) :: A(N)
!HPF$ TEMPLATE, DISTRIBUTE(BLOCK), DISTRIBUTE(CYCLIC) :: T(N)
!HPF$ PROCESSORS, TEMPLATE :: X(4)
!HPF$ DISTRIBUTE(BLOCK) DYNAMIC :: A
!HPF$ PROCESSORS :: 
",
            expect![[r#"
                error[hpf-syntax] 1:26-1:35 "DIMENSION": DIMENSION gives the shape of processors arrangements and templates: it needs PROCESSORS or TEMPLATE in the same directive
                error[hpf-syntax] 2:29-2:32 "(N)": only processors arrangements and templates are declared with a shape here: add PROCESSORS or TEMPLATE, or declare the array's shape in Fortran
                error[hpf-syntax] 3:36-3:46 "DISTRIBUTE": DISTRIBUTE appears twice in this directive
                error[hpf-syntax] 4:19-4:27 "TEMPLATE": an entity cannot be both a processors arrangement and a template
                error[hpf-syntax] 5:25-5:32 "DYNAMIC": expected `,` and another attribute, or `::` before the names, found `DYNAMIC`
                error[hpf-syntax] 6:20: expected a name, found the end of the directive
            "#]],
        );
    }

    #[test]
    fn expression_errors_in_directives() {
        check(
            "!HPF$ PROCESSORS P(99999999999999999999)
!HPF$ PROCESSORS P(A < B < C)
!HPF$ PROCESSORS P(A .XOR. B)
!HPF$ PROCESSORS P(2**)
!HPF$ PROCESSORS P(N%M)
!HPF$ PROCESSORS P(é)
",
            expect![[r#"
                error[hpf-syntax] 1:20-1:40 "99999999999999999999": integer literal `99999999999999999999` is too large
                error[hpf-syntax] 2:26-2:27 "<": relational operators cannot be chained: add parentheses
                error[hpf-syntax] 3:22-3:27 ".XOR.": unknown operator `.XOR.`
                error[hpf-syntax] 4:23-4:24 ")": expected an expression, found `)`
                error[hpf-syntax] 5:21-5:22 "%": expected `)` to close the shape of `p`, found `%`
                error[hpf-syntax] 6:20-6:21 "é": expected an extent (`upper` or `lower:upper`), found `é`
            "#]],
        );
    }

    #[test]
    fn a_bad_directive_keeps_the_others() {
        check(
            "!HPF$ PROCESSORS P(4)
!HPF$ DISTRIBUTE A(BLOK) ONTO P
!HPF$ DISTRIBUTE B(BLOCK) ONTO P
",
            expect![[r#"
                1:1-1:22 PROCESSORS p(4)
                3:1-3:33 DISTRIBUTE (BLOCK) ONTO p :: b
                error[hpf-syntax] 2:20-2:24 "BLOK": expected a distribution format (BLOCK, CYCLIC, *), found `BLOK`; did you mean BLOCK?
            "#]],
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!(
            "!HPF$ PROCESSORS P({}1{})",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let out = render(&deep);
        assert!(out.contains("nested too deeply"), "{out}");
        let minus = format!("!HPF$ TEMPLATE T({}1)", "-".repeat(100_000));
        assert!(render(&minus).contains("nested too deeply"));
        let power = format!("!HPF$ TEMPLATE T(2{})", "**2".repeat(100_000));
        assert!(render(&power).contains("nested too deeply"));
        let fine = format!("!HPF$ TEMPLATE T({}1{})", "(".repeat(150), ")".repeat(150));
        expect![[r#"
            1:1-1:320 TEMPLATE t(1)
        "#]]
        .assert_eq(&render(&fine));
    }

    #[test]
    fn expression_precedence() {
        check_expr(
            "a + b*c - d",
            expect![[r#"
            (- (+ a (* b c)) d)  =>  a + b*c - d
        "#]],
        );
        check_expr(
            "a**b**c",
            expect![[r#"
            (** a (** b c))  =>  a**b**c
        "#]],
        );
        check_expr(
            "-a**2",
            expect![[r#"
            (neg (** a 2))  =>  -a**2
        "#]],
        );
        check_expr(
            "-a*b + c",
            expect![[r#"
            (+ (neg (* a b)) c)  =>  -a*b + c
        "#]],
        );
        check_expr(
            "a*-b",
            expect![[r#"
            (* a (neg b))  =>  a*(-b)
        "#]],
        );
        check_expr(
            "2*I-1",
            expect![[r#"
            (- (* 2 i) 1)  =>  2*i - 1
        "#]],
        );
        check_expr(
            "N-I+1",
            expect![[r#"
            (+ (- n i) 1)  =>  n - i + 1
        "#]],
        );
        check_expr(
            "(a + b)*c/d",
            expect![[r#"
            (/ (* (+ a b) c) d)  =>  (a + b)*c/d
        "#]],
        );
        check_expr(
            "a .LT. b .AND. .NOT. c == d .OR. e",
            expect![[r#"
            (.or. (.and. (< a b) (.not. (== c d))) e)  =>  a < b .and. .not. c == d .or. e
        "#]],
        );
        check_expr(
            "a .eqv. b .neqv. c .or. d",
            expect![[r#"
            (.neqv. (.eqv. a b) (.or. c d))  =>  a .eqv. b .neqv. c .or. d
        "#]],
        );
        check_expr(
            "1.eq.n",
            expect![[r#"
            (== 1 n)  =>  1 == n
        "#]],
        );
        check_expr(
            "x // y",
            expect![[r#"
            (// x y)  =>  x // y
        "#]],
        );
        check_expr(
            ".TRUE. .and. +x >= 1.5D0",
            expect![[r#"
            (.and. .true. (>= (plus x) 1.5D0))  =>  .true. .and. +x >= 1.5D0
        "#]],
        );
    }

    #[test]
    fn expression_references() {
        check_expr(
            "NUMBER_OF_PROCESSORS()",
            expect![[r#"
            (call number_of_processors)  =>  number_of_processors()
        "#]],
        );
        check_expr(
            "NUMBER_OF_PROCESSORS(dim=1)/2",
            expect![[r#"
            (/ (call number_of_processors dim=1) 2)  =>  number_of_processors(dim=1)/2
        "#]],
        );
        check_expr(
            "SIZE(A, 1) + MAX(N, M)",
            expect![[r#"
            (+ (call size a 1) (call max n m))  =>  size(a, 1) + max(n, m)
        "#]],
        );
        check_expr(
            "SUM(A(1:N:2, I))",
            expect![[r#"
            (call sum (array a [1:n:2] i))  =>  sum(a(1:n:2, i))
        "#]],
        );
        check_expr(
            "B(I, :)",
            expect![[r#"
            (array b i [:])  =>  b(i, :)
        "#]],
        );
    }

    #[test]
    fn expression_errors() {
        check_expr(
            "",
            expect![[r#"
            error[hpf-syntax] 1:1: expected an expression, found the end of the expression
        "#]],
        );
        check_expr(
            "a < b < c",
            expect![[r#"
            error[hpf-syntax] 1:7-1:8 "<": relational operators cannot be chained: add parentheses
        "#]],
        );
        check_expr(
            "(a + b",
            expect![[r#"
            error[hpf-syntax] 1:7: expected `)` to close the parenthesized expression, found the end of the expression
        "#]],
        );
        check_expr(
            "a b",
            expect![[r#"
            error[hpf-syntax] 1:3-1:4 "b": expected an operator or the end of the expression, found `b`
        "#]],
        );
        check_expr(
            "a = b",
            expect![[r#"
            error[hpf-syntax] 1:3-1:4 "=": expected an operator or the end of the expression, found `=`
        "#]],
        );
        check_expr(
            "f(x=1, 2:3)",
            expect![[r#"
            error[hpf-syntax] 1:3-1:4 "x": `f` has a subscript triplet, so it is an array section and cannot take keyword arguments
        "#]],
        );
        check_expr(
            "f(2:3, x=1)",
            expect![[r#"
            error[hpf-syntax] 1:8-1:9 "x": `f` has a subscript triplet, so it is an array section and cannot take keyword arguments
        "#]],
        );
        check_expr(
            "1 .foo. 2",
            expect![[r#"
            error[hpf-syntax] 1:3-1:8 ".foo.": unknown operator `.foo.`
        "#]],
        );
        check_expr(
            "'n'",
            expect![[r#"
            error[hpf-syntax] 1:1-1:4 "'n'": expected an expression, found quoted text (character strings cannot appear in HPF directives)
        "#]],
        );
        check_expr(
            "f(1,)",
            expect![[r#"
            error[hpf-syntax] 1:5-1:6 ")": expected an argument, found `)`
        "#]],
        );
    }

    #[test]
    fn expression_spans_are_shifted_by_base() {
        let Ok(Expr::Binary(_, call, _)) = parse_expr("f(x) + 1", 100) else {
            panic!("not a binary expression");
        };
        let Expr::Call(call) = *call else {
            panic!("not a call");
        };
        assert_eq!((call.span.start, call.span.end), (100, 104));
        let err = parse_expr("1 +", 7).unwrap_err();
        assert_eq!((err.span.start, err.span.end), (10, 10));
    }
}
