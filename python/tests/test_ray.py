"""Ray Data on a real local Ray cluster (`ray.init(num_cpus=2)`): `RulesLabeler` in
`map_batches` over two actors on a million generated lines gives, row by row, what
`Rules.classify` gives (which `test_rules.py` ties to the command line), in every batch
format."""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd
import pytest

import rulelens
from rulelens.ray import ModelLabeler, RulesLabeler

ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[2]
SMS = ROOT / "examples" / "sms"


@pytest.fixture(scope="session")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def sms_lines(n: int) -> list[str]:
    texts = [
        line.partition("\t")[2]
        for name in ["train.tsv", "dev.tsv"]
        for line in (SMS / name).read_text(encoding="utf-8").splitlines()
    ]
    return list(itertools.islice(itertools.cycle(texts), n))


def column(frame: pd.DataFrame, name: str) -> list[str | None]:
    """A column's values, pandas' missing values as None."""
    return [None if pd.isna(value) else value for value in frame[name].tolist()]


def expected(rules: rulelens.Rules, texts: list[str]) -> pd.DataFrame:
    names = [r.name for r in rules.rules]
    decided = rules.classify(texts)
    return pd.DataFrame(
        {
            "label": [c.label for c in decided],
            "rule": [None if c.rule is None else names[c.rule] for c in decided],
        }
    )


def test_a_million_lines_on_two_actors_equal_classify_row_by_row(cluster):
    rules = rulelens.Rules.from_file(SMS / "sms.rules")
    texts = sms_lines(1_000_000)
    frame = pd.DataFrame({"id": range(len(texts)), "text": texts})
    # Twenty blocks made here, not by a repartition task: the two actors hold both CPUs.
    blocks = [frame.iloc[start : start + 50_000] for start in range(0, len(frame), 50_000)]
    ds = ray.data.from_pandas(blocks).map_batches(
        RulesLabeler,
        fn_constructor_args=(rules,),
        concurrency=2,
        batch_size=50_000,
        batch_format="pandas",
    )
    out = ds.to_pandas().sort_values("id").reset_index(drop=True)
    assert len(out) == len(texts)
    assert out["text"].tolist() == texts
    want = expected(rules, texts)
    assert column(out, "label") == column(want, "label")
    assert column(out, "rule") == column(want, "rule")


@pytest.mark.parametrize("batch_format", ["numpy", "pyarrow", "pandas"])
def test_every_batch_format_comes_back_in_its_format_with_the_columns(cluster, batch_format):
    texts = sms_lines(3_000)
    ds = ray.data.from_items([{"text": t} for t in texts]).map_batches(
        RulesLabeler,
        fn_constructor_args=(str(SMS / "sms.rules"),),
        concurrency=1,
        batch_size=1_000,
        batch_format=batch_format,
    )
    out = ds.to_pandas()
    rules = rulelens.Rules.from_file(SMS / "sms.rules")
    want = expected(rules, out["text"].tolist())
    assert column(out, "label") == column(want, "label")
    assert column(out, "rule") == column(want, "rule")


@pytest.mark.parametrize("batch_format", ["numpy", "pyarrow", "pandas"])
def test_a_model_labels_every_batch_format_as_predict_does(cluster, batch_format):
    checkpoint = ROOT / "tests" / "data" / "checkpoints" / "fa-rnn"
    model = rulelens.Model.load(checkpoint)
    texts = sms_lines(2_000)
    ds = ray.data.from_items([{"text": t} for t in texts]).map_batches(
        ModelLabeler,
        fn_constructor_args=(model,),
        concurrency=1,
        batch_size=500,
        batch_format=batch_format,
    )
    out = ds.to_pandas()
    want = model.predict(out["text"].tolist())
    assert column(out, "label") == want.labels
    assert out["probability"].astype(float).tolist() == pytest.approx(
        want.probabilities.max(axis=1).tolist(), abs=1e-12
    )

