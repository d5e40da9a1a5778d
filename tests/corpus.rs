//! Corpus readers on broken input: each malformed line is one diagnostic at the right line
//! and column, and every other line still loads.

use rulelens::corpus::{Format, check_labels, parse, read_file};
use rulelens::limits::ReadLimits;
use rulelens::text::{LineIndex, SourceText};

/// (code line:column) of each diagnostic, and the texts of the examples that loaded.
fn read(bytes: &[u8], format: Format) -> (Vec<String>, Vec<(Option<String>, String)>) {
    let source = SourceText::from_bytes(bytes);
    let (examples, diagnostics) = parse(&source.text, format, &source.invalid_utf8);
    let index = LineIndex::new(&source.text);
    let codes = diagnostics
        .iter()
        .map(|d| {
            let at = index.to_chars(&source.text, d.range.start());
            format!("{} {}:{}", d.code.as_str(), at.line + 1, at.col + 1)
        })
        .collect();
    let loaded = examples.into_iter().map(|e| (e.label, e.text)).collect();
    (codes, loaded)
}

fn example(label: Option<&str>, text: &str) -> (Option<String>, String) {
    (label.map(str::to_string), text.to_string())
}

#[test]
fn tsv_lines_labels_and_invalid_utf8() {
    let bytes = b"\xef\xbb\xbfspam\tWIN cash\r\nunlabeled text\n\n\tno label either\nham\tcaf\xe9 au lait\nham\ttabs\tinside\n";
    let (codes, loaded) = read(bytes, Format::Tsv);
    // The line starting with a tab is unlabeled, as the spec says, with a warning.
    assert_eq!(codes, ["E0403 5:8", "W0407 4:1"]);
    assert_eq!(
        loaded,
        [
            example(Some("spam"), "WIN cash"),
            example(None, "unlabeled text"),
            example(None, "no label either"),
            example(Some("ham"), "tabs\tinside"),
        ]
    );
}

#[test]
fn jsonl_malformed_lines() {
    let text = concat!(
        "{\"text\": \"WIN cash\", \"label\": \"spam\"}\n",
        "{\"text\": \"no label\"}\n",
        "{\"text\": \"null label\", \"label\": null, \"extra\": [1, 2]}\n",
        "{\"text\": \"bad json\", \"label\": spam}\n",
        "[\"not\", \"an object\"]\n",
        "{\"label\": \"spam\"}\n",
        "{\"text\": 42}\n",
        "{\"text\": \"x\", \"label\": 7}\n",
        "{\"text\": \"unterminated\n",
        "   \n",
        "{\"text\": \"esc\\u00e9\\\"aped\", \"label\": \"ham\"}\n",
    );
    let (codes, loaded) = read(text.as_bytes(), Format::Jsonl);
    assert_eq!(
        codes,
        [
            "E0404 4:31",
            "E0404 5:1",
            "E0404 6:1",
            "E0404 7:10",
            "E0404 8:24",
            "E0404 9:22",
        ]
    );
    assert_eq!(
        loaded,
        [
            example(Some("spam"), "WIN cash"),
            example(None, "no label"),
            example(None, "null label"),
            example(Some("ham"), "escé\"aped"),
        ]
    );
}

#[test]
fn jsonl_invalid_utf8_skips_only_that_line() {
    let bytes = b"{\"text\": \"ok\"}\n{\"text\": \"caf\xe9\"}\n{\"text\": \"also ok\"}\n";
    let (codes, loaded) = read(bytes, Format::Jsonl);
    assert_eq!(codes, ["E0403 2:14"]);
    assert_eq!(loaded, [example(None, "ok"), example(None, "also ok")]);
}

#[test]
fn text_ranges_point_into_the_file() {
    let text = "spam\tWIN cash\n{\"text\": \"ignored\"}\n";
    let (examples, _) = parse(text, Format::Tsv, &[]);
    let range = examples[0].text_range.unwrap();
    assert_eq!(&text[range], "WIN cash");
    let jsonl = "{\"label\": \"ham\", \"text\": \"hi there\"}\n{\"text\": \"a\\nb\"}\n";
    let (examples, _) = parse(jsonl, Format::Jsonl, &[]);
    assert_eq!(&jsonl[examples[0].text_range.unwrap()], "hi there");
    assert_eq!(&jsonl[examples[0].label_range.unwrap()], "ham");
    assert_eq!(examples[1].text_range, None, "escaped text is not verbatim");
}

#[test]
fn unknown_labels_are_reported_once_with_counts() {
    let text = "spam\ta\nSpam\tb\nSpam\tc\nham\td\n";
    let (examples, _) = parse(text, Format::Tsv, &[]);
    let diagnostics = check_labels(&examples, |label| label == "spam" || label == "ham");
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].code.as_str(), "W0405");
    assert!(diagnostics[0].message.contains("`Spam` (2 examples)"));
    assert_eq!(&text[diagnostics[0].range], "Spam");
}

#[test]
fn read_file_picks_the_format_and_reports_io_errors() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = read_file(&root.join("examples/sms/dev.tsv"), &ReadLimits::DEFAULT).unwrap();
    assert_eq!(file.examples.len(), 500);
    assert!(file.diagnostics.is_empty());
    let missing =
        read_file(&root.join("examples/sms/missing.tsv"), &ReadLimits::DEFAULT).unwrap_err();
    assert!(missing.to_string().contains("missing.tsv"));
    let unsupported =
        read_file(&root.join("examples/sms/sms.rules"), &ReadLimits::DEFAULT).unwrap_err();
    assert!(
        unsupported
            .to_string()
            .contains("unsupported corpus format")
    );
}

#[test]
fn lines_labeled_with_spaces_or_an_empty_label_get_one_warning_each_with_their_numbers() {
    let mut text = String::new();
    for i in 0..200 {
        match i % 5 {
            // A label and spaces where the tab should be.
            0..=2 if i >= 5 => text.push_str(&format!("spam  free prize {i}\n")),
            0 => text.push_str(&format!("spam\tfree prize {i}\n")),
            // Nothing before the tab.
            3 if i < 20 => text.push_str(&format!("\tcall now {i}\n")),
            _ => text.push_str(&format!("ham\tsee you at {i}\n")),
        }
    }
    // Unlabeled text whose first word is no label is left alone.
    text.push_str("just some unlabeled text\n");
    let (examples, diagnostics) = parse(&text, Format::Tsv, &[]);
    assert_eq!(examples.len(), 201);
    let warnings: Vec<String> = diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.code.as_str(), "W0407");
            d.message.clone()
        })
        .collect();
    assert_eq!(
        warnings,
        [
            "117 lines start with a label of this corpus and a space, not a tab (lines 6, 7, 8, 11, 12 and 112 more); read as unlabeled text",
            "4 lines start with a tab: the label before it is empty (lines 4, 9, 14, 19); read as unlabeled text",
        ]
    );
    // At the first such line.
    let index = LineIndex::new(&text);
    assert_eq!(index.line_col(diagnostics[0].range.start()).line, 5);
    assert_eq!(index.line_col(diagnostics[1].range.start()).line, 3);
    // A corpus with no labeled line, or with every line labeled, has nothing to say.
    let unlabeled = "spam free prize\nham see you\n";
    assert!(parse(unlabeled, Format::Tsv, &[]).1.is_empty());
}
