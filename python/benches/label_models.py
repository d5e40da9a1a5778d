"""Label models side by side on the same label matrix (docs/python.md, "The label model
against Snorkel's", and docs/results.md, "Learning from rules and unlabeled text"). Needs
`snorkel` (and so torch) in the environment beside the rulelens wheel; not for CI:

    python python/benches/label_models.py examples/sms/sms.rules examples/sms/train.tsv
    python python/benches/label_models.py examples/trec/trec.rules examples/trec/train.tsv

The label matrix is rulelens's (`Rules.label_matrix`) of the corpus's lines; every model
sees it with the gold labels hidden, and the gold labels only score them:

- the rule list: the rule system's own prediction (its first firing label in priority
  order, else the default);
- Snorkel's `MajorityLabelVoter` (where every rule abstains, or on a tie it abstains on,
  the default decides);
- Snorkel's `LabelModel` (`fit(L, n_epochs=500, seed=S)` for seeds 0-2; where it abstains,
  the default decides), its estimated accuracy of each rule (`get_weights()`) and the mean
  probability of a rule's label where it fired (the same estimate rulelens makes);
- rulelens's label model (`Rules.label_model`).

For each: the accuracy of its most probable labels, and the mean absolute error of the
estimated precisions of the rules that fire on at least 20 lines against their true ones.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import rulelens


def read_tsv(path: str) -> tuple[list[str | None], list[str]]:
    labels, texts = [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line:
            label, tab, text = line.partition("\t")
            labels.append(label if tab else None)
            texts.append(text if tab else label)
    return labels, texts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rules")
    ap.add_argument("corpus")
    ap.add_argument("--min-fired", type=int, default=20)
    a = ap.parse_args()

    from snorkel.labeling.model import LabelModel, MajorityLabelVoter

    rules = rulelens.Rules.from_file(a.rules)
    gold_names, texts = read_tsv(a.corpus)
    index = {label: i for i, label in enumerate(rules.labels)}
    gold = np.array([index.get(g, -1) if g is not None else -1 for g in gold_names])
    L = rules.label_matrix(texts)
    k = len(rules.labels)
    default = index[rules.default] if rules.default is not None else -1
    fired = L >= 0
    n_fired = fired.sum(axis=0)
    chosen = n_fired >= a.min_fired
    votes = np.array([r.label_index for r in rules.rules])
    true_precision = np.array(
        [(gold[fired[:, j]] == votes[j]).mean() if n_fired[j] else np.nan for j in range(len(votes))]
    )

    def precision_error(estimate: np.ndarray) -> float:
        return float(np.abs(estimate[chosen] - true_precision[chosen]).mean())

    def from_posterior(p: np.ndarray) -> np.ndarray:
        return np.array(
            [p[fired[:, j], votes[j]].mean() if n_fired[j] else np.nan for j in range(len(votes))]
        )

    def accuracy(predicted: np.ndarray) -> float:
        predicted = np.where(predicted < 0, default, predicted)
        return float((predicted == gold).mean())

    print(f"{a.corpus}: {len(texts)} lines, {len(votes)} rules, {int(chosen.sum())} fire on at least {a.min_fired}")
    rule_list = np.array(
        [index[c.label] if c.label is not None else -1 for c in rules.classify(texts)]
    )
    print(f"{'rule list':32s} accuracy {100 * accuracy(rule_list):6.2f}")
    majority = MajorityLabelVoter(cardinality=k).predict(L=L)
    print(f"{'Snorkel MajorityLabelVoter':32s} accuracy {100 * accuracy(majority):6.2f}")
    for seed in range(3):
        model = LabelModel(cardinality=k, verbose=False)
        model.fit(L_train=L, n_epochs=500, seed=seed, progress_bar=False)
        p = model.predict_proba(L)
        predicted = np.where(fired.any(axis=1), p.argmax(axis=1), -1)
        print(
            f"{'Snorkel LabelModel, seed ' + str(seed):32s} accuracy {100 * accuracy(predicted):6.2f}"
            f"   precision MAE: weights {precision_error(model.get_weights()):.3f},"
            f" posterior {precision_error(from_posterior(p)):.3f}"
        )
    ours = rules.label_model(texts)
    print(
        f"{'rulelens label model':32s} accuracy {100 * accuracy(ours.probabilities.argmax(axis=1)):6.2f}"
        f"   precision MAE {precision_error(from_posterior(ours.probabilities)):.3f};"
        f" estimated accuracy of the rules {100 * ours.estimated_accuracy:.2f}"
        f" (true {100 * accuracy(rule_list):.2f})"
    )
    analysis = rules.analysis(texts)
    estimated = np.array(analysis["estimated_precision"], dtype=float)
    print(f"{'rulelens Rules.analysis':32s} precision MAE {precision_error(estimated):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
