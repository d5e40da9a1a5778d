//! Free patterns that start as phrases of the corpus: each free pattern of n main-path
//! transitions starts as a soft match of one of the train corpus's most informative
//! n-grams, so that it scores on real phrases from the first batch.
//!
//! A free pattern drawn at random (unit-length w rows, the reference code's) starts with a
//! transition logit w·v ≈ ±0.15 for every word, σ ≈ 0.5, and a pattern score of about
//! 0.5ⁿ on every sentence: its gradient is weak and nearly the same for every sentence, and
//! on 100 training sentences SoPa stayed near the majority label (issue 32). Seeded, the
//! main-path transition i of a pattern seeded with the n-gram g reads
//! `w = SEED_GAIN · v̂(gᵢ)`, `b = −SEED_GAIN · SEED_THRESHOLD`: logit `SEED_GAIN · (cos(v, gᵢ) − SEED_THRESHOLD)`,
//! near 1 in probability on gᵢ, rising with similarity on its neighbours, near 0 elsewhere.
//! Self-loops and ε-transitions keep their random start, and training moves everything.
//!
//! The n-grams: those of each length seen in at least two train sentences whose every word
//! has a vector, by the information they carry about the label, `n_g · KL(P(label | g) ‖
//! P(label))` (P(label | g) smoothed with the prior), largest first; the train corpus alone
//! decides, so a seed's figures on dev stay honest.

use std::collections::HashMap;

/// The logit scale of a seeded transition, and the cosine similarity to its word at which
/// it is even (chosen on SMS, TREC and apparel dev from 100 training sentences:
/// `docs/results.md`).
pub const SEED_GAIN: f32 = 6.0;
/// See [`SEED_GAIN`].
pub const SEED_THRESHOLD: f32 = 0.7;

/// Per free pattern (of `lengths[p]` states, so `lengths[p] − 1` main-path transitions),
/// the n-gram of `sentences` (word ids, label) it starts as, or `None` when the corpus has
/// too few informative n-grams of that length. `has_vector` says whether a word id has a
/// word vector (unknown words, id 0, never do).
pub fn informative_phrases(
    sentences: &[(&[u32], u32)],
    lengths: &[usize],
    n_labels: usize,
    has_vector: &dyn Fn(u32) -> bool,
) -> Vec<Option<Vec<u32>>> {
    let mut prior = vec![0f64; n_labels];
    let labeled: Vec<(&[u32], usize)> = sentences
        .iter()
        .filter(|(_, label)| (*label as usize) < n_labels)
        .map(|&(words, label)| (words, label as usize))
        .collect();
    for (_, label) in &labeled {
        prior[*label] += 1.0 / labeled.len() as f64;
    }
    let mut phrases = vec![None; lengths.len()];
    let mut by_length: HashMap<usize, Vec<usize>> = HashMap::new();
    for (p, &states) in lengths.iter().enumerate() {
        if states >= 2 {
            by_length.entry(states - 1).or_default().push(p);
        }
    }
    for (n, patterns) in by_length {
        let mut counts: HashMap<&[u32], Vec<f64>> = HashMap::new();
        for (words, label) in &labeled {
            let mut seen: Vec<&[u32]> = words
                .windows(n)
                .filter(|gram| gram.iter().all(|&w| w != 0 && has_vector(w)))
                .collect();
            seen.sort_unstable();
            seen.dedup();
            for gram in seen {
                counts.entry(gram).or_insert_with(|| vec![0.0; n_labels])[*label] += 1.0;
            }
        }
        let mut scored: Vec<(f64, &[u32])> = counts
            .into_iter()
            .filter(|(_, by_label)| by_label.iter().sum::<f64>() >= 2.0)
            .map(|(gram, by_label)| (information(&by_label, &prior), gram))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        for (&p, (_, gram)) in patterns.iter().zip(scored) {
            phrases[p] = Some(gram.to_vec());
        }
    }
    phrases
}

/// `n · KL(P(label | g) ‖ prior)` for an n-gram seen `by_label[c]` times with label c, its
/// distribution smoothed with one sentence's worth of the prior.
fn information(by_label: &[f64], prior: &[f64]) -> f64 {
    let n: f64 = by_label.iter().sum();
    let kl: f64 = by_label
        .iter()
        .zip(prior)
        .filter(|&(_, &p)| p > 0.0)
        .map(|(&count, &p)| {
            let q = (count + p) / (n + 1.0);
            q * (q / p).ln()
        })
        .sum();
    n * kl
}

/// Rows of a group's w and of its b, each with its values.
pub type SeededRows = (Vec<(usize, Vec<f32>)>, Vec<(usize, Vec<f32>)>);

/// The rows of a group's w [R, D] and b [R] that the `phrases` of its patterns set (rows
/// `(p·2 + 1)·l + i`, `l` the group's most states), from `vectors` [V, D].
pub fn seeded_rows(
    phrases: &[Option<Vec<u32>>],
    l: usize,
    vectors: &[f32],
    dim: usize,
) -> SeededRows {
    let mut words = Vec::new();
    let mut bias = Vec::new();
    for (p, phrase) in phrases.iter().enumerate() {
        for (i, &word) in phrase.iter().flatten().enumerate() {
            let Some(v) = vectors.get(word as usize * dim..(word as usize + 1) * dim) else {
                continue;
            };
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm == 0.0 {
                continue;
            }
            let row = (p * 2 + 1) * l + i;
            words.push((row, v.iter().map(|x| SEED_GAIN * x / norm).collect()));
            bias.push((row, vec![-SEED_GAIN * SEED_THRESHOLD]));
        }
    }
    (words, bias)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_informative_ngrams_of_each_length_seed_the_patterns() {
        // Word 1 is spam's (twice), word 2 ham's (three times), word 3 everywhere, word 9
        // has no vector.
        let data: Vec<(Vec<u32>, u32)> = vec![
            (vec![1, 3, 9], 1),
            (vec![1, 3, 9], 1),
            (vec![2, 3], 0),
            (vec![2, 3], 0),
            (vec![2, 3], 0),
            (vec![3, 4], 0),
        ];
        let sentences: Vec<(&[u32], u32)> = data.iter().map(|(w, l)| (w.as_slice(), *l)).collect();
        let phrases = informative_phrases(&sentences, &[2, 3, 2, 2, 5], 2, &|w| w != 9);
        // Unigrams: 1 (2 of 2 lines spam, the rarer label: 2 · 0.415 nats) and 2 (3 of 3
        // ham: 3 · 0.176) carry more than 3 (as often spam as any line); 4 is seen once.
        assert_eq!(phrases[0], Some(vec![1]));
        assert_eq!(phrases[2], Some(vec![2]));
        assert_eq!(phrases[3], Some(vec![3]));
        // Bigrams: "1 3" before "2 3"; "3 9" has a word without a vector.
        assert_eq!(phrases[1], Some(vec![1, 3]));
        // No 4-gram at all.
        assert_eq!(phrases[4], None);
    }

    #[test]
    fn a_seeded_transition_reads_its_word_and_its_neighbours() {
        let vectors = [0.0, 0.0, 3.0, 4.0, 4.0, 3.0];
        let (words, bias) = seeded_rows(&[None, Some(vec![1])], 3, &vectors, 2);
        // Pattern 1's first main-path row: (1·2 + 1)·3 + 0.
        assert_eq!(words.len(), 1);
        assert_eq!(words[0].0, 9);
        for (w, want) in words[0].1.iter().zip([0.6 * SEED_GAIN, 0.8 * SEED_GAIN]) {
            assert!((w - want).abs() < 1e-5, "{words:?}");
        }
        let logit = |v: [f32; 2]| {
            let norm = (v[0] * v[0] + v[1] * v[1]).sqrt();
            words[0].1[0] * v[0] / norm + words[0].1[1] * v[1] / norm + bias[0].1[0]
        };
        assert!((logit([3.0, 4.0]) - SEED_GAIN * (1.0 - SEED_THRESHOLD)).abs() < 1e-5);
        assert!(logit([4.0, 3.0]) > 0.0, "a near neighbour");
        assert!(
            (logit([-4.0, 3.0]) + SEED_GAIN * SEED_THRESHOLD).abs() < 1e-5,
            "orthogonal"
        );
        assert!(
            logit([-3.0, -4.0]) < -SEED_GAIN * SEED_THRESHOLD,
            "opposite"
        );
    }
}
