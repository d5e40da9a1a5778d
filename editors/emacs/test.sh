#!/usr/bin/env bash
# End-to-end test of rulelens.el with Eglot: Emacs in batch mode (`emacs --batch`, no init
# file and no site-start file, but with the site-lisp folders, where Debian's elpa-eglot
# lives; Emacs 29 and later have Eglot built in), in a copy of examples/sms, against
# `rulelens serve` (test/rulelens-eglot-test.el says what it checks). Also checks that
# docs/editors.md gives test/init.el, the configuration the test loads, verbatim.
#
#   editors/emacs/test.sh
#
# RULELENS_BIN: the server (default target/debug/rulelens); EMACS_BIN: Emacs (default
# emacs, 28 or later, with Eglot 1.9 or later: `apt-get install -y emacs-nox elpa-eglot`);
# RULELENS_TEST_DEADLINE: seconds for the whole run (default 60).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
emacs="${EMACS_BIN:-emacs}"
server="${RULELENS_BIN:-$repo/target/debug/rulelens}"
deadline="${RULELENS_TEST_DEADLINE:-60}"

fail() {
  echo "editors/emacs/test.sh: $*" >&2
  exit 1
}

# Relative paths are relative to the repository root, as in tests/lsp.
case "$server" in
  /*) ;;
  */*) server="$repo/$server" ;;
  *) server="$(command -v "$server" || true)" ;;
esac
[[ -n "$server" && -x "$server" ]] || fail "no server at ${RULELENS_BIN:-$repo/target/debug/rulelens} (cargo build, or set RULELENS_BIN)"
command -v "$emacs" >/dev/null || fail "no Emacs \`$emacs\` (apt-get install -y emacs-nox elpa-eglot, or set EMACS_BIN)"
"$emacs" --version | head -n 1

# docs/editors.md shows the configuration the test loads, line for line.
docs="$(awk '/^```elisp$/ {inside = 1; next} /^```$/ {inside = 0} inside' "$repo/docs/editors.md")"
[[ "$docs" == "$(cat "$here/test/init.el")" ]] \
  || fail "docs/editors.md's elisp block differs from editors/emacs/test/init.el (copy it again):
$(diff <(printf '%s\n' "$docs") "$here/test/init.el" || true)"
echo "ok   docs/editors.md gives test/init.el verbatim"

tmp="$(mktemp -d)"
cleanup() {
  # A server left behind (Emacs killed by the timeout) would go on running.
  if [[ -s "$tmp/server.pid" ]]; then
    kill "$(cat "$tmp/server.pid")" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
cp -R "$repo/examples/sms" "$tmp/sms"
mkdir "$tmp/home"

# A home of its own: no ~/.emacs.d, no packages of the user's; caches in the temporary folder.
export HOME="$tmp/home" XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/config"
export RULELENS_TEST_PLUGIN="$here" RULELENS_TEST_DIR="$tmp" RULELENS_TEST_SERVER="$server"
export RULELENS_TEST_DEADLINE="$deadline"
# The test enforces the deadline itself; the timeout is for an Emacs that hangs anyway.
status=0
(cd "$tmp/sms" && timeout --kill-after=10 "$((deadline + 30))" \
  "$emacs" --batch --no-init-file --no-site-file -l "$here/test/rulelens-eglot-test.el") \
  </dev/null || status=$?
if [[ $status -ne 0 ]]; then
  [[ $status -eq 124 || $status -eq 137 ]] && echo "Emacs did not exit within $((deadline + 30)) s" >&2
  fail "failed (exit status $status)"
fi
