#!/bin/sh
# Scoring one 20-token sentence: rulelens's plain-loop scorer against the PyTorch FA-RNN
# reference (../shared/anchors), interleaved round by round, one thread, at the reference's
# default sizes (K 52 states, rank 150) and at rulelens's SMS sizes (K 239, rank 219); see
# docs/performance.md.
# usage: benches/scoring.sh PYTHON_WITH_TORCH [ROUNDS] [OUT_DIR]
set -eu
PYTHON=$1
ROUNDS=${2:-3}
OUT=${3:-target/scoring-bench}
SHARED=${SHARED:-../shared}
mkdir -p "$OUT"
reference() { # K r V patterns
    "$PYTHON" "$SHARED/anchors/pytorch_farnn.py" --mode bench --threads 1 \
        --corpus "$SHARED/data/sms/train.tsv" --sentences 320 --K "$1" --r "$2" --D 50 \
        --V "$3" --res "$4" --labels 2 --batch 32 --maxlen 80 --bucket --beta 0.7 \
        --out "$OUT/reference.json" > /dev/null
    python3 -c 'import json, sys; print("%.1f us" % json.load(open(sys.argv[1]))["latency_20tok"]["median_us"])' \
        "$OUT/reference.json"
}
for round in $(seq "$ROUNDS"); do
    echo "round $round"
    echo "  reference K 52, r 150: $(reference 52 150 9000 36)"
    echo "  reference K 239, r 219: $(reference 239 219 8486 73)"
    RAYON_NUM_THREADS=1 cargo bench --quiet --bench network -- 'score-20-tokens/' > /dev/null 2>&1
    for name in sms-k52-r150 sms trec; do
        python3 -c 'import json, sys; print("  rulelens %s: %.1f us" % (sys.argv[1], json.load(open(sys.argv[2]))["median"]["point_estimate"] / 1000))' \
            "$name" "target/criterion/score-20-tokens/$name/new/estimates.json"
    done
done
