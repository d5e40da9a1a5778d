//! `rulelens explain CODE`: a diagnostic code's section of `docs/diagnostics.md`, compiled
//! into the binary (as `rustc --explain` and `ruff rule` print theirs), so that it matches
//! the version that reported the code.

use crate::cli::outln;
use rulelens::diagnostic::Code;
use std::process::ExitCode;

/// The page every code has a section of (`tests/docs.rs` keeps them in sync).
const DIAGNOSTICS_PAGE: &str = include_str!("../../docs/diagnostics.md");

/// The section `## CODE name` of the page, without its heading's `## `.
fn section(code: Code) -> Option<&'static str> {
    let heading = format!("## {} {}\n", code.as_str(), code.name());
    let start = DIAGNOSTICS_PAGE.find(&heading)? + 3;
    let rest = &DIAGNOSTICS_PAGE[start..];
    let end = rest.find("\n## ").map_or(rest.len(), |i| i + 1);
    Some(rest[..end].trim_end())
}

/// `rulelens explain`'s arguments.
#[derive(clap::Args)]
pub struct ExplainArgs {
    /// A code as printed (`W0306`) or its name (`shadowed-rule`).
    code: String,
}

pub fn run(args: ExplainArgs) -> anyhow::Result<ExitCode> {
    let text = args.code.as_str();
    let Some(code) = Code::parse(text) else {
        eprintln!(
            "error: `{text}` is no diagnostic code; they are {}",
            Code::ALL
                .iter()
                .map(|code| code.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(ExitCode::from(2));
    };
    match section(code) {
        Some(section) => {
            outln!("{section}")?;
            Ok(ExitCode::SUCCESS)
        }
        None => anyhow::bail!("docs/diagnostics.md has no section for {}", code.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_section_and_only_it() {
        for &code in Code::ALL {
            let section = section(code).unwrap();
            assert!(section.starts_with(&format!("{} {}\n", code.as_str(), code.name())));
            assert!(section.contains("**What it does.**"), "{}", code.as_str());
            assert!(!section.contains("\n## "));
        }
    }
}
