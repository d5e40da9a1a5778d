//! The hover over a corpus line: the rules' verdict and why the gold label's patterns
//! missed, then the view of each trained network the project holds
//! ([`TrainedNetwork::explain_line`]), or why no network classifies the line.

use super::config::{HoverConfig, MAX_EXPLAINED_PATTERNS, MAX_FOUND, token_range};
use crate::automata::{ElementKind, Failure, PatternElements};
use crate::corpus::Example;
use crate::ide::findings::describe;
use crate::ide::trained::{Line, LineView, TrainedNetwork};
use crate::rules_file::RulesFile;
use crate::text::tokenize;
use text_size::{TextRange, TextSize};

/// Why a corpus line's hover has no view of the network that classifies in the editor
/// ([`Role::Classifier`](crate::ide::trained::Role::Classifier)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbsentNetwork {
    /// Training is on, and no network has finished for these rules yet.
    NotYetTrained,
    /// No network has finished for these rules yet, and one is training: `progress` is what
    /// its progress report says (`Full training of FA-RNN (rule network): sms.rules: epoch
    /// 10/60, …`).
    Training { progress: String },
    /// Training is off (the server's `training.enabled`).
    TrainingOff,
    /// The settings train no classifier, only the SoPa that learns patterns
    /// (`training.model` `sopa`), whose view is among [`LineHover::views`] once trained.
    SopaOnly,
}

/// A corpus line's hover.
#[derive(Debug, Clone, PartialEq)]
pub struct LineHover {
    pub gold: Option<String>,
    /// The rules' prediction; `None` when nothing fires and there is no default.
    pub rules_prediction: Option<String>,
    /// The patterns that matched, described.
    pub fired: Vec<String>,
    /// On a misclassified line: why the gold label's patterns did not match it, the
    /// closest first.
    pub missed: Vec<MissedPattern>,
    /// Why no network classifies the line, when none does.
    pub absent: Option<AbsentNetwork>,
    /// The view of each trained network held, in the order of their roles
    /// ([`TrainedNetwork::explain_line`]).
    pub views: Vec<LineView>,
}

/// Why a pattern of a line's gold label did not match the line.
#[derive(Debug, Clone, PartialEq)]
pub struct MissedPattern {
    /// The pattern, described.
    pub pattern: String,
    /// The elements it matched, in order and printed (`$* won $*`); empty when none, or
    /// only `$*`.
    pub matched: String,
    pub miss: Miss,
}

/// Where a pattern's match of a line fails.
#[derive(Debug, Clone, PartialEq)]
pub enum Miss {
    /// The next element expected one of `expected` (printed: `gift`, `"!"`, `%`) and the
    /// line had the tokens at `found` where it could start (several after an optional
    /// element: `how &* $? ( much | many )` on "how big is it" finds `big` and `is`; at most
    /// [`MAX_FOUND`], the last ones), in bytes of its text.
    Mismatch {
        expected: Vec<String>,
        found: Vec<TextRange>,
    },
    /// The line ended where the next element expected one of `expected`.
    Ended { expected: Vec<String> },
    /// Every element matched; the line goes on at `found`, where the pattern wants it to end.
    Continues { found: TextRange },
}

/// Why each pattern voting for `gold` that did not match `text` (`matched` is per pattern)
/// missed it, the closest first: the fewest elements missing, then the most matched; the
/// first [`MAX_EXPLAINED_PATTERNS`] such patterns in file order are looked at. The corpus
/// line's hover and `rulelens classify --expect` show it.
pub fn missed_patterns(
    rules: &RulesFile,
    gold: crate::syntax::LabelId,
    text: &str,
    matched: &[bool],
) -> Vec<MissedPattern> {
    let system = &rules.system;
    let alphabet = system.alphabet();
    let tokens = tokenize(text);
    let mut symbols = Vec::new();
    alphabet.symbolize(&tokens, &mut symbols);
    let token_at = |i: usize| {
        token_range(&tokens, i..i + 1).unwrap_or_else(|| TextRange::empty(TextSize::of(text)))
    };
    let mut missed = Vec::new();
    let candidates = (system.patterns().iter().zip(&rules.rules.patterns))
        .enumerate()
        .filter(|(p, (compiled, _))| {
            compiled.labels.contains(&gold) && compiled.dfa.is_some() && !matched[*p]
        })
        .take(MAX_EXPLAINED_PATTERNS);
    for (p, (_, def)) in candidates {
        let Some(elements) = PatternElements::new(&def.regex, alphabet) else {
            continue;
        };
        let Some(run) = elements.run(&symbols, alphabet) else {
            continue;
        };
        let Some(why) = run.why_not() else {
            continue;
        };
        let expected = |element: usize| elements.elements[element].first.clone();
        let miss = match why.failure {
            Failure::Mismatch { element, .. } => {
                let starts: Vec<usize> = run.starts(element).collect();
                let last = &starts[starts.len().saturating_sub(MAX_FOUND)..];
                Miss::Mismatch {
                    expected: expected(element),
                    found: last.iter().map(|&i| token_at(i)).collect(),
                }
            }
            Failure::Ended { element } => Miss::Ended {
                expected: expected(element),
            },
            Failure::Continues { found } => Miss::Continues {
                found: token_at(found),
            },
        };
        // `$*` alone matched nothing worth saying.
        let matched = &elements.elements[..why.matched];
        let printed: Vec<&str> = if matched.iter().all(|e| e.kind == ElementKind::AnyTokens) {
            Vec::new()
        } else {
            matched.iter().map(|e| e.text.as_str()).collect()
        };
        let key = (why.missing, std::cmp::Reverse(why.matched), p);
        missed.push((
            key,
            MissedPattern {
                pattern: describe(&rules.rules, p),
                matched: printed.join(" "),
                miss,
            },
        ));
    }
    missed.sort_by_key(|(key, _)| *key);
    missed.into_iter().map(|(_, missed)| missed).collect()
}

/// Why a pattern missed `text`, in one line: what it matched, then where it failed (`rulelens classify
/// --expect`, `check --show-errors` and `report`).
pub fn why_missed(missed: &MissedPattern, text: &str) -> String {
    let slice = |range: TextRange| {
        text.get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
    };
    let matched = if missed.matched.is_empty() {
        String::new()
    } else {
        format!("`{}` matched, then ", missed.matched)
    };
    let one_of = |items: &[String]| -> String {
        let items: Vec<String> = items.iter().map(|item| format!("`{item}`")).collect();
        match items.as_slice() {
            [] => "nothing".to_string(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        }
    };
    match &missed.miss {
        Miss::Mismatch { expected, found } => {
            let found: Vec<String> = found.iter().map(|&r| format!("{:?}", slice(r))).collect();
            format!(
                "{matched}expected {}, found {}",
                one_of(expected),
                found.join(" or ")
            )
        }
        Miss::Ended { expected } => {
            format!("{matched}expected {}; the sentence ended", one_of(expected))
        }
        Miss::Continues { found } => format!(
            "{matched}the sentence goes on at {:?} (the pattern does not end with `$*`)",
            slice(*found)
        ),
    }
}

/// The hover of one corpus line, parsed as `example`, under the rules being edited, with
/// the view of each network in `networks` (in role order; a network trained from other rules
/// says so) and, when none classifies, why (`absent`). Ranges in the result are in bytes of
/// `example.text`.
pub fn hover_line(
    example: &Example,
    rules: &RulesFile,
    networks: &[&TrainedNetwork],
    absent: Option<AbsentNetwork>,
    config: &HoverConfig,
) -> LineHover {
    let system = &rules.system;
    let classification = system.classify(&example.text);
    let line = Line {
        text: &example.text,
        gold: example.label.as_deref(),
    };
    let mut hover = LineHover {
        gold: example.label.clone(),
        rules_prediction: classification
            .prediction
            .map(|l| system.labels()[l.index()].clone()),
        fired: (0..classification.matched.len())
            .filter(|&p| classification.matched[p])
            .map(|p| describe(&rules.rules, p))
            .collect(),
        missed: Vec::new(),
        absent,
        // Only a black box without a plain scorer can fail (its tensors), and the editor
        // holds none: the networks of a save have plain views.
        views: networks
            .iter()
            .filter_map(|network| network.explain_line(&line, rules, config).ok())
            .collect(),
    };
    if let Some(gold) = example
        .label
        .as_deref()
        .and_then(|l| system.label_by_name(l))
        && classification.prediction != Some(gold)
    {
        hover.missed = missed_patterns(rules, gold, &example.text, &classification.matched);
        hover.missed.truncate(config.max_listed);
    }
    hover
}
