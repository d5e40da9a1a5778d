//! A rules file to start from, made from a labeled corpus (`rulelens init`): the corpus's
//! labels in a header comment with their counts, the majority label as the `default`, and the
//! corpus bindings. The rule system it defines predicts the majority label everywhere; the
//! suggestion engine then writes rules from nothing (`docs/cli.md`, "rulelens init").

use crate::corpus::Example;
use std::collections::HashMap;

/// Whether `name` can be a label of a rules file: `[A-Za-z_][A-Za-z0-9_.-]*`.
pub fn is_label_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// The starting rules for `train` (bound as `train_path`, and `dev_path` when given, both
/// written as they should appear in the file); an error names a majority label that cannot
/// be a label, or a corpus without labels.
pub fn scaffold(
    train: &[Example],
    train_path: &str,
    dev_path: Option<&str>,
) -> Result<String, String> {
    // Each label's count, in the order the corpus first has them (a map to its place: a
    // search of the list was quadratic, 15.7 s for 100,000 labels).
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut place: HashMap<&str, usize> = HashMap::new();
    for label in train.iter().filter_map(|e| e.label.as_deref()) {
        let i = *place.entry(label).or_insert_with(|| {
            counts.push((label, 0));
            counts.len() - 1
        });
        counts[i].1 += 1;
    }
    // The most frequent first; ties in the corpus's order.
    counts.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    let Some(&(majority, _)) = counts.first() else {
        return Err("the corpus has no labeled line".to_string());
    };
    if !is_label_name(majority) {
        return Err(format!(
            "the majority label `{majority}` cannot be a label of a rules file (`[A-Za-z_][A-Za-z0-9_.-]*`); rename it in the corpus"
        ));
    }
    let labeled: usize = counts.iter().map(|(_, n)| n).sum();
    let listed: Vec<String> = counts
        .iter()
        .map(|(name, n)| {
            let share = 100.0 * *n as f64 / labeled as f64;
            let note = if is_label_name(name) {
                ""
            } else {
                ", not a valid label name"
            };
            format!("#   {name}: {n} lines ({share:.1}%{note})")
        })
        .collect();
    let quote = |path: &str| format!("\"{}\"", path.replace('\\', "/"));
    let mut out = format!(
        "# Rules for {train_path}, started by `rulelens init`: {labeled} labeled lines.\n\
         # Labels, the most frequent first:\n{}\n\
         # Until rules are added, every line gets the default. `rulelens suggest` proposes\n\
         # rules from the train corpus, validated on dev.\n\n\
         default {majority}\n\
         corpus train {}\n",
        listed.join("\n"),
        quote(train_path),
    );
    if let Some(dev) = dev_path {
        out.push_str(&format!("corpus dev {}\n", quote(dev)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::testing::rules_of;

    fn example(label: &str) -> Example {
        Example {
            text: "x".to_string(),
            label: Some(label.to_string()),
            line: 0,
            text_range: None,
            label_range: None,
        }
    }

    #[test]
    fn the_majority_label_is_the_default_and_the_file_is_clean() {
        let train: Vec<Example> = ["spam", "ham", "ham", "2 stars"].map(example).to_vec();
        let text = scaffold(&train, "data/train.tsv", Some("data/dev.tsv")).unwrap();
        assert!(
            text.contains(
                "\ndefault ham\ncorpus train \"data/train.tsv\"\ncorpus dev \"data/dev.tsv\"\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("#   ham: 2 lines (50.0%)\n#   spam: 1 lines (25.0%)"),
            "{text}"
        );
        assert!(
            text.contains("2 stars: 1 lines (25.0%, not a valid label name)"),
            "{text}"
        );
        let file = rules_of(&text);
        assert!(file.diagnostics.is_empty(), "{:?}", file.diagnostics);
        assert_eq!(file.system.default_label().map(|l| l.index()), Some(0));
    }

    #[test]
    fn a_majority_that_cannot_be_a_label_and_an_unlabeled_corpus_are_refused() {
        let train: Vec<Example> = ["1", "1", "0"].map(example).to_vec();
        assert!(
            scaffold(&train, "t.tsv", None)
                .unwrap_err()
                .contains("`1` cannot be a label")
        );
        assert!(
            scaffold(&[], "t.tsv", None)
                .unwrap_err()
                .contains("no labeled line")
        );
    }
}
