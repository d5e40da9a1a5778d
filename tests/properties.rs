//! Property tests.
//!
//! (a) Random token regexes and sentences: the compiled minimal DFA, the reference
//!     backtracking matcher (`tests/common/backtrack.rs`) and the `regex` crate (each pool
//!     token mapped to one char) agree on matching; the DFA's `match_span` agrees with the
//!     backtracker's span; `PatternElements`' run agrees with the DFA, and its why-not (the
//!     longest matched prefix of elements) and slots are what the backtracker finds.
//! (b) `parse` (and `lower`, and `compile` with small caps) never panic on arbitrary text,
//!     and every diagnostic range lies in the text, on char boundaries.
//! (c) Minimization is canonical: regexes with the same language compile to equal `Dfa`s.
//! (d) `LineIndex` round-trips byte offsets and UTF-16 positions.
//! (e) A rule system without some of its rules (`RuleSystem::without_rules`, the rules
//!     training leaves out) classifies every sentence as the file with those rules deleted,
//!     and its label formulas are true where that file's labels fire.

mod common;

use common::backtrack;
use proptest::collection::vec;
use proptest::prelude::*;
use rulelens::automata::{CompileConfig, Failure, PatternElements, RuleSystem};
use rulelens::diagnostic::Diagnostic;
use rulelens::syntax::ast::{Regex, RegexKind};
use rulelens::syntax::{LabelId, PatternId};
use rulelens::text::{LineCol, LineIndex, TokenKind};
use text_size::{TextRange, TextSize};

// ----- the token pools -----

/// The tokens sentences are made of: literals of the rules, plus one "other" token of
/// each kind that no rule names (`free`, `42`, `,`).
const POOL: &[(&str, TokenKind)] = &[
    ("won", TokenKind::Word),
    ("cash", TokenKind::Word),
    ("can't", TokenKind::Word),
    ("e-mail", TokenKind::Word),
    ("free", TokenKind::Word),
    ("2", TokenKind::Number),
    ("1,000", TokenKind::Number),
    ("3.5", TokenKind::Number),
    ("42", TokenKind::Number),
    ("!", TokenKind::Punct),
    ("?", TokenKind::Punct),
    ("£", TokenKind::Punct),
    (",", TokenKind::Punct),
];

/// Literals as written in a rule, and the pool token each one spells (`None`: a literal
/// the tokenizer never produces, which matches nothing).
const LITERALS: &[(&str, Option<usize>)] = &[
    ("won", Some(0)),
    ("cash", Some(1)),
    ("can't", Some(2)),
    ("e-mail", Some(3)),
    ("2", Some(5)),
    ("1,000", Some(6)),
    ("3.5", Some(7)),
    ("\"!\"", Some(9)),
    ("\"?\"", Some(10)),
    ("\"£\"", Some(11)),
    ("\"won\"", Some(0)),
    ("\"e-mail\"", Some(3)),
    ("WON", None),
];

/// The char that stands for pool token `i` in the `regex` crate's haystacks.
fn pool_char(i: usize) -> char {
    (b'a' + i as u8) as char
}

fn class_of(kind: TokenKind) -> String {
    let chars: String = POOL
        .iter()
        .enumerate()
        .filter(|(_, (_, k))| *k == kind)
        .map(|(i, _)| pool_char(i))
        .collect();
    format!("[{chars}]")
}

// ----- random regexes -----

#[derive(Debug, Clone, Copy, PartialEq)]
enum Quant {
    Star,
    Plus,
    Opt,
    Exact(u32),
    Range(u32, u32),
}

impl Quant {
    fn rules(self) -> String {
        match self {
            Quant::Star => "*".into(),
            Quant::Plus => "+".into(),
            Quant::Opt => "?".into(),
            Quant::Exact(m) => format!("{{{m}}}"),
            Quant::Range(m, n) => format!("{{{m},{n}}}"),
        }
    }

    fn bounds(self) -> (u32, Option<u32>) {
        match self {
            Quant::Star => (0, None),
            Quant::Plus => (1, None),
            Quant::Opt => (0, Some(1)),
            Quant::Exact(m) => (m, Some(m)),
            Quant::Range(m, n) => (m, Some(n)),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Re {
    Lit(usize),
    Any,
    Num,
    Punct,
    Concat(Vec<Re>),
    Alt(Vec<Re>),
    Repeat(Box<Re>, Quant),
}

fn dollar_star() -> Re {
    Re::Repeat(Box::new(Re::Any), Quant::Star)
}

impl Re {
    /// The regex in `.rules` syntax.
    fn rules(&self) -> String {
        match self {
            Re::Lit(i) => LITERALS[*i].0.to_string(),
            Re::Any => "$".into(),
            Re::Num => "%".into(),
            Re::Punct => "&".into(),
            Re::Concat(items) => items
                .iter()
                .map(|item| match item {
                    // A nested concatenation was generated as one node: keep it a group.
                    Re::Concat(_) | Re::Alt(_) => format!("( {} )", item.rules()),
                    _ => item.rules(),
                })
                .collect::<Vec<_>>()
                .join(" "),
            Re::Alt(branches) => branches
                .iter()
                .map(|branch| match branch {
                    Re::Alt(_) => format!("( {} )", branch.rules()),
                    _ => branch.rules(),
                })
                .collect::<Vec<_>>()
                .join(" | "),
            Re::Repeat(inner, quant) => match **inner {
                // Stacked quantifiers (`x?*`) are part of the syntax too.
                Re::Lit(_) | Re::Any | Re::Num | Re::Punct | Re::Repeat(..) => {
                    format!("{}{}", inner.rules(), quant.rules())
                }
                _ => format!("( {} ){}", inner.rules(), quant.rules()),
            },
        }
    }

    /// The regex for the `regex` crate over pool chars.
    fn std_regex(&self) -> String {
        match self {
            Re::Lit(i) => match LITERALS[*i].1 {
                Some(token) => regex::escape(&pool_char(token).to_string()),
                None => "[a&&b]".into(), // the empty class: matches nothing
            },
            Re::Any => "(?s:.)".into(),
            Re::Num => class_of(TokenKind::Number),
            Re::Punct => class_of(TokenKind::Punct),
            Re::Concat(items) => items
                .iter()
                .map(|item| format!("(?:{})", item.std_regex()))
                .collect(),
            Re::Alt(branches) => branches
                .iter()
                .map(|branch| format!("(?:{})", branch.std_regex()))
                .collect::<Vec<_>>()
                .join("|"),
            Re::Repeat(inner, quant) => {
                let q = match quant {
                    Quant::Star => "*".to_string(),
                    Quant::Plus => "+".to_string(),
                    Quant::Opt => "?".to_string(),
                    Quant::Exact(m) => format!("{{{m}}}"),
                    Quant::Range(m, n) => format!("{{{m},{n}}}"),
                };
                format!("(?:{}){q}", inner.std_regex())
            }
        }
    }

    /// A sentence (pool indices) in the language, steered by `choices`; `None` when the
    /// walk chose something that matches nothing or grew too long.
    fn sample(&self, choices: &mut impl Iterator<Item = u32>, out: &mut Vec<usize>) -> Option<()> {
        let mut pick = |n: usize| choices.next().unwrap_or(0) as usize % n;
        let pick_kind = |kind: Option<TokenKind>, k: usize| -> usize {
            let members: Vec<usize> = (0..POOL.len())
                .filter(|&i| kind.is_none_or(|kind| POOL[i].1 == kind))
                .collect();
            members[k % members.len()]
        };
        if out.len() > 12 {
            return None;
        }
        match self {
            Re::Lit(i) => out.push(LITERALS[*i].1?),
            Re::Any => out.push(pick_kind(None, pick(POOL.len()))),
            Re::Num => out.push(pick_kind(Some(TokenKind::Number), pick(POOL.len()))),
            Re::Punct => out.push(pick_kind(Some(TokenKind::Punct), pick(POOL.len()))),
            Re::Concat(items) => {
                for item in items {
                    item.sample(choices, out)?;
                }
            }
            Re::Alt(branches) => {
                let branch = pick(branches.len());
                branches[branch].sample(choices, out)?;
            }
            Re::Repeat(inner, quant) => {
                let (min, max) = quant.bounds();
                let max = max.unwrap_or(min + 2);
                let count = min + pick((max - min + 1) as usize) as u32;
                for _ in 0..count {
                    inner.sample(choices, out)?;
                }
            }
        }
        Some(())
    }
}

fn quant_strategy() -> impl Strategy<Value = Quant> {
    prop_oneof![
        3 => Just(Quant::Star),
        2 => Just(Quant::Plus),
        2 => Just(Quant::Opt),
        1 => (0u32..=3).prop_map(Quant::Exact),
        2 => (0u32..=2, 0u32..=2).prop_map(|(m, extra)| Quant::Range(m, m + extra)),
    ]
}

fn re_strategy() -> impl Strategy<Value = Re> {
    let leaf = prop_oneof![
        8 => (0..LITERALS.len()).prop_map(Re::Lit),
        2 => Just(Re::Any),
        1 => Just(Re::Num),
        1 => Just(Re::Punct),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            3 => vec(inner.clone(), 2..4).prop_map(Re::Concat),
            2 => vec(inner.clone(), 2..4).prop_map(Re::Alt),
            2 => (inner, quant_strategy()).prop_map(|(re, q)| Re::Repeat(Box::new(re), q)),
        ]
    })
}

/// A regex, sometimes wrapped in leading and/or trailing `$*` (flattened into its top-level
/// concatenation, as users write `$* … $*`), so that spans have something to strip.
fn pattern_strategy() -> impl Strategy<Value = Re> {
    (re_strategy(), 0..6u8).prop_map(|(re, wrap)| {
        let (lead, trail) = match wrap {
            0 => (true, true),
            1 => (true, false),
            2 => (false, true),
            _ => return re,
        };
        let mut items = Vec::new();
        if lead {
            items.push(dollar_star());
        }
        match re {
            Re::Concat(inner) => items.extend(inner),
            other => items.push(other),
        }
        if trail {
            items.push(dollar_star());
        }
        Re::Concat(items)
    })
}

/// A sentence: pool token indices and, per token, whether it is written in uppercase.
#[derive(Debug, Clone)]
struct Sentence {
    tokens: Vec<usize>,
    upper: Vec<bool>,
}

impl Sentence {
    fn text(&self) -> String {
        self.tokens
            .iter()
            .zip(self.upper.iter().chain(std::iter::repeat(&false)))
            .map(|(&i, &upper)| {
                let text = POOL[i].0;
                if upper {
                    text.to_uppercase()
                } else {
                    text.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn haystack(&self) -> String {
        self.tokens.iter().map(|&i| pool_char(i)).collect()
    }
}

/// A pattern and a sentence; half of the time the sentence is sampled from the pattern's
/// language (so that matches are common), otherwise it is random.
fn case_strategy() -> impl Strategy<Value = (Re, Sentence)> {
    (
        pattern_strategy(),
        vec(0..POOL.len(), 0..8),
        vec(any::<u32>(), 48),
        vec(any::<bool>(), 16),
        any::<bool>(),
    )
        .prop_map(|(re, random, choices, upper, sampled)| {
            let mut tokens = random;
            if sampled {
                let mut out = Vec::new();
                if re.sample(&mut choices.into_iter(), &mut out).is_some() {
                    tokens = out;
                }
            }
            (re, Sentence { tokens, upper })
        })
}

// ----- diagnostics ranges -----

fn check_range(text: &str, range: TextRange, what: &str) -> Result<(), TestCaseError> {
    let (start, end) = (usize::from(range.start()), usize::from(range.end()));
    prop_assert!(
        end <= text.len(),
        "{what} {range:?} past the end of {text:?}"
    );
    prop_assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "{what} {range:?} not on char boundaries of {text:?}"
    );
    Ok(())
}

fn check_diagnostics(text: &str, diagnostics: &[Diagnostic]) -> Result<(), TestCaseError> {
    for diagnostic in diagnostics {
        let what = format!("{} ({})", diagnostic.code.as_str(), diagnostic.message);
        check_range(text, diagnostic.range, &what)?;
        for related in &diagnostic.related {
            check_range(text, related.range, &format!("related range of {what}"))?;
        }
    }
    Ok(())
}

/// Arbitrary text biased towards the `.rules` syntax.
fn rules_like_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("default"),
        Just("pattern"),
        Just("corpus"),
        Just("spam"),
        Just("p"),
        Just(":"),
        Just("<-"),
        Just("<"),
        Just("="),
        Just("$"),
        Just("%"),
        Just("&"),
        Just("*"),
        Just("+"),
        Just("?"),
        Just("{"),
        Just("}"),
        Just("{2}"),
        Just("{1,3}"),
        Just("{3,1}"),
        Just("{99999999999}"),
        Just(","),
        Just("("),
        Just(")"),
        Just("|"),
        Just("!"),
        Just("\""),
        Just("\"!\""),
        Just("\"\\"),
        Just("\\"),
        Just("#"),
        Just("\n"),
        Just("\r\n"),
        Just(" "),
        Just("\t"),
        Just("\u{feff}"),
        Just("won"),
        Just("WON"),
        Just("can't"),
        Just("1,000"),
        Just("é"),
        Just("😀"),
        Just("ß"),
        Just("İ"),
        Just("\u{0}"),
    ];
    vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

/// Deep nesting: a statement head, then one piece repeated up to a few hundred times.
fn deeply_nested_text() -> impl Strategy<Value = String> {
    let head = prop_oneof![Just("y: "), Just("y <- "), Just("pattern p = ")];
    let piece = prop_oneof![
        Just("("),
        Just("( "),
        Just("!"),
        Just("*"),
        Just("?"),
        Just("{2}"),
        Just("( a | "),
        Just("a* "),
    ];
    (head, piece, 0..300usize, rules_like_text())
        .prop_map(|(head, piece, count, tail)| format!("{head}{}{tail}", piece.repeat(count)))
}

fn arbitrary_text() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => any::<String>(),
        1 => "[ -~\n]{0,80}",
        4 => rules_like_text(),
        1 => deeply_nested_text(),
    ]
}

// ----- unicode text for LineIndex -----

fn unicode_text() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        3 => any::<char>(),
        2 => Just('\n'),
        1 => Just('\r'),
        1 => Just('😀'),
        1 => Just('é'),
        2 => Just('a'),
    ];
    vec(c, 0..60).prop_map(|chars| chars.into_iter().collect())
}

// ----- equal languages -----

/// Two regexes with the same language, built from random parts.
fn equivalent_pair() -> impl Strategy<Value = (String, String)> {
    let r = || re_strategy().prop_map(|re| re.rules());
    (r(), r(), r(), 0..16u8, 0u32..=2, 0u32..=2).prop_map(|(a, b, c, kind, m, extra)| {
        let n = m + extra;
        match kind {
            0 => (a.clone(), format!("( {a} )")),
            1 => (a.clone(), format!("{a} | {a}")),
            2 => (format!("( {a} | {b} )"), format!("( {b} | {a} )")),
            3 => (format!("( {a} )*"), format!("( ( {a} )* )*")),
            4 => (format!("( {a} ){{2}}"), format!("( {a} ) ( {a} )")),
            5 => (
                format!("( {a} ) ( {b} ) ( {c} )"),
                format!("( ( {a} ) ( {b} ) ) ( {c} )"),
            ),
            6 => (format!("( {a} )+"), format!("( {a} ) ( {a} )*")),
            7 => (format!("( {a} )?"), format!("( {a} ){{0,1}}")),
            8 => (
                format!("( {a} ){{{m},{n}}}"),
                format!("( {a} ){{{m}}} ( {a} ){{0,{extra}}}"),
            ),
            9 => (format!("( {a} | {b} )*"), format!("( ( {a} )* ( {b} )* )*")),
            10 => (format!("( {a} )*"), format!("( ( {a} )+ )?")),
            11 => (
                format!("( {a} ) ( {b} | {c} )"),
                format!("( {a} ) ( {b} ) | ( {a} ) ( {c} )"),
            ),
            12 => ("%".into(), "( % | 2 | 1,000 )".into()),
            13 => ("&".into(), "( \"!\" | & )".into()),
            14 => (format!("( $ | {a} )*"), "$*".into()),
            _ => (format!("( {a} | WON )"), format!("( {a} )")),
        }
    })
}

/// The items of nested concatenations, in order: a pattern's elements.
fn flatten<'r>(regex: &'r Regex, out: &mut Vec<&'r Regex>) {
    match &regex.kind {
        RegexKind::Concat(items) => items.iter().for_each(|item| flatten(item, out)),
        _ => out.push(regex),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// (a) DFA == backtracker == `regex` crate, and DFA spans == backtracker spans.
    #[test]
    fn dfa_backtracker_and_regex_crate_agree((re, sentence) in case_strategy()) {
        let rules = re.rules();
        let compiled = common::compile(&[&rules]);
        prop_assert!(
            compiled.parse_diagnostics.is_empty(),
            "{rules:?} did not parse cleanly: {:?}",
            compiled.parse_diagnostics
        );
        let Some(dfa) = &compiled.system.patterns()[0].dfa else {
            // Passed the state cap: nothing to compare.
            return Ok(());
        };
        let text = sentence.text();
        let tokens = common::sentence(&text);
        let expected_tokens: Vec<&str> = sentence.tokens.iter().map(|&i| POOL[i].0).collect();
        let got_tokens: Vec<&str> = tokens.iter().map(|(_, t)| t.as_str()).collect();
        prop_assert_eq!(&got_tokens, &expected_tokens, "tokenization of {:?}", text);

        let symbols = compiled.symbols(&text);
        let by_dfa = dfa.is_match(&symbols, compiled.system.alphabet());
        let by_backtracking = backtrack::is_match(&compiled.regexes[0], &tokens);
        let std = format!(r"\A(?:{})\z", re.std_regex());
        let std_regex = regex::Regex::new(&std).expect("the std regex compiles");
        let by_regex_crate = std_regex.is_match(&sentence.haystack());
        prop_assert_eq!(
            by_backtracking, by_regex_crate,
            "backtracker vs regex crate: rules {:?}, sentence {:?}, std regex {:?}",
            rules, text, std
        );
        prop_assert_eq!(
            by_dfa, by_backtracking,
            "DFA vs backtracker: rules {:?}, sentence {:?}", rules, text
        );

        let span_dfa = compiled.system.match_span(PatternId(0), &symbols);
        let span_backtracking = backtrack::span(&compiled.regexes[0], &tokens);
        prop_assert_eq!(
            span_dfa, span_backtracking,
            "match_span vs backtracker span: rules {:?}, sentence {:?}", rules, text
        );

        let alphabet = compiled.system.alphabet();
        let elements = PatternElements::new(&compiled.regexes[0], alphabet).expect("built");
        let run = elements.run(&symbols, alphabet).expect("within the work cap");
        prop_assert_eq!(run.matches(), by_dfa, "element run vs DFA: rules {:?}, sentence {:?}", rules, text);
        let mut items = Vec::new();
        flatten(&compiled.regexes[0], &mut items);
        let n = tokens.len();
        let reach = |k: usize| backtrack::concat_ends(items[..k].iter().copied(), &tokens, 0);
        match run.why_not() {
            None => prop_assert!(by_dfa),
            Some(why) => {
                let matched = (0..=items.len()).rev().find(|&k| !reach(k).is_empty()).unwrap();
                prop_assert_eq!(why.matched, matched, "rules {:?}, sentence {:?}", rules, text);
                prop_assert_eq!(Some(why.tokens_matched), reach(matched).last().copied());
                let failure = match (matched == items.len(), why.tokens_matched == n) {
                    (true, _) => Failure::Continues { found: why.tokens_matched },
                    (false, true) => Failure::Ended { element: matched },
                    (false, false) => Failure::Mismatch { element: matched, found: why.tokens_matched },
                };
                prop_assert_eq!(why.failure, failure);
            }
        }
        for k in 0..items.len() {
            let expected: Vec<usize> = reach(k)
                .into_iter()
                .filter(|&i| {
                    i < n
                        && backtrack::concat_ends(items[k + 1..].iter().copied(), &tokens, i + 1)
                            .contains(&n)
                })
                .collect();
            prop_assert_eq!(run.slots(k).collect::<Vec<_>>(), expected, "slots of element {}: rules {:?}, sentence {:?}", k, rules, text);
        }
    }

    /// (b) The front end never panics, and every diagnostic points into the text.
    #[test]
    fn parse_never_panics_and_ranges_are_in_text(text in arbitrary_text()) {
        let parse = rulelens::syntax::parse(&text);
        check_diagnostics(&text, &parse.diagnostics)?;
        let (rules, diagnostics) = rulelens::syntax::lower(&parse, &text);
        check_diagnostics(&text, &diagnostics)?;
        let config = CompileConfig {
            max_nfa_states: 2_000,
            max_dfa_states: 200,
            ..CompileConfig::default()
        };
        let (_, diagnostics) = rulelens::automata::compile(&rules, &config);
        check_diagnostics(&text, &diagnostics)?;
    }

    /// (c) Equal languages give equal canonical minimal DFAs.
    #[test]
    fn minimization_is_canonical((left, right) in equivalent_pair()) {
        let compiled = common::compile(&[&left, &right]);
        prop_assert!(
            compiled.parse_diagnostics.is_empty(),
            "{left:?} / {right:?} did not parse cleanly: {:?}",
            compiled.parse_diagnostics
        );
        let patterns = compiled.system.patterns();
        if let (Some(a), Some(b)) = (&patterns[0].dfa, &patterns[1].dfa) {
            prop_assert_eq!(a, b, "DFAs of {:?} and {:?} differ", left, right);
        }
    }

    /// (d) Byte offsets ↔ UTF-16 positions round-trip on char boundaries.
    #[test]
    fn line_index_utf16_round_trip(text in unicode_text()) {
        let index = LineIndex::new(&text);
        // LSP's lines end with `\n`, `\r\n` or a lone `\r`.
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if ends_line {
                starts.push(i + 1);
            }
        }
        prop_assert_eq!(index.n_lines(), starts.len());
        let inside_crlf = |o: usize| o > 0 && bytes[o - 1] == b'\r' && bytes.get(o) == Some(&b'\n');
        for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o) && !inside_crlf(o)) {
            let line = starts.partition_point(|&start| start <= offset) - 1;
            let expected = LineCol {
                line: line as u32,
                col: text[starts[line]..offset].encode_utf16().count() as u32,
            };
            let size = TextSize::from(offset as u32);
            let pos = index.to_utf16(&text, size);
            prop_assert_eq!(pos, expected, "to_utf16({}) in {:?}", offset, text);
            prop_assert_eq!(
                index.from_utf16(&text, pos), size,
                "from_utf16({:?}) in {:?}", pos, text
            );
        }
        // Every position maps to a char boundary inside its line, at or before it.
        for line in 0..index.n_lines() as u32 {
            let range = index.line_range(line).expect("a line of the text");
            let units = text[range].encode_utf16().count() as u32;
            for col in 0..=units + 1 {
                let pos = LineCol { line, col };
                let offset = index.from_utf16(&text, pos);
                prop_assert!(range.contains_inclusive(offset), "{pos:?} -> {offset:?} outside {range:?}");
                prop_assert!(text.is_char_boundary(usize::from(offset)));
                let back = index.to_utf16(&text, offset);
                prop_assert_eq!(back.line, line);
                prop_assert!(back.col <= col.min(units), "{:?} -> {:?} -> {:?}", pos, offset, back);
            }
        }
    }
}

/// A rules file of `rules` (label index, pattern) with the labels `a`, `b`, `c` (`c` the
/// default), one statement a line; `deleted` rules are blank lines, so that the others keep
/// their lines. Each label's first rule matches nothing and stays, so that the labels'
/// priority is the same with and without the deleted rules.
fn rules_file(rules: &[(usize, Re)], deleted: &[usize]) -> String {
    let mut text = String::from("default c\na: never\nb: never\nc: never\n");
    for (index, (label, re)) in rules.iter().enumerate() {
        if !deleted.contains(&index) {
            text.push_str(&format!("{}: {}", ["a", "b", "c"][*label], re.rules()));
        }
        text.push('\n');
    }
    text
}

fn compile_text(text: &str) -> RuleSystem {
    let parse = rulelens::syntax::parse(text);
    let (rules, _) = rulelens::syntax::lower(&parse, text);
    rulelens::automata::compile(&rules, &CompileConfig::default()).0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// (e) Leaving rules out is deleting them: the same prediction, labels fired and rules
    /// fired (by line) on every sentence.
    #[test]
    fn a_system_without_rules_classifies_as_the_file_without_them(
        rules in vec((0..3usize, pattern_strategy()), 1..6),
        left_out in vec(any::<bool>(), 6),
        sentences in vec(vec(0..POOL.len(), 0..8), 1..8),
    ) {
        let deleted: Vec<usize> = (0..rules.len()).filter(|&i| left_out[i]).collect();
        let full = compile_text(&rules_file(&rules, &[]));
        // The three rules that match nothing come first.
        let without = full.without_rules(&deleted.iter().map(|i| i + 3).collect::<Vec<_>>());
        let expected = compile_text(&rules_file(&rules, &deleted));
        prop_assert_eq!(without.rules().len(), expected.rules().len());
        for tokens in &sentences {
            let text = Sentence { tokens: tokens.clone(), upper: Vec::new() }.text();
            let (got, want) = (without.classify(&text), expected.classify(&text));
            prop_assert_eq!(got.prediction, want.prediction, "{:?} on {:?}", deleted, text);
            prop_assert_eq!(&got.fired, &want.fired);
            // The label formulas, which the network's aggregation is built from, agree too.
            for (c, &fired) in want.fired.iter().enumerate() {
                let formula = without.label_formula(LabelId(c as u32));
                prop_assert_eq!(formula.eval(&|p: PatternId| got.matched[p.index()]), fired);
            }
            let lines = |system: &RuleSystem, fired: &[usize]| -> Vec<u32> {
                fired.iter().map(|&r| system.rules()[r].line).collect()
            };
            prop_assert_eq!(lines(&without, &got.rules_fired), lines(&expected, &want.rules_fired));
        }
    }
}
