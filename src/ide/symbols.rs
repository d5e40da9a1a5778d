//! The outline of a rules file: labels with their rules, named patterns, corpus bindings
//! and the default.
//!
//! Built from the syntax tree, not from the `RuleSet`, so that a half-typed file shows what
//! parsed: a `corpus` binding without its path, a duplicate pattern, a rule whose regex is
//! missing. Lines the parser could not read as statements show nothing. Top-level symbols
//! come in file order and never overlap, as editors' breadcrumbs and sticky scroll need: a
//! label's rules need not be adjacent, so a label gets one symbol per run of adjacent rules
//! (`spam (lines 12–18)`, "2 of 5 rules"), each covering only its run. A label mentioned only
//! by `default` has no symbol of its own besides the default's.
//!
//! Names tell symbols apart on their own, because some clients show nothing else: Eglot's
//! imenu and Helix's picker drop `detail`, and imenu merges entries of equal names. A rule is
//! named with its text, its regex or formula cut at 60 characters (`spam: $* ( won | win ) $*
//! prize $*`), a run by its lines, and a name that would repeat among its siblings (a
//! duplicate rule, a pattern defined twice) gets its line (`spam: $* won $* (line 20)`).
//! Linear in the size of the file.
//! Deliberately not here: anonymous pattern names (`spam@3`), which appear nowhere in the
//! text, and workspace-wide symbol search.

use super::positions::{body_text, layout, shorten};
use crate::rules_file::RulesFile;
use crate::syntax::ast::StatementKind;
use crate::text::LineIndex;
use std::collections::{HashMap, HashSet};
use text_size::{TextRange, TextSize};

/// What a symbol stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// A label, with its rules as children.
    Label,
    /// One `LABEL: REGEX` or `LABEL <- FORMULA` statement, a child of its label.
    Rule,
    /// `pattern NAME = REGEX`.
    Pattern,
    /// `corpus NAME "PATH"`.
    Corpus,
    /// `words NAME = ( … )` or `words NAME from "PATH"`.
    WordList,
    /// `default LABEL`.
    Default,
}

/// One entry of the outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The pattern or corpus name; `LABEL: REGEX` or `LABEL <- FORMULA` for a rule (shortened);
    /// `LABEL (lines A–B)` for a run of a label's rules; `default` for the default; unique
    /// among its siblings (see the module doc).
    pub name: String,
    pub kind: SymbolKind,
    /// A pattern's regex as written (shortened), a corpus' path, the default's label, a
    /// label's number of rules, a rule's line.
    pub detail: Option<String>,
    /// The whole statement, or for a label its run of adjacent rules.
    pub range: TextRange,
    /// The name (for a label, in the run's first rule); the keyword of a `default` without
    /// label.
    pub selection_range: TextRange,
    /// A label's rules, in file order.
    pub children: Vec<Symbol>,
}

/// The outline of a rules file.
///
/// ```
/// use rulelens::ide::{document_symbols, SymbolKind};
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// let text = "default ham\npattern p = $* cash $*\nspam: $* win $*\nspam <- p\n";
/// let file = RulesFile::analyze(SourceText::from_bytes(text.as_bytes()), None, &Default::default());
/// let symbols = document_symbols(&file);
/// let kinds: Vec<SymbolKind> = symbols.iter().map(|s| s.kind).collect();
/// assert_eq!(kinds, [SymbolKind::Default, SymbolKind::Pattern, SymbolKind::Label]);
/// assert_eq!(symbols[2].name, "spam (lines 3–4)");
/// assert_eq!(symbols[2].children[1].name, "spam <- p");
/// ```
pub fn document_symbols(file: &RulesFile) -> Vec<Symbol> {
    let text = file.source.text.as_str();
    let line_of = |offset: TextSize| file.line_index.line_col(offset).line + 1;
    let mut res: Vec<Symbol> = Vec::new();
    // Each label's total number of rules, for the runs' details.
    let mut n_rules: HashMap<&str, usize> = HashMap::new();
    for statement in &file.parse.file.statements {
        let detail = body_text(text, statement)
            .filter(|body| !body.is_empty())
            .map(shorten);
        let leaf = |name: String, kind, detail, selection_range| Symbol {
            name,
            kind,
            detail,
            range: statement.range,
            selection_range,
            children: Vec::new(),
        };
        match &statement.kind {
            StatementKind::Default { label } => {
                let keyword = layout(text, statement).keyword.unwrap_or(statement.range);
                res.push(leaf(
                    "default".to_string(),
                    SymbolKind::Default,
                    label.as_ref().map(|label| label.text.clone()),
                    label.as_ref().map_or(keyword, |label| label.range),
                ));
            }
            StatementKind::Corpus { name, path } => {
                let Some(name) = name else { continue };
                res.push(leaf(
                    name.text.clone(),
                    SymbolKind::Corpus,
                    path.as_ref().map(|path| path.value.clone()),
                    name.range,
                ));
            }
            StatementKind::Pattern { name, .. } => {
                let Some(name) = name else { continue };
                res.push(leaf(
                    name.text.clone(),
                    SymbolKind::Pattern,
                    detail,
                    name.range,
                ));
            }
            StatementKind::Words { name, .. } => {
                let Some(name) = name else { continue };
                let detail = file.rules.word_list(&name.text).map(|list| {
                    let n = list.list.entries.len();
                    let entries = format!("{n} entr{}", if n == 1 { "y" } else { "ies" });
                    match &list.file {
                        Some(source) => format!("{entries} from {}", source.path),
                        None => entries,
                    }
                });
                res.push(leaf(
                    format!("@{}", name.text),
                    SymbolKind::WordList,
                    detail,
                    name.range,
                ));
            }
            StatementKind::LabelRegex { label, .. } | StatementKind::LabelFormula { label, .. } => {
                let operator = if matches!(statement.kind, StatementKind::LabelRegex { .. }) {
                    ":"
                } else {
                    " <-"
                };
                let name = match &detail {
                    Some(body) => format!("{}{operator} {body}", label.text),
                    None => format!("{}{operator}", label.text),
                };
                let line = format!("line {}", line_of(statement.range.start()));
                let rule = leaf(name, SymbolKind::Rule, Some(line), label.range);
                *n_rules.entry(&label.text).or_insert(0) += 1;
                match res.last_mut() {
                    Some(run) if run.kind == SymbolKind::Label && run.name == label.text => {
                        run.range = run.range.cover(statement.range);
                        run.children.push(rule);
                    }
                    _ => res.push(Symbol {
                        name: label.text.clone(),
                        kind: SymbolKind::Label,
                        detail: None,
                        range: statement.range,
                        selection_range: label.range,
                        children: vec![rule],
                    }),
                }
            }
        }
    }
    for run in res.iter_mut().filter(|s| s.kind == SymbolKind::Label) {
        let here = run.children.len();
        let total = n_rules.get(run.name.as_str()).copied().unwrap_or(here);
        run.detail = Some(match (here, total) {
            (1, 1) => "1 rule".to_string(),
            (n, total) if n == total => format!("{n} rules"),
            (n, total) => format!("{n} of {total} rules"),
        });
        let (first, last) = (line_of(run.range.start()), line_of(run.range.end()));
        run.name = if first == last {
            format!("{} (line {first})", run.name)
        } else {
            format!("{} (lines {first}–{last})", run.name)
        };
        tell_apart(&mut run.children, &file.line_index);
    }
    tell_apart(&mut res, &file.line_index);
    res
}

/// Adds its line to each name that an earlier sibling already has, so that names are unique
/// among siblings (again, in the unlikely case that the new name is taken too).
fn tell_apart(siblings: &mut [Symbol], lines: &LineIndex) {
    let mut seen = HashSet::new();
    for symbol in siblings {
        let line = lines.line_col(symbol.range.start()).line + 1;
        while seen.contains(&symbol.name) {
            symbol.name = format!("{} (line {line})", symbol.name);
        }
        seen.insert(symbol.name.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::testing::{position, rules_of};

    /// One line per symbol, children indented: `Kind name "detail" lines L1-L2 @ selection`.
    fn check_symbols(text: &str, expected: &str) {
        let file = rules_of(text);
        let symbols = document_symbols(&file);
        let mut out = Vec::new();
        render(text, &symbols, None, 0, &mut out);
        assert_eq!(out.join("\n"), expected, "symbols of {text:?}");
    }

    fn render(
        text: &str,
        symbols: &[Symbol],
        parent: Option<TextRange>,
        depth: usize,
        out: &mut Vec<String>,
    ) {
        for pair in symbols.windows(2) {
            assert!(
                pair[0].range.end() <= pair[1].range.start(),
                "siblings in order, without overlap: {pair:?}"
            );
        }
        for symbol in symbols {
            assert!(
                symbol.range.contains_range(symbol.selection_range),
                "selection inside the range: {symbol:?}"
            );
            if let Some(parent) = parent {
                assert!(
                    parent.contains_range(symbol.range),
                    "child inside its parent"
                );
            }
            let detail = symbol
                .detail
                .as_ref()
                .map_or(String::new(), |detail| format!(" {detail:?}"));
            out.push(format!(
                "{}{:?} {}{detail} {} @ {:?}",
                "  ".repeat(depth),
                symbol.kind,
                symbol.name,
                position(text, symbol.range),
                &text[symbol.selection_range],
            ));
            render(text, &symbol.children, Some(symbol.range), depth + 1, out);
        }
    }

    #[test]
    fn a_whole_file() {
        check_symbols(
            "# spam filter\ndefault ham\ncorpus train \"data/train.tsv\"\n\npattern free_call = $* free $* ( call | txt ) $*  # named\nspam: $* ( won | win ) $*\nham: $* hi $*\nspam <- free_call & !greeting\npattern greeting = ( hi | hey ) $*\n",
            "Default default \"ham\" 2:0-2:11 @ \"ham\"\n\
             Corpus train \"data/train.tsv\" 3:0-3:29 @ \"train\"\n\
             Pattern free_call \"$* free $* ( call | txt ) $*\" 5:0-5:48 @ \"free_call\"\n\
             Label spam (line 6) \"1 of 2 rules\" 6:0-6:25 @ \"spam\"\n\
             \x20 Rule spam: $* ( won | win ) $* \"line 6\" 6:0-6:25 @ \"spam\"\n\
             Label ham (line 7) \"1 rule\" 7:0-7:13 @ \"ham\"\n\
             \x20 Rule ham: $* hi $* \"line 7\" 7:0-7:13 @ \"ham\"\n\
             Label spam (line 8) \"1 of 2 rules\" 8:0-8:29 @ \"spam\"\n\
             \x20 Rule spam <- free_call & !greeting \"line 8\" 8:0-8:29 @ \"spam\"\n\
             Pattern greeting \"( hi | hey ) $*\" 9:0-9:34 @ \"greeting\"",
        );
    }

    #[test]
    fn adjacent_rules_of_a_label_share_one_symbol_across_comments_and_blank_lines() {
        check_symbols(
            "spam: $* won $*\n# a comment\n\nspam: $* cash $*\nham: $* hi $*\n",
            "Label spam (lines 1–4) \"2 rules\" 1:0-4:16 @ \"spam\"\n\
             \x20 Rule spam: $* won $* \"line 1\" 1:0-1:15 @ \"spam\"\n\
             \x20 Rule spam: $* cash $* \"line 4\" 4:0-4:16 @ \"spam\"\n\
             Label ham (line 5) \"1 rule\" 5:0-5:13 @ \"ham\"\n\
             \x20 Rule ham: $* hi $* \"line 5\" 5:0-5:13 @ \"ham\"",
        );
    }

    #[test]
    fn long_bodies_are_shortened() {
        let words = "word ".repeat(20);
        let text = format!("spam: {words}\n");
        let file = rules_of(&text);
        let symbols = document_symbols(&file);
        let name = &symbols[0].children[0].name;
        assert_eq!(name.chars().count(), "spam: ".len() + 60);
        assert!(name.ends_with("word…"), "{name}");
    }

    #[test]
    fn every_run_and_rule_has_a_name_of_its_own() {
        check_symbols(
            "spam: $* won $*\nspam: $* won $*\nham: $* hi $*\nspam: $* won $*\npattern p = x\npattern p = y\n",
            "Label spam (lines 1–2) \"2 of 3 rules\" 1:0-2:15 @ \"spam\"\n\
             \x20 Rule spam: $* won $* \"line 1\" 1:0-1:15 @ \"spam\"\n\
             \x20 Rule spam: $* won $* (line 2) \"line 2\" 2:0-2:15 @ \"spam\"\n\
             Label ham (line 3) \"1 rule\" 3:0-3:13 @ \"ham\"\n\
             \x20 Rule ham: $* hi $* \"line 3\" 3:0-3:13 @ \"ham\"\n\
             Label spam (line 4) \"1 of 3 rules\" 4:0-4:15 @ \"spam\"\n\
             \x20 Rule spam: $* won $* \"line 4\" 4:0-4:15 @ \"spam\"\n\
             Pattern p \"x\" 5:0-5:13 @ \"p\"\n\
             Pattern p (line 6) \"y\" 6:0-6:13 @ \"p\"",
        );
    }

    #[test]
    fn broken_files_show_what_parsed() {
        check_symbols(
            "default\ncorpus dev\npattern = $* x\npattern p\npattern p = $* ( y\nspam:\nham <- \nnot a statement\nspam <- p |",
            "Default default 1:0-1:7 @ \"default\"\n\
             Corpus dev 2:0-2:10 @ \"dev\"\n\
             Pattern p 4:0-4:9 @ \"p\"\n\
             Pattern p (line 5) \"$* ( y\" 5:0-5:18 @ \"p\"\n\
             Label spam (line 6) \"1 of 2 rules\" 6:0-6:5 @ \"spam\"\n\
             \x20 Rule spam: \"line 6\" 6:0-6:5 @ \"spam\"\n\
             Label ham (line 7) \"1 rule\" 7:0-7:6 @ \"ham\"\n\
             \x20 Rule ham <- \"line 7\" 7:0-7:6 @ \"ham\"\n\
             Label spam (line 9) \"1 of 2 rules\" 9:0-9:11 @ \"spam\"\n\
             \x20 Rule spam <- p | \"line 9\" 9:0-9:11 @ \"spam\"",
        );
    }

    #[test]
    fn multibyte_names_and_bodies() {
        check_symbols(
            "spam: $* café 😀 $*\n",
            "Label spam (line 1) \"1 rule\" 1:0-1:18 @ \"spam\"\n\
             \x20 Rule spam: $* café 😀 $* \"line 1\" 1:0-1:18 @ \"spam\"",
        );
    }
}
