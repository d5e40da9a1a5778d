"""`rulelens.train` on the tiny spam filter of `tests/data/train`: the settings are the
command line's (names and defaults), checked as it checks them, and the network it writes
is the one `rulelens train` writes with the same settings."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import rulelens

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "train"


def pairs(name: str) -> list[tuple[str, str]]:
    rows = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        label, _, text = line.partition("\t")
        rows.append((text, label))
    return rows


def test_the_settings_are_the_command_lines_flags_with_their_defaults():
    binary = os.environ.get("RULELENS_BIN")
    assert binary, "set RULELENS_BIN to the rulelens binary (tests/run.sh does)"
    help_text = subprocess.run([binary, "train", "--help"], capture_output=True, text=True).stdout
    flags = {word[2:].rstrip(",").replace("-", "_") for word in help_text.split() if word.startswith("--")}
    assert set(rulelens.TRAINING_DEFAULTS) <= flags, set(rulelens.TRAINING_DEFAULTS) - flags
    assert rulelens.TRAINING_DEFAULTS["model"] == "fa-rnn"
    assert rulelens.TRAINING_DEFAULTS["slstm_steps"] == 9
    with pytest.raises(TypeError, match="unknown training settings"):
        rulelens.train(DATA / "tiny.rules", [], [], "unused", epoch=3)
    with pytest.raises(ValueError, match="beta"):
        rulelens.train(DATA / "tiny.rules", pairs("train.tsv"), pairs("dev.tsv"), "unused", beta=2.0)


def test_training_from_python_is_training_from_the_command_line(tmp_path: Path):
    settings = dict(embeddings=str(DATA / "vectors.txt"), epochs=2, learning_rate=0.05, seed=3)
    heard = []
    model = rulelens.train(
        DATA / "tiny.rules",
        pairs("train.tsv"),
        pairs("dev.tsv"),
        tmp_path / "python",
        progress=lambda epoch, accuracy, loss: heard.append((epoch, accuracy, loss)),
        **settings,
    )
    # The default ensemble's five members, one after another.
    assert [epoch for epoch, _, _ in heard] == [0, 1, 2] * 5
    assert heard[0][2] is None and heard[1][2] is not None
    binary = os.environ["RULELENS_BIN"]
    cli = tmp_path / "cli"
    subprocess.run(
        [binary, "train", str(DATA / "tiny.rules"), "--embeddings", settings["embeddings"],
         "--epochs", "2", "--learning-rate", "0.05", "--seed", "3", "--out", str(cli)],
        check=True, capture_output=True,
    )
    texts = [text for text, _ in pairs("dev.tsv")]
    ours, theirs = model.predict(texts), rulelens.Model.load(cli).predict(texts)
    assert ours.labels == theirs.labels
    np.testing.assert_array_equal(ours.probabilities, theirs.probabilities)
    manifest = json.loads((tmp_path / "python" / "manifest.json").read_text())
    assert manifest["settings"]["epochs"] == 2 and manifest["labels"] == model.labels
    # The defaults' n-gram regression beside the network, which the explanation says.
    # No weight asked for: it is chosen on dev, and the metrics say which.
    assert manifest["settings"]["ngramWeight"] is rulelens.TRAINING_DEFAULTS["ngram_weight"] is None
    assert manifest["metrics"]["ngram_regression"]["weight"] in (3, 1, 10, 30, 100, 1000)
    # Its probabilities are taken at the temperature fitted on the labeled dev.
    assert 0.01 <= manifest["metrics"]["ngram_regression"]["temperature"] <= 100
    assert model.explain(texts[0]).network.ngram_regression
