/**
 * This file mirrors `src/lsp/ext.rs` declarations, one to one: the rulelens server's
 * extensions to LSP, with their parameters and results (tests/unit/lsp_ext.test.ts checks
 * the method names and field names against ext.rs).
 */

import * as lc from "vscode-languageclient";

/** `rulelens/showAutomaton`: a pattern's minimal DFA as Graphviz DOT. */
export const showAutomaton = new lc.RequestType<ShowAutomatonParams, ShowAutomatonResult, void>(
    "rulelens/showAutomaton",
);

/**
 * `rulelens/showAutomaton` parameters: a rules document and either a pattern name or a
 * position inside a pattern's statement; neither gives every pattern.
 */
export interface ShowAutomatonParams {
    textDocument: lc.TextDocumentIdentifier;
    pattern?: string | null;
    position?: lc.Position | null;
}

/** `rulelens/showAutomaton` result. */
export interface ShowAutomatonResult {
    /** The pattern shown (`LABEL@LINE` for an anonymous rule), or `null` for all of them. */
    pattern: string | null;
    /** Graphviz DOT. */
    dot: string;
}

/**
 * `rulelens/train`: train the network of a rules file now, even with training switched
 * off in the settings (a cached network for the same rules, settings and corpora is
 * loaded instead).
 */
export const train = new lc.RequestType<TrainParams, TrainResult, void>("rulelens/train");

/** `rulelens/train` parameters: a rules document, or a corpus document its rules bind. */
export interface TrainParams {
    textDocument: lc.TextDocumentIdentifier;
    /** Train from scratch: no warm start from the previous network, and none held or cached. */
    full?: boolean;
}

/**
 * `rulelens/train` result: training started in the background (progress and diagnostics
 * follow), or why not.
 */
export interface TrainResult {
    started: boolean;
    message: string;
}

/**
 * `rulelens/suggest`: every suggested edit of the saved rules, with its evidence, as code
 * actions for a picker.
 */
export const suggest = new lc.RequestType<SuggestParams, SuggestResult, void>("rulelens/suggest");

/** `rulelens/suggest` parameters: a rules document, or a corpus document its rules bind. */
export interface SuggestParams {
    textDocument: lc.TextDocumentIdentifier;
}

/** `rulelens/suggest` result. `pending`: the save's suggestions are being measured; ask again. */
export interface SuggestResult {
    status: "ready" | "pending" | "unavailable";
    message: string;
    /** Best first (the largest dev accuracy after the edit). */
    suggestions: SuggestionItem[];
}

/**
 * One suggestion: where it comes from, its evidence in a line, and the code action that
 * applies it (resolved through `codeAction/resolve` when it has no edit; its title is the
 * edit with its evidence).
 */
export interface SuggestionItem {
    source: string;
    detail: string;
    action: lc.CodeAction;
}
