//! The compiler's limits ([`CompileConfig`]): how large one pattern's automata may grow
//! and how much work a language check may do, with their defaults.

/// Default for [`CompileConfig::max_nfa_states`].
pub const DEFAULT_MAX_NFA_STATES: usize = 200_000;
/// Default for [`CompileConfig::max_dfa_states`].
pub const DEFAULT_MAX_DFA_STATES: usize = 10_000;
/// The most [`CompileConfig::max_dfa_states`] may be raised to (`--max-dfa-states`): a
/// pattern at it takes about a second and 260 MB to compile, so no flag makes a compile
/// run for minutes.
pub const MAX_DFA_STATES_CEILING: usize = 1_000_000;
/// Default for [`CompileConfig::max_search_steps`].
pub const DEFAULT_MAX_SEARCH_STEPS: usize = 200_000;

/// Limits of the compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileConfig {
    /// Most Thompson NFA states one pattern may need (`x{m,n}` expands). Default
    /// [`DEFAULT_MAX_NFA_STATES`].
    pub max_nfa_states: usize,
    /// Most DFA states the subset construction may create for one pattern, before
    /// minimization. Default [`DEFAULT_MAX_DFA_STATES`].
    pub max_dfa_states: usize,
    /// Most DFA transitions one language check (for instance "can a sentence match no
    /// label?") may compute while searching a product automaton before it gives up
    /// silently; about 1 ms per 300,000. Default [`DEFAULT_MAX_SEARCH_STEPS`].
    pub max_search_steps: usize,
    /// Whether to check the languages of the patterns (the W03xx warnings, with their
    /// product searches); the suggestion engine, which needs a candidate's errors only,
    /// leaves them out.
    pub lints: bool,
}

impl CompileConfig {
    /// Every default.
    pub const DEFAULT: CompileConfig = CompileConfig {
        max_nfa_states: DEFAULT_MAX_NFA_STATES,
        max_dfa_states: DEFAULT_MAX_DFA_STATES,
        max_search_steps: DEFAULT_MAX_SEARCH_STEPS,
        lints: true,
    };

    /// The defaults without the language checks, for rules compiled only to classify with
    /// (the suggestion engine's candidates, a reconstruction's rewritten rules): their
    /// warnings would go unread, and their product searches took a fifth of `suggest`'s
    /// time on TREC.
    pub const MEASURING: CompileConfig = CompileConfig {
        lints: false,
        ..CompileConfig::DEFAULT
    };
}

impl Default for CompileConfig {
    fn default() -> CompileConfig {
        CompileConfig::DEFAULT
    }
}
