#!/usr/bin/env bash
# Tests the grammars of the `.rules` language (grammars/README.md):
#   1. installs the pinned tree-sitter CLI unless that version is already on PATH or
#      installed under $TREE_SITTER_ROOT (default: target/tree-sitter-cli in the repo);
#   2. regenerates the tree-sitter parser into a temporary folder and checks that the
#      committed src/ is up to date and at ABI 14;
#   3. runs `tree-sitter test` (corpus and highlight tests);
#   4. parses tests/data/syntax/ok/*.rules and examples/*/*.rules, expecting no ERROR or
#      MISSING node; checks each line of tests/data/syntax/err/*.rules against the syntax
#      errors rulelens reports for it (test/fixtures.mjs), and that error recovery keeps to
#      lines (test/lines.mjs);
#   5. runs `npm ci` and `npm test` in grammars/textmate-test (the TextMate grammar).
# Needs: cargo (first run only, to install the CLI from crates.io), node 20+, npm, a C
# compiler. Usage:
#   grammars/test.sh                  # all of it
#   grammars/test.sh --install-only   # step 1 only (tests/run.sh, in the background)
set -euo pipefail

TREE_SITTER_VERSION=0.25.10

grammars=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$grammars")
grammar="$grammars/tree-sitter-rules"
root=${TREE_SITTER_ROOT:-$repo/target/tree-sitter-cli}

started=$SECONDS
step() { printf '\n==> [%3ds] %s\n' "$((SECONDS - started))" "$*"; }

has_version() {
  [[ -x "$1" ]] && [[ "$("$1" --version 2>/dev/null)" == "tree-sitter $TREE_SITTER_VERSION" ]]
}

install_only=false
[[ "${1:-}" == "--install-only" ]] && install_only=true

step "tree-sitter CLI $TREE_SITTER_VERSION"
# One install at a time: a run that finds one under way (tests/run.sh starts one in the
# background) waits for it, then finds the CLI installed.
mkdir -p "$root"
exec 9>"$root/install.lock"
flock 9
ts=""
if on_path=$(command -v tree-sitter) && has_version "$on_path"; then
  ts=$on_path
elif has_version "$root/bin/tree-sitter"; then
  ts=$root/bin/tree-sitter
else
  echo "installing tree-sitter-cli $TREE_SITTER_VERSION into $root (about a minute)"
  # Its own target dir, so that the install never touches the project's build, and none of
  # the project's lint settings (.ci/run builds the project through clippy). Unoptimized
  # (--debug): 95 s of CPU to build instead of 222 s, and these tests take 3 s with it
  # instead of 2.3 s (docs/performance.md, "The test suite on a fresh machine").
  env -u RUSTFLAGS -u RUSTC_WORKSPACE_WRAPPER \
    CARGO_TARGET_DIR="$root/build" cargo install --locked --quiet --debug \
    tree-sitter-cli --version "$TREE_SITTER_VERSION" --root "$root"
  rm -rf "$root/build"
  has_version "$root/bin/tree-sitter" || {
    echo "error: $root/bin/tree-sitter is not tree-sitter $TREE_SITTER_VERSION" >&2
    exit 1
  }
  ts=$root/bin/tree-sitter
fi
flock -u 9
echo "using $ts"
$install_only && exit 0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rules-grammars.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# A fresh parser library and a config of our own, so that neither a library built from
# another checkout (the CLI caches it by language name) nor the user's config is used.
export TREE_SITTER_LIBDIR="$tmp/lib"
export TREE_SITTER_DIR="$tmp/config"
mkdir -p "$TREE_SITTER_LIBDIR" "$TREE_SITTER_DIR"
printf '{"parser-directories": ["%s"]}\n' "$grammars" >"$TREE_SITTER_DIR/config.json"

cd "$grammar"

step "generated src/ is up to date"
"$ts" generate --abi 14 -o "$tmp/src"
diff -r --exclude=scanner.c "$tmp/src" src
grep -qx '#define LANGUAGE_VERSION 14' src/parser.c || {
  echo "error: src/parser.c is not at ABI 14" >&2
  exit 1
}
echo "src/ matches grammar.js; ABI 14"

step "tree-sitter test (corpus and highlight tests)"
"$ts" test

step "ok fixtures and examples parse without ERROR or MISSING nodes"
files=("$repo"/tests/data/syntax/ok/*.rules "$repo"/examples/*/*.rules)
"$ts" parse --quiet "${files[@]}"
echo "${#files[@]} files"

step "err fixtures: syntax errors where rulelens reports them"
node test/fixtures.mjs "$ts"

step "error recovery keeps to lines"
node test/lines.mjs "$ts"

step "TextMate grammar (vscode-textmate + vscode-oniguruma)"
cd "$grammars/textmate-test"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
npm test --silent

step "all grammar tests passed"
