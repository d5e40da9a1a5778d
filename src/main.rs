//! The `rulelens` command line: parses arguments with clap, calls the library, prints.
//!
//! Exit codes: 0 when the input is clean (warnings allowed), 1 when it has errors or cannot
//! be read, 2 for usage errors (clap's own code).

mod cli;

use anyhow::Context as _;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use cli::output::RulesFormat;
use rulelens::diagnostic::LintLists;
use rulelens::limits::ReadLimits;
use rulelens::model::{DeviceKind, TrainingSettings};
use rulelens::project::bench::{BenchPlan, Contender};
use std::io::Write as _;
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
    #[command(flatten)]
    read_limits: ReadLimits,
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
        limits: AutomataLimits,
        #[command(flatten)]
        lints: LintLists,
        /// Text output: each corpus's accuracy, label and confusion tables, without the
        /// per-pattern table.
        #[arg(long, conflicts_with = "quiet")]
        summary: bool,
        /// Text output: the diagnostics and their count only, no figures (a CI gate).
        #[arg(long)]
        quiet: bool,
        /// Text output: list each corpus's first N misclassified lines, with the rule that
        /// decided and the gold label's nearest miss.
        #[arg(long, value_name = "N", default_value_t = 0)]
        show_errors: usize,
    },
    /// Start a rules file from a labeled corpus: its labels, the majority label as the
    /// default, and the corpus bindings.
    Init {
        /// The training corpus (.tsv or .jsonl).
        corpus: PathBuf,
        /// A dev corpus to bind too (needed by `--suggest`).
        #[arg(long, value_name = "FILE")]
        dev: Option<PathBuf>,
        /// Write the rules here (never over an existing file); default: standard output.
        #[arg(long, value_name = "RULES")]
        out: Option<PathBuf>,
        /// Apply the suggestion engine's edits (rules induced from the corpus, validated on
        /// --dev), as `rulelens suggest --write` would.
        #[arg(long)]
        suggest: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions { shell: clap_complete::Shell },
    /// Print the manual page (roff) of rulelens.
    Man,
    /// Print the documentation of a diagnostic code (`docs/diagnostics.md`): what it
    /// reports, why, an example and what to write instead.
    Explain {
        /// A code as printed (`W0306`) or its name (`shadowed-rule`).
        code: String,
    },
    /// Compile a rules file to an FA-RNN, train it on the labeled corpus, write a checkpoint.
    /// Every default is the best setting measured on the SMS and TREC dev sets.
    Train {
        /// The `.rules` file.
        rules: PathBuf,
        /// Training corpus; default: the rules file's `corpus train` binding.
        #[arg(long, value_name = "FILE")]
        train: Option<PathBuf>,
        /// Dev corpus for early stopping; default: the `corpus dev` binding.
        #[arg(long, value_name = "FILE")]
        dev: Option<PathBuf>,
        #[command(flatten)]
        settings: TrainingSettings,
        /// Checkpoint folder; default: models/<rules-stem>/.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Start from this checkpoint of an earlier text of the rules (a warm start): the
        /// patterns that did not change keep their trained parameters and the network is
        /// fine-tuned briefly. Trains from scratch, saying why, when the settings or the
        /// data differ or most patterns changed.
        #[arg(long, value_name = "CHECKPOINT")]
        from: Option<PathBuf>,
    },
    /// Evaluate a checkpoint's network on a labeled corpus.
    Eval {
        /// A checkpoint folder written by `rulelens train`.
        model_dir: PathBuf,
        #[arg(long, value_name = "FILE")]
        corpus: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Evaluate the untrained network compiled from the rules.
        #[arg(long)]
        zero_shot: bool,
        #[arg(long, value_enum, default_value_t = DeviceKind::Cpu)]
        device: DeviceKind,
    },
    /// What the rules alone say about sentences (the arguments, or each line of standard
    /// input): the label, the rule that decided it, every rule that fired and where.
    Classify {
        /// The `.rules` file.
        rules: PathBuf,
        /// Sentences to classify; none: every line of standard input.
        texts: Vec<String>,
        /// `json` prints one JSON object per sentence and line.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Also say why each pattern of this label did not match, as the editor's hover
        /// over a misclassified corpus line does.
        #[arg(long, value_name = "LABEL")]
        expect: Option<String>,
        /// How many of the expected label's missed patterns the text output lists.
        #[arg(long, value_name = "N", default_value_t = rulelens::ide::DEFAULT_MAX_LISTED)]
        max_listed: usize,
    },
    /// Label sentences with a trained network: the arguments, or each line of standard input.
    Predict {
        /// A checkpoint folder written by `rulelens train`.
        model_dir: PathBuf,
        /// Sentences to label; none: every line of standard input.
        texts: Vec<String>,
        /// `json` prints one JSON object per sentence and line.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// How many of the highest-scoring patterns to show.
        #[arg(long, value_name = "N", default_value_t = 3)]
        top: usize,
        /// Use the untrained network compiled from the rules.
        #[arg(long)]
        zero_shot: bool,
    },
    /// An MVMA-G's phrase polarities (exact: each phrase's n-gram read out by each label),
    /// and the negation check.
    Polarity {
        /// A checkpoint folder written by `rulelens train --model mvma-g`.
        model_dir: PathBuf,
        /// Phrases, e.g. "not good" "very good".
        phrases: Vec<String>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Also check, for the N words leaning most strongly to each label, how often
        /// "not" before them leans to another label.
        #[arg(long, value_name = "N")]
        negation: Option<usize>,
    },
    /// Train and measure every model family on the rules file's corpora, side by side: the
    /// rule system, FA-RNN, FA-GRU, their bidirectional versions, SoPa, S-LSTM and MVMA-G,
    /// on shares of train with several seeds, each measured on all of dev; a Markdown
    /// table (mean ± sd over seeds) or JSON.
    Bench {
        /// The `.rules` file.
        rules: PathBuf,
        /// Training corpus; default: the rules file's `corpus train` binding.
        #[arg(long, value_name = "FILE")]
        train: Option<PathBuf>,
        /// Dev corpus (early stopping and the figures); default: the `corpus dev` binding.
        #[arg(long, value_name = "FILE")]
        dev: Option<PathBuf>,
        /// The models, comma-separated.
        #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = Contender::parse,
              default_values_t = Contender::ALL)]
        models: Vec<Contender>,
        /// Shares of train, comma-separated (evenly spaced lines; at 1 % or less early
        /// stopping reads as few dev lines, the figure is all of dev's).
        #[arg(
            long,
            value_name = "LIST",
            value_delimiter = ',',
            default_values_t = rulelens::project::bench::DEFAULT_FRACTIONS
        )]
        fractions: Vec<f64>,
        /// Seeds 0 to N − 1 for each model and share.
        #[arg(long, value_name = "N", default_value_t = rulelens::project::bench::DEFAULT_SEEDS)]
        seeds: u64,
        /// Word vectors in the GloVe text format; default: the bundled ones.
        #[arg(long, value_name = "FILE")]
        embeddings: Option<PathBuf>,
        /// The most passes over train of each run.
        #[arg(long, default_value_t = TrainingSettings::DEFAULT.epochs)]
        epochs: usize,
        /// Epochs without a better dev accuracy before a run stops (never fewer than make
        /// 100 updates).
        #[arg(long, default_value_t = TrainingSettings::DEFAULT.patience)]
        patience: usize,
        /// Sentences per update.
        #[arg(long, default_value_t = TrainingSettings::DEFAULT.batch_size)]
        batch_size: usize,
        #[arg(long, value_enum, default_value_t = DeviceKind::Cpu)]
        device: DeviceKind,
        #[arg(long, value_enum, default_value_t = BenchFormat::Markdown)]
        format: BenchFormat,
        /// Where each run's result is kept, so that a bench run again trains only what it
        /// has not measured; default: $XDG_CACHE_HOME/rulelens/bench (~/.cache/rulelens/bench).
        #[arg(long, value_name = "DIR")]
        cache: Option<PathBuf>,
        /// Train every run, reading and keeping no result.
        #[arg(long, conflicts_with = "cached_only")]
        no_cache: bool,
        /// Train nothing: the table of the runs the cache holds (another bench may still be
        /// measuring the rest).
        #[arg(long)]
        cached_only: bool,
    },
    /// Read a trained network's patterns back as regular expressions.
    Reconstruct {
        /// A checkpoint folder written by `rulelens train`.
        model_dir: PathBuf,
        /// A transition weight above this is an edge.
        #[arg(long, default_value_t = rulelens::explain::DEFAULT_THRESHOLD)]
        threshold: f32,
        /// The most literals an edge lists before it is written `$`.
        #[arg(long, default_value_t = rulelens::explain::DEFAULT_MAX_LISTED)]
        max_listed: usize,
        /// `text` and `json` compare accuracies; `rules` prints the reconstructed file.
        #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
        format: RulesFormat,
        /// Corpus for the accuracies; default: the rules file's `corpus dev` binding.
        #[arg(long, value_name = "FILE")]
        corpus: Option<PathBuf>,
        /// Read back the untrained network instead.
        #[arg(long)]
        zero_shot: bool,
        /// Of a bidirectional network, read back the right-to-left direction (its regexes
        /// are turned back to read left to right).
        #[arg(long)]
        backward: bool,
        #[arg(long, value_enum, default_value_t = DeviceKind::Cpu)]
        device: DeviceKind,
    },
    /// Suggest edits of a rules file learned from its `train` corpus and validated on its
    /// `dev` corpus, each with its evidence; or print the rules with them applied.
    Suggest {
        /// The `.rules` file; its `corpus train` and `corpus dev` bindings are read.
        rules: PathBuf,
        /// `text` and `json` list the suggestions, each measured alone; `rules` prints the
        /// rules file with suggestions applied one at a time, each only when it raises dev
        /// accuracy.
        #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
        format: RulesFormat,
        /// Print the edits that raise dev accuracy, applied one at a time with their
        /// provenance comments, as a unified diff of the rules file.
        #[arg(long, conflicts_with_all = ["format", "write"])]
        diff: bool,
        /// Apply the edits that raise dev accuracy to the rules file in place, each with
        /// a provenance comment (what it is, the train lines it fixes and breaks, dev
        /// accuracy before and after).
        #[arg(long, conflicts_with = "format")]
        write: bool,
        /// Training corpus; default: the rules file's `corpus train` binding.
        #[arg(long, value_name = "FILE")]
        train: Option<PathBuf>,
        /// Dev corpus the edits are validated on; default: the `corpus dev` binding.
        #[arg(long, value_name = "FILE")]
        dev: Option<PathBuf>,
        /// A checkpoint of a network trained from this very rules file (`rulelens train`):
        /// its rules read back as regexes become suggestions too, and the train lines without
        /// a gold label take its labels.
        #[arg(long, value_name = "MODEL_DIR")]
        model: Option<PathBuf>,
        /// Word vectors in the GloVe text format: a word that fixes a single train line
        /// joins an induced word set when its vector is near the set's. Default: the GloVe
        /// 6B 50d vectors of the 100,000 most frequent words compiled into rulelens.
        #[arg(long, value_name = "F")]
        embeddings: Option<PathBuf>,
        #[command(flatten)]
        config: rulelens::suggest::SuggestConfig,
        #[command(flatten)]
        refining: rulelens::suggest::RefineConfig,
    },
    /// Write one self-contained HTML page of the rules: each rule's figures (sortable and
    /// filterable), a confusion-matrix heatmap and precision against coverage per corpus,
    /// the training curves the model cache holds, the bench's results when cached, the
    /// misclassified lines with why, and the suggestions with their evidence.
    Report {
        /// The `.rules` file.
        rules: PathBuf,
        /// The HTML file to write; `-` for standard output.
        #[arg(
            short = 'o',
            long = "out",
            value_name = "FILE",
            default_value = "report.html"
        )]
        out: PathBuf,
        /// A labeled corpus (.tsv or .jsonl); repeat for several. Default: the rules
        /// file's own `corpus` bindings.
        #[arg(long = "corpus", value_name = "FILE")]
        corpora: Vec<PathBuf>,
        /// Leave the suggestions out (measuring them takes about as long as `rulelens
        /// suggest`: 2 s on the bundled SMS and TREC rules).
        #[arg(long)]
        no_suggest: bool,
        /// How many misclassified lines of each corpus the page lists.
        #[arg(long, value_name = "N", default_value_t = rulelens::report::DEFAULT_MAX_MISCLASSIFIED)]
        max_misclassified: usize,
        /// The checkpoint cache whose networks' training curves are drawn; default: the
        /// language server's, $XDG_CACHE_HOME/rulelens/models (~/.cache/rulelens/models).
        #[arg(long, value_name = "DIR")]
        model_cache: Option<PathBuf>,
        /// The bench's result cache (`rulelens bench --cache`); default:
        /// $XDG_CACHE_HOME/rulelens/bench (~/.cache/rulelens/bench).
        #[arg(long, value_name = "DIR")]
        bench_cache: Option<PathBuf>,
    },
    /// Serve the Language Server Protocol on stdin and stdout (for editors; see docs/lsp.md).
    Serve {
        /// Accepted for clients that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Print the automata of a rules file as Graphviz DOT.
    Dot {
        /// The `.rules` file.
        rules: PathBuf,
        /// Only this pattern (a name, or `LABEL@LINE` for an anonymous pattern).
        #[arg(long, value_name = "NAME")]
        pattern: Option<String>,
        #[command(flatten)]
        limits: AutomataLimits,
    },
}

/// The device a command runs its network on.
fn open(device: DeviceKind) -> anyhow::Result<candle_core::Device> {
    device.open().map_err(anyhow::Error::msg)
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BenchFormat {
    Markdown,
    Json,
}

#[derive(clap::Args, Clone, Copy)]
struct AutomataLimits {
    /// Most DFA states one pattern may need before it is reported and ignored (at most
    /// 1,000,000).
    #[arg(long, value_name = "N", default_value_t = rulelens::automata::DEFAULT_MAX_DFA_STATES as u32,
          value_parser = clap::value_parser!(u32).range(1..=rulelens::automata::MAX_DFA_STATES_CEILING as i64))]
    max_dfa_states: u32,
}

impl AutomataLimits {
    fn config(self) -> rulelens::automata::CompileConfig {
        rulelens::automata::CompileConfig {
            max_dfa_states: self.max_dfa_states as usize,
            ..Default::default()
        }
    }
}

fn main() -> ExitCode {
    // Die quietly when stdout is a closed pipe (`rulelens check … | head`), as Unix tools do,
    // instead of panicking in `print!`.
    // SAFETY: restoring a signal's default disposition at start-up, before any thread runs.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Training allocates and frees buffers of a few MB per batch; glibc would map and unmap
    // each one (`mmap` above 128 KiB), and page faults took 15 % of a training epoch. Keep
    // freed memory in the heap instead.
    // SAFETY: tuning the allocator at start-up, before any allocation-heavy work or thread.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
    // candle asks for its thread count on every matrix product and, unless this variable is
    // set, works it out again from /proc/cpuinfo each time (candle-core 0.11, `utils.rs`):
    // several file reads per scored sentence. Settle it once, at one thread: candle's
    // element-wise operations and products on these networks' small tensors run slower
    // split over threads (an FA-RNN's default training on SMS took 28.3 s on two, 24.9 s
    // on one; `docs/performance.md`), and the other core stays free for the editor.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        // SAFETY: at start-up, before any thread exists that could read the environment.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    }
    let args = Args::parse();
    if let Err(message) = args.read_limits.check() {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    if let Command::Suggest {
        config, refining, ..
    } = &args.command
        && let Err(message) = config.check().and_then(|()| refining.check(config))
    {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    if let Command::Report { out, .. } = &args.command
        && let Err(message) = cli::report::check_out(out)
    {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    let read_limits = &args.read_limits;
    let result = match args.command {
        Command::Check {
            rules,
            corpora,
            format,
            limits,
            lints,
            summary,
            quiet,
            show_errors,
        } => cli::check::run(
            &rules,
            &corpora,
            match (format, quiet, summary) {
                (Format::Json, _, _) => cli::check::Output::Json,
                (Format::Text, true, _) => cli::check::Output::Quiet,
                (Format::Text, _, true) => cli::check::Output::Summary { show_errors },
                (Format::Text, _, _) => cli::check::Output::Full { show_errors },
            },
            &limits.config(),
            &lints.levels(),
            read_limits,
        ),
        Command::Explain { code } => cli::explain::run(&code),
        Command::Init {
            corpus,
            dev,
            out,
            suggest,
        } => cli::init::run(cli::init::InitArgs {
            train: &corpus,
            dev: dev.as_deref(),
            out: out.as_deref(),
            suggest,
            read_limits,
        }),
        Command::Completions { shell } => {
            // Generated into memory: clap_complete panics on a failed write.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Args::command(), "rulelens", &mut script);
            std::io::stdout()
                .write_all(&script)
                .map(|()| ExitCode::SUCCESS)
                .context(cli::CANNOT_WRITE_STDOUT)
        }
        Command::Man => clap_mangen::Man::new(Args::command())
            .render(&mut std::io::stdout())
            .map(|()| ExitCode::SUCCESS)
            .context(cli::CANNOT_WRITE_STDOUT),
        Command::Train {
            rules,
            train,
            dev,
            settings,
            out,
            from,
        } => open(settings.device).and_then(|_| {
            cli::train::run(cli::train::TrainArgs {
                rules,
                train,
                dev,
                settings,
                out,
                from,
                read_limits,
            })
        }),
        Command::Eval {
            model_dir,
            corpus,
            format,
            zero_shot,
            device,
        } => open(device).and_then(|device| {
            cli::eval::run(
                &model_dir,
                &corpus,
                format == Format::Json,
                zero_shot,
                &device,
                read_limits,
            )
        }),
        Command::Classify {
            rules,
            texts,
            format,
            expect,
            max_listed,
        } => cli::classify::run(
            &rules,
            texts,
            match format {
                Format::Text => cli::classify::Output::Text,
                Format::Json => cli::classify::Output::Json,
            },
            expect.as_deref(),
            max_listed,
            read_limits,
        ),
        Command::Predict {
            model_dir,
            texts,
            format,
            top,
            zero_shot,
        } => cli::predict::run(
            &model_dir,
            texts,
            match format {
                Format::Text => cli::predict::Output::Text,
                Format::Json => cli::predict::Output::Json,
            },
            top,
            zero_shot,
            read_limits,
        ),
        Command::Polarity {
            model_dir,
            phrases,
            format,
            negation,
        } => cli::polarity::run(
            &model_dir,
            phrases,
            format == Format::Json,
            negation,
            read_limits,
        ),
        Command::Reconstruct {
            model_dir,
            threshold,
            max_listed,
            format,
            corpus,
            zero_shot,
            backward,
            device,
        } => open(device).and_then(|device| {
            let config = rulelens::explain::ReconstructConfig {
                threshold,
                max_listed,
            };
            cli::reconstruct::run(cli::reconstruct::ReconstructArgs {
                model_dir: &model_dir,
                corpus: corpus.as_deref(),
                config,
                output: format,
                zero_shot,
                backward,
                device: &device,
                read_limits,
            })
        }),
        Command::Suggest {
            rules,
            format,
            diff,
            write,
            train,
            dev,
            model,
            embeddings,
            config,
            refining,
        } => cli::suggest::run(cli::suggest::SuggestArgs {
            rules_path: &rules,
            train: train.as_deref(),
            dev: dev.as_deref(),
            model_dir: model.as_deref(),
            embeddings: embeddings.as_deref(),
            config: &config,
            refining: &refining,
            output: match (diff, write) {
                (true, _) => cli::suggest::Output::Diff,
                (_, true) => cli::suggest::Output::Write,
                _ => cli::suggest::Output::Format(format),
            },
            read_limits,
        }),
        Command::Bench {
            rules,
            train,
            dev,
            models,
            fractions,
            seeds,
            embeddings,
            epochs,
            patience,
            batch_size,
            device,
            format,
            cache,
            no_cache,
            cached_only,
        } => cli::bench::run(cli::bench::BenchArgs {
            rules,
            train,
            dev,
            plan: BenchPlan {
                contenders: models,
                fractions,
                seeds: (0..seeds).collect(),
                settings: TrainingSettings {
                    embeddings,
                    epochs,
                    patience,
                    batch_size,
                    device,
                    ..TrainingSettings::DEFAULT
                },
            },
            cache: (!no_cache).then(|| cache.unwrap_or_else(rulelens::project::default_bench_root)),
            cached_only,
            json_output: format == BenchFormat::Json,
            read_limits,
        }),
        Command::Report {
            rules,
            out,
            corpora,
            no_suggest,
            max_misclassified,
            model_cache,
            bench_cache,
        } => cli::report::run(cli::report::ReportArgs {
            rules_path: &rules,
            corpora: &corpora,
            out: &out,
            suggest: !no_suggest,
            max_misclassified,
            model_cache: model_cache.unwrap_or_else(rulelens::project::default_cache_root),
            bench_cache: bench_cache.unwrap_or_else(rulelens::project::default_bench_root),
            read_limits,
        }),
        Command::Dot {
            rules,
            pattern,
            limits,
        } => cli::dot::run(&rules, pattern.as_deref(), &limits.config(), read_limits),
        Command::Serve { stdio: _ } => rulelens::lsp::serve_stdio()
            .map(|ending| match ending {
                rulelens::lsp::Ending::Clean => ExitCode::SUCCESS,
                rulelens::lsp::Ending::Abrupt => ExitCode::from(1),
            })
            .map_err(anyhow::Error::from),
    };
    // What is still buffered: a last line without its newline.
    let result = result.and_then(|code| {
        std::io::stdout()
            .flush()
            .map(|()| code)
            .context(cli::CANNOT_WRITE_STDOUT)
    });
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(1)
        }
    }
}
