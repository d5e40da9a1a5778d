//! `rulelens train RULES …`: compile the rules to an FA-RNN, FA-GRU or a bidirectional
//! one, train it on the labeled corpus and write a checkpoint (see `models/README.md`).

use super::files::{Shown, load_rules, print_diagnostics};
use anyhow::{Context, bail};
use candle_core::{Device, Tensor};
use indicatif::{ProgressBar, ProgressStyle};
use rulelens::automata::{CompileConfig, RuleSystem, compile_reversed};
use rulelens::corpus;
use rulelens::model::checkpoint::{
    self, DecompositionRecord, EmbeddingsIdentity, Hyperparameters, Manifest, Metrics, ModelKind,
    RulesIdentity, ScoringName,
};
use rulelens::model::{
    BiFaRnn, Decomposition, EpochReport, FaRnn, LabeledSentence, Method, Network, RankChoice,
    Scoring, TrainConfig, WeightedAutomaton, WordInput, decomposition, evenly_spaced, labeled,
    read_glove, train, vocabulary,
};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `rulelens train` was asked for.
pub struct TrainArgs {
    pub rules: PathBuf,
    pub model: ModelKind,
    pub train: Option<PathBuf>,
    pub dev: Option<PathBuf>,
    pub scoring: Scoring,
    pub embeddings: Option<PathBuf>,
    pub beta: f64,
    pub rank: RankChoice,
    pub fraction: f64,
    pub config: TrainConfig,
    pub device: Device,
    pub out: Option<PathBuf>,
}

/// The path of the corpus bound as `name`, or the one given.
fn corpus_path(
    loaded: &rulelens::rules_file::RulesFile,
    given: Option<&Path>,
    name: &str,
) -> anyhow::Result<PathBuf> {
    if let Some(path) = given {
        return Ok(path.to_path_buf());
    }
    let rules_path = loaded.path.as_deref().unwrap_or(Path::new(""));
    match loaded
        .rules
        .corpora
        .iter()
        .find(|binding| binding.name == name)
    {
        Some(binding) => Ok(corpus::resolve_binding(rules_path, &binding.path)),
        None => bail!(
            "no {name} corpus: bind one in {} (`corpus {name} \"{name}.tsv\"`) or pass --{name} FILE",
            rules_path.display()
        ),
    }
}

fn read_corpus(path: &Path) -> anyhow::Result<corpus::CorpusFile> {
    let file = corpus::read_file(path)?;
    if !file.diagnostics.is_empty() {
        let index = rulelens::text::LineIndex::new(&file.source.text);
        let shown = Shown {
            path,
            text: &file.source.text,
            index: &index,
        };
        print_diagnostics(&shown, &file.diagnostics);
    }
    Ok(file)
}

pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    let loaded = load_rules(&args.rules, &CompileConfig::default())?;
    if loaded.has_errors() {
        print_diagnostics(&Shown::of_rules(&loaded), &loaded.diagnostics);
        eprintln!(
            "error: {} has errors; fix them before training",
            args.rules.display()
        );
        return Ok(ExitCode::from(1));
    }
    if !(0.0..=1.0).contains(&args.beta) {
        bail!("--beta must be between 0 and 1, not {}", args.beta);
    }
    if !(args.fraction > 0.0 && args.fraction <= 1.0) {
        bail!("--fraction must be in (0, 1], not {}", args.fraction);
    }
    let system = &loaded.system;
    let train_path = corpus_path(&loaded, args.train.as_deref(), "train")?;
    let dev_path = corpus_path(&loaded, args.dev.as_deref(), "dev")?;
    let train_file = read_corpus(&train_path)?;
    let dev_file = read_corpus(&dev_path)?;

    let words = match &args.embeddings {
        Some(path) => {
            let vocabulary = vocabulary(
                system,
                [train_file.examples.as_slice(), dev_file.examples.as_slice()],
            );
            let vectors = read_glove(path, &vocabulary)?;
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let identity = EmbeddingsIdentity {
                path: std::path::absolute(path)?,
                sha256: checkpoint::sha256_hex(&bytes),
                dim: vectors.dim,
                found: vectors.n_found,
                backed_off: vectors.n_backed_off,
                beta: args.beta,
            };
            Some((
                WordInput {
                    vocabulary,
                    vectors,
                    beta: args.beta,
                },
                identity,
            ))
        }
        None if args.beta < 1.0 => {
            bail!("--beta below 1 mixes in word embeddings: pass --embeddings FILE")
        }
        None => None,
    };
    let vocabulary = words.as_ref().map(|(input, _)| &input.vocabulary);
    let (all_train, _) = labeled(system, vocabulary, &train_file.examples);
    let (all_dev, _) = labeled(system, vocabulary, &dev_file.examples);
    let pick = |data: &[LabeledSentence], indices: Vec<usize>| -> Vec<LabeledSentence> {
        indices.into_iter().map(|i| data[i].clone()).collect()
    };
    let train_data = pick(&all_train, evenly_spaced(all_train.len(), args.fraction));
    // As in the reference code: at 1 % or less, the dev set shrinks to the training set's
    // size (evenly spaced too).
    let dev_data = if args.fraction <= 0.01 {
        pick(
            &all_dev,
            evenly_spaced(
                all_dev.len(),
                train_data.len() as f64 / all_dev.len().max(1) as f64,
            ),
        )
    } else {
        all_dev
    };
    if train_data.is_empty() || dev_data.is_empty() {
        bail!(
            "no labeled example whose label the rules know in {} or {}",
            train_path.display(),
            dev_path.display()
        );
    }

    let word_input = words.as_ref().map(|(input, _)| input);
    let build = |system: &RuleSystem, seed: u64| -> anyhow::Result<(FaRnn, Decomposition)> {
        let automaton = WeightedAutomaton::new(system);
        let decomposed = decomposition(&automaton, args.rank, seed);
        let mut net = FaRnn::new(
            system,
            &automaton,
            &decomposed,
            word_input,
            args.scoring,
            &args.device,
        )?;
        if args.model.is_gated() {
            net = net.with_gates(seed)?;
        }
        eprintln!(
            "{}{}: {} states, rank {} ({}, relative error {:.2e})",
            args.rules.display(),
            if std::ptr::eq(system, &loaded.system) {
                ""
            } else {
                " reversed"
            },
            automaton.n_states,
            decomposed.rank(),
            if decomposed.method == Method::Exact {
                "exact"
            } else {
                "ALS"
            },
            decomposed.relative_error,
        );
        Ok((net, decomposed))
    };
    let (forward, decomposed) = build(system, args.config.seed)?;
    let (net, backward_decomposed): (Box<dyn Network>, _) = if args.model.is_bidirectional() {
        let (reversed, too_large) =
            compile_reversed(&loaded.rules, system, &CompileConfig::default());
        for name in too_large {
            eprintln!(
                "warning: the reversed automaton of pattern `{name}` passes the state cap; the backward direction ignores the pattern"
            );
        }
        let (backward, decomposed) = build(&reversed, args.config.seed.wrapping_add(1))?;
        (Box::new(BiFaRnn { forward, backward }), Some(decomposed))
    } else {
        (Box::new(forward), None)
    };
    // Copies: the network's tensors share storage with the parameters training updates.
    let initial: Vec<(String, Tensor)> = net
        .named_tensors()
        .into_iter()
        .map(|(name, tensor)| Ok((name, tensor.copy()?)))
        .collect::<candle_core::Result<_>>()?;
    eprintln!(
        "{} training and {} dev sentences",
        train_data.len(),
        dev_data.len()
    );

    let progress = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(args.config.epochs as u64);
        bar.set_style(
            ProgressStyle::with_template("epoch {pos}/{len} {bar:30} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Some(bar)
    } else {
        None
    };
    let mut on_epoch = |report: &EpochReport| {
        let line = format!(
            "loss {}  dev accuracy {:.2}%{}{}",
            report
                .loss
                .map_or_else(|| "-".to_string(), |l| format!("{l:.4}")),
            100.0 * report.dev_accuracy,
            if report.best { " (best)" } else { "" },
            match report.skipped_batches {
                0 => String::new(),
                n => format!("  ({n} batches skipped: loss not finite)"),
            }
        );
        match &progress {
            Some(bar) => {
                bar.set_position(report.epoch as u64);
                bar.set_message(line);
            }
            None => eprintln!("epoch {}: {line}", report.epoch),
        }
    };
    let report = train(
        net.as_ref(),
        &train_data,
        &dev_data,
        &args.config,
        &args.device,
        &mut on_epoch,
        &|| false,
    )?;
    if let Some(bar) = &progress {
        bar.finish();
    }

    let mut tensors: HashMap<String, Tensor> = net.named_tensors().into_iter().collect();
    let trained = net.parameter_names();
    for (name, tensor) in initial {
        if trained.contains(&name) {
            tensors.insert(format!("initial.{name}"), tensor);
        }
    }
    let rules_bytes = std::fs::read(&args.rules)?;
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = args
            .rules
            .file_stem()
            .map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
        PathBuf::from("models").join(stem)
    });
    let mut manifest = Manifest {
        format_version: checkpoint::FORMAT_VERSION,
        model: args.model,
        scoring: match args.scoring {
            Scoring::Forward => ScoringName::Forward,
            Scoring::Viterbi => ScoringName::Viterbi,
        },
        rules: RulesIdentity {
            path: std::path::absolute(&args.rules)?,
            sha256: checkpoint::sha256_hex(&rules_bytes),
        },
        labels: system.labels().to_vec(),
        decomposition: record(&decomposed),
        backward_decomposition: backward_decomposed.as_ref().map(record),
        embeddings: words.as_ref().map(|(_, identity)| identity.clone()),
        vocabulary: words
            .as_ref()
            .map(|(input, _)| input.vocabulary.words().to_vec())
            .unwrap_or_default(),
        hyperparameters: Hyperparameters {
            epochs: args.config.epochs,
            batch_size: args.config.batch_size,
            learning_rate: args.config.learning_rate,
            patience: args.config.patience,
            logit_scale: args.config.logit_scale,
            seed: args.config.seed,
            fraction: args.fraction,
        },
        metrics: Metrics {
            train_examples: train_data.len(),
            dev_examples: dev_data.len(),
            zero_shot_dev_accuracy: report.history.first().map_or(0.0, |e| e.dev_accuracy),
            dev_accuracy: report.best_dev_accuracy,
            best_epoch: report.best_epoch,
            epochs_run: report.history.len() - 1,
            training_seconds: report.history.iter().map(|e| e.seconds).sum(),
        },
        weights_sha256: String::new(),
        tensors: Default::default(),
    };
    checkpoint::save(&out, &mut manifest, &tensors)?;
    println!(
        "dev accuracy {:.2}% (untrained {:.2}%, best epoch {} of {}); checkpoint written to {}",
        100.0 * manifest.metrics.dev_accuracy,
        100.0 * manifest.metrics.zero_shot_dev_accuracy,
        manifest.metrics.best_epoch,
        manifest.metrics.epochs_run,
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn record(decomposed: &Decomposition) -> DecompositionRecord {
    DecompositionRecord {
        method: match decomposed.method {
            Method::Exact => "exact",
            Method::Als => "als",
        }
        .to_string(),
        rank: decomposed.rank(),
        relative_error: decomposed.relative_error,
    }
}
