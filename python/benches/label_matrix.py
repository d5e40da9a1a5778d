"""Lines per second of `Rules.label_matrix` and `Rules.classify` from Python on a corpus
repeated to `--lines` lines (docs/performance.md, "The rules from Python"):

    taskset -c 0 python python/benches/label_matrix.py examples/sms/sms.rules \\
        examples/sms/train.tsv examples/sms/dev.tsv --lines 1000000

Build the package with `maturin develop --release` first: a debug build is ten times slower.
"""

from __future__ import annotations

import argparse
import time

import rulelens
from corpus import repeated_texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules")
    parser.add_argument("corpora", nargs="+", help="TSV files: LABEL<TAB>TEXT")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=2, help="the best of this many")
    args = parser.parse_args()
    texts = repeated_texts(args.corpora, args.lines)
    rules = rulelens.Rules.from_file(args.rules)
    for name, call in [("label_matrix", rules.label_matrix), ("classify", rules.classify)]:
        best = float("inf")
        for _ in range(args.runs):
            start = time.perf_counter()
            call(texts)
            best = min(best, time.perf_counter() - start)
        print(f"{name}: {len(texts):,} lines in {best:.2f} s, {len(texts) / best:,.0f} lines/s")


if __name__ == "__main__":
    main()
