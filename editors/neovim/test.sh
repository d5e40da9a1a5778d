#!/usr/bin/env bash
# End-to-end test of the Neovim plugin: a headless Neovim with only this plugin, in a copy
# of examples/sms, against `rulelens serve` (test/e2e.lua says what it checks). Also checks
# that queries/rules/ is an exact copy of the grammar's queries, and that Neovim's lsp.log
# has no errors.
#
#   editors/neovim/test.sh
#
# RULELENS_BIN: the server (default target/debug/rulelens); NVIM_BIN: Neovim (default
# nvim, 0.7 or later); RULELENS_TEST_DEADLINE: seconds for the whole run (default 300).
# Needs a C compiler (`cc`, or $CC) for the tree-sitter parser.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
nvim="${NVIM_BIN:-nvim}"
server="${RULELENS_BIN:-$repo/target/debug/rulelens}"
deadline="${RULELENS_TEST_DEADLINE:-300}"

fail() {
  echo "editors/neovim/test.sh: $*" >&2
  exit 1
}

# Relative paths are relative to the repository root, as in tests/lsp.
case "$server" in
  /*) ;;
  */*) server="$repo/$server" ;;
  *) server="$(command -v "$server" || true)" ;;
esac
[[ -n "$server" && -x "$server" ]] || fail "no server at ${RULELENS_BIN:-$repo/target/debug/rulelens} (cargo build, or set RULELENS_BIN)"
command -v "$nvim" >/dev/null || fail "no Neovim \`$nvim\` (apt-get install -y neovim, or set NVIM_BIN)"
nvim="$(cd "$repo" && realpath "$(command -v "$nvim")")" # the test runs in another folder
"$nvim" --version | head -n 1

# The plugin's queries are the grammar's, byte for byte, and all of them.
queries="$repo/grammars/tree-sitter-rules/queries"
diff -r "$queries" "$here/queries/rules" || fail "editors/neovim/queries/rules/ differs from $queries (copy them again)"
echo "ok   queries/rules/ is a copy of grammars/tree-sitter-rules/queries/"

tmp="$(mktemp -d)"
cleanup() {
  # A server left behind (Neovim killed by the timeout) would go on training.
  if [[ -s "$tmp/server.pid" ]]; then
    kill "$(cat "$tmp/server.pid")" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
cp -R "$repo/examples/sms" "$tmp/sms"
# On the runtimepath from the start: Neovim 0.7 leaves out folders that do not exist yet.
mkdir "$tmp/site"

# Neovim's logs (lsp.log: stdpath('cache') on 0.7, stdpath('log') from 0.8) in $tmp.
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state"
export RULELENS_TEST_PLUGIN="$here" RULELENS_TEST_DIR="$tmp" RULELENS_TEST_SERVER="$server"
export RULELENS_TEST_DEADLINE="$deadline"
# Neovim enforces the deadline itself; the timeout is for a Neovim that hangs anyway.
status=0
(cd "$tmp/sms" && timeout --kill-after=10 "$((deadline + 30))" \
  "$nvim" --headless --clean -u "$here/test/minimal_init.lua" \
  -c 'lua local ok, e = pcall(dofile, vim.env.RULELENS_TEST_PLUGIN .. "/test/e2e.lua") if not ok then io.stdout:write(tostring(e), "\n") vim.cmd("cquit 1") end') \
  </dev/null || status=$?
if [[ $status -ne 0 ]]; then
  [[ $status -eq 124 || $status -eq 137 ]] && echo "Neovim did not exit within $((deadline + 30)) s" >&2
  fail "failed (exit status $status)"
fi

# Neovim's LSP client logged no error (a failed request, a handler that threw, the server's
# standard error). Left out: "Cannot find request with id N whilst attempting to cancel",
# which current Neovim logs when its semantic-tokens module cancels a request whose answer
# has already arrived (its own bookkeeping, under load; neovim/neovim#36829, #36928).
errors="$(cat "$tmp"/cache/nvim/lsp.log "$tmp"/state/nvim/lsp.log 2>/dev/null | grep '^\[ERROR\]' \
    | grep -v 'whilst attempting to cancel' || true)"
[[ -z "$errors" ]] || fail "Neovim's lsp.log has errors:
$errors"
echo "ok   Neovim's lsp.log has no errors"
