// Activation: finds and starts the server, and binds the commands to its requests.

import * as fs from "fs";
import * as os from "os";
import * as vscode from "vscode";
import type * as lc from "vscode-languageclient/node";
import { CodeActionResolveRequest } from "vscode-languageclient/node";
import { createClient, DOCUMENT_SELECTOR } from "./client";
import {
    Discovery,
    findServer,
    initializationOptions,
    SECTION,
    serverPathSetting,
    ServerSource,
    splitPathVariable,
} from "./config";
import * as ext from "./lsp_ext";
import { ReportPanels } from "./report_panel";

const FROM: Record<ServerSource, string> = {
    setting: "the rulelens.server.path setting",
    bundled: "the extension's server/ folder",
    path: "PATH",
};

/**
 * The running client, if any; replaced on restart. Starts, stops and restarts run one at a
 * time, in the order they were asked for, so that two restarts (a command and a settings
 * change) never leave two servers running.
 */
class ServerHandle {
    private client: lc.LanguageClient | undefined;
    /** The executable the client runs, once found. */
    private serverPath: string | undefined;
    /** The last start, stop or restart asked for; the next one waits for it. */
    private queue: Promise<void> = Promise.resolve();

    constructor(
        private readonly context: vscode.ExtensionContext,
        private readonly output: vscode.OutputChannel,
    ) {}

    private enqueue(operation: () => Promise<void>): Promise<void> {
        const next = this.queue.then(operation, operation);
        this.queue = next.catch(() => undefined);
        return next;
    }

    /** Finds the server and starts a client of it; reports failures to the user. */
    start(): Promise<void> {
        return this.enqueue(() => this.startNow());
    }

    stop(): Promise<void> {
        return this.enqueue(() => this.stopNow());
    }

    restart(): Promise<void> {
        return this.enqueue(async () => {
            await this.stopNow();
            await this.startNow();
        });
    }

    /**
     * `rulelens.server.path` changed. VS Code can deliver settings after activation (Remote
     * settings, a workspace trusted later, settings re-read once the extension's schema is
     * known), so a server that is not running is started at once with the new value; a
     * running one is restarted only when the user agrees, and only when the setting now
     * leads to another executable.
     */
    serverPathChanged(): Promise<void> {
        return this.enqueue(async () => {
            if (!this.client?.isRunning()) {
                this.output.appendLine("rulelens.server.path changed: starting the server");
                await this.stopNow();
                await this.startNow();
                return;
            }
            const found = this.find();
            if (found.ok && found.path === this.serverPath) {
                return;
            }
            // Not awaited in the queue: the question can stay open for as long as the user likes.
            void vscode.window
                .showInformationMessage("rulelens.server.path changed: restart the rulelens server to use it?", "Restart")
                .then((choice) => (choice === "Restart" ? this.restart() : undefined));
        });
    }

    private find(): Discovery {
        return findServer({
            setting: serverPathSetting(vscode.workspace.getConfiguration(SECTION)),
            extensionPath: this.context.extensionPath,
            pathEntries: splitPathVariable(process.env["PATH"], process.platform),
            platform: process.platform,
            exists: isFile,
            homeDir: os.homedir(),
            workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
        });
    }

    private async startNow(): Promise<void> {
        const found = this.find();
        if (!found.ok) {
            this.output.appendLine(found.message);
            void showError(found.message, true);
            return;
        }
        this.output.appendLine(`Starting ${found.path} serve (from ${FROM[found.source]})`);
        const config = vscode.workspace.getConfiguration(SECTION);
        const client = createClient(found.path, initializationOptions(config), this.output);
        this.client = client;
        this.serverPath = found.path;
        try {
            await client.start();
        } catch (error) {
            // The client has told the user already, with a button to this output channel.
            this.output.appendLine(`${found.path} serve did not start: ${messageOf(error)}`);
        }
    }

    private async stopNow(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        this.serverPath = undefined;
        if (client !== undefined) {
            try {
                await client.dispose(2000);
            } catch (error) {
                this.output.appendLine(`Stopping the server: ${messageOf(error)}`);
            }
        }
    }

    /** The server executable the running client was started from, if any. */
    executable(): string | undefined {
        return this.serverPath;
    }

    /** The client, once started, when it is running; otherwise tells the user. */
    async running(): Promise<lc.LanguageClient | undefined> {
        await this.queue;
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
    const reports = new ReportPanels(() => server.executable(), output);
    context.subscriptions.push(
        output,
        reports,
        vscode.commands.registerCommand("rulelens.train", () => train(server, false)),
        vscode.commands.registerCommand("rulelens.trainFromScratch", () => train(server, true)),
        vscode.commands.registerCommand("rulelens.showAutomaton", () => showAutomaton(server)),
        vscode.commands.registerCommand("rulelens.suggest", () => suggest(server)),
        vscode.commands.registerCommand("rulelens.showReport", () => reports.show()),
        vscode.commands.registerCommand("rulelens.restartServer", () => server.restart()),
        vscode.workspace.onDidChangeConfiguration((event) =>
            event.affectsConfiguration(`${SECTION}.server.path`) ? server.serverPathChanged() : undefined,
        ),
    );
    await server.start();
}

export async function deactivate(): Promise<void> {
    await handle?.stop();
    handle = undefined;
}

/**
 * Rulelens: Train Now (from the previous network where a warm start applies) and Rulelens:
 * Train From Scratch (`full`), for the rules or corpus document in the active editor.
 */
async function train(server: ServerHandle, full: boolean): Promise<void> {
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
            full,
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

/** How long Rulelens: Suggest Edits waits for the suggestions of a save being measured. */
const SUGGEST_TIMEOUT_MS = 120_000;

/**
 * Rulelens: Suggest Edits: every suggestion of the last save of the rules (of the rules
 * file or bound corpus in the active editor) in a picker, best first; the one picked is
 * applied like its code action (resolved against the version it was offered for).
 */
async function suggest(server: ServerHandle): Promise<void> {
    const document = vscode.window.activeTextEditor?.document;
    if (document === undefined || vscode.languages.match(DOCUMENT_SELECTOR, document) === 0) {
        void vscode.window.showWarningMessage(
            "Rulelens: Suggest Edits lists the suggestions for the rules file, or the corpus file, in the active editor: open one first.",
        );
        return;
    }
    const client = await server.running();
    if (client === undefined) {
        return;
    }
    const params = { textDocument: client.code2ProtocolConverter.asTextDocumentIdentifier(document) };
    let result: ext.SuggestResult;
    try {
        result = await vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: "rulelens: measuring suggestions" },
            async () => {
                const deadline = Date.now() + SUGGEST_TIMEOUT_MS;
                let answer = await client.sendRequest(ext.suggest, params);
                while (answer.status === "pending" && Date.now() < deadline) {
                    await new Promise((resolve) => setTimeout(resolve, 500));
                    answer = await client.sendRequest(ext.suggest, params);
                }
                return answer;
            },
        );
    } catch (error) {
        void showError(`rulelens/suggest: ${messageOf(error)}`, false);
        return;
    }
    if (result.status !== "ready" || result.suggestions.length === 0) {
        void vscode.window.showInformationMessage(`rulelens: ${result.message}`);
        return;
    }
    const picked = await vscode.window.showQuickPick(
        result.suggestions.map((item) => ({ label: item.action.title, description: item.source, detail: item.detail, item })),
        { placeHolder: `${result.message}: pick one to apply`, matchOnDescription: true, matchOnDetail: true },
    );
    if (picked === undefined) {
        return;
    }
    try {
        let action = picked.item.action;
        if (action.edit === undefined) {
            action = await client.sendRequest(CodeActionResolveRequest.type, action);
        }
        if (action.edit === undefined) {
            return;
        }
        const edit = await client.protocol2CodeConverter.asWorkspaceEdit(action.edit);
        if (!(await vscode.workspace.applyEdit(edit))) {
            void vscode.window.showWarningMessage("rulelens: the editor did not apply the edit");
        }
    } catch (error) {
        void showError(`rulelens: ${messageOf(error)}`, false);
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
