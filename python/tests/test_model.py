"""`rulelens.Model` on the checkpoints of every family kept in `tests/data/checkpoints`
(made by an earlier rulelens, with what its `predict` printed): the same labels and
probabilities, wherever the folder is, and after pickling."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

import rulelens

CHECKPOINTS = Path(__file__).resolve().parents[2] / "tests" / "data" / "checkpoints"
KINDS = ["fa-rnn", "bifa-gru", "sopa", "slstm", "mvma-g"]


def printed(kind: str) -> list[dict]:
    lines = (CHECKPOINTS / kind / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("kind", KINDS)
def test_a_model_predicts_what_rulelens_predict_printed(kind: str, tmp_path: Path):
    # Moved away from where it was trained: the manifest's rules text is what it reads.
    moved = tmp_path / kind
    shutil.copytree(CHECKPOINTS / kind, moved)
    model = rulelens.Model.load(moved)
    assert model.kind == kind
    before = printed(kind)
    texts = [b["text"] for b in before]
    predictions = model.predict(texts)
    assert predictions.probabilities.shape == (len(texts), len(model.labels))
    assert predictions.labels == [b["label"] for b in before]
    expected = np.array([[b["probabilities"][label] for label in model.labels] for b in before])
    np.testing.assert_allclose(predictions.probabilities, expected, rtol=0, atol=2e-6)
    np.testing.assert_allclose(predictions.probabilities.sum(axis=1), 1.0, atol=1e-12)


def test_a_model_pickles_by_its_checkpoint():
    model = rulelens.Model.load(CHECKPOINTS / "sopa")
    copy = pickle.loads(pickle.dumps(model))
    texts = [b["text"] for b in printed("sopa")]
    assert copy.rules_text == model.rules_text
    assert np.array_equal(copy.predict(texts).probabilities, model.predict(texts).probabilities)


def test_a_folder_without_a_checkpoint_is_a_clear_error(tmp_path: Path):
    with pytest.raises(OSError, match="manifest.json"):
        rulelens.Model.load(tmp_path)
