//! Documentation that must not drift from the code: every diagnostic code has exactly one
//! section in docs/diagnostics.md, in the order of `Code::ALL`, titled `## CODE name`, and
//! one row in docs/lsp.md's table of the codes the server publishes, in the same order.

use rulelens::diagnostic::Code;

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
