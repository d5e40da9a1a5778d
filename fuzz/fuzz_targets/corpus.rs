//! Fuzz target `corpus`: arbitrary bytes → `SourceText::from_bytes` → `CorpusFile::parse`
//! as TSV and as JSONL → `check_labels` → `render` of every diagnostic.
//!
//! Nothing may panic. Every diagnostic range (and related location) lies within the text on
//! char boundaries, and so do the examples' `text_range` and `label_range`. What the
//! module docs promise holds too: a `text_range` is where the example's text stands
//! verbatim (always for TSV; for JSONL exactly when the raw string has no escape); a TSV
//! label is its trimmed first field, and an unescaped JSONL label stands verbatim at its
//! `label_range`; `line` is the zero-based line of the example, lines come in order, and no
//! example comes from a line touched by invalid UTF-8, each of which is reported once;
//! `check_labels` reports each unknown label once.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rulelens::corpus::{CorpusFile, Example, Format, check_labels};
use rulelens::diagnostic::{Code, Diagnostic, render};
use rulelens::text::{LineIndex, SourceText};
use std::collections::HashSet;
use std::path::PathBuf;
use text_size::TextRange;

fuzz_target!(|data: &[u8]| {
    let source = SourceText::from_bytes(data);
    let text = source.text.as_str();
    let mut previous_end = 0;
    for range in &source.invalid_utf8 {
        check_range(text, "invalid UTF-8", *range);
        assert!(
            usize::from(range.start()) >= previous_end,
            "invalid UTF-8 ranges out of order"
        );
        assert_eq!(&text[*range], "\u{fffd}");
        previous_end = usize::from(range.end());
    }
    // The first byte of each line, for `line`.
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(at, _)| at + 1))
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&start| start <= offset) - 1;
    let spoiled: HashSet<usize> = source
        .invalid_utf8
        .iter()
        .map(|range| line_of(usize::from(range.start())))
        .collect();
    let index = LineIndex::new(text);

    for format in [Format::Tsv, Format::Jsonl] {
        let file = CorpusFile::parse(PathBuf::from("fuzz"), format, source.clone());
        check_diagnostics(text, &index, &file.diagnostics);
        let invalid = file
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::InvalidUtf8)
            .count();
        assert_eq!(
            invalid,
            spoiled.len(),
            "{format:?}: one diagnostic per spoiled line"
        );

        let mut last_line = None;
        for example in &file.examples {
            check_example(text, format, example);
            let line = example.line as usize;
            assert!(
                line < line_starts.len(),
                "{format:?}: line {line} past the end"
            );
            assert!(
                last_line < Some(line),
                "{format:?}: examples out of line order"
            );
            last_line = Some(line);
            assert!(
                !spoiled.contains(&line),
                "{format:?}: example from a spoiled line {line}"
            );
            for range in [example.text_range, example.label_range]
                .into_iter()
                .flatten()
            {
                assert_eq!(
                    line_of(usize::from(range.start())),
                    line,
                    "{format:?}: range {range:?} of an example on line {line}"
                );
            }
        }

        let unknown = check_labels(&file.examples, |label| label.len() % 2 == 0);
        check_diagnostics(text, &index, &unknown);
        let distinct: HashSet<&str> = file
            .examples
            .iter()
            .filter_map(|e| e.label.as_deref())
            .filter(|label| label.len() % 2 == 1)
            .collect();
        assert_eq!(unknown.len(), distinct.len(), "{format:?}: unknown labels");
    }
});

fn check_example(text: &str, format: Format, example: &Example) {
    let what = format!("{format:?} example on line {}", example.line);
    match example.text_range {
        Some(range) => {
            check_range(text, &format!("{what}: text"), range);
            assert_eq!(&text[range], example.text, "{what}: text_range");
        }
        None => assert_eq!(format, Format::Jsonl, "{what}: no text_range"),
    }
    if let Some(range) = example.label_range {
        check_range(text, &format!("{what}: label"), range);
        let raw = &text[range];
        match format {
            Format::Tsv => {
                assert_eq!(raw, raw.trim(), "{what}: label not trimmed");
                assert_eq!(
                    example.label.as_deref().unwrap_or(""),
                    raw,
                    "{what}: label_range"
                );
            }
            Format::Jsonl => {
                if let Some(label) = &example.label
                    && !raw.contains('\\')
                {
                    assert_eq!(raw, label, "{what}: label_range");
                }
            }
        }
    }
    if format == Format::Tsv {
        assert!(example.label.is_some() == example.label_range.is_some_and(|r| !r.is_empty()));
    }
}

/// Panics unless `range` lies within `text` and both ends are char boundaries.
fn check_range(text: &str, what: &str, range: TextRange) {
    let start = usize::from(range.start());
    let end = usize::from(range.end());
    assert!(
        end <= text.len(),
        "{what}: range {range:?} ends past the text ({} bytes)",
        text.len()
    );
    assert!(
        text.is_char_boundary(start),
        "{what}: range {range:?} starts inside a char"
    );
    assert!(
        text.is_char_boundary(end),
        "{what}: range {range:?} ends inside a char"
    );
}

fn check_diagnostics(text: &str, index: &LineIndex, diagnostics: &[Diagnostic]) {
    for diagnostic in diagnostics {
        let what = format!("diagnostic {}", diagnostic.code.as_str());
        check_range(text, &what, diagnostic.range);
        for related in &diagnostic.related {
            check_range(text, &format!("{what} (related)"), related.range);
        }
        let _ = render(diagnostic, "fuzz.tsv", text, index, false);
    }
}
