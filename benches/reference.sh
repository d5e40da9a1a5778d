#!/bin/sh
# rulelens against the PyTorch FA-RNN reference (../shared/anchors), interleaved, one thread,
# SMS train, batch 32, length-bucketed, at rulelens's SMS model sizes (K 239 states, exact
# rank 219, 50-d word vectors, 8486 words, 73 patterns, 2 labels); see docs/performance.md.
# usage: benches/reference.sh PYTHON_WITH_TORCH [ROUNDS] [OUT_DIR]
set -eu
PYTHON=$1
ROUNDS=${2:-3}
OUT=${3:-target/reference-bench}
SHARED=${SHARED:-../shared}
mkdir -p "$OUT"
cargo build --release --quiet
for round in $(seq "$ROUNDS"); do
    "$PYTHON" "$SHARED/anchors/pytorch_farnn.py" --mode bench --threads 1 \
        --corpus "$SHARED/data/sms/train.tsv" --K 239 --r 219 --D 50 --V 8486 --res 73 \
        --labels 2 --batch 32 --maxlen 80 --bucket --beta 0.7 --repeats 1 \
        --out "$OUT/reference-$round.json" > /dev/null
    RAYON_NUM_THREADS=1 target/release/rulelens train examples/sms/sms.rules \
        --embeddings "$SHARED/embeddings/glove.6B.50d.subset.txt" --beta 0.7 --learning-rate 0.0003 --epochs 1 \
        --out "$OUT/rulelens-$round" > /dev/null 2>&1
    python3 - "$OUT" "$round" <<'PY'
import json, sys
out, r = sys.argv[1], sys.argv[2]
ref = json.load(open(f"{out}/reference-{r}.json"))
m = json.load(open(f"{out}/rulelens-{r}/manifest.json"))["metrics"]
print(f"round {r}: reference {ref['train']['median']:.0f} sentences/s "
      f"(latency {ref['latency_20tok']['median_us']:.0f} us), "
      f"rulelens {m['train_examples'] / m['training_seconds']:.0f} sentences/s")
PY
done
