// What Rulelens: Show Report runs and shows, apart from VS Code (so that unit tests can run
// it): the arguments of `rulelens report` that write a rules file's page to standard output,
// and the page shown when the command fails.

/** The arguments of the server binary's `report` command for the rules file `rulesFile`. */
export function reportArguments(rulesFile: string): string[] {
    return ["report", rulesFile, "-o", "-"];
}

/** Text as HTML text. */
export function escapeHtml(text: string): string {
    return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The webview's page when `rulelens report` failed on `rulesFile`, with what it said. */
export function failurePage(rulesFile: string, message: string): string {
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        "<style>body { font: 13px system-ui, sans-serif; padding: 1rem; } pre { white-space: pre-wrap; }</style>",
        "</head><body>",
        `<h2>rulelens report failed on ${escapeHtml(rulesFile)}</h2>`,
        `<pre>${escapeHtml(message)}</pre>`,
        "<p>Fix the rules file and save it: the report is made again after each save.</p>",
        "</body></html>",
    ].join("\n");
}
