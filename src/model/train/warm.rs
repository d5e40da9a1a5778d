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
//! - The free states (`free_states`, after the rules' states in both networks) keep their
//!   rows of D1 and D2 in the kept columns and their gate entries, as a kept pattern's
//!   states do, and read and write nothing in the new columns.
//! - A warm start is refused ([`WhyFull`]) for SoPa, for other settings or other training
//!   data, for a fixed `--rank` (the new patterns' columns would pass it), and when fewer
//!   than half of the new rules' patterns continue a previous one: then everything is
//!   trained again.
//! - Fine-tuning is [`WARM_SCHEDULE`]: a smaller step, dev measured every few hundred
//!   sentences, and training stopped soon after the measurements stop improving.

use crate::automata::{Alphabet, Dfa, RuleSystem, StateId, SymbolId};
use crate::corpus::Example;
use crate::digest::sha256_of_parts;
use crate::model::fa_rnn::decompose;
use crate::model::fa_rnn::weighted::{WeightedAutomaton, pattern_blocks};
use crate::model::fa_rnn::{CORPUS_LABEL_TENSORS, FaRnn, WordInput};
use crate::model::train::checkpoint::Manifest;
use crate::model::train::learn::Schedule;
use crate::model::train::settings::{ModelKind, TrainingSettings};
use crate::rules_file::RulesFile;
use crate::syntax::regex_key;
use candle_core::{Device, Result, Tensor};
use std::collections::{HashMap, VecDeque};
use std::fmt;

/// How a warm start fine-tunes: at 0.3 times the settings' step size (a full step moved
/// the converged parameters of the unchanged patterns enough to lose dev accuracy on the
/// first measurement), dev measured after every 20 batches (640 sentences by default), and
/// training stopped after two measurements without a better one, or after one pass over
/// train; the best measured parameters are kept. Chosen on the SMS and TREC edit scripts'
/// dev accuracy and time (`benches/edit_replay.rs`, `docs/performance.md`).
pub const WARM_SCHEDULE: Schedule = Schedule {
    evaluate_every: Some(20),
    epochs: Some(1),
    patience: Some(2),
    learning_rate_factor: 0.3,
    keep_last: false,
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
                crate::model::train::build::MAX_EXACT_RANK
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
/// rule's name holds its line, which moves), the regex as printed with what its word lists
/// hold, and the labels it votes for.
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
            regex: regex_key(&pattern.regex),
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
    // Each split's size, then its examples' texts and labels.
    let counts = [train.len().to_string(), dev.len().to_string()];
    let parts = [train, dev]
        .into_iter()
        .zip(&counts)
        .flat_map(|(examples, count)| {
            std::iter::once(count.as_bytes()).chain(examples.iter().flat_map(|example| {
                [
                    example.text.as_bytes(),
                    example.label.as_deref().unwrap_or("").as_bytes(),
                ]
            }))
        });
    sha256_of_parts(parts)
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
    if manifest.settings != settings.resolved() {
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
    let reuse = match_patterns(previous_rules, rules);
    if reuse.kept() * 2 < reuse.patterns.len() {
        return Err(WhyFull::MostPatternsChanged {
            changed: reuse.changed(),
            total: reuse.patterns.len(),
        });
    }
    Ok(reuse)
}

/// Pairs each pattern of `rules` with the first unpaired pattern of `previous` of the same
/// [`PatternKey`].
fn match_patterns(previous: &RulesFile, rules: &RulesFile) -> Reuse {
    let old = pattern_keys(previous);
    let mut taken = vec![false; old.len()];
    let patterns = pattern_keys(rules)
        .iter()
        .map(|key| {
            let found = (0..old.len()).find(|&q| !taken[q] && old[q] == *key)?;
            taken[found] = true;
            Some(found)
        })
        .collect();
    Reuse {
        removed: taken.iter().filter(|t| !**t).count(),
        patterns,
    }
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
        let Some(pairs) = pair_states((new, system.alphabet()), (old, previous.alphabet())) else {
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
    /// The previous columns of the rank space kept, in order (the warm network's first
    /// columns), and the number of columns of the new and changed patterns after them.
    pub kept_columns: Vec<usize>,
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
    changed
        .transitions
        .retain(|t| states[t.from as usize].is_none());
    let decomposition = decompose::exact(&changed);
    let mut fresh = FaRnn::new(
        system,
        &automaton,
        &decomposition,
        words,
        settings.scoring,
        device,
    )?
    .with_free_states(system, settings.effective_free_states(), seed)?;
    if settings.model.is_gated() {
        fresh = fresh.with_gates(seed)?;
    }
    let old: HashMap<String, Tensor> = previous.tensors().into_iter().collect();
    let new: HashMap<String, Tensor> = fresh.tensors().into_iter().collect();
    let (old_d1, old_dims) = named_values(&old, "d1")?;
    let (old_d2, _) = named_values(&old, "d2")?;
    let (old_k, old_rank) = (old_dims[0], old_dims[1]);
    let (n_rule_states, new_rank) = (automaton.n_states, decomposition.rank());
    // The free states follow the rules' in both networks: the i-th free state continues the
    // previous network's i-th, where it had one.
    let k = n_rule_states + fresh.free_states();
    let old_free = previous.free_states();
    let old_rule_states = old_k - old_free;
    let old_state = |i: usize| -> Option<usize> {
        match i.checked_sub(n_rule_states) {
            None => states[i],
            Some(f) => (f < old_free).then_some(old_rule_states + f),
        }
    };
    // Previous columns that some kept state reads (D1) and some kept state writes (D2).
    let used = |d: &[f32], r: usize| states.iter().flatten().any(|&i| d[i * old_rank + r] != 0.0);
    let kept: Vec<usize> = (0..old_rank)
        .filter(|&r| used(&old_d1, r) && used(&old_d2, r))
        .collect();
    let rank = kept.len() + new_rank;
    if rank > crate::model::train::build::MAX_EXACT_RANK {
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
        let (old_values, _) = named_values(&old, name)?;
        let (new_values, dims) = named_values(&new, name)?;
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
        let mut data = by_rank(name, &old_state)?;
        // A continued free state reads nothing of the new columns, as a kept state does not.
        for i in (n_rule_states..k).filter(|&i| old_state(i).is_some()) {
            data[i * rank + kept.len()..(i + 1) * rank].fill(0.0);
        }
        put(name, data, &[k, rank])?;
    }
    if let Some(input) = words {
        let dim = input.vectors.dim;
        put("g", by_rank("g", &Some)?, &[dim, rank])?;
        let (embedding, dims) = named_values(&new, "word_embedding")?;
        put("word_embedding", embedding, &dims)?;
    }
    for name in ["wildcard", "start", "finals"] {
        let (data, dims) = named_values(&new, name)?;
        put(name, data, &dims)?;
    }
    warm_corpus_labels((&old, previous_system), (&new, system), &mut put)?;
    if settings.model.is_gated() {
        let shape = GateShape {
            k,
            old_k,
            rank,
            old_state: &old_state,
            column: &column,
        };
        warm_gates(&old, &new, &shape, &mut put)?;
    }
    let net = FaRnn::from_tensors(
        system,
        tensors,
        settings.scoring,
        words.map(|input| input.beta),
    )?;
    Ok(Ok(WarmNetwork {
        net,
        kept_columns: kept,
        new_rank,
    }))
}

/// A tensor of `map` by name: its values, row-major, and its dimensions.
fn named_values(map: &HashMap<String, Tensor>, name: &str) -> Result<(Vec<f32>, Vec<usize>)> {
    let tensor = map
        .get(name)
        .ok_or_else(|| candle_core::Error::Msg(format!("missing tensor `{name}`")))?;
    Ok((tensor.flatten_all()?.to_vec1()?, tensor.dims().to_vec()))
}

/// Puts a tensor of the warm network, by name, from its values and dimensions.
type PutTensor<'a> = dyn FnMut(&str, Vec<f32>, &[usize]) -> Result<()> + 'a;

/// The tensors of a network's labels no rule names, warm-started: per label the previous
/// network's column where it learned the label too, else the fresh one's (`new`).
fn warm_corpus_labels(
    (old, previous_system): (&HashMap<String, Tensor>, &RuleSystem),
    (new, system): (&HashMap<String, Tensor>, &RuleSystem),
    put: &mut PutTensor,
) -> Result<()> {
    let [_, bias] = CORPUS_LABEL_TENSORS;
    if !new.contains_key(bias) {
        return Ok(());
    }
    // Per label no rule names: the previous network's column where it learned the
    // label too, else the fresh one's.
    let previous_labels = previous_system.corpus_labels();
    let from: Vec<Option<usize>> = system
        .corpus_labels()
        .iter()
        .map(|label| previous_labels.iter().position(|l| l == label))
        .collect();
    let learned = old.contains_key(bias);
    for name in CORPUS_LABEL_TENSORS {
        let (mut data, dims) = named_values(new, name)?;
        if learned {
            let (old_values, old_dims) = named_values(old, name)?;
            let (c, old_c) = (from.len(), old_dims[old_dims.len() - 1]);
            for (row, values) in data.chunks_mut(c).enumerate() {
                for (column, value) in values.iter_mut().enumerate() {
                    if let Some(o) = from[column] {
                        *value = old_values[row * old_c + o];
                    }
                }
            }
        }
        put(name, data, &dims)?;
    }
    Ok(())
}

/// Where a warm FA-GRU's gate entries come from: the warm network's `k` states and `rank`
/// columns, the previous network's `old_k` states, the previous state a state continues,
/// and whether a column is a kept previous one (`Ok`) or a fresh one (`Err`).
struct GateShape<'a> {
    k: usize,
    old_k: usize,
    rank: usize,
    old_state: &'a dyn Fn(usize) -> Option<usize>,
    column: &'a dyn Fn(usize) -> std::result::Result<usize, usize>,
}

/// An FA-GRU's gates, warm-started: kept states keep their entries, new ones take the fresh
/// network's (`new`).
fn warm_gates(
    old: &HashMap<String, Tensor>,
    new: &HashMap<String, Tensor>,
    shape: &GateShape,
    put: &mut PutTensor,
) -> Result<()> {
    for gate in ["update", "reset"] {
        // [K, K]: between kept states the previous entry; into a kept state from a new
        // one nothing; into a new state the fresh gate's.
        let name = format!("{gate}_state");
        let ((old_values, _), (new_values, _)) =
            (named_values(old, &name)?, named_values(new, &name)?);
        let mut data = Vec::with_capacity(shape.k * shape.k);
        for i in 0..shape.k {
            for j in 0..shape.k {
                data.push(match ((shape.old_state)(i), (shape.old_state)(j)) {
                    (Some(a), Some(b)) => old_values[a * shape.old_k + b],
                    (None, Some(_)) => 0.0,
                    (_, None) => new_values[i * shape.k + j],
                });
            }
        }
        put(&name, data, &[shape.k, shape.k])?;
        // [rank, K]: into a kept state from a kept column the previous entry, from a
        // new column nothing; into a new state the fresh gate's, and nothing from a
        // kept column.
        let name = format!("{gate}_token");
        let ((old_values, _), (new_values, _)) =
            (named_values(old, &name)?, named_values(new, &name)?);
        let mut data = Vec::with_capacity(shape.rank * shape.k);
        for j in 0..shape.rank {
            for i in 0..shape.k {
                data.push(match ((shape.column)(j), (shape.old_state)(i)) {
                    (Ok(r), Some(a)) => old_values[r * shape.old_k + a],
                    (Err(c), None) => new_values[c * shape.k + i],
                    _ => 0.0,
                });
            }
        }
        put(&name, data, &[shape.rank, shape.k])?;
        let name = format!("{gate}_bias");
        let ((old_values, _), (new_values, _)) =
            (named_values(old, &name)?, named_values(new, &name)?);
        let data = (0..shape.k)
            .map(|i| (shape.old_state)(i).map_or(new_values[i], |a| old_values[a]))
            .collect();
        put(&name, data, &[shape.k])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automata::{CompileConfig, compile_reversed};
    use crate::limits::ReadLimits;
    use crate::model::{BiFaRnn, Network, decompose, fit};
    use crate::text::SourceText;
    use std::path::Path;

    fn example(name: &str, file: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}/{file}"));
        std::fs::read_to_string(path).unwrap()
    }

    fn analyze(text: &str) -> RulesFile {
        let rules = RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            None,
            &CompileConfig::default(),
        );
        assert!(!rules.has_errors(), "{:?}", rules.diagnostics);
        rules
    }

    fn replaced(text: &str, edits: &[(&str, &str)]) -> String {
        let mut text = text.to_string();
        for (from, to) in edits {
            assert_eq!(text.matches(from).count(), 1, "{from}");
            text = text.replace(from, to);
        }
        text
    }

    /// SMS's rules edited as an author would: a rule added first (a new literal, and every
    /// anonymous rule's line moves), a word added to an alternation, a rule deleted, a rule
    /// relabeled.
    fn edited_sms() -> (RulesFile, RulesFile) {
        let text = example("sms", "sms.rules");
        let edited = replaced(
            &text,
            &[
                (
                    "corpus dev \"dev.tsv\"\n",
                    "corpus dev \"dev.tsv\"\nspam: $* jackpot $* ( call | txt ) $*\n",
                ),
                (
                    "( call | ringtone ) $* free",
                    "( call | ringtone | txt ) $* free",
                ),
                ("ham: $* mine $*", "# gone"),
                ("spam: $* chat &* $? to $*", "ham: $* chat &* $? to $*"),
            ],
        );
        (analyze(&text), analyze(&edited))
    }

    fn edited_trec() -> (RulesFile, RulesFile) {
        let text = example("trec", "trec.rules");
        let edited = replaced(
            &text,
            &[
                (
                    "enty: $* what &* $? kind $*",
                    "enty: $* what &* $? ( kind | sort ) $*",
                ),
                ("loc: $* where $* stand $*", "hum: $* where $* stand $*"),
                (
                    "corpus dev \"dev.tsv\"\n",
                    "corpus dev \"dev.tsv\"\nnum: $* how &* $? ( far | long | old ) $*\n",
                ),
                ("desc: $* unusual $*", "desc: $* ( unusual | strange ) $*"),
            ],
        );
        (analyze(&text), analyze(&edited))
    }

    fn untrained(system: &RuleSystem, gated: bool) -> FaRnn {
        let automaton = WeightedAutomaton::new(system);
        let decomposition = decompose::exact(&automaton);
        let net = FaRnn::new(
            system,
            &automaton,
            &decomposition,
            None,
            crate::model::Scoring::Forward,
            &Device::Cpu,
        )
        .unwrap();
        if gated {
            net.with_gates(3).unwrap()
        } else {
            net
        }
    }

    fn values(net: &FaRnn, name: &str) -> (Vec<f32>, usize) {
        let tensor = net
            .tensors()
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap()
            .1;
        let columns = tensor.dims().last().copied().unwrap_or(1);
        (tensor.flatten_all().unwrap().to_vec1().unwrap(), columns)
    }

    /// How many dev sentences `net` labels as `rules` do.
    fn agreement(rules: &RulesFile, net: &dyn Network, texts: &[String]) -> usize {
        let mut agree = 0;
        for chunk in texts.chunks(100) {
            let chunk: Vec<&str> = chunk.iter().map(String::as_str).collect();
            let batch = crate::model::Batch::from_texts(
                &rules.system,
                None,
                &chunk,
                TrainingSettings::DEFAULT.max_sentence_tokens,
                &Device::Cpu,
            )
            .unwrap();
            let predicted: Vec<u32> = net
                .logits(&batch)
                .unwrap()
                .argmax(1)
                .unwrap()
                .to_vec1()
                .unwrap();
            for (text, label) in chunk.iter().zip(predicted) {
                let expected = rules.system.classify(text).prediction.map(|l| l.0);
                agree += usize::from(expected == Some(label));
            }
        }
        agree
    }

    fn corpus(name: &str, file: &str) -> Vec<crate::corpus::Example> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}/{file}"));
        crate::corpus::read_file(&path, &ReadLimits::DEFAULT)
            .unwrap()
            .examples
    }

    fn dev_texts(name: &str) -> Vec<String> {
        corpus(name, "dev.tsv")
            .into_iter()
            .map(|e| e.text)
            .collect()
    }

    #[test]
    fn warm_start_from_the_untrained_network_computes_the_edited_rules_exactly() {
        let settings = |model| TrainingSettings {
            model,
            beta: 1.0,
            ..TrainingSettings::DEFAULT
        };
        for (name, (previous, rules)) in [("sms", edited_sms()), ("trec", edited_trec())] {
            let reuse = match_patterns(&previous, &rules);
            assert!(reuse.kept() > 0 && reuse.changed() > 0, "{reuse:?}");
            let texts = dev_texts(name);
            for model in [ModelKind::FaRnn, ModelKind::FaGru, ModelKind::BiFaRnn] {
                let settings = settings(model);
                let warm = |old: &RuleSystem, new: &RuleSystem| {
                    let states = state_map(old, new, &reuse);
                    let previous = untrained(old, model.is_gated());
                    warm_network(
                        (&previous, old),
                        new,
                        &states,
                        None,
                        &settings,
                        1,
                        &Device::Cpu,
                    )
                    .unwrap()
                    .unwrap()
                };
                let forward = warm(&previous.system, &rules.system);
                assert!(!forward.kept_columns.is_empty() && forward.new_rank > 0);
                let net: Box<dyn Network> = if model.is_bidirectional() {
                    let config = CompileConfig::default();
                    let old = compile_reversed(&previous.rules, &previous.system, &config).0;
                    let new = compile_reversed(&rules.rules, &rules.system, &config).0;
                    let backward = warm(&old, &new);
                    Box::new(BiFaRnn {
                        forward: forward.net,
                        backward: backward.net,
                    })
                } else {
                    Box::new(forward.net)
                };
                assert_eq!(
                    agreement(&rules, net.as_ref(), &texts),
                    texts.len(),
                    "{name}, {model:?}"
                );
            }
        }
    }

    #[test]
    fn warm_start_keeps_the_trained_parameters_of_unchanged_patterns_exactly() {
        let (previous_rules, rules) = edited_sms();
        let (train, dev) = (corpus("sms", "train.tsv"), corpus("sms", "dev.tsv"));
        let settings = TrainingSettings {
            model: ModelKind::FaGru,
            fraction: 0.05,
            epochs: 1,
            patience: 1,
            // One network: the test reads the first member only.
            members: Some(1),
            ..TrainingSettings::DEFAULT
        };
        let fitted = fit(
            &previous_rules,
            &train,
            &dev,
            &settings,
            &ReadLimits::DEFAULT,
            &mut |_| {},
            &|| false,
        )
        .unwrap();
        let previous = fitted.net.directions()[0].0;
        let vocabulary = crate::model::vocabulary(&rules.system, [&train[..], &dev[..]]);
        let vectors = crate::model::read_vectors(
            crate::model::VectorSource::Bundled,
            &vocabulary,
            &ReadLimits::DEFAULT,
        )
        .unwrap();
        let words = WordInput {
            vocabulary,
            vectors,
            beta: settings.beta,
        };
        let reuse = match_patterns(&previous_rules, &rules);
        let states = state_map(&previous_rules.system, &rules.system, &reuse);
        // Every pattern whose key is unchanged keeps all its states.
        let blocks = pattern_blocks(&rules.system);
        for (p, q) in reuse.patterns.iter().enumerate() {
            let kept = blocks[p].clone().filter(|&i| states[i].is_some()).count();
            assert_eq!(
                kept,
                if q.is_some() { blocks[p].len() } else { 0 },
                "pattern {p}"
            );
        }
        let warm = warm_network(
            (previous, &previous_rules.system),
            &rules.system,
            &states,
            Some(&words),
            &settings,
            1,
            &Device::Cpu,
        )
        .unwrap()
        .unwrap();
        let kept = &warm.kept_columns;
        let rank = kept.len() + warm.new_rank;
        for name in ["d1", "d2"] {
            let (old, old_rank) = values(previous, name);
            let (new, new_rank) = values(&warm.net, name);
            assert_eq!(new_rank, rank);
            for (i, state) in states.iter().enumerate() {
                for (j, &r) in kept.iter().enumerate() {
                    let expected = state.map_or(0.0, |o| old[o * old_rank + r]);
                    assert_eq!(new[i * rank + j], expected, "{name}[{i}, {j}]");
                }
                if state.is_some() {
                    assert!(
                        new[i * rank + kept.len()..(i + 1) * rank]
                            .iter()
                            .all(|&x| x == 0.0)
                    );
                }
            }
            // The free states (the defaults have some) continue the previous ones likewise.
            let free = previous.free_states();
            assert!(free > 0 && warm.net.free_states() == free);
            let (old_first, first) = (old.len() / old_rank - free, states.len());
            for f in 0..free {
                let (i, o) = (first + f, old_first + f);
                for (j, &r) in kept.iter().enumerate() {
                    assert_eq!(new[i * rank + j], old[o * old_rank + r], "{name}[{i}, {j}]");
                }
                assert!(
                    new[i * rank + kept.len()..(i + 1) * rank]
                        .iter()
                        .all(|&x| x == 0.0)
                );
            }
        }
        let (old_g, old_rank) = values(previous, "g");
        let (new_g, _) = values(&warm.net, "g");
        for d in 0..words.vectors.dim {
            for (j, &r) in kept.iter().enumerate() {
                assert_eq!(new_g[d * rank + j], old_g[d * old_rank + r]);
            }
        }
        // A literal keeps its row; a new one takes the stand-in's the previous network read.
        let (old_e, _) = values(previous, "symbol_embedding");
        let (new_e, _) = values(&warm.net, "symbol_embedding");
        let (old_a, new_a) = (previous_rules.system.alphabet(), rules.system.alphabet());
        for (text, old_symbol) in [
            ("free", old_a.find("free")),
            ("jackpot", Some(Alphabet::OTHER_WORD)),
        ] {
            let (s, o) = (
                new_a.find(text).unwrap().index(),
                old_symbol.unwrap().index(),
            );
            for (j, &r) in kept.iter().enumerate() {
                assert_eq!(new_e[s * rank + j], old_e[o * old_rank + r], "{text}");
            }
        }
        // FA-GRU's gates between kept states are the trained ones.
        let (old_u, old_k) = values(previous, "update_state");
        let (new_u, k) = values(&warm.net, "update_state");
        for (i, a) in states.iter().enumerate() {
            for (j, b) in states.iter().enumerate() {
                if let (Some(a), Some(b)) = (a, b) {
                    assert_eq!(new_u[i * k + j], old_u[a * old_k + b]);
                }
            }
        }
    }

    #[test]
    fn plans_a_full_training_when_settings_data_or_most_patterns_change() {
        let (previous, rules) = edited_sms();
        let settings = TrainingSettings::DEFAULT;
        let manifest = |settings: &TrainingSettings| Manifest {
            format_version: super::super::checkpoint::FORMAT_VERSION,
            tokenizer_version: crate::text::TOKENIZER_VERSION,
            rules: super::super::checkpoint::RulesIdentity {
                path: Default::default(),
                sha256: String::new(),
                text: Some(previous.source.text.clone()),
                word_files: Default::default(),
            },
            settings: settings.resolved(),
            labels: Vec::new(),
            training_data_sha256: Some("data".into()),
            warm_start: None,
            rules_left_out: Vec::new(),
            decomposition: None,
            backward_decomposition: None,
            embeddings: None,
            vocabulary: Vec::new(),
            metrics: super::super::checkpoint::Metrics {
                train_examples: 0,
                dev_examples: 0,
                zero_shot_dev_accuracy: 0.0,
                dev_accuracy: 0.0,
                best_epoch: 0,
                epochs_run: 0,
                training_seconds: 0.0,
                dev_accuracy_by_epoch: Vec::new(),
                members: Vec::new(),
                ngram_regression: None,
                label_model: None,
                trained_again_with_dev: None,
            },
            weights_sha256: String::new(),
            tensors: Default::default(),
        };
        let same = manifest(&settings);
        let reuse = plan((&same, &previous), &rules, &settings, "data").unwrap();
        assert_eq!(reuse.changed(), 3, "{reuse:?}");
        assert_eq!(reuse.removed, 3);
        let other = TrainingSettings {
            beta: 0.5,
            ..settings.clone()
        };
        assert_eq!(
            plan((&same, &previous), &rules, &other, "data"),
            Err(WhyFull::Settings)
        );
        assert_eq!(
            plan((&same, &previous), &rules, &settings, "other"),
            Err(WhyFull::Data)
        );
        let ranked = TrainingSettings {
            rank: Some(64),
            ..settings.clone()
        };
        assert_eq!(
            plan((&manifest(&ranked), &previous), &rules, &ranked, "data"),
            Err(WhyFull::FixedRank)
        );
        let sopa = TrainingSettings {
            model: ModelKind::Sopa,
            ..settings.clone()
        };
        assert_eq!(
            plan((&manifest(&sopa), &previous), &rules, &sopa, "data"),
            Err(WhyFull::Sopa)
        );
        // Most patterns changed: every rule relabeled.
        let swapped = analyze(
            &previous
                .source
                .text
                .replace("\nham:", "\nhamx:")
                .replace("\nspam:", "\nham:")
                .replace("\nhamx:", "\nspam:"),
        );
        assert!(matches!(
            plan((&same, &previous), &swapped, &settings, "data"),
            Err(WhyFull::MostPatternsChanged { .. })
        ));
    }
}
