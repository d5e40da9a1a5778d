"""Ray Data scaling of `RulesLabeler` (docs/performance.md, "The rules from Python"): the
SMS rules over a corpus repeated to `--lines` lines, in blocks made by the driver, labeled by
one actor and then by two on a local cluster of two CPUs; seconds of each, best of `--runs`:

    python python/benches/ray_scaling.py examples/sms/sms.rules examples/sms/train.tsv \\
        examples/sms/dev.tsv --lines 2000000
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
import ray

import rulelens
from corpus import repeated_texts
from rulelens.ray import RulesLabeler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules")
    parser.add_argument("corpora", nargs="+", help="TSV files: LABEL<TAB>TEXT")
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--block", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    texts = repeated_texts(args.corpora, args.lines)
    frame = pd.DataFrame({"text": texts})
    blocks = [frame.iloc[i : i + args.block] for i in range(0, len(frame), args.block)]
    rules = rulelens.Rules.from_file(args.rules)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ds = ray.data.from_pandas(blocks).materialize()
    seconds = {}
    for actors in [1, 2]:
        best = float("inf")
        for _ in range(args.runs):
            start = time.perf_counter()
            ds.map_batches(
                RulesLabeler,
                fn_constructor_args=(rules,),
                concurrency=actors,
                batch_size=args.block,
                batch_format="pandas",
            ).materialize()
            best = min(best, time.perf_counter() - start)
        seconds[actors] = best
        print(f"{actors} actor(s): {len(texts):,} lines in {best:.2f} s, {len(texts) / best:,.0f} lines/s")
    print(f"two actors against one: {seconds[1] / seconds[2]:.2f}x")
    ray.shutdown()


if __name__ == "__main__":
    main()
