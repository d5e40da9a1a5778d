//! Printing a regular expression in the `.rules` syntax, with the fewest parentheses the
//! precedence needs (`|` < juxtaposition < postfix quantifiers); groups get spaces inside,
//! `( a | b )`, as the bundled rules files write them. Parsing the output gives back a
//! tree with the same language (quoted literals the bare syntax can spell come out bare)
//! in the same file: a word list prints as its name, `@cities`; [`regex_key`] adds what
//! the lists hold.

use super::ast::{Regex, RegexKind};
use crate::text::{TokenKind, tokenize};

/// The regex in `.rules` syntax.
///
/// ```
/// let text = "x: $* ( won | win ) \"!\"{1,3} $*\n";
/// let parse = rulelens::syntax::parse(text);
/// let rulelens::syntax::ast::StatementKind::LabelRegex { regex: Some(regex), .. } =
///     &parse.file.statements[0].kind else { panic!() };
/// assert_eq!(rulelens::syntax::print_regex(regex), "$* ( won | win ) \"!\"{1,3} $*");
/// ```
pub fn print_regex(regex: &Regex) -> String {
    let mut out = String::new();
    write(&mut out, regex, Context::Top);
    out
}

/// What identifies a regex's language across edits: the regex as printed, followed by the
/// fingerprint of each word list it uses, since `@cities` prints the same whatever the list
/// holds. Equal keys match the same sentences.
pub fn regex_key(regex: &Regex) -> String {
    let mut key = print_regex(regex);
    regex.visit(&mut |node| {
        if let RegexKind::WordList(reference) = &node.kind {
            let fingerprint = reference
                .list
                .as_ref()
                .map_or("-", |list| list.fingerprint.as_str());
            key.push_str(&format!(" @{}={fingerprint}", reference.name));
        }
    });
    key
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Top,
    Concat,
    Postfix,
}

fn write(out: &mut String, regex: &Regex, context: Context) {
    match &regex.kind {
        RegexKind::Word(text) => out.push_str(text),
        RegexKind::Quoted(text) => {
            // A quoted literal that the bare syntax can spell is printed bare.
            let tokens = tokenize(text);
            let bare = tokens.len() == 1
                && tokens
                    .get(0)
                    .is_some_and(|t| t.kind != TokenKind::Punct && t.text == text);
            if bare {
                out.push_str(text);
            } else {
                out.push('"');
                out.push_str(&text.replace('\\', "\\\\").replace('"', "\\\""));
                out.push('"');
            }
        }
        RegexKind::Any => out.push('$'),
        RegexKind::Number => out.push('%'),
        RegexKind::Punct => out.push('&'),
        RegexKind::Error => out.push_str("( )"),
        RegexKind::WordList(list) => {
            out.push('@');
            out.push_str(&list.name);
        }
        RegexKind::Concat(items) => {
            let group = context == Context::Postfix;
            if group {
                out.push_str("( ");
            }
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write(out, item, Context::Concat);
            }
            if group {
                out.push_str(" )");
            }
        }
        RegexKind::Alt(branches) => {
            let group = context != Context::Top;
            if group {
                out.push_str("( ");
            }
            for (i, branch) in branches.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                write(out, branch, Context::Top);
            }
            if group {
                out.push_str(" )");
            }
        }
        RegexKind::Repeat { inner, min, max } => {
            write(out, inner, Context::Postfix);
            match (min, max) {
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (0, Some(1)) => out.push('?'),
                // At least m: the syntax has no `{m,}`, so `x{m} x*`.
                (m, None) => {
                    out.push_str(&format!("{{{m}}} "));
                    write(out, inner, Context::Postfix);
                    out.push('*');
                }
                (m, Some(n)) if m == n => out.push_str(&format!("{{{m}}}")),
                (m, Some(n)) => out.push_str(&format!("{{{m},{n}}}")),
            }
        }
    }
}
