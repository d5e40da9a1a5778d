//! The `rulelens` command line: parses arguments with clap, calls the library, prints.
//!
//! Exit codes: 0 when the input is clean (warnings allowed), 1 when it has errors or cannot
//! be read, 2 for usage errors (clap's own code).

mod cli;

use anyhow::Context as _;
use clap::{CommandFactory, Parser, Subcommand};
use rulelens::limits::ReadLimits;
use std::io::Write as _;
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
    Check(cli::check::CheckArgs),
    /// Start a rules file from a labeled corpus: its labels, the majority label as the
    /// default, and the corpus bindings.
    Init(cli::init::InitArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions { shell: clap_complete::Shell },
    /// Print the manual page (roff) of rulelens.
    Man,
    /// Print the documentation of a diagnostic code (`docs/diagnostics.md`): what it
    /// reports, why, an example and what to write instead.
    Explain(cli::explain_code::ExplainArgs),
    /// Compile a rules file to an FA-RNN, train it on the labeled corpus, write a checkpoint.
    /// Every default is the best setting measured on the SMS and TREC dev sets.
    Train(cli::train::TrainArgs),
    /// Evaluate a checkpoint's network on a labeled corpus.
    Eval(cli::eval::EvalArgs),
    /// What the rules alone say about sentences (the arguments, or each line of standard
    /// input): the label, the rule that decided it, every rule that fired and where.
    Classify(cli::classify::ClassifyArgs),
    /// Label sentences with a trained network: the arguments, or each line of standard input.
    Predict(cli::predict::PredictArgs),
    /// An MVMA-G's phrase polarities (exact: each phrase's n-gram read out by each label),
    /// and the negation check.
    Polarity(cli::polarity::PolarityArgs),
    /// Train and measure every model family on the rules file's corpora, side by side: the
    /// rule system, FA-RNN, FA-GRU, their bidirectional versions, SoPa, S-LSTM and MVMA-G,
    /// on shares of train with several seeds, each measured on all of dev; a Markdown
    /// table (mean ± sd over seeds) or JSON.
    Bench(cli::bench::BenchArgs),
    /// Read a trained network's patterns back as regular expressions.
    Reconstruct(cli::reconstruct::ReconstructArgs),
    /// Suggest edits of a rules file learned from its `train` corpus and validated on its
    /// `dev` corpus, each with its evidence; or print the rules with them applied.
    Suggest(cli::suggest::SuggestArgs),
    /// Write one self-contained HTML page of the rules: each rule's figures (sortable and
    /// filterable), a confusion-matrix heatmap and precision against coverage per corpus,
    /// the training curves the model cache holds, the bench's results when cached, the
    /// misclassified lines with why, and the suggestions with their evidence.
    Report(cli::report::ReportArgs),
    /// Serve the Language Server Protocol on stdin and stdout (for editors; see docs/lsp.md).
    Serve {
        /// Accepted for clients that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Print the automata of a rules file as Graphviz DOT.
    Dot(cli::dot::DotArgs),
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
    let read_limits = &args.read_limits;
    let result = match args.command {
        Command::Check(check) => cli::check::run(check, read_limits),
        Command::Explain(explain) => cli::explain_code::run(explain),
        Command::Init(init) => cli::init::run(init, read_limits),
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
        Command::Train(train) => cli::train::run(train, read_limits),
        Command::Eval(eval) => cli::eval::run(eval, read_limits),
        Command::Classify(classify) => cli::classify::run(classify, read_limits),
        Command::Predict(predict) => cli::predict::run(predict, read_limits),
        Command::Polarity(polarity) => cli::polarity::run(polarity, read_limits),
        Command::Reconstruct(reconstruct) => cli::reconstruct::run(reconstruct, read_limits),
        Command::Suggest(suggest) => cli::suggest::run(suggest, read_limits),
        Command::Bench(bench) => cli::bench::run(bench, read_limits),
        Command::Report(report) => cli::report::run(report, read_limits),
        Command::Dot(dot) => cli::dot::run(dot, read_limits),
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
