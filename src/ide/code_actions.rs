//! Code actions as edits of the rules text: "Replace with reconstructed regex" and "Disable
//! pattern" on a pattern, "Add rule for this line" and "Widen" on a misclassified corpus
//! line.
//!
//! - Replacing puts the regex the trained network reads back for the pattern
//!   (`explain::reconstruct`, precomputed in [`TrainedFaRnn`]) in place of the pattern's
//!   regex; the title gives the dev accuracy before and after. A regex that matches exactly
//!   what the pattern matches (written otherwise) is not offered.
//! - A diagnostic of the file with a fix (an unclosed group's `)`) is a quick fix.
//! - Disabling makes the pattern match nothing while everything else means what it meant:
//!   an anonymous rule is commented out when that keeps the labels' priority order, and
//!   otherwise, like a named pattern, rewritten through its uses (`explain::rewrite_rules`).
//! - Adding a rule builds `gold: $* n-gram $*` from the line's n-gram (one to three tokens)
//!   that points most toward the gold label: by the trained network, how much deleting it
//!   lowers the gold label's probability (occlusion, `explain::ngrams`), when some n-gram
//!   lowers it; else by the train corpus' count polarity `(p − n)/(p + n)` (Sun & Lu's
//!   adjective lists, papers-brief §3.3: p lines of the gold label and n of others contain
//!   the n-gram); and inserts it after the label's last rule, so that its priority does not
//!   change. An n-gram whose rule the file already has (it fired, and lost to a label of
//!   higher priority) is passed over for the next one.
//! - Widening rewrites the rule of the gold label that comes closest to matching the line so
//!   that it matches it (`suggest::widen_for_line`: one element widened, a literal into a
//!   word set with the line's word, say), checked by compiling the edited rules; the title
//!   gives the evidence the suggestion engine measured on the train and dev corpora.
//!
//! Every action is one [`TextEdit`] of the rules file, the smallest that turns the old text
//! into the new one; versions are the language server's business. Cost: one analysis of the
//! edited rules per action offered (a few milliseconds), plus one pass over the train corpus
//! for "Add rule", and for "Widen" one classification of the train and dev corpora before
//! and after the edit.

use super::analysis::{PatternKey, RulesAnalysis};
use super::edit::TextEdit;
use super::findings::describe;
use super::trained::TrainedFaRnn;
use crate::corpus::Example;
use crate::explain::{NEGLIGIBLE, OCCLUSION_BUDGET, ngrams, rewrite_rules};
use crate::rules_file::RulesFile;
use crate::suggest::{Corpora, Edit, insert_rule, widen_for_line};
use crate::syntax::{PatternId, spell_token};
use crate::text::{SourceText, TokenKind, tokenize};
use std::collections::HashMap;
use text_size::{TextRange, TextSize};

/// The longest n-gram "Add rule for this line" considers, in tokens.
pub const MAX_RULE_NGRAM: usize = 3;

/// What kind of change an action is (LSP's code action kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    QuickFix,
    RefactorRewrite,
}

/// A code action: a title and one edit of the rules text.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub title: String,
    pub kind: ActionKind,
    pub edit: TextEdit,
}

/// The one edit that turns `old` into `new`: everything between their common prefix and
/// suffix (on char boundaries).
///
/// ```
/// let edit = rulelens::ide::minimal_edit("spam: $* won $*\n", "spam: $* ( won | win ) $*\n");
/// assert_eq!((u32::from(edit.range.start()), edit.new_text.as_str()), (9, "( won | win )"));
/// ```
pub fn minimal_edit(old: &str, new: &str) -> TextEdit {
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    TextEdit {
        range: TextRange::new(
            TextSize::from(prefix as u32),
            TextSize::from((old.len() - suffix) as u32),
        ),
        new_text: new[prefix..new.len() - suffix].to_string(),
    }
}

fn analyze(text: &str) -> RulesFile {
    RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &Default::default(),
    )
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{:.1}%", 100.0 * v))
}

/// The actions on the patterns whose statements `range` touches. `model` gives the
/// reconstructions (of the saved rules; a pattern edited since has none).
pub fn rules_actions(
    file: &RulesFile,
    range: TextRange,
    model: Option<&TrainedFaRnn>,
) -> Vec<Action> {
    let rules = &file.rules;
    let text = &file.source.text;
    let mut actions = Vec::new();
    let keys = PatternKey::all(rules);
    for (p, def) in rules.patterns.iter().enumerate() {
        if def.range.intersect(range).is_none() {
            continue;
        }
        let pattern = PatternId(p as u32);
        let name = describe(rules, p);
        // A reconstruction that only spells the pattern differently changes nothing; one
        // that lowers dev accuracy, or leaves it as it is, makes the rules no better.
        let reconstruction = model
            .and_then(|m| m.reconstruction(&keys[p]))
            .filter(|r| !r.same_language)
            .filter(
                |r| match (model.and_then(|m| m.dev_accuracy), r.dev_accuracy) {
                    (Some(before), Some(after)) => after > before,
                    _ => true,
                },
            );
        if let Some(reconstruction) = reconstruction {
            let rewritten = rewrite_rules(text, rules, &[(pattern, reconstruction.regex.clone())]);
            if rewritten != *text {
                let shown = reconstruction
                    .regex
                    .as_deref()
                    .map_or_else(|| "nothing".to_string(), |r| format!("`{r}`"));
                let accuracy = match (
                    model.and_then(|m| m.dev_accuracy),
                    reconstruction.dev_accuracy,
                ) {
                    (Some(before), Some(after)) => format!(
                        " (dev accuracy {} → {}, {:+.1})",
                        percent(Some(before)),
                        percent(Some(after)),
                        100.0 * (after - before)
                    ),
                    _ => String::new(),
                };
                actions.push(Action {
                    title: format!("Replace {name} with reconstructed regex {shown}{accuracy}"),
                    kind: ActionKind::RefactorRewrite,
                    edit: minimal_edit(text, &rewritten),
                });
            }
        }
        actions.push(Action {
            title: format!("Disable {name}"),
            kind: ActionKind::RefactorRewrite,
            edit: minimal_edit(text, &disabled(file, pattern)),
        });
    }
    for diagnostic in &file.diagnostics {
        let Some(fix) = &diagnostic.fix else {
            continue;
        };
        // A fix that removes whole lines ends where the next line starts: a cursor there
        // is on the next line, so the line break does not count.
        let text = &file.source.text;
        let fix_end = text[..usize::from(fix.range.end())]
            .trim_end_matches(['\n', '\r'])
            .len()
            .max(usize::from(fix.range.start()));
        let fix_lines = TextRange::new(fix.range.start(), TextSize::from(fix_end as u32));
        if diagnostic.range.intersect(range).is_none() && fix_lines.intersect(range).is_none() {
            continue;
        }
        actions.push(Action {
            title: fix.title.clone(),
            kind: ActionKind::QuickFix,
            edit: TextEdit {
                range: fix.range,
                new_text: fix.new_text.clone(),
            },
        });
    }
    actions
}

/// The rules text with `pattern` matching nothing (see the module doc).
fn disabled(file: &RulesFile, pattern: PatternId) -> String {
    let text = &file.source.text;
    let def = &file.rules.patterns[pattern.index()];
    if def.anonymous {
        let start = usize::from(def.range.start());
        let mut commented = text.clone();
        commented.insert_str(start, "# disabled: ");
        if analyze(&commented).system.labels().iter().eq(file
            .system
            .labels()
            .iter()
            .filter(|label| has_rules_besides(file, label, pattern)))
        {
            return commented;
        }
    }
    rewrite_rules(text, &file.rules, &[(pattern, None)])
}

/// Whether `label` keeps a rule, or stays the default, once `pattern`'s rule is gone.
fn has_rules_besides(file: &RulesFile, label: &str, pattern: PatternId) -> bool {
    let rules = &file.rules;
    let def = &rules.patterns[pattern.index()];
    let Some(id) = rules.label_by_name(label) else {
        return false;
    };
    rules.default == Some(id)
        || rules.labels[id.index()]
            .rules
            .iter()
            .any(|rule| rule.range != def.range)
}

/// Train counts of an n-gram: lines with the gold label containing it, lines with others.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    gold: usize,
    other: usize,
}

impl Counts {
    fn rate(self) -> f64 {
        let total = self.gold + self.other;
        if total == 0 {
            0.0
        } else {
            (self.gold as f64 - self.other as f64) / total as f64
        }
    }
}

/// "Add rule for this line" and "Widen", when the rules misclassify `example` (a line of a
/// corpus bound to `file`). `analysis` gives the train corpus' counts and the corpora a
/// widening is measured on, `model` the n-grams' contributions toward the gold label.
pub fn line_actions(
    example: &Example,
    file: &RulesFile,
    analysis: Option<&RulesAnalysis>,
    model: Option<&TrainedFaRnn>,
) -> Vec<Action> {
    let Some(gold) = example.label.as_deref() else {
        return Vec::new();
    };
    let system = &file.system;
    let gold_id = system.label_by_name(gold);
    if gold_id.is_some() && system.classify(&example.text).prediction == gold_id {
        return Vec::new();
    }
    let add = add_rule_action(example, gold, file, analysis, model);
    add.into_iter()
        .chain(widen_action(example, gold, file, analysis))
        .collect()
}

/// "Widen `RULE`": see the module doc. Needs the analysis' train corpus.
fn widen_action(
    example: &Example,
    gold: &str,
    file: &RulesFile,
    analysis: Option<&RulesAnalysis>,
) -> Option<Action> {
    let analysis = analysis?;
    let train = analysis.corpus("train")?;
    let dev = analysis.corpus("dev");
    let corpora = Corpora {
        train: &train.file.examples,
        dev: dev.map_or(&[][..], |dev| &dev.file.examples),
        vectors: None,
    };
    let widened = widen_for_line(file, &corpora, gold, &example.text)?;
    let suggestion = &widened.suggestion;
    let Edit::ReplaceRegex { label, new, .. } = &suggestion.edit else {
        return None;
    };
    let evidence = &suggestion.evidence;
    let mut why = vec![format!(
        "fixes {} train line{}, breaks {}",
        evidence.fixed,
        if evidence.fixed == 1 { "" } else { "s" },
        evidence.broken
    )];
    if dev.is_some() {
        why.push(format!(
            "dev {:.1} → {:.1} %",
            100.0 * evidence.dev_before,
            100.0 * evidence.dev_after
        ));
    }
    let edited = &widened.edited.system;
    if edited.classify(&example.text).prediction != edited.label_by_name(gold) {
        why.push("a higher-priority label still wins here".to_string());
    }
    Some(Action {
        title: format!("Widen `{label}: {new}` ({})", why.join("; ")),
        kind: ActionKind::QuickFix,
        edit: minimal_edit(&file.source.text, &suggestion.new_text),
    })
}

/// "Add rule for this line": see the module doc.
fn add_rule_action(
    example: &Example,
    gold: &str,
    file: &RulesFile,
    analysis: Option<&RulesAnalysis>,
    model: Option<&TrainedFaRnn>,
) -> Option<Action> {
    let tokens = tokenize(&example.text);
    // Candidate n-grams as their token texts, with the spelled literal sequence.
    let mut candidates: Vec<(Vec<String>, String)> = Vec::new();
    for start in 0..tokens.len() {
        for len in 1..=MAX_RULE_NGRAM {
            let Some(window) = (start..start + len)
                .map(|i| tokens.get(i))
                .collect::<Option<Vec<_>>>()
            else {
                break;
            };
            let words: Vec<String> = window.iter().map(|t| t.text.to_string()).collect();
            if window.iter().all(|t| t.kind == TokenKind::Punct) {
                continue;
            }
            let spelled: Vec<String> = window.iter().map(|t| spell_token(t.kind, t.text)).collect();
            if !candidates.iter().any(|(w, _)| *w == words) {
                candidates.push((words, spelled.join(" ")));
            }
        }
    }
    let counts = train_counts(analysis, gold, &candidates);
    let contributions = model_contributions(example, model, gold);
    // Rank: the network's contribution toward gold when one is not negligible, else train
    // counts.
    let score = |i: usize| -> (f64, f64, usize) {
        let c = counts.get(i).copied().unwrap_or_default();
        let count_rate = if c.gold >= 2 {
            c.rate()
        } else {
            f64::NEG_INFINITY
        };
        let network = contributions.get(&candidates[i].0).copied().unwrap_or(0.0);
        (network, count_rate, c.gold)
    };
    let any_network = (0..candidates.len()).any(|i| score(i).0 >= NEGLIGIBLE);
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    // Best first.
    order.sort_by(|&a, &b| {
        let (na, ca, ga) = score(a);
        let (nb, cb, gb) = score(b);
        let primary = if any_network {
            na.total_cmp(&nb).then(ca.total_cmp(&cb))
        } else {
            ca.total_cmp(&cb)
        };
        primary
            .then(ga.cmp(&gb))
            .then(candidates[b].0.len().cmp(&candidates[a].0.len()))
            .then(b.cmp(&a))
            .reverse()
    });
    // The file's own rules: a candidate that is one of them already lost to priority here.
    let existing = PatternKey::all(&file.rules);
    let chosen = order.into_iter().find_map(|i| {
        let (network, count_rate, _) = score(i);
        let from_network = any_network && network >= NEGLIGIBLE;
        if !from_network && !count_rate.is_finite() {
            return None;
        }
        let rule = format!("{gold}: $* {} $*", candidates[i].1);
        let alone = analyze(&format!("{rule}\n"));
        let duplicate = PatternKey::all(&alone.rules)
            .first()
            .is_some_and(|key| existing.contains(key));
        (!duplicate).then_some((i, network, from_network, rule))
    });
    let (best, network, from_network, rule) = chosen?;
    let text = &file.source.text;
    let new_text = insert_rule(file, gold, &rule);
    let fixed = {
        let edited = analyze(&new_text);
        edited.system.classify(&example.text).prediction == edited.system.label_by_name(gold)
    };
    let c = counts.get(best).copied().unwrap_or_default();
    let mut why = Vec::new();
    if let Some(model) = model.filter(|_| from_network) {
        why.push(format!(
            "{} {network:+.2} toward {gold}",
            model.manifest.settings.model.display_name()
        ));
    }
    if analysis.and_then(|a| a.corpus("train")).is_some() {
        why.push(format!(
            "train: {} line{}, {} {gold}",
            c.gold + c.other,
            if c.gold + c.other == 1 { "" } else { "s" },
            percent((c.gold + c.other > 0).then(|| c.gold as f64 / (c.gold + c.other) as f64))
        ));
    }
    if !fixed {
        why.push("a higher-priority label still wins here".to_string());
    }
    Some(Action {
        title: format!("Add rule `{rule}` ({})", why.join("; ")),
        kind: ActionKind::QuickFix,
        edit: minimal_edit(text, &new_text),
    })
}

/// Each n-gram of the line by token texts, with how much deleting it lowers the network's
/// probability of `gold` (the largest over the n-gram's occurrences).
fn model_contributions(
    example: &Example,
    model: Option<&TrainedFaRnn>,
    gold: &str,
) -> HashMap<Vec<String>, f64> {
    let mut out: HashMap<Vec<String>, f64> = HashMap::new();
    let Some(model) = model else {
        return out;
    };
    let Some(gold_id) = model.rules.system.label_by_name(gold) else {
        return out;
    };
    let occlusions =
        model
            .scorer
            .occlusions_within(&example.text, MAX_RULE_NGRAM, OCCLUSION_BUDGET);
    let scale = model.manifest.probability_scale();
    let tokens = tokenize(&example.text);
    for ngram in ngrams(&example.text, &occlusions, gold_id.index(), scale) {
        let words: Vec<String> = ngram
            .tokens
            .clone()
            .filter_map(|i| tokens.get(i).map(|t| t.text.to_string()))
            .collect();
        let contribution = out.entry(words).or_insert(f64::NEG_INFINITY);
        *contribution = contribution.max(ngram.contribution);
    }
    out
}

/// Per candidate, how many train lines of the gold label and of others contain it.
fn train_counts(
    analysis: Option<&RulesAnalysis>,
    gold: &str,
    candidates: &[(Vec<String>, String)],
) -> Vec<Counts> {
    let mut counts = vec![Counts::default(); candidates.len()];
    let Some(train) = analysis.and_then(|a| a.corpus("train")) else {
        return counts;
    };
    let index: HashMap<&[String], usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, (words, _))| (words.as_slice(), i))
        .collect();
    let mut seen = vec![false; candidates.len()];
    let mut words: Vec<String> = Vec::new();
    for example in &train.file.examples {
        let Some(label) = example.label.as_deref() else {
            continue;
        };
        words.clear();
        words.extend(tokenize(&example.text).iter().map(|t| t.text.to_string()));
        seen.fill(false);
        for start in 0..words.len() {
            for len in 1..=MAX_RULE_NGRAM.min(words.len() - start) {
                if let Some(&i) = index.get(&words[start..start + len])
                    && !seen[i]
                {
                    seen[i] = true;
                    if label == gold {
                        counts[i].gold += 1;
                    } else {
                        counts[i].other += 1;
                    }
                }
            }
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::super::edit::apply;
    use super::*;
    use crate::ide::testing::fixture;

    /// The actions offered at the fixture's `$0`, each as `[kind] title` and the text it
    /// leaves.
    fn check_rules_actions(with_cursor: &str) -> String {
        let (file, at) = fixture(with_cursor);
        rules_actions(&file, TextRange::empty(at), None)
            .iter()
            .map(|action| {
                let edited = apply(&file.source.text, std::slice::from_ref(&action.edit));
                format!(
                    "[{:?}] {}\n{}",
                    action.kind,
                    action.title,
                    edited.trim_end()
                )
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    #[test]
    fn an_unclosed_group_has_a_quick_fix_that_closes_it_where_the_parser_did() {
        insta::assert_snapshot!(check_rules_actions("default ham\nspam: $* $0( won $*\n"), @r"
        [RefactorRewrite] Disable the `spam` rule of line 2
        default ham
        # disabled: spam: $* ( won $*

        [QuickFix] Close the group with `)`
        default ham
        spam: $* ( won $* )
        ");
        // In a formula too.
        insta::assert_snapshot!(
            check_rules_actions("default ham\npattern a = $* x $*\nspam <- $0( a & !a\n"),
            @r"
        [QuickFix] Remove the rule of line 3
        default ham
        pattern a = $* x $*

        [QuickFix] Close the group with `)`
        default ham
        pattern a = $* x $*
        spam <- ( a & !a )
        "
        );
        // The fixed text parses cleanly.
        let clean = fixture("default ham\nspam: $* $0( won $* )\n").0;
        assert!(!clean.has_errors(), "{:?}", clean.diagnostics);
    }

    #[test]
    fn a_redundant_or_unsatisfiable_rule_has_a_quick_fix_that_removes_its_line() {
        insta::assert_snapshot!(
            check_rules_actions("default ham\nspam: $* free $*\nspam$0: $* free entry $*  # why\nham: $* hi $*\n"),
            @r"
        [RefactorRewrite] Disable the `spam` rule of line 3
        default ham
        spam: $* free $*
        # disabled: spam: $* free entry $*  # why
        ham: $* hi $*

        [QuickFix] Remove the rule of line 3
        default ham
        spam: $* free $*
        ham: $* hi $*
        "
        );
        insta::assert_snapshot!(
            check_rules_actions("default ham\npattern a = $* x $*\nspam: $* y $*\nspam <$0- a & !a\n"),
            @r"
        [QuickFix] Remove the rule of line 4
        default ham
        pattern a = $* x $*
        spam: $* y $*
        "
        );
        let titles_at = |with_cursor: &str| -> Vec<String> {
            let (file, at) = fixture(with_cursor);
            rules_actions(&file, TextRange::empty(at), None)
                .into_iter()
                .map(|a| a.title)
                .collect()
        };
        // Not on the next line: the fix's line break does not make it touch the cursor there.
        let titles =
            titles_at("default ham\nspam: $* free $*\nspam: $* free entry $*\n$0ham: $* hi $*\n");
        assert!(!titles.iter().any(|t| t.contains("line 3")), "{titles:?}");
        // At the end of the rule's own line, it is offered.
        let titles =
            titles_at("default ham\nspam: $* free $*\nspam: $* free entry $*$0\nham: $* hi $*\n");
        assert!(
            titles.contains(&"Remove the rule of line 3".to_string()),
            "{titles:?}"
        );
        // No quick fix where removing the rule would move its label down the priority order.
        let (file, at) =
            fixture("default ham\nspam: $* free $0entry $*\nham: $* hi $*\nspam: $* free $*\n");
        let actions = rules_actions(&file, TextRange::empty(at), None);
        assert!(
            actions.iter().all(|a| a.kind != ActionKind::QuickFix),
            "{actions:?}"
        );
    }
}
