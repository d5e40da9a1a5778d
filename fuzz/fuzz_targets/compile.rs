//! Fuzz target `compile`: arbitrary bytes → lossy UTF-8 → `parse` → `lower` → `compile`
//! with small caps → `classify` of a fixed sentence. Nothing may panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rulelens::automata::{CompileConfig, compile};
use rulelens::syntax::{PatternId, lower, parse};

/// Small caps, so that one input cannot spend seconds building a large automaton or
/// searching a product automaton (`max_search_steps` counts DFA transitions, about
/// 300,000 per millisecond, so 20,000 is a small budget).
const CONFIG: CompileConfig = CompileConfig {
    max_nfa_states: 20_000,
    max_dfa_states: 2_000,
    max_search_steps: 20_000,
};

/// Words, a number, punctuation, an apostrophe and non-ASCII text.
const SENTENCE: &str = "You WON 1,000 cash! Call now, it's free — Ünïcode ok?";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let text: &str = &text;

    let parsed = parse(text);
    let (rules, _) = lower(&parsed, text);
    let (system, _) = compile(&rules, &CONFIG);

    let classification = system.classify(SENTENCE);
    assert_eq!(classification.matched.len(), system.patterns().len());
    assert_eq!(classification.fired.len(), system.labels().len());
    if let Some(label) = classification.prediction {
        assert!(label.index() < system.labels().len());
    }

    // Spans of the patterns that matched, on the same sentence.
    let tokens = rulelens::text::tokenize(SENTENCE);
    let mut symbols = Vec::new();
    system.alphabet().symbolize(&tokens, &mut symbols);
    for (i, &matched) in classification.matched.iter().enumerate() {
        let span = system.match_span(PatternId(i as u32), &symbols);
        assert_eq!(span.is_some(), matched, "pattern {i}: span {span:?}");
        if let Some(span) = span {
            assert!(span.start <= span.end && span.end <= symbols.len());
        }
    }
});
