//! Small corpora for the engine's tests and the editor's: spam train and dev lines where
//! `spam: $* call % $*` is the one rule to find, and questions where `desc: $* what $*` is
//! too wide, to be narrowed.

use super::*;
use crate::automata::CompileConfig;
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::text::SourceText;

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

/// `train` and `dev` as the engine's corpora, without word vectors.
pub fn plain_corpora<'a>(train: &'a [Example], dev: &'a [Example]) -> Corpora<'a> {
    Corpora {
        train,
        dev,
        vectors: None,
    }
}

/// [`suggest`] for `file` on the lines `train` and `dev`, with the defaults and no word
/// vectors.
pub fn suggest_on(
    file: &RulesFile,
    train: &[(&str, &str)],
    dev: &[(&str, &str)],
) -> Vec<Suggestion> {
    let (train, dev) = (examples(train), examples(dev));
    let corpora = plain_corpora(&train, &dev);
    suggest(file, &corpora, &[], &[], &SuggestConfig::default(), &|| {
        false
    })
    .unwrap()
}

/// [`suggest`] on [`TRAIN`] and [`DEV`], with the defaults.
pub fn suggest_on_fixture(file: &RulesFile) -> Vec<Suggestion> {
    suggest_on(file, TRAIN, DEV)
}

/// Questions: `desc: $* what $*` wins four lines rightly and six wrongly, three of which
/// `hum: $* president $*` wins once it is silent, three the default `enty`.
pub const WHAT_RULES: &str = "default enty\ndesc: $* what $*    # too wide\nhum: $* president $*\n";

pub const WHAT: &[(&str, &str)] = &[
    ("desc", "what does ukulele mean ?"),
    ("desc", "what does nostalgia mean ?"),
    ("desc", "what does plethora mean ?"),
    ("desc", "what is the meaning of life ?"),
    ("hum", "what president freed the slaves ?"),
    ("hum", "what president was shot ?"),
    ("hum", "what president wrote a book ?"),
    ("hum", "who was the first president ?"),
    ("enty", "what color is the sky ?"),
    ("enty", "what color is grass ?"),
    ("enty", "what color are roses ?"),
    ("enty", "name a color"),
];

pub const WHAT_DEV: &[(&str, &str)] = &[
    ("desc", "what does gregarious mean ?"),
    ("hum", "what president died in 1865 ?"),
    ("enty", "what color is snow ?"),
    ("enty", "name a fruit"),
];

/// [`suggest`] on [`WHAT`] and [`WHAT_DEV`], with the defaults.
pub fn suggest_on_questions(file: &RulesFile) -> Vec<Suggestion> {
    suggest_on(file, WHAT, WHAT_DEV)
}
