// Loads the bundle (dist/main.js, as VS Code would) with a stand-in for the `vscode` module
// and activates it where no server can be found: the commands package.json declares are
// registered and the user gets the message naming the three places looked in; and when rulelens.server.path
// arrives after activation (as VS Code can deliver settings late), the extension looks for
// the server again at once, without a question. Skipped before `npm run bundle`.

import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterEach, beforeEach, describe, it } from "node:test";
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

/** A stand-in VS Code: settings that can change, and what the extension did with it. */
function fakeWindow() {
    const commands: string[] = [];
    const errors: string[] = [];
    const questions: string[] = [];
    const log: string[] = [];
    const settings: Record<string, unknown> = {};
    const listeners: ((event: any) => unknown)[] = [];
    const disposable = { dispose() {} };
    const vscode = fakeVscode({
        version: "1.82.0",
        workspace: {
            getConfiguration: () => ({ get: (key: string) => settings[key] }),
            onDidChangeConfiguration: (listener: (event: any) => unknown) => {
                listeners.push(listener);
                return disposable;
            },
            workspaceFolders: undefined,
        },
        window: {
            createOutputChannel: () => ({ appendLine: (line: string) => log.push(line), dispose() {} }),
            showErrorMessage: async (message: string) => {
                errors.push(message);
                return undefined;
            },
            showInformationMessage: async (message: string) => {
                questions.push(message);
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
    /** Changes a `rulelens.*` setting as VS Code does: the value, then the event. */
    const change = async (key: string, value: unknown) => {
        settings[key] = value;
        const event = {
            affectsConfiguration: (section: string) => `rulelens.${key}` === section || `rulelens.${key}`.startsWith(`${section}.`),
        };
        await Promise.all(listeners.map((listener) => listener(event)));
    };
    return { vscode, commands, errors, questions, log, change };
}

describe("the bundle", { skip: fs.existsSync(BUNDLE) ? false : "dist/main.js not built (npm run bundle)" }, () => {
    let empty: string;
    let savedPath: string | undefined;
    beforeEach(() => {
        empty = fs.mkdtempSync(path.join(os.tmpdir(), "rulelens-ext-"));
        savedPath = process.env["PATH"];
        process.env["PATH"] = empty;
    });
    afterEach(() => {
        process.env["PATH"] = savedPath;
        fs.rmSync(empty, { recursive: true, force: true });
    });

    it("activates, registers its commands and reports a missing server", async () => {
        const fake = fakeWindow();
        const extension = loadBundle(fake.vscode);
        const context = { extensionPath: empty, subscriptions: [] as unknown[] };
        await extension.activate(context);
        await extension.deactivate();
        const declared = packageJson().contributes.commands.map((c: any) => c.command);
        assert.deepEqual(fake.commands.sort(), declared.sort());
        assert.equal(fake.errors.length, 1);
        assert.match(fake.errors[0]!, /rulelens\.server\.path/);
        assert.match(fake.errors[0]!, /server\/rulelens/);
        assert.match(fake.errors[0]!, /on PATH/);
        assert.match(fake.errors[0]!, /Remote settings/);
        assert.deepEqual(fake.log, fake.errors);
    });

    it("looks for the server again when rulelens.server.path arrives after activation, without asking", async () => {
        // A path where nothing is: the extension reports it as the setting's, which shows it
        // looked again with the new value (a server there would be started; the e2e test
        // starts one).
        const missing = path.join(empty, "not-here", "rulelens");
        const fake = fakeWindow();
        const extension = loadBundle(fake.vscode);
        await extension.activate({ extensionPath: empty, subscriptions: [] as unknown[] });
        assert.equal(fake.errors.length, 1, "activation without the setting reports the missing server");
        await fake.change("server.path", missing);
        await extension.deactivate();
        assert.deepEqual(fake.questions, [], "the user is asked nothing: no server was running");
        assert.equal(fake.errors.length, 2, `errors:\n${fake.errors.join("\n")}`);
        assert.ok(fake.errors[1]!.includes(`not found at ${missing}, the path the \`rulelens.server.path\` setting gives`), fake.errors[1]);
    });
});
