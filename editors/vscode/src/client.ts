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
): lc.LanguageClient {
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
    return new lc.LanguageClient("rulelens", "rulelens", serverOptions, clientOptions);
}
