#!/usr/bin/env bash
# The reports of `rulelens report` on examples/sms and examples/trec in a real browser:
# Debian's Chromium, headless, driven by playwright-core (browser.mjs says what it checks).
# Offline: playwright-core comes, pinned by package-lock.json, from the npm registry the
# first time and is kept until the lock file changes.
#
#   tests/report/test.sh
#
# RULELENS_SERVER: the rulelens binary (default target/debug/rulelens);
# RULELENS_REPORT_CHROMIUM: Chromium (default /usr/bin/chromium);
# RULELENS_REPORT_SCREENSHOTS: a folder to keep each page's screenshot in (how
# docs/images/report-*.png are made).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
[[ "$target" == /* ]] || target="$repo/$target"
tools="$target/report-browser"
server="${RULELENS_SERVER:-$target/debug/rulelens}"
chromium="${RULELENS_REPORT_CHROMIUM:-/usr/bin/chromium}"
fail() {
    echo "tests/report/test.sh: $*" >&2
    exit 1
}
[[ -x "$server" ]] || fail "no rulelens at $server (cargo build, or set RULELENS_SERVER)"
[[ -x "$chromium" ]] || fail "no Chromium at $chromium (apt-get install -y chromium)"
# shellcheck source=../node20.sh
source "$repo/tests/node20.sh"
node20_on_path

stamp="lock $(sha256sum <"$here/package-lock.json" | cut -d' ' -f1)"
if [[ "$(cat "$tools/installed" 2>/dev/null)" != "$stamp" ]]; then
    rm -rf "$tools"
    mkdir -p "$tools"
    cp "$here/package.json" "$here/package-lock.json" "$tools/"
    (cd "$tools" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    echo "$stamp" >"$tools/installed"
fi

# The pages, with empty caches (no curve, no bench: what a fresh checkout shows) and the
# suggestions.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for example in sms trec; do
    "$server" report "$repo/examples/$example/$example.rules" -o "$work/report-$example.html" \
        --model-cache "$work/models" --bench-cache "$work/bench"
done
RULELENS_REPORT_MODULES="$tools/node_modules" RULELENS_REPORT_CHROMIUM="$chromium" \
    timeout 120 node "$here/browser.mjs" "$work/report-sms.html" "$work/report-trec.html"
