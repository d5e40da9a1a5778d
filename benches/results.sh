#!/usr/bin/env bash
# The trained-network grid of docs/results.md: FA-RNN and FA-GRU on SMS and TREC, trained
# on 100 %, 10 % and 1 % of train with seeds 0, 1, 2, each evaluated on all of dev.
# Usage: [MODELS="fa-rnn fa-gru"] [FRACTIONS="1 0.1 0.01"] benches/results.sh RULELENS OUT_DIR [PARALLEL_JOBS]
# Writes OUT_DIR/<model>-<data>-f<fraction>-s<seed>/ (checkpoint, train.log, dev.json)
# and prints the table of dev accuracies (mean ± sd over seeds, then each seed's).
set -euo pipefail
bin=$(realpath "$1")
out=$2
jobs=${3:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
embeddings=${EMBEDDINGS:-$root/../shared/embeddings/glove.6B.50d.subset.txt}
models=${MODELS:-fa-rnn fa-gru}
fractions=${FRACTIONS:-1 0.1 0.01}
mkdir -p "$out"
for model in $models; do
  for ds in sms trec; do
    for f in $fractions; do
      for s in 0 1 2; do
        echo "$model $ds $f $s"
      done
    done
  done
done | xargs -P "$jobs" -L 1 bash -c '
  model=$0 ds=$1 f=$2 s=$3
  dir='"$out"'/$model-$ds-f$f-s$s
  [ -f "$dir/dev.json" ] && exit 0
  RAYON_NUM_THREADS=1 "'"$bin"'" train "'"$root"'/examples/$ds/$ds.rules" --model $model \
    --embeddings "'"$embeddings"'" --beta 0.7 --learning-rate 0.0003 --epochs 30 --patience 5 \
    --fraction $f --seed $s --out "$dir" > "$dir.log" 2>&1
  mv "$dir.log" "$dir/train.log"
  RAYON_NUM_THREADS=1 "'"$bin"'" eval "$dir" --corpus "'"$root"'/examples/$ds/dev.tsv" \
    --format json > "$dir/dev.json"'
python3 - "$out" "$models" "$fractions" <<'PY'
import json, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
models, fractions = sys.argv[2].split(), sys.argv[3].split()
print("| model | rules | " + " | ".join(f"{float(f) * 100:g} %" for f in fractions) + " |")
print("| --- | --- |" + " --- |" * len(fractions))
for model in models:
    for ds in ["sms", "trec"]:
        cells = []
        for f in fractions:
            accs = [100 * json.loads((out / f"{model}-{ds}-f{f}-s{s}" / "dev.json").read_text())["accuracy"] for s in range(3)]
            seeds = ", ".join(f"{a:.1f}" for a in accs)
            cells.append(f"{statistics.mean(accs):.2f} ± {statistics.stdev(accs):.2f} ({seeds})")
        name = model.upper().replace("BIFA-", "BiFA-")
        print(f"| {name} | {ds.upper()} | " + " | ".join(cells) + " |")
PY
