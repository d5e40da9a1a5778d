//! Documentation that must not drift from the code: every diagnostic code has exactly one
//! section in docs/diagnostics.md, in the order of `Code::ALL`, titled `## CODE name`.

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
