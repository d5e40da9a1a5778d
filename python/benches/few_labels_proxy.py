"""Cuts issue 50's "a hundred labelled lines, no rules" proxies from apparel's reviews.

The issue's held-out case is 100 short sentiment sentences with a `default`-only file.
Apparel (train and dev of `../shared/data/apparel`, no license stated, so the proxies stay
outside the repository) gives two stand-ins, each a folder with `train.tsv`, `dev.tsv`,
`test.tsv` and `proxy.rules` (`default pos` binding train and dev):

- `short`: each review's first sentence of 4 to 15 tokens, 100 train and 100 dev lines,
  the rest test, every part balanced;
- `small`: whole reviews of at most 30 tokens, 100 train and 80 dev lines, the rest test,
  balanced;
- `long`: whole reviews of any length, 100 train and 80 dev lines, the rest test, balanced
  (apparel's own lines, as `train --fraction 0.07` on apparel reads a hundred of them).

Usage: python few_labels_proxy.py APPAREL_DIR OUT_DIR [DRAWS]

With a hundred train lines, which hundred moves a figure by several points, so the script
makes DRAWS (default 1) cuts of each, `short-0`, `small-0`, `long-0`, `short-1`, …: draw k pools the
reviews (train, then dev) and shuffles them with seed k, so every cut is the same on every
machine. Standard library only.
"""

import random
import sys
from pathlib import Path

SENTENCE_ENDS = {".", "!", "?"}


def reviews(apparel: Path):
    """(label, text) of every review of apparel's train and dev, in file order."""
    pooled = []
    for name in ("train.tsv", "dev.tsv"):
        for line in (apparel / name).read_text(encoding="utf-8").splitlines():
            label, _, text = line.partition("\t")
            if text:
                pooled.append((label, text))
    return pooled


def first_sentence(text: str) -> list[str]:
    tokens = text.split()
    for i, token in enumerate(tokens):
        if token in SENTENCE_ENDS:
            return tokens[: i + 1]
    return tokens


def balanced_split(lines, sizes):
    """`lines` cut into parts of `sizes` lines each (half of each label), then the rest
    balanced; the labels are the two most common."""
    by_label = {}
    for label, text in lines:
        by_label.setdefault(label, []).append((label, text))
    labels = sorted(by_label, key=lambda label: -len(by_label[label]))[:2]
    per_label = min(len(by_label[label]) for label in labels)
    parts, start = [], 0
    for size in sizes + [2 * per_label - sum(sizes)]:
        half = size // 2
        part = [line for label in labels for line in by_label[label][start : start + half]]
        random.Random(len(parts)).shuffle(part)
        parts.append(part)
        start += half
    return parts


def write(folder: Path, parts):
    folder.mkdir(parents=True, exist_ok=True)
    for name, part in zip(("train.tsv", "dev.tsv", "test.tsv"), parts):
        (folder / name).write_text(
            "".join(f"{label}\t{text}\n" for label, text in part), encoding="utf-8"
        )
    (folder / "proxy.rules").write_text(
        'default pos\ncorpus train "train.tsv"\ncorpus dev "dev.tsv"\n', encoding="utf-8"
    )
    print(folder.name, *(len(part) for part in parts))


def main():
    apparel, out = Path(sys.argv[1]), Path(sys.argv[2])
    draws = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    for draw in range(draws):
        pooled = reviews(apparel)
        random.Random(draw).shuffle(pooled)
        short = []
        for label, text in pooled:
            sentence = first_sentence(text)
            if 4 <= len(sentence) <= 15:
                short.append((label, " ".join(sentence)))
        write(out / f"short-{draw}", balanced_split(short, [100, 100]))
        small = [(label, text) for label, text in pooled if len(text.split()) <= 30]
        write(out / f"small-{draw}", balanced_split(small, [100, 80]))
        write(out / f"long-{draw}", balanced_split(pooled, [100, 80]))


if __name__ == "__main__":
    main()
