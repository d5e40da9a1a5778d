"""Ray Data with rulelens: :class:`RulesLabeler` and :class:`ModelLabeler`, callable classes
for ``ray.data.Dataset.map_batches`` that load the rules or the trained network once per
actor and append their verdict to every batch (docs/python.md, "Ray Data").

    import ray, rulelens
    from rulelens.ray import RulesLabeler

    rules = rulelens.Rules.from_file("sms.rules")          # pickled by its text to each actor
    ds = ray.data.read_parquet("messages/")                # or read_csv, read_json
    ds = ds.map_batches(RulesLabeler, fn_constructor_args=(rules,), concurrency=2,
                        batch_size=8192, batch_format="pandas")
    ds.write_parquet("labeled/")

Ray itself is not a dependency of rulelens: this module never imports it.
"""

from __future__ import annotations

from os import PathLike
from typing import Any

import numpy as np

from rulelens import Model, Rules


class _Appender:
    """Appends the columns :meth:`columns` computes from a batch's texts to the batch, in
    the batch's own format (a pandas DataFrame, a pyarrow Table or a dict of numpy arrays:
    Ray's ``batch_format`` ``"pandas"``, ``"pyarrow"`` or ``"numpy"``)."""

    text_column: str

    def columns(self, texts: list[str]) -> dict[str, list[Any]]:
        raise NotImplementedError

    def __call__(self, batch: Any) -> Any:
        if isinstance(batch, dict):
            out = dict(batch)
            for name, values in self.columns([str(t) for t in batch[self.text_column]]).items():
                out[name] = np.array(values, dtype=object)
            return out
        if hasattr(batch, "assign"):  # a pandas DataFrame
            return batch.assign(**self.columns(batch[self.text_column].astype(str).tolist()))
        if hasattr(batch, "append_column"):  # a pyarrow Table
            import pyarrow as pa

            texts = [str(t) for t in batch.column(self.text_column).to_pylist()]
            for name, values in self.columns(texts).items():
                batch = batch.append_column(name, pa.array(values))
            return batch
        raise TypeError(f"{type(self).__name__}: a batch of type {type(batch).__name__} is not supported")


class RulesLabeler(_Appender):
    """Appends to each batch the column ``label`` (the rules' prediction, the default when
    no rule fires) and ``rule`` (the name, ``LABEL@LINE``, of the rule that decided it, or
    ``None`` when the default did), read from the column ``text_column``."""

    def __init__(
        self, rules: Rules | str | PathLike[str], text_column: str = "text"
    ) -> None:
        self.rules = rules if isinstance(rules, Rules) else Rules.from_file(rules)
        self.text_column = text_column
        self._names = [rule.name for rule in self.rules.rules]

    def columns(self, texts: list[str]) -> dict[str, list[Any]]:
        decided = self.rules.classify(texts)
        return {
            "label": [c.label for c in decided],
            "rule": [None if c.rule is None else self._names[c.rule] for c in decided],
        }


class ModelLabeler(_Appender):
    """Appends to each batch the column ``label`` (the trained network's prediction) and
    ``probability`` (its probability), read from the column ``text_column``. The model
    travels pickled by its checkpoint's bytes, or as the checkpoint's folder."""

    def __init__(self, model: Model | str | PathLike[str], text_column: str = "text") -> None:
        self.model = model if isinstance(model, Model) else Model.load(model)
        self.text_column = text_column

    def columns(self, texts: list[str]) -> dict[str, list[Any]]:
        predictions = self.model.predict(texts)
        return {
            "label": predictions.labels,
            "probability": predictions.probabilities.max(axis=1).tolist(),
        }
