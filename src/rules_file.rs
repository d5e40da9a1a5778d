//! A rules file through the whole front end: decoding, parsing, name resolution,
//! compilation, language checks and corpus-binding checks, with every diagnostic in
//! source order.
//!
//! This is what `rulelens check`, `rulelens dot` and the tests start from. It sits above
//! `syntax`, `corpus` and `automata` in the layer order and adds no analysis of its own.

use crate::automata::{CompileConfig, RuleSystem, compile};
use crate::diagnostic::{Code, Diagnostic};
use crate::limits::{Limit, ReadLimits};
use crate::syntax::{
    Formula, InlineAllows, NoWordFiles, Parse, RuleSet, WordFile, WordFiles, lower_with, parse,
};
use crate::text::{LineIndex, SourceText};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::SystemTime;

/// Word-list files read from disk, relative to the rules file's folder, each under the
/// rules file's read limit (`--max-rules-bytes`). What each parsed is kept in the process
/// and given again while the file's modification time and length stay those it was read
/// at ([`MAX_PARSED_WORD_FILE_BYTES`]), so that analysing the rules again (the editor does
/// on every change) does not read and tokenize their lists again.
pub struct DiskWordFiles {
    pub folder: PathBuf,
    pub limits: ReadLimits,
}

/// The most bytes of word-list files kept parsed in a process, the files' bytes counted
/// (their entries take about as much again): past it, the longest unused go first. A file
/// larger than this alone is parsed on every read and not kept.
pub const MAX_PARSED_WORD_FILE_BYTES: usize = 256 << 20;

/// A parsed word-list file with what its file's metadata said when it was read, and when
/// it was last given.
struct Kept {
    modified: SystemTime,
    len: u64,
    file: Arc<WordFile>,
    used: u64,
}

/// The word-list files kept parsed, by the path read, and the count of reads.
static PARSED_WORD_FILES: LazyLock<Mutex<(HashMap<PathBuf, Kept>, u64)>> =
    LazyLock::new(Mutex::default);

impl DiskWordFiles {
    /// The files beside the rules file at `rules`.
    pub fn beside(rules: &Path, limits: &ReadLimits) -> DiskWordFiles {
        DiskWordFiles {
            folder: rules.parent().map(Path::to_path_buf).unwrap_or_default(),
            limits: *limits,
        }
    }
}

impl WordFiles for DiskWordFiles {
    fn file(&self, path: &str) -> Result<Arc<WordFile>, String> {
        let full = self.folder.join(path);
        // Taken before reading: a write during the read leaves another time or length.
        let metadata = std::fs::metadata(&full)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| Some((m.modified().ok()?, m.len())));
        let mut kept = PARSED_WORD_FILES.lock().unwrap_or_else(|e| e.into_inner());
        kept.1 += 1;
        let now = kept.1;
        if let (Some((modified, len)), Some(found)) = (metadata, kept.0.get_mut(&full))
            && (found.modified, found.len) == (modified, len)
        {
            found.used = now;
            return Ok(found.file.clone());
        }
        // Not held while reading and parsing: another analysis may go on meanwhile.
        drop(kept);
        let bytes = self
            .limits
            .read(Limit::Rules, &full)
            .map_err(|error| format!("cannot read `{}`: {error}", full.display()))?;
        let file = Arc::new(WordFile::parse(bytes, path));
        if let Some((modified, len)) = metadata
            && file.bytes.len() <= MAX_PARSED_WORD_FILE_BYTES
        {
            let mut kept = PARSED_WORD_FILES.lock().unwrap_or_else(|e| e.into_inner());
            let (files, _) = &mut *kept;
            files.insert(
                full,
                Kept {
                    modified,
                    len,
                    file: file.clone(),
                    used: now,
                },
            );
            let mut total: usize = files.values().map(|k| k.file.bytes.len()).sum();
            while total > MAX_PARSED_WORD_FILE_BYTES {
                let Some(oldest) = files
                    .iter()
                    .min_by_key(|(_, k)| k.used)
                    .map(|(path, _)| path.clone())
                else {
                    break;
                };
                if let Some(gone) = files.remove(&oldest) {
                    total -= gone.file.bytes.len();
                }
            }
        }
        Ok(file)
    }
}

/// Word-list files as a checkpoint carries them: each file's text by its path as written.
pub struct StoredWordFiles<'a>(pub &'a BTreeMap<String, String>);

impl WordFiles for StoredWordFiles<'_> {
    fn file(&self, path: &str) -> Result<Arc<WordFile>, String> {
        self.0
            .get(path)
            .map(|text| Arc::new(WordFile::parse(text.clone().into_bytes(), path)))
            .ok_or_else(|| format!("the checkpoint carries no word-list file `{path}`"))
    }
}

/// A rules file with everything the front end knows about it.
#[derive(Debug, Clone)]
pub struct RulesFile {
    /// Where it was read from; `None` for text that has no file (corpus bindings are then
    /// not checked).
    pub path: Option<PathBuf>,
    pub source: SourceText,
    pub line_index: LineIndex,
    pub parse: Parse,
    pub rules: RuleSet,
    pub system: RuleSystem,
    /// All diagnostics, sorted by position, but those its allow comments allow.
    pub diagnostics: Vec<Diagnostic>,
    /// What its `# rulelens: allow(…)` comments allow, for diagnostics found later (the
    /// corpus's and the model's findings).
    pub allows: InlineAllows,
}

impl RulesFile {
    /// Runs the front end on a decoded text; `path` locates corpus bindings.
    ///
    /// ```
    /// use rulelens::rules_file::RulesFile;
    /// use rulelens::text::SourceText;
    /// let source = SourceText::from_bytes(b"default ham\nspam: $* FREE $*\n");
    /// let file = RulesFile::analyze(source, None, &Default::default());
    /// let codes: Vec<&str> = file.diagnostics.iter().map(|d| d.code.as_str()).collect();
    /// assert_eq!(codes, ["W0301", "E0205"]);
    /// ```
    pub fn analyze(source: SourceText, path: Option<&Path>, config: &CompileConfig) -> RulesFile {
        match path {
            Some(path) => {
                let files = DiskWordFiles::beside(path, &ReadLimits::DEFAULT);
                RulesFile::analyze_with(source, Some(path), config, &files)
            }
            None => RulesFile::analyze_with(source, None, config, &NoWordFiles),
        }
    }

    /// [`RulesFile::analyze`] with the files of `words NAME from "PATH"` read from `files`.
    pub fn analyze_with(
        source: SourceText,
        path: Option<&Path>,
        config: &CompileConfig,
        files: &dyn WordFiles,
    ) -> RulesFile {
        let mut diagnostics: Vec<Diagnostic> = source
            .invalid_utf8
            .iter()
            .map(|&range| {
                Diagnostic::new(Code::InvalidUtf8, range, "invalid UTF-8")
                    .with_help("save the file as UTF-8")
            })
            .collect();
        let parse = parse(&source.text);
        let (rules, names) = lower_with(&parse, &source.text, files);
        let (system, compiled) = compile(&rules, config);
        diagnostics.extend(parse.diagnostics.iter().cloned());
        diagnostics.extend(names);
        diagnostics.extend(compiled);
        if let Some(path) = path {
            diagnostics.extend(crate::corpus::check_bindings(path, &rules));
        }
        let (allows, invalid) = InlineAllows::of(&parse, &source.text);
        diagnostics.retain(|d| !allows.allows(d));
        diagnostics.extend(invalid);
        diagnostics.sort_by_key(|d| (d.range.start(), d.range.end()));
        RulesFile {
            path: path.map(Path::to_path_buf),
            line_index: LineIndex::new(&source.text),
            source,
            parse,
            rules,
            system,
            diagnostics,
            allows,
        }
    }

    /// Reads a rules file of at most `limits.max_rules_bytes` and analyzes it.
    pub fn read(
        path: &Path,
        config: &CompileConfig,
        limits: &ReadLimits,
    ) -> std::io::Result<RulesFile> {
        let bytes = limits.read(Limit::Rules, path)?;
        Ok(RulesFile::analyze_with(
            SourceText::from_bytes(&bytes),
            Some(path),
            config,
            &DiskWordFiles::beside(path, limits),
        ))
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// What its word-list files hold, for the keys of caches that its text alone would
    /// make (`project::cache_key`): each file's path and SHA-256, one per line after a
    /// newline; empty for rules that read no file, so that their keys are the text's alone.
    pub fn word_files_identity(&self) -> String {
        self.rules
            .word_lists
            .iter()
            .filter_map(|list| list.file.as_ref())
            .map(|file| {
                format!(
                    "\nwords file {} {}",
                    file.path,
                    crate::digest::sha256_hex(&file.bytes)
                )
            })
            .collect()
    }

    /// The text of every file its `words NAME from "PATH"` statements read, by the path as
    /// written: what a checkpoint carries so that it needs no file beside it.
    pub fn word_files(&self) -> BTreeMap<String, String> {
        self.rules
            .word_lists
            .iter()
            .filter_map(|list| list.file.as_ref())
            .map(|file| {
                let text = String::from_utf8_lossy(&file.bytes).into_owned();
                (file.path.clone(), text)
            })
            .collect()
    }

    /// The rules as a network is built from them, one line each, without comments, layout
    /// or line numbers: the labels in priority order and the default, each word list's size
    /// and fingerprint (`@NAME` prints as its name), then each pattern in
    /// the order that gives it its id (`pattern NAME = REGEX`, or `LABEL: REGEX` for an
    /// anonymous one), then each formula rule in file order (`LABEL <- FORMULA`). Two texts
    /// with equal lines compile to the same rule system, so a network trained from one fits
    /// the other.
    pub fn rule_lines(&self) -> Vec<String> {
        let rules = &self.rules;
        let label = |id: crate::syntax::LabelId| rules.labels[id.index()].name.as_str();
        let mut lines = vec![format!(
            "labels {}",
            rules
                .labels
                .iter()
                .map(|l| l.name.as_str())
                .collect::<Vec<_>>()
                .join(" > ")
        )];
        if let Some(default) = rules.default {
            lines.push(format!("default {}", label(default)));
        }
        for list in &rules.word_lists {
            lines.push(format!(
                "words {} ({} entries, SHA-256 {})",
                list.name,
                list.list.entries.len(),
                list.list.fingerprint
            ));
        }
        for pattern in &rules.patterns {
            let regex = crate::syntax::print_regex(&pattern.regex);
            lines.push(if pattern.anonymous {
                let labels: Vec<&str> = pattern.labels.iter().map(|&l| label(l)).collect();
                format!("{}: {regex}", labels.join(","))
            } else {
                format!("pattern {} = {regex}", pattern.name)
            });
        }
        for rule in self.system.rules() {
            let formula = &rule.formula;
            let anonymous =
                matches!(formula, Formula::Pattern(p) if rules.patterns[p.index()].anonymous);
            if !anonymous {
                lines.push(format!(
                    "{} <- {}",
                    label(rule.label),
                    print_formula(formula, rules)
                ));
            }
        }
        lines
    }
}

/// A formula in `.rules` syntax, parenthesized where `!` > `&` > `|` needs it.
fn print_formula(formula: &Formula, rules: &RuleSet) -> String {
    let inner = |item: &Formula, loose: bool| {
        let printed = print_formula(item, rules);
        let needs = match item {
            Formula::Or(_) => true,
            Formula::And(_) => loose,
            _ => false,
        };
        if needs {
            format!("( {printed} )")
        } else {
            printed
        }
    };
    match formula {
        Formula::Pattern(p) => rules.patterns[p.index()].name.clone(),
        Formula::Not(item) => format!("!{}", inner(item, true)),
        Formula::And(items) => items
            .iter()
            .map(|i| inner(i, false))
            .collect::<Vec<_>>()
            .join(" & "),
        Formula::Or(items) => items
            .iter()
            .map(|i| print_formula(i, rules))
            .collect::<Vec<_>>()
            .join(" | "),
        Formula::False => "false".to_string(),
    }
}

/// Whether two regexes (in `.rules` syntax) match the same sentences: compiled side by side,
/// over one alphabet, their minimal DFAs are equal exactly then (the DFAs are canonical).
pub fn same_language(a: &str, b: &str) -> bool {
    let text = format!("pattern a = {a}\npattern b = {b}\n");
    let both = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &CompileConfig::default(),
    );
    match both.system.patterns() {
        [a, b] => a.dfa.is_some() && a.dfa == b.dfa,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::same_language;

    #[test]
    fn languages_compare_whatever_the_spelling() {
        assert!(same_language(
            "$* ( guranteed | guaranteed ) $* gift $*",
            "$* ( guaranteed | guranteed ) $*   gift $*"
        ));
        assert!(same_language("( a | a b ) b*", "a b*"));
        assert!(!same_language("$* ( won | win ) $*", "$* won $*"));
    }
}
