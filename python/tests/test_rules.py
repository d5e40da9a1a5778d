"""The `rulelens` Python package on the bundled examples: diagnostics, rules, classification
(equal to the command line's), the label matrix, Snorkel's per-rule figures computed again
from the matrix with Snorkel's own definitions, and pickling."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rulelens

ROOT = Path(__file__).resolve().parents[2]
SMS = ROOT / "examples" / "sms"
TREC = ROOT / "examples" / "trec"


def read_tsv(path: Path) -> tuple[list[str], list[str]]:
    labels, texts = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        label, _, text = line.partition("\t")
        labels.append(label)
        texts.append(text)
    return texts, labels


def test_a_file_with_errors_raises_with_every_diagnostic_and_its_position():
    with pytest.raises(rulelens.RulesError) as raised:
        rulelens.Rules("default ham\nspam: $* ( free $*\nham <- nowhere\n")
    diagnostics = raised.value.diagnostics
    assert [d.severity for d in diagnostics].count("error") >= 2
    first = diagnostics[0]
    assert (first.line, first.column) == (2, 10)
    assert first.code.startswith("E")
    assert "2:10" in str(raised.value)


def test_warnings_are_kept_not_raised_and_columns_count_characters():
    rules = rulelens.Rules("default ham\n# é\nspam: $* free $*\nspam: $* free $*\n")
    codes = [(d.code, d.severity, d.line, d.column) for d in rules.diagnostics]
    assert codes and all(severity != "error" for _, severity, _, _ in codes), codes
    assert any(line == 4 and column == 1 for _, _, line, column in codes), codes


def test_rules_are_listed_in_file_order_with_their_labels():
    rules = rulelens.Rules(
        "default ham\nspam: $* free $*\npattern prize = $* ( won | win ) $*\n"
        "spam <- prize & !greeting\npattern greeting = hi $*\nham: $* call $*\n"
    )
    assert rules.labels == ["spam", "ham"]
    assert rules.default == "ham"
    listed = [(r.id, r.name, r.label, r.label_index, r.line, r.regex, r.formula) for r in rules.rules]
    assert listed == [
        (0, "spam@2", "spam", 0, 2, "$* free $*", False),
        (1, "spam@4", "spam", 0, 4, "prize & !greeting", True),
        (2, "ham@6", "ham", 1, 6, "$* call $*", False),
    ]
    decided = rules.classify(["you won", "hi you won", "call free", "nothing"])
    assert [(c.label, c.rule, c.fired) for c in decided] == [
        ("spam", 1, [1]),
        ("ham", None, []),
        ("spam", 0, [0, 2]),
        ("ham", None, []),
    ]


@pytest.mark.parametrize("example", [SMS / "sms.rules", TREC / "trec.rules"])
def test_classification_agrees_with_the_command_line(example: Path):
    rules = rulelens.Rules.from_file(example)
    texts, gold = read_tsv(example.parent / "dev.tsv")
    predicted = [c.label for c in rules.classify(texts)]
    accuracy = np.mean([p == g for p, g in zip(predicted, gold)])
    binary = os.environ.get("RULELENS_BIN")
    assert binary, "set RULELENS_BIN to the rulelens binary (tests/run.sh does)"
    output = subprocess.run(
        [binary, "check", str(example), "--format", "json"], capture_output=True, check=False
    )
    report = json.loads(output.stdout)
    corpora = {c["corpus"]: c for c in report["corpora"]}
    assert accuracy == pytest.approx(corpora["dev"]["accuracy"], abs=1e-12)


def test_the_label_matrix_is_snorkels_and_agrees_with_classify():
    rules = rulelens.Rules.from_file(SMS / "sms.rules")
    texts, _ = read_tsv(SMS / "dev.tsv")
    matrix = rules.label_matrix(texts)
    assert matrix.shape == (len(texts), len(rules.rules))
    assert matrix.dtype == np.int32
    votes = np.array([r.label_index for r in rules.rules])
    for row, decision in zip(matrix, rules.classify(texts)):
        fired = np.flatnonzero(row != rulelens.ABSTAIN)
        assert fired.tolist() == decision.fired
        assert (row[fired] == votes[fired]).all()
    assert (matrix != -1).any() and (matrix == -1).any()
    with pytest.raises(TypeError):
        rules.label_matrix("one text")


def snorkel_lf_summary(L: np.ndarray, Y: np.ndarray) -> pd.DataFrame:
    """Snorkel 0.10's `LFAnalysis(L).lf_summary(Y)`, written out from its definitions
    (snorkel/labeling/analysis.py): Snorkel itself needs torch, too large for the tests."""
    covered = L != -1
    overlapped_points = covered.sum(axis=1) > 1
    conflicted_points = np.array([len(np.unique(row[row != -1])) > 1 for row in L])
    correct = (covered & (L == Y[:, None])).sum(axis=0)
    incorrect = (covered & (L != Y[:, None])).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.nan_to_num(correct / (correct + incorrect))
    return pd.DataFrame(
        {
            "Polarity": [sorted(np.unique(L[covered[:, j], j]).tolist()) for j in range(L.shape[1])],
            "Coverage": covered.mean(axis=0),
            "Overlaps": (covered & overlapped_points[:, None]).mean(axis=0),
            "Conflicts": (covered & conflicted_points[:, None]).mean(axis=0),
            "Correct": correct,
            "Incorrect": incorrect,
            "Emp. Acc.": accuracy,
        }
    )


@pytest.mark.parametrize("example", [SMS / "sms.rules", TREC / "trec.rules"])
def test_the_analysis_has_snorkels_columns_by_snorkels_definitions(example: Path):
    rules = rulelens.Rules.from_file(example)
    texts, gold = read_tsv(example.parent / "dev.tsv")
    frame = rules.analysis(texts, gold)
    assert list(frame.index) == [r.name for r in rules.rules]
    L = rules.label_matrix(texts)
    Y = np.array([rules.labels.index(g) for g in gold])
    expected = snorkel_lf_summary(L, Y)
    assert frame["Polarity"].tolist() == expected["Polarity"].tolist()
    for column in ["Coverage", "Overlaps", "Conflicts", "Emp. Acc."]:
        np.testing.assert_allclose(
            frame[column].astype(float).to_numpy(), expected[column].to_numpy(), rtol=0, atol=1e-12
        )
    for column in ["Correct", "Incorrect"]:
        assert frame[column].tolist() == expected[column].tolist()
    # rulelens's own columns: precision is Snorkel's "Emp. Acc.", recall counts the rule's
    # label, and the rules that decided account for every line the default did not.
    # rulelens's precision has no value where the rule never fired; Snorkel's says 0.
    fired = (L != -1).any(axis=0)
    assert not fired.all() and fired.any()
    precision = frame["precision"].astype(float).to_numpy()
    assert np.isnan(precision[~fired]).all()
    np.testing.assert_allclose(precision[fired], expected["Emp. Acc."][fired], atol=1e-12)
    for rule, recall in zip(rules.rules, frame["recall"].tolist()):
        of_label = int((Y == rule.label_index).sum())
        hits = int(((L[:, rule.id] == rule.label_index) & (Y == rule.label_index)).sum())
        assert recall == pytest.approx(hits / of_label if of_label else float("nan"), nan_ok=True)
    decided_by_rules = sum(c.rule is not None for c in rules.classify(texts))
    assert frame["decided"].sum() == decided_by_rules
    assert (frame["decided_correct"] <= frame["decided"]).all()


def test_rules_pickle_by_their_text():
    rules = rulelens.Rules.from_file(SMS / "sms.rules")
    copy = pickle.loads(pickle.dumps(rules))
    texts, _ = read_tsv(SMS / "dev.tsv")
    assert copy.text == rules.text
    assert np.array_equal(copy.label_matrix(texts), rules.label_matrix(texts))
    assert [d.code for d in copy.diagnostics] == [d.code for d in rules.diagnostics]


def test_the_label_model_estimates_what_the_hidden_labels_say():
    """SMS train with its labels hidden: the label model's probabilities are
    distributions, its estimate of the rules' accuracy is near the true one, and
    `analysis` without labels has the estimated precision of each rule, near the true one
    for the rules that fire often (docs/python.md)."""
    rules = rulelens.Rules.from_file(SMS / "sms.rules")
    texts, gold = read_tsv(SMS / "train.tsv")
    result = rules.label_model(texts)
    assert result.probabilities.shape == (len(texts), len(rules.labels))
    assert np.allclose(result.probabilities.sum(axis=1), 1.0)
    predicted = [c.label for c in rules.classify(texts)]
    true_accuracy = np.mean([p == g for p, g in zip(predicted, gold)])
    assert abs(result.estimated_accuracy - true_accuracy) < 0.02
    frame = rules.analysis(texts)
    assert (frame["Correct"] == 0).all() and (frame["Incorrect"] == 0).all()
    assert (frame["unlabeled"] == (rules.label_matrix(texts) != -1).sum(axis=0)).all()
    truth = rules.analysis(texts, gold)
    often = truth["Correct"] + truth["Incorrect"] >= 20
    error = (frame["estimated_precision"][often] - truth["precision"][often]).abs().mean()
    assert often.sum() >= 10 and error <= 0.10
    # The estimates are the label model's: a rule's is its label's mean probability where
    # it fires.
    L = rules.label_matrix(texts)
    j = int(np.flatnonzero(often)[0])
    rule = rules.rules[j]
    mean = result.probabilities[L[:, j] != -1, rule.label_index].mean()
    assert abs(frame["estimated_precision"].iloc[j] - mean) < 1e-9
    # Gold labels for some texts count as they are.
    half = [g if i % 2 == 0 else None for i, g in enumerate(gold)]
    with_some = rules.label_model(texts, half)
    assert with_some.probabilities.shape == result.probabilities.shape
    assert abs(with_some.estimated_accuracy - true_accuracy) < 0.01
