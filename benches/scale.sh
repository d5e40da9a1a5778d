#!/usr/bin/env bash
# Time and peak memory of the command line at scale (issue 14): `check` on 1k, 10k and 100k
# patterns, on 100k rules over 100 labels, on 100, 10k and 100k gold labels and on a
# 1,000,000-line corpus; `init` on 100k gold labels; `train` with a 10 MB line, and one SMS
# epoch with forward and Viterbi scoring. Each row is one run of the release binary under GNU time (wall seconds,
# peak resident memory). Prints a Markdown table; results in docs/performance.md.
#
# Run from the repository root: benches/scale.sh
set -euo pipefail

cargo build --release --quiet
bin="$PWD/target/release/rulelens"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp examples/sms/sms.rules examples/sms/train.tsv examples/sms/dev.tsv "$work/"
cd "$work"

python3 - <<'PY'
import random
for n in (1000, 10000, 100000):
    with open(f"patterns{n}.rules", "w") as f:
        f.write("default ham\n")
        for i in range(n):
            f.write(f"spam: $* word{i} $*\n")
with open("labels100x1000.rules", "w") as f:
    f.write("default ham\n")
    for i in range(100000):
        f.write(f"lab{i % 100}: $* word{i} $*\n")
for n in (100, 10000, 100000):
    with open(f"gold{n}.tsv", "w") as f:
        for i in range(n):
            f.write(f"lab{i}\tfoo\n")
    with open(f"gold{n}.rules", "w") as f:
        f.write(f'default ham\ncorpus train "gold{n}.tsv"\nspam: $* foo $*\n')
train = open("train.tsv").read().splitlines()
with open("million.tsv", "w") as f:
    for i in range(1000000):
        f.write(train[i % len(train)] + "\n")
rules = open("sms.rules").read().replace('"train.tsv"', '"million.tsv"')
open("million.rules", "w").write(rules)
random.seed(0)
words = ["free", "call", "win", "cash", "hello", "mum", "dinner", "txt", "now", "ok"]
line = " ".join(random.choice(words) for _ in range(2000000))
open("long.tsv", "w").write("spam\t" + line + "\n" + open("train.tsv").read())
PY

row() {
    local what="$1"
    shift
    /usr/bin/time -f "%e %M" -o time.txt "$@" >/dev/null 2>&1 || true
    read -r seconds kib <time.txt
    printf '| %s | %s | %.0f |\n' "$what" "$seconds" "$((kib / 1024))"
}

echo "| what | seconds | peak MiB |"
echo "|---|---:|---:|"
for n in 1000 10000 100000; do
    row "check, $n patterns" "$bin" check "patterns$n.rules"
done
row "check, 100,000 rules over 100 labels" "$bin" check labels100x1000.rules
for n in 100 10000 100000; do
    row "check, $n gold labels" "$bin" check "gold$n.rules"
done
row "init, 100000 gold labels" "$bin" init gold100000.tsv
row "check, SMS rules on a 1,000,000-line corpus" "$bin" check million.rules
row "train, 1 epoch, a 10 MB line in train" "$bin" train sms.rules --train long.tsv --epochs 1 --out out-long
row "train, 1 epoch, forward" "$bin" train sms.rules --epochs 1 --out out-forward
row "train, 1 epoch, Viterbi" "$bin" train sms.rules --epochs 1 --scoring viterbi --out out-viterbi
