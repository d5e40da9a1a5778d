"""Ray Data with rulelens: :class:`RulesLabeler`, a callable class for
``ray.data.Dataset.map_batches`` that compiles the rules once per actor and appends the
rules' verdict to every batch (docs/python.md, "Ray Data").

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

from rulelens import Rules


class RulesLabeler:
    """Appends to each batch the column ``label`` (the rules' prediction, the default when
    no rule fires) and ``rule`` (the name, ``LABEL@LINE``, of the rule that decided it, or
    ``None`` when the default did), read from the column ``text_column``. Batches may be
    pandas DataFrames, pyarrow Tables or dicts of numpy arrays (Ray's ``batch_format``
    ``"pandas"``, ``"pyarrow"`` or ``"numpy"``); the batch comes back in its own format."""

    def __init__(
        self, rules: Rules | str | PathLike[str], text_column: str = "text"
    ) -> None:
        self.rules = rules if isinstance(rules, Rules) else Rules.from_file(rules)
        self.text_column = text_column
        self._names = [rule.name for rule in self.rules.rules]

    def verdicts(self, texts: list[str]) -> tuple[list[str | None], list[str | None]]:
        """The ``label`` and ``rule`` columns for ``texts``."""
        decided = self.rules.classify(texts)
        labels = [c.label for c in decided]
        rules = [None if c.rule is None else self._names[c.rule] for c in decided]
        return labels, rules

    def __call__(self, batch: Any) -> Any:
        if isinstance(batch, dict):
            labels, rules = self.verdicts([str(t) for t in batch[self.text_column]])
            out = dict(batch)
            out["label"] = np.array(labels, dtype=object)
            out["rule"] = np.array(rules, dtype=object)
            return out
        if hasattr(batch, "assign"):  # a pandas DataFrame
            labels, rules = self.verdicts(batch[self.text_column].astype(str).tolist())
            return batch.assign(label=labels, rule=rules)
        if hasattr(batch, "append_column"):  # a pyarrow Table
            import pyarrow as pa

            labels, rules = self.verdicts([str(t) for t in batch.column(self.text_column).to_pylist()])
            batch = batch.append_column("label", pa.array(labels, type=pa.string()))
            return batch.append_column("rule", pa.array(rules, type=pa.string()))
        raise TypeError(f"RulesLabeler: a batch of type {type(batch).__name__} is not supported")
