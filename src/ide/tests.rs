//! Property tests: every `ide` function, on arbitrary text and at arbitrary offsets (past
//! the end, inside a character), returns without panicking and keeps its promises about
//! ranges: inside the text, on char boundaries, sorted where promised.

use super::positions::{clamp_offset, size, slice};
use super::*;
use crate::corpus::{Format, parse};
use crate::ide::testing::rules_of;
use proptest::prelude::*;
use proptest::sample::Index;
use std::path::PathBuf;
use text_size::{TextRange, TextSize};

/// Rules-like text: fragments of the language, broken pieces and arbitrary characters.
fn rules_text() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("pattern "),
        Just("default "),
        Just("corpus "),
        Just("spam"),
        Just("ham"),
        Just("p"),
        Just("q"),
        Just(": "),
        Just(" <- "),
        Just(" = "),
        Just("$*"),
        Just("$"),
        Just("%"),
        Just("&"),
        Just(" | "),
        Just("!"),
        Just("( "),
        Just(" )"),
        Just("{1,2}"),
        Just("{"),
        Just("}"),
        Just("*"),
        Just("+"),
        Just("?"),
        Just("\""),
        Just("# c"),
        Just("\n"),
        Just("\r\n"),
        Just(" "),
        Just("é"),
        Just("😀"),
        Just("free"),
        Just("FREE"),
        Just("\u{feff}"),
        Just("\\"),
        Just(","),
        Just("1"),
    ]
    .prop_map(str::to_string);
    let any_char = any::<char>().prop_map(|c| c.to_string());
    prop::collection::vec(prop_oneof![6 => fragment, 1 => any_char], 0..50)
        .prop_map(|parts| parts.concat())
}

fn assert_valid(text: &str, range: TextRange, what: &str) {
    assert!(
        text.get(std::ops::Range::<usize>::from(range)).is_some(),
        "{what} {range:?} not in the text or not on char boundaries: {text:?}"
    );
}

fn assert_sorted(ranges: &[TextRange], what: &str) {
    assert!(
        ranges.windows(2).all(|w| w[0].end() <= w[1].start()),
        "{what} not sorted and disjoint: {ranges:?}"
    );
}

fn check_symbols(text: &str, symbols: &[Symbol], parent: Option<TextRange>) {
    for symbol in symbols {
        assert_valid(text, symbol.range, "symbol");
        assert!(
            symbol.range.contains_range(symbol.selection_range),
            "{symbol:?}"
        );
        assert!(!symbol.name.is_empty(), "{symbol:?}");
        if let Some(parent) = parent {
            assert!(
                parent.contains_range(symbol.range),
                "{symbol:?} outside {parent:?}"
            );
        }
        check_symbols(text, &symbol.children, Some(symbol.range));
    }
}

fn check_at(file: &crate::rules_file::RulesFile, offset: TextSize, corpus: &str, new_name: &str) {
    let text = file.source.text.as_str();
    let clamped = size(clamp_offset(text, offset));
    let name = name_at(file, offset);
    if let Some(name) = &name {
        assert_valid(text, name.range, "name");
        assert!(name.range.contains_inclusive(clamped));
        assert_eq!(slice(text, name.range), name.name);
    }
    let all = references(file, offset, true);
    let without = references(file, offset, false);
    all.iter()
        .chain(&without)
        .for_each(|&r| assert_valid(text, r, "reference"));
    assert_sorted(&all, "references");
    assert_eq!(name.is_some(), !all.is_empty());
    if let Some(definition) = definition(file, offset) {
        assert!(all.contains(&definition));
        assert_eq!(without.len() + 1, all.len());
    } else {
        assert_eq!(without, all);
    }
    assert_eq!(prepare_rename(file, offset), name.as_ref().map(|n| n.range));

    let (examples, _) = parse(corpus, Format::Tsv, &[]);
    let corpora = [(PathBuf::from("c.tsv"), examples.as_slice())];
    // Any name: refused or not, no panic, and the edits fit the texts.
    if let Ok(edits) = rename(file, offset, new_name, &corpora) {
        for file_edits in &edits {
            let target = if file_edits.path.is_none() {
                text
            } else {
                corpus
            };
            let ranges: Vec<TextRange> = file_edits.edits.iter().map(|e| e.range).collect();
            ranges.iter().for_each(|&r| assert_valid(target, r, "edit"));
            assert_sorted(&ranges, "edits");
            let _ = apply(target, &file_edits.edits);
        }
    }
    // A fresh name: the renamed file has the same occurrences under the new name.
    if let (Some(name), Ok(edits)) = (&name, rename(file, offset, "renamed_0", &corpora)) {
        let rules_edits = &edits[0].edits;
        assert_eq!(rules_edits.len(), all.len());
        let renamed = rules_of(&apply(text, rules_edits));
        let first = rules_edits[0].range.start();
        let again = references(&renamed, first, true);
        assert_eq!(again.len(), all.len(), "{name:?} renamed in {text:?}");
        assert_eq!(
            name_at(&renamed, first).map(|n| (n.kind, n.name)),
            Some((name.kind, "renamed_0".to_string()))
        );
    }

    let words = WordFrequencies::from_texts([text, corpus]);
    let items = completions(file, offset, &words);
    assert!(items.len() <= MAX_COMPLETIONS);
    for item in &items {
        assert_valid(text, item.replace, "replace");
        assert!(
            item.replace.contains_inclusive(clamped),
            "{item:?} at {clamped:?}"
        );
        assert!(!item.insert_text.is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_feature_on_any_text(
        text in rules_text(),
        offsets in prop::collection::vec(any::<Index>(), 4),
        new_name in "[a-z_][a-z.]{0,3}|\\PC{0,3}",
    ) {
        let file = rules_of(&text);
        for &comment in &file.parse.comments {
            assert_valid(&text, comment, "comment");
            assert!(slice(&text, comment).starts_with('#'));
            assert!(!slice(&text, comment).contains('\n'));
        }
        check_symbols(&text, &document_symbols(&file), None);
        let tokens = semantic_tokens(&file);
        let ranges: Vec<TextRange> = tokens.iter().map(|t| t.range).collect();
        assert_sorted(&ranges, "semantic tokens");
        for token in &tokens {
            assert_valid(&text, token.range, "semantic token");
            assert!(!token.range.is_empty() && !slice(&text, token.range).contains('\n'));
        }
        let corpus: String = text
            .lines()
            .map(|line| format!("{}\t{line}\n", line.split_whitespace().next().unwrap_or("")))
            .collect();
        for offset in offsets {
            let offset = TextSize::from(offset.index(text.len() + 10) as u32);
            check_at(&file, offset, &corpus, &new_name);
        }
    }
}
