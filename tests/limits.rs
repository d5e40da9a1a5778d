//! Inputs that once cost unbounded time or memory, or panicked (issue 14), each with the
//! check that now holds: forged checkpoints are refused, reads stop at their limit, rules
//! without patterns train, and analysis memory grows linearly in patterns and labels
//! (measured by a counting allocator, so the figures are allocations, not timings); and
//! the command line answers every input of `tests/data/abuse` (its README says what each
//! one once did).

use candle_core::{Device, Tensor};
use rulelens::automata::{CompileConfig, evaluate};
use rulelens::corpus::{self, Example};
use rulelens::limits::{Bytes, ReadLimits};
use rulelens::model::checkpoint::{self, CheckpointError};
use rulelens::model::{ModelKind, Scoring, SopaSettings, TrainingSettings, fit, load_model};
use rulelens::rules_file::RulesFile;
use rulelens::text::SourceText;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The tests of this file run one at a time, so that a peak is one test's own.
static MEASURING: Mutex<()> = Mutex::new(());

/// The most bytes live at once while `run` runs, above what was live before.
fn peak_bytes_of<T>(run: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = run();
    (out, PEAK.load(Ordering::Relaxed) - before)
}

const MB: usize = 1 << 20;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/train")
        .join(name)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rulelens-limits-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn examples(name: &str) -> Vec<Example> {
    corpus::read_file(&fixture(name), &ReadLimits::DEFAULT)
        .unwrap()
        .examples
}

#[test]
fn twenty_thousand_patterns_cost_linear_memory() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let mut text = String::from("default ham\n");
    for i in 0..20_000 {
        text.push_str(&format!("spam: $* word{i} $*\n"));
    }
    // Before issue 14 every pattern's DFA held a class for every literal of the file, and
    // the checks hashed them: 1.6 GB here, quadratic in the patterns.
    let (file, peak) = peak_bytes_of(|| {
        RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            None,
            &CompileConfig::default(),
        )
    });
    assert_eq!(file.system.patterns().len(), 20_000);
    assert!(!file.has_errors());
    assert!(peak < 200 * MB, "{} MB", peak / MB);
}

#[test]
fn building_an_automaton_costs_bounded_work() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // Under the state cap, but with subsets of thousands of NFA states: the subset
    // construction took 29 s and 758 MB (found by the `compile` fuzz target). Now its work
    // is capped with its states (E0305).
    let text = "default ham\nspam: $* (a+{1000}){4} $*\n";
    let (file, peak) = peak_bytes_of(|| {
        RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            None,
            &CompileConfig::default(),
        )
    });
    assert!(
        file.diagnostics
            .iter()
            .any(|d| d.code == rulelens::diagnostic::Code::AutomatonTooLarge),
        "{:?}",
        file.diagnostics
    );
    assert!(peak < 256 * MB, "{} MB", peak / MB);
}

#[test]
fn a_hundred_thousand_gold_labels_cost_linear_memory() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let text = "default ham\nspam: $* foo $*\n";
    let file = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &CompileConfig::default(),
    );
    let gold: Vec<String> = (0..100_000).map(|i| format!("lab{i}")).collect();
    // Before issue 14 the confusion matrix was dense: 100k labels asked for 80 GB.
    let (evaluation, peak) = peak_bytes_of(|| {
        evaluate(
            &file.system,
            gold.iter().map(|label| ("foo", Some(label.as_str()))),
        )
    });
    assert_eq!(evaluation.label_names.len(), 100_002);
    assert_eq!(evaluation.confusion(2, Some(0)), 1);
    assert_eq!(evaluation.confusion(2, Some(1)), 0);
    assert!(peak < 128 * MB, "{} MB", peak / MB);
}

#[test]
fn reads_stop_at_their_limit() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let zero = Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    // Once `rulelens check /dev/zero` read until memory ran out; a device is now refused by
    // its type, before anything is read.
    let error = rulelens::text::read_capped(zero, 1 << 20).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    let error = RulesFile::read(zero, &CompileConfig::default(), &ReadLimits::DEFAULT).unwrap_err();
    assert_eq!(error.to_string(), "not a regular file: a character device");
    let vocabulary = rulelens::model::Vocabulary::new(["free"]);
    let error = rulelens::model::read_glove(zero, &vocabulary, &ReadLimits::DEFAULT).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("not a regular file: a character device"),
        "{error}"
    );
    // A regular file past the limit is refused by its length (a sparse file: no disk).
    let dir = std::env::temp_dir().join(format!("rulelens-limits-stop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let large = dir.join("large.rules");
    std::fs::File::create(&large)
        .unwrap()
        .set_len(2 << 20)
        .unwrap();
    let error = rulelens::text::read_capped(&large, 1 << 20).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::FileTooLarge);
    // Word vectors are read line by line, each line capped.
    let vectors = dir.join("vectors.txt");
    std::fs::write(&vectors, vec![b'0'; 100 << 10]).unwrap();
    let error =
        rulelens::model::read_glove(&vectors, &vocabulary, &ReadLimits::DEFAULT).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("larger than the 64KiB a word-vectors line may have"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_read_limit_names_its_option_and_an_option_moves_it() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let corpus = fixture("train.tsv");
    let size = std::fs::metadata(&corpus).unwrap().len();
    let limits = |bytes: u64| ReadLimits {
        max_corpus_bytes: Bytes(bytes),
        max_rules_bytes: Bytes(bytes),
        ..ReadLimits::DEFAULT
    };
    let error = corpus::read_file(&corpus, &limits(size - 1)).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: larger than the {} a corpus file may have (raise it with `--max-corpus-bytes`, or the server's `rulelens.limits.maxCorpusBytes`)",
            corpus.display(),
            size - 1
        )
    );
    assert!(corpus::read_file(&corpus, &limits(size)).is_ok());
    let rules = fixture("tiny.rules");
    let error = RulesFile::read(&rules, &CompileConfig::default(), &limits(10)).unwrap_err();
    assert!(error.to_string().contains("`--max-rules-bytes`"), "{error}");
    // A checkpoint whose tensor shapes need more than the weights limit is refused before
    // its weights are read; raising the limit loads it.
    let dir = checkpoint_dir("weights-limit");
    let weights = std::fs::metadata(dir.join(checkpoint::WEIGHTS_FILE))
        .unwrap()
        .len();
    let small = ReadLimits {
        max_weights_bytes: Bytes(weights / 2),
        ..ReadLimits::DEFAULT
    };
    match load_model(&dir, false, &Device::Cpu, &small) {
        Err(CheckpointError::Corrupt { message, .. }) => {
            assert!(message.contains("`--max-weights-bytes`"), "{message}")
        }
        other => panic!("{:?}", other.err()),
    }
    let manifest = ReadLimits {
        max_manifest_bytes: Bytes(100),
        ..ReadLimits::DEFAULT
    };
    let error = load_model(&dir, false, &Device::Cpu, &manifest)
        .err()
        .unwrap();
    assert!(
        error.to_string().contains("`--max-manifest-bytes`"),
        "{error}"
    );
    load_model(&dir, false, &Device::Cpu, &ReadLimits::DEFAULT).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rules_without_patterns_train_for_every_model_and_scoring() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let text = "default ham\n";
    let rules = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &CompileConfig::default(),
    );
    let (train, dev) = (examples("train.tsv"), examples("dev.tsv"));
    for model in [
        ModelKind::FaRnn,
        ModelKind::FaGru,
        ModelKind::BiFaRnn,
        ModelKind::BiFaGru,
    ] {
        for scoring in [Scoring::Forward, Scoring::Viterbi] {
            let settings = TrainingSettings {
                model,
                scoring,
                epochs: 2,
                ..TrainingSettings::default()
            };
            // This panicked in the recurrence ("chunk size must be non-zero").
            let fitted = fit(
                &rules,
                &train,
                &dev,
                &settings,
                &ReadLimits::DEFAULT,
                &mut |_| {},
                &|| false,
            )
            .unwrap_or_else(|error| panic!("{model:?} {scoring:?}: {error}"));
            // It learns the corpus's other label from word vectors.
            assert_eq!(fitted.manifest.labels, ["ham", "spam"]);
        }
    }
    // So does SoPa, with free patterns or (uselessly) without.
    for patterns in ["none", "3:2"] {
        let settings = TrainingSettings {
            model: ModelKind::Sopa,
            epochs: 2,
            sopa: SopaSettings {
                patterns: patterns.parse().unwrap(),
                ..SopaSettings::DEFAULT
            },
            ..TrainingSettings::default()
        };
        let fitted = fit(
            &rules,
            &train,
            &dev,
            &settings,
            &ReadLimits::DEFAULT,
            &mut |_| {},
            &|| false,
        )
        .unwrap_or_else(|error| panic!("SoPa {patterns}: {error}"));
        assert_eq!(fitted.manifest.labels, ["ham", "spam"]);
    }
    // So do the black boxes, which read no rules.
    for model in [ModelKind::Slstm, ModelKind::MvmaG] {
        let settings = TrainingSettings {
            model,
            epochs: 2,
            ..TrainingSettings::default()
        };
        let fitted = fit(
            &rules,
            &train,
            &dev,
            &settings,
            &ReadLimits::DEFAULT,
            &mut |_| {},
            &|| false,
        )
        .unwrap_or_else(|error| panic!("{model:?}: {error}"));
        assert_eq!(fitted.manifest.labels, ["ham", "spam"]);
    }
}

#[test]
fn an_slstm_sentence_past_the_training_memory_limit_on_its_own_is_refused_before_training() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let rules = RulesFile::read(
        &fixture("bare.rules"),
        &CompileConfig::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let (mut train, dev) = (examples("train.tsv"), examples("dev.tsv"));
    train.push(Example {
        text: ["free", "cash", "mum", "dinner"].repeat(25_000).join(" "),
        label: Some("spam".to_string()),
        line: train.len() as u32,
        text_range: None,
        label_range: None,
    });
    let settings = TrainingSettings {
        model: ModelKind::Slstm,
        max_sentence_tokens: 1 << 20,
        epochs: 1,
        ..TrainingSettings::default()
    };
    // One sentence of 100,000 tokens, 50 hidden units and 9 steps: about 27 GB counted,
    // past the 8 GiB a batch may keep even alone (longer batches are split, train.rs).
    let (result, peak) = peak_bytes_of(|| {
        fit(
            &rules,
            &train,
            &dev,
            &settings,
            &ReadLimits::DEFAULT,
            &mut |_| {},
            &|| false,
        )
    });
    let error = result.err().expect("refused").to_string();
    assert!(
        error.contains("100000 tokens") && error.contains("lower max sentence tokens"),
        "{error}"
    );
    assert!(peak < 512 * MB, "{} MB", peak / MB);
}

#[test]
fn a_sentence_of_a_million_tokens_trains_in_bounded_memory() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let rules = RulesFile::read(
        &fixture("tiny.rules"),
        &CompileConfig::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let (mut train, dev) = (examples("train.tsv"), examples("dev.tsv"));
    let long = ["free", "cash", "mum", "dinner"].repeat(250_000).join(" ");
    train.push(Example {
        text: long,
        label: Some("spam".to_string()),
        line: train.len() as u32,
        text_range: None,
        label_range: None,
    });
    let settings = TrainingSettings {
        epochs: 1,
        ..TrainingSettings::default()
    };
    // Batches were padded to the longest sentence: a 10 MB line asked for 42 GB.
    let (truncated, peak) = peak_bytes_of(|| truncated_sentences(&rules, &train, &dev, &settings));
    assert_eq!(truncated, 1);
    assert!(peak < 512 * MB, "{} MB", peak / MB);
    // The setting moves the cut: a sentence of 2,000 tokens is read whole under 4,096.
    train.last_mut().unwrap().text = ["free", "cash"].repeat(1_000).join(" ");
    let raised = TrainingSettings {
        max_sentence_tokens: 4096,
        ..settings
    };
    assert_eq!(truncated_sentences(&rules, &train, &dev, &raised), 0);
}

/// Trains, and says how many sentences the network read only in part.
fn truncated_sentences(
    rules: &RulesFile,
    train: &[Example],
    dev: &[Example],
    settings: &TrainingSettings,
) -> usize {
    let mut truncated = None;
    fit(
        rules,
        train,
        dev,
        settings,
        &ReadLimits::DEFAULT,
        &mut |event| {
            if let rulelens::model::FitEvent::Data { n_truncated, .. } = event {
                truncated = Some(n_truncated);
            }
        },
        &|| false,
    )
    .unwrap();
    truncated.expect("a Data event")
}

#[test]
fn a_network_past_its_size_limit_is_refused_before_it_is_built() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let mut text = String::from("default ham\n");
    for i in 0..10_000 {
        text.push_str(&format!("spam: $* word{i} $*\n"));
    }
    let rules = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &CompileConfig::default(),
    );
    let (train, dev) = (examples("train.tsv"), examples("dev.tsv"));
    // 20,000 states: the dense K × K matrices alone would take 1.6 GB each.
    let (result, peak) = peak_bytes_of(|| {
        fit(
            &rules,
            &train,
            &dev,
            &TrainingSettings::default(),
            &ReadLimits::DEFAULT,
            &mut |_| {},
            &|| false,
        )
    });
    let Err(error) = result else {
        panic!("a network of 20,000 states was built");
    };
    assert!(error.to_string().contains("more than the 8192"), "{error}");
    assert!(peak < 64 * MB, "{} MB", peak / MB);
}

/// A checkpoint of the tiny fixture, trained briefly, in a fresh folder.
fn checkpoint_dir(name: &str) -> PathBuf {
    let rules = RulesFile::read(
        &fixture("tiny.rules"),
        &CompileConfig::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let settings = TrainingSettings {
        epochs: 1,
        ..TrainingSettings::default()
    };
    let (train, dev) = (examples("train.tsv"), examples("dev.tsv"));
    let mut fitted = fit(
        &rules,
        &train,
        &dev,
        &settings,
        &ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .unwrap();
    let dir = temp_dir(name);
    fitted.save(&dir).unwrap();
    load_model(&dir, false, &Device::Cpu, &ReadLimits::DEFAULT).unwrap();
    dir
}

/// An edit of a checkpoint's manifest.
type Forgery = fn(&mut serde_json::Value);

/// Rewrites the manifest through `edit`.
fn edit_manifest(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join(checkpoint::MANIFEST_FILE);
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut manifest);
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

fn refusal(dir: &Path) -> String {
    match load_model(dir, false, &Device::Cpu, &ReadLimits::DEFAULT) {
        Ok(_) => panic!("the forged checkpoint in {} was accepted", dir.display()),
        Err(error) => error.to_string(),
    }
}

#[test]
fn forged_checkpoints_are_refused() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // Manifest fields that contradict the weights or the rules.
    let forgeries: [(&str, Forgery, &str); 8] = [
        (
            "labels",
            |m| m["labels"].as_array_mut().unwrap().reverse(),
            "labels",
        ),
        ("rank", |m| m["decomposition"]["rank"] = 7.into(), "rank"),
        (
            "vocabulary",
            |m| {
                m["vocabulary"].as_array_mut().unwrap().pop();
            },
            "vocabulary",
        ),
        (
            "embeddings",
            |m| m["embeddings"]["dim"] = 3.into(),
            "dimensions",
        ),
        // Settings out of their ranges gave silently wrong figures (issue 51): beta 5 moved
        // eval's accuracy, a logit scale of 0 made every probability one half.
        (
            "beta",
            |m| m["settings"]["beta"] = 5.into(),
            "its settings: beta must be in [0, 1], not 5",
        ),
        (
            "logit-scale-0",
            |m| m["settings"]["logitScale"] = 0.into(),
            "its settings: logit scale must be in (0, 1000000], not 0",
        ),
        (
            "logit-scale-negative",
            |m| m["settings"]["logitScale"] = (-10).into(),
            "its settings: logit scale must be in (0, 1000000], not -10",
        ),
        (
            "max-sentence-tokens",
            |m| m["settings"]["maxSentenceTokens"] = 0.into(),
            "its settings: max sentence tokens must be between 1 and 1048576, not 0",
        ),
    ];
    for (name, forge, expected) in forgeries {
        let dir = checkpoint_dir(name);
        edit_manifest(&dir, forge);
        let message = refusal(&dir);
        assert!(message.contains(expected), "{name}: {message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // NaN weights, with the hash recomputed: they evaluated silently to the default label;
    // and absurd ones, 10³⁰: every pattern scored 1.00.
    let dir = checkpoint_dir("nan");
    let weights = dir.join(checkpoint::WEIGHTS_FILE);
    let original = candle_core::safetensors::load(&weights, &Device::Cpu).unwrap();
    for value in [f32::NAN, 1e30, -1e30] {
        let mut tensors = original.clone();
        let d1 = &tensors["d1"];
        let forged = Tensor::full(value, d1.dims(), &Device::Cpu).unwrap();
        tensors.insert("d1".to_string(), forged);
        candle_core::safetensors::save(&tensors, &weights).unwrap();
        let hash = rulelens::digest::sha256_hex(&std::fs::read(&weights).unwrap());
        edit_manifest(&dir, |m| m["weights_sha256"] = hash.into());
        let message = refusal(&dir);
        assert!(
            message.contains("tensor `d1` holds values that are not finite numbers of at most"),
            "{value}: {message}"
        );
        assert!(matches!(
            checkpoint::load(&dir, &Device::Cpu, &ReadLimits::DEFAULT),
            Err(CheckpointError::Corrupt { .. })
        ));
    }

    // A weights file far larger than its manifest's shapes is refused before it is read
    // (a sparse file: it takes no disk).
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&weights)
        .unwrap();
    file.set_len(3 << 30).unwrap();
    let message = refusal(&dir);
    assert!(message.contains("larger than"), "{message}");

    std::fs::remove_dir_all(&dir).unwrap();

    // A rules path that never ends: eval, predict and reconstruct read it to 23 GB.
    if Path::new("/dev/zero").exists() {
        let dir = checkpoint_dir("endless");
        edit_manifest(&dir, |m| m["rules"]["path"] = "/dev/zero".into());
        let message = refusal(&dir);
        assert!(
            message.contains("not a regular file: a character device"),
            "{message}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn every_input_under_tests_data_abuse_gets_an_answer() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let out = temp_dir("abuse");
    let out = out.to_str().unwrap();
    let abuse = |name: &str| root.join("abuse").join(name);
    let tiny = root.join("train/tiny.rules");
    // (arguments, exit status, what the output must say)
    let cases: Vec<(Vec<String>, i32, &str)> = vec![
        (
            args(&[
                "train",
                path(&abuse("no_rules.rules")),
                "--epochs",
                "1",
                "--out",
                out,
            ]),
            0,
            "checkpoint written",
        ),
        (
            args(&[
                "train",
                path(&abuse("no_rules.rules")),
                "--epochs",
                "1",
                "--scoring",
                "viterbi",
                "--model",
                "fa-gru",
                "--out",
                out,
            ]),
            0,
            "checkpoint written",
        ),
        (
            args(&["check", path(&abuse("subset_work.rules"))]),
            1,
            "E0305",
        ),
        (
            args(&["train", path(&tiny), "--batch-size", "0", "--out", out]),
            2,
            "batch size must be between 1 and 65536",
        ),
        (
            args(&["train", path(&tiny), "--logit-scale", "nan", "--out", out]),
            2,
            "logit scale must be in (0",
        ),
        (
            args(&["train", path(&tiny), "--rank", "100000", "--out", out]),
            2,
            "rank must be between 1 and 4096",
        ),
    ];
    let mut cases = cases;
    if Path::new("/dev/zero").exists() {
        cases.push((
            args(&[
                "train",
                path(&tiny),
                "--embeddings",
                "/dev/zero",
                "--out",
                out,
            ]),
            1,
            "cannot read /dev/zero: not a regular file: a character device",
        ));
        cases.push((
            args(&["check", "/dev/zero"]),
            1,
            "cannot read /dev/zero: not a regular file: a character device",
        ));
    }
    let sms = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms/sms.rules");
    cases.push((
        args(&["--max-rules-bytes", "1KiB", "check", path(&sms)]),
        1,
        "larger than the 1KiB a rules file may have (raise it with `--max-rules-bytes`",
    ));
    cases.push((
        args(&["check", path(&tiny), "--max-rules-bytes", "2GiB"]),
        2,
        "max-rules-bytes must be between 1 byte and 1GiB, not 2GiB",
    ));
    cases.push((
        args(&["check", path(&tiny), "--max-corpus-bytes", "lots"]),
        2,
        "`lots` is not a size",
    ));
    cases.push((
        args(&[
            "train",
            path(&tiny),
            "--max-sentence-tokens",
            "0",
            "--out",
            out,
        ]),
        2,
        "max sentence tokens must be between 1 and 1048576, not 0",
    ));
    for (arguments, status, expected) in cases {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_rulelens"))
            .args(&arguments)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(status), "{arguments:?}: {said}");
        assert!(said.contains(expected), "{arguments:?}: {said}");
        assert!(!said.contains("panicked"), "{arguments:?}: {said}");
    }
    std::fs::remove_dir_all(out).unwrap();
}

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn args(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_sopa_has_a_bounded_number_of_transitions() {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let rules = RulesFile::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms/sms.rules"),
        &CompileConfig::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let spec = TrainingSettings::DEFAULT.sopa.patterns;
    let rows = rulelens::model::sopa::transition_rows(&rules.system, &rules.rules, &spec);
    // 73 chains of at most 6 states, and 40 free patterns of at most 5.
    assert_eq!(rows, 73 * 2 * 6 + 40 * 2 * 5);
    let settings = TrainingSettings {
        model: ModelKind::Sopa,
        sopa: SopaSettings {
            patterns: "16:600".parse().unwrap(),
            ..SopaSettings::DEFAULT
        },
        ..TrainingSettings::default()
    };
    let error = fit(
        &rules,
        &examples("train.tsv"),
        &examples("dev.tsv"),
        &settings,
        &ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .err()
    .expect("refused");
    assert!(
        error
            .to_string()
            .contains("more than the 16384 a SoPa may have"),
        "{error}"
    );
}
