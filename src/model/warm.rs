//! Warm start: the network of edited rules built from the network trained for the previous
//! text, so that a save which changes a few patterns fine-tunes briefly instead of training
//! from scratch (issue 17).
//!
//! - A pattern of the new rules continues a previous pattern when both have the same name
//!   (anonymous rules, named `LABEL@LINE`, match by label instead, since their line moves
//!   whenever a rule is added above them), the same regex as printed and the same labels,
//!   and their DFAs, walked side by side on the literals' texts, are the same automaton.
//!   That walk also maps the previous DFA's states onto the new one's, whatever order the
//!   new alphabet numbers the literals in.
//! - Such a pattern keeps its states' rows of D1 and D2, FA-GRU's gate entries among its
//!   states, and every trained column of the rank space (with G's columns and the symbol
//!   embedding's, a new literal taking the row of the stand-in the previous network read it
//!   as). The new and changed patterns get their exact decomposition in columns of their
//!   own, added after the previous ones, where the kept patterns' rows are zero: neither
//!   part reads the other's states when the network starts. Columns left with no kept
//!   state on one side do nothing and are dropped, so the rank does not grow with deleted
//!   patterns. W, h₀, α∞, the word vectors and the soft logic are the new rules' own.
//! - A warm start is refused ([`WhyFull`]) for SoPa, for other settings or other training
//!   data, for a fixed `--rank` (the new patterns' columns would pass it), and when fewer
//!   than half of the new rules' patterns continue a previous one: then everything is
//!   trained again.
//! - Fine-tuning is [`WARM_SCHEDULE`]: dev is measured every few hundred sentences and
//!   training stops as soon as a measurement does not improve (`train.rs`).

use super::checkpoint::{Manifest, sha256_hex};
use super::decompose;
use super::fa_rnn::{FaRnn, WordInput};
use super::settings::{ModelKind, TrainingSettings};
use super::train::Schedule;
use super::weighted::{WeightedAutomaton, pattern_blocks};
use crate::automata::{Alphabet, Dfa, RuleSystem, StateId, SymbolId};
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::syntax::print_regex;
use candle_core::{Device, Result, Tensor};
use std::collections::{HashMap, VecDeque};
use std::fmt;

/// How a warm start fine-tunes: dev is measured after every `evaluate_every` batches (32
/// sentences each by default) and training stops at the first measurement that is not
/// better than the best, or after one pass over train; the best measured parameters are
/// kept. Chosen on the SMS and TREC edit scripts' dev accuracy and time
/// (`docs/performance.md`).
pub const WARM_SCHEDULE: Schedule = Schedule {
    evaluate_every: Some(40),
    epochs: Some(1),
    patience: Some(1),
};

/// Why a save trains from scratch rather than from the previous network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhyFull {
    /// SoPa's learned patterns are not tied to the rules' patterns.
    Sopa,
    /// The previous network was trained with other settings.
    Settings,
    /// ... or on other train or dev examples.
    Data,
    /// A fixed rank: the new patterns' columns would pass it.
    FixedRank,
    /// The previous checkpoint does not record its rules text or its data (made by an
    /// earlier rulelens).
    Unrecorded,
    /// Fewer than half of the patterns continue a previous one.
    MostPatternsChanged { changed: usize, total: usize },
    /// The rank would pass [`crate::model::MAX_EXACT_RANK`].
    RankTooLarge { rank: usize },
    /// The previous checkpoint could not be read.
    Unreadable(String),
}

impl fmt::Display for WhyFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhyFull::Sopa => write!(f, "SoPa always trains from scratch"),
            WhyFull::Settings => write!(f, "the training settings changed"),
            WhyFull::Data => write!(f, "the train or dev corpus changed"),
            WhyFull::FixedRank => write!(f, "a fixed --rank leaves no room for new patterns"),
            WhyFull::Unrecorded => write!(
                f,
                "the previous checkpoint does not record its rules text and data (made by an earlier rulelens)"
            ),
            WhyFull::MostPatternsChanged { changed, total } => {
                write!(f, "{changed} of {total} patterns changed")
            }
            WhyFull::Unreadable(error) => write!(f, "the previous network: {error}"),
            WhyFull::RankTooLarge { rank } => write!(
                f,
                "the warm network's rank {rank} would pass {}",
                super::build::MAX_EXACT_RANK
            ),
        }
    }
}

/// Which previous pattern each new pattern continues (by [`PatternKey`] only; the DFAs are
/// compared per direction by [`state_map`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reuse {
    /// Per pattern of the new rules, the previous pattern with the same key.
    pub patterns: Vec<Option<usize>>,
    /// Previous patterns nothing continues.
    pub removed: usize,
}

impl Reuse {
    /// Patterns of the new rules that continue a previous one.
    pub fn kept(&self) -> usize {
        self.patterns.iter().flatten().count()
    }

    /// Patterns of the new rules that are new or changed.
    pub fn changed(&self) -> usize {
        self.patterns.len() - self.kept()
    }
}

/// What identifies a pattern across edits: the name of a named pattern (an anonymous
/// rule's name holds its line, which moves), the regex as printed, and the labels it votes
/// for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PatternKey {
    name: Option<String>,
    regex: String,
    labels: Vec<String>,
}

fn pattern_keys(rules: &RulesFile) -> Vec<PatternKey> {
    rules
        .rules
        .patterns
        .iter()
        .map(|pattern| PatternKey {
            name: (!pattern.anonymous).then(|| pattern.name.clone()),
            regex: print_regex(&pattern.regex),
            labels: pattern
                .labels
                .iter()
                .map(|label| rules.rules.labels[label.index()].name.clone())
                .collect(),
        })
        .collect()
}

/// SHA-256 of the examples training reads (text and label, in order), for the manifest: a
/// warm start needs the same data.
pub fn data_sha256(train: &[Example], dev: &[Example]) -> String {
    let mut bytes = Vec::new();
    for (split, examples) in [(0u8, train), (1u8, dev)] {
        bytes.push(split);
        for example in examples {
            for part in [example.text.as_str(), example.label.as_deref().unwrap_or("")] {
                bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
                bytes.extend_from_slice(part.as_bytes());
            }
        }
    }
    sha256_hex(&bytes)
}

/// Whether `rules` (under `settings`, on the data hashing to `data`) can start from the
/// network of `previous` (its manifest and its rules), and which patterns it keeps.
pub fn plan(
    previous: (&Manifest, &RulesFile),
    rules: &RulesFile,
    settings: &TrainingSettings,
    data: &str,
) -> std::result::Result<Reuse, WhyFull> {
    let (manifest, previous_rules) = previous;
    if settings.model == ModelKind::Sopa || manifest.settings.model == ModelKind::Sopa {
        return Err(WhyFull::Sopa);
    }
    let resolved = TrainingSettings {
        learning_rate: Some(settings.learning_rate()),
        ..settings.clone()
    };
    if manifest.settings != resolved {
        return Err(WhyFull::Settings);
    }
    if settings.rank.is_some() {
        return Err(WhyFull::FixedRank);
    }
    match &manifest.training_data_sha256 {
        None => return Err(WhyFull::Unrecorded),
        Some(recorded) if recorded != data => return Err(WhyFull::Data),
        Some(_) => {}
    }
    let old = pattern_keys(previous_rules);
    let mut taken = vec![false; old.len()];
    let patterns: Vec<Option<usize>> = pattern_keys(rules)
        .iter()
        .map(|key| {
            let found = (0..old.len()).find(|&q| !taken[q] && old[q] == *key)?;
            taken[found] = true;
            Some(found)
        })
        .collect();
    let reuse = Reuse {
        removed: taken.iter().filter(|t| !**t).count(),
        patterns,
    };
    if reuse.kept() * 2 < reuse.patterns.len() {
        return Err(WhyFull::MostPatternsChanged {
            changed: reuse.changed(),
            total: reuse.patterns.len(),
        });
    }
    Ok(reuse)
}

/// The states of `new` (a DFA over `alphabet`) paired with those of `old` (over
/// `old_alphabet`) by reading the same texts from both start states, if the two are the
/// same automaton up to the numbering of states and literals.
fn pair_states(
    (new, alphabet): (&Dfa, &Alphabet),
    (old, old_alphabet): (&Dfa, &Alphabet),
) -> Option<Vec<Option<StateId>>> {
    // Every text either DFA tells apart, and the three stand-ins.
    let mut symbols: Vec<(SymbolId, SymbolId)> = [
        Alphabet::OTHER_WORD,
        Alphabet::OTHER_NUMBER,
        Alphabet::OTHER_PUNCT,
    ]
    .into_iter()
    .map(|s| (s, s))
    .collect();
    let counterpart = |symbol: SymbolId, from: &Alphabet, to: &Alphabet| {
        from.literal(symbol)
            .and_then(|text| to.find(text))
            .unwrap_or_else(|| Alphabet::other(from.kind(symbol)))
    };
    for &symbol in new.distinguished_symbols() {
        symbols.push((symbol, counterpart(symbol, alphabet, old_alphabet)));
    }
    for &symbol in old.distinguished_symbols() {
        symbols.push((counterpart(symbol, old_alphabet, alphabet), symbol));
    }
    let mut forward: Vec<Option<StateId>> = vec![None; new.n_states()];
    let mut backward: Vec<Option<StateId>> = vec![None; old.n_states()];
    let mut queue = VecDeque::from([(new.start(), old.start())]);
    while let Some((a, b)) = queue.pop_front() {
        match (forward[a.index()], backward[b.index()]) {
            (Some(x), Some(y)) if x == b && y == a => continue,
            (None, None) => {}
            _ => return None,
        }
        if new.is_accepting(a) != old.is_accepting(b)
            || (Some(a) == new.dead_state()) != (Some(b) == old.dead_state())
        {
            return None;
        }
        forward[a.index()] = Some(b);
        backward[b.index()] = Some(a);
        for &(s, t) in &symbols {
            queue.push_back((new.next(a, s, alphabet), old.next(b, t, old_alphabet)));
        }
    }
    Some(forward)
}

/// For each state of `system`'s network, the state of `previous`'s network it continues
/// (`reuse.patterns` says which patterns may; their DFAs must also be the same automaton).
pub fn state_map(previous: &RuleSystem, system: &RuleSystem, reuse: &Reuse) -> Vec<Option<usize>> {
    let blocks = pattern_blocks(system);
    let old_blocks = pattern_blocks(previous);
    let mut map = vec![None; blocks.last().map_or(0, |b| b.end)];
    // A DFA state's index among its live states, which is its offset in the block.
    let live_offsets = |dfa: &Dfa| -> Vec<Option<usize>> {
        let mut offsets = vec![None; dfa.n_states()];
        for (offset, state) in dfa.live_states().enumerate() {
            offsets[state.index()] = Some(offset);
        }
        offsets
    };
    for (p, q) in reuse.patterns.iter().enumerate() {
        let Some(q) = *q else { continue };
        let (Some(new), Some(old)) = (&system.patterns()[p].dfa, &previous.patterns()[q].dfa)
        else {
            continue;
        };
        let Some(pairs) = pair_states((new, system.alphabet()), (old, previous.alphabet()))
        else {
            continue;
        };
        let (new_offsets, old_offsets) = (live_offsets(new), live_offsets(old));
        for state in new.live_states() {
            if let (Some(offset), Some(old_state)) =
                (new_offsets[state.index()], pairs[state.index()])
                && let Some(old_offset) = old_offsets[old_state.index()]
            {
                map[blocks[p].start + offset] = Some(old_blocks[q].start + old_offset);
            }
        }
    }
    map
}

/// A warm-started direction and what it kept.
pub struct WarmNetwork {
    pub net: FaRnn,
    /// Previous columns of the rank space kept, and columns of the new patterns.
    pub kept_rank: usize,
    pub new_rank: usize,
}

/// The network of `system` (`settings` as the previous network's) started from `previous`,
/// the trained network of `previous_system`, through `states` ([`state_map`]).
pub fn warm_network(
    previous: (&FaRnn, &RuleSystem),
    system: &RuleSystem,
    states: &[Option<usize>],
    words: Option<&WordInput>,
    settings: &TrainingSettings,
    seed: u64,
    device: &Device,
) -> Result<std::result::Result<WarmNetwork, WhyFull>> {
    let (previous, previous_system) = previous;
    let automaton = WeightedAutomaton::new(system);
    // The exact decomposition of what the kept states do not already compute: the new and
    // changed patterns' transitions.
    let mut changed = automaton.clone();
    changed.transitions.retain(|t| states[t.from as usize].is_none());
    let decomposition = decompose::exact(&changed);
    let mut fresh = FaRnn::new(
        system,
        &automaton,
        &decomposition,
        words,
        settings.scoring,
        device,
    )?;
    if settings.model.is_gated() {
        fresh = fresh.with_gates(seed)?;
    }
    let old: HashMap<String, Tensor> = previous.tensors().into_iter().collect();
    let new: HashMap<String, Tensor> = fresh.tensors().into_iter().collect();
    let values = |map: &HashMap<String, Tensor>, name: &str| -> Result<(Vec<f32>, Vec<usize>)> {
        let tensor = map
            .get(name)
            .ok_or_else(|| candle_core::Error::Msg(format!("missing tensor `{name}`")))?;
        Ok((tensor.flatten_all()?.to_vec1()?, tensor.dims().to_vec()))
    };
    let (old_d1, old_dims) = values(&old, "d1")?;
    let (old_d2, _) = values(&old, "d2")?;
    let old_rank = old_dims[1];
    let (k, new_rank) = (automaton.n_states, decomposition.rank());
    // Previous columns that some kept state reads (D1) and some kept state writes (D2).
    let used = |d: &[f32], r: usize| states.iter().flatten().any(|&i| d[i * old_rank + r] != 0.0);
    let kept: Vec<usize> = (0..old_rank)
        .filter(|&r| used(&old_d1, r) && used(&old_d2, r))
        .collect();
    let rank = kept.len() + new_rank;
    if rank > super::build::MAX_EXACT_RANK {
        return Ok(Err(WhyFull::RankTooLarge { rank }));
    }
    // A column of the warm network: a kept previous one, or one of the fresh network's.
    let column = |j: usize| -> std::result::Result<usize, usize> {
        if j < kept.len() {
            Ok(kept[j])
        } else {
            Err(j - kept.len())
        }
    };
    let old_symbols = previous_system.alphabet();
    let symbol_of = |s: SymbolId| {
        let alphabet = system.alphabet();
        alphabet
            .literal(s)
            .and_then(|text| old_symbols.find(text))
            .unwrap_or_else(|| Alphabet::other(alphabet.kind(s)))
    };
    let mut tensors: HashMap<String, Tensor> = HashMap::new();
    let mut put = |name: &str, data: Vec<f32>, dims: &[usize]| -> Result<()> {
        tensors.insert(name.to_string(), Tensor::from_vec(data, dims, device)?);
        Ok(())
    };
    // [rows, rank] tensors: a kept column takes `old_row(row)`'s entry (0 for none).
    let by_rank = |name: &str, old_row: &dyn Fn(usize) -> Option<usize>| -> Result<Vec<f32>> {
        let (old_values, _) = values(&old, name)?;
        let (new_values, dims) = values(&new, name)?;
        let rows = dims[0];
        let mut out = Vec::with_capacity(rows * rank);
        for row in 0..rows {
            for j in 0..rank {
                out.push(match column(j) {
                    Ok(r) => old_row(row).map_or(0.0, |o| old_values[o * old_rank + r]),
                    Err(c) => new_values[row * new_rank + c],
                });
            }
        }
        Ok(out)
    };
    let symbols = system.alphabet().len();
    put(
        "symbol_embedding",
        by_rank("symbol_embedding", &|s| {
            Some(symbol_of(SymbolId(s as u32)).index())
        })?,
        &[symbols, rank],
    )?;
    for name in ["d1", "d2"] {
        put(name, by_rank(name, &|i| states[i])?, &[k, rank])?;
    }
    if let Some(input) = words {
        let dim = input.vectors.dim;
        put("g", by_rank("g", &Some)?, &[dim, rank])?;
        let (embedding, dims) = values(&new, "word_embedding")?;
        put("word_embedding", embedding, &dims)?;
    }
    for name in ["wildcard", "start", "finals"] {
        let (data, dims) = values(&new, name)?;
        put(name, data, &dims)?;
    }
    if settings.model.is_gated() {
        for gate in ["update", "reset"] {
            // [K, K]: between kept states the previous entry; into a kept state from a new
            // one nothing; into a new state the fresh gate's.
            let name = format!("{gate}_state");
            let ((old_values, _), (new_values, _)) = (values(&old, &name)?, values(&new, &name)?);
            let old_k = previous.plain()?.n_states;
            let mut data = Vec::with_capacity(k * k);
            for i in 0..k {
                for j in 0..k {
                    data.push(match (states[i], states[j]) {
                        (Some(a), Some(b)) => old_values[a * old_k + b],
                        (None, Some(_)) => 0.0,
                        (_, None) => new_values[i * k + j],
                    });
                }
            }
            put(&name, data, &[k, k])?;
            // [rank, K]: into a kept state from a kept column the previous entry, from a
            // new column nothing; into a new state the fresh gate's, and nothing from a
            // kept column.
            let name = format!("{gate}_token");
            let ((old_values, _), (new_values, _)) = (values(&old, &name)?, values(&new, &name)?);
            let mut data = Vec::with_capacity(rank * k);
            for j in 0..rank {
                for i in 0..k {
                    data.push(match (column(j), states[i]) {
                        (Ok(r), Some(a)) => old_values[r * old_k + a],
                        (Err(c), None) => new_values[c * k + i],
                        _ => 0.0,
                    });
                }
            }
            put(&name, data, &[rank, k])?;
            let name = format!("{gate}_bias");
            let ((old_values, _), (new_values, _)) = (values(&old, &name)?, values(&new, &name)?);
            let data = (0..k)
                .map(|i| states[i].map_or(new_values[i], |a| old_values[a]))
                .collect();
            put(&name, data, &[k])?;
        }
    }
    let net = FaRnn::from_tensors(
        system,
        tensors,
        settings.scoring,
        words.map(|input| input.beta),
    )?;
    Ok(Ok(WarmNetwork {
        net,
        kept_rank: kept.len(),
        new_rank,
    }))
}
