//! Semantic highlighting: every keyword, name, literal, operator and comment of a rules
//! file, classified by what the parser made of it.
//!
//! Names come from the syntax tree, so a keyword is highlighted as a keyword only where the
//! parser read it as one (`default: …` is the label `default`). Operators, quantifiers and
//! literals come from lexing each statement again in the parser's modes (see
//! [`super::positions::layout`]), and comments from [`Parse::comments`](crate::syntax::Parse::comments).
//!
//! Broken lines: a line that is not a statement gets no tokens but its comment, and within a
//! statement no token is given to a lexeme the parser rejected: one inside an `Error` node of
//! the tree or inside the range of a syntax diagnostic (an unterminated string, a stray `)`,
//! a quantifier with nothing to repeat, an invalid `{m,n}`). Literals the tokenizer cannot
//! produce (`FREE`) stay words: that problem is the name checks' diagnostic, not a syntax
//! error. Linear in the size of the file, plus a sort of the tokens.
//! Deliberately not here: the LSP encoding (relative positions, legend indices, UTF-16).

use super::positions::{Layout, NameKind, definitions, layout, occurrences, regex_lexemes};
use crate::rules_file::RulesFile;
use crate::syntax::ast::{self, FormulaKind, RegexKind, StatementKind};
use crate::syntax::lexer::{LexemeKind, Mode, lex};
use text_size::TextRange;

/// What a highlighted piece of a rules file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenClass {
    /// `default`, `corpus`, `pattern`, `words` where they start a statement, and `from`.
    Keyword,
    Label,
    /// A pattern name where it is defined (`definition`) or used in a formula.
    Pattern,
    /// The name of a corpus binding.
    Corpus,
    /// A word list's name where it is defined (`definition`) or used (`@NAME`).
    WordList,
    /// A bare literal word in a regex.
    Word,
    /// A quoted literal in a regex, or a corpus path.
    String,
    /// `$`, `%`, `&` in a regex.
    Wildcard,
    /// `*`, `+`, `?`, and `{`, the counts, `,` and `}` of `{m,n}`.
    Quantifier,
    /// `|` and parentheses in a regex; `!`, `&`, `|` and parentheses in a formula; `=`, `:`,
    /// `<-`.
    Operator,
    Comment,
}

/// One highlighted range: within one line, on char boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemanticToken {
    pub range: TextRange,
    pub class: TokenClass,
    /// Where a name is defined: `pattern NAME = …`, a label's first occurrence, a corpus
    /// binding.
    pub definition: bool,
}

/// The semantic tokens of a rules file, sorted and non-overlapping.
///
/// ```
/// use rulelens::ide::{semantic_tokens, TokenClass};
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// let file = RulesFile::analyze(SourceText::from_bytes(b"spam: $* free $* # hi\n"), None, &Default::default());
/// let classes: Vec<TokenClass> = semantic_tokens(&file).iter().map(|t| t.class).collect();
/// use TokenClass::*;
/// assert_eq!(classes, [Label, Operator, Wildcard, Quantifier, Word, Wildcard, Quantifier, Comment]);
/// ```
pub fn semantic_tokens(file: &RulesFile) -> Vec<SemanticToken> {
    let text = file.source.text.as_str();
    let occurrences = occurrences(&file.parse.file);
    let definitions = definitions(&occurrences);
    let is_first = |name: &ast::Name| {
        definitions.get(&(NameKind::Label, name.text.as_str())) == Some(&name.range)
    };
    let mut tokens = Tokens::default();
    // The diagnostics of the parser mark what it rejected; the name checks' do not.
    tokens.rejected.extend(
        file.parse
            .diagnostics
            .iter()
            .map(|d| d.range)
            .filter(|r| !r.is_empty()),
    );
    for statement in &file.parse.file.statements {
        let Layout {
            keyword,
            operator,
            body_start,
        } = layout(text, statement);
        if let Some(keyword) = keyword {
            tokens.push(keyword, TokenClass::Keyword, false);
        }
        match &statement.kind {
            StatementKind::Default { label } => {
                if let Some(label) = label {
                    tokens.push(label.range, TokenClass::Label, is_first(label));
                }
            }
            StatementKind::Corpus { name, path } => {
                if let Some(name) = name {
                    tokens.push(name.range, TokenClass::Corpus, true);
                }
                if let Some(path) = path {
                    tokens.push(path.range, TokenClass::String, false);
                }
            }
            StatementKind::Pattern { name, regex } => {
                if let Some(name) = name {
                    tokens.push(name.range, TokenClass::Pattern, true);
                }
                tokens.push_operator(operator);
                if let (Some(regex), Some(start)) = (regex, body_start) {
                    tokens.regex(text, regex, start);
                }
            }
            StatementKind::LabelRegex { label, regex } => {
                tokens.push(label.range, TokenClass::Label, is_first(label));
                tokens.push_operator(operator);
                if let (Some(regex), Some(start)) = (regex, body_start) {
                    tokens.regex(text, regex, start);
                }
            }
            StatementKind::LabelFormula { label, formula } => {
                tokens.push(label.range, TokenClass::Label, is_first(label));
                tokens.push_operator(operator);
                if let (Some(formula), Some(start)) = (formula, body_start) {
                    tokens.formula(text, formula, start);
                }
            }
            StatementKind::Words { name, body } => {
                if let Some(name) = name {
                    tokens.push(name.range, TokenClass::WordList, true);
                }
                match body {
                    Some(ast::WordsBody::Inline(regex)) => {
                        tokens.push_operator(operator);
                        if let Some(start) = body_start {
                            tokens.regex(text, regex, start);
                        }
                    }
                    Some(ast::WordsBody::File(path)) => {
                        if let Some(from) = operator {
                            tokens.push(from, TokenClass::Keyword, false);
                        }
                        tokens.push(path.range, TokenClass::String, false);
                    }
                    None => {}
                }
            }
        }
    }
    let mut res = tokens.finish();
    res.extend(file.parse.comments.iter().map(|&range| SemanticToken {
        range,
        class: TokenClass::Comment,
        definition: false,
    }));
    res.sort_by_key(|token| token.range.start());
    // Comments never overlap lexemes; this keeps the promise should that ever change.
    let mut end = 0.into();
    res.retain(|token| {
        let keep = token.range.start() >= end && !token.range.is_empty();
        if keep {
            end = token.range.end();
        }
        keep
    });
    res
}

#[derive(Default)]
struct Tokens {
    tokens: Vec<SemanticToken>,
    /// What the parser rejected: syntax diagnostics and `Error` nodes.
    rejected: Vec<TextRange>,
}

impl Tokens {
    fn push(&mut self, range: TextRange, class: TokenClass, definition: bool) {
        self.tokens.push(SemanticToken {
            range,
            class,
            definition,
        });
    }

    fn push_operator(&mut self, operator: Option<TextRange>) {
        if let Some(range) = operator {
            self.push(range, TokenClass::Operator, false);
        }
    }

    fn regex(&mut self, text: &str, regex: &ast::Regex, start: usize) {
        regex_errors(regex, &mut self.rejected);
        for lexeme in regex_lexemes(text, start) {
            let class = match lexeme.kind {
                LexemeKind::Word => TokenClass::Word,
                LexemeKind::WordListRef => TokenClass::WordList,
                LexemeKind::String => TokenClass::String,
                LexemeKind::Dollar | LexemeKind::Percent | LexemeKind::Amp => TokenClass::Wildcard,
                LexemeKind::Star
                | LexemeKind::Plus
                | LexemeKind::Question
                | LexemeKind::LBrace
                | LexemeKind::RBrace
                | LexemeKind::Int
                | LexemeKind::Comma => TokenClass::Quantifier,
                LexemeKind::LParen | LexemeKind::RParen | LexemeKind::Pipe => TokenClass::Operator,
                _ => continue,
            };
            self.push(lexeme.range, class, false);
        }
    }

    fn formula(&mut self, text: &str, formula: &ast::Formula, start: usize) {
        formula_errors(formula, &mut self.rejected);
        let mut pos = start;
        loop {
            let lexeme = lex(text, pos, Mode::Head);
            if lexeme.range.end() > formula.range.end()
                || matches!(lexeme.kind, LexemeKind::Newline | LexemeKind::Eof)
            {
                return;
            }
            pos = usize::from(lexeme.range.end());
            let class = match lexeme.kind {
                LexemeKind::Ident => TokenClass::Pattern,
                LexemeKind::Bang
                | LexemeKind::Amp
                | LexemeKind::Pipe
                | LexemeKind::LParen
                | LexemeKind::RParen => TokenClass::Operator,
                _ => continue,
            };
            self.push(lexeme.range, class, false);
        }
    }

    /// The tokens, sorted, without those inside a rejected range.
    fn finish(mut self) -> Vec<SemanticToken> {
        self.tokens.sort_by_key(|token| token.range.start());
        self.rejected.sort_by_key(|range| range.start());
        // A token lies inside some rejected range exactly when the furthest end among the
        // rejected ranges starting at or before it reaches its end.
        let mut rejected = self.rejected.iter().peekable();
        let mut furthest = None;
        self.tokens.retain(|token| {
            while let Some(range) = rejected.next_if(|r| r.start() <= token.range.start()) {
                furthest = furthest.max(Some(range.end()));
            }
            furthest.is_none_or(|end| end < token.range.end())
        });
        self.tokens
    }
}

/// The non-empty `Error` nodes of a regex (depth bounded by the parser's nesting caps).
fn regex_errors(regex: &ast::Regex, res: &mut Vec<TextRange>) {
    match &regex.kind {
        RegexKind::Error if !regex.range.is_empty() => res.push(regex.range),
        RegexKind::Concat(items) | RegexKind::Alt(items) => {
            items.iter().for_each(|item| regex_errors(item, res))
        }
        RegexKind::Repeat { inner, .. } => regex_errors(inner, res),
        _ => {}
    }
}

fn formula_errors(formula: &ast::Formula, res: &mut Vec<TextRange>) {
    match &formula.kind {
        FormulaKind::Error if !formula.range.is_empty() => res.push(formula.range),
        FormulaKind::Not(inner) => formula_errors(inner, res),
        FormulaKind::And(items) | FormulaKind::Or(items) => {
            items.iter().for_each(|item| formula_errors(item, res))
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::testing::rules_of;

    /// Each line that has tokens, as `class(text)` per token; `*` marks definitions.
    fn check_semantic_tokens(text: &str, expected: &str) {
        let file = rules_of(text);
        let tokens = semantic_tokens(&file);
        let mut end = 0.into();
        for token in &tokens {
            assert!(
                token.range.start() >= end,
                "sorted and disjoint: {tokens:?}"
            );
            assert!(!token.range.is_empty());
            end = token.range.end();
            let token_text = text
                .get(std::ops::Range::<usize>::from(token.range))
                .expect("in the text, on char boundaries");
            assert!(!token_text.contains('\n'), "within one line: {token:?}");
        }
        let mut lines: Vec<String> = Vec::new();
        let mut line_start = 0usize;
        for line in text.split('\n') {
            let line_end = line_start + line.len();
            let rendered: Vec<String> = tokens
                .iter()
                .filter(|t| {
                    let start = usize::from(t.range.start());
                    line_start <= start && start < line_end
                })
                .map(|t| {
                    let class = format!("{:?}", t.class).to_lowercase();
                    let star = if t.definition { "*" } else { "" };
                    format!("{class}{star}({})", &text[t.range])
                })
                .collect();
            if !rendered.is_empty() {
                lines.push(rendered.join(" "));
            }
            line_start = line_end + 1;
        }
        assert_eq!(lines.join("\n"), expected, "semantic tokens of {text:?}");
    }

    #[test]
    fn every_statement_kind() {
        check_semantic_tokens(
            "default ham\ncorpus train \"data/train.tsv\"\npattern p = ( hi | \"!\" ) $* % & + ?\nspam: $* p{1,3} $*\nspam <- !p & (q | p)\n",
            "keyword(default) label*(ham)\n\
             keyword(corpus) corpus*(train) string(\"data/train.tsv\")\n\
             keyword(pattern) pattern*(p) operator(=) operator(() word(hi) operator(|) string(\"!\") operator()) wildcard($) quantifier(*) wildcard(%) wildcard(&) quantifier(+) quantifier(?)\n\
             label*(spam) operator(:) wildcard($) quantifier(*) word(p) quantifier({) quantifier(1) quantifier(,) quantifier(3) quantifier(}) wildcard($) quantifier(*)\n\
             label(spam) operator(<-) operator(!) pattern(p) operator(&) operator(() pattern(q) operator(|) pattern(p) operator())",
        );
    }

    #[test]
    fn comments_anywhere_but_in_strings() {
        check_semantic_tokens(
            "# a file\n  # indented\nspam: \"#\" $*   # after a regex\nspam <- p # after a formula\nnot a statement # still a comment\n",
            "comment(# a file)\n\
             comment(# indented)\n\
             label*(spam) operator(:) string(\"#\") wildcard($) quantifier(*) comment(# after a regex)\n\
             label(spam) operator(<-) pattern(p) comment(# after a formula)\n\
             comment(# still a comment)",
        );
        // CRLF: the `\r` is not part of the comment.
        check_semantic_tokens(
            "# c\r\nham: x\r\n",
            "comment(# c)\nlabel*(ham) operator(:) word(x)",
        );
    }

    #[test]
    fn keywords_only_where_the_parser_reads_them() {
        check_semantic_tokens(
            "default: $* default $*\ndefault default\npattern pattern = corpus\ncorpus <- pattern\n",
            "label*(default) operator(:) wildcard($) quantifier(*) word(default) wildcard($) quantifier(*)\n\
             keyword(default) label(default)\n\
             keyword(pattern) pattern*(pattern) operator(=) word(corpus)\n\
             label*(corpus) operator(<-) pattern(pattern)",
        );
    }

    #[test]
    fn broken_lines_get_no_lying_tokens() {
        check_semantic_tokens(
            "spam ham eggs # c\n\
             spam: $* \"unterminated # no comment\n\
             spam: ) * x{5,2} y{a} z\n\
             default ham extra\n\
             pattern p $* x\n\
             corpus train data.tsv\n\
             spam <- p q ) r\n\
             spam <- (p & \"s\"\n",
            "comment(# c)\n\
             label*(spam) operator(:) wildcard($) quantifier(*)\n\
             label(spam) operator(:) word(z)\n\
             keyword(default) label*(ham)\n\
             keyword(pattern) pattern*(p) word(x)\n\
             keyword(corpus) corpus*(train)\n\
             label(spam) operator(<-) pattern(p)\n\
             label(spam) operator(<-) pattern(p) operator(&)",
        );
    }

    #[test]
    fn multibyte_text() {
        // The first line is no statement: `😀` cannot be part of a label.
        check_semantic_tokens(
            "spam😀: é\nspam: $* \"£\" café 😀 $* # ünï\n",
            "label*(spam) operator(:) wildcard($) quantifier(*) string(\"£\") word(café) word(😀) wildcard($) quantifier(*) comment(# ünï)",
        );
    }

    #[test]
    fn unknown_names_and_literals_keep_their_class() {
        // `q` is undefined and `FREE` unproducible: name-check diagnostics, not syntax errors.
        check_semantic_tokens(
            "spam <- q\nham: FREE\n",
            "label*(spam) operator(<-) pattern(q)\nlabel*(ham) operator(:) word(FREE)",
        );
    }
}
