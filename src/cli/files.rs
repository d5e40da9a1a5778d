//! Reading a rules file and running the front end on it, and printing diagnostics, for the
//! commands that start from a rules file.

use anyhow::Context;
use rulelens::automata::{CompileConfig, RuleSystem, compile};
use rulelens::diagnostic::{Code, Diagnostic, render};
use rulelens::syntax::{RuleSet, lower, parse};
use rulelens::text::{LineIndex, SourceText};
use serde_json::{Value, json};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// A file's text with its line index, for rendering diagnostics.
pub struct SourceFile {
    pub path: PathBuf,
    pub source: SourceText,
    pub index: LineIndex,
}

impl SourceFile {
    pub fn new(path: &Path, source: SourceText) -> SourceFile {
        let index = LineIndex::new(&source.text);
        SourceFile {
            path: path.to_path_buf(),
            source,
            index,
        }
    }

    fn display_path(&self) -> String {
        self.path.display().to_string()
    }
}

/// A rules file through parse, name resolution and compilation.
pub struct LoadedRules {
    pub file: SourceFile,
    pub rules: RuleSet,
    pub system: RuleSystem,
    /// Every diagnostic on the rules file, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

pub fn load_rules(path: &Path, config: &CompileConfig) -> anyhow::Result<LoadedRules> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    anyhow::ensure!(
        bytes.len() < (u32::MAX / 2) as usize,
        "{}: a rules file must be smaller than 2 GiB",
        path.display()
    );
    let source = SourceText::from_bytes(&bytes);
    let mut diagnostics: Vec<Diagnostic> = source
        .invalid_utf8
        .iter()
        .map(|&range| {
            Diagnostic::new(Code::InvalidUtf8, range, "invalid UTF-8")
                .with_help("save the file as UTF-8")
        })
        .collect();
    let parse = parse(&source.text);
    let (rules, names) = lower(&parse, &source.text);
    let (system, compiled) = compile(&rules, config);
    diagnostics.extend(parse.diagnostics);
    diagnostics.extend(names);
    diagnostics.extend(compiled);
    diagnostics.extend(rulelens::corpus::check_bindings(path, &rules));
    diagnostics.sort_by_key(|d| (d.range.start(), d.range.end()));
    Ok(LoadedRules {
        file: SourceFile::new(path, source),
        rules,
        system,
        diagnostics,
    })
}

/// Whether to color what goes to stderr.
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// How many diagnostics of one file the text output prints.
const MAX_PRINTED: usize = 100;

/// Prints diagnostics rustc-style on stderr, at most [`MAX_PRINTED`] per file.
pub fn print_diagnostics(file: &SourceFile, diagnostics: &[Diagnostic]) {
    let color = stderr_color();
    let path = file.display_path();
    for diagnostic in diagnostics.iter().take(MAX_PRINTED) {
        eprintln!(
            "{}",
            render(diagnostic, &path, &file.source.text, &file.index, color)
        );
    }
    if diagnostics.len() > MAX_PRINTED {
        eprintln!(
            "note: {} more diagnostics in {} not shown (use --format json to see all)\n",
            diagnostics.len() - MAX_PRINTED,
            path
        );
    }
}

/// One diagnostic as JSON, with 1-based lines and char columns and byte offsets.
pub fn diagnostic_json(file: &SourceFile, diagnostic: &Diagnostic) -> Value {
    let text = &file.source.text;
    let position = |offset| {
        let at = file.index.to_chars(text, offset);
        json!({ "line": at.line + 1, "column": at.col + 1 })
    };
    let start = file.index.to_chars(text, diagnostic.range.start());
    let end = file.index.to_chars(text, diagnostic.range.end());
    json!({
        "file": file.display_path(),
        "code": diagnostic.code.as_str(),
        "name": diagnostic.code.name(),
        "severity": diagnostic.severity.as_str(),
        "message": diagnostic.message,
        "help": diagnostic.help,
        "line": start.line + 1,
        "column": start.col + 1,
        "end_line": end.line + 1,
        "end_column": end.col + 1,
        "start": u32::from(diagnostic.range.start()),
        "end": u32::from(diagnostic.range.end()),
        "related": diagnostic.related.iter().map(|related| {
            let mut value = position(related.range.start());
            value["message"] = json!(related.message);
            value
        }).collect::<Vec<_>>(),
    })
}

/// "2 errors, 1 warning" for a summary line; `None` when there is nothing to say.
pub fn summary(diagnostics: &[&Diagnostic]) -> Option<String> {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let others = diagnostics.len() - errors;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (errors, others) {
        (0, 0) => None,
        (0, w) => Some(plural(w, "warning")),
        (e, 0) => Some(plural(e, "error")),
        (e, w) => Some(format!("{}, {}", plural(e, "error"), plural(w, "warning"))),
    }
}
