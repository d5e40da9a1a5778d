"""Character n-grams beside the n-gram regression, emulated on `few_labels_proxy.py`'s cuts.

The offline emulation that led to the regression's character n-grams (`docs/results.md`,
"Character n-grams in the regression, emulated offline"; built since: "Character n-grams in
the regression" there). For every cut it trains the network alone (`rulelens train proxy.rules
--seed 0 --ngram-weight 0`), reads its probabilities of the dev and test lines (`rulelens
predict --format json`), and adds to their logarithms the log-probabilities of a
regression fitted here, at the weight and temperature of least dev log loss, as `train`
adds its own. The regression reads tf-idf word 1-2-grams and the line's mean word vector
(times 1/√D, as `nn/mean_vector.rs` scales it), and with `chars` also a tf-idf block of
the character 3- to 5-grams within words (scikit-learn's `char_wb`, its own unit length);
C from rulelens's grid by dev log loss. It prints, per kind of cut, the test accuracy of
the network alone, with the regression of words, and with characters too, and the paired
difference of the last two.

Neither dev's refit nor the network trained again is emulated, so the figures sit under
`train`'s defaults; the difference between the last two columns is what it measures.

Usage: python character_ngrams.py RULELENS PROXY_DIR GLOVE_FILE WORK_DIR
Needs numpy, scipy and scikit-learn (`pip install numpy scikit-learn`).
"""

import json
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import scipy.sparse as sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from few_labels_baselines import C_GRID, cuts, mean_vectors, read_split, read_vectors

WEIGHTS = [0.3, 1, 3, 10, 1000]
TEMPERATURES = [0.5, 1, 2, 4]


def read_lowercased(path: Path):
    texts, labels = read_split(path)
    return [text.lower() for text in texts], list(labels)


def scaled_mean_vectors(texts, vectors, dim):
    """`few_labels_baselines.mean_vectors` times 1/√D, as the regression reads them."""
    return sparse.csr_matrix(mean_vectors(texts, vectors, dim) / np.sqrt(dim))


def network_log_probabilities(rulelens, cut: Path, work: Path):
    """The network alone's log-probabilities of dev's and test's lines, by label."""
    out = work / cut.name
    subprocess.run(
        [rulelens, "train", str(cut / "proxy.rules"), "--seed", "0", "--ngram-weight", "0",
         "--out", str(out)],
        check=True, capture_output=True,
    )
    rows = {}
    for split in ("dev", "test"):
        texts = "".join(line.partition("\t")[2] + "\n"
                        for line in (cut / f"{split}.tsv").read_text(encoding="utf-8").splitlines())
        printed = subprocess.run(
            [rulelens, "predict", str(out), "--format", "json"],
            input=texts, text=True, check=True, capture_output=True,
        ).stdout
        rows[split] = [json.loads(line)["probabilities"] for line in printed.splitlines()]
    return rows


def log_softmax(scores):
    shifted = scores - scores.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def log_loss(scores, labels, classes):
    log_p = log_softmax(scores)
    return -np.mean([log_p[i, classes.index(label)] for i, label in enumerate(labels)])


def combined_accuracy(splits, network, vectors, dim, chars):
    (train, dev, test) = splits
    # A network's vocabulary is its train and dev words: a test word past it is unknown to
    # the regression, and has neither a vector nor characters there.
    known = {word for texts, _ in (train, dev) for text in texts for word in text.split()}
    vectors = {word: vector for word, vector in vectors.items() if word in known}
    blocks = [TfidfVectorizer(ngram_range=(1, 2), token_pattern=r"\S+", lowercase=False)]
    if chars:
        blocks.append(TfidfVectorizer(
            analyzer="char_wb", ngram_range=(3, 5), lowercase=False,
            preprocessor=lambda text: " ".join(w for w in text.split() if w in known),
        ))
    rows = [sparse.hstack([block.fit_transform(train[0]) for block in blocks]
                          + [scaled_mean_vectors(train[0], vectors, dim)]).tocsr()]
    for texts, _ in (dev, test):
        rows.append(sparse.hstack([block.transform(texts) for block in blocks]
                                  + [scaled_mean_vectors(texts, vectors, dim)]).tocsr())
    best = None
    for c in C_GRID:
        model = LogisticRegression(C=c, max_iter=5000).fit(rows[0], train[1])
        classes = list(model.classes_)
        loss = log_loss(model.predict_log_proba(rows[1]), dev[1], classes)
        if best is None or loss < best[0]:
            best = (loss, model)
    model = best[1]
    classes = list(model.classes_)
    regression = [model.predict_log_proba(r) for r in rows[1:]]
    net = [np.log(np.array([[max(p.get(c, 1e-9), 1e-9) for c in classes] for p in network[s]]))
           for s in ("dev", "test")]
    _, weight = min(
        (log_loss((net[0] + w * regression[0]) / t, dev[1], classes), w)
        for w in WEIGHTS for t in TEMPERATURES
    )
    truth = np.array(test[1])
    alone = np.mean(np.array(classes)[net[1].argmax(axis=1)] == truth)
    both = np.mean(np.array(classes)[(net[1] + weight * regression[1]).argmax(axis=1)] == truth)
    return 100 * alone, 100 * both


def main():
    rulelens = sys.argv[1]
    proxies, glove, work = (Path(arg) for arg in sys.argv[2:5])
    work.mkdir(parents=True, exist_ok=True)
    vectors = read_vectors(glove)
    dim = len(next(iter(vectors.values())))
    figures = defaultdict(list)
    for cut in cuts(proxies):
        splits = [read_lowercased(cut / f"{name}.tsv") for name in ("train", "dev", "test")]
        network = network_log_probabilities(rulelens, cut, work)
        alone, words = combined_accuracy(splits, network, vectors, dim, chars=False)
        _, chars = combined_accuracy(splits, network, vectors, dim, chars=True)
        figures[cut.name.rsplit("-", 1)[0]].append((alone, words, chars))
    for kind, runs in sorted(figures.items()):
        alone, words, chars = (statistics.mean(column) for column in zip(*runs))
        gains = [c - w for _, w, c in runs]
        error = statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else 0.0
        print(f"{kind}\tnetwork {alone:.2f}\twords {words:.2f}\twords and characters {chars:.2f}"
              f"\t{statistics.mean(gains):+.2f} ± {error:.2f}\tbetter {sum(g > 0 for g in gains)}"
              f", worse {sum(g < 0 for g in gains)} of {len(gains)}")


if __name__ == "__main__":
    main()
