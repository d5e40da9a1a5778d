// Creates the LanguageClient of `rulelens serve`.

import * as vscode from "vscode";
import * as lc from "vscode-languageclient/node";
import { SECTION } from "./config";

/**
 * The documents the server handles: rules files (language `rules`, also untitled ones)
 * and corpus files, which the server recognises by their extension.
 */
export const DOCUMENT_SELECTOR = [
    { scheme: "file", language: "rules" },
    { scheme: "untitled", language: "rules" },
    { scheme: "file", pattern: "**/*.tsv" },
    { scheme: "file", pattern: "**/*.jsonl" },
];

/** A client of the server at `serverPath`, started with `rulelens serve` on stdio. */
export function createClient(
    serverPath: string,
    initializationOptions: object,
    outputChannel: vscode.OutputChannel,
): RulelensClient {
    // No `transport`: with `TransportKind.stdio` the client would add `--stdio` to the
    // arguments, which `rulelens serve` accepts and ignores; stdio is all it speaks.
    const executable: lc.Executable = { command: serverPath, args: ["serve"] };
    const serverOptions: lc.ServerOptions = { run: executable, debug: executable };
    const clientOptions: lc.LanguageClientOptions = {
        documentSelector: DOCUMENT_SELECTOR,
        initializationOptions,
        // didChangeConfiguration with the `rulelens` section on every change, and the
        // answers to the server's `workspace/configuration` requests.
        synchronize: { configurationSection: SECTION },
        diagnosticCollectionName: "rulelens",
        outputChannel,
    };
    // The id makes the client read the `rulelens.trace.server` setting.
    return new RulelensClient("rulelens", "rulelens", serverOptions, clientOptions);
}

/**
 * A LanguageClient whose requests, when the client stops while they wait to be sent (a
 * restart while VS Code asks for the outline), end quietly with the editor's empty answer
 * instead of an error in the log. vscode-languageclient 9.0.1 checks the client's state,
 * then awaits its start, and by then `dispose` may have taken the connection away: it throws
 * a plain "Starting server failed", which the features log as a failed request. As
 * `ConnectionInactive`, the code it gives requests to a client already stopped, the
 * features return their default answer without logging.
 */
export class RulelensClient extends lc.LanguageClient {
    // The base method's overloads all take and give what this one does.
    override async sendRequest(...args: any[]): Promise<any> {
        try {
            return await (super.sendRequest as (...args: any[]) => Promise<any>).apply(this, args);
        } catch (error) {
            if (!this.isRunning() && !(error instanceof lc.ResponseError)) {
                throw new lc.ResponseError(lc.ErrorCodes.ConnectionInactive, "the rulelens server stopped");
            }
            throw error;
        }
    }
}
