//! The `rulelens._rulelens` extension module: the library's rules file, classification and
//! labeling functions (`rulelens::labeling`), trained networks (`model::LoadedModel`), and
//! what the editor's hover over a corpus line says of a network's prediction
//! (`explanation.rs`), as Python classes. It only translates: every figure is the
//! library's, and byte ranges become character offsets. Batches run with the GIL released. The Python package (`python/rulelens/`) wraps the label matrix as a numpy
//! array and the per-rule figures as a pandas DataFrame.

mod explanation;

use candle_core::Device;
use explanation::{Explainer, Explanation};
use pyo3::buffer::PyBuffer;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBytes, PyDict, PyList};
use rulelens::automata::CompileConfig;
use rulelens::corpus::Example;
use rulelens::diagnostic::Severity;
use rulelens::labeling::{
    Estimates, Gold, LabelMatrix, LabelModel, LabelingRule, gold_labels, label_lines, label_matrix,
    labeling_rules, summarize,
};
use rulelens::limits::{Limit, ReadLimits};
use rulelens::model::{FitEvent, LoadedModel, TrainingSettings, checkpoint, fit, load_previous};
use rulelens::rules_file::RulesFile;
use rulelens::text::SourceText;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

create_exception!(
    _rulelens,
    RulesError,
    PyValueError,
    "A rules file with errors; `diagnostics` lists them all (errors and warnings)."
);

/// One diagnostic of a rules file.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct Diagnostic {
    /// The stable code, `E0201` or `W0304`.
    code: String,
    /// `error`, `warning`, `info` or `hint`.
    severity: String,
    message: String,
    /// 1-based line.
    line: u32,
    /// 1-based column, in characters.
    column: u32,
    help: Option<String>,
}

#[pymethods]
impl Diagnostic {
    fn __repr__(&self) -> String {
        format!(
            "<{} {} at {}:{}: {}>",
            self.severity, self.code, self.line, self.column, self.message
        )
    }
}

/// One rule of a rules file, a labeling function: it votes for `label` where it fires.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct Rule {
    /// Its column in the label matrix: rules are numbered in file order.
    id: usize,
    /// `LABEL@LINE`.
    name: String,
    label: String,
    /// The label's index, its vote in the label matrix.
    label_index: usize,
    /// 1-based line of the statement.
    line: u32,
    /// The regex of `LABEL: REGEX`, or the formula of `LABEL <- FORMULA`.
    regex: String,
    /// Whether the rule is a formula over named patterns.
    formula: bool,
}

#[pymethods]
impl Rule {
    fn __repr__(&self) -> String {
        let arrow = if self.formula { "<-" } else { ":" };
        format!("<Rule {} {}{} {}>", self.id, self.label, arrow, self.regex)
    }
}

/// What the rules say about one text.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
struct Classification {
    /// The predicted label (the default when no rule fires), or `None` without a default.
    label: Option<String>,
    /// The id of the rule that decided it (the first, in file order, of the predicted
    /// label's rules that fired), or `None` when the default decided.
    rule: Option<usize>,
    /// The ids of every rule that fired.
    fired: Vec<usize>,
}

#[pymethods]
impl Classification {
    fn __repr__(&self) -> String {
        let label = self
            .label
            .as_ref()
            .map_or("None".to_string(), |l| format!("{l:?}"));
        let rule = self.rule.map_or("None".to_string(), |r| r.to_string());
        format!(
            "<Classification label={label} rule={rule} fired={:?}>",
            self.fired
        )
    }
}

/// What `Rules.__reduce__` gives pickle: the class, and its constructor's arguments.
type Reduced<'py> = (Bound<'py, PyAny>, (String, Option<PathBuf>));

/// A rules file: its diagnostics, labels and rules, compiled to automata.
#[pyclass(frozen, module = "rulelens._rulelens")]
struct Rules {
    file: RulesFile,
    rules: Vec<LabelingRule>,
    base_dir: Option<PathBuf>,
}

/// The path a rules text is analysed as: corpus bindings resolve against its folder.
fn anchor(base_dir: Option<&Path>) -> Option<PathBuf> {
    base_dir.map(|dir| dir.join("<rules>"))
}

fn diagnostics(file: &RulesFile) -> Vec<Diagnostic> {
    let text = &file.source.text;
    file.diagnostics
        .iter()
        .map(|d| {
            let at = file.line_index.line_col(d.range.start());
            let line_start = usize::from(d.range.start()) - at.col as usize;
            let column = text
                .get(line_start..usize::from(d.range.start()))
                .map_or(at.col, |prefix| prefix.chars().count() as u32);
            Diagnostic {
                code: d.code.as_str().to_string(),
                severity: match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "info",
                    Severity::Hint => "hint",
                }
                .to_string(),
                message: d.message.clone(),
                line: at.line + 1,
                column: column + 1,
                help: d.help.clone(),
            }
        })
        .collect()
}

/// `RulesError`, carrying every diagnostic, when `file` has errors.
fn reject_errors(py: Python<'_>, file: &RulesFile) -> PyResult<()> {
    if !file.diagnostics.iter().any(|d| d.is_error()) {
        return Ok(());
    }
    let all = diagnostics(file);
    let first = all
        .iter()
        .find(|d| d.severity == "error")
        .map(|d| format!("{}:{}: {} {}", d.line, d.column, d.code, d.message))
        .unwrap_or_default();
    let count = all.iter().filter(|d| d.severity == "error").count();
    let error = RulesError::new_err(format!(
        "the rules have {count} error(s), the first at {first}"
    ));
    let list = PyList::new(py, all)?;
    error.value(py).setattr("diagnostics", list)?;
    Err(error)
}

impl Rules {
    fn new_checked(py: Python<'_>, file: RulesFile, base_dir: Option<PathBuf>) -> PyResult<Rules> {
        reject_errors(py, &file)?;
        let rules = labeling_rules(&file);
        Ok(Rules {
            file,
            rules,
            base_dir,
        })
    }

    fn matrix(&self, py: Python<'_>, texts: &[PyBackedStr]) -> LabelMatrix {
        py.detach(|| label_matrix(&self.file, &self.rules, texts.iter().map(|t| &**t)))
    }

    fn label_name(&self, index: Option<usize>) -> Option<String> {
        index.and_then(|i| self.file.system.labels().get(i).cloned())
    }

    /// `texts` with their `labels` (`None`: unlabeled), as corpus lines.
    fn examples(
        &self,
        texts: &[PyBackedStr],
        labels: Vec<Option<String>>,
    ) -> PyResult<Vec<Example>> {
        if texts.len() != labels.len() {
            return Err(PyValueError::new_err(format!(
                "{} texts but {} labels",
                texts.len(),
                labels.len()
            )));
        }
        Ok(texts
            .iter()
            .zip(labels)
            .enumerate()
            .map(|(i, (text, label))| Example {
                text: text.to_string(),
                label,
                line: i as u32,
                text_range: None,
                label_range: None,
            })
            .collect())
    }
}

#[pymethods]
impl Rules {
    /// Rules from their text; `base_dir` is the folder their corpus bindings are relative to.
    /// Raises `RulesError` (with `diagnostics`) when the text has errors.
    #[new]
    #[pyo3(signature = (text, base_dir=None))]
    fn new(py: Python<'_>, text: &str, base_dir: Option<PathBuf>) -> PyResult<Rules> {
        let anchor = anchor(base_dir.as_deref());
        let file = py.detach(|| {
            RulesFile::analyze(
                SourceText::from_bytes(text.as_bytes()),
                anchor.as_deref(),
                &CompileConfig::default(),
            )
        });
        Rules::new_checked(py, file, base_dir)
    }

    /// Reads a rules file (at most the library's limit on a rules file's size).
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Rules> {
        let file = py
            .detach(|| RulesFile::read(&path, &CompileConfig::default(), &ReadLimits::DEFAULT))
            .map_err(|error| PyOSError::new_err(format!("{}: {error}", path.display())))?;
        let base_dir = path.parent().map(Path::to_path_buf);
        Rules::new_checked(py, file, base_dir)
    }

    /// The rules' text.
    #[getter]
    fn text(&self) -> &str {
        &self.file.source.text
    }

    /// Every diagnostic (warnings and hints: a file with errors does not load).
    #[getter]
    fn diagnostics(&self) -> Vec<Diagnostic> {
        diagnostics(&self.file)
    }

    /// The labels in priority order: a label's index is its vote in the label matrix.
    #[getter]
    fn labels(&self) -> Vec<String> {
        self.file.system.labels().to_vec()
    }

    /// The `default` label, if any.
    #[getter]
    fn default(&self) -> Option<String> {
        self.label_name(self.file.system.default_label().map(|l| l.index()))
    }

    /// The rules in file order: rule `i` is column `i` of the label matrix.
    #[getter]
    fn rules(&self) -> Vec<Rule> {
        let labels = self.file.system.labels();
        self.rules
            .iter()
            .enumerate()
            .map(|(id, rule)| Rule {
                id,
                name: rule.name.clone(),
                label: labels[rule.label].clone(),
                label_index: rule.label,
                line: rule.line,
                regex: rule.body.clone(),
                formula: rule.formula,
            })
            .collect()
    }

    /// What the rules say about each text.
    fn classify(&self, py: Python<'_>, texts: Vec<PyBackedStr>) -> Vec<Classification> {
        let matrix = self.matrix(py, &texts);
        (0..matrix.n_lines())
            .map(|i| Classification {
                label: self.label_name(matrix.predictions[i]),
                rule: matrix.deciders[i],
                fired: matrix.fired(i).to_vec(),
            })
            .collect()
    }

    /// The number of rules: the label matrix's columns.
    #[getter]
    fn n_rules(&self) -> usize {
        self.rules.len()
    }

    /// Writes the label matrix of `texts` into `out`, with the GIL released: a writable,
    /// C-contiguous int32 buffer of `len(texts) × n_rules` entries, row-major, that
    /// `rulelens.Rules.label_matrix` has just made with `numpy.empty` and shares with no
    /// one until this returns.
    fn _label_matrix_into(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        out: PyBuffer<i32>,
    ) -> PyResult<()> {
        let n_rules = self.rules.len();
        let len = texts.len() * n_rules;
        if out.readonly() || !out.is_c_contiguous() || out.item_count() != len {
            return Err(PyValueError::new_err(format!(
                "expected a writable C-contiguous int32 buffer of {} × {n_rules} entries",
                texts.len()
            )));
        }
        py.detach(|| {
            // SAFETY: `out` is writable, C-contiguous, aligned for i32 (checked by
            // `PyBuffer::get`) and `len` entries long (checked above); it stays alive until
            // this function returns, and no other code holds it meanwhile (see above), so
            // this is the only reference to its memory.
            let votes = unsafe { std::slice::from_raw_parts_mut(out.buf_ptr().cast::<i32>(), len) };
            label_lines(&self.file, texts.iter().map(|t| &**t), |i, line| {
                line.write_votes(&self.rules, &mut votes[i * n_rules..(i + 1) * n_rules]);
            });
        });
        out.release(py);
        Ok(())
    }

    /// Per-rule figures on texts, labeled or not (`None`), as columns (a dict of lists);
    /// `rulelens.Rules.analysis` makes them a DataFrame. Where some text has no label, the
    /// label model's estimated precision too.
    fn _analysis<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<PyBackedStr>,
        labels: Vec<Option<String>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let examples = self.examples(&texts, labels)?;
        let system = &self.file.system;
        let gold = gold_labels(system, &examples);
        let matrix = self.matrix(py, &texts);
        let summaries = summarize(&matrix, &self.rules, &gold);
        let estimates = match gold.contains(&Gold::Unlabeled) {
            true => Some(
                py.detach(|| Estimates::of(system, &self.rules, &matrix, &gold))
                    .map_err(|error| PyValueError::new_err(error.to_string()))?,
            ),
            false => None,
        };
        let columns = PyDict::new(py);
        let rules = &self.rules;
        let labels = system.labels();
        set(&columns, "rule", rules.iter().map(|r| r.name.clone()))?;
        set(&columns, "j", 0..rules.len())?;
        set(
            &columns,
            "Polarity",
            summaries.iter().map(|s| s.polarity.clone()),
        )?;
        set(&columns, "Coverage", summaries.iter().map(|s| s.coverage))?;
        set(&columns, "Overlaps", summaries.iter().map(|s| s.overlaps))?;
        set(&columns, "Conflicts", summaries.iter().map(|s| s.conflicts))?;
        set(&columns, "Correct", summaries.iter().map(|s| s.correct))?;
        set(&columns, "Incorrect", summaries.iter().map(|s| s.incorrect))?;
        // Snorkel's `nan_to_num`: 0 for a rule that never fired (`precision` says `None`).
        set(
            &columns,
            "Emp. Acc.",
            summaries.iter().map(|s| s.precision.unwrap_or(0.0)),
        )?;
        set(
            &columns,
            "label",
            rules.iter().map(|r| labels[r.label].clone()),
        )?;
        set(&columns, "line", rules.iter().map(|r| r.line))?;
        set(&columns, "precision", summaries.iter().map(|s| s.precision))?;
        set(&columns, "recall", summaries.iter().map(|s| s.recall))?;
        set(&columns, "decided", summaries.iter().map(|s| s.decided))?;
        set(
            &columns,
            "decided_correct",
            summaries.iter().map(|s| s.decided_correct),
        )?;
        if let Some(estimates) = estimates {
            set(&columns, "unlabeled", summaries.iter().map(|s| s.unlabeled))?;
            set(
                &columns,
                "estimated_precision",
                estimates.precision.iter().copied(),
            )?;
        }
        Ok(columns)
    }

    /// The label model of the rules fitted on `texts` (those with a label as gold, `None`
    /// for a text without one): each text's probability of every label, as little-endian
    /// float64 bytes of shape (texts, labels), and the rule system's estimated accuracy on
    /// them.
    fn _label_model<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<PyBackedStr>,
        labels: Vec<Option<String>>,
    ) -> PyResult<(Bound<'py, PyBytes>, usize, usize, Option<f64>)> {
        let examples = self.examples(&texts, labels)?;
        let system = &self.file.system;
        let gold = gold_labels(system, &examples);
        let matrix = self.matrix(py, &texts);
        let k = system.labels().len();
        let (rows, accuracy) = py
            .detach(|| {
                let model = LabelModel::fit(
                    &matrix,
                    &self.rules,
                    k,
                    system.default_label().map(|l| l.index()),
                    &gold,
                )?;
                Ok((
                    model.probabilities(&matrix),
                    model.estimated_accuracy(&matrix, &gold),
                ))
            })
            .map_err(|error: rulelens::labeling::LabelModelError| {
                PyValueError::new_err(error.to_string())
            })?;
        let bytes: Vec<u8> = rows.iter().flat_map(|p| p.to_le_bytes()).collect();
        Ok((PyBytes::new(py, &bytes), texts.len(), k, accuracy))
    }

    /// Pickles by text (and base folder): a worker compiles the rules again.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let this = slf.get();
        Ok((
            slf.get_type().into_any(),
            (this.file.source.text.clone(), this.base_dir.clone()),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<Rules: {} rules, labels {:?}>",
            self.rules.len(),
            self.file.system.labels()
        )
    }
}

/// A trained network loaded from its checkpoint folder (`rulelens train --out DIR`), with
/// the rules text its manifest records: any family `rulelens train --model` names (the
/// FA-RNN family, SoPa, the black boxes). Pickles by the checkpoint's two files.
#[pyclass(frozen, module = "rulelens._rulelens")]
struct Model {
    loaded: LoadedModel,
    manifest_bytes: Vec<u8>,
    weights_bytes: Vec<u8>,
    /// The network prepared for the editor, on the first `_explain`.
    explainer: OnceLock<Result<Explainer, String>>,
}

/// What `Model.__reduce__` gives pickle: the constructor from bytes, and the checkpoint's
/// manifest and weights.
type ReducedModel<'py> = (
    Bound<'py, PyAny>,
    (Bound<'py, PyBytes>, Bound<'py, PyBytes>),
);

impl Model {
    fn from_dir(dir: &Path) -> PyResult<Model> {
        let limits = ReadLimits::DEFAULT;
        let read = |name: &str, limit: Limit| {
            let path = dir.join(name);
            limits
                .read(limit, &path)
                .map_err(|error| PyOSError::new_err(format!("{}: {error}", path.display())))
        };
        let manifest_bytes = read(checkpoint::MANIFEST_FILE, Limit::Manifest)?;
        let weights_bytes = read(checkpoint::WEIGHTS_FILE, Limit::Weights)?;
        let loaded = load_previous(dir, &Device::Cpu, &limits)
            .map_err(|error| PyValueError::new_err(error.to_string()))?;
        Ok(Model {
            loaded,
            manifest_bytes,
            weights_bytes,
            explainer: OnceLock::new(),
        })
    }
}

#[pymethods]
impl Model {
    /// Loads the checkpoint in `dir` (its manifest and weights, verified, within the
    /// command line's limits on them); the rules are the text the manifest records.
    #[staticmethod]
    fn load(py: Python<'_>, dir: PathBuf) -> PyResult<Model> {
        py.detach(|| Model::from_dir(&dir))
    }

    /// A checkpoint from its two files' bytes (what pickling keeps).
    #[staticmethod]
    fn _from_bytes(py: Python<'_>, manifest: Vec<u8>, weights: Vec<u8>) -> PyResult<Model> {
        py.detach(|| {
            let dir = std::env::temp_dir().join(format!(
                "rulelens-model-{}-{}",
                std::process::id(),
                UNPICKLED.fetch_add(1, Ordering::Relaxed)
            ));
            let written = std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(dir.join(checkpoint::MANIFEST_FILE), &manifest))
                .and_then(|()| std::fs::write(dir.join(checkpoint::WEIGHTS_FILE), &weights));
            let model = written
                .map_err(|error| PyOSError::new_err(format!("{}: {error}", dir.display())))
                .and_then(|()| Model::from_dir(&dir));
            let _ = std::fs::remove_dir_all(&dir);
            model
        })
    }

    /// The labels the network predicts, in the order of `predict`'s probabilities.
    #[getter]
    fn labels(&self) -> Vec<String> {
        self.loaded.manifest.labels.clone()
    }

    /// The family, as `rulelens train --model` names it (`fa-rnn`, `sopa`, …).
    #[getter]
    fn kind(&self) -> &'static str {
        self.loaded.manifest.settings.model.name()
    }

    /// The rules the network was trained from.
    #[getter]
    fn rules_text(&self) -> &str {
        &self.loaded.rules.source.text
    }

    /// Each text's label probabilities as little-endian float64 bytes, row-major (texts ×
    /// labels), with the number of labels; `rulelens.Model.predict` makes them numpy.
    fn _probabilities<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<String>,
    ) -> PyResult<(Bound<'py, PyBytes>, usize, usize)> {
        let rows = py
            .detach(|| {
                let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                // The texts' words past the vocabulary read through their vectors and
                // spellings, as `rulelens eval` reads a corpus's.
                let opened = self.loaded.opened_to(&texts)?;
                (opened.as_ref().unwrap_or(&self.loaded)).probabilities(
                    &texts,
                    PREDICT_BATCH,
                    &Device::Cpu,
                )
            })
            .map_err(|error| PyValueError::new_err(error.to_string()))?;
        let k = self.loaded.manifest.labels.len();
        let bytes: Vec<u8> = rows
            .iter()
            .flatten()
            .flat_map(|p| p.to_le_bytes())
            .collect();
        Ok((PyBytes::new(py, &bytes), rows.len(), k))
    }

    /// What the editor's hover over a corpus line of `text` says of the network's
    /// prediction; the first call prepares the network for it, as the language server does
    /// after training.
    fn _explain(&self, py: Python<'_>, text: &str) -> PyResult<Explanation> {
        py.detach(|| {
            // A text with words past the vocabulary is explained by the model opened to
            // them, which `predict` reads it with; other texts by the one prepared once.
            let opened = (self.loaded)
                .opened_to(&[text])
                .map_err(|error| error.to_string())?;
            if let Some(opened) = opened {
                let explainer = Explainer::prepare(&opened).map_err(|error| error.to_string())?;
                return explainer.explain(text);
            }
            let explainer = self.explainer.get_or_init(|| {
                Explainer::prepare(&self.loaded).map_err(|error| error.to_string())
            });
            explainer.as_ref().map_err(Clone::clone)?.explain(text)
        })
        .map_err(PyValueError::new_err)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<ReducedModel<'py>> {
        let py = slf.py();
        let this = slf.get();
        Ok((
            slf.get_type().getattr("_from_bytes")?,
            (
                PyBytes::new(py, &this.manifest_bytes),
                PyBytes::new(py, &this.weights_bytes),
            ),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<Model: {}, labels {:?}>",
            self.loaded.manifest.settings.model.display_name(),
            self.loaded.manifest.labels
        )
    }
}

/// The training settings' names, as `rulelens train`'s flags name them with `_` for `-`
/// (the serde names in camelCase turned to snake case), with their defaults as JSON.
#[pyfunction]
fn _training_defaults() -> PyResult<String> {
    let json = serde_json::to_value(TrainingSettings::DEFAULT)
        .map_err(|error| PyValueError::new_err(error.to_string()))?;
    let snake: serde_json::Map<String, serde_json::Value> = json
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, value)| (snake_case(key), value.clone()))
        .collect();
    Ok(serde_json::Value::Object(snake).to_string())
}

/// `camelCase` as `camel_case`.
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Trains the network `settings` name (JSON with snake-case keys, checked as `rulelens
/// train` checks its flags) from the rules `text` on `train` and `dev` (text, label) pairs,
/// writes its checkpoint into `out` and loads it; `progress(epoch, dev_accuracy, loss)`
/// hears every dev measurement, an ensemble's member by member.
#[pyfunction]
#[pyo3(signature = (text, base_dir, train, dev, settings, out, progress=None))]
#[allow(clippy::too_many_arguments)]
fn _train(
    py: Python<'_>,
    text: &str,
    base_dir: Option<PathBuf>,
    train: Vec<(String, Option<String>)>,
    dev: Vec<(String, Option<String>)>,
    settings: &str,
    out: PathBuf,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<Model> {
    let snake: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(settings).map_err(|error| PyValueError::new_err(error.to_string()))?;
    let camel: serde_json::Map<String, serde_json::Value> = snake
        .into_iter()
        .map(|(key, value)| (camel_case(&key), value))
        .collect();
    let settings: TrainingSettings = serde_json::from_value(serde_json::Value::Object(camel))
        .map_err(|error| PyValueError::new_err(format!("training settings: {error}")))?;
    settings.check().map_err(PyValueError::new_err)?;
    let anchor = anchor(base_dir.as_deref());
    let file = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        anchor.as_deref(),
        &CompileConfig::default(),
    );
    reject_errors(py, &file)?;
    let examples = |pairs: Vec<(String, Option<String>)>| -> Vec<Example> {
        pairs
            .into_iter()
            .enumerate()
            .map(|(line, (text, label))| Example {
                text,
                label,
                line: line as u32,
                text_range: None,
                label_range: None,
            })
            .collect()
    };
    let (train, dev) = (examples(train), examples(dev));
    let progress = progress.map(Bound::unbind);
    let mut failed: Option<PyErr> = None;
    let fitted = py.detach(|| {
        let mut on_event = |event: FitEvent| {
            if let (FitEvent::Epoch(report, _), Some(progress)) = (event, &progress)
                && failed.is_none()
            {
                Python::attach(|py| {
                    if let Err(error) =
                        progress.call1(py, (report.epoch, report.dev_accuracy, report.loss))
                    {
                        failed = Some(error);
                    }
                });
            }
        };
        fit(
            &file,
            &train,
            &dev,
            &settings,
            &ReadLimits::DEFAULT,
            &mut on_event,
            &|| false,
        )
    });
    if let Some(error) = failed {
        return Err(error);
    }
    let mut fitted = fitted.map_err(|error| PyValueError::new_err(error.to_string()))?;
    py.detach(|| fitted.save(&out))
        .map_err(|error| PyOSError::new_err(error.to_string()))?;
    py.detach(|| Model::from_dir(&out))
}

/// `snake_case` as `snakeCase`.
fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// How many texts `Model.predict` scores in one batch of tensors.
const PREDICT_BATCH: usize = 256;

/// Numbers the folders unpickled models are written to, within this process.
static UNPICKLED: AtomicUsize = AtomicUsize::new(0);

/// Sets column `name` of `columns` to a list of `values`.
fn set<'py, T: IntoPyObject<'py>>(
    columns: &Bound<'py, PyDict>,
    name: &str,
    values: impl Iterator<Item = T>,
) -> PyResult<()> {
    columns.set_item(name, values.collect::<Vec<T>>())
}

#[pymodule]
fn _rulelens(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Rules>()?;
    m.add_class::<Model>()?;
    m.add_function(wrap_pyfunction!(_train, m)?)?;
    m.add_function(wrap_pyfunction!(_training_defaults, m)?)?;
    m.add_class::<Rule>()?;
    m.add_class::<Classification>()?;
    m.add_class::<Diagnostic>()?;
    explanation::add_classes(m)?;
    m.add("RulesError", m.py().get_type::<RulesError>())?;
    Ok(())
}
