//! A small spam corpus for the engine's tests and the editor's: train and dev lines where
//! `spam: $* call % $*` is the one rule to find.

use super::*;

pub fn examples(lines: &[(&str, &str)]) -> Vec<Example> {
    lines
        .iter()
        .enumerate()
        .map(|(i, (label, text))| Example {
            text: text.to_string(),
            label: Some(label.to_string()),
            line: i as u32,
            text_range: None,
            label_range: None,
        })
        .collect()
}

pub fn rules(text: &str) -> RulesFile {
    RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &CompileConfig::default(),
    )
}

pub const TRAIN: &[(&str, &str)] = &[
    ("spam", "call 0800 now for cash"),
    ("spam", "to win call 555 today"),
    ("spam", "please call 12345 to claim"),
    ("spam", "call 999 for your prize"),
    ("spam", "free entry call 42"),
    ("ham", "call me when you are home"),
    ("ham", "i will call you later"),
    ("ham", "see you at 5"),
    ("ham", "thanks for the cake"),
    ("ham", "are you coming tonight"),
    ("ham", "you are late again"),
];

pub const DEV: &[(&str, &str)] = &[
    ("spam", "call 0900 to win"),
    ("spam", "reply now and call 321"),
    ("ham", "can you call mum"),
    ("ham", "you left your keys"),
];

/// [`suggest`] on [`TRAIN`] and [`DEV`], with the defaults.
pub fn suggest_on_fixture(file: &RulesFile) -> Vec<Suggestion> {
    let (train, dev) = (examples(TRAIN), examples(DEV));
    let corpora = Corpora {
        train: &train,
        dev: &dev,
    };
    suggest(file, &corpora, &[], &SuggestConfig::default(), &|| false).unwrap()
}
