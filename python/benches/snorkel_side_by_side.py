"""Real Snorkel beside rulelens on the same lines (docs/performance.md, "Against Snorkel",
and docs/python.md, "Snorkel"). Needs `snorkel` (and so torch) in the environment, and the
rulelens wheel; not for CI:

    taskset -c 0 python python/benches/snorkel_side_by_side.py examples/sms/sms.rules \\
        ../shared/anchors/snorkel/sms.rule.txt examples/sms/train.tsv examples/sms/dev.tsv \\
        --replicate 5

1. **Speed**: Snorkel's `PandasLFApplier` with the published rules as Python regexes (the
   labeling functions of `../shared/anchors/snorkel/snorkel_lfs.py`) against
   `Rules.label_matrix` and `Rules.classify` on the same lines (the train file repeated
   `--replicate` times), lines/s and their ratio.
2. **Figures**: Snorkel's own `LFAnalysis(L).lf_summary(Y)` on rulelens's label matrix of
   the dev file against `Rules.analysis`, column by column; exits 1 when any differs.
3. **The hand-off**: Snorkel's `LabelModel` fitted on the train file's label matrix, its
   accuracy on dev (where it abstains, the default decides) beside the rules' own.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import rulelens

COLUMNS = ["Polarity", "Coverage", "Overlaps", "Conflicts", "Correct", "Incorrect", "Emp. Acc."]


def read_tsv(path: str) -> tuple[list[str], list[str]]:
    labels, texts = [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line:
            label, _, text = line.partition("\t")
            labels.append(label)
            texts.append(text)
    return labels, texts


def anchor_lfs(path: str, labels: list[str]):
    """The anchor's labeling functions, voting with rulelens's label indices."""
    spec = importlib.util.spec_from_file_location("snorkel_lfs", Path(path).parent / "snorkel_lfs.py")
    anchor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(anchor)
    from snorkel.labeling import LabelingFunction

    index = {label: i for i, label in enumerate(labels)}

    def lf(i, label, regex):
        k = index[label]
        return LabelingFunction(
            name=f"{label}@{i + 1}", f=lambda x: k if regex.search(x.text.strip().lower()) else -1
        )

    return [lf(i, label, regex) for i, (label, regex) in enumerate(anchor.read_rules(path))]


def best_of(runs: int, call) -> float:
    best = math.inf
    for _ in range(runs):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def same(a, b) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return sorted(a) == sorted(b)
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)):
        return (a is None or math.isnan(a)) and (b is None or math.isnan(b))
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules", help="a .rules file")
    parser.add_argument("anchor_rules", help="the same rules as Python regexes (sms.rule.txt)")
    parser.add_argument("train", help="TSV: LABEL<TAB>TEXT")
    parser.add_argument("dev", help="TSV: LABEL<TAB>TEXT")
    parser.add_argument("--replicate", type=int, default=5)
    args = parser.parse_args()

    from snorkel.labeling import LFAnalysis, PandasLFApplier
    from snorkel.labeling.model import LabelModel

    rules = rulelens.Rules.from_file(args.rules)
    labels = rules.labels

    # 1. Speed.
    _, train_texts = read_tsv(args.train)
    texts = train_texts * args.replicate
    lfs = anchor_lfs(args.anchor_rules, labels)
    frame = pd.DataFrame({"text": texts})
    snorkel_s = best_of(1, lambda: PandasLFApplier(lfs).apply(frame, progress_bar=False))
    matrix_s = best_of(3, lambda: rules.label_matrix(texts))
    classify_s = best_of(3, lambda: rules.classify(texts))
    n = len(texts)
    print(f"{n:,} lines, {len(lfs)} Snorkel LFs, {len(rules.rules)} rules")
    print(f"Snorkel PandasLFApplier: {snorkel_s:.2f} s, {n / snorkel_s:,.0f} lines/s")
    for name, seconds in [("label_matrix", matrix_s), ("classify", classify_s)]:
        print(
            f"rulelens Rules.{name}: {seconds:.4f} s, {n / seconds:,.0f} lines/s, "
            f"{snorkel_s / seconds:,.0f}x Snorkel"
        )

    # 2. Snorkel's figures of rulelens's matrix against rulelens's.
    dev_gold, dev_texts = read_tsv(args.dev)
    matrix = rules.label_matrix(dev_texts)
    y = np.array([labels.index(label) if label in labels else -1 for label in dev_gold])
    theirs = LFAnalysis(L=matrix).lf_summary(Y=y)
    ours = rules.analysis(dev_texts, dev_gold)
    differing = 0
    for column in COLUMNS:
        bad = [
            j
            for j in range(len(rules.rules))
            if not same(theirs[column].iloc[j], ours[column].iloc[j])
        ]
        differing += len(bad)
        print(f"{column}: {len(rules.rules) - len(bad)} of {len(rules.rules)} rules equal")
    # 3. The hand-off.
    train_gold, _ = read_tsv(args.train)
    label_model = LabelModel(cardinality=len(labels), verbose=False)
    label_model.fit(rules.label_matrix(train_texts), seed=0, progress_bar=False)
    predicted = label_model.predict(matrix, tie_break_policy="abstain")
    # Where the LabelModel abstains (no rule fired, or a tie), the rules' default decides, as
    # in the rule system.
    default = labels.index(rules.default) if rules.default is not None else -1
    predicted = np.where(predicted == -1, default, predicted)
    own = np.array([labels.index(c.label) if c.label is not None else -1 for c in rules.classify(dev_texts)])
    print(
        f"dev accuracy: Snorkel's LabelModel (abstentions to the default) "
        f"{100 * float(np.mean(predicted == y)):.2f} %, the rules' own (first firing rule, else "
        f"the default) {100 * float(np.mean(own == y)):.2f} %"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
