"""What the Python benchmarks read: the texts of TSV corpora (LABEL<TAB>TEXT), repeated to
a number of lines."""

from __future__ import annotations

import itertools


def repeated_texts(paths: list[str], lines: int) -> list[str]:
    """The texts of `paths` in order, cycled to `lines` texts."""
    texts = [
        line.rstrip("\n").partition("\t")[2]
        for path in paths
        for line in open(path, encoding="utf-8")
    ]
    return list(itertools.islice(itertools.cycle(texts), lines))
