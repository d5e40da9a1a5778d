//! Problems found in the user's input, as values (never `Err`, never a panic).
//!
//! One [`Diagnostic`] type serves every layer: the parser, the name checks, the automata
//! compiler, the corpus readers and, later, the language server. Each carries a stable
//! [`Code`], documented in `docs/diagnostics.md` (a test keeps the two in sync), a byte
//! range into the text it was found in, a message, an optional help line and related
//! locations. [`render`] prints one rustc-style with the source line and a caret.
//! [`LintLevels`] allows, warns or denies lints as the command line's flags and the server's
//! settings ask.

mod levels;
mod render;

pub use levels::{Level, LintLevels, LintLists, LintTarget};
pub use render::render;

use text_size::TextRange;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

impl Severity {
    /// The word rustc prints before the code: `error`, `warning`, `info`, `hint`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }
}

macro_rules! codes {
    ($($variant:ident = $code:literal, $name:literal;)*) => {
        /// A stable diagnostic code. The letter gives the default severity (`E` error,
        /// `W` warning, `I` information); the first two digits the area (01 syntax, 02
        /// names, 03 languages and automata, 04 files and corpora, 05 what the corpus and
        /// the trained model say about the rules).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($variant,)*
        }

        impl Code {
            /// Every code, in documentation order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as printed: `E0101`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $code,)*
                }
            }

            /// A code from its text (`E0101`) or its name (`unexpected-character`).
            pub fn parse(text: &str) -> Option<Code> {
                Code::ALL
                    .iter()
                    .copied()
                    .find(|code| code.as_str().eq_ignore_ascii_case(text) || code.name() == text)
            }

            /// The code's kebab-case name: `unexpected-character`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }
        }
    };
}

codes! {
    UnexpectedCharacter = "E0101", "unexpected-character";
    UnterminatedString = "E0102", "unterminated-string";
    InvalidString = "E0103", "invalid-string";
    ExpectedStatement = "E0104", "expected-statement";
    UnexpectedToken = "E0105", "unexpected-token";
    UnclosedGroup = "E0106", "unclosed-group";
    UnmatchedParenthesis = "E0107", "unmatched-parenthesis";
    MissingOperand = "E0108", "missing-operand";
    InvalidRepetition = "E0109", "invalid-repetition";
    NestingTooDeep = "E0110", "nesting-too-deep";
    InvalidAllow = "W0111", "invalid-allow";
    UnknownPattern = "E0201", "unknown-pattern";
    DuplicatePattern = "E0202", "duplicate-pattern";
    DuplicateDefault = "E0203", "duplicate-default";
    DuplicateCorpus = "E0204", "duplicate-corpus";
    UnproducibleLiteral = "E0205", "unproducible-literal";
    UnusedPattern = "W0206", "unused-pattern";
    PatternNameInRegex = "W0207", "pattern-name-in-regex";
    UnknownWordList = "E0208", "unknown-word-list";
    DuplicateWordList = "E0209", "duplicate-word-list";
    UnusedWordList = "W0210", "unused-word-list";
    InvalidWordList = "E0211", "invalid-word-list";
    EmptyLanguage = "W0301", "empty-language";
    MatchesEverything = "W0302", "matches-everything";
    MissingDefault = "W0303", "missing-default";
    DuplicateLanguage = "W0304", "duplicate-language";
    AutomatonTooLarge = "E0305", "automaton-too-large";
    ShadowedRule = "W0306", "shadowed-rule";
    RedundantRule = "W0307", "redundant-rule";
    UnsatisfiableFormula = "W0308", "unsatisfiable-formula";
    OverlappingRules = "I0309", "overlapping-rules";
    CorpusNotFound = "E0401", "corpus-not-found";
    UnsupportedCorpusFormat = "E0402", "unsupported-corpus-format";
    InvalidUtf8 = "E0403", "invalid-utf8";
    MalformedLine = "E0404", "malformed-line";
    UnknownLabel = "W0405", "unknown-label";
    UnreadableWordList = "E0406", "unreadable-word-list";
    LabelWithoutTab = "W0407", "label-without-tab";
    PathOutsideWorkspace = "W0408", "path-outside-workspace";
    NeverMatches = "W0501", "never-matches";
    LowPrecision = "W0502", "low-precision";
    ConflictingPatterns = "W0503", "conflicting-patterns";
    OverruledByModel = "I0504", "overruled-by-model";
    MisclassifiedLine = "I0505", "misclassified-line";
}

impl Code {
    /// The severity a diagnostic with this code has unless a caller decides otherwise.
    pub fn default_severity(self) -> Severity {
        match self.as_str().as_bytes().first() {
            Some(b'E') => Severity::Error,
            Some(b'I') => Severity::Info,
            _ => Severity::Warning,
        }
    }
}

/// Another location that explains a diagnostic (say, the first definition of a duplicate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub range: TextRange,
    pub message: String,
}

/// An edit that does what a diagnostic's help says, for an editor's quick fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does, as a quick fix's title.
    pub title: String,
    pub range: TextRange,
    pub new_text: String,
}

/// A problem in the user's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub range: TextRange,
    pub message: String,
    pub help: Option<String>,
    pub related: Vec<Related>,
    /// The edit its help describes, when there is exactly one (boxed: most diagnostics
    /// have none, and results carrying a diagnostic stay small).
    pub fix: Option<Box<Fix>>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity.
    pub fn new(code: Code, range: TextRange, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.default_severity(),
            range,
            message: message.into(),
            help: None,
            related: Vec::new(),
            fix: None,
        }
    }

    /// Adds the edit that fixes it.
    pub fn with_fix(
        mut self,
        title: impl Into<String>,
        range: TextRange,
        new_text: impl Into<String>,
    ) -> Diagnostic {
        self.fix = Some(Box::new(Fix {
            title: title.into(),
            range,
            new_text: new_text.into(),
        }));
        self
    }

    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Adds a related location.
    pub fn with_related(mut self, range: TextRange, message: impl Into<String>) -> Diagnostic {
        self.related.push(Related {
            range,
            message: message.into(),
        });
        self
    }

    /// Whether this is an error (as opposed to a warning or a note).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
