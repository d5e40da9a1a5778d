//! Building a network for a rule system and a corpus: the vocabulary, labeled sentences,
//! the choice of decomposition, and the zero-shot network itself.

use crate::automata::RuleSystem;
use crate::corpus::Example;
use crate::model::fa_rnn::decompose::{self, AlsConfig, Decomposition};
use crate::model::fa_rnn::weighted::WeightedAutomaton;
use crate::model::nn::batch::Sentence;
use crate::model::nn::embeddings::Vocabulary;
use crate::model::train::learn::LabeledSentence;
use crate::text::Tokens;

/// The largest rank for which the exact decomposition is taken when no rank is asked for.
pub const MAX_EXACT_RANK: usize = 1024;

/// Decomposes the automaton's symbol tensor: by ALS at `rank` when one is asked for, else
/// exactly when the exact rank is at most [`MAX_EXACT_RANK`], else by ALS at that rank.
pub fn decomposition(
    automaton: &WeightedAutomaton,
    rank: Option<usize>,
    seed: u64,
) -> Decomposition {
    let config = AlsConfig {
        seed,
        ..AlsConfig::default()
    };
    match rank {
        None => {
            let exact = decompose::exact(automaton);
            if exact.rank() <= MAX_EXACT_RANK {
                exact
            } else {
                decompose::als(automaton, MAX_EXACT_RANK, &config)
            }
        }
        Some(rank) => decompose::als(automaton, rank, &config),
    }
}

/// The vocabulary of some corpora: every token, in order of first appearance, then the
/// rules' literals.
pub fn vocabulary<'a>(
    system: &RuleSystem,
    corpora: impl IntoIterator<Item = &'a [Example]>,
) -> Vocabulary {
    let mut words: Vec<String> = Vec::new();
    let mut tokens = Tokens::default();
    for corpus in corpora {
        for example in corpus {
            tokens.tokenize(&example.text);
            words.extend(tokens.iter().map(|t| t.text.to_string()));
        }
    }
    let alphabet = system.alphabet();
    words.extend(
        alphabet
            .ids()
            .filter_map(|id| alphabet.literal(id).map(str::to_string)),
    );
    Vocabulary::new(words.iter().map(String::as_str))
}

/// The label index of a dev line whose gold label the network does not know: no
/// prediction equals it, so accuracy counts the line as an error.
pub const UNKNOWN_LABEL: u32 = u32::MAX;

/// Every labeled example as network input (its first `max_tokens` tokens), with
/// [`UNKNOWN_LABEL`] for a gold label the rule system does not know, and how many are longer
/// than that: for measuring accuracy over all labeled lines.
pub fn labeled_or_unknown(
    system: &RuleSystem,
    vocabulary: Option<&Vocabulary>,
    examples: &[Example],
    max_tokens: usize,
) -> (Vec<LabeledSentence>, usize) {
    sentences(
        system,
        vocabulary,
        examples,
        max_tokens,
        Some(UNKNOWN_LABEL),
    )
}

/// The examples whose gold label the rule system knows, as network input (their first
/// `max_tokens` tokens), and how many of them are longer than that.
pub fn labeled(
    system: &RuleSystem,
    vocabulary: Option<&Vocabulary>,
    examples: &[Example],
    max_tokens: usize,
) -> (Vec<LabeledSentence>, usize) {
    sentences(system, vocabulary, examples, max_tokens, None)
}

/// The examples without a gold label, as network input (their first `max_tokens` tokens),
/// each taught `probabilities(i)` for `examples[i]` (the label model's; its most probable
/// label is the sentence's `label`; `None` leaves the line out), and how many of them are
/// longer than that.
pub fn unlabeled(
    system: &RuleSystem,
    vocabulary: Option<&Vocabulary>,
    examples: &[Example],
    max_tokens: usize,
    mut probabilities: impl FnMut(usize) -> Option<Vec<f32>>,
) -> (Vec<LabeledSentence>, usize) {
    let mut data = Vec::new();
    let mut n_truncated = 0;
    let mut tokens = Tokens::default();
    for (i, example) in examples.iter().enumerate() {
        if example.label.is_some() {
            continue;
        }
        let Some(soft) = probabilities(i) else {
            continue;
        };
        let label = (0..soft.len())
            .max_by(|&a, &b| soft[a].total_cmp(&soft[b]).then(b.cmp(&a)))
            .unwrap_or(0) as u32;
        tokens.tokenize(&example.text);
        n_truncated += usize::from(tokens.len() > max_tokens);
        data.push(LabeledSentence {
            sentence: Sentence::new(system, vocabulary, &tokens, max_tokens),
            label,
            soft: Some(soft),
        });
    }
    (data, n_truncated)
}

/// The labeled examples as network input, those whose label `system` does not know with
/// `unknown`'s label index or left out.
fn sentences(
    system: &RuleSystem,
    vocabulary: Option<&Vocabulary>,
    examples: &[Example],
    max_tokens: usize,
    unknown: Option<u32>,
) -> (Vec<LabeledSentence>, usize) {
    let mut data = Vec::with_capacity(examples.len());
    let mut n_truncated = 0;
    let mut tokens = Tokens::default();
    for example in examples {
        let Some(gold) = example.label.as_deref() else {
            continue;
        };
        let Some(label) = system.label_by_name(gold).map(|l| l.0).or(unknown) else {
            continue;
        };
        tokens.tokenize(&example.text);
        n_truncated += usize::from(tokens.len() > max_tokens);
        data.push(LabeledSentence {
            sentence: Sentence::new(system, vocabulary, &tokens, max_tokens),
            label,
            soft: None,
        });
    }
    (data, n_truncated)
}
