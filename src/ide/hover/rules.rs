//! The hovers over a rules file: a pattern's regex, automaton and figures with a few
//! matches, and a label's figures.

use super::config::{HoverConfig, match_span};
use crate::automata::{LabelMetrics, PatternMetrics, Scratch};
use crate::explain::LearnedPattern;
use crate::ide::analysis::{PatternKey, RulesAnalysis};
use crate::ide::findings::describe;
use crate::ide::navigation::name_at;
use crate::ide::positions::NameKind;
use crate::ide::trained::TrainedPatterns;
use crate::rules_file::{RulesFile, same_language};
use crate::syntax::ast::{Formula, FormulaKind, RegexKind, StatementKind};
use crate::syntax::{PatternId, print_regex, spell_token};
use crate::text::tokenize;
use text_size::{TextRange, TextSize};

/// The corpus figures a rules-file hover can show.
#[derive(Debug, Clone, Copy, Default)]
pub struct Figures<'a> {
    /// The last saved analysis, possibly of an older text.
    pub analysis: Option<&'a RulesAnalysis>,
    /// Whether a newer save's analysis is being computed.
    pub pending: bool,
    /// The last trained SoPa, whose learned patterns a rule may have been added from.
    pub patterns: Option<&'a TrainedPatterns>,
}

/// What a rules-file hover is about.
#[derive(Debug, Clone, PartialEq)]
pub enum RulesHover {
    Pattern(PatternHover),
    Label(LabelHover),
    WordList(WordListHover),
}

/// The hover of a word list, on its `words NAME` or on an `@NAME`.
#[derive(Debug, Clone, PartialEq)]
pub struct WordListHover {
    pub name: String,
    /// How many entries it holds (repeats dropped).
    pub n_entries: usize,
    /// Its first entries, at most [`HoverConfig::max_listed`], each as written in a rule.
    pub first: Vec<String>,
    /// The file it is read from, as written.
    pub file: Option<String>,
    /// The patterns that use it: (pattern as described, 1-based line).
    pub used_by: Vec<(String, u32)>,
}

/// A pattern's hover.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternHover {
    /// `name`, or `the spam rule of line 14` for an anonymous one.
    pub title: String,
    pub regex: String,
    /// The labels it votes for.
    pub labels: Vec<String>,
    /// States of its minimal DFA; `None` when it passed the state cap.
    pub n_dfa_states: Option<usize>,
    /// Figures per corpus; empty when the saved analysis does not know the pattern.
    pub corpora: Vec<PatternFigures>,
    pub examples: Vec<MatchExample>,
    /// Whether the last saved analysis has this pattern as it is now.
    pub evaluated: bool,
    /// Whether a newer save's figures are being computed.
    pub pending: bool,
    /// Whether the pattern's statement has a syntax error, so that the regex shown is what
    /// the parser recovered from it.
    pub recovered: bool,
    /// The SoPa's learned pattern this rule is (same label, same language), with its top
    /// phrases.
    pub learned: Option<LearnedPattern>,
}

/// A pattern's figures on one corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternFigures {
    pub corpus: String,
    pub n_lines: usize,
    pub metrics: PatternMetrics,
    /// The corpus's lines without a gold label.
    pub n_unlabeled: usize,
    /// Where the corpus has lines without a gold label: the estimated precision of the
    /// rule that is this pattern alone (`LABEL: REGEX`, or `LABEL <- NAME`), by the rules'
    /// label model.
    pub estimated_precision: Option<f64>,
}

impl PatternFigures {
    pub fn coverage(&self) -> Option<f64> {
        (self.n_lines > 0).then(|| self.metrics.matches as f64 / self.n_lines as f64)
    }
}

/// A corpus line a pattern matches.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchExample {
    pub corpus: String,
    /// Zero-based line in the corpus file.
    pub line: u32,
    pub text: String,
    /// The matched tokens, in bytes of `text`.
    pub span: TextRange,
    pub gold: String,
    /// Whether the gold label is one the pattern votes for.
    pub correct: bool,
}

/// A label's hover.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelHover {
    pub name: String,
    pub is_default: bool,
    /// Its rules in the file.
    pub n_rules: usize,
    pub corpora: Vec<LabelFigures>,
    /// Whether a newer save's figures are being computed.
    pub pending: bool,
}

/// A label's figures on one corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelFigures {
    pub corpus: String,
    pub metrics: LabelMetrics,
    /// Gold this label, predicted another: (label, lines), most first.
    pub mistaken_for: Vec<(String, usize)>,
    /// Predicted this label, gold another.
    pub taken_for: Vec<(String, usize)>,
}

/// Where `offset` falls in a rules file.
enum Target {
    Pattern(PatternId),
    Label(String),
}

/// The pattern name of a formula at `offset`, with its range.
fn formula_name_at(formula: &Formula, offset: TextSize) -> Option<(&str, TextRange)> {
    if !formula.range.contains_inclusive(offset) {
        return None;
    }
    match &formula.kind {
        FormulaKind::Name(name) => Some((name, formula.range)),
        FormulaKind::Not(inner) => formula_name_at(inner, offset),
        FormulaKind::And(items) | FormulaKind::Or(items) => {
            items.iter().find_map(|item| formula_name_at(item, offset))
        }
        FormulaKind::Error => None,
    }
}

/// What is at `offset`, with the range to highlight.
fn target_at(file: &RulesFile, offset: TextSize) -> Option<(TextRange, Target)> {
    let rules = &file.rules;
    let pattern_of_statement = |range: TextRange| {
        rules
            .patterns
            .iter()
            .position(|def| def.range == range)
            .map(|p| PatternId(p as u32))
    };
    let named = |name: &str| {
        rules
            .patterns
            .iter()
            .position(|def| !def.anonymous && def.name == name)
            .map(|p| PatternId(p as u32))
    };
    let statement = file
        .parse
        .file
        .statements
        .iter()
        .find(|s| s.range.contains_inclusive(offset))?;
    let label = |name: &crate::syntax::ast::Name| {
        name.range
            .contains_inclusive(offset)
            .then(|| (name.range, Target::Label(name.text.clone())))
    };
    match &statement.kind {
        StatementKind::Default { label: Some(name) } => label(name),
        StatementKind::Pattern { name, regex } => {
            let pattern = pattern_of_statement(statement.range)?;
            match (name, regex) {
                (Some(name), _) if name.range.contains_inclusive(offset) => {
                    Some((name.range, Target::Pattern(pattern)))
                }
                (_, Some(regex)) if regex.range.contains_inclusive(offset) => {
                    Some((regex.range, Target::Pattern(pattern)))
                }
                _ => None,
            }
        }
        StatementKind::LabelRegex { label: name, regex } => label(name).or_else(|| {
            let regex = regex.as_ref()?;
            regex.range.contains_inclusive(offset).then_some(())?;
            Some((
                regex.range,
                Target::Pattern(pattern_of_statement(statement.range)?),
            ))
        }),
        StatementKind::LabelFormula {
            label: name,
            formula,
        } => label(name).or_else(|| {
            let (name, range) = formula_name_at(formula.as_ref()?, offset)?;
            Some((range, Target::Pattern(named(name)?)))
        }),
        _ => None,
    }
}

/// The hover at `offset` of a rules file, with the range it is about.
pub fn hover_rules(
    file: &RulesFile,
    offset: TextSize,
    figures: Figures<'_>,
    config: &HoverConfig,
) -> Option<(TextRange, RulesHover)> {
    if let Some(name) = name_at(file, offset)
        && name.kind == NameKind::WordList
    {
        return Some((
            name.range,
            RulesHover::WordList(word_list_hover(file, &name.name, config)?),
        ));
    }
    let (range, target) = target_at(file, offset)?;
    let hover = match target {
        Target::Pattern(pattern) => RulesHover::Pattern(PatternHover {
            pending: figures.pending,
            learned: figures
                .patterns
                .and_then(|patterns| learned_pattern(file, pattern, patterns)),
            ..pattern_hover(file, pattern, figures.analysis, config)
        }),
        Target::Label(name) => RulesHover::Label(LabelHover {
            pending: figures.pending,
            ..label_hover(file, &name, figures.analysis)
        }),
    };
    Some((range, hover))
}

fn word_list_hover(file: &RulesFile, name: &str, config: &HoverConfig) -> Option<WordListHover> {
    let def = file.rules.word_list(name)?;
    let first = def
        .list
        .entries
        .iter()
        .take(config.max_listed)
        .map(|entry| {
            entry
                .iter()
                .map(|token| match tokenize(token).get(0) {
                    Some(t) => spell_token(t.kind, token),
                    None => token.clone(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let used_by = file
        .rules
        .patterns
        .iter()
        .enumerate()
        .filter(|(_, pattern)| {
            let mut uses = false;
            pattern.regex.visit(&mut |node| {
                uses |= matches!(&node.kind, RegexKind::WordList(r) if r.name == name)
            });
            uses
        })
        .map(|(i, pattern)| (describe(&file.rules, i), pattern.line))
        .collect();
    Some(WordListHover {
        name: name.to_string(),
        n_entries: def.list.entries.len(),
        first,
        file: def.file.as_ref().map(|f| f.path.clone()),
        used_by,
    })
}

/// The learned pattern of `patterns` that `pattern` is: a rule of its label whose regex
/// matches what the learned pattern's read-back regex matches.
fn learned_pattern(
    file: &RulesFile,
    pattern: PatternId,
    patterns: &TrainedPatterns,
) -> Option<LearnedPattern> {
    let def = file.rules.patterns.get(pattern.index())?;
    let regex = print_regex(&def.regex);
    let labels: Vec<&str> = def
        .labels
        .iter()
        .filter_map(|l| file.rules.labels.get(l.index()).map(|d| d.name.as_str()))
        .collect();
    patterns
        .learned()
        .iter()
        .find(|learned| {
            labels.contains(&patterns.label(learned)) && same_language(&regex, &learned.regex)
        })
        .cloned()
}

fn pattern_hover(
    file: &RulesFile,
    pattern: PatternId,
    analysis: Option<&RulesAnalysis>,
    config: &HoverConfig,
) -> PatternHover {
    let rules = &file.rules;
    let def = &rules.patterns[pattern.index()];
    let mut hover = PatternHover {
        title: describe(rules, pattern.index()),
        regex: print_regex(&def.regex),
        labels: def
            .labels
            .iter()
            .filter_map(|l| rules.labels.get(l.index()).map(|d| d.name.clone()))
            .collect(),
        n_dfa_states: file
            .system
            .patterns()
            .get(pattern.index())
            .and_then(|c| c.dfa.as_ref())
            .map(|dfa| dfa.live_states().count()),
        corpora: Vec::new(),
        examples: Vec::new(),
        evaluated: false,
        pending: false,
        recovered: file
            .parse
            .diagnostics
            .iter()
            .any(|d| d.is_error() && def.range.intersect(d.range).is_some()),
        learned: None,
    };
    let Some(analysis) = analysis else {
        return hover;
    };
    // The saved analysis is usually of this very text: then its pattern has the same id,
    // and no key is needed (naming every pattern costs a hover time in proportion to the
    // file).
    let saved = if analysis.rules.source.text == file.source.text {
        Some(pattern)
    } else {
        PatternKey::of(rules, pattern).find(&analysis.rules.rules)
    };
    let Some(saved) = saved else {
        return hover;
    };
    hover.evaluated = true;
    let system = &analysis.rules.system;
    let polarity = &analysis.rules.rules.patterns[saved.index()].labels;
    let mut scratch = Scratch::default();
    let (mut n_correct, mut n_wrong) = (0, 0);
    // The rule that is the pattern alone, whose precision the label model estimates.
    let rule = system
        .rules()
        .iter()
        .position(|rule| rule.formula == crate::syntax::Formula::Pattern(saved));
    for run in &analysis.corpora {
        let estimates = run.estimates.as_ref().and_then(|e| e.as_ref().ok());
        hover.corpora.push(PatternFigures {
            corpus: run.name.clone(),
            n_lines: run.file.examples.len(),
            metrics: run.evaluation.patterns[saved.index()].clone(),
            n_unlabeled: run.evaluation.n_examples - run.evaluation.n_labeled,
            estimated_precision: estimates.zip(rule).and_then(|(e, r)| e.precision[r]),
        });
        for (outcome, example) in run.outcomes.iter().zip(&run.file.examples) {
            if n_correct >= config.max_examples && n_wrong >= config.max_examples {
                break;
            }
            let Some(gold) = example.label.as_deref() else {
                continue;
            };
            if !outcome.matched.contains(&saved) {
                continue;
            }
            let correct = polarity.iter().any(|l| system.labels()[l.index()] == gold);
            let count = if correct {
                &mut n_correct
            } else {
                &mut n_wrong
            };
            if *count >= config.max_examples {
                continue;
            }
            *count += 1;
            hover.examples.push(MatchExample {
                corpus: run.name.clone(),
                line: example.line,
                span: match_span(system, saved, &example.text, &mut scratch)
                    .unwrap_or_else(|| TextRange::up_to(TextSize::of(example.text.as_str()))),
                text: example.text.clone(),
                gold: gold.to_string(),
                correct,
            });
        }
    }
    hover
}

fn label_hover(file: &RulesFile, name: &str, analysis: Option<&RulesAnalysis>) -> LabelHover {
    let rules = &file.rules;
    let mut hover = LabelHover {
        name: name.to_string(),
        is_default: rules
            .default
            .and_then(|l| rules.labels.get(l.index()))
            .is_some_and(|d| d.name == name),
        n_rules: rules
            .labels
            .iter()
            .find(|d| d.name == name)
            .map_or(0, |d| d.rules.len()),
        corpora: Vec::new(),
        pending: false,
    };
    for run in analysis.map_or(&[][..], |a| a.corpora.as_slice()) {
        let evaluation = &run.evaluation;
        let Some(index) = evaluation.label_names.iter().position(|l| l == name) else {
            continue;
        };
        let mut mistaken_for = Vec::new();
        let mut taken_for = Vec::new();
        for (other, other_name) in evaluation.label_names.iter().enumerate() {
            if other == index {
                continue;
            }
            let as_other = evaluation.confusion(index, Some(other));
            if as_other > 0 {
                mistaken_for.push((other_name.clone(), as_other));
            }
            let from_other = evaluation.confusion(other, Some(index));
            if from_other > 0 {
                taken_for.push((other_name.clone(), from_other));
            }
        }
        let unpredicted = evaluation.confusion(index, None);
        if unpredicted > 0 {
            mistaken_for.push(("no label".to_string(), unpredicted));
        }
        mistaken_for.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        taken_for.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        hover.corpora.push(LabelFigures {
            corpus: run.name.clone(),
            metrics: evaluation.labels[index].clone(),
            mistaken_for,
            taken_for,
        });
    }
    hover
}
