"""rulelens from Python: a rules file's diagnostics, labels and rules, what the rules say
about each text, Snorkel's label matrix and per-rule figures.

The rules run in Rust (the same library as the ``rulelens`` command line), with the GIL
released. Label indices are those of ``Rules.labels`` (the rules' priority order); rule
``i`` is column ``i`` of the label matrix, rules numbered in file order; ``-1`` abstains.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import Any, NamedTuple

import json
from collections.abc import Callable

import numpy as np

from rulelens import _rulelens
from rulelens._rulelens import (
    Classification,
    Diagnostic,
    Explanation,
    LogitParts,
    MvmaView,
    NetworkView,
    NgramContribution,
    PatternContribution,
    PatternScore,
    Rule,
    RulesError,
    Span,
    SuffixPart,
)

__all__ = [
    "ABSTAIN",
    "Classification",
    "Diagnostic",
    "Explanation",
    "LogitParts",
    "Model",
    "MvmaView",
    "NetworkView",
    "NgramContribution",
    "PatternContribution",
    "PatternScore",
    "Predictions",
    "Rule",
    "Rules",
    "RulesError",
    "Span",
    "SuffixPart",
    "TRAINING_DEFAULTS",
    "train",
]

#: Snorkel's "abstain" in a label matrix.
ABSTAIN = -1


class Rules:
    """A rules file, compiled: ``Rules(text, base_dir=None)`` (``base_dir``: the folder its
    corpus bindings are relative to) or ``Rules.from_file(path)``.

    A file with errors raises :class:`RulesError`, whose ``diagnostics`` list them;
    warnings are in :attr:`diagnostics` and never raised. Pickles by its text.
    """

    def __init__(self, text: str, base_dir: str | PathLike[str] | None = None) -> None:
        self._compiled = _rulelens.Rules(text, base_dir)

    @classmethod
    def from_file(cls, path: str | PathLike[str]) -> Rules:
        """Reads and compiles a rules file; its corpus bindings are relative to its folder."""
        rules = cls.__new__(cls)
        rules._compiled = _rulelens.Rules.from_file(path)
        return rules

    @property
    def text(self) -> str:
        """The rules' text."""
        return self._compiled.text

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every diagnostic: warnings, infos and hints (a file with errors does not load)."""
        return self._compiled.diagnostics

    @property
    def labels(self) -> list[str]:
        """The labels in priority order; a label's index is its vote in the label matrix."""
        return self._compiled.labels

    @property
    def default(self) -> str | None:
        """The ``default`` label, if any."""
        return self._compiled.default

    @property
    def rules(self) -> list[Rule]:
        """The rules in file order: rule ``i`` is column ``i`` of the label matrix."""
        return self._compiled.rules

    def classify(self, texts: Iterable[str]) -> list[Classification]:
        """What the rules say about each text: its ``label`` (the default when no rule
        fires), the ``rule`` that decided it (the first, in file order, of the predicted
        label's rules that fired; ``None`` when the default decided) and every rule that
        ``fired``."""
        return self._compiled.classify(_texts(texts))

    def __repr__(self) -> str:
        return repr(self._compiled)

    def label_matrix(self, texts: Iterable[str]) -> np.ndarray:
        """The label matrix in Snorkel's convention: shape ``(len(texts), len(rules))``,
        ``int32``, each entry the index in :attr:`labels` of the label that rule votes for
        on that text, or ``-1`` where it abstains. It goes straight into
        ``snorkel.labeling.LFAnalysis`` and ``LabelModel`` (whose ``cardinality`` is
        ``len(rules.labels)``)."""
        texts = _texts(texts)
        matrix = np.empty((len(texts), self._compiled.n_rules), dtype=np.int32)
        self._compiled._label_matrix_into(texts, matrix)
        return matrix

    def analysis(
        self, texts: Iterable[str], labels: Sequence[str | None] | None = None
    ) -> Any:
        """Per-rule figures on texts, one row per rule: Snorkel's ``lf_summary``
        columns with its definitions (``Polarity``, ``Coverage``, ``Overlaps``,
        ``Conflicts``, ``Correct``, ``Incorrect``, ``Emp. Acc.``, which is the rule's
        precision), then rulelens's own: ``label``, ``line``, ``precision``, ``recall``
        (of the texts labeled with the rule's label, the share it fires on), ``decided``
        (on how many texts the rule decided the prediction) and ``decided_correct``.

        ``labels`` gives each text's gold label, ``None`` for a text without one (all of
        them when ``labels`` is left out). A gold label the rules do not name counts as
        wrong for every rule that fires; a text without a label counts in ``Coverage``,
        ``Overlaps`` and ``Conflicts`` only. Where some text has no label, two more
        columns: ``unlabeled`` (the unlabeled texts the rule fires on) and
        ``estimated_precision``, the rules' label model's estimate of its precision
        (:meth:`label_model`), the gold label standing where a text has one.
        A pandas DataFrame indexed by rule name when pandas is installed, else a dict of
        columns."""
        texts = _texts(texts)
        columns = self._compiled._analysis(texts, _labels(texts, labels))
        try:
            import pandas as pd
        except ImportError:
            return columns
        frame = pd.DataFrame(columns).set_index("rule")
        frame.index.name = None
        return frame

    def label_model(
        self, texts: Iterable[str], labels: Sequence[str | None] | None = None
    ) -> LabelModelResult:
        """The rules' label model fitted on ``texts``: what gold labels would say where
        there are none, as Snorkel's ``LabelModel`` estimates it (``docs/python.md`` compares
        the two). ``probabilities`` has shape ``(len(texts), len(rules.labels))``, each row
        the text's probability of every label (columns in :attr:`labels` order);
        ``estimated_accuracy`` is the rule system's estimated accuracy on the texts.
        ``labels`` gives the gold label of the texts that have one (``None`` elsewhere),
        which the model takes as they are."""
        texts = _texts(texts)
        data, n, k, accuracy = self._compiled._label_model(texts, _labels(texts, labels))
        probabilities = np.frombuffer(data, dtype="<f8").reshape(n, k).astype(np.float64)
        return LabelModelResult(probabilities, accuracy)


class LabelModelResult(NamedTuple):
    """What :meth:`Rules.label_model` gives: each text's probability of every label, and the
    rule system's estimated accuracy on the texts (``None`` for no text)."""

    probabilities: np.ndarray
    estimated_accuracy: float | None


def _labels(texts: list[str], labels: Sequence[str | None] | None) -> list[str | None]:
    if labels is None:
        return [None] * len(texts)
    return [None if label is None else str(label) for label in labels]


def _texts(texts: Iterable[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("expected an iterable of texts, not one str")
    if type(texts) is list:
        # The binding checks each item is a str, without a copy of the list.
        return texts
    return [str(t) for t in texts]


class Predictions(NamedTuple):
    """What :meth:`Model.predict` gives: each text's predicted label, and its probabilities
    (``float64``, shape ``(len(texts), len(model.labels))``, columns in ``model.labels``
    order)."""

    labels: list[str]
    probabilities: np.ndarray


class Model:
    """A trained network, loaded from its checkpoint folder (``rulelens train --out DIR``):
    any family. Its rules are the text its manifest records, so the folder may move.
    Pickles by the checkpoint's bytes."""

    def __init__(self, compiled: _rulelens.Model) -> None:
        self._compiled = compiled

    @classmethod
    def load(cls, directory: str | PathLike[str]) -> Model:
        """Loads and verifies the checkpoint in ``directory``."""
        return cls(_rulelens.Model.load(directory))

    @property
    def labels(self) -> list[str]:
        """The labels the network predicts, in the order of the probabilities' columns."""
        return self._compiled.labels

    @property
    def kind(self) -> str:
        """The family, as ``rulelens train --model`` names it (``fa-rnn``, ``sopa``, …)."""
        return self._compiled.kind

    @property
    def rules_text(self) -> str:
        """The rules the network was trained from."""
        return self._compiled.rules_text

    def predict(self, texts: Iterable[str]) -> Predictions:
        """Each text's label and probabilities, computed by the network itself (its
        tensors, in batches of similar length; the GIL released)."""
        data, n, k = self._compiled._probabilities(_texts(texts))
        probabilities = np.frombuffer(data, dtype="<f8").reshape(n, k).astype(np.float64)
        labels = self.labels
        return Predictions([labels[i] for i in probabilities.argmax(axis=1)], probabilities)

    def explain(self, text: str) -> Explanation:
        """What the editor's hover over a corpus line of ``text`` says of the network's
        prediction, with the same numbers: its ``prediction`` and ``probabilities``, and
        by family, an FA-RNN's (FA-GRU's, a bidirectional one's) top patterns and the
        n-grams whose deletion changes the probability of the prediction most
        (``network``), a SoPa's patterns with their leave-one-out contributions
        (``patterns``), or an MVMA-G's logit split exactly into the parts of the text's
        suffix n-grams (``mvma``); the others are ``None`` (all three for an S-LSTM).
        Spans are character offsets into ``text``.

        The first call prepares the network for it as the language server does after
        training (for an FA-RNN, reading every pattern back as a regex), once per model;
        each call then scores ``text`` with the network's plain-loop scorer, the GIL
        released."""
        return self._compiled._explain(text)

    def __repr__(self) -> str:
        return repr(self._compiled)


#: Every training setting by its Python name (``rulelens train``'s flag with ``_`` for
#: ``-``) and its default: the one settings type of the command line, the language server
#: and the checkpoints' manifests.
TRAINING_DEFAULTS: dict[str, Any] = json.loads(_rulelens._training_defaults())


def train(
    rules: Rules | str | PathLike[str],
    train: Iterable[tuple[str, str | None]],
    dev: Iterable[tuple[str, str | None]],
    out: str | PathLike[str],
    progress: Callable[[int, float, float | None], object] | None = None,
    **settings: Any,
) -> Model:
    """Trains a network of the rules on ``train`` and stops early on ``dev`` (both
    ``(text, label)`` pairs), as ``rulelens train`` does, writes its checkpoint into the
    folder ``out`` and returns it loaded. ``settings`` are ``rulelens train``'s flags with
    ``_`` for ``-`` (:data:`TRAINING_DEFAULTS` lists them with their defaults), checked as
    the command line checks them: ``model="sopa"``, ``epochs=20``, ``patterns="5:10,3:10"``.
    A label may be ``None``: such a line is learned from as ``rulelens train`` learns from
    a line without a gold label, taught the rules' label model's probabilities where some
    rule fires on it (:meth:`Rules.label_model`); with no gold label in ``dev``, training
    stops on agreement with the label model.
    ``progress(epoch, dev_accuracy, loss)`` hears every dev measurement (epoch 0 is the
    untrained network, whose loss is ``None``), an ensemble's (``members``, 5 by default for
    the FA-RNN family) member by member, each from its epoch 0; where ``dev`` has no gold
    label, ``dev_accuracy`` is that agreement, not accuracy. An exception it raises stops
    nothing but is raised when training ends.
    """
    unknown = sorted(set(settings) - set(TRAINING_DEFAULTS))
    if unknown:
        raise TypeError(
            f"unknown training settings {unknown}; the settings are {sorted(TRAINING_DEFAULTS)}"
        )
    if isinstance(rules, Rules):
        text, base_dir = rules.text, None
    else:
        text, base_dir = Path(rules).read_text(encoding="utf-8"), Path(rules).parent
    pairs = lambda rows: [(str(t), None if l is None else str(l)) for t, l in rows]  # noqa: E731
    compiled = _rulelens._train(
        text, base_dir, pairs(train), pairs(dev), json.dumps(settings), out, progress
    )
    return Model(compiled)

