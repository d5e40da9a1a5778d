//! Diagnostics of a corpus file against its rules: malformed lines (E0404) and invalid
//! UTF-8 (E0403) from the reader, gold labels no rule predicts (W0405), and each line the
//! rule system gets wrong (I0505, with gold, prediction and the patterns that fired).
//!
//! Recomputed on every change of the corpus buffer: one classification per line (SMS train,
//! 4,500 lines: about 7 ms; 100,000 lines: about 150 ms). At most `max_misclassified`
//! lines are reported, in file order, so that a huge corpus does not flood the editor.

use super::findings::describe;
use crate::automata::{Classification, Scratch};
use crate::corpus::{CorpusFile, Example, Format, check_labels, parse};
use crate::diagnostic::{Code, Diagnostic};
use crate::rules_file::RulesFile;
use crate::text::LineIndex;
use text_size::TextRange;

/// Default for `max_misclassified` of [`corpus_diagnostics`].
pub const DEFAULT_MAX_MISCLASSIFIED: usize = 1000;

/// The diagnostics of `corpus` under the rules of `rules`, sorted by position.
///
/// ```
/// use rulelens::corpus::{CorpusFile, Format};
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// let rules = RulesFile::analyze(
///     SourceText::from_bytes(b"default ham\nspam: $* free $*\n"), None, &Default::default());
/// let corpus = CorpusFile::parse("c.tsv".into(), Format::Tsv,
///     SourceText::from_bytes(b"spam\tFREE entry\nham\tfree time\nspm\thi\n"));
/// let diagnostics = rulelens::ide::corpus_diagnostics(&corpus, &rules, 1000);
/// let codes: Vec<&str> = diagnostics.iter().map(|d| d.code.as_str()).collect();
/// assert_eq!(codes, ["I0505", "W0405"]);
/// ```
pub fn corpus_diagnostics(
    corpus: &CorpusFile,
    rules: &RulesFile,
    max_misclassified: usize,
) -> Vec<Diagnostic> {
    lines_diagnostics(
        &corpus.examples,
        &corpus.diagnostics,
        rules,
        max_misclassified,
    )
}

/// [`corpus_diagnostics`] of examples already parsed, with the reader's diagnostics.
pub fn lines_diagnostics(
    examples: &[Example],
    read_diagnostics: &[Diagnostic],
    rules: &RulesFile,
    max_misclassified: usize,
) -> Vec<Diagnostic> {
    let system = &rules.system;
    let mut diagnostics = read_diagnostics.to_vec();
    diagnostics.extend(check_labels(examples, |label| {
        system.label_by_name(label).is_some()
    }));
    let labels = system.labels();
    let mut scratch = Scratch::default();
    let mut outcome = Classification::default();
    let mut n_reported = 0;
    for example in examples {
        if n_reported >= max_misclassified {
            break;
        }
        let Some(gold) = example.label.as_deref() else {
            continue;
        };
        let Some(gold_id) = system.label_by_name(gold) else {
            continue;
        };
        system.classify_with(&example.text, &mut scratch, &mut outcome);
        if outcome.prediction == Some(gold_id) {
            continue;
        }
        let predicted = outcome
            .prediction
            .map_or("nothing", |l| labels[l.index()].as_str());
        let fired: Vec<String> = (0..outcome.matched.len())
            .filter(|&p| outcome.matched[p])
            .map(|p| describe(&rules.rules, p))
            .collect();
        let why = if fired.is_empty() {
            "no rule fired".to_string()
        } else {
            format!("fired: {}", fired.join(", "))
        };
        let range = example
            .text_range
            .or(example.label_range)
            .unwrap_or_else(|| TextRange::empty(0.into()));
        diagnostics.push(
            Diagnostic::new(
                Code::MisclassifiedLine,
                range,
                format!("gold `{gold}`, rules predict `{predicted}` ({why})"),
            )
            .with_help(
                "hover the line for why the gold label's patterns missed it and the network's view; \"Widen\" and \"Add rule for this line\" propose edits",
            ),
        );
        n_reported += 1;
    }
    diagnostics.sort_by_key(|d| (d.range.start(), d.range.end()));
    diagnostics
}

/// The examples on the lines that `range` touches, with their ranges (and `line`) in the
/// whole document; `index` is the document's line index. Parses only those lines, so it
/// costs what they cost whatever the size of the corpus.
///
/// ```
/// use rulelens::corpus::Format;
/// use rulelens::text::LineIndex;
/// use text_size::TextRange;
/// let text = "ham\thi\nspam\tWIN cash\n";
/// let index = LineIndex::new(text);
/// let examples = rulelens::ide::examples_in(text, &index, Format::Tsv, TextRange::empty(9.into()));
/// assert_eq!(examples.len(), 1);
/// assert_eq!((examples[0].line, examples[0].label.as_deref()), (1, Some("spam")));
/// assert_eq!(examples[0].text_range, Some(TextRange::new(12.into(), 20.into())));
/// ```
pub fn examples_in(
    text: &str,
    index: &LineIndex,
    format: Format,
    range: TextRange,
) -> Vec<Example> {
    let first_line = index.line_col(range.start()).line;
    let last_line = index.line_col(range.end()).line;
    let (Some(first), Some(last)) = (index.line_range(first_line), index.line_range(last_line))
    else {
        return Vec::new();
    };
    let Some(lines) = text.get(usize::from(first.start())..usize::from(last.end())) else {
        return Vec::new();
    };
    let (mut examples, _) = parse(lines, format, &[]);
    for example in &mut examples {
        example.line += first_line;
        example.text_range = example.text_range.map(|r| r + first.start());
        example.label_range = example.label_range.map(|r| r + first.start());
    }
    examples
}
