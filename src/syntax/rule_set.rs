//! Lowering a syntax tree to a [`RuleSet`]: patterns, labels in priority order, label
//! formulas resolved to pattern ids, the default and corpus bindings, with the name checks.
//!
//! Checks done here (they need names, not automata): unknown and duplicate names, a formula
//! naming a label instead of a pattern, unused named patterns, duplicate `default` and
//! `corpus` statements, and literals the tokenizer can never produce (`won!` as one word,
//! uppercase letters). Checks that need languages live in `automata::lint`.
//! O(size of the file), plus O(names²) only while suggesting a name for a typo.

use super::ast::{self, FormulaKind, RegexKind, StatementKind, WordList, WordsBody};
use super::literal::{Literal, classify_literal};
use super::parser::Parse;
use super::word_lists::{NoWordFiles, WordFiles, bounded_list, inline_entries};
use crate::diagnostic::{Code, Diagnostic};
use crate::text::LineIndex;
use std::collections::HashMap;
use std::sync::Arc;
use text_size::TextRange;

/// Index of a pattern in [`RuleSet::patterns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PatternId(pub u32);

/// Index of a label in [`RuleSet::labels`]; lower ids win ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(pub u32);

impl PatternId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl LabelId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The meaning of a `.rules` file, with names resolved.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    /// Named patterns in file order, then anonymous rules (`LABEL: REGEX`) in file order.
    pub patterns: Vec<PatternDef>,
    /// Labels in priority order: the order of their first rule; a `default` label without
    /// rules comes last.
    pub labels: Vec<LabelDef>,
    pub default: Option<LabelId>,
    pub corpora: Vec<CorpusBinding>,
    /// `words` statements in file order (a repeated name only the first time).
    pub word_lists: Vec<WordListDef>,
}

/// `words NAME = ( … )` or `words NAME from "PATH"`.
#[derive(Debug, Clone)]
pub struct WordListDef {
    pub name: String,
    pub name_range: TextRange,
    /// The whole statement.
    pub range: TextRange,
    /// 1-based line of the statement.
    pub line: u32,
    /// The file of `from "PATH"`, with the text read from it.
    pub file: Option<WordListFile>,
    pub list: Arc<WordList>,
}

/// The file a word list is read from.
#[derive(Debug, Clone)]
pub struct WordListFile {
    /// The path as written, relative to the rules file.
    pub path: String,
    pub path_range: TextRange,
    /// Its bytes as read (kept so that a checkpoint can carry them).
    pub bytes: Arc<[u8]>,
}

/// One pattern: `pattern NAME = REGEX`, or the regex of `LABEL: REGEX`.
#[derive(Debug, Clone)]
pub struct PatternDef {
    /// The name; for an anonymous pattern `LABEL@LINE`.
    pub name: String,
    pub anonymous: bool,
    /// The name, or the label of an anonymous pattern.
    pub name_range: TextRange,
    /// The whole statement.
    pub range: TextRange,
    /// 1-based line of the statement.
    pub line: u32,
    pub regex: ast::Regex,
    /// The labels whose formulas use this pattern without negation (its polarity).
    pub labels: Vec<LabelId>,
}

/// A label and its rules; its truth is the OR of its rules.
#[derive(Debug, Clone)]
pub struct LabelDef {
    pub name: String,
    /// Where the label is first named.
    pub range: TextRange,
    pub rules: Vec<LabelRule>,
}

/// One `LABEL: REGEX` or `LABEL <- FORMULA` statement.
#[derive(Debug, Clone)]
pub struct LabelRule {
    pub formula: Formula,
    /// The whole statement.
    pub range: TextRange,
    /// The label's name in the statement.
    pub label_range: TextRange,
    /// 1-based line of the statement.
    pub line: u32,
    /// The statement's whole line, its comment and line terminator included: what removing
    /// the rule deletes.
    pub line_range: TextRange,
}

/// A formula over patterns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Formula {
    Pattern(PatternId),
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
    /// Stands in for a name that did not resolve or a part that did not parse.
    False,
}

impl Formula {
    /// Evaluates the formula given which patterns matched.
    pub fn eval(&self, matched: &impl Fn(PatternId) -> bool) -> bool {
        match self {
            Formula::Pattern(id) => matched(*id),
            Formula::Not(inner) => !inner.eval(matched),
            Formula::And(items) => items.iter().all(|item| item.eval(matched)),
            Formula::Or(items) => items.iter().any(|item| item.eval(matched)),
            Formula::False => false,
        }
    }

    /// Calls `f` on every pattern with whether it occurs under an even number of `!`.
    pub fn visit(&self, positive: bool, f: &mut impl FnMut(PatternId, bool)) {
        match self {
            Formula::Pattern(id) => f(*id, positive),
            Formula::Not(inner) => inner.visit(!positive, f),
            Formula::And(items) | Formula::Or(items) => {
                items.iter().for_each(|item| item.visit(positive, f))
            }
            Formula::False => {}
        }
    }
}

/// `corpus NAME "PATH"`.
#[derive(Debug, Clone)]
pub struct CorpusBinding {
    pub name: String,
    pub name_range: TextRange,
    /// The path as written, relative to the rules file.
    pub path: String,
    pub path_range: TextRange,
}

impl RuleSet {
    pub fn pattern(&self, id: PatternId) -> &PatternDef {
        &self.patterns[id.index()]
    }

    pub fn label(&self, id: LabelId) -> &LabelDef {
        &self.labels[id.index()]
    }

    /// The pattern with this name (`LABEL@LINE` for an anonymous one).
    pub fn pattern_by_name(&self, name: &str) -> Option<PatternId> {
        self.patterns
            .iter()
            .position(|pattern| pattern.name == name)
            .map(|i| PatternId(i as u32))
    }

    /// The word list with this name.
    pub fn word_list(&self, name: &str) -> Option<&WordListDef> {
        self.word_lists.iter().find(|list| list.name == name)
    }

    pub fn label_by_name(&self, name: &str) -> Option<LabelId> {
        self.labels
            .iter()
            .position(|label| label.name == name)
            .map(|i| LabelId(i as u32))
    }
}

/// Lowers a parsed file to its [`RuleSet`] and reports name problems. `text` is the text
/// that was parsed.
///
/// ```
/// let text = "default ham\npattern p = $* free $*\nspam <- p & !q\n";
/// let parse = rulelens::syntax::parse(text);
/// let (rules, diagnostics) = rulelens::syntax::lower(&parse, text);
/// assert_eq!(rules.labels.len(), 2);
/// assert_eq!(diagnostics[0].code.as_str(), "E0201"); // `q` is unknown
/// ```
pub fn lower(parse: &Parse, text: &str) -> (RuleSet, Vec<Diagnostic>) {
    lower_with(parse, text, &NoWordFiles)
}

/// [`lower`], reading the files of `words NAME from "PATH"` from `files`.
pub fn lower_with(parse: &Parse, text: &str, files: &dyn WordFiles) -> (RuleSet, Vec<Diagnostic>) {
    let mut lowering = Lowering {
        index: LineIndex::new(text),
        rules: RuleSet::default(),
        pattern_names: HashMap::new(),
        word_list_used: Vec::new(),
        diagnostics: Vec::new(),
    };
    lowering.word_lists(&parse.file, files);
    lowering.run(&parse.file);
    (lowering.rules, lowering.diagnostics)
}

struct Lowering {
    index: LineIndex,
    rules: RuleSet,
    pattern_names: HashMap<String, PatternId>,
    /// Whether each of `rules.word_lists` is used in a pattern.
    word_list_used: Vec<bool>,
    diagnostics: Vec<Diagnostic>,
}

fn error_regex(range: TextRange) -> ast::Regex {
    ast::Regex {
        kind: RegexKind::Error,
        range: TextRange::empty(range.end()),
    }
}

impl Lowering {
    fn run(&mut self, file: &ast::RuleFile) {
        self.declare(file);
        let used = self.label_rules(file);
        let written_as_word = self.pattern_names_as_words();
        self.unused(&used, &written_as_word);
    }

    /// Pass 1: named patterns, labels in order of their first rule, default, corpora.
    fn declare(&mut self, file: &ast::RuleFile) {
        // Pass 1: named patterns, labels in order of their first rule, default, corpora.
        let mut default: Option<&ast::Name> = None;
        for statement in &file.statements {
            match &statement.kind {
                StatementKind::Pattern { name, regex } => {
                    if let Some(regex) = regex {
                        self.check_literals(regex);
                    }
                    let Some(name) = name else { continue };
                    if let Some(&first) = self.pattern_names.get(&name.text) {
                        let first_range = self.rules.pattern(first).name_range;
                        self.diagnostics.push(
                            Diagnostic::new(
                                Code::DuplicatePattern,
                                name.range,
                                format!("pattern `{}` is defined more than once", name.text),
                            )
                            .with_related(first_range, "first defined here")
                            .with_help("rename one of them; references resolve to the first"),
                        );
                        continue;
                    }
                    let mut regex = regex
                        .clone()
                        .unwrap_or_else(|| error_regex(statement.range));
                    self.resolve_word_lists(&mut regex);
                    let id = self.add_pattern(
                        name.text.clone(),
                        false,
                        name.range,
                        statement.range,
                        regex,
                    );
                    self.pattern_names.insert(name.text.clone(), id);
                }
                StatementKind::LabelRegex { label, regex } => {
                    if let Some(regex) = regex {
                        self.check_literals(regex);
                    }
                    self.label_id(label);
                }
                StatementKind::LabelFormula { label, .. } => {
                    self.label_id(label);
                }
                // Lowered before this pass, by `word_lists`.
                StatementKind::Words { .. } => {}
                StatementKind::Default { label } => {
                    let Some(label) = label else { continue };
                    if let Some(first) = default {
                        self.diagnostics.push(
                            Diagnostic::new(
                                Code::DuplicateDefault,
                                statement.range,
                                "more than one `default` statement",
                            )
                            .with_related(first.range, "first default here")
                            .with_help("keep one; the first one applies"),
                        );
                    } else {
                        default = Some(label);
                    }
                }
                StatementKind::Corpus { name, path } => {
                    let (Some(name), Some(path)) = (name, path) else {
                        continue;
                    };
                    if let Some(first) = self.rules.corpora.iter().find(|c| c.name == name.text) {
                        let first_range = first.name_range;
                        self.diagnostics.push(
                            Diagnostic::new(
                                Code::DuplicateCorpus,
                                name.range,
                                format!("corpus `{}` is bound more than once", name.text),
                            )
                            .with_related(first_range, "first bound here"),
                        );
                        continue;
                    }
                    self.rules.corpora.push(CorpusBinding {
                        name: name.text.clone(),
                        name_range: name.range,
                        path: path.value.clone(),
                        path_range: path.range,
                    });
                }
            }
        }
        // Created after every label with a rule, a `default` label without rules comes
        // last: it never competes on a tie.
        if let Some(label) = default {
            self.rules.default = Some(self.label_id(label));
        }
    }

    /// Pass 2: label rules, now that every pattern name is known; which patterns a formula
    /// uses.
    fn label_rules(&mut self, file: &ast::RuleFile) -> Vec<bool> {
        let mut used = vec![false; self.rules.patterns.len()];
        for statement in &file.statements {
            let (label, formula) = match &statement.kind {
                StatementKind::LabelRegex { label, regex } => {
                    let mut regex = regex
                        .clone()
                        .unwrap_or_else(|| error_regex(statement.range));
                    self.resolve_word_lists(&mut regex);
                    let name = format!(
                        "{}@{}",
                        label.text,
                        self.index.line_col(statement.range.start()).line + 1
                    );
                    let id = self.add_pattern(name, true, label.range, statement.range, regex);
                    (label, Formula::Pattern(id))
                }
                StatementKind::LabelFormula { label, formula } => {
                    let formula = match formula {
                        Some(formula) => self.resolve(formula, &mut used),
                        None => Formula::False,
                    };
                    (label, formula)
                }
                _ => continue,
            };
            let label_id = self.label_id(label);
            let mut votes = Vec::new();
            formula.visit(true, &mut |pattern, positive| {
                if positive {
                    votes.push(pattern);
                }
            });
            for pattern in votes {
                let labels = &mut self.rules.patterns[pattern.index()].labels;
                if !labels.contains(&label_id) {
                    labels.push(label_id);
                }
            }
            let line = self.index.line_col(statement.range.start()).line;
            let line_range = match (self.index.line_range(line), self.index.line_range(line + 1)) {
                (Some(this), Some(next)) => TextRange::new(this.start(), next.start()),
                (Some(this), None) => this,
                (None, _) => statement.range,
            };
            self.rules.labels[label_id.index()].rules.push(LabelRule {
                formula,
                range: statement.range,
                label_range: label.range,
                line: line + 1,
                line_range,
            });
        }
        used
    }

    /// Which named patterns are written as a word in a regex, said of each place.
    fn pattern_names_as_words(&mut self) -> Vec<bool> {
        // A named pattern's name written as a word in a regex matches that word, not the
        // pattern: said once per place, with the pattern's regex as the fix. A pattern named
        // after a word of its own regex (`pattern free = $* free $*`) is left out: there the
        // word is surely meant.
        let named: std::collections::HashMap<&str, usize> = self
            .rules
            .patterns
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.anonymous)
            .filter(|(_, p)| {
                let mut own_word = false;
                words_of(&p.regex, &mut |word, _| own_word |= word == p.name);
                !own_word
            })
            .map(|(i, p)| (p.name.as_str(), i))
            .collect();
        let mut written_as_word = vec![false; self.rules.patterns.len()];
        let mut found = Vec::new();
        for pattern in &self.rules.patterns {
            words_of(&pattern.regex, &mut |word, range| {
                if let Some(&target) = named.get(word) {
                    found.push((target, range));
                }
            });
        }
        for (target, range) in found {
            written_as_word[target] = true;
            let def = &self.rules.patterns[target];
            let regex = super::print_regex(&def.regex);
            self.diagnostics.push(
                Diagnostic::new(
                    Code::PatternNameInRegex,
                    range,
                    format!(
                        "`{}` here matches the word \"{}\", not the pattern `{}`: a regex cannot use a pattern",
                        def.name, def.name, def.name
                    ),
                )
                .with_help(format!(
                    "write the pattern's regex here, `( {regex} )`, or combine the patterns in a formula (`LABEL <- {} & …`); to mean the word, quote it: `\"{}\"`",
                    def.name, def.name
                ))
                .with_fix(
                    format!("Write the regex of pattern `{}` here", def.name),
                    range,
                    format!("( {regex} )"),
                ),
            );
        }
        written_as_word
    }

    /// The word lists and named patterns nothing uses.
    fn unused(&mut self, used: &[bool], written_as_word: &[bool]) {
        for (list, used) in self.rules.word_lists.iter().zip(&self.word_list_used) {
            if !used {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::UnusedWordList,
                        list.name_range,
                        format!("word list `{}` is never used", list.name),
                    )
                    .with_help(format!(
                        "use it in a regex (`LABEL: $* @{} $*`) or remove it",
                        list.name
                    )),
                );
            }
        }

        for (i, pattern) in self.rules.patterns.iter().enumerate() {
            if !pattern.anonymous && !used[i] && !written_as_word[i] {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::UnusedPattern,
                        pattern.name_range,
                        format!("pattern `{}` is never used", pattern.name),
                    )
                    .with_help(format!(
                        "use it in a label rule (`LABEL <- {}`) or remove it",
                        pattern.name
                    )),
                );
            }
        }
    }

    /// Lowers the `words` statements, in file order, before any pattern uses them.
    fn word_lists(&mut self, file: &ast::RuleFile, files: &dyn WordFiles) {
        for statement in &file.statements {
            let StatementKind::Words { name, body } = &statement.kind else {
                continue;
            };
            let Some(name) = name else { continue };
            if let Some(first) = self.rules.word_list(&name.text) {
                let first_range = first.name_range;
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::DuplicateWordList,
                        name.range,
                        format!("word list `{}` is defined more than once", name.text),
                    )
                    .with_related(first_range, "first defined here")
                    .with_help("merge them, or rename one; `@` uses the first"),
                );
                continue;
            }
            let (list, file) = match body {
                Some(WordsBody::Inline(regex)) => {
                    self.check_literals(regex);
                    let entries = inline_entries(regex, &mut self.diagnostics);
                    (Arc::new(WordList::new(entries)), None)
                }
                Some(WordsBody::File(path)) => match files.file(&path.value) {
                    Ok(read) => {
                        self.diagnostics.extend(read.diagnostic(path.range));
                        let file = WordListFile {
                            path: path.value.clone(),
                            path_range: path.range,
                            bytes: read.bytes.clone(),
                        };
                        (read.list.clone(), Some(file))
                    }
                    Err(why) => {
                        self.diagnostics.push(
                            Diagnostic::new(Code::UnreadableWordList, path.range, why)
                                .with_help("the path is relative to the rules file's folder"),
                        );
                        (Arc::new(WordList::new(Vec::new())), None)
                    }
                },
                // The parser reported what is missing.
                None => (Arc::new(WordList::new(Vec::new())), None),
            };
            let list = bounded_list(list, &name.text, name.range, &mut self.diagnostics);
            self.rules.word_lists.push(WordListDef {
                name: name.text.clone(),
                name_range: name.range,
                range: statement.range,
                line: self.index.line_col(statement.range.start()).line + 1,
                file,
                list,
            });
            self.word_list_used.push(false);
        }
    }

    /// Gives every `@NAME` of `regex` its list's entries, reporting names that no `words`
    /// statement declares (they match nothing).
    fn resolve_word_lists(&mut self, regex: &mut ast::Regex) {
        match &mut regex.kind {
            RegexKind::WordList(reference) => {
                let found = self
                    .rules
                    .word_lists
                    .iter()
                    .position(|list| list.name == reference.name);
                if let Some(i) = found {
                    self.word_list_used[i] = true;
                    reference.list = Some(self.rules.word_lists[i].list.clone());
                    return;
                }
                let name = &reference.name;
                let help = if self.pattern_names.contains_key(name) {
                    format!(
                        "`{name}` is a pattern: `@` uses a word list; combine patterns in a formula (`LABEL <- {name} & …`)"
                    )
                } else if let Some(close) =
                    closest(name, self.rules.word_lists.iter().map(|list| &list.name))
                {
                    format!("a word list with a similar name exists: `@{close}`")
                } else {
                    format!(
                        "declare it with `words {name} = ( WORD | … )` or `words {name} from \"FILE\"`"
                    )
                };
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::UnknownWordList,
                        regex.range,
                        format!("unknown word list `@{name}`"),
                    )
                    .with_help(help),
                );
            }
            RegexKind::Concat(items) | RegexKind::Alt(items) => items
                .iter_mut()
                .for_each(|item| self.resolve_word_lists(item)),
            RegexKind::Repeat { inner, .. } => self.resolve_word_lists(inner),
            RegexKind::Word(_)
            | RegexKind::Quoted(_)
            | RegexKind::Any
            | RegexKind::Number
            | RegexKind::Punct
            | RegexKind::Error => {}
        }
    }

    fn add_pattern(
        &mut self,
        name: String,
        anonymous: bool,
        name_range: TextRange,
        range: TextRange,
        regex: ast::Regex,
    ) -> PatternId {
        let id = PatternId(self.rules.patterns.len() as u32);
        self.rules.patterns.push(PatternDef {
            name,
            anonymous,
            name_range,
            range,
            line: self.index.line_col(range.start()).line + 1,
            regex,
            labels: Vec::new(),
        });
        id
    }

    /// The id of a label, creating it (lowest priority so far) on first mention.
    fn label_id(&mut self, name: &ast::Name) -> LabelId {
        if let Some(id) = self.rules.label_by_name(&name.text) {
            return id;
        }
        self.rules.labels.push(LabelDef {
            name: name.text.clone(),
            range: name.range,
            rules: Vec::new(),
        });
        LabelId(self.rules.labels.len() as u32 - 1)
    }

    fn resolve(&mut self, formula: &ast::Formula, used: &mut Vec<bool>) -> Formula {
        match &formula.kind {
            FormulaKind::Name(name) => {
                if let Some(&id) = self.pattern_names.get(name) {
                    used[id.index()] = true;
                    return Formula::Pattern(id);
                }
                let help = if self.rules.label_by_name(name).is_some() {
                    format!("`{name}` is a label; a formula combines pattern names")
                } else if let Some(close) = closest(name, self.pattern_names.keys()) {
                    format!("a pattern with a similar name exists: `{close}`")
                } else {
                    format!("define it with `pattern {name} = ...`")
                };
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::UnknownPattern,
                        formula.range,
                        format!("unknown pattern `{name}`"),
                    )
                    .with_help(help),
                );
                Formula::False
            }
            FormulaKind::Not(inner) => Formula::Not(Box::new(self.resolve(inner, used))),
            FormulaKind::And(items) => {
                Formula::And(items.iter().map(|item| self.resolve(item, used)).collect())
            }
            FormulaKind::Or(items) => {
                Formula::Or(items.iter().map(|item| self.resolve(item, used)).collect())
            }
            FormulaKind::Error => Formula::False,
        }
    }

    fn check_literals(&mut self, regex: &ast::Regex) {
        match &regex.kind {
            RegexKind::Word(text) | RegexKind::Quoted(text) if !text.is_empty() => {
                let quoted = matches!(regex.kind, RegexKind::Quoted(_));
                if let Literal::Unproducible(diagnostic) =
                    classify_literal(text, quoted, regex.range)
                {
                    self.diagnostics.push(diagnostic);
                }
            }
            RegexKind::Concat(items) | RegexKind::Alt(items) => {
                items.iter().for_each(|item| self.check_literals(item))
            }
            RegexKind::Repeat { inner, .. } => self.check_literals(inner),
            _ => {}
        }
    }
}

/// The candidate closest to `name` by edit distance, if close enough to be a likely typo.
fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a String>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|&(distance, _)| distance <= limit)
        .min()
        .map(|(_, candidate)| candidate.as_str())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// Calls `f` with every bare word of `regex` (quoted literals are meant as words) and its
/// range.
fn words_of(regex: &ast::Regex, f: &mut impl FnMut(&str, TextRange)) {
    regex.visit(&mut |node| {
        if let RegexKind::Word(word) = &node.kind {
            f(word, node.range);
        }
    });
}
