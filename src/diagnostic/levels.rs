//! What a rule author asks of each lint: allow it (not shown), warn, or deny it (shown as an
//! error, so that `rulelens check` fails). Two sources, as rustc has: [`LintLevels`] from the
//! command line's `--allow/--warn/--deny` or the server's `lints` setting, and `# rulelens:
//! allow(CODE, …)` comments in the rules file (`syntax::allow`), which win over the first,
//! as `#[allow]` wins over `-D warnings`. Errors are never lints: they cannot be allowed.

use super::{Code, Diagnostic, Severity};

/// What to do with a lint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// Not shown.
    Allow,
    /// Shown with the code's own severity.
    Warn,
    /// Shown as an error.
    Deny,
}

/// What a level applies to; in settings, its text (`W0306`, `shadowed-rule`, `warnings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum LintTarget {
    /// One code (a warning, an information or a hint; never an error).
    Code(Code),
    /// Every code that is not an error: `warnings`, as rustc names the group.
    Warnings,
}

impl LintTarget {
    /// `W0306`, `shadowed-rule` (a code or its name) or `warnings`.
    pub fn parse(text: &str) -> Result<LintTarget, String> {
        if text == "warnings" {
            return Ok(LintTarget::Warnings);
        }
        let code = Code::parse(text).ok_or_else(|| {
            format!("`{text}` is no diagnostic code (`W0306`, `shadowed-rule`) nor `warnings`")
        })?;
        if code.default_severity() == Severity::Error {
            return Err(format!(
                "{} ({}) is an error, which cannot be allowed, warned or denied",
                code.as_str(),
                code.name()
            ));
        }
        Ok(LintTarget::Code(code))
    }

    /// The code as printed, or `warnings`.
    pub fn as_str(self) -> &'static str {
        match self {
            LintTarget::Code(code) => code.as_str(),
            LintTarget::Warnings => "warnings",
        }
    }

    fn covers(self, code: Code) -> bool {
        match self {
            LintTarget::Code(target) => target == code,
            LintTarget::Warnings => code.default_severity() != Severity::Error,
        }
    }
}

impl TryFrom<String> for LintTarget {
    type Error = String;

    fn try_from(text: String) -> Result<LintTarget, String> {
        LintTarget::parse(&text)
    }
}

impl From<LintTarget> for String {
    fn from(target: LintTarget) -> String {
        target.as_str().to_string()
    }
}

/// The three lists of lint levels: the command line's `--allow/--warn/--deny` and the
/// server's `lints` setting. Each is a code as printed (`W0306`), its name
/// (`shadowed-rule`) or `warnings`; the rules file's `# rulelens: allow(…)` comments win.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::Args,
)]
#[serde(default)]
pub struct LintLists {
    /// Do not show this lint (repeatable).
    #[arg(long, value_name = "CODE", value_parser = LintTarget::parse)]
    pub allow: Vec<LintTarget>,
    /// Show this lint with its own severity, over `--allow warnings` or `--deny warnings`
    /// (repeatable).
    #[arg(long, value_name = "CODE", value_parser = LintTarget::parse)]
    pub warn: Vec<LintTarget>,
    /// Show this lint as an error, so that the command exits with 1 (repeatable);
    /// `--deny warnings` for every lint.
    #[arg(long, value_name = "CODE", value_parser = LintTarget::parse)]
    pub deny: Vec<LintTarget>,
}

impl LintLists {
    /// The levels these lists set.
    pub fn levels(&self) -> LintLevels {
        LintLevels::new(&self.allow, &self.warn, &self.deny)
    }
}

/// Levels for lints, later settings winning over earlier ones, and a code's own over
/// `warnings` whatever their order, as in rustc.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LintLevels {
    settings: Vec<(LintTarget, Level)>,
}

impl LintLevels {
    /// Adds a setting.
    pub fn set(&mut self, target: LintTarget, level: Level) {
        self.settings.push((target, level));
    }

    /// Levels from three lists (`--allow`, `--warn`, `--deny`); a target in two lists gets
    /// the later list's level.
    pub fn new(allow: &[LintTarget], warn: &[LintTarget], deny: &[LintTarget]) -> LintLevels {
        let mut levels = LintLevels::default();
        for (list, level) in [
            (allow, Level::Allow),
            (warn, Level::Warn),
            (deny, Level::Deny),
        ] {
            for &target in list {
                levels.set(target, level);
            }
        }
        levels
    }

    /// The level of `code`, if any setting covers it.
    pub fn level(&self, code: Code) -> Option<Level> {
        let own = self
            .settings
            .iter()
            .rev()
            .find(|(target, _)| *target == LintTarget::Code(code));
        own.or_else(|| {
            self.settings
                .iter()
                .rev()
                .find(|(target, _)| target.covers(code))
        })
        .map(|&(_, level)| level)
    }

    /// Drops the allowed diagnostics and makes the denied ones errors; errors stay as they
    /// are.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        if self.settings.is_empty() {
            return;
        }
        diagnostics.retain_mut(|diagnostic| {
            if diagnostic.code.default_severity() == Severity::Error {
                return true;
            }
            match self.level(diagnostic.code) {
                Some(Level::Allow) => false,
                Some(Level::Deny) => {
                    diagnostic.severity = Severity::Error;
                    true
                }
                Some(Level::Warn) => {
                    diagnostic.severity = diagnostic.code.default_severity();
                    true
                }
                None => true,
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use text_size::TextRange;

    fn diagnostic(code: Code) -> Diagnostic {
        Diagnostic::new(code, TextRange::default(), "")
    }

    #[test]
    fn a_codes_own_level_wins_over_warnings_and_errors_stay_errors() {
        let parse = |text| LintTarget::parse(text).unwrap();
        let levels = LintLevels::new(
            &[parse("W0306")],
            &[parse("unused-pattern")],
            &[parse("warnings")],
        );
        let mut all = vec![
            diagnostic(Code::ShadowedRule),
            diagnostic(Code::UnusedPattern),
            diagnostic(Code::MissingDefault),
            diagnostic(Code::UnknownPattern),
        ];
        levels.apply(&mut all);
        let seen: Vec<(Code, Severity)> = all.iter().map(|d| (d.code, d.severity)).collect();
        assert_eq!(
            seen,
            [
                (Code::UnusedPattern, Severity::Warning),
                (Code::MissingDefault, Severity::Error),
                (Code::UnknownPattern, Severity::Error),
            ]
        );
    }

    #[test]
    fn errors_and_unknown_codes_are_refused() {
        assert!(
            LintTarget::parse("E0201")
                .unwrap_err()
                .contains("is an error")
        );
        assert!(
            LintTarget::parse("W9999")
                .unwrap_err()
                .contains("no diagnostic code")
        );
        assert_eq!(
            LintTarget::parse("overlapping-rules"),
            Ok(LintTarget::Code(Code::OverlappingRules))
        );
    }
}
