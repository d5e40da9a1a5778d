// Activation: finds and starts the server, and binds the commands to its requests.

import * as fs from "fs";
import * as os from "os";
import * as vscode from "vscode";
import type * as lc from "vscode-languageclient/node";
import { createClient, DOCUMENT_SELECTOR } from "./client";
import {
    findServer,
    initializationOptions,
    SECTION,
    serverPathSetting,
    ServerSource,
    splitPathVariable,
} from "./config";
import * as ext from "./lsp_ext";

const FROM: Record<ServerSource, string> = {
    setting: "the rulelens.server.path setting",
    bundled: "the extension's server/ folder",
    path: "PATH",
};

/** The running client, if any; replaced on restart. */
class ServerHandle {
    private client: lc.LanguageClient | undefined;
    private starting: Promise<void> | undefined;

    constructor(
        private readonly context: vscode.ExtensionContext,
        private readonly output: vscode.OutputChannel,
    ) {}

    /** Finds the server and starts a client of it; reports failures to the user. */
    start(): Promise<void> {
        this.starting = this.startNow();
        return this.starting;
    }

    private async startNow(): Promise<void> {
        const config = vscode.workspace.getConfiguration(SECTION);
        const found = findServer({
            setting: serverPathSetting(config),
            extensionPath: this.context.extensionPath,
            pathEntries: splitPathVariable(process.env["PATH"], process.platform),
            platform: process.platform,
            exists: isFile,
            homeDir: os.homedir(),
            workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
        });
        if (!found.ok) {
            this.output.appendLine(found.message);
            void showError(found.message, true);
            return;
        }
        this.output.appendLine(`Starting ${found.path} serve (from ${FROM[found.source]})`);
        const client = createClient(found.path, initializationOptions(config), this.output);
        this.client = client;
        try {
            await client.start();
        } catch (error) {
            // The client has told the user already, with a button to this output channel.
            this.output.appendLine(`${found.path} serve did not start: ${messageOf(error)}`);
        }
    }

    async stop(): Promise<void> {
        await this.starting;
        const client = this.client;
        this.client = undefined;
        if (client !== undefined) {
            try {
                await client.dispose(2000);
            } catch (error) {
                this.output.appendLine(`Stopping the server: ${messageOf(error)}`);
            }
        }
    }

    async restart(): Promise<void> {
        await this.stop();
        await this.start();
    }

    /** The client, once it has started, when it is running; otherwise tells the user. */
    async running(): Promise<lc.LanguageClient | undefined> {
        await this.starting;
        if (this.client?.isRunning()) {
            return this.client;
        }
        void showError("The rulelens language server is not running (see the rulelens output channel).", true);
        return undefined;
    }
}

let handle: ServerHandle | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    const output = vscode.window.createOutputChannel("rulelens");
    const server = new ServerHandle(context, output);
    handle = server;
    context.subscriptions.push(
        output,
        vscode.commands.registerCommand("rulelens.train", () => train(server)),
        vscode.commands.registerCommand("rulelens.showAutomaton", () => showAutomaton(server)),
        vscode.commands.registerCommand("rulelens.restartServer", () => server.restart()),
        vscode.workspace.onDidChangeConfiguration(async (event) => {
            if (!event.affectsConfiguration(`${SECTION}.server`)) {
                return;
            }
            const choice = await vscode.window.showInformationMessage(
                "rulelens.server.path changed: restart the rulelens server to use it?",
                "Restart",
            );
            if (choice === "Restart") {
                await server.restart();
            }
        }),
    );
    await server.start();
}

export async function deactivate(): Promise<void> {
    await handle?.stop();
    handle = undefined;
}

/** Rulelens: Train Now, for the rules or corpus document in the active editor. */
async function train(server: ServerHandle): Promise<void> {
    const document = vscode.window.activeTextEditor?.document;
    if (document === undefined || vscode.languages.match(DOCUMENT_SELECTOR, document) === 0) {
        void vscode.window.showWarningMessage(
            "Rulelens: Train Now trains the rules file, or the corpus file, in the active editor: open one first.",
        );
        return;
    }
    const client = await server.running();
    if (client === undefined) {
        return;
    }
    try {
        const result = await client.sendRequest(ext.train, {
            textDocument: client.code2ProtocolConverter.asTextDocumentIdentifier(document),
        });
        if (result.started) {
            void vscode.window.showInformationMessage(`rulelens: ${result.message}`);
        } else {
            void vscode.window.showWarningMessage(`rulelens: ${result.message}`);
        }
    } catch (error) {
        void showError(`rulelens/train failed: ${messageOf(error)}`, false);
    }
}

/** Rulelens: Show Automaton, of the pattern at the cursor, as DOT in a new document. */
async function showAutomaton(server: ServerHandle): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || editor.document.languageId !== "rules") {
        void vscode.window.showWarningMessage(
            "Rulelens: Show Automaton shows the pattern at the cursor of a rules file: open one first.",
        );
        return;
    }
    const client = await server.running();
    if (client === undefined) {
        return;
    }
    let result: ext.ShowAutomatonResult;
    try {
        result = await client.sendRequest(ext.showAutomaton, {
            textDocument: client.code2ProtocolConverter.asTextDocumentIdentifier(editor.document),
            position: client.code2ProtocolConverter.asPosition(editor.selection.active),
        });
    } catch (error) {
        void showError(`rulelens/showAutomaton: ${messageOf(error)}`, false);
        return;
    }
    // `dot` comes from a Graphviz extension; without one, the DOT opens as plain text.
    const languages = await vscode.languages.getLanguages();
    const document = await vscode.workspace.openTextDocument({
        language: languages.includes("dot") ? "dot" : "plaintext",
        content: result.dot,
    });
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}

function isFile(file: string): boolean {
    try {
        return fs.statSync(file).isFile();
    } catch {
        return false;
    }
}

function messageOf(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

async function showError(message: string, offerSettings: boolean): Promise<void> {
    const openSettings = "Open Settings";
    const choice = await vscode.window.showErrorMessage(message, ...(offerSettings ? [openSettings] : []));
    if (choice === openSettings) {
        await vscode.commands.executeCommand("workbench.action.openSettings", SECTION);
    }
}
