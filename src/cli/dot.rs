//! `rulelens dot RULES [--pattern NAME]`: the pattern automata as Graphviz DOT on stdout.

use super::files::{AutomataLimits, Shown, load_rules, print_diagnostics};
use crate::cli::out_data;
use rulelens::automata::{pattern_dot, system_dot};
use rulelens::limits::ReadLimits;
use std::path::PathBuf;
use std::process::ExitCode;

/// `rulelens dot`'s arguments.
#[derive(clap::Args)]
pub struct DotArgs {
    /// The `.rules` file.
    rules: PathBuf,
    /// Only this pattern (a name, or `LABEL@LINE` for an anonymous pattern).
    #[arg(long, value_name = "NAME")]
    pattern: Option<String>,
    #[command(flatten)]
    limits: AutomataLimits,
}

pub fn run(args: DotArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let (rules_path, pattern) = (args.rules.as_path(), args.pattern.as_deref());
    let config = &args.limits.config();
    let loaded = load_rules(rules_path, config, read_limits)?;
    // Only errors: warnings about other patterns are noise here; `check` shows them.
    let errors: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    print_diagnostics(&Shown::of_rules(&loaded), &errors);
    let dot = match pattern {
        None => system_dot(&loaded.system),
        Some(name) => {
            let Some(id) = loaded.rules.pattern_by_name(name) else {
                let names: Vec<&str> = loaded
                    .rules
                    .patterns
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect();
                eprintln!(
                    "error: no pattern `{name}` in {}; patterns: {}",
                    rules_path.display(),
                    names.join(", ")
                );
                return Ok(ExitCode::from(2));
            };
            pattern_dot(&loaded.system, id)
        }
    };
    out_data!("{dot}")?;
    let failed = loaded.diagnostics.iter().any(|d| d.is_error());
    Ok(ExitCode::from(u8::from(failed)))
}
