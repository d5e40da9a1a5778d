//! The `rulelens` command line: parses arguments with clap, calls the library, prints.
//!
//! Exit codes: 0 when the input is clean (warnings allowed), 1 when it has errors or cannot
//! be read, 2 for usage errors (clap's own code).

mod cli;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rulelens",
    version,
    about = "Rules for text classification, as automata and trainable networks"
)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a rules file: diagnostics, then the rule system's figures on labeled corpora.
    Check {
        /// The `.rules` file.
        rules: PathBuf,
        /// A labeled corpus (.tsv or .jsonl); repeat for several. Default: the rules
        /// file's own `corpus` bindings.
        #[arg(long = "corpus", value_name = "FILE")]
        corpora: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        limits: Limits,
    },
    /// Print the automata of a rules file as Graphviz DOT.
    Dot {
        /// The `.rules` file.
        rules: PathBuf,
        /// Only this pattern (a name, or `LABEL@LINE` for an anonymous pattern).
        #[arg(long, value_name = "NAME")]
        pattern: Option<String>,
        #[command(flatten)]
        limits: Limits,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(clap::Args, Clone, Copy)]
struct Limits {
    /// Most DFA states one pattern may need before it is reported and ignored.
    #[arg(long, value_name = "N", default_value_t = rulelens::automata::DEFAULT_MAX_DFA_STATES)]
    max_dfa_states: usize,
}

impl Limits {
    fn config(self) -> rulelens::automata::CompileConfig {
        rulelens::automata::CompileConfig {
            max_dfa_states: self.max_dfa_states,
            ..Default::default()
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Command::Check {
            rules,
            corpora,
            format,
            limits,
        } => cli::check::run(&rules, &corpora, format == Format::Json, &limits.config()),
        Command::Dot {
            rules,
            pattern,
            limits,
        } => cli::dot::run(&rules, pattern.as_deref(), &limits.config()),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(1)
        }
    }
}
