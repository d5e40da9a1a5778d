// Rulelens: Show Report: runs the server binary's `report` command (the one the extension
// started as the language server) on the rules file in the active editor and shows the page
// in a webview beside it; the page is made again after each save of that file. One panel per
// rules file; a report started before a newer one is dropped when it finishes.

import { execFile } from "child_process";
import * as path from "path";
import * as vscode from "vscode";
import { failurePage, reportArguments } from "./report";

/** The largest page read from `rulelens report` (a page of thousands of rules). */
const MAX_PAGE_BYTES = 256 * 1024 * 1024;

export class ReportPanels implements vscode.Disposable {
    private readonly panels = new Map<string, { panel: vscode.WebviewPanel; generation: number }>();
    private readonly onSave: vscode.Disposable;

    constructor(
        private readonly executable: () => string | undefined,
        private readonly output: vscode.OutputChannel,
    ) {
        this.onSave = vscode.workspace.onDidSaveTextDocument((document) => {
            if (this.panels.has(document.uri.fsPath)) {
                this.refresh(document.uri.fsPath);
            }
        });
    }

    /** Shows the report of the rules file in the active editor, making it first. */
    show(): void {
        const document = vscode.window.activeTextEditor?.document;
        if (document === undefined || document.languageId !== "rules" || document.uri.scheme !== "file") {
            void vscode.window.showWarningMessage(
                "Rulelens: Show Report shows the report of the rules file in the active editor: open one first.",
            );
            return;
        }
        const file = document.uri.fsPath;
        const open = this.panels.get(file);
        if (open !== undefined) {
            open.panel.reveal(vscode.ViewColumn.Beside, true);
        } else {
            const panel = vscode.window.createWebviewPanel(
                "rulelens.report",
                `Report: ${path.basename(file)}`,
                { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
                { enableScripts: true, localResourceRoots: [] },
            );
            panel.onDidDispose(() => this.panels.delete(file));
            this.panels.set(file, { panel, generation: 0 });
        }
        this.refresh(file);
    }

    /** Makes the report of `file` again and shows it, unless a newer one was started. */
    private refresh(file: string): void {
        const entry = this.panels.get(file);
        const executable = this.executable();
        if (entry === undefined) {
            return;
        }
        if (executable === undefined) {
            entry.panel.webview.html = failurePage(file, "The rulelens server was not found (see the rulelens output channel).");
            return;
        }
        const generation = ++entry.generation;
        this.output.appendLine(`Running ${executable} ${reportArguments(file).join(" ")}`);
        execFile(
            executable,
            reportArguments(file),
            { cwd: path.dirname(file), maxBuffer: MAX_PAGE_BYTES, encoding: "utf8" },
            (error, stdout, stderr) => {
                const current = this.panels.get(file);
                if (current === undefined || current.generation !== generation) {
                    return;
                }
                current.panel.webview.html = error === null ? stdout : failurePage(file, stderr || error.message);
            },
        );
    }

    dispose(): void {
        this.onSave.dispose();
        for (const { panel } of this.panels.values()) {
            panel.dispose();
        }
        this.panels.clear();
    }
}
