// Loads the bundle (dist/main.js, as VS Code would) with a stand-in for the `vscode` module
// and activates it where no server can be found: the three commands are registered and the
// user gets the message naming the three places looked in. Skipped before `npm run bundle`.

import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { describe, it } from "node:test";
import { extensionFile, packageJson } from "./paths";

const BUNDLE = extensionFile("dist/main.js");

/** Any property, call or construction gives the stub again: enough for module load time. */
const anything: any = new Proxy(function () {}, {
    get: (_target, key) => (key === "then" ? undefined : anything),
    apply: () => anything,
    construct: () => anything,
});

/** A `vscode` module: the given members over `anything`. */
function fakeVscode(members: Record<string, any>): any {
    const wrap = (value: any): any =>
        value !== null && typeof value === "object" && !Array.isArray(value)
            ? new Proxy(value, { get: (target, key) => (key in target ? wrap(target[key]) : anything) })
            : value;
    return wrap(members);
}

function loadBundle(vscode: any): any {
    const Module = require("module");
    const load = Module._load;
    Module._load = function (request: string, ...rest: unknown[]) {
        return request === "vscode" ? vscode : load.call(this, request, ...rest);
    };
    try {
        delete require.cache[BUNDLE];
        return require(BUNDLE);
    } finally {
        Module._load = load;
    }
}

describe("the bundle", { skip: fs.existsSync(BUNDLE) ? false : "dist/main.js not built (npm run bundle)" }, () => {
    it("activates, registers its commands and reports a missing server", async () => {
        const commands: string[] = [];
        const errors: string[] = [];
        const log: string[] = [];
        const disposable = { dispose() {} };
        const vscode = fakeVscode({
            workspace: {
                getConfiguration: () => ({ get: () => undefined }),
                onDidChangeConfiguration: () => disposable,
                workspaceFolders: undefined,
            },
            window: {
                createOutputChannel: () => ({ appendLine: (line: string) => log.push(line), dispose() {} }),
                showErrorMessage: async (message: string) => {
                    errors.push(message);
                    return undefined;
                },
            },
            commands: {
                registerCommand: (id: string) => {
                    commands.push(id);
                    return disposable;
                },
            },
        });
        const extension = loadBundle(vscode);
        const empty = fs.mkdtempSync(path.join(os.tmpdir(), "rulelens-ext-"));
        const savedPath = process.env["PATH"];
        process.env["PATH"] = empty;
        try {
            const context = { extensionPath: empty, subscriptions: [] as unknown[] };
            await extension.activate(context);
            await extension.deactivate();
        } finally {
            process.env["PATH"] = savedPath;
            fs.rmSync(empty, { recursive: true, force: true });
        }
        const declared = packageJson().contributes.commands.map((c: any) => c.command);
        assert.deepEqual(commands.sort(), declared.sort());
        assert.equal(errors.length, 1);
        assert.match(errors[0]!, /rulelens\.server\.path/);
        assert.match(errors[0]!, /server\/rulelens/);
        assert.match(errors[0]!, /on PATH/);
        assert.deepEqual(log, errors);
    });
});
