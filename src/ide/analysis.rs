//! What a rules file does on its corpora: the exact rule system run on every line of every
//! bound corpus, with the figures of `automata::evaluate` and, per line, the prediction and
//! the patterns that matched (what hover examples, code lenses and corpus diagnostics read).
//!
//! The language server computes one [`RulesAnalysis`] per save of a rules file, in the
//! background; everything else in this module reads it. Patterns are also identified
//! across edits by a [`PatternKey`] (the name and the regex, or for an anonymous rule its
//! label and regex), so that what was computed for the saved text can be shown on the text
//! being edited, and only while the pattern is unchanged.
//! Where a corpus has lines without a gold label, the rules' label model estimates what
//! gold labels would say (`labeling::Estimates`), for the rule hovers, from the same
//! classifications.
//! Cost: one classification per corpus line (SMS, 5,000 lines: a few milliseconds),
//! interruptible between lines, and the label model's passes over the rules that fired.

use crate::automata::{Classification, Evaluation, Evaluator, Scratch};
use crate::corpus::CorpusFile;
use crate::labeling::{
    Estimates, LabelMatrix, LabelModelError, LineLabels, gold_labels, labeling_rules,
};
use crate::rules_file::RulesFile;
use crate::syntax::{LabelId, PatternId, RuleSet, regex_key};
use std::collections::HashMap;
use std::sync::Arc;

/// A pattern's identity across edits of its file: `name = regex` for a named pattern,
/// `label: regex` for an anonymous rule (the regex as printed, so spacing and comments do
/// not count), numbered `#2`, `#3`, … for the second and later of identical rules, so that
/// each keeps its own figures and findings. A pattern whose regex was edited is a different
/// pattern: the figures, findings and reconstruction of the old one do not apply to it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PatternKey(String);

impl PatternKey {
    /// The key of every pattern of `rules`, in order (linear in the rules' size).
    pub fn all(rules: &RuleSet) -> Vec<PatternKey> {
        let mut seen: HashMap<String, usize> = HashMap::with_capacity(rules.patterns.len());
        rules
            .patterns
            .iter()
            .map(|def| {
                let base = if def.anonymous {
                    let label = def
                        .labels
                        .first()
                        .and_then(|label| rules.labels.get(label.index()))
                        .map_or("", |label| label.name.as_str());
                    format!("{label}: {}", regex_key(&def.regex))
                } else {
                    format!("{} = {}", def.name, regex_key(&def.regex))
                };
                let count = seen.entry(base.clone()).or_insert(0);
                *count += 1;
                PatternKey(match *count {
                    1 => base,
                    n => format!("{base} #{n}"),
                })
            })
            .collect()
    }

    /// The key of one pattern of `rules`.
    pub fn of(rules: &RuleSet, pattern: PatternId) -> PatternKey {
        PatternKey::all(rules).swap_remove(pattern.index())
    }

    /// Every pattern of `rules` by its key: for many lookups.
    pub fn index(rules: &RuleSet) -> HashMap<PatternKey, PatternId> {
        PatternKey::all(rules)
            .into_iter()
            .enumerate()
            .map(|(i, key)| (key, PatternId(i as u32)))
            .collect()
    }

    /// The pattern of `rules` with this key.
    pub fn find(&self, rules: &RuleSet) -> Option<PatternId> {
        PatternKey::all(rules)
            .iter()
            .position(|key| key == self)
            .map(|i| PatternId(i as u32))
    }
}

/// What the rule system did on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `None` when no label fired and there is no default.
    pub prediction: Option<LabelId>,
    /// The patterns that matched, in the rule set's order (`RuleSet::patterns`).
    pub matched: Vec<PatternId>,
}

impl Outcome {
    /// The matched patterns that decide the line: those whose labels hold its prediction.
    pub fn deciding<'a>(&'a self, rules: &'a RuleSet) -> impl Iterator<Item = PatternId> + 'a {
        self.matched.iter().copied().filter(|p| {
            self.prediction
                .is_some_and(|label| rules.patterns[p.index()].labels.contains(&label))
        })
    }
}

/// The rule system on one corpus.
#[derive(Debug, Clone)]
pub struct CorpusRun {
    /// The binding's name (`train`, `dev`, …).
    pub name: String,
    pub file: CorpusFile,
    pub evaluation: Evaluation,
    /// Per example of `file`.
    pub outcomes: Vec<Outcome>,
    /// Where some line has no gold label: what the rules' label model estimates.
    pub estimates: Option<Result<Estimates, LabelModelError>>,
}

/// A rules file and what it does on its corpora.
#[derive(Debug, Clone)]
pub struct RulesAnalysis {
    pub rules: Arc<RulesFile>,
    pub corpora: Vec<CorpusRun>,
}

impl RulesAnalysis {
    /// The corpus bound as `name`.
    pub fn corpus(&self, name: &str) -> Option<&CorpusRun> {
        self.corpora.iter().find(|run| run.name == name)
    }

    /// The corpus read from `path`.
    pub fn corpus_at(&self, path: &std::path::Path) -> Option<&CorpusRun> {
        self.corpora.iter().find(|run| run.file.path == path)
    }
}

/// Why an analysis stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// Runs `rules` on each `(binding name, corpus)`; `cancelled` is polled every 1,024 lines.
///
/// ```
/// use rulelens::corpus::{CorpusFile, Format};
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// use std::sync::Arc;
/// let rules = RulesFile::analyze(
///     SourceText::from_bytes(b"default ham\nspam: $* free $*\n"), None, &Default::default());
/// let corpus = CorpusFile::parse("train.tsv".into(), Format::Tsv,
///     SourceText::from_bytes(b"spam\tFREE entry\nham\tfree time\n"));
/// let analysis = rulelens::ide::analyze(Arc::new(rules), vec![("train".into(), corpus)], &|| false)
///     .unwrap();
/// let train = analysis.corpus("train").unwrap();
/// assert_eq!(train.evaluation.n_correct, 1);
/// assert_eq!(train.outcomes[1].matched.len(), 1);
/// ```
pub fn analyze(
    rules: Arc<RulesFile>,
    corpora: Vec<(String, CorpusFile)>,
    cancelled: &dyn Fn() -> bool,
) -> Result<RulesAnalysis, Cancelled> {
    let system = &rules.system;
    let mut runs = Vec::with_capacity(corpora.len());
    for (name, file) in corpora {
        let mut scratch = Scratch::default();
        let mut classification = Classification::default();
        let mut evaluator = Evaluator::new(system);
        let mut outcomes = Vec::with_capacity(file.examples.len());
        // The label matrix, where some line has no gold label.
        let mut matrix = file
            .examples
            .iter()
            .any(|e| e.label.is_none())
            .then(|| LabelMatrix::new(system.rules().len()));
        for (i, example) in file.examples.iter().enumerate() {
            if i % 1024 == 0 && cancelled() {
                return Err(Cancelled);
            }
            system.classify_with(&example.text, &mut scratch, &mut classification);
            evaluator.add(&classification, example.label.as_deref());
            if let Some(matrix) = &mut matrix {
                matrix.push(LineLabels::of(system, &classification));
            }
            outcomes.push(Outcome {
                prediction: classification.prediction,
                matched: (0..classification.matched.len())
                    .filter(|&p| classification.matched[p])
                    .map(|p| PatternId(p as u32))
                    .collect(),
            });
        }
        let evaluation = evaluator.finish();
        let estimates = matrix.map(|matrix| {
            let gold = gold_labels(system, &file.examples);
            Estimates::of(system, &labeling_rules(&rules), &matrix, &gold)
        });
        runs.push(CorpusRun {
            name,
            file,
            evaluation,
            outcomes,
            estimates,
        });
    }
    Ok(RulesAnalysis {
        rules,
        corpora: runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::print_regex;
    use crate::text::SourceText;

    fn rules(text: &str) -> RulesFile {
        RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            None,
            &Default::default(),
        )
    }

    #[test]
    fn keys_follow_patterns_across_edits_that_move_lines() {
        let before = rules("default ham\nspam: $* free $*\npattern p = $* hi $*\nham <- p\n");
        let after =
            rules("default ham\n# a comment\nham <- p\npattern p = $* hi $*\nspam: $*   free $*\n");
        for (key, def) in PatternKey::all(&before.rules)
            .iter()
            .zip(&before.rules.patterns)
        {
            let found = key.find(&after.rules).expect("found after the edit");
            let moved = &after.rules.patterns[found.index()];
            assert_eq!(print_regex(&moved.regex), print_regex(&def.regex));
        }
        let edited = rules("default ham\nspam: $* fre $*\n");
        let key = PatternKey::of(&before.rules, PatternId(0));
        assert_eq!(key.find(&edited.rules), None);
    }

    #[test]
    fn identical_rules_keep_their_own_keys_in_order() {
        let text = "default ham\nspam: $* x $*\nham: $* y $*\nspam: $* x $*\nspam: $*  x $*\n";
        let keys = PatternKey::all(&rules(text).rules);
        let names: Vec<&str> = keys.iter().map(|k| k.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "spam: $* x $*",
                "ham: $* y $*",
                "spam: $* x $* #2",
                "spam: $* x $* #3"
            ]
        );
        // Moved apart by an edit, the third is still the third.
        let edited = rules("default ham\nspam: $* x $*\nspam: $* x $*\n\nspam: $* x $*\n");
        assert_eq!(keys[3].find(&edited.rules), Some(PatternId(2)));
    }
}
