//! What the corpus and the trained network say about a rules file's patterns: a pattern
//! that matches nothing in train (W0501), one below a precision (W0502), two that often
//! fire together for different labels (W0503), one the network has learned to overrule
//! (I0504).
//!
//! Findings are computed from the analysis of the saved text and refer to patterns by
//! [`PatternKey`]; [`place`] turns them into diagnostics on whatever text the editor holds
//! now, dropping those whose pattern was edited away, so that corpus diagnostics survive
//! typing until the next save recomputes them. All counts are over the `train` corpus.
//! Cost: O(patterns + lines × matched²) for conflicts, O(lines × matched) for the rest.

use super::analysis::{PatternKey, RulesAnalysis};
use crate::diagnostic::{Code, Diagnostic};
use crate::rules_file::RulesFile;
use crate::syntax::{LabelId, RuleSet};
use std::collections::HashMap;

/// Default for [`FindingsConfig::min_precision`].
pub const DEFAULT_MIN_PRECISION: f64 = 0.5;
/// Default for [`FindingsConfig::conflict_share`].
pub const DEFAULT_CONFLICT_SHARE: f64 = 0.25;
/// The fewest lines a pattern must match (or two patterns share) to be judged.
pub const MIN_EVIDENCE: usize = 3;

/// Thresholds of the findings (the server's `minPrecision` and `conflictShare` settings).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FindingsConfig {
    /// A pattern's precision on train below this is W0502. Default
    /// [`DEFAULT_MIN_PRECISION`].
    pub min_precision: f64,
    /// Two patterns of different labels sharing at least this share of the rarer one's
    /// matches are W0503. Default [`DEFAULT_CONFLICT_SHARE`].
    pub conflict_share: f64,
}

impl Default for FindingsConfig {
    fn default() -> FindingsConfig {
        FindingsConfig {
            min_precision: DEFAULT_MIN_PRECISION,
            conflict_share: DEFAULT_CONFLICT_SHARE,
        }
    }
}

/// One finding about a pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub code: Code,
    pub pattern: PatternKey,
    pub message: String,
    pub help: Option<String>,
    /// Another pattern the finding is about, with what to say there.
    pub related: Option<(PatternKey, String)>,
}

fn percent(numerator: usize, denominator: usize) -> String {
    format!(
        "{:.0}%",
        100.0 * numerator as f64 / denominator.max(1) as f64
    )
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// How a pattern is named in messages: `name`, or `label rule (line N)` for an anonymous one.
pub(crate) fn describe(rules: &RuleSet, pattern: usize) -> String {
    let def = &rules.patterns[pattern];
    if def.anonymous {
        let label = def
            .labels
            .first()
            .and_then(|l| rules.labels.get(l.index()))
            .map_or("?", |l| l.name.as_str());
        format!("the `{label}` rule of line {}", def.line)
    } else {
        format!("`{}`", def.name)
    }
}

/// The findings the train corpus supports (none without a `train` binding).
pub fn corpus_findings(analysis: &RulesAnalysis, config: &FindingsConfig) -> Vec<Finding> {
    let Some(train) = analysis.corpus("train") else {
        return Vec::new();
    };
    let rules = &analysis.rules.rules;
    let system = &analysis.rules.system;
    let mut findings = Vec::new();
    let keys = PatternKey::all(rules);
    for (p, key) in keys.into_iter().enumerate() {
        let metrics = &train.evaluation.patterns[p];
        let compiles = system.patterns().get(p).is_some_and(|c| c.dfa.is_some());
        if metrics.matches == 0 && compiles && !train.file.examples.is_empty() {
            findings.push(Finding {
                code: Code::NeverMatches,
                pattern: key.clone(),
                message: format!(
                    "{} matches none of the {} lines of the train corpus",
                    describe(rules, p),
                    train.file.examples.len()
                ),
                help: Some(
                    "check the literals' spelling, and `$*` at the ends for \"anywhere\""
                        .to_string(),
                ),
                related: None,
            });
        }
        let judged = metrics.correct + metrics.incorrect;
        if let Some(precision) = metrics.precision()
            && judged >= MIN_EVIDENCE
            && precision < config.min_precision
        {
            findings.push(Finding {
                code: Code::LowPrecision,
                pattern: key,
                message: format!(
                    "{} is right on {} of the {} labeled train lines it matches ({} precision, below {:.0}%)",
                    describe(rules, p),
                    metrics.correct,
                    judged,
                    percent(metrics.correct, judged),
                    100.0 * config.min_precision
                ),
                help: Some("make the pattern more specific, or remove it".to_string()),
                related: None,
            });
        }
    }
    findings.extend(conflicts(analysis, config));
    findings
}

/// W0503: pairs of patterns with disjoint polarities that often match the same line.
fn conflicts(analysis: &RulesAnalysis, config: &FindingsConfig) -> Vec<Finding> {
    let Some(train) = analysis.corpus("train") else {
        return Vec::new();
    };
    let rules = &analysis.rules.rules;
    let labels_of = |p: usize| -> &[LabelId] { &rules.patterns[p].labels };
    // (earlier, later) → (shared lines, lines where the earlier's label is gold, the later's).
    let mut shared: HashMap<(usize, usize), [usize; 3]> = HashMap::new();
    for (outcome, example) in train.outcomes.iter().zip(&train.file.examples) {
        let gold = example.label.as_deref();
        for (i, a) in outcome.matched.iter().enumerate() {
            for b in &outcome.matched[i + 1..] {
                let (a, b) = (a.index(), b.index());
                let (la, lb) = (labels_of(a), labels_of(b));
                if la.is_empty() || lb.is_empty() || la.iter().any(|l| lb.contains(l)) {
                    continue;
                }
                let gold_in = |labels: &[LabelId]| {
                    gold.is_some_and(|g| {
                        labels
                            .iter()
                            .any(|l| rules.labels.get(l.index()).is_some_and(|d| d.name == g))
                    })
                };
                let counts = shared.entry((a, b)).or_default();
                counts[0] += 1;
                counts[1] += usize::from(gold_in(la));
                counts[2] += usize::from(gold_in(lb));
            }
        }
    }
    let mut pairs: Vec<((usize, usize), [usize; 3])> = shared.into_iter().collect();
    pairs.sort();
    let keys = PatternKey::all(rules);
    let mut findings = Vec::new();
    for ((a, b), [n, a_right, b_right]) in pairs {
        let rarer = train.evaluation.patterns[a]
            .matches
            .min(train.evaluation.patterns[b].matches);
        if n < MIN_EVIDENCE || (n as f64) < config.conflict_share * rarer as f64 {
            continue;
        }
        let key_a = keys[a].clone();
        let key_b = keys[b].clone();
        findings.push(Finding {
            code: Code::ConflictingPatterns,
            pattern: key_b,
            message: format!(
                "{} and {} vote for different labels and both match {} (gold agrees with the first on {}, with the second on {})",
                describe(rules, b),
                describe(rules, a),
                plural(n, "train line"),
                b_right,
                a_right
            ),
            help: Some(
                "narrow the broader pattern, or combine the two in a formula with `!`".to_string(),
            ),
            related: Some((
                key_a,
                format!("{} conflicts with this pattern", describe(rules, b)),
            )),
        });
    }
    findings
}

/// Findings of the network of an earlier save, shown until the network of the latest is
/// in: each message says so. [`place`] then keeps those of the patterns the rules still
/// have (the same key), on their current lines.
pub fn of_previous_save(findings: &[Finding]) -> Vec<Finding> {
    findings
        .iter()
        .map(|finding| Finding {
            message: format!(
                "{} (the network of an earlier save; this save's is not in yet)",
                finding.message
            ),
            ..finding.clone()
        })
        .collect()
}

/// The findings as diagnostics on `file` (the text being edited): each on its pattern's name,
/// or an anonymous rule's regex; findings whose pattern `file` no longer has, or that its
/// allow comments allow, are dropped.
pub fn place(findings: &[Finding], file: &RulesFile) -> Vec<Diagnostic> {
    let rules = &file.rules;
    let keys = PatternKey::index(rules);
    let range_of = |key: &PatternKey| {
        let def = &rules.patterns[keys.get(key)?.index()];
        Some(if def.anonymous {
            def.regex.range
        } else {
            def.name_range
        })
    };
    let mut diagnostics = Vec::new();
    for finding in findings {
        let Some(range) = range_of(&finding.pattern) else {
            continue;
        };
        let mut diagnostic = Diagnostic::new(finding.code, range, finding.message.clone());
        diagnostic.help = finding.help.clone();
        if let Some((other, message)) = &finding.related {
            let Some(other_range) = range_of(other) else {
                continue;
            };
            diagnostic = diagnostic.with_related(other_range, message.clone());
        }
        if !file.allows.allows(&diagnostic) {
            diagnostics.push(diagnostic);
        }
    }
    diagnostics
}
