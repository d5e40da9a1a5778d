//! Documentation that must not drift from the code: every diagnostic code has exactly one
//! section in docs/diagnostics.md, in the order of `Code::ALL`, titled `## CODE name`, and
//! one row in docs/lsp.md's table of the codes the server publishes, in the same order; and
//! every `rules` block of the README and the language's spec is a rules file without errors.
//! (docs/cli.md's examples are checked against the binary in `tests/cli.rs`.)

use rulelens::diagnostic::Code;
use rulelens::rules_file::RulesFile;
use rulelens::text::SourceText;

#[test]
fn diagnostics_reference_matches_codes() {
    let doc = include_str!("../docs/diagnostics.md");
    let headings: Vec<&str> = doc
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .collect();
    let expected: Vec<String> = Code::ALL
        .iter()
        .map(|code| format!("{} {}", code.as_str(), code.name()))
        .collect();
    assert_eq!(headings, expected);
}

#[test]
fn the_language_server_docs_list_every_code() {
    let doc = include_str!("../docs/lsp.md");
    let (_, section) = doc
        .split_once("\n### Every code\n")
        .expect("docs/lsp.md has a section `### Every code`");
    let section = section.split("\n#").next().unwrap_or(section);
    // The rows of its table: `| CODE | name | on | when |`.
    let rows: Vec<String> = section
        .lines()
        .filter_map(|line| {
            let mut cells = line.strip_prefix('|')?.split('|').map(str::trim);
            let (code, name) = (cells.next()?, cells.next()?);
            let is_code = code.len() == 5
                && code.starts_with(['E', 'W', 'I'])
                && code[1..].bytes().all(|b| b.is_ascii_digit());
            is_code.then(|| format!("{code} {name}"))
        })
        .collect();
    let expected: Vec<String> = Code::ALL
        .iter()
        .map(|code| format!("{} {}", code.as_str(), code.name()))
        .collect();
    assert_eq!(rows, expected);
}

#[test]
fn rules_examples_of_the_readme_and_the_spec_have_no_errors() {
    let mut checked = 0;
    for doc in [
        include_str!("../README.md"),
        include_str!("../docs/rules-language.md"),
    ] {
        for block in doc.split("```rules\n").skip(1) {
            let text = block.split("\n```").next().unwrap();
            let file = RulesFile::analyze(
                SourceText::from_bytes(text.as_bytes()),
                None,
                &Default::default(),
            );
            // The files a `words … from` names are not beside the docs.
            let errors: Vec<String> = file
                .diagnostics
                .iter()
                .filter(|d| d.is_error() && d.code != Code::UnreadableWordList)
                .map(|d| format!("{} {}", d.code.as_str(), d.message))
                .collect();
            assert!(errors.is_empty(), "{errors:?} in\n{text}");
            checked += 1;
        }
    }
    assert_eq!(checked, 3);
}
