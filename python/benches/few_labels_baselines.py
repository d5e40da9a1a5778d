"""The plain baselines on the proxies of `few_labels_proxy.py`, as scikit-learn fits them.

Issue 50's yardstick for a hundred labelled lines is logistic regression on averaged word
vectors. This fits it, and logistic regression on tf-idf unigrams and bigrams, on every
cut's train lines, C chosen on its dev lines from rulelens's grid (0.01 to 100, ties to
the smaller), and prints each proxy's mean test accuracy over the cuts. The word vectors
are a GloVe text file's (`../shared/embeddings/glove.6B.50d.subset.txt`); a token it lacks
is left out of the mean. Unlike a rulelens network, whose vocabulary is its train and dev
words, this reads the vector of every test word the file has.

Usage: python few_labels_baselines.py PROXY_DIR GLOVE_FILE
Needs numpy and scikit-learn (`pip install numpy scikit-learn`).
"""

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

C_GRID = [0.01, 0.1, 1, 10, 100]


def read_vectors(path: Path):
    vectors = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            word, *values = line.rstrip().split(" ")
            vectors[word] = np.array(values, dtype=float)
    return vectors


def read_split(path: Path):
    texts, labels = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        label, _, text = line.partition("\t")
        texts.append(text)
        labels.append(label)
    return texts, np.array(labels)


def mean_vectors(texts, vectors, dim):
    rows = []
    for text in texts:
        known = [vectors[w] for w in text.lower().split() if w in vectors]
        rows.append(np.mean(known, axis=0) if known else np.zeros(dim))
    return np.array(rows)


def cuts(proxies: Path):
    """The cut folders of `few_labels_proxy.py`'s output, in order."""
    return [cut for cut in sorted(proxies.iterdir()) if (cut / "test.tsv").exists()]


def chosen_on_dev(train, dev):
    (x_train, y_train), (x_dev, y_dev) = train, dev
    best = None
    for c in C_GRID:
        model = LogisticRegression(C=c, max_iter=5000).fit(x_train, y_train)
        accuracy = model.score(x_dev, y_dev)
        if best is None or accuracy > best[0]:
            best = (accuracy, model)
    return best[1]


def main():
    proxies, glove = Path(sys.argv[1]), Path(sys.argv[2])
    vectors = read_vectors(glove)
    dim = len(next(iter(vectors.values())))
    figures = defaultdict(list)
    for cut in cuts(proxies):
        kind = cut.name.rsplit("-", 1)[0]
        train, dev, test = (read_split(cut / f"{name}.tsv") for name in ("train", "dev", "test"))
        mean = [mean_vectors(texts, vectors, dim) for texts, _ in (train, dev, test)]
        model = chosen_on_dev((mean[0], train[1]), (mean[1], dev[1]))
        figures[(kind, "mean word vector")].append(model.score(mean[2], test[1]))
        tfidf = TfidfVectorizer(ngram_range=(1, 2), token_pattern=r"\S+").fit(train[0])
        rows = [tfidf.transform(texts) for texts, _ in (train, dev, test)]
        model = chosen_on_dev((rows[0], train[1]), (rows[1], dev[1]))
        figures[(kind, "tf-idf 1-2-grams")].append(model.score(rows[2], test[1]))
    for (kind, baseline), accuracies in sorted(figures.items()):
        print(f"{kind}\t{baseline}\t{100 * np.mean(accuracies):.2f}\tover {len(accuracies)} cuts")


if __name__ == "__main__":
    main()
