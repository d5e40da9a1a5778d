//! `# rulelens: allow(CODE, …)` comments. On a statement's line, or on lines of their own
//! just above it, they allow the lints they name on that statement; before the first
//! statement, on the whole file (as rustc's `#![allow]` at a crate's top). A code is written
//! as printed (`W0306`) or by its name (`shadowed-rule`); `warnings` allows every lint.
//! Errors cannot be allowed. A directive that names no lint, or is malformed, is W0111.

use super::parser::Parse;
use crate::diagnostic::{Code, Diagnostic, LintTarget};
use text_size::{TextRange, TextSize};

/// What the file's allow comments allow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InlineAllows {
    /// Allowed everywhere in the file.
    file: Vec<LintTarget>,
    /// Allowed on the statement of each range.
    statements: Vec<(TextRange, Vec<LintTarget>)>,
}

impl InlineAllows {
    /// The allow comments of a parsed text, and W0111 for the malformed ones.
    pub fn of(parse: &Parse, text: &str) -> (InlineAllows, Vec<Diagnostic>) {
        let mut allows = InlineAllows::default();
        let mut diagnostics = Vec::new();
        let statements = &parse.file.statements;
        let line_start = |offset: TextSize| {
            let offset = usize::from(offset);
            text[..offset].rfind('\n').map_or(0, |i| i + 1)
        };
        for &comment in &parse.comments {
            let body = text[comment].trim_start_matches('#').trim();
            let Some(directive) = body.strip_prefix("rulelens:") else {
                continue;
            };
            let targets = match parse_allow(directive.trim()) {
                Ok(targets) => targets,
                Err(message) => {
                    diagnostics.push(
                        Diagnostic::new(Code::InvalidAllow, comment, message).with_help(
                            "write `# rulelens: allow(W0306)` or `# rulelens: allow(shadowed-rule, W0307)`",
                        ),
                    );
                    continue;
                }
            };
            let first = statements.first().map(|s| s.range.start());
            if first.is_none_or(|first| comment.start() < first) {
                allows.file.extend(targets);
                continue;
            }
            // A statement on the comment's own line, else the next one.
            let on_line = statements.iter().find(|s| {
                s.range.start() < comment.start()
                    && line_start(s.range.start()) == line_start(comment.start())
            });
            let next = statements
                .iter()
                .find(|s| s.range.start() > comment.start());
            match on_line.or(next) {
                Some(statement) => allows.statements.push((statement.range, targets)),
                None => diagnostics.push(Diagnostic::new(
                    Code::InvalidAllow,
                    comment,
                    "this allow comment has no statement after it to apply to",
                )),
            }
        }
        (allows, diagnostics)
    }

    /// Whether the comments allow `diagnostic` (never an error).
    pub fn allows(&self, diagnostic: &Diagnostic) -> bool {
        if diagnostic.code.default_severity() == crate::diagnostic::Severity::Error {
            return false;
        }
        let covers = |targets: &[LintTarget]| {
            targets.iter().any(|target| match target {
                LintTarget::Code(code) => *code == diagnostic.code,
                LintTarget::Warnings => true,
            })
        };
        covers(&self.file)
            || self
                .statements
                .iter()
                .any(|(range, targets)| range.contains(diagnostic.range.start()) && covers(targets))
    }
}

/// The targets of `allow(A, B)`.
fn parse_allow(directive: &str) -> Result<Vec<LintTarget>, String> {
    let inner = directive
        .strip_prefix("allow")
        .map(str::trim_start)
        .and_then(|rest| rest.strip_prefix('('))
        .and_then(|rest| rest.trim_end().strip_suffix(')'))
        .ok_or_else(|| format!("`rulelens: {directive}` is no directive: only `allow(…)` is"))?;
    let targets: Vec<LintTarget> = inner
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(LintTarget::parse)
        .collect::<Result<_, _>>()?;
    if targets.is_empty() {
        return Err("`allow()` names no lint".to_string());
    }
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Code;
    use crate::ide::testing::rules_of;

    fn codes(text: &str) -> Vec<(&'static str, u32)> {
        let file = rules_of(text);
        file.diagnostics
            .iter()
            .map(|d| {
                (
                    d.code.as_str(),
                    file.line_index.line_col(d.range.start()).line + 1,
                )
            })
            .collect()
    }

    /// Two rules of one language: the second is W0304 and W0307 where nothing is allowed.
    const DUPLICATE: &str = "spam: $* free $*\nspam: $* free $*\n";

    #[test]
    fn a_comment_allows_its_statements_lints_and_no_others() {
        let plain = codes(&format!("default ham\n{DUPLICATE}"));
        assert!(plain.contains(&("W0304", 3)), "{plain:?}");
        // Trailing, by code and by name.
        let trailing = codes(
            "default ham\nspam: $* free $*\nspam: $* free $*   # rulelens: allow(W0304, redundant-rule)\n",
        );
        assert!(!trailing.iter().any(|&(_, line)| line == 3), "{trailing:?}");
        // On its own line above the statement; the lines after are not covered.
        let above = codes(&format!(
            "default ham\n# rulelens: allow(warnings)\n{DUPLICATE}spam: $* free $*\n"
        ));
        assert!(!above.iter().any(|&(_, line)| line == 3), "{above:?}");
        assert!(above.iter().any(|&(_, line)| line == 5), "{above:?}");
    }

    #[test]
    fn a_comment_before_the_first_statement_allows_in_the_whole_file() {
        let file = rules_of(&format!(
            "# The SMS rules.\n# rulelens: allow(W0304, W0307, W0303)\n{DUPLICATE}"
        ));
        assert!(file.diagnostics.is_empty(), "{:?}", file.diagnostics);
        // Later findings too, but not the codes it does not name.
        let finding = |code| crate::diagnostic::Diagnostic::new(code, Default::default(), "");
        assert!(file.allows.allows(&finding(Code::RedundantRule)));
        assert!(!file.allows.allows(&finding(Code::NeverMatches)));
    }

    #[test]
    fn errors_unknown_codes_and_other_directives_are_w0111_and_allow_nothing() {
        for directive in [
            "allow(E0201)",
            "allow(W9999)",
            "allow()",
            "deny(W0304)",
            "allow W0304",
        ] {
            let found = codes(&format!(
                "default ham\n# rulelens: {directive}\nspam <- nosuch\n{DUPLICATE}"
            ));
            assert!(found.contains(&("W0111", 2)), "{directive}: {found:?}");
            assert!(found.contains(&("E0201", 3)), "{directive}: {found:?}");
        }
        let trailing = codes(&format!(
            "default ham\n{DUPLICATE}# rulelens: allow(W0304)\n"
        ));
        assert!(trailing.contains(&("W0111", 4)), "{trailing:?}");
        assert!(trailing.contains(&("W0304", 3)), "{trailing:?}");
    }
}
