//! Automata: token regexes to minimal DFAs, the exact rule system, its metrics and its
//! graph views.
//!
//! Pipeline per pattern: `nfa` (Thompson) → `determinize` (subset construction over the
//! pattern's symbol classes, capped) → `minimize` (Hopcroft, canonical numbering). The
//! [`RuleSystem`] puts the DFAs of a rules file together with its label formulas, and its
//! `prefilter` picks the patterns and rules a sentence's literals can fire;
//! `lint` checks languages (with `sets`, the exact set relations between rules), `metrics`
//! evaluates on a labeled corpus, `dot` draws; `why_not` says why a pattern does not match a
//! sentence, element by element.
//! petgraph stays inside this module, behind [`Dfa::graph`].

mod alphabet;
mod compile;
mod config;
mod determinize;
mod dfa;
mod dot;
mod lint;
mod metrics;
mod minimize;
mod nfa;
mod prefilter;
mod rule_system;
mod search;
mod sets;
mod why_not;

pub use alphabet::{Alphabet, Atom, SymbolId};
pub use compile::{compile, compile_reversed};
pub use config::{
    CompileConfig, DEFAULT_MAX_DFA_STATES, DEFAULT_MAX_NFA_STATES, DEFAULT_MAX_SEARCH_STEPS,
    MAX_DFA_STATES_CEILING,
};
pub use dfa::{Dfa, StateId};
pub use dot::{pattern_dot, system_dot};
pub use metrics::{Evaluation, Evaluator, LabelMetrics, PatternMetrics, evaluate};
pub use rule_system::{
    Candidates, Classification, CompiledPattern, RuleSystem, Scratch, SystemRule,
};
pub use why_not::{
    Element, ElementKind, ElementRun, Failure, Leaf, MAX_RUN_WORK, PatternElements, WhyNot,
};
