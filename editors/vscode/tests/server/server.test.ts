// Runs the real server (`rulelens serve`) with what the extension sends: the
// initializationOptions built from package.json's defaults, the `rulelens` section on
// didChangeConfiguration and workspace/configuration as vscode-languageclient sends it
// (nulls, and the extension's own settings, included), and the custom requests of
// lsp_ext.ts. Needs a server binary: RULELENS_SERVER, or target/{debug,release}/rulelens
// in the repository; skipped without one.

import * as assert from "node:assert/strict";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "url";
import { initializationOptions } from "../../src/config";
import { LspProcess } from "./lsp";
import { packageJson, repoFile } from "../unit/paths";

/** The server to run, or why there is none. */
function serverBinary(): { file: string } | { skip: string } {
    const given = process.env["RULELENS_SERVER"];
    if (given) {
        return { file: given }; // asked for: a missing or broken one fails the test
    }
    // The newest build in the repository, if it has the `serve` command (a build older
    // than the language server does not).
    const builds = ["target/debug/rulelens", "target/release/rulelens"]
        .map(repoFile)
        .filter((file) => fs.existsSync(file))
        .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
    const file = builds[0];
    if (file === undefined) {
        return { skip: "no server binary: set RULELENS_SERVER, or build target/debug/rulelens" };
    }
    const help = spawnSync(file, ["--help"], { encoding: "utf8", timeout: 10000 });
    if (!/^\s+serve\b/m.test(help.stdout ?? "")) {
        return { skip: `${file} has no serve command (an old build): rebuild it, or set RULELENS_SERVER` };
    }
    return { file };
}

/** What workspace.getConfiguration("rulelens") holds with every setting at its default. */
function defaultSection(): Record<string, any> {
    const section: Record<string, any> = {};
    for (const [key, property] of Object.entries<any>(packageJson().contributes.configuration.properties)) {
        const parts = key.split(".").slice(1);
        let node = section;
        for (const part of parts.slice(0, -1)) {
            node = node[part] ??= {};
        }
        node[parts[parts.length - 1]!] = property.default;
    }
    return section;
}

const found = serverBinary();

describe("rulelens serve with the extension's settings and requests", { skip: "skip" in found ? found.skip : false }, () => {
    const binary = "file" in found ? found.file : "";
    let server: LspProcess;
    let folder: string;
    let rulesUri: string;
    const section = { ...defaultSection(), training: { ...defaultSection()["training"], enabled: false } };

    before(async () => {
        folder = fs.mkdtempSync(path.join(os.tmpdir(), "rulelens-vscode-"));
        const rulesFile = path.join(folder, "spam.rules");
        const text = "default ham\npattern greeting = ( hi | hello ) $*\nspam: $* win $* cash $*\n";
        fs.writeFileSync(rulesFile, text);
        rulesUri = pathToFileURL(rulesFile).href;
        server = new LspProcess(binary, ["serve"], (request) =>
            request.method === "workspace/configuration" ? [section] : null,
        );
        const initialized = await server.request("initialize", {
            processId: process.pid,
            rootUri: pathToFileURL(folder).href,
            workspaceFolders: [{ uri: pathToFileURL(folder).href, name: "ws" }],
            capabilities: {
                workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
                window: { workDoneProgress: true },
            },
            initializationOptions: initializationOptions(section),
        });
        assert.equal(initialized.error, undefined, initialized.error?.message);
        assert.equal(initialized.result.serverInfo.name, "rulelens");
        server.notify("initialized", {});
        server.notify("workspace/didChangeConfiguration", { settings: { rulelens: section } });
        server.notify("textDocument/didOpen", { textDocument: { uri: rulesUri, languageId: "rules", version: 1, text } });
    });

    after(async () => {
        fs.rmSync(folder, { recursive: true, force: true });
        if (server !== undefined) {
            try {
                assert.equal(await server.stop(), 0);
            } finally {
                server.kill();
            }
        }
    });

    it("shows the automaton of the pattern at a position", async () => {
        const answer = await server.request("rulelens/showAutomaton", {
            textDocument: { uri: rulesUri },
            position: { line: 1, character: 10 },
        });
        assert.equal(answer.error, undefined, answer.error?.message);
        assert.equal(answer.result.pattern, "greeting");
        assert.match(answer.result.dot, /digraph/);
    });

    it("answers an error where no pattern is", async () => {
        const answer = await server.request("rulelens/showAutomaton", {
            textDocument: { uri: rulesUri },
            position: { line: 0, character: 3 },
        });
        assert.ok(answer.error, "an error response");
        assert.match(answer.error.message, /no pattern/);
    });

    it("trains on request", async () => {
        const answer = await server.request("rulelens/train", { textDocument: { uri: rulesUri } });
        assert.equal(answer.error, undefined, answer.error?.message);
        assert.equal(typeof answer.result.started, "boolean");
        assert.equal(typeof answer.result.message, "string");
    });

    it("answers suggest with why there are no suggestions yet", async () => {
        const answer = await server.request("rulelens/suggest", { textDocument: { uri: rulesUri } });
        assert.equal(answer.error, undefined, answer.error?.message);
        assert.notEqual(answer.result.status, "ready");
        assert.deepEqual(answer.result.suggestions, []);
        assert.match(answer.result.message, /save|corpus/);
    });

    it("accepted every settings message", async () => {
        // The configuration pull runs after `initialized`: wait for it to be answered.
        for (let i = 0; i < 50 && !server.serverRequests.some((r) => r.method === "workspace/configuration"); i++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await new Promise((resolve) => setTimeout(resolve, 300));
        const complaints = server.notifications.filter(
            (n) => n.method === "window/logMessage" || n.method === "window/showMessage",
        ).filter((n) => /ignored/.test(n.params.message));
        assert.deepEqual(complaints.map((n) => n.params.message), []);
    });
});
