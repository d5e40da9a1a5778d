//! Helpers shared by the integration tests (`mod common;`).

#![allow(dead_code)]

pub mod backtrack;

use rulelens::automata::{RuleSystem, SymbolId};
use rulelens::syntax::ast::Regex;
use rulelens::text::{TokenKind, tokenize};

/// A sentence as the reference matcher sees it: each token's kind and lowercased text.
pub type Sentence = Vec<(TokenKind, String)>;

/// Tokenizes `text` with the crate's tokenizer into the reference matcher's form.
pub fn sentence(text: &str) -> Sentence {
    tokenize(text)
        .iter()
        .map(|token| (token.kind, token.text.to_string()))
        .collect()
}

/// A rules file with one anonymous pattern per regex, compiled.
pub struct Compiled {
    pub text: String,
    pub system: RuleSystem,
    /// The regex of each pattern, as the parser saw it.
    pub regexes: Vec<Regex>,
    /// Diagnostics of `parse` only (syntax errors).
    pub parse_diagnostics: Vec<rulelens::diagnostic::Diagnostic>,
}

/// Compiles `default x\ny: R1\ny: R2\n…`.
pub fn compile(regexes: &[&str]) -> Compiled {
    let mut text = String::from("default x\n");
    for regex in regexes {
        text.push_str("y: ");
        text.push_str(regex);
        text.push('\n');
    }
    let parse = rulelens::syntax::parse(&text);
    let (rules, _) = rulelens::syntax::lower(&parse, &text);
    let regexes = rules.patterns.iter().map(|p| p.regex.clone()).collect();
    let (system, _) = rulelens::automata::compile(&rules, &Default::default());
    Compiled {
        text,
        system,
        regexes,
        parse_diagnostics: parse.diagnostics,
    }
}

impl Compiled {
    /// The symbols of `text` in this system's alphabet.
    pub fn symbols(&self, text: &str) -> Vec<SymbolId> {
        let mut out = Vec::new();
        self.system.alphabet().symbolize(&tokenize(text), &mut out);
        out
    }
}

/// The bundled example `examples/NAME`: its rules, and its train and dev lines.
pub fn example(
    name: &str,
) -> (
    rulelens::rules_file::RulesFile,
    Vec<rulelens::corpus::Example>,
    Vec<rulelens::corpus::Example>,
) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let limits = rulelens::limits::ReadLimits::DEFAULT;
    let rules = rulelens::rules_file::RulesFile::read(
        &root.join(format!("{name}.rules")),
        &Default::default(),
        &limits,
    )
    .unwrap();
    let read = |split: &str| {
        rulelens::corpus::read_file(&root.join(format!("{split}.tsv")), &limits)
            .unwrap()
            .examples
    };
    (rules, read("train"), read("dev"))
}
